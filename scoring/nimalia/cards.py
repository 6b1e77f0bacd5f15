"""Nimalia's cards: the 60 animal cards square by square, the 14 square kinds, turning a card.

This module is a stable contract: the photo reader (``vision/nimalia/``), the stand-in deck,
the rules engine and the app all build on exactly these names. Values live in
``scoring/nimalia/data/cards.toml`` (and the layout in ``scoring/nimalia/data/rules.toml``); this module only
parses and checks them.

Token notation (``../shared/docs/nimalia-reference.md``)
--------------------------------------------------------
A visible square is written ``"Land:animal"``:

* lands :data:`LANDS` -- ``W`` water (lake), ``S`` savannah, ``J`` jungle (rain forest),
  ``I`` snow (ice floe);
* animals :data:`ANIMALS` -- ``cro fla`` (on water), ``lio gir`` (savannah), ``pan gor``
  (jungle), ``bea pen`` (snow), ``ott`` (otter, on S, J or I, never water);
* an otter square adds its river: ``"/"`` runs from the square's bottom-left corner to its
  top-right corner, ``"\\"`` from top-left to bottom-right (e.g. ``"S:ott/"``, ``"J:ott\\"``);
* ``"."`` (:data:`EMPTY`) is an empty square.

:data:`SQUARE_KINDS` lists the 14 kinds a visible square can be (8 fixed animal/land pairs and
otter x {S, J, I} x {/, \\}); with :data:`EMPTY` they are the 15 classes of a photo reader.

API
---
* :class:`Square` -- one square (``land``, ``animal``, ``river``); ``Square.parse(token)``,
  ``square.token``; :func:`parse_square` returns ``None`` for ``"."``.
* :class:`Card` -- ``id`` (1-60, the adaptation's ids) and ``squares``: 4 squares in reading
  order TL, TR, BL, BR, unrotated.
* :func:`cards` -- ``{id: Card}`` for all 60 cards; :func:`card` -- one card by id.
* :func:`turn` -- ``turn(card, degrees)``: the card's 4 squares (TL, TR, BL, BR) after a
  clockwise turn of 0, 90, 180 or 270 degrees; a quarter turn (90/270) flips every otter's
  river (``/`` <-> ``\\``), a half turn does not. :func:`turned_block` gives the same as
  ``((TL, TR), (BL, BR))``.
* :func:`layout` -- the reserve's :class:`scoring.layout.Layout` (6x6 squares).

Examples
--------
>>> [s.token for s in turn(card(36), 90)]
['S:ott\\\\', 'J:pan', 'J:gor', 'W:fla']
>>> Square.parse("I:ott/").river
'/'
>>> len(SQUARE_KINDS)
14
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from scoring.layout import Layout

DATA_DIR = Path(__file__).with_name("data")
CARDS_PATH = DATA_DIR / "cards.toml"
RULES_PATH = DATA_DIR / "rules.toml"

#: The 4 lands, in the reference's order.
LANDS: tuple[str, ...] = ("W", "S", "J", "I")
LAND_NAMES: dict[str, str] = {"W": "water", "S": "savannah", "J": "jungle", "I": "snow"}
#: The 9 animals; every one except the otter always lives on one land.
ANIMALS: tuple[str, ...] = ("cro", "fla", "lio", "gir", "pan", "gor", "bea", "pen", "ott")
ANIMAL_NAMES: dict[str, str] = {
    "cro": "crocodile",
    "fla": "flamingo",
    "lio": "lion",
    "gir": "giraffe",
    "pan": "panda",
    "gor": "gorilla",
    "bea": "polar bear",
    "pen": "penguin",
    "ott": "otter",
}
ANIMAL_PLURALS: dict[str, str] = {
    "cro": "crocodiles",
    "fla": "flamingos",
    "lio": "lions",
    "gir": "giraffes",
    "pan": "pandas",
    "gor": "gorillas",
    "bea": "polar bears",
    "pen": "penguins",
    "ott": "otters",
}
OTTER = "ott"
#: The land of each animal; the otter lives on any of :data:`OTTER_LANDS`.
ANIMAL_LAND: dict[str, str] = {
    "cro": "W",
    "fla": "W",
    "lio": "S",
    "gir": "S",
    "pan": "J",
    "gor": "J",
    "bea": "I",
    "pen": "I",
}
OTTER_LANDS: tuple[str, ...] = ("S", "J", "I")
#: River directions: "/" bottom-left to top-right, "\\" top-left to bottom-right.
RIVERS: tuple[str, ...] = ("/", "\\")
EMPTY = "."
#: Quarter order of a card: reading order.
QUARTERS: tuple[str, ...] = ("TL", "TR", "BL", "BR")
#: Clockwise turn -> for each new quarter (TL, TR, BL, BR), the old quarter shown there.
TURN_QUARTERS: dict[int, tuple[int, int, int, int]] = {
    0: (0, 1, 2, 3),
    90: (2, 0, 3, 1),
    180: (3, 2, 1, 0),
    270: (1, 3, 0, 2),
}
TURNS: tuple[int, ...] = (0, 90, 180, 270)


@dataclass(frozen=True, order=True)
class Square:
    """One visible square: a land, an animal, and for an otter its river (``"/"`` or ``"\\"``)."""

    land: str
    animal: str
    river: str | None = None

    def __post_init__(self) -> None:
        if self.land not in LANDS:
            raise ValueError(f"unknown land {self.land!r} (one of {', '.join(LANDS)})")
        if self.animal not in ANIMALS:
            raise ValueError(f"unknown animal {self.animal!r} (one of {', '.join(ANIMALS)})")
        if self.animal == OTTER:
            if self.land not in OTTER_LANDS:
                raise ValueError(f"an otter lives on S, J or I, not {self.land!r}")
            if self.river not in RIVERS:
                raise ValueError("an otter square needs its river, '/' or '\\'")
        else:
            if self.river is not None:
                raise ValueError(f"only an otter square has a river, not {self.animal!r}")
            if ANIMAL_LAND[self.animal] != self.land:
                raise ValueError(
                    f"a {ANIMAL_NAMES[self.animal]} lives on {ANIMAL_LAND[self.animal]}, "
                    f"not {self.land}"
                )

    @property
    def token(self) -> str:
        """The square in the reference's notation, e.g. ``"W:cro"`` or ``"S:ott/"``."""
        return f"{self.land}:{self.animal}{self.river or ''}"

    @property
    def is_otter(self) -> bool:
        return self.animal == OTTER

    def flipped(self) -> Square:
        """The same square with its river flipped (what a quarter turn does); others unchanged."""
        if self.river is None:
            return self
        return Square(self.land, self.animal, "\\" if self.river == "/" else "/")

    def describe(self) -> str:
        """Player words: ``"crocodile (water)"``, ``"otter (snow, river /)"``."""
        if self.river:
            return f"otter ({LAND_NAMES[self.land]}, river {self.river})"
        return f"{ANIMAL_NAMES[self.animal]} ({LAND_NAMES[self.land]})"

    @classmethod
    def parse(cls, token: str) -> Square:
        """A square from ``"Land:animal"`` (plus ``/`` or ``\\`` for an otter); ``ValueError``
        naming the token when it is not one of the 14 kinds."""
        if not isinstance(token, str):
            raise ValueError(f"a square is a string like 'W:cro', got {token!r}")
        if token not in _KIND_SET:
            raise ValueError(
                f"unknown square {token!r}: one of {', '.join(SQUARE_KINDS)} or {EMPTY!r}"
            )
        land, rest = token.split(":", 1)
        if rest.startswith(OTTER):
            return cls(land, OTTER, rest[len(OTTER) :])
        return cls(land, rest)


