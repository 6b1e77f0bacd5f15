"""Every worked example of the rulebook, each on a concrete board that realises it."""

from __future__ import annotations

import pytest
from scoring_fixtures import SOLO_MASTER, make_board

from scoring.reptile_tank.board import Board
from scoring.reptile_tank.engine import score_board
from scoring.reptile_tank.game import score_game
from scoring.reptile_tank.solo import score_solo


def groups_of(pad, card_type):
    return [g for g in pad.groups if g.card_type == card_type]


# ----------------------------------------------------------------------------- shape condition


def test_michael_skink_sets_score_13_and_5(rules):
    # the first-row set: 3 skinks next to a rock and a golden pothos (2 kinds) -> 13;
    # the set below: 2 skinks next to a hollow log only -> 5
    board = make_board(
        """
        BTS BTS BTS R   .
        GP  .   .   .   .
        .   BTS BTS HL  .
        .   .   .   .   .
        """
    )
    pad = score_board(board, rules)
    sets = sorted(groups_of(pad, "blue_tongued_skink"), key=lambda g: g.cells)
    assert [(g.cells, g.tier, g.vp) for g in sets] == [
        (((0, 0), (0, 1), (0, 2)), "advanced", 13),
        (((2, 1), (2, 2)), "basic", 5),
    ]
    assert pad.lizards == 18
    assert "Golden Pothos" in sets[0].reason and "Rock" in sets[0].reason
    assert sets[0].provenance == "rulebook"
    assert pad.three_card_sets == 1


def test_three_skinks_with_one_environment_kind_score_only_the_basic_set(rules):
    board = make_board(
        """
        BTS BTS BTS R   .
        .   .   .   .   .
        .   .   .   .   .
        .   .   .   .   .
        """
    )
    pad = score_board(board, rules)
    (group,) = groups_of(pad, "blue_tongued_skink")
    assert (group.tier, group.vp, len(group.cells)) == ("basic", 5, 2)
    assert any(line.reason.startswith("Blue-Tongued Skink at") for line in pad.non_scoring)
    # the fall-back says why the 3 skinks missed the advanced tier
    assert "not advanced (13 VP)" in group.reason and "had 1 kind: Rock" in group.reason


def test_each_animal_in_one_set_only_and_the_partition_is_maximised(rules):
    # 4 skinks in a row next to two kinds: one 3-set (13) leaves a lone skink; two dominoes
    # would give 10. The maximiser must pick 13.
    board = make_board(
        """
        R   BTS BTS BTS BTS
        .   GP  .   .   .
        .   .   .   .   .
        .   .   .   .   .
        """
    )
    assert score_board(board, rules).lizards == 13


# ----------------------------------------------------------------------------- enclosure + area


def test_charles_enclosure_two_turtles_score_6_a_third_makes_12(rules):
    board = make_board(
        """
        .   .   TTB .   .
        .   TTB GP  .   .
        .   .   .   .   .
        .   .   .   .   .
        """
    )
    pad = score_board(board, rules)
    assert pad.turtles == 6
    assert groups_of(pad, "three_toed_box_turtle")[0].tier == "basic"
    pad = score_board(board.replace((1, 3), "three_toed_box_turtle"), rules)
    (group,) = groups_of(pad, "three_toed_box_turtle")
    assert (group.vp, group.tier, len(group.cells)) == (12, "advanced", 3)


def test_charles_three_ringnecks_in_marked_cells_score_9_a_fourth_adds_nothing(rules):
    board = make_board(
        """
        RS  .   RS  .   RS
        .   .   .   .   .
        .   .   .   .   .
        .   .   .   .   .
        """
    )
    assert score_board(board, rules).snakes == 9
    assert score_board(board.replace((3, 0), "ringneck_snake"), rules).snakes == 9
    assert score_board(board.replace((3, 0), "ringneck_snake"), rules).three_card_sets == 1


def test_ringneck_outside_the_marked_cells_does_not_count(rules):
    board = make_board(
        """
        RS  RS  RS  .   .
        .   .   .   .   .
        .   .   .   .   .
        .   .   .   .   .
        """
    )
    pad = score_board(board, rules)
    assert pad.snakes == 4  # only (0,0) and (0,2) are marked
    assert any("outside the marked cells" in line.reason for line in pad.non_scoring)


# ----------------------------------------------------------------------------- Barbara's board

BARBARA = """
W   BA  GP  .   .
SS  RB  R   .   HL
BTS SIP BA  CS  DR
.   .   HL  DR  .
"""


def test_barbara_anoles_score_4_and_6(rules):
    pad = score_board(make_board(BARBARA), rules, roach_majority=False)
    anoles = sorted((g.cells[0], g.vp) for g in groups_of(pad, "brown_anole"))
    assert anoles == [((0, 1), 4), ((2, 2), 6)]


def test_barbara_rock_scores_3(rules):
    pad = score_board(make_board(BARBARA), rules, roach_majority=False)
    (rock,) = groups_of(pad, "rock")
    assert (rock.vp, rock.cells) == (3, ((1, 2),))


