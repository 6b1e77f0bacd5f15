"""Bad house-rules files: one clear line naming the file, the key and its line; defaults survive.

Each file goes through ``reptile-tank score-grid --rules BAD.toml`` (a bounded child process) and
:func:`scoring.reptile_tank.rules.load_rules`; random edits of the whole rules data go through ``overrides``.
"""

from __future__ import annotations

import json
import tomllib

import pytest
from hypothesis import given, settings

from scoring.reptile_tank.rules import DEFAULT_RULES_PATH, RulesError, load_rules
from tests.hostile.conftest import assert_clean_refusal, run_cli
from tests.hostile.fuzzing import FAST, FAST_EXAMPLES, SLOW, VALID, mutations

#: (id, file text, fragments the one-line message must hold). ``{file}`` is the file's path.
BAD_FILES = [
    ("typo_in_key", "[cards.blue_tongued_skink.tiers.basic]\nvpp = 3\n", ["vpp", "line 2"]),
    (
        "typo_in_card_id",
        '[cards.blue_tonged_skink]\nname = "Skink"\n',
        ["blue_tonged_skink", "line 1"],
    ),
    (
        "string_for_number",
        '\n\n[cards.rock.tiers.basic]\nvp = "five"\n',
        ["cards.rock.tiers.basic.vp", "line 4", "int"],
    ),
    ("float_for_number", "[objectives.3]\nvp = 7.5\n", ["objectives.3.vp", "line 2"]),
    ("bool_for_number", "[objectives.3]\nvp = true\n", ["objectives.3.vp", "line 2"]),
    ("negative_vp", "[cards.water.tiers.lake]\nvp = -4\n", ["vp", "line 2", "negative"]),
    ("unknown_objective", "[objectives.42]\nvp = 6\n", ["42", "line 1"]),
    ("unknown_top_level", "[scoring]\nbonus = 3\n", ["scoring", "line 1"]),
    ("table_is_a_number", "cards = 5\n", ["cards", "line 1", "table"]),
    ("tiers_is_a_string", '[cards.rock]\ntiers = "many"\n', ["cards.rock.tiers", "line 2"]),
    (
        "mask_wrong_shape",
        '[masks.golden_pothos]\nrows = ["XX", ".."]\n',
        ["masks.golden_pothos.rows", "line 2"],
    ),
    ("grid_resized", "[grid]\nrows = 5\n", ["grid", "4x5"]),
    ("toml_syntax_error", "[cards.rock.tiers.basic\nvp = 3\n", ["invalid TOML", "line 1"]),
    ("unclosed_string", '[objectives.3]\ntext = "oops\n', ["invalid TOML", "line 2"]),
    ("duplicate_key", "[objectives.3]\nvp = 6\nvp = 8\n", ["invalid TOML", "line 3"]),
    # Regressions found by the rules-data fuzz (each raised TypeError with a traceback):
    ("what_is_a_number", "[objectives.16]\nwhat = 5\n", ["objectives.16.what", "line 2"]),
    ("mask_is_an_array", '[objectives.16]\nmask = ["M1"]\n', ["objectives.16.mask", "line 2"]),
    (
        "category_is_an_array",
        '[cards.brown_anole]\ncategories = [["lizard"]]\n',
        ["cards.brown_anole.categories", "line 2"],
    ),
    (
        "objective_category_is_an_array",
        '[objectives.3]\ncategories = [["lizard"]]\n',
        ["objectives.3.categories", "line 2"],
    ),
    ("objective_categories_is_a_number", "[objectives.3]\ncategories = 5\n", ["line 2"]),
    ("key_with_newline", '[objectives.3]\n"a\\nb" = 4\n', ["objectives.3.a\\nb", "line"]),
    # Issue 16: typos in every section are named (they were silently ignored), with a guess.
    ("solo_typo", "[solo]\nroach_vp_per_crad = 99\n", ["solo.roach_vp_per_crad", "line 2"]),
    (
        "solo_quantity_typo",
        "[solo.quantity]\nvp_per_crad = 99\n",
        ["solo.quantity.vp_per_crad", "line 2", "did you mean 'vp_per_card'"],
    ),
    (
        "solo_level_typo",
        "[solo.level_rules.hard]\nanimal_leftover = 'water'\n",
        ["solo.level_rules.hard.animal_leftover", "line 2", "did you mean 'animal_leftovers'"],
    ),
    ("solo_level_unknown", "[solo.level_rules.brutal]\n", ["solo.level_rules.brutal", "line 1"]),
    ("grid_typo", "[grid]\ncolss = 5\n", ["grid.colss", "line 2", "did you mean 'cols'"]),
    ("deck_typo", "[deck]\nsise = 126\n", ["deck.sise", "line 2", "did you mean 'size'"]),
    (
        "categories_typo",
        "[categories.lizard]\ncolumm = 'lizards'\n",
        ["categories.lizard.columm", "line 2", "did you mean 'column'"],
    ),
    ("pad_column_unknown", "[categories.lizard]\ncolumn = 'lizzards'\n", ["lizzards", "line 2"]),
    # "٣" is a digit to str.isdigit() and int(): it replaced objective 3.
    ("arabic_indic_three", '[objectives."\u0663"]\nvp = 60\n', ["ASCII digits", "line 1"]),
    ("copies_3000", "[cards.rock]\ncopies = 3000\n", ["cards.rock.copies", "at most 99"]),
    ("copies_1e7", "[cards.rock]\ncopies = 10000000\n", ["cards.rock.copies", "at most 99"]),
    ("vp_huge", "[objectives.3]\nvp = 1_000_000_000_000\n", ["objectives.3.vp", "at most"]),
    ("nested_100000", "x = " + "[" * 100_000 + "]" * 100_000 + "\n", ["nested"]),
    ("nested_tables", "[" + ".".join(["a"] * 40) + "]\n", ["nested"]),
    ("edition_multiline", '[edition]\nname = "a\\nb"\n', ["edition.name", "one printable"]),
    (
        "missing_count_of_new_tier",
        "[cards.dubia_roach.tiers.swarm]\nvp = 9\n",
        ["cards.dubia_roach.tiers.swarm", "count", "line 1"],
    ),
]


