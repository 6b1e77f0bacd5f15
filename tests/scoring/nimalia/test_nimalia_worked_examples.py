r"""Every worked example of ../shared/docs/nimalia-reference.md section 5, one named test each.

Grids are copied from the reference (top-left of the frame; squares not drawn are empty).
"""

from __future__ import annotations

from dataclasses import replace

from nimalia_fixtures import grid, snow_otters, sparse

from scoring.nimalia.engine import _Board, score_game, score_goal, score_relative
from scoring.nimalia.reserve import reserve_from_squares
from scoring.nimalia.rules import load_rules


def longest(reserve) -> int:
    return len(_Board(reserve).longest_river())


def points(reserve, goal, **options) -> int:
    return score_goal(reserve, goal, load_rules(**options)).points


def relative(reserves, goal) -> list[int]:
    return [s.points for s in score_relative(reserves, goal)]


def test_e1_goal22_crocodiles_next_to_a_giraffe():
    reserve = grid("""
        .     S:gir .
        W:cro W:cro .
        .     S:gir W:cro
    """)
    score = score_goal(reserve, 22)
    assert score.points == 4
    scored = {line.squares[0] for line in score.lines if line.points}
    assert scored == {(1, 1), (2, 2)}


def test_e2_goal4_gorillas_next_to_water():
    reserve = grid("""
        J:gor .     .
        W:cro .     J:gor
        J:gor W:cro .
    """)
    assert points(reserve, 4) == 4


def test_e3_goal19_exactly_one_penguin_per_column_and_goal6_zero():
    reserve = grid("""
        I:pen .
        W:cro I:pen
        .     I:pen
    """)
    assert points(reserve, 19) == 3
    assert points(reserve, 6) == 0


def test_e4_goal6_savannah_zones_of_exactly_four():
    reserve = grid("""
        S:lio S:lio .     .     S:lio
        S:lio S:lio .     .     S:lio
        .     .     .     S:lio S:lio
        .     S:lio S:lio .     .
    """)
    assert points(reserve, 6) == 12
    lone_block = grid("""
        S:lio S:lio
        S:lio S:lio
    """)
    assert points(lone_block, 6) == 6


def test_e5_goal10_largest_complete_square():
    assert points(grid("S:lio S:lio\nS:lio S:lio"), 10) == 3
    bottom_right = [["."] * 6 for _ in range(4)] + [[".", ".", ".", ".", "S:lio", "S:lio"]] * 2
    bottom_left = [["."] * 6 for _ in range(4)] + [["S:lio", "S:lio", ".", ".", ".", "."]] * 2
    assert points(reserve_from_squares(bottom_right), 10) == 3
    assert points(reserve_from_squares(bottom_left), 10) == 3
    assert points(reserve_from_squares([["S:lio"] * 6] * 6), 10) == 21
    corner = sparse("r4c0 S:lio, r5c0 S:lio, r5c1 S:lio")
    assert points(corner, 10) == 0


def test_e6_goal17_edge_rule_applied_to_penguins_and_pandas():
    picture = """
        .     .     S:lio S:lio
        S:lio S:lio {a} {a}
        S:lio {a} S:lio S:lio
        .     S:lio {a} .
    """
    # The goal-17 finder with penguins in place of pandas: the reference's shared edge routine.
    from dataclasses import replace

    rules = load_rules()
    penguin_goal = replace(rules.goals[17], params={**rules.goals[17].params, "animal": "pen"})
    penguins = grid(picture.format(a="I:pen"))
    score = score_goal(penguins, penguin_goal, rules)
    assert score.points == 6
    assert {line.squares[0] for line in score.lines} == {(1, 3), (3, 2)}
    assert points(grid(picture.format(a="J:pan")), 17) == 6


def test_e7_goal14_flamingos_not_touching_the_edge():
    reserve = grid("""
        .     .     S:lio S:lio
        S:lio W:fla W:fla S:lio
        S:lio W:fla S:lio S:lio
        .     S:lio S:lio W:fla
    """)
    score = score_goal(reserve, 14)
    assert score.points == 6
    assert {line.squares[0] for line in score.lines} == {(1, 2), (2, 1)}


