"""The rules data file: completeness, provenance, overrides, and validation messages."""

from __future__ import annotations

import tomllib

import pytest

from scoring.reptile_tank.cards import CARD_IDS, WATER
from scoring.reptile_tank.engine import FINDERS
from scoring.reptile_tank.objectives import CHECKERS
from scoring.reptile_tank.rules import DEFAULT_RULES_PATH, RulesError, key_lines, load_rules


def test_every_card_and_objective_is_in_the_data_with_provenance(rules):
    assert set(rules.cards) == set(CARD_IDS) | {WATER}
    assert sorted(rules.objectives) == list(range(1, 20))
    for rule in rules.cards.values():
        assert rule.condition in FINDERS
        assert rule.tiers and all(
            t.provenance in ("rulebook", "derived", "assumed") for t in rule.tiers
        )
        assert rule.text and all(t.text for t in rule.tiers)
    assert all(o.kind in CHECKERS and o.vp in (6, 8, 10) for o in rules.objectives.values())


def test_card_reference_values(rules):
    cards = rules.cards
    assert [t.vp for t in cards["blue_tongued_skink"].tiers] == [5, 13]
    assert [t.vp for t in cards["three_toed_box_turtle"].tiers] == [6, 12]
    assert [t.vp for t in cards["water"].tiers] == [1, 3, 4, 8, 8]
    assert [t.provenance for t in cards["water"].tiers][-2:] == ["rulebook", "assumed"]
    assert {c for c, r in cards.items() if r.star} == {"corn_snake", "brown_anole", "rock"}
    assert sum(r.copies for r in cards.values()) == rules.deck_size == 126
    assert rules.masks["ringneck_snake"][0] == (True, False, True, False, True)
    assert "worked example" in rules.solo.anole_note  # the brown-anole solo discrepancy
    assert rules.solo.adjacency.vp_per_env_kind == 1
    assert rules.star_cards == ("corn_snake", "brown_anole", "rock")
    assert rules.layout.shape == (4, 5) and (rules.layout.cell_w_mm, rules.layout.cell_h_mm) == (
        63.0,
        88.0,
    )


def test_assumed_values_are_listed_for_the_app(rules):
    assumed = rules.assumed_values()
    assert "cards.neon_day_gecko.tiers.advanced" in assumed
    assert "cards.blue_tongued_skink.tiers.advanced" not in assumed


def test_user_file_overrides_one_value_and_keeps_the_rest(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text("[cards.neon_day_gecko.tiers.advanced]\nvp = 15\n", encoding="utf-8")
    rules = load_rules(path)
    assert rules.cards["neon_day_gecko"].tier("advanced").vp == 15
    assert rules.cards["neon_day_gecko"].tier("advanced").shape == ((0, 0), (1, 1), (2, 2))
    assert rules.cards["blue_tongued_skink"].tier("advanced").vp == 13


def test_overrides_dict_with_int_objective_keys():
    rules = load_rules(overrides={"objectives": {3: {"vp": 12}}})
    assert rules.objectives[3].vp == 12


def write(tmp_path, text):
    path = tmp_path / "rules.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "key", "line", "words"),
    [
        ("[cards.skunk]\nname = 'Skunk'\n", "cards.skunk", 1, "unknown card id"),
        (
            "# house rules\n[cards.rock.tiers.basic]\nvp = -3\n",
            "cards.rock.tiers.basic.vp",
            3,
            "must not be negative",
        ),
        (
            "[masks.ringneck_snake]\nrows = ['X.X.X', '.....', '.....']\n",
            "masks.ringneck_snake.rows",
            2,
            "4 strings of 5",
        ),
        (
            "[masks.M1]\nrows = ['X...X', '.....', '.....', 'X..X']\n",
            "masks.M1.rows",
            2,
            "4 strings of 5",
        ),
        ("[cards.rock.tiers.expert]\nmin = 3\n", "cards.rock.tiers.expert.vp", 1, "missing"),
        ("[cards.rock]\ntiers = []\n", "cards.rock.tiers", 2, "must be a table"),
        ("[cards.rock.tiers.basic]\nvp = 'three'\n", "cards.rock.tiers.basic.vp", 2, "must be int"),
        ("[cards.rock]\nstar = 1\n", "cards.rock.star", 2, "must be bool"),
        ("[cards.rock]\ncondition = 'vibes'\n", "cards.rock.condition", 2, "unknown value"),
        ("\n\n[cards.rock]\ncolour = 'grey'\n", "cards.rock.colour", 4, "unknown key"),
        ("[objectives.20]\nkind = 'count'\nwhat = 'rocks'\n", "objectives.20.what", 3, "unknown"),
        (
            "[cards.ringneck_snake]\nmask = 'nowhere'\n",
            "cards.ringneck_snake.mask",
            2,
            "unknown mask",
        ),
    ],
)
def test_validation_names_the_key_and_the_line(tmp_path, text, key, line, words):
    path = write(tmp_path, text)
    with pytest.raises(RulesError) as info:
        load_rules(path)
    message = str(info.value)
    assert key in message and f"line {line}" in message and words in message
    assert str(path) in message and "\n" not in message


def test_a_value_missing_for_a_new_condition_points_at_the_default_tier(tmp_path):
    path = write(tmp_path, "[cards.hollow_log]\ncondition = 'shape'\n")
    with pytest.raises(RulesError) as info:
        load_rules(path)
    message = str(info.value)
    line = int(message.rsplit("line ", 1)[1].rstrip(")"))
    default = DEFAULT_RULES_PATH.read_text(encoding="utf-8").splitlines()
    assert "cards.hollow_log.tiers.basic.count: missing" in message
    assert default[line - 1] == "[cards.hollow_log.tiers.basic]"


def test_toml_syntax_errors_give_the_line(tmp_path):
    path = write(tmp_path, "[cards.rock]\nvp = = 3\n")
    with pytest.raises(RulesError, match=r"invalid TOML.*line 2"):
        load_rules(path)


def test_missing_tier_value_points_at_the_default_file():
    with pytest.raises(RulesError, match=r"cards\.rock\.tiers\.basic: .*must be a table"):
        load_rules(overrides={"cards": {"rock": {"tiers": {"basic": 3}}}})


def test_key_lines_tracks_tables_and_skips_multiline_strings():
    text = DEFAULT_RULES_PATH.read_text(encoding="utf-8")
    lines = key_lines(text)
    source = text.splitlines()
    line = lines[("cards", "blue_tongued_skink", "tiers", "advanced", "vp")]
    assert source[line - 1].strip() == "vp = 13"
    assert source[lines[("solo", "level_rules", "hard")] - 1].strip() == "[solo.level_rules.hard]"
    assert tomllib.loads(text)  # the default file parses


def test_the_layout_is_a_value_from_the_grid_section():
    from scoring.layout import Layout
    from scoring.reptile_tank.board import Board, BoardError
    from scoring.reptile_tank.engine import score_board

    rules = load_rules()
    assert Board.empty().layout == rules.layout  # a board built without rules: the data's grid
    small = Layout(name="other", rows=3, cols=3, cell_w_mm=50.0, cell_h_mm=50.0)
    board = Board.empty(small)
    assert len(board.rows) == 3 and board.layout == small
    with pytest.raises(BoardError, match="3x3"):
        score_board(board, rules)
    with pytest.raises(RulesError, match="cannot change grid.rows"):
        load_rules(overrides={"grid": {"rows": 5}})
    with pytest.raises(RulesError, match="grid.cell_size.width_mm"):
        load_rules(overrides={"grid": {"cell_size": {"width_mm": -1}}})
