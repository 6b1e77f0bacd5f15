"""A game's board layout as a value: how many rows and columns of cells, how big a cell is.

Nothing in the project may assume a grid size at import time: each game's rules data says its
layout (its ``Game.layout`` in :mod:`games`, read from the game's rules data) and the layout
travels as a value through boards, scoring, grid finding,
rectifying, the classifier, the reader and the UI.

Examples
--------
>>> terrarium = Layout(name="terrarium", rows=4, cols=5, cell_w_mm=63.0, cell_h_mm=88.0,
...                    cell_holds="card")
>>> terrarium.cell_count
20
>>> [pos for pos in terrarium.positions()][:2]
[(0, 0), (0, 1)]
>>> terrarium.describe(1, 2)
'row 2, column 3'
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

#: What one cell of a layout holds: a whole card (Reptile Tank) or one square of a card
#: (Nimalia's 2x2-square cards are read square by square).
CELL_HOLDS = ("card", "square")


@dataclass(frozen=True)
class Layout:
    """Rows x cols cells of ``cell_w_mm`` x ``cell_h_mm`` (portrait when h > w), 0-based."""

    name: str
    rows: int
    cols: int
    cell_w_mm: float
    cell_h_mm: float
    cell_holds: str = "card"
    #: Nominal gap between neighbouring cells (a player's spacing varies; grid finding fits it).
    gap_mm: float = 1.0

    def __post_init__(self) -> None:
        if self.rows < 1 or self.cols < 1:
            raise ValueError(
                f"a layout needs at least one row and column, got {self.rows}x{self.cols}"
            )
        if self.cell_w_mm <= 0 or self.cell_h_mm <= 0:
            raise ValueError("a layout's cell size must be positive")
        if self.cell_holds not in CELL_HOLDS:
            raise ValueError(f"cell_holds must be one of {CELL_HOLDS}, got {self.cell_holds!r}")

    @property
    def cell_count(self) -> int:
        return self.rows * self.cols

    @property
    def shape(self) -> tuple[int, int]:
        return (self.rows, self.cols)

    def positions(self) -> Iterator[tuple[int, int]]:
        """Every (row, col), row by row."""
        for r in range(self.rows):
            for c in range(self.cols):
                yield r, c

    def contains(self, row: int, col: int) -> bool:
        return 0 <= row < self.rows and 0 <= col < self.cols

    @staticmethod
    def describe(row: int, col: int) -> str:
        """A 0-based position as players say it: ``row 1, column 2`` (1-based)."""
        return f"row {row + 1}, column {col + 1}"
