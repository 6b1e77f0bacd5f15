"""The games registry: Reptile Tank and Nimalia side by side in one process."""

from __future__ import annotations

import pytest

import games
from scoring.nimalia.engine import score_goal
from scoring.nimalia.reserve import reserve_from_squares

TERRARIUM = {
    "rows": [
        ["corn_snake", "water", "rock", "empty", "empty"],
        ["ringneck_snake", "water", "hollow_log", "empty", "empty"],
        ["empty", "empty", "empty", "empty", "empty"],
        ["empty", "empty", "empty", "empty", "empty"],
    ]
}
RESERVE = {"squares": [["I:bea", "I:bea", "S:ott/"], ["I:pen", "I:pen", "W:cro"]]}


def test_both_games_are_registered_with_their_own_layout():
    assert set(games.GAMES) == {"reptile_tank", "nimalia"}
    terrarium = games.game("reptile_tank").layout()
    reserve = games.game("nimalia").layout()
    assert (terrarium.rows, terrarium.cols, terrarium.cell_holds) == (4, 5, "card")
    assert (reserve.rows, reserve.cols, reserve.cell_holds) == (6, 6, "square")
    assert "corn_snake" in games.game("reptile_tank").cell_labels()
    labels = games.game("nimalia").cell_labels()
    assert len(labels) == 15 and "." in labels and "S:ott/" in labels


def test_a_reptile_tank_board_and_a_nimalia_reserve_scored_in_one_process():
    from scoring.reptile_tank.board import Board
    from scoring.reptile_tank.engine import score_board
    from scoring.reptile_tank.rules import load_rules

    rt = games.game("reptile_tank")
    nim = games.game("nimalia")
    first = rt.score_document(TERRARIUM)
    reserve_result = nim.score_document(RESERVE, goals=[8, 12, 16])
    again = rt.score_document(TERRARIUM)
    assert first == again  # scoring Nimalia in between changed nothing
    direct = score_board(Board.from_json(TERRARIUM, rt.layout()), load_rules())
    assert first["total"] == direct.to_json()["total"]
    bears = reserve_result["goals"][0]
    assert bears["goal"] == 8
    assert bears["points"] == score_goal(reserve_from_squares(RESERVE["squares"]), 8).points == 4
    assert reserve_result["goals"][1]["points"] == 6  # two horizontal pairs
    assert reserve_result["pending"] == [16]


def test_each_game_refuses_the_others_documents():
    with pytest.raises(ValueError):
        games.game("nimalia").parse_document(TERRARIUM)
    with pytest.raises(ValueError):
        games.game("reptile_tank").parse_document(RESERVE)


def test_unknown_game():
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        games.game("chess")
