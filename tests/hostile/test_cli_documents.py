"""Hostile board/game/solo files through the real ``reptile-tank`` process: one line, exit 2."""

from __future__ import annotations

import json

import pytest

from tests.hostile.conftest import assert_clean_refusal, run_cli
from tests.hostile.fuzzing import VALID

HOSTILE = [
    ("deep_nesting", "[" * 100_000, "nested too deeply"),
    ("huge_integer", '{"rows": ' + "9" * 5000 + "}", "unreadable JSON value"),
    ("binary", bytes(range(256)).decode("latin-1"), ""),
    ("not_json", "rows: [a, b]", "invalid JSON"),
    ("empty", "", "invalid JSON"),
    ("nan_cells", '{"rows": [[NaN, 1, 2, 3, 4]]}', ""),
    ("board_is_list", json.dumps(VALID["grid"]["rows"]), "rows"),
    ("one_row", json.dumps({"rows": VALID["grid"]["rows"][:1]}), "4 rows"),
    ("unknown_id", json.dumps({"rows": [["gecko"] * 5] * 4}), "gecko"),
]


@pytest.mark.parametrize("command", ["score-grid", "score-game", "solo"])
@pytest.mark.parametrize("name, text, fragment", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_document_files_are_one_line(tmp_path, command, name, text, fragment):
    path = tmp_path / f"{name}.json"
    path.write_bytes(text.encode("latin-1") if name == "binary" else text.encode("utf-8"))
    run = run_cli(command, str(path))
    line = assert_clean_refusal(run)
    if command == "score-grid" or fragment in ("nested too deeply", "unreadable JSON value"):
        assert fragment in line
    assert run.cpu_s < 5.0


@pytest.mark.parametrize(
    "doc, fragment",
    [
        ({**VALID["solo"], "master": {"cards": {"rock": 10**18}}}, "copies"),
        ({**VALID["solo"], "master": {"cards": {"corn_snake": 500}}}, "copies"),
        ({**VALID["solo"], "master": {"cards": {}, "level": []}}, "level"),
        ({**VALID["solo"], "objectives": 9}, "objectives"),
    ],
    ids=["count_1e18", "count_500", "level_list", "objectives_number"],
)
def test_solo_regressions_are_one_line_and_fast(tmp_path, doc, fragment):
    """Each of these once hung, ran out of memory or raised a traceback (see RELIABILITY.md)."""
    path = tmp_path / "solo.json"
    path.write_text(json.dumps(doc))
    run = run_cli("solo", str(path))
    assert_clean_refusal(run, fragment)
    assert run.cpu_s < 5.0


def test_board_from_stdin(tmp_path):
    run = run_cli("score-grid", "-", "--json", stdin=json.dumps(VALID["grid"]))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["board"] == VALID["grid"]
    bad = run_cli("score-grid", "-", stdin="{" * 50_000)
    assert_clean_refusal(bad, "-")


# ----------------------------------------------------------------------------- issue 13
# Documents that once scored silently wrong (a key ignored, defaults used, no warning): each is
# now refused in one line that names the key.

SOLO = VALID["solo"]
GAME = VALID["game"]
MASTER_34 = {
    "corn_snake": 8,
    "rosy_boa": 8,
    "rock": 9,
    "hollow_log": 9,
}  # 34 cards, each count within the deck's copies

SILENT = [
    (
        "board_objectives",
        "score-grid",
        {**VALID["grid"], "objectives": [3]},
        ['"objectives"', "--objectives"],
    ),
    (
        "game_objective",
        "score-game",
        {**GAME, "objective": [3]},
        ['"objective"', 'did you mean "objectives"'],
    ),
    (
        "game_player_key",
        "score-game",
        {**GAME, "players": [{**GAME["players"][0], "nmae": "x"}]},
        ['"nmae"'],
    ),
    (
        "solo_levl",
        "solo",
        {**SOLO, "master": {**SOLO["master"], "levl": "hard"}},
        ['"levl"', 'did you mean "level"'],
    ),
    (
        "solo_objective",
        "solo",
        {**SOLO, "objective": [3]},
        ['"objective"', 'did you mean "objectives"'],
    ),
    (
        "solo_stars_typo",
        "solo",
        {**SOLO, "star_card_removed": True},
        ['"star_card_removed"', "star_cards_removed"],
    ),
    (
        "master_34_cards",
        "solo",
        {**SOLO, "master": {"cards": MASTER_34}},
        ["34 cards", "at most 20"],
    ),
    (
        "players_5",
        "score-game",
        {**GAME, "players": [{"name": f"P{k}", "board": VALID["grid"]} for k in range(5)]},
        ['"players"', "1 to 4"],
    ),
    ("players_0", "score-game", {**GAME, "players": []}, ['"players"', "1 to 4"]),
    (
        "name_newline",
        "score-game",
        {**GAME, "players": [{"name": "Ann\n1. Eve 999 VP", "board": VALID["grid"]}]},
        ['"name"', "control characters"],
    ),
    (
        "name_huge",
        "score-game",
        {**GAME, "players": [{"name": "A" * 5000, "board": VALID["grid"]}]},
        ['"name"', "at most 100"],
    ),
]


@pytest.mark.parametrize("name, command, doc, fragments", SILENT, ids=[case[0] for case in SILENT])
def test_silent_wrong_answer_documents_are_refused_naming_the_key(
    tmp_path, name, command, doc, fragments
):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert_clean_refusal(run_cli(command, str(path)), *fragments)


@pytest.mark.parametrize("players", ["0", "-3", "5"])
def test_players_option_is_bounded(tmp_path, players):
    path = tmp_path / "board.json"
    path.write_text(json.dumps(VALID["grid"]))
    assert_clean_refusal(run_cli("score-grid", str(path), "--players", players), "--players")


@pytest.mark.parametrize(
    "command, kind", [("score-grid", "grid"), ("score-game", "game"), ("solo", "solo")]
)
def test_a_utf8_byte_order_mark_is_accepted(tmp_path, command, kind):
    path = tmp_path / "doc.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(VALID[kind]).encode("utf-8"))
    run = run_cli(command, str(path), "--json")
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""


def test_a_closed_pipe_is_quiet(tmp_path):
    """``reptile-tank score-game game.json | head -1``: no 'Broken pipe' message."""
    import os
    import subprocess
    import sys

    from tests.hostile.conftest import REPO

    path = tmp_path / "game.json"
    path.write_text(json.dumps(VALID["game"]))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "reptile_tank", "score-game", str(path)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader is gone before the first line is written
    _, err = proc.communicate(timeout=60)
    assert err.decode() == "", err.decode()
    assert proc.returncode == 141


@pytest.mark.parametrize(
    "name",
    ["Liz \U0001f469\u200d\U0001f469\u200d\U0001f467", "\u0645\u06cc\u200c\u0631\u0648\u062f"],
)
def test_names_written_with_zero_width_joiners_are_kept(tmp_path, name):
    doc = {**GAME, "players": [{"name": name, "board": VALID["grid"]}]}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    run = run_cli("score-game", str(path))
    assert run.returncode == 0, run.stderr
    assert name in run.stdout
