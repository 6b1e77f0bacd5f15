"""The terrarium: a 4x5 grid of cell labels (card ids, ``water``, ``empty``)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.cards import CELL_LABELS, COLS, EMPTY, ROWS

_KNOWN = frozenset(CELL_LABELS)


class BoardError(ValueError):
    """A board that is not 4 rows of 5 known cell labels; the message names the cell."""


@dataclass(frozen=True)
class Board:
    """A player's terrarium, row 0 farthest from the owner, col 0 the owner's left.

    Attributes
    ----------
    rows : tuple of 4 tuples of 5 str
        Cell labels: the card ids of :mod:`scoring.cards`, ``"water"`` or ``"empty"``.
    """

    rows: tuple[tuple[str, ...], ...]

    def __post_init__(self) -> None:
        validate_rows(self.rows)
        object.__setattr__(self, "rows", tuple(tuple(row) for row in self.rows))

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[str]]) -> Board:
        """A board from 4 sequences of 5 labels (validated)."""
        validate_rows(rows)
        return cls(tuple(tuple(row) for row in rows))

    @classmethod
    def from_json(cls, obj: Any) -> Board:
        """A board from its JSON object ``{"rows": [[...5 ids], ...4 rows]}``.

        Raises
        ------
        BoardError
            Not an object with ``rows``, wrong shape, or an unknown id (naming row and col).
        """
        if not isinstance(obj, dict) or "rows" not in obj:
            raise BoardError('a board must be a JSON object with a "rows" list')
        return cls.from_rows(obj["rows"])

    @classmethod
    def empty(cls) -> Board:
        return cls(tuple((EMPTY,) * COLS for _ in range(ROWS)))

    def to_json(self) -> dict[str, list[list[str]]]:
        return {"rows": [list(row) for row in self.rows]}

    def __getitem__(self, cell: tuple[int, int]) -> str:
        row, col = cell
        return self.rows[row][col]

    def cells(self) -> Iterator[tuple[tuple[int, int], str]]:
        """Every ``((row, col), label)`` in row-major order."""
        for r, row in enumerate(self.rows):
            for c, label in enumerate(row):
                yield (r, c), label

    def replace(self, cell: tuple[int, int], label: str) -> Board:
        """A copy with one cell changed."""
        rows = [list(row) for row in self.rows]
        rows[cell[0]][cell[1]] = label
        return Board.from_rows(rows)

    def count(self, label: str) -> int:
        return sum(row.count(label) for row in self.rows)


def validate_rows(rows: Any) -> None:
    """Raise :class:`BoardError` unless ``rows`` is 4 rows of 5 known labels."""
    if not isinstance(rows, Sequence) or isinstance(rows, str) or len(rows) != ROWS:
        got = len(rows) if isinstance(rows, Sequence) and not isinstance(rows, str) else "no"
        raise BoardError(f"a board needs {ROWS} rows of {COLS} cells, got {got} rows")
    for r, row in enumerate(rows):
        if not isinstance(row, Sequence) or isinstance(row, str) or len(row) != COLS:
            got = len(row) if isinstance(row, Sequence) and not isinstance(row, str) else "no"
            raise BoardError(f"row {r}: needs {COLS} cells, got {got}")
        for c, label in enumerate(row):
            if not isinstance(label, str):
                raise BoardError(f"row {r}, col {c}: a cell must be a card id string")
            if label not in _KNOWN:
                raise BoardError(f"row {r}, col {c}: unknown card id {label!r}")
