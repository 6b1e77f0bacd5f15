"""What a Nimalia reserve read returns (:class:`ReserveRead`, one :class:`SquareRead` per
cell) and the summaries the reader ranks reads by.

Split out of :mod:`vision.nimalia.reader` (no behaviour change).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scoring.nimalia.cards import EMPTY
from vision.nimalia.lattice import (
    Lattice,
)


@dataclass(frozen=True)
class SquareRead:
    """One cell: its token, confidence (the head's probability margin to the next kind for a
    square, the cosine margin to the nearest square for a table cell), its check flag, the best
    classes, and how clearly it is a square rather than table (cosine margin)."""

    token: str
    confidence: float
    check: bool
    top: tuple[tuple[str, float], ...]
    table_margin: float = 1.0

    def to_json(self) -> dict:
        return {"token": self.token, "confidence": round(self.confidence, 4), "check": self.check}


@dataclass
class ReserveRead:
    """What :func:`read_reserve` returns (see the module docstring)."""

    squares: list[list[str]]
    cells: list[list[SquareRead]]
    needs_check: bool
    reasons: list[str]
    lattice: Lattice | None
    origin: tuple[int, int] = (0, 0)
    timings_ms: dict[str, float] = field(default_factory=dict)
    #: the read itself is in doubt: no squares or at most :data:`MIN_SQUARES`, many of them
    #: checked, in two patches, over 6 x 6, or matching the deck poorly (the reader then runs
    #: its wider search, :meth:`ReserveReader.read`)
    doubtful: bool = False

    @property
    def found(self) -> bool:
        return self.lattice is not None and bool(self.squares)

    @property
    def lattice_quads(self) -> list[list[list[list[float]]]]:
        """Image corners TL, TR, BR, BL of every square of :attr:`squares` (for overlays)."""
        if self.lattice is None:
            return []
        r0, c0 = self.origin
        return [
            [self.lattice.cell_quad(r0 + r, c0 + c).round(1).tolist() for c in range(len(row))]
            for r, row in enumerate(self.squares)
        ]

    def to_json(self) -> dict:
        return {
            "squares": self.squares,
            "needs_check": self.needs_check,
            "reasons": self.reasons,
            "cells": [[c.to_json() for c in row] for row in self.cells],
            "lattice": self.lattice_quads,
        }


def table_margins(cosine: np.ndarray) -> np.ndarray:
    """How clearly each cell is (or is not) table, in cosine units: the gap between its cosine
    to the table and to the nearest kind (the classes on the last axis, table last)."""
    return np.abs(cosine[..., -1] - cosine[..., :-1].max(-1))


def squares_read(read: ReserveRead) -> int:
    return sum(t != EMPTY for row in read.squares for t in row)


def checked_cells(read: ReserveRead) -> int:
    return sum(c.check for row in read.cells for c in row)


def deck_match(read: ReserveRead) -> float:
    """Median kind probability of the read's squares."""
    top = [c.top[0][1] for row in read.cells for c in row if c.token != EMPTY]
    return float(np.median(top)) if top else 0.0


def checked_share(read: ReserveRead) -> float:
    """Share of the read's squares whose check flag is on."""
    flags = [c.check for row in read.cells for c in row if c.token != EMPTY]
    return float(np.mean(flags)) if flags else 1.0
