"""Read a Nimalia reserve when the player taps the four corners of one card (the fallback).

When the automatic lattice finder (:mod:`vision.nimalia.lattice`) misses the reserve or takes a
wrong extent or pitch, the player taps the corners of **one fully visible card** (the last card
laid always is). One card fixes everything the finder had to guess: the card's 2 x 2 squares
give the lattice's pitch, phase and perspective, and its corners sit on lattice lines. The
reserve's own outline would not do: it is not a rectangle (notches, holes, up to 6 x 6).

:func:`read_reserve_from_card` maps lattice coordinates ``[0, 2] x [0, 2]`` onto the tapped
corners, opens a 10 x 10 window of cells around the card (cells -4..5 on each axis: every 6 x 6
reserve holding that card fits in it), turns it upright as the automatic path does (the photo
is taken from the seat: the quarter turn whose up is closest to the image's up), snaps the
window's lines to the squares' edges (taps a few pixels off put the lines 4 cells away a good
part of a square off: :func:`~vision.nimalia.lattice.refine_lattice`), and reads every
cell through the same :class:`~vision.nimalia.reader.ReserveReader` code path and
:func:`~vision.nimalia.decide.decide` as :func:`~vision.nimalia.reader.read_reserve`. Cells
whose quads fall mostly outside the photo (or behind the camera) are table; squares not
connected to the tapped card through squares (a draw pile, a stray card) are table too, since a
reserve is one connected patch. The read keeps every doubt of the automatic path
(``needs_check`` and its reasons), plus one when the tapped card is not read as 4 squares.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.geometry import is_convex_quad, order_quad_clockwise, quad_area
from vision.nimalia.decide import decide
from vision.nimalia.downscale import snap_to_edges
from vision.nimalia.lattice import (
    REFINE_MIN_FG,
    Lattice,
    LatticeNotFound,
    _upright,
    foreground_masks,
)
from vision.nimalia.reader import CLASSES, ReserveRead, cached_reader

#: Cells of the window on each side of the card: a 6 x 6 reserve holding the card spans at most
#: 4 cells beyond it on any side (cells -4..5 on each axis, 10 x 10).
REACH = 4
WINDOW = 2 + 2 * REACH
#: A tapped corner may lie this share of the photo's long side outside it (a corner at the edge).
EDGE_MARGIN = 0.02
#: The card must cover at least this share of the photo (and 400 px^2).
MIN_AREA_SHARE = 0.001
#: A cell with less than this share of its quad inside the photo is table.
MIN_INSIDE = 0.5
#: Reason added when the tapped card is not read as 4 squares.
CARD_NOT_READ = "the card tapped was not read as 4 squares"


def check_card_corners(corners: Sequence[Sequence[float]], width: int, height: int) -> np.ndarray:
    """The 4 tapped corners of a card, clockwise from the top-left on screen (``(4, 2)``).

    Raises ``ValueError`` with one sentence when they are not 4 points inside the photo (up to
    :data:`EDGE_MARGIN` of its long side outside) making a convex quadrilateral of
    non-trivial area.
    """
    try:
        pts = np.asarray(corners, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("give the card's corners as 4 (x, y) points") from None
    if pts.shape != (4, 2):
        raise ValueError(f"tap exactly 4 corners of one card (got {len(pts)} points)")
    if not np.isfinite(pts).all():
        raise ValueError("a corner of the card is not a number")
    slack = EDGE_MARGIN * max(width, height)
    for x, y in pts:
        if not (-slack <= x <= width + slack and -slack <= y <= height + slack):
            raise ValueError(f"the corner ({x:.0f}, {y:.0f}) is outside the photo")
    quad = order_quad_clockwise(pts)
    if not is_convex_quad(quad) or quad_area(quad) < max(MIN_AREA_SHARE * width * height, 400.0):
        raise ValueError("the 4 corners do not outline a card: tap the 4 corners of one whole card")
    return quad


def card_lattice(
    rgb: np.ndarray, quad: np.ndarray, foreground: np.ndarray | None = None
) -> Lattice:
    """The 10 x 10 lattice window around the card ``quad`` (clockwise from top-left), upright.

    ``foreground``: a ``(rows, cols)`` share per cell of the window before the turn (computed
    from the photo's table model when ``None``).
    """
    src = np.float32([[0, 0], [2, 0], [2, 2], [0, 2]])
    h_card = cv2.getPerspectiveTransform(src, np.float32(quad)).astype(np.float64)
    shift = np.array([[1, 0, -REACH], [0, 1, -REACH], [0, 0, 1.0]])
    h_img = h_card @ shift
    h_img /= h_img[2, 2]
    lat = Lattice(WINDOW, WINDOW, h_img, np.full((WINDOW, WINDOW), 0.5), 1.0)
    lat.foreground = _foreground(rgb, lat) if foreground is None else foreground
    return _upright(lat)


def _samples(lat: Lattice) -> tuple[np.ndarray, np.ndarray]:
    """16 image points per cell ``(rows, cols, 16, 2)`` and whether each lies in front of the
    camera (``(rows, cols, 16)``)."""
    g = np.linspace(0.2, 0.8, 4)
    q = np.column_stack([np.repeat(g, 4), np.tile(g, 4)])
    rr, cc = np.meshgrid(np.arange(lat.rows), np.arange(lat.cols), indexing="ij")
    pts = q[None, None] + np.stack([cc, rr], -1)[:, :, None, :]
    p = np.concatenate([pts, np.ones(pts.shape[:-1] + (1,))], -1) @ lat.h_img_from_lat.T
    # the card's centre (the window's) is in front of the camera: same sign of w
    centre = lat.h_img_from_lat @ np.array([lat.cols / 2, lat.rows / 2, 1.0])
    front = p[..., 2] * np.sign(centre[2]) > 1e-9 * abs(centre[2])
    with np.errstate(divide="ignore", invalid="ignore"):
        xy = p[..., :2] / p[..., 2:3]
    return np.where(front[..., None], xy, np.nan), front


def inside_share(lat: Lattice, width: int, height: int) -> np.ndarray:
    """Share of each cell (``(rows, cols)``) that lies inside the ``width`` x ``height`` photo."""
    xy, front = _samples(lat)
    with np.errstate(invalid="ignore"):
        ok = (
            front
            & (xy[..., 0] >= 0)
            & (xy[..., 0] < width)
            & (xy[..., 1] >= 0)
            & (xy[..., 1] < height)
        )
    return ok.mean(-1)


def _foreground(rgb: np.ndarray, lat: Lattice) -> np.ndarray:
    """Each cell's share that the table model calls card: card in every reserve blob hypothesis
    of the finder (a shadow the Lab model calls card is table for the shadow-aware model; on
    dev scenes the intersection read one scene more right than the union, the first blob or no
    foreground); 0.5 everywhere when the table model finds nothing."""
    try:
        blobs, s = foreground_masks(rgb)
    except LatticeNotFound:
        return np.full((lat.rows, lat.cols), 0.5)
    blob = blobs[0].copy()
    for b in blobs[1:]:
        blob &= b
    xy, front = _samples(lat)
    xy = np.nan_to_num(xy * s, nan=-1.0)
    h, w = blob.shape
    ix, iy = xy[..., 0], xy[..., 1]
    ok = front & (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
    hit = blob[np.clip(iy.astype(int), 0, h - 1), np.clip(ix.astype(int), 0, w - 1)] > 0
    return (hit & ok).mean(-1)


def _table_row(n_cols: int) -> np.ndarray:
    """A reader score row (15 cosines + 15 probabilities) that is plainly table."""
    row = np.zeros(n_cols, np.float32)
    k = len(CLASSES)
    row[:k] = -1.0
    row[k - 1] = 1.0
    row[2 * k - 1] = 1.0
    return row


def _card_cells(lat: Lattice) -> list[tuple[int, int]]:
    """The tapped card's 4 cells in the (turned) window: always the central 2 x 2."""
    return [(REACH + dr, REACH + dc) for dr in (0, 1) for dc in (0, 1)]


def read_reserve_from_card(
    image: np.ndarray, card_corners: Sequence[Sequence[float]], pack: str | Path | None = None
) -> ReserveRead:
    """Read the reserve holding the card whose 4 corners the player tapped (any order).

    Parameters
    ----------
    image : (H, W, 3) uint8 RGB
        The photo, upright as taken from the player's seat (the frame the corners are in).
    card_corners : 4 (x, y)
        Pixel corners of one fully visible card, in any order.
    pack : path, optional
        A Nimalia deck pack (as :func:`vision.nimalia.reader.read_reserve`); the stand-in deck
        when ``None``.

    Returns
    -------
    ReserveRead
        As :func:`vision.nimalia.reader.read_reserve`: squares cropped to the reserve's bounding
        box, per-square checks, ``needs_check`` and reasons (one more when the tapped card is
        not read as 4 squares).

    Raises
    ------
    ValueError
        The corners are not 4 points inside the photo outlining a convex quadrilateral.
    """
    t0 = time.perf_counter()
    rgb = np.ascontiguousarray(np.asarray(image)[..., :3])
    height, width = rgb.shape[:2]
    quad = check_card_corners(card_corners, width, height)
    reader = cached_reader(pack)
    lat = card_lattice(rgb, quad)
    inside = inside_share(lat, width, height) >= MIN_INSIDE
    lat = _snapped(rgb, lat, inside)
    t1 = time.perf_counter()
    cells = [int(i) for i in np.flatnonzero(inside.ravel())]
    first = reader._scores(rgb, lat, cells)
    scores = np.tile(_table_row(first.shape[1]), (lat.rows * lat.cols, 1))
    scores[cells] = first
    scores, missed = _card_as_squares(scores, lat)
    scores = _connected_to_card(scores, lat)
    t2 = time.perf_counter()
    result = decide(scores, lat)
    if missed:
        result.reasons.append(CARD_NOT_READ)
        result.needs_check = True
    result.timings_ms = {
        "lattice": (t1 - t0) * 1e3,
        "squares": (t2 - t1) * 1e3,
        "total": (time.perf_counter() - t0) * 1e3,
    }
    return result


def _snapped(rgb: np.ndarray, lat: Lattice, inside: np.ndarray) -> Lattice:
    """The window's lattice snapped to the squares' edges
    (:func:`~vision.nimalia.lattice.refine_lattice` on the part of the window the table model
    calls card): 4 taps a few pixels off put the lines 4 cells away a good part of a square
    off. The window keeps its extent and cell indices (the tapped card stays where it was)."""
    use = (lat.foreground >= REFINE_MIN_FG) & inside
    if use.sum() < 4:
        return lat
    rr, cc = np.where(use.any(1))[0], np.where(use.any(0))[0]
    r0, c0 = int(rr[0]), int(cc[0])
    part = lat.shifted(r0, c0, int(rr[-1]) + 1 - r0, int(cc[-1]) + 1 - c0)
    snapped = snap_to_edges(rgb, part)
    back = np.array([[1.0, 0, -c0], [0, 1, -r0], [0, 0, 1]])
    h = snapped.h_img_from_lat @ back
    return Lattice(lat.rows, lat.cols, h / h[2, 2], lat.foreground, lat.score)


def _card_as_squares(scores: np.ndarray, lat: Lattice) -> tuple[np.ndarray, bool]:
    """The tapped card's cells read as squares: a cell read as table becomes its best square
    kind, by the smallest margin (so :func:`~vision.nimalia.decide.decide` flags it for a
    check); ``(scores, whether any cell was read as table)``."""
    k = len(CLASSES)
    empty = k - 1
    missed = False
    scores = scores.copy()
    for r, c in _card_cells(lat):
        row = scores[r * lat.cols + c]
        if row[:k].argmax() == empty:
            missed = True
            row[empty] = row[:empty].max() - 1e-3
    return scores, missed


def _connected_to_card(scores: np.ndarray, lat: Lattice) -> np.ndarray:
    """Squares not joined to the tapped card through squares (4-neighbours) become table.

    A reserve is one connected patch (every card covers a square already there); a draw pile or
    a stray card on the table inside the window is not part of it. When none of the card's cells
    reads as a square, nothing is removed.
    """
    k = len(CLASSES)
    occ = scores[:, :k].argmax(1).reshape(lat.rows, lat.cols) != k - 1
    card = _card_cells(lat)
    if not any(occ[r, c] for r, c in card):
        return scores
    _, labels = cv2.connectedComponents(occ.astype(np.uint8), connectivity=4)
    keep = {int(labels[r, c]) for r, c in card if occ[r, c]}
    drop = occ & ~np.isin(labels, list(keep))
    if drop.any():
        scores = scores.copy()
        scores[drop.ravel()] = _table_row(scores.shape[1])
    return scores


__all__ = ["check_card_corners", "card_lattice", "inside_share", "read_reserve_from_card"]
