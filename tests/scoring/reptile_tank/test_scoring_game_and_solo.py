"""Multi-player games (roach majority, ranking, tie-breaks), the solo Master, the board."""

from __future__ import annotations

import re

import pytest
from scoring_fixtures import SOLO_MASTER, make_board

from scoring.reptile_tank.board import Board, BoardError
from scoring.reptile_tank.engine import Variant, score_board
from scoring.reptile_tank.game import GameError, roach_majorities, score_game
from scoring.reptile_tank.solo import SoloError, master_groups, score_master, score_solo

# Score pads of the rulebook (Charles 61, Michael 72, Barbara 59), realised on full boards
# that one deck can hold together (Charles's cockroach cell is blank on the pad: 0)
CHARLES = """
R   TTB RS  BTS RS
TTB SS  TTB BTS W
HL  BA  W   W   W
CS  CS  RS  RB  RB
"""
MICHAEL = """
BTS BTS BTS W   CBT
HL  RFT SS  CS  CBT
CBT RFT RFT CS  CBT
CBT W   W   DR  DR
"""
BARBARA = """
W   W   W   CS  BA
W   DR  CS  CS  W
BTS BTS BTS HL  W
W   BA  SS  RFT RFT
"""


def test_rulebook_score_pads_michael_72_and_barbara_59(rules):
    result = score_game([("Michael", make_board(MICHAEL)), ("Barbara", make_board(BARBARA))], rules)
    michael, barbara = (p.pad for p in result.players)
    assert [michael.lizards, michael.snakes, michael.turtles, michael.cockroach] == [13, 4, 25, 12]
    assert [michael.water, michael.dry_land, michael.objectives, michael.total] == [4, 14, 0, 72]
    assert [barbara.lizards, barbara.snakes, barbara.turtles, barbara.cockroach] == [19, 11, 5, 2]
    assert [barbara.water, barbara.dry_land, barbara.objectives, barbara.total] == [12, 10, 0, 59]
    assert result.winners == ["Michael"]
    assert [p.name for p in result.ranking] == ["Michael", "Barbara"]


def test_rulebook_score_pad_game_of_three(rules):
    boards = {"Charles": CHARLES, "Michael": MICHAEL, "Barbara": BARBARA}
    result = score_game([(name, make_board(text)) for name, text in boards.items()], rules)
    pads = {p.name: p.pad for p in result.players}
    expected = {
        "Charles": (11, 17, 12, 0, 8, 13, 61),
        "Michael": (13, 4, 25, 12, 4, 14, 72),
        "Barbara": (19, 11, 5, 2, 12, 10, 59),
    }
    for name, values in expected.items():
        pad = pads[name]
        got = (pad.lizards, pad.snakes, pad.turtles, pad.cockroach, pad.water, pad.dry_land)
        assert got + (pad.total,) == values, name
        assert not pad.pending and not pad.warnings
    assert [p.name for p in result.ranking] == ["Michael", "Charles", "Barbara"]
    # the three terrariums fit in one deck
    for card_id, rule in rules.cards.items():
        if card_id != "water":
            in_play = sum(make_board(text).count(card_id) for text in boards.values())
            assert in_play <= rule.copies, card_id


def test_roach_majorities():
    assert roach_majorities([2, 1, 0]) == [True, False, False]
    assert roach_majorities([1, 1]) == [True, True]
    assert roach_majorities([0, 0]) == [False, False]
    assert roach_majorities([3]) == [None]


TIE_A = """
W   .   .   .   .
.   .   .   .   .
.   .   .   .   .
.   .   .   .   .
"""