def _square_kinds() -> tuple[str, ...]:
    kinds = [f"{land}:{animal}" for animal, land in ANIMAL_LAND.items()]
    kinds += [f"{land}:{OTTER}{river}" for land in OTTER_LANDS for river in RIVERS]
    return tuple(kinds)


#: The 14 square kinds: 8 animal/land pairs, then otter x (S, J, I) x (/, \).
SQUARE_KINDS: tuple[str, ...] = _square_kinds()
_KIND_SET = frozenset(SQUARE_KINDS)


def parse_square(token: str) -> Square | None:
    """:meth:`Square.parse`, with ``"."`` (empty) giving ``None``."""
    if token == EMPTY:
        return None
    return Square.parse(token)


def square_token(square: Square | None) -> str:
    """The token of a square, ``"."`` for ``None``."""
    return EMPTY if square is None else square.token


@dataclass(frozen=True)
class Card:
    """One animal card: its id (1-60) and 4 squares TL, TR, BL, BR as printed (unrotated)."""

    id: int
    squares: tuple[Square, Square, Square, Square]

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(s.token for s in self.squares)


def turn(card: Card | int, degrees: int) -> tuple[Square, Square, Square, Square]:
    """The card's 4 squares in reading order (TL, TR, BL, BR) after a clockwise turn.

    ``degrees`` is 0, 90, 180 or 270. A quarter turn flips every otter's river, a half turn
    does not (a diagonal turned by 180 degrees is the same diagonal).
    """
    if isinstance(card, int) and not isinstance(card, bool):
        card = globals()["card"](card)
    if not isinstance(card, Card):
        raise ValueError(f"turn needs a Card or a card id, got {card!r}")
    if degrees not in TURN_QUARTERS:
        raise ValueError(f"turn must be 0, 90, 180 or 270 degrees, got {degrees!r}")
    order = TURN_QUARTERS[degrees]
    flip = degrees in (90, 270)
    squares = tuple(card.squares[i].flipped() if flip else card.squares[i] for i in order)
    return squares  # type: ignore[return-value]


