"""From a lattice's per-cell scores to a read: square or table, the kind, the checks.

Split out of :mod:`vision.nimalia.reader` (no behaviour change).
"""

from __future__ import annotations

import numpy as np

from scoring.nimalia.cards import EMPTY
from vision.nimalia.checks import (
    CHECK_EMPTY_MARGIN,
    CHECK_MARGIN,
    CHECK_TABLE_MARGIN,
    DOUBT_CHECKED_SHARE,
    FAINT_FG,
    FAINT_SQUARE,
    LATTICE_MIN_MEDIAN,
    LIKE_TABLE_MARGIN,
    MAX_SIDE,
    MIN_SQUARES,
    MISSED_SQUARE,
    PHOTO_TABLE_LEAD,
    PHOTO_TABLE_SQUARE_MAX,
    SCORE_COLUMNS,
    SQUARE_OUTLIER_MARGIN,
    TRIM_SQUARES_MAX,
)
from vision.nimalia.extent import (
    apart_squares,
    complete_cards,
    enclosed_cells,
    n_patches,
    one_kind_block,
    pale_edge_cells,
    stray_squares,
    unfinished_cards,
)
from vision.nimalia.gallery import (
    CLASSES,
)
from vision.nimalia.lattice import (
    Lattice,
)
from vision.nimalia.result import (
    ReserveRead,
    SquareRead,
    table_margins,
)