def test_e8_goal11_rows_with_all_four_lands():
    reserve = grid("""
        I:pen S:lio J:gor W:cro .
        I:pen W:cro .     .     .
        J:gor W:cro S:lio I:pen J:gor
        W:cro I:pen J:gor .     .
    """)
    assert points(reserve, 11) == 6


def test_e9_goal9_fewest_squares_of_one_land():
    reserve = grid("""
        .     S:lio S:lio .     J:gor J:gor
        W:cro S:lio S:lio J:gor J:gor J:gor
        W:cro S:lio I:pen I:pen W:cro J:gor
        I:pen W:cro W:cro W:cro .     .
    """)
    assert points(reserve, 9) == 6


def test_e10_goal7_snow_blocks_overlapping():
    reserve = grid("""
        .     .     I:pen I:pen
        I:pen I:pen I:pen I:pen
        I:pen I:pen I:pen .
    """)
    score = score_goal(reserve, 7)
    assert score.points == 12
    assert {min(line.squares) for line in score.lines} == {(0, 2), (1, 0), (1, 1)}


def test_e11a_goal2_rivers_into_a_lake_rule_example():
    reserve = grid(r"""
        W:cro  .      .      I:ott\
        .      I:ott\ I:ott/ W:cro
        I:ott/ I:ott/ .      W:cro
    """)
    score = score_goal(reserve, 2)
    assert score.points == 6
    assert {line.squares[0] for line in score.lines} == {(0, 3), (1, 1), (1, 2)}


def test_e11b_goal2_second_adaptation_case():
    reserve = grid(r"""
        .      .      .      S:lio  S:gir
        .      .      W:cro  J:ott/ I:pen
        .      I:bea  S:gir  J:ott\
        .      J:gor  I:bea  .
    """)
    assert points(reserve, 2) == 4


def test_e11c_goal2_full_six_by_six():
    reserve = grid(r"""
        W:fla  S:lio  W:fla  J:gor  W:cro  W:fla
        I:bea  S:gir  S:gir  W:fla  J:pan  S:lio
        S:lio  W:cro  S:gir  J:ott\ W:fla  J:gor
        I:pen  S:ott\ W:cro  S:ott/ J:ott\ I:pen
        S:lio  S:gir  J:pan  J:ott\ S:lio  S:gir
        I:bea  J:pan  I:bea  J:gor  J:pan  I:ott/
    """)
    assert points(reserve, 2) == 10
    assert longest(reserve) == 4


def test_e12a_one_long_river():
    reserve = grid(r"""
        .      .      I:ott/ I:ott\
        .      I:ott/ .      I:ott/
        I:ott/ .      .      I:ott\
    """)
    assert longest(reserve) == 6
    assert points(reserve, 15) == 15


def test_e12b_loop_and_junction():
    reserve = grid(r"""
        I:ott\ I:ott/ I:ott\
        I:ott/ I:ott\ I:ott/
    """)
    assert longest(reserve) == 6
    shifted = grid(r"""
        .      .      .      .
        .      I:ott\ I:ott/ I:ott\
        .      I:ott/ I:ott\ I:ott/
    """)
    assert longest(shifted) == 6


def test_e12c_three_separate_rivers():
    reserve = grid(r"""
        I:ott\ .      I:ott/ I:ott\
        .      .      .      .
        .      I:ott/ I:ott\ I:ott/
    """)
    assert sorted(len(r) for r in _Board(reserve).rivers()) == [1, 2, 3]
    assert longest(reserve) == 3
    assert points(reserve, 15) == 3


def test_e12d_river_of_seven_capped_at_fifteen():
    reserve = grid(r"""
        .      .      .      .      I:ott/
        .      .      .      I:ott/ .
        .      .      I:ott/ .      .
        .      .      I:ott\ .      I:ott\
        .      .      .      I:ott\ I:ott/
    """)
    assert longest(reserve) == 7
    assert points(reserve, 15) == 15


