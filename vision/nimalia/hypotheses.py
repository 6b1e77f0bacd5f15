"""The reserve reader: lattice hypotheses ranked by a quick recognition check, read in
turn, refined to the edges, harmonics of a doubtful read, until one settles.

Split out of :mod:`vision.nimalia.reader` (no behaviour change).
"""

from __future__ import annotations

import functools
import time
from pathlib import Path

import cv2
import numpy as np

from scoring.nimalia.cards import EMPTY, cards, turn
from vision.embedder import CardEmbedder
from vision.nimalia.checks import (
    FG_LOGIT,
    FG_WEIGHT,
    MAX_SIDE,
    MISSED_SQUARE,
    ONE_CARD_REASONS,
    PHOTO_TABLE_CELLS,
    PHOTO_TABLE_CLEAR_MARGIN,
    PHOTO_TABLE_GAP,
    SCORE_COLUMNS,
)
from vision.nimalia.decide import (
    decide,
)
from vision.nimalia.downscale import (
    area_downscale,
    downscales_shared,
    prefilter,
    prefilter_scale,
    scaled,
    snap_to_edges,
)
from vision.nimalia.extent import (
    apart_squares,
)
from vision.nimalia.gallery import (
    CLASSES,
    CROP,
    load_gallery,
)
from vision.nimalia.lattice import (
    REFINE_MIN_FG,
    Lattice,
    LatticeNotFound,
    find_lattice_sets,
)
from vision.nimalia.result import (
    ReserveRead,
    checked_cells,
    checked_share,
    deck_match,
    squares_read,
    table_margins,
)
from vision.nimalia.squares import square_embedder