def decide(both: np.ndarray, lat: Lattice, photo_table: np.ndarray | None = None) -> ReserveRead:
    """Square or table from the nearest prototypes (cosine: a table the head never saw is still
    nearer the table prototypes than any square); the kind from the head's probabilities over
    the 14 kinds; the lattice doubt from the cosine similarities."""
    rows, cols = lat.rows, lat.cols
    both = both.reshape(rows, cols, -1)
    cosine, prob = both[..., : len(CLASSES)], both[..., len(CLASSES) : SCORE_COLUMNS]
    empty = len(CLASSES) - 1
    occupied = cosine.argmax(-1) != empty
    # how clearly a cell is (or is not) table, in cosine units
    empty_margin = table_margins(cosine)
    # each cell's cosine to its nearest kind
    kind_cos = cosine[..., :empty].max(-1)
    reasons: list[str] = []
    # a weak square just like this photo's own table (its grain, a glare on it) is table
    like_table = np.zeros_like(occupied)
    if photo_table is not None:
        # or one that looks clearly more like this photo's table than like any kind (a table
        # whose pattern reads weakly as some square all round the reserve)
        like = (photo_table >= PHOTO_TABLE_SQUARE_MAX) | (photo_table > kind_cos + PHOTO_TABLE_LEAD)
        like_table = occupied & like & (empty_margin < LIKE_TABLE_MARGIN)
        if like_table.any():
            occupied = occupied & ~like_table
            reasons.append("a cell read as a square looks just like this photo's table")
    # a square far under the read's typical match where the table model sees no card at all is
    # table: a blotchy table read weakly as some kind beside the reserve (fresh painted seed
    # 1200042: two rows of a purple-on-green table read as squares, 0.17-0.20 under)
    faint = occupied & (lat.foreground < FAINT_FG)
    if faint.any():
        faint &= kind_cos < float(np.median(kind_cos[occupied])) - SQUARE_OUTLIER_MARGIN
    if faint.any():
        occupied = occupied & ~faint
        like_table = like_table | faint
        reasons.append(FAINT_SQUARE)
    # the visible squares are whole cards (2 x 2 blocks): a card's square read as table leaves
    # its other squares in no whole card
    completed = complete_cards(occupied, np.where(like_table, np.inf, empty_margin))
    if completed.any():
        occupied = occupied | completed
        reasons.append("a square read as table completes a card")
    apart = apart_squares(occupied)
    if apart.any():
        occupied = occupied & ~apart
        completed = completed & ~apart
        reasons.append("squares apart from the reserve were left out")
    stray = stray_squares(occupied)
    kinds = prob[..., :empty] / np.maximum(prob[..., :empty].sum(-1, keepdims=True), 1e-9)
    scores = np.concatenate([kinds, np.zeros(kinds.shape[:2] + (1,), kinds.dtype)], -1)
    scores[~occupied] = 0.0
    scores[~occupied, empty] = 1.0
    if not occupied.any():
        return ReserveRead([], [], True, ["no squares recognised"], lat, doubtful=True)
    rr = np.where(occupied.any(1))[0]
    cc = np.where(occupied.any(0))[0]
    r0, r1, c0, c1 = int(rr[0]), int(rr[-1]) + 1, int(cc[0]), int(cc[-1]) + 1
    # more than 6 x 6: drop the weakest outer row/column (the reserve fits 6 x 6)
    top = cosine.max(-1)
    oversized = r1 - r0 > MAX_SIDE or c1 - c0 > MAX_SIDE
    before_trim = int(occupied.sum())
    while r1 - r0 > MAX_SIDE or c1 - c0 > MAX_SIDE:
        reasons.append("the squares found span more than 6 x 6")
        options = []
        if r1 - r0 > MAX_SIDE:
            options += [
                (top[r0, c0:c1][occupied[r0, c0:c1]].sum(), "r0"),
                (top[r1 - 1, c0:c1][occupied[r1 - 1, c0:c1]].sum(), "r1"),
            ]
        if c1 - c0 > MAX_SIDE:
            options += [
                (top[r0:r1, c0][occupied[r0:r1, c0]].sum(), "c0"),
                (top[r0:r1, c1 - 1][occupied[r0:r1, c1 - 1]].sum(), "c1"),
            ]
        _, which = min(options)
        if which == "r0":
            r0 += 1
        elif which == "r1":
            r1 -= 1
        elif which == "c0":
            c0 += 1
        else:
            c1 -= 1
    pale_edge = pale_edge_cells(cosine, occupied, lat.foreground, photo_table)
    # how well each square matches its nearest kind, against the read's typical square (this
    # photo's light, blur and deck): a square far under it is an outlier (a glare or a shadow on
    # it), whatever the head says
    in_read = kind_cos[r0:r1, c0:c1][occupied[r0:r1, c0:c1]]
    typical = float(np.median(in_read)) if in_read.size else 0.0
    outlier = kind_cos < typical - SQUARE_OUTLIER_MARGIN
    # the head names a kind the nearest prototype does not: the two ways of naming the square
    # disagree (fresh painted seed 1160045: a lion under a glare, nearest the lion's
    # prototypes, the head 0.95 sure of a giraffe)
    disputed = cosine[..., :empty].argmax(-1) != prob[..., :empty].argmax(-1)
    enclosed = enclosed_cells(occupied)
    unfinished = unfinished_cards(occupied, stray)
    squares, cells = [], []
    for r in range(r0, r1):
        row_t, row_c = [], []
        for c in range(c0, c1):
            s = scores[r, c]
            order = np.argsort(-s)
            k = int(order[0])
            if occupied[r, c]:
                margin = float(s[k] - s[order[1]])
                check = (
                    margin < CHECK_MARGIN
                    or empty_margin[r, c] < CHECK_EMPTY_MARGIN
                    or bool(completed[r, c])
                    or bool(stray[r, c])
                    or bool(outlier[r, c])
                    or bool(disputed[r, c])
                    # more like this photo's table than like its own kind (a blotch of the
                    # table's pattern read as a pale square; right squares of fresh seeds
                    # stayed 0.056 or more under, in cosine)
                    or (photo_table is not None and photo_table[r, c] > cosine[r, c, k])
                )
            else:
                margin = float(empty_margin[r, c])
                check = (
                    margin < CHECK_TABLE_MARGIN
                    or bool(pale_edge[r, c])
                    or bool(enclosed[r, c])
                    or bool(unfinished[r, c])
                    or bool(like_table[r, c])
                )
                order = np.argsort(-cosine[r, c])
                s = cosine[r, c]
            row_t.append(CLASSES[k])
            row_c.append(
                SquareRead(
                    CLASSES[k],
                    margin,
                    bool(check),
                    tuple((CLASSES[j], float(s[j])) for j in order[:4]),
                    float(empty_margin[r, c]),
                )
            )
        squares.append(row_t)
        cells.append(row_c)
    if any(c.check for row in cells for c in row):
        reasons.append("some squares are uncertain")
    outside = pale_edge.copy()
    outside[r0:r1, c0:c1] = False
    if outside.any():
        # beside the squares read, a cell that may be a square missed as table: the reserve
        # may be larger than read
        reasons.append(MISSED_SQUARE)
    # a reserve is at least 3 cards: one card's worth of squares is most likely a stray card or a
    # part of the reserve (it happens in play only when cards were stacked exactly)
    n_squares = sum(t != EMPTY for row in squares for t in row)
    if n_squares <= MIN_SQUARES:
        reasons.append("only one card's worth of squares was read")
    # squares completed from their cards are checked for the player, but say nothing about the
    # lattice: the doubt is judged on the squares recognised
    recognised = (occupied & ~completed)[r0:r1, c0:c1]
    n_recognised = int(recognised.sum())
    # a wrong lattice gives squares that match nothing well
    occ_scores = cosine.max(-1)[r0:r1, c0:c1][recognised]
    n_checked = sum(cells[r][c].check for r, c in zip(*np.nonzero(recognised), strict=True))
    # squares beyond 6 x 6 put the lattice in doubt (at a wrong pitch it spans far more), unless
    # the lines left out hold at most half a card (a glare or a stray card's corner beside the
    # reserve) and every square kept is read clearly
    trimmed = before_trim - int(occupied[r0:r1, c0:c1].sum())
    oversized = oversized and (trimmed > TRIM_SQUARES_MAX or n_checked > 0)
    # few squares, or many of them uncertain (a lattice at a wrong pitch cuts parts of squares
    # that look like some kind, rarely clearly one): the read itself is in doubt
    doubtful = (
        n_squares <= MIN_SQUARES or n_checked >= DOUBT_CHECKED_SHARE * n_recognised or oversized
    )
    # every card after the first covers a square already there: a reserve is one patch of
    # squares (4-neighbours); squares read in two or more patches come from a lattice at a
    # wrong pitch or phase (a column of half squares read as table), or take in a stray card
    if n_squares and n_patches(occupied[r0:r1, c0:c1]) > 1:
        reasons.append("the squares read are not one connected patch")
        doubtful = True
    if one_kind_block(squares):
        # no card repeats a kind more than twice: four squares of one kind in a 2 x 2 block are
        # one square cut in four by a lattice at half the pitch (13 of 20,000 legal reserves
        # sampled hold such a block; they are checked and searched further, never lost)
        reasons.append("four squares of one kind in a 2 x 2 block (a lattice at half the pitch?)")
        doubtful = True
    if stray[r0:r1, c0:c1].any():
        # a right read is whole cards; a square left in none after completion is most often a
        # lattice half a square off (cells astride two squares), so the search goes on
        reasons.append("some squares read are in no whole card")
        doubtful = True
    if occ_scores.size and float(np.median(occ_scores)) < LATTICE_MIN_MEDIAN:
        reasons.append("the squares match the deck poorly (lattice doubtful)")
        doubtful = True
    return ReserveRead(squares, cells, bool(reasons), reasons, lat, (r0, c0), doubtful=doubtful)