def turned_block(card: Card | int, degrees: int) -> tuple[tuple[Square, Square], ...]:
    """:func:`turn` as 2 rows of 2 squares: ``((TL, TR), (BL, BR))``."""
    tl, tr, bl, br = turn(card, degrees)
    return ((tl, tr), (bl, br))


@cache
def cards() -> dict[int, Card]:
    """All 60 cards by id, read from ``scoring/nimalia/data/cards.toml`` (cached; treat as read-only)."""
    with CARDS_PATH.open("rb") as handle:
        data = tomllib.load(handle)
    table = data.get("cards")
    if not isinstance(table, dict):
        raise ValueError(f"{CARDS_PATH}: no [cards] table")
    result: dict[int, Card] = {}
    for key, tokens in table.items():
        try:
            cid = int(key)
        except ValueError:
            raise ValueError(f"{CARDS_PATH}: card id {key!r} is not a number") from None
        if not isinstance(tokens, list) or len(tokens) != 4:
            raise ValueError(f"{CARDS_PATH}: card {cid} needs 4 squares")
        try:
            squares = tuple(Square.parse(t) for t in tokens)
        except ValueError as error:
            raise ValueError(f"{CARDS_PATH}: card {cid}: {error}") from None
        result[cid] = Card(cid, squares)  # type: ignore[arg-type]
    expected = int(data.get("deck", {}).get("size", len(result)))
    if sorted(result) != list(range(1, expected + 1)):
        raise ValueError(f"{CARDS_PATH}: card ids must be 1..{expected}")
    return dict(sorted(result.items()))


def card(card_id: int) -> Card:
    """One card by id; ``ValueError`` naming the id when there is no such card."""
    deck = cards()
    if isinstance(card_id, bool) or not isinstance(card_id, int) or card_id not in deck:
        raise ValueError(f"unknown card {card_id!r}: Nimalia cards are 1-{len(deck)}")
    return deck[card_id]


@cache
def layout() -> Layout:
    """The reserve's layout: 6x6 squares (one cell = one square of a card).

    Read from the ``[grid]`` section of ``scoring/nimalia/data/rules.toml``; the square size there is
    marked assumed (the help text gives none).
    """
    with RULES_PATH.open("rb") as handle:
        grid = tomllib.load(handle)["grid"]
    return Layout(
        name="nimalia",
        rows=int(grid["rows"]),
        cols=int(grid["cols"]),
        cell_w_mm=float(grid["square_w_mm"]),
        cell_h_mm=float(grid["square_h_mm"]),
        cell_holds="square",
        gap_mm=float(grid.get("gap_mm", 0.0)) or 0.0,
    )
