"""Issue 28 item 5: the boards of one game together cannot show more copies than the deck."""

from __future__ import annotations

import pytest

from scoring.reptile_tank.rules import default_rules
from service.reptile_tank.deck_check import deck_conflicts, with_deck_flags
from service.reptile_tank.game import TerrariumEntry

ROCKS = ["rock", "rock", "rock", "rock", "rock"]


def _photo(rows, confidence=None, check=None, corrected=()):
    return TerrariumEntry(
        rows=[list(row) for row in rows],
        confidence=confidence or [[0.5] * 5 for _ in rows],
        source="photo",
        check=check,
        corrected=set(corrected),
    )


def _board(first_row, fill="water"):
    return [list(first_row)] + [[fill] * 5 for _ in range(3)]


@pytest.fixture(scope="module")
def copies():
    rules = default_rules()
    return {card: rules.copies(card) for card in rules.cards}


def test_a_table_within_the_deck_has_no_conflict(copies) -> None:
    assert copies["rock"] == 9
    boards = [_photo(_board(ROCKS)), _photo(_board(["rock"] * 4 + ["empty"]))]
    assert deck_conflicts(boards, copies) == []


def test_the_least_sure_cells_of_an_over_counted_card_are_flagged(copies) -> None:
    margins_a = [[0.9, 0.8, 0.05, 0.7, 0.6]] + [[0.5] * 5 for _ in range(3)]
    margins_b = [[0.4, 0.9, 0.9, 0.02, 0.9]] + [[0.5] * 5 for _ in range(3)]
    boards = [_photo(_board(ROCKS), margins_a), _photo(_board(ROCKS), margins_b)]
    (conflict,) = deck_conflicts(boards, copies)
    assert (conflict.card, conflict.shown, conflict.copies) == ("rock", 10, 9)
    assert conflict.flagged == ((1, 0, 3),)  # the one least sure of the ten
    assert "10 rock" in conflict.message and "deck has 9" in conflict.message
    flagged, conflicts = with_deck_flags(boards, copies)
    assert conflicts == [conflict]
    assert flagged[1].check[0][3] and sum(map(sum, flagged[1].check)) == 1
    assert flagged[0] is boards[0]  # a board with nothing to flag is the same entry
    assert boards[1].check is None  # the entries given are left alone
    assert flagged[1].cells_to_check() == [(0, 3)]


def test_cells_the_reader_flagged_count_as_least_sure(copies) -> None:
    check = [[False, False, False, False, True]] + [[False] * 5 for _ in range(3)]
    margins = [[0.01] * 5] + [[0.5] * 5 for _ in range(3)]
    boards = [_photo(_board(ROCKS), margins), _photo(_board(ROCKS), check=check)]
    boards[1].confidence[0][4] = 0.99
    (conflict,) = deck_conflicts(boards, copies)
    assert conflict.flagged == ((1, 0, 4),)


def test_confirmed_and_typed_cells_are_never_flagged(copies) -> None:
    typed = TerrariumEntry(rows=_board(ROCKS), source="manual")
    fixed = _photo(_board(ROCKS), [[0.01] * 5] + [[0.5] * 5] * 3, corrected={(0, 0), (0, 1)})
    (conflict,) = deck_conflicts([typed, fixed], copies)
    assert len(conflict.flagged) == 1 and conflict.flagged[0][0] == 1
    assert conflict.flagged[0][1:] not in {(0, 0), (0, 1)}
    both_typed = [TerrariumEntry(rows=_board(ROCKS), source="manual")] * 2
    (conflict,) = deck_conflicts(both_typed, copies)
    assert conflict.flagged == () and "confirmed by hand" in conflict.message


def test_water_empty_and_unlimited_cards_are_not_counted(copies) -> None:
    boards = [_photo(_board(["water"] * 5)) for _ in range(4)]  # 80 water backs
    assert deck_conflicts(boards, copies) == []
    assert deck_conflicts([_photo(_board(ROCKS))] * 2, {}) == []


def test_bad_input_gets_one_clear_error(copies) -> None:
    with pytest.raises(ValueError, match="rows must be"):
        deck_conflicts([TerrariumEntry(rows="rock")], copies)
    with pytest.raises(ValueError, match="copies of rock"):
        deck_conflicts([_photo(_board(ROCKS))], {"rock": -1})