class ReserveReader:
    """Holds the embedder and a gallery; :meth:`read` reads one photo (RGB array)."""

    def __init__(
        self,
        pack: str | Path | None = None,
        *,
        embedder: CardEmbedder | None = None,
        threads: int = 1,
    ) -> None:
        self.embedder = embedder or square_embedder(threads)
        self.gallery = load_gallery(pack)
        self.gallery.check_model(self.embedder)

    def crops(self, rgb: np.ndarray, lat: Lattice, cells: list[int] | None = None) -> np.ndarray:
        """``(n, CROP, CROP, 3)`` square crops of ``cells`` (row-major indices; all by default)."""
        dst = np.float32([[0, 0], [CROP, 0], [CROP, CROP], [0, CROP]])
        cells = list(range(lat.rows * lat.cols)) if cells is None else cells
        out = np.empty((len(cells), CROP, CROP, 3), np.uint8)
        for i, idx in enumerate(cells):
            r, c = divmod(int(idx), lat.cols)
            h = cv2.getPerspectiveTransform(lat.cell_quad(r, c).astype(np.float32), dst)
            out[i] = cv2.warpPerspective(
                rgb, h, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
            )
        return out

    def _scores(
        self,
        rgb: np.ndarray,
        lat: Lattice,
        cells: list[int] | None = None,
        prefiltered: tuple[np.ndarray, float] | None = None,
    ):
        """Per cell: 15 cosines, 15 head probabilities and the embedding. ``prefiltered``: the
        photo already downscaled for this lattice's squares (:func:`prefilter`), shared by the
        calls of one read."""
        small, s = prefiltered or prefilter(rgb, lat)
        crops = self.crops(small, scaled(lat, s), cells)
        emb = self.embedder.embed(crops)
        cos = self.gallery.scores(emb)
        logits = self.gallery.logits(emb)
        fg = lat.foreground.ravel() if cells is None else lat.foreground.ravel()[cells]
        cos[:, -1] += FG_WEIGHT * (0.5 - fg)
        logits[:, -1] += FG_LOGIT * (0.5 - fg)
        z = logits - logits.max(1, keepdims=True)
        prob = np.exp(z)
        prob /= prob.sum(1, keepdims=True)
        # (n, 15 cosine + 15 head probabilities + the embedding)
        return np.concatenate([cos, prob, emb], 1)

    def read(self, rgb: np.ndarray) -> ReserveRead:
        """Read one photo: every lattice hypothesis is tried on a few card-like cells and the
        best one is read. When that read is in doubt (:attr:`ReserveRead.doubtful`) or no
        lattice was found, a wider search (more blobs, smaller pitches:
        ``find_lattice_sets(rescue=True)``) is judged the same way, and its read replaces the
        first only when it is not in doubt. A read still in doubt is tried at multiples and
        fractions of its lattice's pitch (:data:`HARMONICS`, :meth:`_harmonic_read`), then on
        the wider search's next hypotheses in rank order (:meth:`_next_read`), then on the
        hypotheses of the outline's vanishing points (:meth:`_outline_read`). The read chosen
        is then tried on its lattice snapped to the squares' edges (:meth:`_refined`). The
        photo's downscales are shared by all of these."""
        with downscales_shared(rgb):
            return self._read(rgb)

    def _read(self, rgb: np.ndarray) -> ReserveRead:
        t0 = time.perf_counter()
        result, error, _ = self._search(rgb, rescue=False)
        t1 = time.perf_counter()
        ranked: list[Lattice] = []
        if result is None or result.doubtful or not result.found:
            rescued, _, ranked = self._search(rgb, rescue=True)
            if rescued is not None and (result is None or _settled(rescued)):
                result = rescued
        if result is not None and not _settled(result) and result.lattice is not None:
            other = self._harmonic_read(rgb, result.lattice)
            if other is None:
                other = self._next_read(rgb, ranked[1 : 1 + NEXT_HYPOTHESES])
            if other is None:
                other = self._outline_read(rgb)
            if other is not None:
                result = other
        if result is None:
            return ReserveRead([], [], True, [error], None)
        result = self._refined(rgb, result)
        result.timings_ms = {
            "search": (t1 - t0) * 1e3,
            "total": (time.perf_counter() - t0) * 1e3,
        }
        return result

    def _search(
        self, rgb: np.ndarray, *, rescue: bool
    ) -> tuple[ReserveRead | None, str, list[Lattice]]:
        """The read of the best lattice hypothesis, or ``None`` and why none was found; and
        every hypothesis, best first."""
        try:
            sets = find_lattice_sets(rgb, rescue=rescue)
        except LatticeNotFound as error:
            return None, str(error), []
        # the hypotheses of every reserve blob (Lab and shadow-aware table models) are judged
        # together by recognition
        lats = [lat for found in sets if isinstance(found, list) for lat in found]
        if not lats:
            return None, str(sets[0]), []
        ranked = [lat for _, lat in self._rank(rgb, _distinct(lats))]
        return self._read_lattice(rgb, ranked[0]), "", ranked

    def _next_read(self, rgb: np.ndarray, lats: list[Lattice]) -> ReserveRead | None:
        """The first read of ``lats`` (hypotheses after the best, in rank order) that is not in
        doubt: the last resort when the best hypothesis and its harmonics all are. The probe
        cells can rank a lattice of quarter squares first (a round badge cut in four still
        looks like some animal), with the true lattice a few places down."""
        for lat in lats:
            read = self._read_lattice(rgb, lat)
            if _settled(read):
                return read
        return None

    def _outline_read(self, rgb: np.ndarray) -> ReserveRead | None:
        """The last resort, when every read so far is in doubt: the hypotheses of the line
        families of the vanishing points the reserve's outline edges point at
        (``find_lattice_sets(outline_vps=True)``), ranked, read in turn, the first not in
        doubt. A close-up from the seat fans one family's card edges out wider than one image
        direction, and stripes printed on the cards take their place in every other search;
        mixed into the wider search's ranking, these hypotheses displaced right reads."""
        try:
            sets = find_lattice_sets(rgb, rescue=True, outline_vps=True)
        except LatticeNotFound:
            return None
        lats = [lat for found in sets if isinstance(found, list) for lat in found]
        if not lats:
            return None
        ranked = [lat for _, lat in self._rank(rgb, _distinct(lats))]
        return self._next_read(rgb, ranked[:NEXT_HYPOTHESES])

    def _harmonic_read(self, rgb: np.ndarray, lat: Lattice) -> ReserveRead | None:
        """The read of the doubtful lattice ``lat`` at a multiple of its pitch (its best phase),
        or a fraction of it (:data:`HARMONICS`), when one of them is not in doubt (the one with
        fewer squares checked when several are); when none is, at :data:`PITCH_RATIOS` of it
        alike. The comb takes each axis's pitch on its own and can take a harmonic of the true
        one, and a lattice at half the pitch cuts parts of squares that match some kind, rarely
        clearly one."""
        options = []
        for fr, fc in HARMONICS:
            coarse = [lat.coarser(dr, dc, fr, fc) for dr in range(fr) for dc in range(fc)]
            coarse = [c for c in coarse if min(c.rows, c.cols) >= 1]
            if coarse:
                options.append(self._rank(rgb, coarse)[0][1])
            if max(fr * lat.rows, fc * lat.cols) <= 2 * MAX_SIDE:
                options.append(lat.finer(fr, fc))
        best = self._least_checked(rgb, options)
        if best is not None:
            return best
        # the rarer ratios only when no harmonic settles
        options = []
        for num, den in PITCH_RATIOS:
            # num / den of the pitch: den parts of each cell, num of them to a cell, best phase
            if max(lat.rows, lat.cols) * den / num > 2 * MAX_SIDE:
                continue
            fine = lat.finer(den, den)
            coarse = [fine.coarser(dr, dc, num, num) for dr in range(num) for dc in range(num)]
            coarse = [c for c in coarse if min(c.rows, c.cols) >= 1]
            if coarse:
                options.append(self._rank(rgb, coarse)[0][1])
        return self._least_checked(rgb, options)

    def _least_checked(self, rgb: np.ndarray, lats: list[Lattice]) -> ReserveRead | None:
        """Of the reads of ``lats`` that settle, the one with the fewest squares checked."""
        best = None
        for lat in lats:
            read = self._read_lattice(rgb, lat)
            if not _settled(read):
                continue
            if best is None or checked_share(read) < checked_share(best):
                best = read
        return best

    def _refined(self, rgb: np.ndarray, result: ReserveRead) -> ReserveRead:
        """The read of ``result``'s lattice snapped to the squares' edges
        (:func:`~vision.nimalia.lattice.refine_lattice`) when the snap moved it and its read is
        better (:func:`_better_refined`). A vanishing point a little off leaves the far rows a
        fraction of a square off. A read that still needs a check is also tried on its lattice
        snapped to the reserve's outline first (printed stripes or brush strokes inside the
        reserve can hold a line a quarter square off), and both snaps again with every square
        read taken as a card (where the table model's foreground left squares out)."""
        lat = result.lattice
        if lat is None or not result.found:
            return result
        # the cards: the table model's foreground; for a read still in doubt, also with every
        # square read (a table close to the cards' colours leaves squares out of the foreground,
        # and their lines unsnapped: fresh stand-in seed 1060136, on a pale blue table)
        foreground = lat.foreground >= REFINE_MIN_FG
        read_cards = foreground.copy()
        r0, c0 = result.origin
        for r, row in enumerate(result.squares):
            for c, token in enumerate(row):
                if token != EMPTY:
                    read_cards[r0 + r, c0 + c] = True
        tries: list[tuple[np.ndarray | None, bool]] = [(None, False), (None, True)]
        if (read_cards != foreground).any():
            tries += [(read_cards, False), (read_cards, True)]
        for i, (mask, outline_first) in enumerate(tries):
            if i and not result.needs_check:
                break
            refined = snap_to_edges(rgb, lat, outline_first=outline_first, cards=mask)
            if _moved(lat, refined, mask) < REFINE_MIN_MOVE:
                continue
            read = self._read_lattice(rgb, refined)
            if _better_refined(read, result):
                result = read
        return result

    def _read_lattice(self, rgb: np.ndarray, lat: Lattice) -> ReserveRead:
        """Read every cell of one lattice hypothesis (grown where its outer cells hold squares)."""
        # one downscale of the photo serves every cell of this lattice and its growth
        pre = prefilter(rgb, lat)
        scores = self._scores(rgb, lat, prefiltered=pre)
        lat, scores = self._grow(rgb, lat, scores, pre)
        return decide(scores, lat, self._photo_table(rgb, lat, scores, pre))

    def _photo_table(
        self,
        rgb: np.ndarray,
        lat: Lattice,
        scores: np.ndarray,
        prefiltered: tuple[np.ndarray, float] | None = None,
    ) -> np.ndarray | None:
        """``(rows, cols)``: every cell's cosine similarity to the nearest of up to
        :data:`PHOTO_TABLE_CELLS` crops of *this photo's* table (lattice cells at least
        :data:`PHOTO_TABLE_GAP` cells from every square read, wholly inside the photo), or
        ``None`` when fewer than 2 such cells exist.

        The gallery's table prototypes are tables in general; a square whose land is close to
        this table's colour can match them as well as the table does, yet not look like this
        table (its texture, its animal).
        """
        k = len(CLASSES)
        rows, cols = lat.rows, lat.cols
        cos = scores[:, :k]
        # only squares read clearly keep the table crops away: on a table whose pattern reads
        # weakly as some square all round the reserve, every cell would be "near a square"
        clear = table_margins(cos) >= PHOTO_TABLE_CLEAR_MARGIN
        occ = ((cos.argmax(1) != k - 1) & clear).reshape(rows, cols)
        m = PHOTO_TABLE_GAP + 1
        big = lat.shifted(-m, -m, rows + 2 * m, cols + 2 * m)
        occ_big = np.pad(occ, m).astype(np.uint8)
        side = 2 * PHOTO_TABLE_GAP - 1
        near = cv2.dilate(occ_big, np.ones((side, side), np.uint8)) > 0
        h, w = rgb.shape[:2]
        pts = big.corners()  # (rows + 1, cols + 1, 2), every cell's corners at once
        quads = np.stack([pts[:-1, :-1], pts[:-1, 1:], pts[1:, 1:], pts[1:, :-1]], 2)
        x, y = quads[..., 0], quads[..., 1]
        # shoelace area of every cell: a cell past the horizon flips or explodes
        area = 0.5 * np.abs((x * np.roll(y, -1, 2) - np.roll(x, -1, 2) * y).sum(2))
        cell = _cell_area(lat)
        ok = (
            ~near
            & (quads >= 0).all((2, 3))
            & (x < w).all(2)
            & (y < h).all(2)
            & (area > 0.2 * cell)
            & (area < 5 * cell)
        )
        cand = [int(i) for i in np.flatnonzero(ok.ravel())]
        if len(cand) < 2:
            return None
        pick = [cand[int(i)] for i in np.linspace(0, len(cand) - 1, PHOTO_TABLE_CELLS).round()]
        small, s = prefiltered or prefilter(rgb, lat)
        far = self.embedder.embed(self.crops(small, scaled(big, s), sorted(set(pick))))
        return (scores[:, SCORE_COLUMNS:] @ far.T).max(1).reshape(rows, cols)

    def _grow(
        self,
        rgb: np.ndarray,
        lat: Lattice,
        scores: np.ndarray,
        prefiltered: tuple[np.ndarray, float] | None = None,
    ):
        """Extend the lattice by a cell on every side whose outer cells hold squares.

        The foreground model can miss squares that look like the table; the reserve spans at
        most 6 x 6, so growth stops there. Squares apart from the reserve (:func:`apart_squares`: a
        stray card in the lattice a cell or more away) are not in its span: fresh painted seed
        1200059, a stray card beyond a far reserve, stopped the growth with the reserve's near
        two rows still outside the lattice.
        """
        empty = len(CLASSES) - 1
        for _ in range(2 * MAX_SIDE):
            occ = (
                scores.reshape(lat.rows, lat.cols, -1)[..., len(CLASSES) : SCORE_COLUMNS].argmax(-1)
                != empty
            )
            occ &= ~apart_squares(occ)
            if not occ.any():
                break
            rr, cc = np.where(occ.any(1))[0], np.where(occ.any(0))[0]
            h_span, w_span = rr[-1] - rr[0] + 1, cc[-1] - cc[0] + 1
            top = int(rr[0] == 0 and h_span < MAX_SIDE)
            bottom = int(rr[-1] == lat.rows - 1 and h_span < MAX_SIDE)
            left = int(cc[0] == 0 and w_span < MAX_SIDE)
            right = int(cc[-1] == lat.cols - 1 and w_span < MAX_SIDE)
            if not (top or bottom or left or right):
                break
            rows, cols = lat.rows + top + bottom, lat.cols + left + right
            new = lat.shifted(-top, -left, rows, cols)
            old = scores.reshape(lat.rows, lat.cols, -1)
            grid = np.zeros((rows, cols, old.shape[-1]), np.float32)
            grid[top : top + lat.rows, left : left + lat.cols] = old
            fresh = [
                r * cols + c
                for r in range(rows)
                for c in range(cols)
                if not (top <= r < top + lat.rows and left <= c < left + lat.cols)
            ]
            flat = grid.reshape(rows * cols, -1)
            flat[fresh] = self._scores(rgb, new, fresh, prefiltered)
            lat, scores = new, flat
        return lat, scores

    def _rank(self, rgb: np.ndarray, lats: list[Lattice]) -> list[tuple[float, Lattice]]:
        """Every hypothesis with its score, best first: its most card-like cells against the
        gallery (one batch).

        Score: median best similarity plus median margin to the next class, less
        :data:`FG_SPLIT_WEIGHT` x :func:`_fg_split`. Cells of a wrong pitch (quarter squares,
        two squares at once) can still look like some square, but they rarely look like exactly
        one kind: the margin tells them apart.
        """
        if len(lats) == 1:
            return [(0.0, lats[0])]
        pyramid: dict[int, tuple[np.ndarray, float]] = {}
        crops, owner = [], []
        for k, lat in enumerate(lats):
            # each hypothesis cut from the power-of-two downscale nearest to its own need
            level = max(0, int(np.floor(-np.log2(prefilter_scale(lat)))))
            if level not in pyramid:
                img = rgb if level == 0 else area_downscale(rgb, 0.5**level)[0]
                pyramid[level] = (img, img.shape[1] / rgb.shape[1])
            small, s = pyramid[level]
            cells = _probe_cells(lat)
            crops.append(self.crops(small, scaled(lat, s), cells))
            owner += [k] * len(cells)
        scores = self.gallery.scores(self.embedder.embed(np.concatenate(crops)))
        owner_a = np.array(owner)
        ranked = []
        for k, lat in enumerate(lats):
            mine = scores[owner_a == k]
            top2 = np.sort(mine, 1)[:, -2:]
            q = (
                _quality(mine, lat)
                + float(np.median(top2[:, 1] - top2[:, 0]))
                - FG_SPLIT_WEIGHT * _fg_split(lat)
            )
            ranked.append((q, k))
        ranked.sort(key=lambda t: (-t[0], t[1]))
        return [(q, lats[k]) for q, k in ranked]


