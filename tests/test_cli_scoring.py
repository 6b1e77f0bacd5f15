"""``reptile-tank score-grid / score-game / solo`` through a parser holding only these commands.

``reptile_tank.cli`` imports every command module; while sibling modules are still being
written, the tests build the parser from ``score_grid.register`` and reproduce the CLI's error
handling (one line on stderr, exit status 2) exactly as ``reptile_tank.cli.main`` does.
"""

from __future__ import annotations

import argparse
import json
import re

import pytest

from reptile_tank.commands import score_grid

_NAMES = {
    "BTS": "blue_tongued_skink",
    "CBT": "common_box_turtle",
    "RFT": "red_footed_tortoise",
    "HL": "hollow_log",
    "SS": "scarlet_star",
    "CS": "corn_snake",
    "DR": "dubia_roach",
    "W": "water",
}
#: Michael's board of the rulebook's score pad (72 with the roach majority)
MICHAEL = [
    [_NAMES[x] for x in row.split()]
    for row in (
        "BTS BTS BTS W   CBT",
        "HL  RFT SS  CS  CBT",
        "CBT RFT RFT CS  CBT",
        "CBT W   W   DR  DR",
    )
]


def run(argv, capsys):
    """Parse and run like ``reptile_tank.cli.main``; returns (status, stdout, stderr)."""
    parser = argparse.ArgumentParser(prog="reptile-tank")
    sub = parser.add_subparsers(dest="command", required=True)
    score_grid.register(sub)
    args = parser.parse_args(argv)
    try:
        status = int(args.func(args) or 0)
    except (ValueError, OSError, KeyError) as error:
        print(f"reptile-tank: error: {error}", file=__import__("sys").stderr)
        status = 2
    out = capsys.readouterr()
    return status, out.out, out.err


def write(tmp_path, name, obj):
    path = tmp_path / name
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj), encoding="utf-8")
    return str(path)


def test_score_grid_json_has_the_design_keys(tmp_path, capsys):
    path = write(tmp_path, "board.json", {"rows": MICHAEL})
    status, out, _ = run(["score-grid", path, "--json"], capsys)
    assert status == 0
    data = json.loads(out)
    for key in ("lizards", "snakes", "turtles", "cockroach", "water", "dry_land", "objectives"):
        assert isinstance(data[key], int)
    assert data["board"]["rows"] == MICHAEL
    assert data["total"] == 60  # alone, the roach majority (12) is pending: 2 roaches score 0
    assert data["pending"] and data["groups"][0]["reason"]


def test_score_grid_table_and_objectives(tmp_path, capsys):
    path = write(tmp_path, "board.json", {"rows": MICHAEL})
    status, out, _ = run(["score-grid", path, "--objectives", "3,7"], capsys)
    assert status == 0
    assert "Total" in out and "Scoring lines" in out and "Pending" in out
    # objective 3 (10) + objective 7 (6), both assumed values
    assert re.search(r"Objectives +16  \(16 VP \u2020\)\n", out)


def test_score_grid_stars_removed_warns(tmp_path, capsys):
    path = write(tmp_path, "board.json", {"rows": MICHAEL})
    status, out, _ = run(["score-grid", path, "--players", "3", "--stars-removed"], capsys)
    assert status == 0 and "Warnings" in out and "Corn Snake is a star card" in out
    status, out, _ = run(["score-grid", path, "--players", "3"], capsys)
    assert "Warnings" not in out


def test_score_grid_with_a_rules_file(tmp_path, capsys):
    board = write(tmp_path, "board.json", {"rows": MICHAEL})
    rules = write(tmp_path, "house.toml", "[cards.scarlet_star.tiers.advanced]\nvp = 20\n")
    status, out, _ = run(["score-grid", board, "--rules", rules, "--json"], capsys)
    assert status == 0 and json.loads(out)["dry_land"] == 25


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ('{"rows": [', "invalid JSON at line 1"),
        ({"rows": MICHAEL[:3]}, "4 rows of 5 cells, got 3"),
        (
            {"rows": MICHAEL[:3] + [["rock"] * 4 + ["skunk"]]},
            "row 4, column 5: unknown card id 'skunk'",
        ),
        ([1, 2], 'JSON object with "rows"'),
    ],
)
def test_score_grid_errors_are_one_line_exit_2(tmp_path, capsys, content, words):
    path = write(tmp_path, "board.json", content)
    status, out, err = run(["score-grid", path], capsys)
    assert status == 2 and out == ""
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


def test_missing_file_and_bad_objective(tmp_path, capsys):
    status, _, err = run(["score-grid", str(tmp_path / "nope.json")], capsys)
    assert status == 2 and "cannot read" in err
    path = write(tmp_path, "board.json", {"rows": MICHAEL})
    status, _, err = run(["score-grid", path, "--objectives", "3,42"], capsys)
    assert status == 2 and "unknown objective 42" in err


def test_score_game(tmp_path, capsys):
    game = {
        "players": [
            {"name": "Michael", "board": {"rows": MICHAEL}},
            {"name": "Ann", "board": {"rows": [["water"] * 5] + [["empty"] * 5] * 3}},
        ],
        "objectives": [3],
    }
    path = write(tmp_path, "game.json", game)
    status, out, _ = run(["score-game", path, "--json"], capsys)
    data = json.loads(out)
    assert status == 0 and data["winners"] == ["Michael"]
    assert data["players"][0]["pad"]["total"] == 72 + 10
    assert data["players"][0]["pad"]["pending"] == []
    status, out, _ = run(["score-game", path], capsys)
    assert status == 0 and "Ranking" in out and "1. Michael 82 VP" in out


