"""Board-building helpers of the scoring tests (imported by test modules)."""

from __future__ import annotations

from scoring.board import Board

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