def test_tie_breaks_three_card_sets_then_dry_land_then_shared(rules):
    # equal totals (8): a 4-water area vs. three ringnecks in marked cells... built explicitly
    water4 = make_board("W W W W .\n. . . . .\n. . . . .\n. . . . .")  # 8 VP, no 3-card set
    ringneck = make_board("RS . RS . RS\n. . . . .\n. . . . .\n. . . . .")  # 9 VP
    skinks = make_board("BTS BTS R . .\n. . . . .\n. . . . .\n. . . . .")  # 5 + rock 0
    assert score_board(ringneck, rules).three_card_sets == 1
    # make the totals equal: ringnecks 9 vs water 8 + a single water 1
    water9 = water4.replace((3, 4), "water")
    result = score_game([("Ann", water9), ("Ben", ringneck)], rules)
    assert [p.pad.total for p in result.players] == [9, 9]
    assert result.winners == ["Ben"] and result.players[1].decided_by == "3-card sets"
    # same total and same 3-card sets: more dry-land cards wins
    rock_pair = make_board("R . . . .\n. R . . .\n. . . . .\n. . . . .")  # 6 VP, 2 dry-land
    six_water = make_board("W W W W .\n. . . . .\n. . . . .\n. . . . .").replace((0, 3), "empty")
    six_water = six_water.replace((3, 0), "water").replace((3, 4), "water")  # 4 + 1 + 1 = 6
    result = score_game([("Cy", six_water), ("Di", rock_pair), ("Ed", skinks)], rules)
    totals = {p.name: (p.pad.total, p.rank, p.decided_by) for p in result.players}
    assert totals["Di"] == (6, 1, "dry-land cards")
    assert totals["Cy"][:2] == (6, 2)
    assert totals["Ed"] == (5, 3, "total")
    # identical boards share the place
    result = score_game([("Fay", rock_pair), ("Gus", rock_pair)], rules)
    assert [p.rank for p in result.players] == [1, 1] and result.winners == ["Fay", "Gus"]
    assert result.players[0].decided_by == "shared"


def test_game_errors_and_json(rules):
    with pytest.raises(GameError):
        score_game([], rules)
    with pytest.raises(GameError, match="unique"):
        score_game([("Ann", Board.empty()), ("Ann", Board.empty())], rules)
    out = score_game([("Ann", make_board(TIE_A))], rules).to_json()
    assert out["ranking"][0]["name"] == "Ann" and out["players"][0]["pad"]["water"] == 1


def test_star_card_and_copy_warnings(rules):
    board = make_board("BA BA BA BA BA\nBA BA BA BA .\n. . . . .\n. . . . .")
    removed = Variant(players=3, star_cards_removed=True)
    pad = score_board(board, rules, variant=removed)
    assert any("deck holds only 8" in w for w in pad.warnings)
    assert any("star card, removed in 3-player game" in w for w in pad.warnings)
    # removal is only recommended: a 3-player game that does not say so gets no star warning
    assert not any("star" in w for w in score_board(board, rules, variant=Variant(3)).warnings)
    result = score_game([("A", board), ("B", Board.empty())], rules, variant=removed)
    assert any("star card" in w for w in result.players[0].pad.warnings)


# ----------------------------------------------------------------------------- solo


def test_master_groups_maximise(rules):
    skink = rules.cards["blue_tongued_skink"]
    assert master_groups(skink, 4)[0] == 13  # 3-set (13) beats two pairs (10)
    assert master_groups(skink, 5)[0] == 18
    turtles = rules.cards["three_toed_box_turtle"]
    assert master_groups(turtles, 4) == (12, [(4, turtles.tier("advanced"))])  # keeps all 4
    assert master_groups(turtles, 5)[0] == 18
    ringneck = rules.cards["ringneck_snake"]
    assert master_groups(ringneck, 7)[0] == 9  # an area is met once


