"""Board-building helpers of the scoring tests (imported by test modules)."""

from __future__ import annotations

from scoring.reptile_tank.board import Board

#: short names for building boards by hand in tests
SHORT = {
    ".": "empty",
    "W": "water",
    "BTS": "blue_tongued_skink",
    "NDG": "neon_day_gecko",
    "BA": "brown_anole",
    "CS": "corn_snake",
    "RS": "ringneck_snake",
    "RB": "rosy_boa",
    "CBT": "common_box_turtle",
    "TTB": "three_toed_box_turtle",
    "RFT": "red_footed_tortoise",
    "DR": "dubia_roach",
    "R": "rock",
    "HL": "hollow_log",
    "SS": "scarlet_star",
    "SIP": "silver_inch_plant",
    "GP": "golden_pothos",
}


def make_board(text: str) -> Board:
    """A board from 4 lines of 5 whitespace-separated short names (see ``SHORT``)."""
    rows = [[SHORT.get(tok, tok) for tok in line.split()] for line in text.strip().splitlines()]
    return Board.from_rows(rows)


#: The Terrarium Master's cards in the rulebook's solo example (he scores 59 with rock + hollow log
#: paired).
SOLO_MASTER = {
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
}