def test_barbara_hollow_logs_score_nothing_and_say_why(rules):
    pad = score_board(make_board(BARBARA), rules, roach_majority=False)
    assert groups_of(pad, "hollow_log") == []
    reasons = [line.reason for line in pad.non_scoring if line.card_type == "hollow_log"]
    assert len(reasons) == 2 and all("at least 3 needed" in line for line in reasons)


def test_barbara_two_roaches_not_the_most_score_nothing(rules):
    pad = score_board(make_board(BARBARA), rules, roach_majority=False)
    assert pad.cockroach == 0
    assert any("not the most" in line.reason for line in pad.non_scoring)


def test_barbara_scarlet_star_scores_5_for_a_snake_and_a_lizard(rules):
    pad = score_board(make_board(BARBARA), rules, roach_majority=False)
    (star,) = groups_of(pad, "scarlet_star")
    assert star.vp == 5 and "(Lizards, Snakes)" in star.reason


def test_rock_without_diagonal_environment_explains(rules):
    board = make_board(
        """
        .   .   .   R   .
        .   .   .   .   .
        .   .   .   .   .
        .   .   .   .   .
        """
    )
    pad = score_board(board, rules)
    assert [line.reason for line in pad.non_scoring] == [
        "Rock at row 1, column 4: no Environment cards diagonally adjacent"
    ]


def test_another_rock_counts_for_a_rock(rules):
    board = make_board(
        """
        R   .   .   .   .
        .   R   .   .   .
        .   .   .   .   .
        .   .   .   .   .
        """
    )
    assert score_board(board, rules).dry_land == 6


# ----------------------------------------------------------------------------- cockroaches

ONE_ROACH = """
DR  .   .   .   .
.   .   .   .   .
.   .   .   .   .
.   .   .   .   .
"""


@pytest.mark.parametrize(
    ("roaches", "majority", "expected"),
    [
        (1, None, 2),
        (1, False, 2),
        (1, True, 12),  # exactly one AND the most: 12, not 14
        (2, False, 0),
        (2, True, 12),
        (2, None, 0),
        (0, None, 0),
        (0, False, 0),
    ],
)
def test_cockroach_rules(rules, roaches, majority, expected):
    board = make_board(ONE_ROACH).replace((0, 0), "empty")
    for col in range(roaches):
        board = board.replace((3, col), "dubia_roach")
    pad = score_board(board, rules, roach_majority=majority)
    assert pad.cockroach == expected
    assert bool(pad.pending) == (majority is None and roaches > 0)


def test_single_board_reports_the_roach_majority_as_pending(rules):
    pad = score_board(make_board(ONE_ROACH), rules)
    assert pad.cockroach == 2
    assert len(pad.pending) == 1 and "12 VP instead of 2" in pad.pending[0]


def test_game_roach_majority_ties_all_score_and_one_and_most_is_12(rules):
    one = make_board(ONE_ROACH)
    two = one.replace((3, 4), "dubia_roach")
    result = score_game([("Ann", one), ("Ben", one), ("Cy", Board.empty())], rules)
    assert [p.pad.cockroach for p in result.players] == [12, 12, 0]
    result = score_game([("Ann", two), ("Ben", one)], rules)
    assert [p.pad.cockroach for p in result.players] == [12, 2]
    assert all(not p.pad.pending for p in result.players)


# ----------------------------------------------------------------------------- water


@pytest.mark.parametrize(("size", "vp"), [(1, 1), (2, 3), (3, 4), (4, 8), (5, 8)])
def test_water_area_sizes(rules, size, vp):
    board = Board.empty()
    for col in range(size):
        board = board.replace((0, col), "water")
    (group,) = score_board(board, rules).groups
    assert (group.vp, len(group.cells)) == (vp, size)


def test_each_water_area_scores_separately_and_diagonals_do_not_connect(rules):
    board = make_board(
        """
        W   .   W   W   .
        .   W   .   .   .
        .   .   .   W   W
        .   .   .   W   W
        """
    )
    pad = score_board(board, rules)
    assert sorted(g.vp for g in pad.groups) == [1, 1, 3, 8]
    assert pad.water == 13


# ----------------------------------------------------------------------------- score pads

MICHAEL = """
BTS BTS BTS R   TTB
GP  DR  DR  HL  TTB
CBT CBT W   W   .
.   .   .   .   .
"""


def test_solo_master_example_scores_59(rules):
    master = dict(SOLO_MASTER)
    result = score_solo(Board.empty(), master, rules, pairs=[["rock", "hollow_log"]])
    pad = result.master
    assert pad.total == 59
    by_type = {}
    for g in pad.groups:
        by_type[g.card_type] = by_type.get(g.card_type, 0) + g.vp
    assert by_type == {
        "water": 8,
        "blue_tongued_skink": 5,
        "rock+hollow_log": 3,
        "golden_pothos": 7,
        "corn_snake": 11,
        "brown_anole": 8,
        "three_toed_box_turtle": 12,
        "common_box_turtle": 5,
    }
    assert sorted(result.master_flipped) == sorted(
        ["rosy_boa", "neon_day_gecko", "red_footed_tortoise", "silver_inch_plant"]
    )
    assert not result.pairs_proposed
