"""Card vocabulary: the canonical card ids used in boards, labels, JSON and tests.

The ids are the vocabulary of ``docs/card-reference.md``; every *value* attached to them
(categories, VP, shapes, masks, copy counts) lives in the rules data file, not here.
"""

ANIMAL_IDS: tuple[str, ...] = (
    "corn_snake",
    "ringneck_snake",
    "rosy_boa",
    "common_box_turtle",
    "three_toed_box_turtle",
    "red_footed_tortoise",
    "brown_anole",
    "blue_tongued_skink",
    "neon_day_gecko",
    "dubia_roach",
)
DRY_LAND_IDS: tuple[str, ...] = (
    "silver_inch_plant",
    "golden_pothos",
    "scarlet_star",
    "hollow_log",
    "rock",
)
WATER = "water"
EMPTY = "empty"

#: The 15 card fronts.
CARD_IDS: tuple[str, ...] = ANIMAL_IDS + DRY_LAND_IDS
#: The 16 faces a card can show: 15 fronts and the Water back.
FACE_LABELS: tuple[str, ...] = CARD_IDS + (WATER,)
#: Every label a cell can hold.
CELL_LABELS: tuple[str, ...] = FACE_LABELS + (EMPTY,)