def test_score_game_errors_name_the_player(tmp_path, capsys):
    game = {"players": [{"name": "Ann", "board": {"rows": [["rock"] * 5] * 4}}, {"name": "Ben"}]}
    status, _, err = run(["score-game", write(tmp_path, "g.json", game)], capsys)
    assert status == 2 and "players[1] (Ben)" in err


def test_solo(tmp_path, capsys):
    solo = {
        "player": {"name": "Ann", "board": {"rows": MICHAEL}},
        "master": {
            "cards": {
                "corn_snake": 3,
                "three_toed_box_turtle": 3,
                "common_box_turtle": 2,
                "blue_tongued_skink": 2,
                "brown_anole": 2,
                "golden_pothos": 2,
                "rock": 1,
                "hollow_log": 1,
                "silver_inch_plant": 1,
                "rosy_boa": 1,
                "neon_day_gecko": 1,
                "red_footed_tortoise": 1,
            },
            "pairs": [["rock", "hollow_log"]],
            "level": "normal",
        },
        "objectives": [],
    }
    path = write(tmp_path, "solo.json", solo)
    status, out, _ = run(["solo", path, "--json"], capsys)
    data = json.loads(out)
    assert status == 0 and data["master"]["pad"]["total"] == 59
    assert data["player"]["pad"]["total"] == 72 and data["winner"] == "player"
    status, out, _ = run(["solo", path], capsys)
    assert "Terrarium Master (normal)" in out and "Winner: Ann (72 vs 59; " in out
    solo["master"]["level"] = "impossible"
    status, _, err = run(["solo", write(tmp_path, "s2.json", solo)], capsys)
    assert status == 2 and "unknown level" in err


def _walk_pads(data):
    """Every score pad in a command's JSON (an object with "total" and "groups")."""
    if isinstance(data, dict):
        if "total" in data and "groups" in data:
            yield data
        for value in data.values():
            yield from _walk_pads(value)
    elif isinstance(data, list):
        for value in data:
            yield from _walk_pads(value)


def test_every_pad_in_json_has_assumed_vp_and_every_group_its_provenance(tmp_path, capsys):
    board = write(tmp_path, "board.json", {"rows": MICHAEL})
    game = write(
        tmp_path,
        "game.json",
        {
            "players": [
                {"name": "A", "board": {"rows": MICHAEL}},
                {"name": "B", "board": {"rows": MICHAEL}},
            ]
        },
    )
    solo = write(
        tmp_path,
        "solo.json",
        {"player": {"board": {"rows": MICHAEL}}, "master": {"cards": {"rock": 2, "corn_snake": 3}}},
    )
    expected_pads = {"score-grid": 1, "score-game": 2, "solo": 2}
    for command, path in (("score-grid", board), ("score-game", game), ("solo", solo)):
        extra = ["--objectives", "3"] if command == "score-grid" else []
        status, out, _ = run([command, path, "--json", *extra], capsys)
        assert status == 0
        pads = list(_walk_pads(json.loads(out)))
        assert len(pads) == expected_pads[command], command
        for pad in pads:
            assumed = sum(g["vp"] for g in pad["groups"] if g["provenance"] == "assumed")
            assert pad["assumed_vp"] == assumed, command
            assert all(g["provenance"] in ("rulebook", "derived", "assumed") for g in pad["groups"])
        assert any(pad["assumed_vp"] for pad in pads)


def test_text_marks_assumed_lines_and_says_how_many_vp_rest_on_them(tmp_path, capsys):
    path = write(tmp_path, "board.json", {"rows": MICHAEL})
    status, out, _ = run(["score-grid", path, "--json"], capsys)
    assumed = json.loads(out)["assumed_vp"]
    status, out, _ = run(["score-grid", path], capsys)
    assert status == 0
    assert (
        f"{assumed} of 60 VP rest on assumed values (\u2020 assumed value \u2014 see Rules" in out
    )
    marked = [line for line in out.splitlines() if re.match(r"  \+\d+ *\u2020", line)]
    assert sum(int(re.match(r"  \+(\d+)", line).group(1)) for line in marked) == assumed
    assert "Rules: Reptile Tank" in out  # the edition the values describe


def test_a_house_vp_changes_every_reason_and_leaves_no_old_number(tmp_path, capsys):
    board = write(tmp_path, "board.json", {"rows": MICHAEL})
    rules = write(tmp_path, "house.toml", "[cards.blue_tongued_skink.tiers.advanced]\nvp = 15\n")
    status, out, _ = run(["score-grid", board, "--rules", rules, "--json"], capsys)
    (line,) = [
        g for g in json.loads(out)["groups"] if g["tier"] == "advanced" and "Skink" in g["reason"]
    ]
    assert line["vp"] == 15 and line["reason"].endswith(": 15 VP") and "13" not in line["reason"]


def test_failed_objectives_are_listed_in_text(tmp_path, capsys):
    path = write(tmp_path, "board.json", {"rows": MICHAEL})
    status, out, _ = run(["score-grid", path, "--objectives", "11"], capsys)
    assert "Objectives not met" in out and "Objective 11 (" in out and "8 VP not scored" in out