def test_e12e_same_direction_neighbours_do_not_connect():
    picture = r"""
        I:ott/ .      .      I:ott\
        I:ott\ .      .      I:ott/
        .      I:ott/ I:ott/ .
    """
    reserve = grid(picture)
    assert sorted(len(r) for r in _Board(reserve).rivers()) == [1, 2, 3]
    assert longest(reserve) == 3
    shifted = [["."] * 6 for _ in range(2)] + [
        [".", "."] + row.split() for row in picture.strip().splitlines()
    ]
    assert longest(reserve_from_squares(shifted)) == 3


def test_e12f_zig_zag_along_one_row():
    reserve = grid(r"I:ott\ I:ott/ I:ott\ I:ott/ I:ott\ I:ott/")
    assert longest(reserve) == 6


def test_e13_goal3_jungle_zones():
    reserve = grid("""
        .     J:gor .     .
        .     J:gor .     J:gor
        J:gor .     .     .
    """)
    assert points(reserve, 3) == 6


def test_e14_goal8_bear_groups():
    reserve = grid("""
        I:bea I:bea .     I:bea
        I:bea .     .     .
        I:bea .     I:bea I:bea
    """)
    score = score_goal(reserve, 8)
    assert score.points == 11
    assert sorted(line.points for line in score.lines) == [-1, 4, 8]


def test_e15_goal5_largest_savannah():
    reserve = grid("""
        S:lio .     S:lio .
        S:lio .     S:lio S:lio
        .     .     S:lio S:lio
    """)
    assert points(reserve, 5) == 10


def test_e16a_goal12_strict_horizontal_pairs():
    reserve = grid("""
        I:bea I:bea I:bea
        S:lio .     .
        S:lio W:cro W:cro
    """)
    assert points(reserve, 12) == 3


def test_e16b_goal12_same_animal_below():
    assert points(grid("I:bea I:bea\nI:bea ."), 12) == 3
    assert points(grid("I:bea I:bea\nI:bea I:bea"), 12) == 6


def test_e17a_goal1_identical_animals_next_to_an_otter():
    reserve = grid("""
        .      .      I:pen
        S:lio  I:ott/ I:pen
        S:lio  I:pen  .
    """)
    assert points(reserve, 1) == 2


def test_e17b_goal1_complex():
    reserve = grid("""
        .      .      .      J:gor  I:ott/ .
        S:gir  W:fla  J:gor  I:ott/ J:pan  J:gor
        W:fla  S:lio  I:pen  J:pan  W:cro  I:pen
        .      J:pan  W:fla  I:bea  I:ott/ W:fla
        J:pan  W:fla  W:cro  I:ott/ I:bea  W:cro
        J:gor  S:gir  W:fla  J:gor  W:cro  J:pan
    """)
    score = score_goal(reserve, 1)
    assert score.points == 8
    by_otter: dict[str, int] = {}
    for line in score.lines:
        otter = line.reason.split(" has ")[0]
        by_otter[otter] = by_otter.get(otter, 0) + line.points
    assert by_otter == {
        "otter at row 2, column 4": 4,
        "otter at row 4, column 5": 2,
        "otter at row 5, column 4": 2,
    }


def test_e18_goal20_fewest_lions_three_players():
    p1 = sparse("r0c1 S:lio, r0c2 S:lio, r1c0 W:cro")
    p2 = sparse("r0c1 J:pan, r0c2 J:gor, r1c0 W:cro")
    p3 = sparse("")
    assert relative([p1, p2, p3], 20) == [-2, 3, 3]


def test_e19a_goal18_gorillas_tie_for_first_no_second():
    p1 = sparse("r0c1 J:gor, r0c2 S:lio, r1c0 W:cro")
    p2 = sparse("r0c1 J:pan, r0c2 J:gor, r1c0 J:gor")
    p3 = sparse("r0c1 J:gor, r0c2 J:gor, r1c0 W:cro")
    gorilla_half = [s.lines[0].points for s in score_relative([p1, p2, p3], 18)]
    assert gorilla_half == [0, 5, 5]


def test_e19b_goal18_gorillas_first_and_second():
    p1 = sparse("r0c1 S:lio, r0c2 S:lio, r1c0 W:cro")
    p2 = sparse("r0c1 J:pan, r0c2 J:gor, r1c0 J:gor")
    p3 = sparse("r0c1 J:pan, r0c2 J:gor, r1c0 W:cro")
    gorilla_half = [s.lines[0].points for s in score_relative([p1, p2, p3], 18)]
    assert gorilla_half == [0, 5, 2]


