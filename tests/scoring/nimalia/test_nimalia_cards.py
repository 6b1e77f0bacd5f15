"""The card data against the reference's deck totals, and turning a card."""

from collections import Counter

import pytest

from scoring.nimalia.cards import (
    EMPTY,
    SQUARE_KINDS,
    Square,
    card,
    cards,
    layout,
    parse_square,
    turn,
    turned_block,
)


def all_squares():
    return [s for c in cards().values() for s in c.squares]


def test_sixty_cards_of_four_squares():
    deck = cards()
    assert sorted(deck) == list(range(1, 61))
    assert all(len(c.squares) == 4 for c in deck.values())


def test_deck_totals_match_the_reference():
    squares = all_squares()
    assert len(squares) == 240
    assert Counter(s.land for s in squares) == {"W": 60, "S": 60, "J": 60, "I": 60}
    animals = Counter(s.animal for s in squares)
    assert animals == {
        "cro": 30,
        "fla": 30,
        "ott": 30,
        "lio": 25,
        "gir": 25,
        "pan": 25,
        "gor": 25,
        "bea": 25,
        "pen": 25,
    }
    otters = Counter(s.token for s in squares if s.is_otter)
    assert otters == {
        "I:ott/": 6,
        "I:ott\\": 4,
        "S:ott/": 4,
        "S:ott\\": 6,
        "J:ott/": 5,
        "J:ott\\": 5,
    }
    per_card = Counter(sum(s.is_otter for s in c.squares) for c in cards().values())
    assert per_card == {0: 31, 1: 28, 2: 1}
    assert sum(s.is_otter for s in card(59).squares) == 2


def test_cards_with_a_repeated_animal():
    repeated = sorted(c.id for c in cards().values() if len({s.animal for s in c.squares}) < 4)
    assert repeated == [33, 35, 39, 40, 57, 59, 60]


@pytest.mark.parametrize("degrees", [0, 90, 180, 270])
def test_every_river_runs_from_the_card_centre_to_an_outer_corner(degrees):
    # TL and BR quarters need "\", TR and BL need "/", under any turn.
    for c in cards().values():
        for quarter, square in enumerate(turn(c, degrees)):
            if square.is_otter:
                assert square.river == ("\\" if quarter in (0, 3) else "/"), (c.id, degrees)


def test_turning_card_36_as_in_the_adaptations_test():
    assert [s.token for s in turn(36, 0)] == ["J:pan", "W:fla", "S:ott/", "J:gor"]
    assert [s.token for s in turn(36, 90)] == ["S:ott\\", "J:pan", "J:gor", "W:fla"]
    assert [s.token for s in turn(36, 180)] == ["J:gor", "S:ott/", "W:fla", "J:pan"]
    assert [s.token for s in turn(36, 270)] == ["W:fla", "J:gor", "J:pan", "S:ott\\"]
    assert turned_block(36, 90)[1][0].token == "J:gor"


def test_four_quarter_turns_are_the_identity():
    for c in cards().values():
        squares = c.squares
        for _ in range(4):
            squares = turn(type(c)(c.id, squares), 90)
        assert squares == c.squares


def test_square_kinds_and_tokens():
    assert len(SQUARE_KINDS) == 14 and len(set(SQUARE_KINDS)) == 14
    for token in SQUARE_KINDS:
        assert Square.parse(token).token == token
    assert parse_square(EMPTY) is None
    for bad in ["W:lio", "W:ott/", "S:ott", "I:pen/", "X:cro", "cro", "", 3]:
        with pytest.raises(ValueError):
            Square.parse(bad)


def test_bad_turns_and_ids_are_refused():
    with pytest.raises(ValueError, match="turn"):
        turn(1, 45)
    with pytest.raises(ValueError, match="unknown card"):
        card(61)


def test_layout_is_six_by_six_squares():
    grid = layout()
    assert (grid.rows, grid.cols, grid.cell_holds, grid.name) == (6, 6, "square", "nimalia")
    assert grid.cell_w_mm == grid.cell_h_mm > 0


def test_legal_positions_follow_the_cover_rule():
    from scoring.nimalia.api import next_positions
    from scoring.nimalia.reserve import Placement, legal_positions, reserve_from_placements

    assert len(legal_positions(reserve_from_placements([]))) == 25
    one = reserve_from_placements([Placement(1, 2, 2)])
    spots = legal_positions(one)
    assert sorted(spots) == [(r, c) for r in (1, 2, 3) for c in (1, 2, 3)]
    for r, c in spots:  # each is accepted by the placement check
        reserve_from_placements([Placement(1, 2, 2), Placement(2, r, c)])
    assert next_positions({"placements": [{"card": 1, "row": 0, "col": 0}]}) == [
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
    ]
