"""Which cells of a read hold a square: whole cards, stray and enclosed squares, pale
edges (the reserve's extent fitted to the cards it must be made of).

Split out of :mod:`vision.nimalia.reader` (no behaviour change).
"""

from __future__ import annotations

import cv2
import numpy as np

from scoring.nimalia.cards import EMPTY
from vision.nimalia.checks import (
    COMPLETE_MAX_MARGIN,
    EDGE_TABLE_MIN,
    FG_WEIGHT,
    MIN_SQUARES,
    PHOTO_TABLE_MIN,
)
from vision.nimalia.gallery import (
    CLASSES,
)


def apart_squares(occupied: np.ndarray) -> np.ndarray:
    """Squares read apart from the reserve (``(rows, cols)`` bool): every patch (4-neighbours)
    but the largest, when the largest holds more than one card's worth and at least twice as
    many squares as all the others, and none of them touches it, not even at a corner.

    A reserve is one patch (every card after the first covers a square already there); a
    stray card, another player's card or a glare read as squares a cell or more away is not
    part of it. Patches of like size (a lattice at half the pitch across reads a column of half
    squares as table between columns of squares) or touching at a corner are left for the
    doubt test."""
    n, labels = cv2.connectedComponents(occupied.astype(np.uint8), connectivity=4)
    if n <= 2:
        return np.zeros_like(occupied)
    sizes = np.bincount(labels.ravel(), minlength=n)[1:]
    main = int(sizes.argmax()) + 1
    rest = int(sizes.sum() - sizes.max())
    near = cv2.dilate((labels == main).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    others = occupied & (labels != main)
    if sizes.max() <= MIN_SQUARES or sizes.max() < 2 * rest or (near & others).any():
        return np.zeros_like(occupied)
    return others


def one_kind_block(squares: list[list[str]]) -> bool:
    """Whether some 2 x 2 block of the read holds four squares of one kind."""
    g = np.array(squares)
    if g.ndim != 2 or min(g.shape) < 2:
        return False
    a = g[:-1, :-1]
    return bool(((a == g[1:, :-1]) & (a == g[:-1, 1:]) & (a == g[1:, 1:]) & (a != EMPTY)).any())


def n_patches(occupied: np.ndarray) -> int:
    """How many 4-connected patches the occupied cells form."""
    n, _ = cv2.connectedComponents(occupied.astype(np.uint8), connectivity=4)
    return n - 1


def _whole_cards(occupied: np.ndarray) -> np.ndarray:
    """Cells in some 2 x 2 block of occupied cells (``(rows, cols)``): where a card can lie."""
    block = occupied[:-1, :-1] & occupied[1:, :-1] & occupied[:-1, 1:] & occupied[1:, 1:]
    covered = np.zeros_like(occupied)
    for dr in (0, 1):
        for dc in (0, 1):
            covered[dr : dr + block.shape[0], dc : dc + block.shape[1]] |= block
    return covered


def stray_squares(occupied: np.ndarray) -> np.ndarray:
    """Squares in no 2 x 2 block of squares (``(rows, cols)``). Every visible square is a
    quarter of some card and every quarter of a card is visible (a later card covers it with
    one of its own), so the squares of a reserve are a union of 2 x 2 blocks: a stray square is
    a square missed beside it (read as table) or a cell wrongly read as a square."""
    return occupied & ~_whole_cards(occupied)


def _blocks_holding(r: int, c: int, shape: tuple[int, ...]) -> list[tuple[int, int]]:
    """Top-left cells of the 2 x 2 blocks inside a ``shape`` grid that hold cell ``(r, c)``."""
    rows, cols = shape[:2]
    return [
        (r0, c0)
        for r0 in (r - 1, r)
        for c0 in (c - 1, c)
        if 0 <= r0 < rows - 1 and 0 <= c0 < cols - 1
    ]


def complete_cards(occupied: np.ndarray, empty_margin: np.ndarray) -> np.ndarray:
    """Table cells to read as squares (``(rows, cols)``): the one table cell of a 2 x 2 block
    whose other three cells are squares and hold a stray square (:func:`stray_squares`), when it is
    not clearly table (``empty_margin`` under :data:`COMPLETE_MAX_MARGIN`). Where several such
    cells would do, the least clearly table goes first; blocks are completed until none is
    left. A square close to the table's colour is missed this way and the card it belongs to
    says where it is."""
    occupied = occupied.copy()
    completed = np.zeros_like(occupied)
    while True:
        options = set()
        for r, c in zip(*np.nonzero(stray_squares(occupied)), strict=True):
            for r0, c0 in _blocks_holding(r, c, occupied.shape):
                hole = np.argwhere(~occupied[r0 : r0 + 2, c0 : c0 + 2])
                if len(hole) == 1:
                    options.add((r0 + int(hole[0][0]), c0 + int(hole[0][1])))
        options = {o for o in options if empty_margin[o] < COMPLETE_MAX_MARGIN}
        if not options:
            return completed
        best = min(options, key=lambda o: (empty_margin[o], o))
        occupied[best] = completed[best] = True


def unfinished_cards(occupied: np.ndarray, stray: np.ndarray) -> np.ndarray:
    """Table cells that would put a stray square in a whole card (``(rows, cols)``): those of
    the 2 x 2 blocks holding it with the fewest table cells."""
    flags = np.zeros_like(occupied)
    for r, c in zip(*np.nonzero(stray), strict=True):
        blocks = [
            (int((~occupied[r0 : r0 + 2, c0 : c0 + 2]).sum()), r0, c0)
            for r0, c0 in _blocks_holding(r, c, occupied.shape)
        ]
        if not blocks:
            continue
        fewest = min(b[0] for b in blocks)
        for n, r0, c0 in blocks:
            if n == fewest:
                flags[r0 : r0 + 2, c0 : c0 + 2] |= ~occupied[r0 : r0 + 2, c0 : c0 + 2]
    return flags


def enclosed_cells(occupied: np.ndarray) -> np.ndarray:
    """Table cells whose four neighbours all hold squares (``(rows, cols)``): a one-square hole
    is rare in play (a card must be laid around it on every side), a square missed as table
    inside the reserve is not, so such a cell is checked."""
    occ = np.pad(occupied, 1)
    around = occ[:-2, 1:-1] & occ[2:, 1:-1] & occ[1:-1, :-2] & occ[1:-1, 2:]
    return ~occupied & around


def pale_edge_cells(
    cosine: np.ndarray,
    occupied: np.ndarray,
    fg: np.ndarray,
    photo_table: np.ndarray | None = None,
) -> np.ndarray:
    """Table cells beside a square that match the table prototypes poorly (``(rows, cols)``).

    A square close to the table's colour (white ice on a light table) is missed by the table
    model and can then read as table with a clear margin; it still matches the table's
    prototypes worse than the table does (cosine without the foreground nudge under
    :data:`EDGE_TABLE_MIN`), or this photo's own table worse than the table does
    (``photo_table`` under :data:`PHOTO_TABLE_MIN`, see :meth:`ReserveReader._photo_table`),
    so such a cell is checked.
    """
    empty = len(CLASSES) - 1
    table = cosine[..., empty] - FG_WEIGHT * (0.5 - fg)
    rows, cols = occupied.shape
    occ = np.pad(occupied, 1)
    near = np.zeros_like(occupied)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if dr or dc:
                near |= occ[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols]
    unlike = table < EDGE_TABLE_MIN
    if photo_table is not None:
        unlike |= photo_table < PHOTO_TABLE_MIN
    return ~occupied & near & unlike


#: A table cell beside a square is checked when its table cosine (without the foreground nudge)
#: is under this: calibrated on dev + fresh stand-in seeds 400000-400079 and fresh variant-style
#: seeds 500000-500059 (the smallest value catching every such missed square there, + a guard).
