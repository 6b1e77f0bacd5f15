"""``reptile-tank nimalia score | score-game | goals``: the JSON contracts and one-line errors.

The parser holds only the nimalia command (as tests/test_cli_scoring.py does for its commands)
and reproduces ``reptile_tank.cli.main``'s error handling: one line on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys

import pytest

from reptile_tank.commands import nimalia as nimalia_command

# Card 36 turned 90 (S:ott\ J:pan / J:gor W:fla) at row 0 col 1, then cards 7 and 17.
PLACEMENTS = [
    {"card": 36, "row": 0, "col": 1, "turn": 90},
    {"card": 7, "row": 1, "col": 2},
    {"card": 17, "row": 2, "col": 1, "turn": 180},
]


def run(argv, capsys):
    parser = argparse.ArgumentParser(prog="reptile-tank")
    sub = parser.add_subparsers(dest="command", required=True)
    nimalia_command.register(sub)
    args = parser.parse_args(argv)
    try:
        status = int(args.func(args) or 0)
    except (ValueError, OSError, KeyError) as error:
        print(f"reptile-tank: error: {error}", file=sys.stderr)
        status = 2
    out = capsys.readouterr()
    return status, out.out, out.err


def write(tmp_path, obj, name="doc.json"):
    path = tmp_path / name
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj), encoding="utf-8")
    return str(path)


def test_score_json_contract(tmp_path, capsys):
    path = write(tmp_path, {"placements": PLACEMENTS})
    status, out, err = run(["nimalia", "score", path, "--goals", "1,7,12,16,2", "--json"], capsys)
    assert status == 0, err
    data = json.loads(out)
    assert [g["goal"] for g in data["goals"]] == [1, 7, 12, 2]
    assert data["pending"] == [16]
    for goal in data["goals"]:
        assert isinstance(goal["points"], int) and isinstance(goal["reason"], str)
        assert sum(line["points"] for line in goal["lines"]) == goal["points"]
    assert len(data["squares"]) == 6 and all(len(row) == 6 for row in data["squares"])
    assert data["squares"][0][1] == "S:ott\\"
    river = next(g for g in data["goals"] if g["goal"] == 2)
    assert river["points"] == 2 and "row 1, column 2" in river["reason"]


def test_both_forms_give_the_same_json_scores(tmp_path, capsys):
    placements = write(tmp_path, {"placements": PLACEMENTS}, "p.json")
    _, out, _ = run(["nimalia", "score", placements, "--goals", "1,2,3,8,12", "--json"], capsys)
    first = json.loads(out)
    squares = write(tmp_path, {"squares": first["squares"]}, "s.json")
    _, out, _ = run(["nimalia", "score", squares, "--goals", "1,2,3,8,12", "--json"], capsys)
    second = json.loads(out)
    assert first["goals"] == second["goals"]


def test_score_text_lists_reasons_and_pending(tmp_path, capsys):
    path = write(tmp_path, {"squares": [["I:bea", "I:bea", "I:bea"], ["I:bea"]]})
    status, out, _ = run(["nimalia", "score", path, "--goals", "8,18"], capsys)
    assert status == 0
    assert "Goal  8" in out and "+8" in out and "group of 4 polar bears" in out
    assert "pending" in out


def game_document(rounds=2):
    players = []
    deck = iter(range(1, 61))
    for name in ("Ann", "Bob", "Cy"):
        placements, docs = [], []
        for _ in range(rounds):
            for _ in range(3):
                placements.append({"card": next(deck), "row": 1, "col": 1, "turn": 0})
            docs.append({"placements": list(placements)})
        players.append({"name": name, "rounds": docs})
    return {"goals": [3, 8, 6, 16], "players": players}


def test_score_game_json_contract(tmp_path, capsys):
    path = write(tmp_path, game_document(3))
    status, out, err = run(["nimalia", "score-game", path, "--json"], capsys)
    assert status == 0, err
    data = json.loads(out)
    assert [p["name"] for p in data["players"]] == ["Ann", "Bob", "Cy"]
    for player in data["players"]:
        assert [r["round"] for r in player["rounds"]] == [1, 2, 3]
        assert [[g["goal"] for g in r["goals"]] for r in player["rounds"]] == [
            [3, 8],
            [8, 6],
            [3, 16],
        ]
        assert player["total"] == player["rounds"][-1]["total"] >= 0
        assert player["rank"] in (1, 2, 3)
    ranks = sorted(p["rank"] for p in data["players"])
    assert ranks[0] == 1


def test_score_game_text(tmp_path, capsys):
    status, out, _ = run(["nimalia", "score-game", write(tmp_path, game_document(1))], capsys)
    assert status == 0
    assert "Round 1" in out and "Ranking:" in out and "Ann" in out


def test_goals_are_legal_and_repeatable(capsys):
    from scoring.nimalia.engine import check_goal_set
    from scoring.nimalia.rules import load_rules

    rules = load_rules()
    for level, allowed in (("easy", {1, 2}), ("difficult", {2, 3}), ("random", {1, 2, 3})):
        for seed in range(30):
            status, out, _ = run(
                ["nimalia", "goals", "--level", level, "--seed", str(seed)], capsys
            )
            assert status == 0
            ids = [int(x) for x in out.splitlines()[0].split(",")]
            assert check_goal_set(ids) == tuple(ids)
            assert {rules.goals[g].level for g in ids} <= allowed
    _, first, _ = run(["nimalia", "goals", "--seed", "7", "--json"], capsys)
    _, again, _ = run(["nimalia", "goals", "--seed", "7", "--json"], capsys)
    assert first == again and len(json.loads(first)["goals"]) == 4


BAD_RESERVES = [
    ("{not json", "JSON"),
    ([], "placements"),
    ({"placements": PLACEMENTS, "extra": 1}, "unknown key 'extra'"),
    ({"placements": [{"card": 1, "row": 0, "col": 0, "tun": 90}]}, "unknown key 'tun'"),
    ({"placements": [{"card": 61, "row": 0, "col": 0}]}, "unknown card 61"),
    ({"placements": [{"card": 1, "row": 5, "col": 0}]}, "row must be 0-4"),
    ({"placements": [{"card": 1, "row": 0, "col": 0, "turn": 45}]}, "turn must be"),
    ({"placements": [{"card": 1, "row": 0, "col": 0, "turn": True}]}, "whole number"),
    ({"placements": [{"card": 1, "row": 0}]}, "missing key 'col'"),
    (
        {"placements": [{"card": 1, "row": 0, "col": 0}, {"card": 2, "row": 3, "col": 3}]},
        "covers no square",
    ),
    (
        {"placements": [{"card": 1, "row": 0, "col": 0}, {"card": 1, "row": 1, "col": 1}]},
        "already placed",
    ),
    ({"squares": [["W:lio"]]}, "squares[0][0]"),
    ({"squares": [["."]] * 7}, "7 rows"),
    ({"squares": [["."] * 7]}, "7 squares"),
    ({"squares": "W:cro"}, "list of rows"),
    ({"squares": [], "placements": []}, "exactly one"),
]


@pytest.mark.parametrize(("document", "message"), BAD_RESERVES)
def test_bad_reserves_one_line_exit_2(tmp_path, capsys, document, message):
    status, out, err = run(["nimalia", "score", write(tmp_path, document), "--goals", "1"], capsys)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err


@pytest.mark.parametrize(
    ("goals", "message"),
    [("1,99", "unknown goal '99'"), ("1,x", "unknown goal 'x'"), ("3,3", "listed twice")],
)
def test_bad_goal_lists(tmp_path, capsys, goals, message):
    path = write(tmp_path, {"squares": [["W:cro"]]})
    status, _, err = run(["nimalia", "score", path, "--goals", goals], capsys)
    assert status == 2 and message in err and err.count("\n") == 1


def _game(**changes):
    doc = game_document(2)
    doc.update(changes)
    return doc


BAD_GAMES = [
    (_game(goals=[3, 8, 6]), "4 goals"),
    (_game(goals=[3, 5, 8, 16]), "both blue"),
    (_game(goals=[3, 8, 4, 16]), "two sides of one card"),
    (_game(extra=True), "unknown key 'extra'"),
    (_game(players=game_document(2)["players"][:1]), "2-4 players"),
    ({"goals": [3, 8, 6, 16]}, "missing key 'players'"),
]


@pytest.mark.parametrize(("document", "message"), BAD_GAMES)
def test_bad_games_one_line_exit_2(tmp_path, capsys, document, message):
    status, out, err = run(["nimalia", "score-game", write(tmp_path, document)], capsys)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_game_rounds_must_grow_by_three_cards(tmp_path, capsys):
    doc = game_document(2)
    doc["players"][0]["rounds"][1]["placements"].pop()
    status, _, err = run(["nimalia", "score-game", write(tmp_path, doc)], capsys)
    assert status == 2 and "adds the round's 3 cards" in err


def test_game_card_in_two_reserves(tmp_path, capsys):
    doc = game_document(1)
    doc["players"][1]["rounds"][0]["placements"][0]["card"] = 1
    status, _, err = run(["nimalia", "score-game", write(tmp_path, doc)], capsys)
    assert status == 2 and "card 1 is also in Ann's reserve" in err


def test_game_players_with_different_round_counts(tmp_path, capsys):
    doc = game_document(2)
    doc["players"][2]["rounds"] = doc["players"][2]["rounds"][:1]
    status, _, err = run(["nimalia", "score-game", write(tmp_path, doc)], capsys)
    assert status == 2 and "same number of rounds" in err


def test_nimalia_is_registered_in_the_cli():
    import reptile_tank.cli as cli

    assert "reptile_tank.commands.nimalia" in cli.command_modules()
    assert "nimalia" in cli.build_parser()._subparsers._group_actions[0].choices