#: Weight of :func:`_fg_split` in the choice of a lattice hypothesis.
FG_SPLIT_WEIGHT = 0.2


#: A refined lattice whose corners of the read's squares moved less than this (in squares) is
#: not read again (:meth:`ReserveReader._refined`).
REFINE_MIN_MOVE = 0.08
#: the harmonics of a doubtful read's lattice: (factor down, factor across), each tried as a
#: multiple and a fraction of its pitch. A third on one axis: a reserve 2 squares deep whose
#: comb found a pitch of a third of a square (fresh stand-in seed 1010054: one card of two
#: pairs read as 6 rows of thirds, "four squares of one kind")
HARMONICS = ((2, 2), (2, 1), (1, 2), (3, 1), (1, 3))
#: pitch ratios (numerator, denominator) a doubtful read's lattice is also tried at, on both
#: axes: a painted close-up whose wavy land borders gave the comb two thirds of the pitch
#: (fresh painted seed 1080007: two cards, 2 x 3 squares, read as 3 x 5)
PITCH_RATIOS = ((3, 2), (2, 3))
#: hypotheses read in turn when the best and its harmonics are in doubt
NEXT_HYPOTHESES = 12


def _better_refined(read: ReserveRead, result: ReserveRead) -> bool:
    """Whether ``read`` (of ``result``'s lattice snapped to the edges) replaces ``result``: it
    is settled and holds as many squares, with fewer cells checked (or as many, its squares
    matching the deck better); or it reads squares that ``result`` said it may have missed."""
    if not _settled(read):
        return False
    if (
        squares_read(read) > squares_read(result)
        and MISSED_SQUARE in result.reasons
        and MISSED_SQUARE not in read.reasons
    ):
        # the read said a square beside it may have been read as table, and the snapped
        # lattice reads it: a lattice a fraction of a square off at the reserve's far side
        return True
    if squares_read(read) < squares_read(result):
        # the snap sharpens the lattice; a read that loses squares (a far row or column
        # pulled onto the table has fewer cells to check) is not a better one
        return False
    before, after = checked_cells(result), checked_cells(read)
    return after < before or (after == before and deck_match(read) > deck_match(result))