def _counts(gorillas: int, pandas: int):
    squares = ["J:gor"] * gorillas + ["J:pan"] * pandas
    rows = [squares[i : i + 6] for i in range(0, len(squares), 6)]
    return reserve_from_squares(rows)


def test_e20_goal18_four_players():
    reserves = [_counts(3, 1), _counts(4, 2), _counts(7, 3), _counts(2, 2)]
    scores = score_relative(reserves, 18)
    assert [s.lines[0].points for s in scores] == [0, 2, 5, 0]
    assert [s.lines[1].points for s in scores] == [0, -2, -5, -2]
    assert [s.points for s in scores] == [0, 0, 0, -2]


def test_e21_goal16_two_players_tie():
    p1 = sparse(r"r2c1 J:ott/, r2c2 S:ott\, r3c2 S:ott/, r4c2 J:ott\, r4c3 S:ott/")
    p2 = snow_otters(r"r0c1 \, r1c2 \, r2c3 \, r3c4 \, r4c4 /, r5c5 /")
    assert longest(p1) == 5 and longest(p2) == 5
    assert relative([p1, p2], 16) == [5, 5]


def test_e22_goal16_three_players_tie_for_first():
    p1 = grid(r"""
        I:ott/ .      .      I:ott\
        I:ott\ .      .      I:ott/
        .      I:ott/ I:ott/ .
    """)
    p2 = snow_otters(r"r1c0 /, r1c3 /, r3c1 /, r3c2 \, r4c3 \ ")
    p3 = snow_otters(r"r3c2 /, r4c1 \ ")
    assert [longest(p) for p in (p1, p2, p3)] == [3, 3, 1]
    assert relative([p1, p2, p3], 16) == [5, 5, 0]


def test_d1_goal12_adaptation_quirk_at_the_frames_right_side():
    right = sparse("r0c3 I:bea, r0c4 I:bea, r0c5 I:bea")
    assert points(right, 12, goal12="adaptation") == 3
    assert points(right, 12) == 0
    middle = sparse("r0c2 I:bea, r0c3 I:bea, r0c4 I:bea")
    assert points(middle, 12, goal12="adaptation") == 0
    assert points(middle, 12) == 0


# D2 goal set: blue 11 (rows with all lands), green 22 (crocodiles by giraffes), yellow 6
# (savannah zones of 4), red 18 (gorillas most +5/+2, pandas most -5/-2): a legal set.
D2_GOALS = [11, 22, 6, 18]
CROC_GIRAFFE = reserve_from_squares([["W:cro", "S:gir"]])  # goal 22: +2, nothing else
FLAMINGO = reserve_from_squares([["W:fla"]])  # scores nothing on these goals
GORILLA = reserve_from_squares([["J:gor"]])


def test_d2_floor_at_zero_in_round_three():
    # P1: round 1 +2 (green 22), round 2 nothing -> 2; round 3 blue 0, then red 18 -5
    # (most pandas, no gorilla against P2's one) -> 0, not -3.
    pandas = reserve_from_squares([["J:pan"], ["J:pan"]])
    result = score_game(
        D2_GOALS, [("P1", [CROC_GIRAFFE, FLAMINGO, pandas]), ("P2", [FLAMINGO, FLAMINGO, GORILLA])]
    )
    p1 = result.players[0]
    assert [r.total for r in p1.rounds] == [2, 2, 0]
    assert [(g.goal, g.points, g.total_after) for g in p1.rounds[2].goals] == [
        (11, 0, 2),
        (18, -5, 0),
    ]


