"""The engine against the independent naive oracle, goal by goal, on generated reserves and
games of 2-4 players; both document forms give the same scores."""

from __future__ import annotations

import itertools
import random

import nimalia_oracle as oracle
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.nimalia.cards import SQUARE_KINDS
from scoring.nimalia.engine import score_game, score_goal, score_relative
from scoring.nimalia.reserve import Placement, reserve_from_document, reserve_from_placements
from scoring.nimalia.rules import load_rules

RULES = load_rules()
QUIRK = load_rules(goal12="adaptation")
OWN_GOALS = [g for g in range(1, 23) if g not in oracle.RELATIVE]
CARDS = oracle.load_cards()
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MANY = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Otters are over-weighted so that rivers, river mouths and goal 1 get exercised.
WEIGHTED_KINDS = list(SQUARE_KINDS) + [k for k in SQUARE_KINDS if "ott" in k] * 2


def random_rows(rng: random.Random) -> list[list[str]]:
    empty = rng.choice([0.0, 0.1, 0.3, 0.6])
    return [
        ["." if rng.random() < empty else rng.choice(WEIGHTED_KINDS) for _ in range(6)]
        for _ in range(6)
    ]


def legal_placements(rng: random.Random, deck: list[int], n: int, start=()) -> list[Placement]:
    """``n`` more legal placements after ``start``: each card covers >= 1 occupied square."""
    placements = list(start)
    occupied = set()
    for p in placements:
        occupied |= {(p.row + a, p.col + b) for a in (0, 1) for b in (0, 1)}
    for _ in range(n):
        spots = [
            (r, c)
            for r in range(5)
            for c in range(5)
            if not occupied or {(r, c), (r + 1, c), (r, c + 1), (r + 1, c + 1)} & occupied
        ]
        r, c = rng.choice(spots)
        placements.append(Placement(deck.pop(), r, c, rng.choice([0, 90, 180, 270])))
        occupied |= {(r + a, c + b) for a in (0, 1) for b in (0, 1)}
    return placements


def as_tuples(placements):
    return [(p.card, p.row, p.col, p.turn) for p in placements]


def check_reserve(reserve, grid) -> None:
    for goal in OWN_GOALS:
        assert score_goal(reserve, goal, RULES).points == oracle.own_goal(grid, goal), goal
    assert score_goal(reserve, 12, QUIRK).points == oracle.own_goal(grid, 12, "adaptation")


def check_squares(seed: int) -> None:
    rows = random_rows(random.Random(seed))
    check_reserve(reserve_from_document({"squares": rows}), oracle.grid_from_rows(rows))


def check_placements(seed: int) -> None:
    rng = random.Random(seed)
    deck = rng.sample(range(1, 61), 60)
    placements = legal_placements(rng, deck, rng.randint(1, 15))
    reserve = reserve_from_placements(placements)
    grid = oracle.grid_from_placements(as_tuples(placements), CARDS)
    assert oracle.grid_from_rows(reserve.token_rows()) == grid
    check_reserve(reserve, grid)
    # The squares form of the same reserve scores the same, goal by goal.
    again = reserve_from_document(reserve.to_squares_document())
    assert again.squares == reserve.squares
    for goal in OWN_GOALS:
        assert score_goal(again, goal, QUIRK).points == score_goal(reserve, goal, QUIRK).points


@FAST
@given(st.integers(0, 2**32 - 1))
def test_oracle_agrees_on_random_squares(seed):
    check_squares(seed)


@FAST
@given(st.integers(0, 2**32 - 1))
def test_oracle_agrees_on_legal_placements_and_both_forms_agree(seed):
    check_placements(seed)


def legal_goal_sets() -> list[tuple[int, ...]]:
    by_colour = {c: [g for g, col in oracle.GOAL_COLOUR.items() if col == c]
                 for c in ("blue", "green", "yellow", "red")}  # fmt: skip
    same_card = {frozenset((2 * k - 1, 2 * k)) for k in range(1, 12)}
    return [
        combo
        for combo in itertools.product(*by_colour.values())
        if not any(frozenset(pair) in same_card for pair in itertools.combinations(combo, 2))
    ]


def test_592_legal_goal_sets():
    sets = legal_goal_sets()
    assert len(sets) == 592
    from scoring.nimalia.engine import check_goal_set

    for goal_set in sets:
        assert check_goal_set(list(goal_set)) == goal_set


def check_game(seed: int) -> None:
    rng = random.Random(seed)
    n_players = rng.randint(2, 4)
    n_rounds = rng.randint(1, 5)
    goals = list(rng.choice(legal_goal_sets()))
    rng.shuffle(goals)
    deck = rng.sample(range(1, 61), 60)
    players, grids = [], []
    for p in range(n_players):
        placements: list[Placement] = []
        reserves, player_grids = [], []
        for _ in range(n_rounds):
            placements = legal_placements(rng, deck, 3, placements)
            reserves.append(reserve_from_placements(placements))
            player_grids.append(oracle.grid_from_placements(as_tuples(placements), CARDS))
        players.append((f"P{p + 1}", reserves))
        grids.append(player_grids)
    scope = rng.choice(["adaptation", "every_place"])
    result = score_game(goals, players, load_rules(tiebreak=scope))
    expected = oracle.game(goals, grids, scope)
    for player_index, player in enumerate(result.players):
        for rnd in player.rounds:
            for rg in rnd.goals:
                assert rg.points == expected["raw"][(rnd.round, rg.goal)][player_index], (
                    rnd.round,
                    rg.goal,
                )
    assert [p.total for p in result.players] == expected["totals"]
    assert [p.rank for p in result.players] == expected["ranks"]


@FAST
@given(st.integers(0, 2**32 - 1))
def test_oracle_agrees_on_games_of_two_to_four_players(seed):
    check_game(seed)


@pytest.mark.slow
@MANY
@given(st.integers(0, 2**32 - 1))
def test_oracle_agrees_on_many_reserves_and_games(seed):
    check_squares(seed)
    check_placements(seed)
    check_game(seed)


@FAST
@given(st.lists(st.integers(0, 2**32 - 1), min_size=2, max_size=4))
def test_relative_goals_match_the_oracle(seeds):
    rows = [random_rows(random.Random(s)) for s in seeds]
    reserves = [reserve_from_document({"squares": r}) for r in rows]
    grids = [oracle.grid_from_rows(r) for r in rows]
    for goal in sorted(oracle.RELATIVE):
        got = [s.points for s in score_relative(reserves, goal, RULES)]
        assert got == oracle.relative_goal(grids, goal), goal