def write(tmp_path, name: str, content: str | bytes):
    path = tmp_path / f"{name}.toml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.fixture
def board_file(tmp_path):
    path = tmp_path / "board.json"
    path.write_text(json.dumps(VALID["grid"]))
    return path


@pytest.mark.parametrize("name, text, fragments", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_load_rules_names_the_key_and_line(tmp_path, name, text, fragments):
    path = write(tmp_path, name, text)
    with pytest.raises(RulesError) as caught:
        load_rules(path)
    message = str(caught.value)
    assert "\n" not in message
    assert str(path) in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    # The defaults are untouched and still score.
    assert load_rules().cards["blue_tongued_skink"].tiers[-1].vp == 13


@pytest.mark.parametrize("name, text, fragments", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_cli_refuses_bad_rules_in_one_line(tmp_path, board_file, name, text, fragments):
    path = write(tmp_path, name, text)
    run = run_cli("score-grid", str(board_file), "--rules", str(path))
    assert_clean_refusal(run, str(path), *fragments)
    again = run_cli("score-grid", str(board_file), "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["total"] > 0


@pytest.mark.parametrize(
    "name, content, fragment",
    [
        ("not_utf8", b"[objectives.3]\nvp = 6\n# \xff\xfe caf\xe9\n", "UTF-8"),
        ("binary", bytes(range(256)) * 4, "UTF-8"),
    ],
)
def test_undecodable_rules_file_is_named(tmp_path, board_file, name, content, fragment):
    path = write(tmp_path, name, content)
    with pytest.raises(RulesError, match=fragment):
        load_rules(path)
    run = run_cli("score-grid", str(board_file), "--rules", str(path))
    assert_clean_refusal(run, str(path), fragment)


def test_missing_or_folder_rules_path_is_one_line(tmp_path, board_file):
    for path in (tmp_path / "nope.toml", tmp_path):
        run = run_cli("score-grid", str(board_file), "--rules", str(path))
        assert_clean_refusal(run)


def test_empty_rules_file_means_the_defaults(tmp_path, board_file):
    path = write(tmp_path, "empty", "")
    default = run_cli("score-grid", str(board_file), "--json")
    house = run_cli("score-grid", str(board_file), "--json", "--rules", str(path))
    assert house.returncode == default.returncode == 0
    assert json.loads(house.stdout)["total"] == json.loads(default.stdout)["total"]


DEFAULT_DATA = tomllib.loads(DEFAULT_RULES_PATH.read_text(encoding="utf-8"))


@settings(FAST, max_examples=max(FAST_EXAMPLES // 3, 10))
@given(data=mutations(DEFAULT_DATA))
def test_random_edits_of_the_rules_data_are_refused_cleanly(data):
    """Only RulesError (one line) may come out of any edit of the rules data."""
    check_rules_data(data)


@pytest.mark.slow
@SLOW
@given(data=mutations(DEFAULT_DATA))
def test_random_edits_of_the_rules_data_long_run(data):
    check_rules_data(data)


def check_rules_data(data) -> None:
    if not isinstance(data, dict):
        return  # overrides must be a table; the file reader never yields anything else
    try:
        load_rules(overrides=data)
    except RulesError as error:
        assert "\n" not in str(error)