def test_d2_floor_order_matters_in_round_five():
    # Round 5 scores blue, red, yellow: 2 + 0 -> 2, -5 -> 0 (floored), +6 -> 6; summing the
    # round first would give 3.
    last = reserve_from_squares(
        [["S:lio", ".", "J:pan"], ["S:lio", ".", "J:pan"], ["S:lio"], ["S:lio"]]
    )
    p1 = [CROC_GIRAFFE, FLAMINGO, FLAMINGO, FLAMINGO, last]
    p2 = [FLAMINGO, FLAMINGO, FLAMINGO, FLAMINGO, GORILLA]
    result = score_game(D2_GOALS, [("P1", p1), ("P2", p2)])
    player = result.players[0]
    assert player.rounds[3].total == 2
    assert [(g.goal, g.points, g.total_after) for g in player.rounds[4].goals] == [
        (11, 0, 2),
        (18, -5, 0),
        (6, 6, 6),
    ]
    assert player.total == 6
    unfloored = score_game(
        D2_GOALS, [("P1", p1), ("P2", p2)], replace(load_rules(), floor_at_zero=False)
    )
    assert unfloored.players[0].total == 3


def test_d3_zero_counts_rank():
    nobody = [sparse("r0c0 W:cro"), sparse("r0c0 W:fla"), sparse("")]
    panda_half = [s.lines[1].points for s in score_relative(nobody, 18)]
    assert panda_half == [-5, -5, -5]
    river3 = snow_otters(r"r0c0 \, r1c1 \, r2c2 \ ")
    assert relative([river3, sparse(""), sparse("r0c0 W:cro")], 16) == [5, 2, 2]


# Tie-break (reference section 3 and open question 9). Goals: blue 3 (jungle zones),
# green 8 (bear groups), yellow 6, red 13; round 1 scores blue then green.
TIE_GOALS = [3, 8, 6, 13]


def test_tiebreak_most_animals_of_one_type_decides_a_tie_for_first():
    gorilla = reserve_from_squares([["J:gor"]])  # 1 jungle zone: 2
    panda_and_crocodiles = reserve_from_squares([["J:pan", ".", "W:cro", "W:cro"]])  # 2, 2 crocs
    result = score_game(TIE_GOALS, [("Ann", [gorilla]), ("Bob", [panda_and_crocodiles])])
    assert [p.total for p in result.players] == [2, 2]
    assert [p.rank for p in result.players] == [2, 1]
    assert result.players[1].tiebreak_animal == "cro" and result.players[1].tiebreak == 2


def test_tiebreak_still_equal_is_a_shared_place():
    result = score_game(
        TIE_GOALS,
        [
            ("Ann", [reserve_from_squares([["J:gor"]])]),
            ("Bob", [reserve_from_squares([["J:pan"]])]),
        ],
    )
    assert [p.rank for p in result.players] == [1, 1]


def test_tiebreak_scope_a_tie_below_first_place():
    players = [
        ("Ann", [reserve_from_squares([["J:gor", "W:cro", "J:gor"]])]),  # 2 jungle zones: 4
        ("Bob", [reserve_from_squares([["J:pan"]])]),  # 2, one panda
        ("Cy", [reserve_from_squares([["J:pan", ".", "W:cro", "W:cro"]])]),  # 2, two crocodiles
    ]
    adaptation = score_game(TIE_GOALS, players)  # default: the adaptation's scope
    assert [p.rank for p in adaptation.players] == [1, 2, 2]
    assert [p.tiebreak_counted for p in adaptation.players] == [True, False, False]
    every_place = score_game(TIE_GOALS, players, load_rules(tiebreak="every_place"))
    assert [p.rank for p in every_place.players] == [1, 3, 2]


def test_tiebreak_adaptation_finds_the_tied_players_without_the_last_rounds_floors():
    from scoring.nimalia.engine import PlayerRound, RoundGoal, tiebreak_contenders

    def rounds(totals_and_raw):
        return [
            PlayerRound(n + 1, tuple(RoundGoal(0, p, 0, None) for p in raw), total)
            for n, (total, raw) in enumerate(totals_and_raw)
        ]

    # Ann: 2 after round 4, then 0, -5 (floored to 0), +6 -> 6; without the floors 3.
    # Bob: 0 after round 4, then +6 -> 6. Both end at 6, but only Bob is "tied for first"
    # the adaptation's way, so only Bob's animals count.
    ann = rounds([(2, [2]), (6, [0, -5, 6])])
    bob = rounds([(0, [0]), (6, [6])])
    assert tiebreak_contenders([ann, bob], load_rules()) == [False, True]
    assert tiebreak_contenders([ann, bob], load_rules(tiebreak="every_place")) == [True, True]
