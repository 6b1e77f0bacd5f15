"""How cell labels are shown: full names for pickers, short names with an icon for the board.

These are display strings only; the canonical ids (``scoring.reptile_tank.cards``) are what is stored.
"""

from __future__ import annotations

import re

#: Full names, as printed on the cards.
FULL_NAMES: dict[str, str] = {
    "corn_snake": "Corn snake",
    "ringneck_snake": "Ringneck snake",
    "rosy_boa": "Rosy boa",
    "common_box_turtle": "Common box turtle",
    "three_toed_box_turtle": "Three-toed box turtle",
    "red_footed_tortoise": "Red-footed tortoise",
    "brown_anole": "Brown anole",
    "blue_tongued_skink": "Blue-tongued skink",
    "neon_day_gecko": "Neon day gecko",
    "dubia_roach": "Dubia roach",
    "silver_inch_plant": "Silver inch plant",
    "golden_pothos": "Golden pothos",
    "scarlet_star": "Scarlet star",
    "hollow_log": "Hollow log",
    "rock": "Rock",
    "water": "Water (card back)",
    "empty": "Empty (no card yet)",
}

#: Short names that fit a 5-column board on a 390 px phone.
SHORT_NAMES: dict[str, str] = {
    "corn_snake": "Corn",
    "ringneck_snake": "Ringneck",
    "rosy_boa": "Boa",
    "common_box_turtle": "Box",
    "three_toed_box_turtle": "3-toed",
    "red_footed_tortoise": "Tortoise",
    "brown_anole": "Anole",
    "blue_tongued_skink": "Skink",
    "neon_day_gecko": "Gecko",
    "dubia_roach": "Roach",
    "silver_inch_plant": "Inch",
    "golden_pothos": "Pothos",
    "scarlet_star": "Star",
    "hollow_log": "Log",
    "rock": "Rock",
    "water": "Water",
    "empty": "empty",
}

#: One icon per category, so a small board is readable at a glance.
ICONS: dict[str, str] = {
    "corn_snake": "🐍",
    "ringneck_snake": "🐍",
    "rosy_boa": "🐍",
    "common_box_turtle": "🐢",
    "three_toed_box_turtle": "🐢",
    "red_footed_tortoise": "🐢",
    "brown_anole": "🦎",
    "blue_tongued_skink": "🦎",
    "neon_day_gecko": "🦎",
    "dubia_roach": "🪳",
    "silver_inch_plant": "🌿",
    "golden_pothos": "🌿",
    "scarlet_star": "🌺",
    "hollow_log": "🪵",
    "rock": "🪨",
    "water": "💧",
    "empty": "▫️",
}


def full_name(label: str) -> str:
    """The card's printed name, e.g. ``"Blue-tongued skink"`` (unknown ids are shown as-is)."""
    return FULL_NAMES.get(label, label)


def cell_text(label: str) -> str:
    """Icon and short name for a board cell, e.g. ``"🦎 Skink"``."""
    return f"{ICONS.get(label, '?')} {SHORT_NAMES.get(label, label)}"


def picker_text(label: str) -> str:
    """Icon and full name for a picker option, e.g. ``"🦎 Blue-tongued skink"``."""
    return f"{ICONS.get(label, '?')} {full_name(label)}"


#: The picker's "all cards" part, by category (then Water and Empty).
PICKER_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Lizards", ("blue_tongued_skink", "neon_day_gecko", "brown_anole")),
    ("Snakes", ("corn_snake", "rosy_boa", "ringneck_snake")),
    ("Turtles", ("three_toed_box_turtle", "common_box_turtle", "red_footed_tortoise")),
    ("Cockroach", ("dubia_roach",)),
    ("Dry land", ("silver_inch_plant", "golden_pothos", "scarlet_star", "hollow_log", "rock")),
    ("Water and empty", ("water", "empty")),
)

_CELL_REF = re.compile(r"\((\d+),\s*(\d+)\)")
_CARD_REF = re.compile(r"\b([a-z]+(?:_[a-z]+)+)\b")


def humanize(text: str) -> str:
    """An engine reason in the players' words: ``(1,3)`` → ``row 2, column 4`` and card ids →
    names (``golden_pothos+rock`` → ``Golden pothos+Rock``)."""

    def cell(match: re.Match[str]) -> str:
        return f"row {int(match.group(1)) + 1}, column {int(match.group(2)) + 1}"

    def card(match: re.Match[str]) -> str:
        word = match.group(1)
        return FULL_NAMES[word].split(" (")[0] if word in FULL_NAMES else word

    text = re.sub(r"\)\s+\(", "); (", str(text))
    return _CARD_REF.sub(card, _CELL_REF.sub(cell, text))