def test_solo_levels_and_proposed_pairs(rules):
    board = Board.empty()
    normal = score_solo(board, SOLO_MASTER, rules)  # no pairs given: proposed and reported
    assert normal.pairs_proposed and normal.master.pending
    assert len(normal.master_pairs) == 1
    hard = score_solo(board, SOLO_MASTER, rules, pairs=[["rock", "hollow_log"]], level="hard")
    very = score_solo(board, SOLO_MASTER, rules, pairs=[["rock", "hollow_log"]], level="very_hard")
    # hard: the 3 leftover animals pair up (one pair at its lowest VP, one card to water)
    assert ("rosy_boa", "red_footed_tortoise") in hard.master_pairs
    assert hard.master_flipped == ["silver_inch_plant", "neon_day_gecko"]
    assert hard.master.total == 59 - 8 + 3 + 4  # water 2 cards: 3; boa+tortoise lowest: 4
    # very hard: mixed pairs score their highest printed VP (rock+log 9, boa+tortoise 10)
    assert very.master.total == hard.master.total - 3 + 9 - 4 + 10


def test_solo_objectives_failed_by_the_player_score_for_the_master(rules):
    board = make_board("W . . . .\n. . . . .\n. . . . .\n. . . . .")
    result = score_solo(
        board, SOLO_MASTER, rules, pairs=[["rock", "hollow_log"]], objectives=[1, 5, 7]
    )
    assert result.player.objectives_met == [1]
    assert result.master.objectives == rules.objectives[5].vp + rules.objectives[7].vp
    assert result.master.total == 59 + 12 and result.winner == "master"


def test_solo_roaches(rules):
    player = make_board("DR . . . .\n. . . . .\n. . . . .\n. . . . .")
    pad, *_ = score_master({"dubia_roach": 2}, rules, player_roaches=1)
    assert pad.cockroach == 2 * 2 + 12
    result = score_solo(player, {"dubia_roach": 1}, rules)
    assert result.player.cockroach == 12 and result.master.cockroach == 2  # tie: not more


def test_solo_errors(rules):
    with pytest.raises(SoloError, match="unknown card id"):
        score_solo(Board.empty(), {"skunk": 1}, rules)
    with pytest.raises(SoloError, match="non-negative"):
        score_solo(Board.empty(), {"rock": -1}, rules)
    with pytest.raises(SoloError, match="unknown level"):
        score_solo(Board.empty(), {"rock": 1}, rules, level="nightmare")
    with pytest.raises(SoloError, match="holds no"):
        score_solo(Board.empty(), {"rock": 1}, rules, pairs=[["rock", "hollow_log"]])
    with pytest.raises(SoloError, match="not a pair of the Master's unpaired"):
        score_solo(
            Board.empty(),
            {"rock": 2, "hollow_log": 1},
            rules,
            pairs=[["rock", "hollow_log"], ["rock", "rock"]],
        )


# ----------------------------------------------------------------------------- board


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ([], 'JSON object with a "rows"'),
        ({"rows": [["rock"] * 5] * 3}, "4 rows of 5 cells, got 3 rows"),
        ({"rows": [["rock"] * 5] * 3 + [["rock"] * 4]}, "row 4: needs 5 cells, got 4"),
        ({"rows": [["rock"] * 5] * 2 + [["rock", "skunk"] + ["rock"] * 3] + [["rock"] * 5]},
         "row 3, column 2: unknown card id 'skunk'"),
        ({"rows": [["rock"] * 5] * 3 + [["rock", 7, "rock", "rock", "rock"]]},
         "row 4, column 2: a cell must be"),
        ({"rows": [["rock"] * 5] * 3 + [["rock", "Rock", "rock", "rock", "rock"]]},
         "row 4, column 2: unknown card id 'Rock' (did you mean 'rock'?)"),
    ],
)  # fmt: skip
def test_board_errors_name_the_cell(obj, message):
    with pytest.raises(BoardError, match=re.escape(message)):
        Board.from_json(obj)


def test_board_json_round_trip():
    board = make_board(MICHAEL)
    assert Board.from_json(board.to_json()) == board
    assert board[(3, 4)] == "dubia_roach" and board.count("common_box_turtle") == 5


@pytest.mark.parametrize("count", [10, 500, 10**18])
def test_solo_refuses_master_counts_above_the_deck(count, rules):
    with pytest.raises(SoloError, match="more than the deck's 9 copies"):
        score_solo(Board.empty(), {"rock": count}, rules)
