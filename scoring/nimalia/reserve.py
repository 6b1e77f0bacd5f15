"""A player's reserve: the visible squares, built from placements in order or read square by square.

Two document forms give the same reserve (``docs/nimalia.md``):

* ``{"placements": [{"card": 36, "row": 0, "col": 1, "turn": 90}, ...]}`` in placement order;
  ``row``/``col`` is the frame square (0-4) under the card's top-left quarter, ``turn`` its
  clockwise turn (0, 90, 180, 270; default 0). Each card after the first must cover at least
  one square already there (help text); a card appears once; later cards go on top.
* ``{"squares": [["W:cro", "S:ott/", "."], ...]}``: up to 6 rows of up to 6 squares in the
  reference's notation (see :mod:`scoring.nimalia.cards`), shorter rows padded with empty squares; the
  first row and column are the frame's (which matters only for goal 12's adaptation mode).

Every bad document raises ``ValueError`` with one line naming the key or the position.
:func:`legal_positions` lists where the next card may go (for entering a reserve card by card).

Examples
--------
>>> reserve = reserve_from_document({"placements": [{"card": 36, "row": 0, "col": 0}]})
>>> reserve.token_rows()[0][:3]
['J:pan', 'W:fla', '.']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.layout import Layout
from scoring.nimalia.cards import EMPTY, TURNS, Square, card, layout, parse_square, turn


@dataclass(frozen=True)
class Placement:
    """One card placed on the reserve: the frame square of its top-left quarter and its turn."""

    card: int
    row: int
    col: int
    turn: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"card": self.card, "row": self.row, "col": self.col, "turn": self.turn}


@dataclass(frozen=True)
class Reserve:
    """The visible squares, row by row (``None`` = empty), in a layout's frame.

    ``placements`` is set when the reserve was built from placements (then ``owner[i]`` is the
    index of the placement whose quarter is visible at square ``i``).
    """

    layout: Layout
    squares: tuple[Square | None, ...]  # rows * cols, row by row
    placements: tuple[Placement, ...] | None = None
    owner: tuple[int | None, ...] | None = None

    def __post_init__(self) -> None:
        if len(self.squares) != self.layout.cell_count:
            raise ValueError(f"a reserve needs {self.layout.cell_count} squares")

    def at(self, row: int, col: int) -> Square | None:
        return self.squares[row * self.layout.cols + col]

    def token_rows(self) -> list[list[str]]:
        """The squares as rows of tokens (``"."`` for empty)."""
        cols = self.layout.cols
        return [
            [EMPTY if s is None else s.token for s in self.squares[r * cols : (r + 1) * cols]]
            for r in range(self.layout.rows)
        ]

    @property
    def occupied(self) -> int:
        return sum(s is not None for s in self.squares)

    def to_squares_document(self) -> dict[str, Any]:
        return {"squares": self.token_rows()}


def _whole(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{where} must be a whole number, got {value!r}")
    return value


_PLACEMENT_KEYS = ("card", "row", "col", "turn")


def parse_placement(raw: Any, index: int, grid: Layout) -> Placement:
    """One placement of a document, checked; ``index`` (0-based) names it in messages."""
    where = f"placements[{index}]"
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where} must be an object like {{'card': 1, 'row': 0, 'col': 0}}")
    unknown = [k for k in raw if k not in _PLACEMENT_KEYS]
    if unknown:
        raise ValueError(
            f"{where}: unknown key {unknown[0]!r} (allowed: {', '.join(_PLACEMENT_KEYS)})"
        )
    for key in ("card", "row", "col"):
        if key not in raw:
            raise ValueError(f"{where}: missing key {key!r}")
    card_id = _whole(raw["card"], f"{where}.card")
    card(card_id)  # unknown ids raise, naming the id
    row = _whole(raw["row"], f"{where}.row")
    col = _whole(raw["col"], f"{where}.col")
    if not (0 <= row <= grid.rows - 2):
        raise ValueError(f"{where}.row must be 0-{grid.rows - 2} (a card is 2 squares), got {row}")
    if not (0 <= col <= grid.cols - 2):
        raise ValueError(f"{where}.col must be 0-{grid.cols - 2} (a card is 2 squares), got {col}")
    degrees = _whole(raw.get("turn", 0), f"{where}.turn")
    if degrees not in TURNS:
        raise ValueError(f"{where}.turn must be 0, 90, 180 or 270, got {degrees}")
    return Placement(card_id, row, col, degrees)


def reserve_from_placements(
    placements: Sequence[Placement], *, grid: Layout | None = None
) -> Reserve:
    """The visible grid: quarters written in placement order, later cards on top.

    Raises ``ValueError`` when a card appears twice or a card after the first covers no
    square already in the reserve (the help text's placement rule).
    """
    grid = grid or layout()
    squares: list[Square | None] = [None] * grid.cell_count
    owner: list[int | None] = [None] * grid.cell_count
    seen: set[int] = set()
    for index, placement in enumerate(placements):
        if placement.card in seen:
            raise ValueError(f"placements[{index}]: card {placement.card} is already placed")
        seen.add(placement.card)
        cells = [
            (placement.row + dr) * grid.cols + placement.col + dc for dr in (0, 1) for dc in (0, 1)
        ]
        if index and all(squares[i] is None for i in cells):
            raise ValueError(
                f"placements[{index}]: card {placement.card} at "
                f"{grid.describe(placement.row, placement.col)} covers no square of the reserve"
                " (every card after the first must cover at least one)"
            )
        for i, square in zip(cells, turn(placement.card, placement.turn), strict=True):
            squares[i] = square
            owner[i] = index
    return Reserve(grid, tuple(squares), tuple(placements), tuple(owner))


def reserve_from_squares(rows: Any, *, grid: Layout | None = None) -> Reserve:
    """A reserve from up to ``grid.rows`` rows of up to ``grid.cols`` tokens."""
    grid = grid or layout()
    if not isinstance(rows, list):
        raise ValueError("squares must be a list of rows (lists of squares like 'W:cro' or '.')")
    if len(rows) > grid.rows:
        raise ValueError(f"squares has {len(rows)} rows; a reserve fits in {grid.rows}")
    squares: list[Square | None] = [None] * grid.cell_count
    for r, row in enumerate(rows):
        if not isinstance(row, list):
            raise ValueError(f"squares[{r}] must be a list of squares")
        if len(row) > grid.cols:
            raise ValueError(f"squares[{r}] has {len(row)} squares; a reserve fits in {grid.cols}")
        for c, token in enumerate(row):
            try:
                squares[r * grid.cols + c] = parse_square(token)
            except ValueError as error:
                raise ValueError(f"squares[{r}][{c}] ({grid.describe(r, c)}): {error}") from None
    return Reserve(grid, tuple(squares))


def reserve_from_document(document: Any, *, grid: Layout | None = None) -> Reserve:
    """A reserve from either document form; ``ValueError`` (one line) for anything wrong."""
    grid = grid or layout()
    if not isinstance(document, Mapping):
        raise ValueError('a reserve is an object with "placements" or "squares"')
    unknown = [k for k in document if k not in ("placements", "squares")]
    if unknown:
        raise ValueError(f"reserve: unknown key {unknown[0]!r} (allowed: placements, squares)")
    if ("placements" in document) == ("squares" in document):
        raise ValueError('a reserve has exactly one of "placements" or "squares"')
    if "squares" in document:
        return reserve_from_squares(document["squares"], grid=grid)
    raw = document["placements"]
    if not isinstance(raw, list):
        raise ValueError("placements must be a list of placements")
    placements = [parse_placement(p, i, grid) for i, p in enumerate(raw)]
    return reserve_from_placements(placements, grid=grid)


def legal_positions(reserve: Reserve) -> list[tuple[int, int]]:
    """Where the next card may go (its top-left square, 0-based): anywhere in the frame for the
    first card, else every position whose 2x2 footprint covers a square of the reserve."""
    grid = reserve.layout
    spots = [(r, c) for r in range(grid.rows - 1) for c in range(grid.cols - 1)]
    if reserve.occupied == 0:
        return spots
    return [
        (r, c)
        for r, c in spots
        if any(reserve.at(r + dr, c + dc) is not None for dr in (0, 1) for dc in (0, 1))
    ]
