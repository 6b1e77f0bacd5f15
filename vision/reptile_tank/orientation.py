"""Which way is up: the cards' rotations vote for the board's upright direction.

The grid finder returns the layout's lattice with row 0 at the top of the photo's cell order;
since the lattice has the layout's shape (portrait cards) the only doubt left is 0° versus 180°.
Every card front votes with
how much better it matches its face upright than turned 180°; the Water back (many real decks print
a symmetric back) and empty cells abstain. A board with no front (all Water or empty), or a tied
vote, is reported as ambiguous and kept as photographed. Once upright, row 0 is the row farthest
from the owner.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from scoring.reptile_tank.cards import EMPTY, WATER
from vision.reptile_tank.classifier import CellReads

#: Votes whose upright-vs-turned margin is below this (cosine units) count as abstentions.
MIN_VOTE_MARGIN = 0.02


@dataclass(frozen=True)
class Orientation:
    """The board's upright direction relative to the photo's cell order.

    Attributes
    ----------
    rotation : int
        0 when the photo's row 0 is already the far row; 180 when the board is upside down.
    votes_upright, votes_turned : int
        Card fronts that read upright (0°) and turned (180°) in the photo's cell order.
    margin : float
        Sum of the signed per-card margins (positive = upright).
    ambiguous : bool
        No front voted or the vote tied: the photo's orientation is kept.
    """

    rotation: int
    votes_upright: int
    votes_turned: int
    margin: float
    ambiguous: bool

    def to_json(self) -> dict:
        return {
            "rotation": self.rotation,
            "votes_upright": self.votes_upright,
            "votes_turned": self.votes_turned,
            "margin": round(self.margin, 4),
            "ambiguous": self.ambiguous,
        }


def vote_orientation(reads: CellReads) -> Orientation:
    """Let every card front vote for 0° or 180°.

    Parameters
    ----------
    reads : CellReads
        The cells as read in the photo's cell order.

    Returns
    -------
    Orientation
    """
    up = turned = 0
    total = 0.0
    for r, row in enumerate(reads.cells):
        for c, cell in enumerate(row):
            if cell.label in (EMPTY, WATER):
                continue
            li = reads.labels.index(cell.label)
            scores = reads.rotation_scores[r, c, li]
            delta = float(scores[0] - scores[2])
            if not np.isfinite(delta) or abs(delta) < MIN_VOTE_MARGIN:
                continue
            total += delta
            if delta > 0:
                up += 1
            else:
                turned += 1
    ambiguous = up == turned or (up + turned) == 0
    if ambiguous:
        rotation = 0
    else:
        rotation = 0 if up > turned else 180
    return Orientation(rotation, up, turned, total, ambiguous)


def turn_reads(reads: CellReads) -> CellReads:
    """The same reads for the board turned 180°: cell (r, c) ↔ (3 − r, 4 − c), rotations + 180°."""
    cells = [
        [replace(cell, rotation=(cell.rotation + 180) % 360) for cell in reversed(row)]
        for row in reversed(reads.cells)
    ]
    rot = reads.rotation_scores[::-1, ::-1][..., [2, 3, 0, 1]]
    return CellReads(
        cells=cells,
        labels=reads.labels,
        label_scores=np.ascontiguousarray(reads.label_scores[::-1, ::-1]),
        rotation_scores=np.ascontiguousarray(rot),
    )


def turn_crops(crops: np.ndarray) -> np.ndarray:
    """(4, 5, H, W, 3) crops of the board turned 180°: cells reversed, each crop turned 180°."""
    return np.ascontiguousarray(crops[::-1, ::-1, ::-1, ::-1])