def _moved(lat: Lattice, other: Lattice, cards: np.ndarray | None = None) -> float:
    """Largest move, in squares, of a corner of ``lat``'s card cells (``cards``, by default
    those whose foreground share is at least a half) in ``other``."""
    fg = np.pad(lat.foreground >= 0.5 if cards is None else cards, 1)
    near = fg[:-1, :-1] | fg[:-1, 1:] | fg[1:, :-1] | fg[1:, 1:]
    if not near.any():
        return 0.0
    d = np.linalg.norm(lat.corners() - other.corners(), axis=-1)
    return float(d[near].max() / np.sqrt(_cell_area(lat)))


_QUAD_CORNERS = np.array([[0, 0], [1, 0], [1, 1], [0, 1]])


def _distinct(lats: list[Lattice], tol: float = 0.1) -> list[Lattice]:
    """``lats`` less those whose probe cells (:func:`_probe_cells`) lie on an earlier one's
    lines (every corner within ``tol`` of a square of its lattice points, the squares the same
    size within 10 %): they would be cut and scored alike. Line families from the hull's and
    the blob's segments often agree."""
    out: list[Lattice] = []
    invs = np.empty((len(lats), 3, 3))  # the kept lattices' image -> lattice maps
    sides = np.empty(len(lats))
    for lat in lats:
        rows, cols = np.divmod(np.array(_probe_cells(lat)), lat.cols)
        # the probe cells' corners TL, TR, BR, BL, in one mapping
        uv = np.stack([cols, rows], 1)[:, None, :] + _QUAD_CORNERS[None]
        pts = np.column_stack([lat.to_image(uv.reshape(-1, 2)), np.ones(uv.size // 2)])
        side = lat.square_side()
        k = len(out)
        if k:
            uv = np.einsum("kij,mj->kmi", invs[:k], pts)
            uv = uv[..., :2] / uv[..., 2:3]
            on_lines = np.abs(uv - np.round(uv)).max((1, 2)) < tol
            if (on_lines & (np.abs(np.log(sides[:k] / side)) < 0.1)).any():
                continue
        invs[k] = np.linalg.inv(lat.h_img_from_lat)
        sides[k] = side
        out.append(lat)
    return out


def _settled(read: ReserveRead) -> bool:
    """Whether the search may stop at ``read``: squares found and not in doubt, or exactly one
    card's 2 x 2 squares (as some card shows them at some turn), none checked, matching the
    deck well. A reserve of cards laid exactly on one another is one card's worth of squares;
    such a read stays in doubt (so a wider search still looks for more squares) but a harmonic
    or later hypothesis replaces it only when settled itself."""
    if not read.found:
        return False
    if not read.doubtful:
        return True
    return (
        len(read.squares) == 2
        and len(read.squares[0]) == 2
        and tuple(read.squares[0] + read.squares[1]) in _card_looks()
        and not any(c.check for row in read.cells for c in row)
        and set(read.reasons) <= ONE_CARD_REASONS
    )


@functools.cache
def _card_looks() -> frozenset[tuple[str, ...]]:
    """The 4 squares (TL, TR, BL, BR) of every card at every quarter turn: what a reserve of
    cards laid exactly on one another shows. Four quarters of one square read alike (a lattice
    at half the pitch on a close-up) are not a card: no card repeats a kind more than twice."""
    return frozenset(
        tuple(s.token for s in turn(cid, t)) for cid in cards() for t in (0, 90, 180, 270)
    )


def _fg_split(lat: Lattice) -> float:
    """How much the lattice's cells split the reserve blob (0: every touched cell is all card,
    1: all half card): lines of the true lattice follow the reserve's outline, a wrong pitch or
    phase cuts through it."""
    fg = lat.foreground.ravel()
    on = fg > 0.05
    return float(np.mean(4 * fg[on] * (1 - fg[on]))) if on.any() else 1.0


def _cell_area(lat: Lattice) -> float:
    """Image area of the lattice's central cell."""
    q = lat.cell_quad(lat.rows // 2, lat.cols // 2)
    return float(abs(cv2.contourArea(q.astype(np.float32)))) + 1e-6


def _probe_cells(lat: Lattice, n: int = 6) -> list[int]:
    """Up to ``n`` cell indices with the most foreground, for a quick recognition check."""
    order = np.argsort(-lat.foreground.ravel(), kind="stable")
    return [int(i) for i in order[:n]]


def _quality(scores: np.ndarray, lat: Lattice, cells: list[int] | None = None) -> float:
    """Median best similarity over the cells read as squares (0 when none is)."""
    scores = scores[:, : len(CLASSES)]  # the cosine part when given the reader's 30 columns
    best = scores.argmax(1)
    occ = best != len(CLASSES) - 1
    if not occ.any():
        return 0.0
    return float(np.median(scores[occ].max(1)))
