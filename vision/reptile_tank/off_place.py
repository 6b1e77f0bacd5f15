"""A card laid off its place, read as the table (issue 28 items 3 and 4).

The grid is a lattice fitted to the whole board. A card laid by hand a centimetre off its place,
a corner card bent outwards by a wide lens at the frame's edge, a curled card whose lifted corner
leans out of its cell: the lattice's crop of that cell shows a strip of table and part of the
card, and the embedder may call it the table. Such a cell looks like the table only weakly: on
the stand-in deck's real-table development sets (seeds 4431-4433, 100 photos) the 106 empty
cells read as empty scored 0.94 or more as the table (the grid finder's occupancy included),
the 11 cards read as the table 0.48-0.74 (but for one board's lattice a whole column off, whose
cells are the table itself).

So a cell read as empty that scores under :data:`WEAK_TABLE` as the table is looked at again
around its place: crops of the same size moved by up to :data:`MAX_SHIFT` of the card's width
and height in the board's plane (:func:`vision.reptile_tank.grid.shifted_cell_crops`). When one
of them shows a face scoring at least the reader's card match, and more than that crop scores
as the table, the cell is read on the best such crop — always flagged for a check (the card is
not where the lattice puts it: the player confirms), never silently changed. A face that is
the one lying next to the cell in the shift's direction is not taken (the crop moved onto the
neighbour).

Cost: nothing on a board without such a cell; one embedding of :data:`SHIFTS` crops per cell
looked at (about 25 crops, ~60 ms on one core), and one more naming of the board's crops when a
card is found.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from scoring.reptile_tank.cards import EMPTY

#: A cell read as empty scoring under this as the table is looked at around its place.
WEAK_TABLE = 0.85
#: The moves tried, as shares of the card's (width, height): a 5 x 5 lattice up to
#: :data:`MAX_SHIFT`, the cell's own place left out.
MAX_SHIFT = (0.3, 0.2)
SHIFTS = tuple(
    (MAX_SHIFT[0] * i / 2, MAX_SHIFT[1] * j / 2)
    for j in (-2, -1, 0, 1, 2)
    for i in (-2, -1, 0, 1, 2)
    if (i, j) != (0, 0)
)


@dataclass(frozen=True)
class OffPlace:
    """What :func:`cards_off_their_place` did.

    Attributes
    ----------
    looked_at : (rows, cols) bool
        The cells read as empty that looked like the table only weakly (:data:`WEAK_TABLE`).
    found : (rows, cols) bool
        Those read again as a card found beside the cell's place (to be flagged).
    shifts : dict (row, col) -> (dx, dy)
        The move (shares of the card's width and height) each found card was read at.
    """

    looked_at: np.ndarray
    found: np.ndarray
    shifts: dict


def _neighbour(labels, r: int, c: int, dx: float, dy: float) -> str:
    """The label of the cell next to ``(r, c)`` in a move's main direction (``empty`` off the
    board)."""
    rows, cols = len(labels), len(labels[0])
    if abs(dx) >= abs(dy):
        r2, c2 = r, c + (1 if dx > 0 else -1)
    else:
        r2, c2 = r + (1 if dy > 0 else -1), c
    if 0 <= r2 < rows and 0 <= c2 < cols:
        return labels[r2][c2]
    return EMPTY


def cards_off_their_place(
    crops: np.ndarray,
    reads,
    shifted_crops: Callable[[int, int, list[tuple[float, float]]], np.ndarray],
    scores: Callable[[np.ndarray], tuple[tuple[str, ...], np.ndarray]],
    classify: Callable[[np.ndarray], object],
    card_match: float,
):
    """``(crops, reads, OffPlace)``: the board's crops with every card found beside its place
    (see the module docstring) cut where it was found, and the reads of those crops.

    Parameters
    ----------
    crops : (rows, cols, h, w, 3) uint8
        The lattice's crops.
    reads : vision.reptile_tank.classifier.CellReads
        Their reads.
    shifted_crops : callable
        ``(row, col, moves) -> (len(moves), h, w, 3)``: the cell's crops moved by each
        ``(dx, dy)`` (shares of the card's width and height, in the board's plane).
    scores : callable
        ``crops -> (labels, (N, labels) scores)``: each crop's best score per label (upright or
        turned, as the reader names a cell).
    classify : callable
        ``crops -> CellReads``: the reader's naming of a board's crops (deck limits included).
    card_match : float
        The score from which a crop is explained as a card (the reader's card match).
    """
    rows, cols = crops.shape[:2]
    looked_at = np.zeros((rows, cols), bool)
    found = np.zeros((rows, cols), bool)
    shifts: dict = {}
    seen: dict = {}  # (row, col) -> the face found beside the place
    labels = [[cell.label for cell in row] for row in reads.cells]
    for r, c in np.ndindex(rows, cols):
        cell = reads.cells[r][c]
        looked_at[r, c] = cell.label == EMPTY and cell.score < WEAK_TABLE
    if not looked_at.any():
        return crops, reads, OffPlace(looked_at, found, shifts)
    trial = crops.copy()
    for r, c in zip(*np.nonzero(looked_at), strict=True):
        moved = shifted_crops(int(r), int(c), list(SHIFTS))
        names, table = scores(moved)
        empty = names.index(EMPTY) if EMPTY in names else None
        best = None
        for k, (dx, dy) in enumerate(SHIFTS):
            row = table[k]
            faces = [(float(s), lab) for lab, s in zip(names, row, strict=True) if lab != EMPTY]
            if not faces:
                continue
            score, label = max(faces)
            as_table = float(row[empty]) if empty is not None else -1.0
            if score < card_match or score <= as_table:
                continue
            if label == _neighbour(labels, int(r), int(c), dx, dy):
                continue
            if best is None or score > best[0]:
                best = (score, k, label)
        if best is not None:
            trial[r, c] = moved[best[1]]
            found[r, c] = True
            shifts[(int(r), int(c))] = SHIFTS[best[1]]
            seen[(int(r), int(c))] = best[2]
    if not found.any():
        return crops, reads, OffPlace(looked_at, found, shifts)
    new_reads = classify(trial)
    # a cell the board's naming (the deck's limits, the star cards out) does not name as the
    # face found there stays as it was read, and is not flagged for it
    kept = found & np.array(
        [[cell.label == seen.get((r, c)) for c, cell in enumerate(row)]
         for r, row in enumerate(new_reads.cells)]
    )  # fmt: skip
    if not kept.any():
        return crops, reads, OffPlace(looked_at, kept, {})
    final = crops.copy()
    final[kept] = trial[kept]
    final_reads = new_reads if (kept == found).all() else classify(final)
    kept_shifts = {place: move for place, move in shifts.items() if kept[place]}
    return final, final_reads, OffPlace(looked_at, kept, kept_shifts)
