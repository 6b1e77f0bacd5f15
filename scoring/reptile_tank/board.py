"""The terrarium: a grid of cell labels (card ids, ``water``, ``empty``) in a game's layout."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from scoring.layout import Layout
from scoring.reptile_tank.cards import CELL_LABELS, EMPTY

_KNOWN = frozenset(CELL_LABELS)


class BoardError(ValueError):
    """A board that does not fit its layout or holds an unknown label (the message names it)."""


def _default_layout() -> Layout:
    from scoring.reptile_tank.rules import (
        default_layout,  # the rules data's [grid]; never a constant here
    )

    return default_layout()


@dataclass(frozen=True)
class Board:
    """A player's terrarium, row 0 farthest from the owner, col 0 the owner's left.

    Attributes
    ----------
    rows : tuple of ``layout.rows`` tuples of ``layout.cols`` str
        Cell labels: the card ids of :mod:`scoring.reptile_tank.cards`, ``"water"`` or ``"empty"``.
    layout : Layout
        The grid the board is laid in (default: Reptile Tank's, from the rules data's
        ``[grid]``); the board is validated against it.
    """

    rows: tuple[tuple[str, ...], ...]
    layout: Layout = field(default=None, compare=True)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.layout is None:
            object.__setattr__(self, "layout", _default_layout())
        validate_rows(self.rows, self.layout)
        object.__setattr__(self, "rows", tuple(tuple(row) for row in self.rows))

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[str]], layout: Layout | None = None) -> Board:
        """A board from ``layout.rows`` sequences of ``layout.cols`` labels (validated)."""
        layout = layout or _default_layout()
        validate_rows(rows, layout)
        return cls(tuple(tuple(row) for row in rows), layout)

    @classmethod
    def from_json(cls, obj: Any, layout: Layout | None = None) -> Board:
        """A board from its JSON object ``{"rows": [[ids of one row], ...]}`` in ``layout``.

        Raises
        ------
        BoardError
            Not an object with ``rows``, wrong shape, or an unknown id (naming row and col).
        """
        if not isinstance(obj, dict) or "rows" not in obj:
            raise BoardError('a board must be a JSON object with a "rows" list')
        return cls.from_rows(obj["rows"], layout)

    @classmethod
    def empty(cls, layout: Layout | None = None) -> Board:
        layout = layout or _default_layout()
        return cls(tuple((EMPTY,) * layout.cols for _ in range(layout.rows)), layout)

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
        return Board.from_rows(rows, self.layout)

    def count(self, label: str) -> int:
        return sum(row.count(label) for row in self.rows)


def validate_rows(rows: Any, layout: Layout | None = None) -> None:
    """Raise :class:`BoardError` unless ``rows`` is ``layout``'s rows of columns of known labels.

    Positions in messages are 1-based, as players say them ("row 1, column 2").
    """
    layout = layout or _default_layout()
    n_rows, n_cols = layout.rows, layout.cols
    if not isinstance(rows, Sequence) or isinstance(rows, str) or len(rows) != n_rows:
        got = len(rows) if isinstance(rows, Sequence) and not isinstance(rows, str) else "no"
        raise BoardError(f"a board needs {n_rows} rows of {n_cols} cells, got {got} rows")
    for r, row in enumerate(rows):
        if not isinstance(row, Sequence) or isinstance(row, str) or len(row) != n_cols:
            got = len(row) if isinstance(row, Sequence) and not isinstance(row, str) else "no"
            raise BoardError(f"row {r + 1}: needs {n_cols} cells, got {got}")
        for c, label in enumerate(row):
            if not isinstance(label, str):
                raise BoardError(f"{Layout.describe(r, c)}: a cell must be a card id string")
            if label not in _KNOWN:
                guess = difflib.get_close_matches(label, CELL_LABELS, n=1, cutoff=0.6)
                hint = f" (did you mean {guess[0]!r}?)" if guess else ""
                raise BoardError(f"{Layout.describe(r, c)}: unknown card id {label!r}{hint}")
