"""Cards laid by hand, cut by their own outline (issue 28 item 3).

The grid is a lattice: every cell is where a card *should* lie. At a real table cards are laid by
hand, a few degrees turned and a few millimetres off their place, so the lattice's cell cuts a
strip of table or of the neighbour into the crop and leaves part of the card out. For the final
grid of a read, every cell read as a card whose own outline is found (a card-shaped quad whose
centre lies in the cell, of a card's size: :func:`vision.reptile_tank.enrol.find_loose_cards`)
lying off the cell by more than :data:`MIN_OFFSET` of the cell's width is cut again along that
outline.
Recognition judges: the new cut is kept only when the cell's best score (its similarity to the
nearest prototype of any label) is higher than the lattice cut's, so a wrong outline (two
touching cards taken for one, a card and its shadow) costs nothing but the time.

Cost: the outline search (~50-150 ms CPU on a 2016 × 1512 photo) and, when a cell lies off its
place, one more embedding of the board's crops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from scoring.reptile_tank.cards import EMPTY
from vision.reptile_tank.enrol import cut_card, find_loose_cards, outline_in_cell

#: Smallest offset of a card's own outline from its cell (largest corner distance, share of the
#: cell's width) that is worth a second cut; below it the lattice's cut is the card's.
MIN_OFFSET = 0.04


@dataclass(frozen=True)
class Recut:
    """The cells cut again along their own outline.

    Attributes
    ----------
    tried : (rows, cols) bool
        A cell read as a card whose own outline lies off it by at least :data:`MIN_OFFSET`.
    kept : (rows, cols) bool
        Those whose new cut recognition preferred (their crop is the new cut).
    """

    tried: np.ndarray
    kept: np.ndarray


def _offset(own: np.ndarray, cell: np.ndarray) -> float:
    width = float(np.linalg.norm(cell[1] - cell[0]) + np.linalg.norm(cell[2] - cell[3])) / 2
    return float(np.linalg.norm(own - cell, axis=1).max()) / max(width, 1e-9)


def recut_by_own_outline(
    rgb: np.ndarray,
    cell_quads: np.ndarray,
    crops: np.ndarray,
    reads,
    classify: Callable[[np.ndarray], object],
):
    """``(crops, reads, Recut)``: the board's crops with every card lying off its cell cut along
    its own outline where recognition prefers it, and the reads of those crops.

    Parameters
    ----------
    rgb : (H, W, 3) uint8 RGB
        The photo the grid was found in.
    cell_quads : (rows, cols, 4, 2)
        The grid's cells in ``rgb`` (TL, TR, BR, BL in the crops' orientation).
    crops : (rows, cols, h, w, 3) uint8
        The lattice's crops of those cells.
    reads : vision.reptile_tank.classifier.CellReads
        Their reads.
    classify : callable
        ``crops -> CellReads``: the reader's own naming of a board's crops (deck limits included).
    """
    rows, cols = crops.shape[:2]
    size = (crops.shape[3], crops.shape[2])
    tried = np.zeros((rows, cols), bool)
    kept = np.zeros((rows, cols), bool)
    occupied = [(r, c) for r, c in np.ndindex(rows, cols) if reads.cells[r][c].label != EMPTY]
    if not occupied:
        return crops, reads, Recut(tried, kept)
    outlines = find_loose_cards(rgb, group=False)
    if not outlines:
        return crops, reads, Recut(tried, kept)
    trial = crops.copy()
    for r, c in occupied:
        own = outline_in_cell(cell_quads[r, c], outlines)
        if own is None or _offset(own, cell_quads[r, c]) < MIN_OFFSET:
            continue
        trial[r, c] = cut_card(rgb, own, size)
        tried[r, c] = True
    if not tried.any():
        return crops, reads, Recut(tried, kept)
    trial_reads = classify(trial)
    before = reads.label_scores.max(axis=2)
    after = trial_reads.label_scores.max(axis=2)
    kept = tried & (after > before)
    if not kept.any():
        return crops, reads, Recut(tried, kept)
    if (kept == tried).all():
        return trial, trial_reads, Recut(tried, kept)
    final = crops.copy()
    final[kept] = trial[kept]
    return final, classify(final), Recut(tried, kept)
