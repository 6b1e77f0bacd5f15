"""Stage 2 of grid finding: lattices of card candidates (RANSAC), refinement, 5x4 extent."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import (
    apply_homography,
    homography_dlt,
    rect_corners,
)
from vision.reptile_tank.grid.model import (
    GAP_RANGE_MM,
    active_layout,
)
from vision.reptile_tank.grid.verification import (
    cell_occupancy,
    metric_error,
)

# ----------------------------------------------------------------------------- lattice


@dataclass
class Lattice:
    homography: np.ndarray  # work px -> board mm (cell (0,0) at origin)
    cells: dict[tuple[int, int], np.ndarray]  # (row, col) -> (4, 2) quad in work px, TL..BL
    gap: tuple[float, float]
    residual_mm: float


def _lattice_index(
    centres: np.ndarray, tol: float = 9.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Integer lattice indices for board-plane card centres relative to a card at the origin.

    Returns ``(col, row, ok)`` arrays.
    """
    lay = active_layout()
    lo, hi = GAP_RANGE_MM
    out = []
    for k, pitch in ((0, lay.cell_w_mm), (1, lay.cell_h_mm)):
        offset = centres[:, k] - pitch / 2.0
        index = np.round(offset / (pitch + 3.0))
        excess = offset - index * pitch
        nonzero = index != 0
        ratio = np.divide(excess, index, out=np.zeros_like(excess), where=nonzero)
        slack = np.divide(tol, np.abs(index), out=np.zeros_like(excess), where=nonzero)
        ok = np.where(nonzero, (ratio >= lo - slack) & (ratio <= hi + slack), np.abs(excess) <= tol)
        out.append((index.astype(int), ok))
    (col, ok_c), (row, ok_r) = out
    return col, row, ok_c & ok_r


def _hypothesis_inliers(
    h: np.ndarray, quads: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Project all quads with ``h``; which look like lattice cards, and their indices."""
    lay = active_layout()
    projected = apply_homography(h, quads)  # (N, 4, 2)
    lo = projected.min(axis=1)
    hi = projected.max(axis=1)
    size = hi - lo
    centres = projected.mean(axis=1)
    good_size = (
        (size[:, 0] > 0.82 * lay.cell_w_mm)
        & (size[:, 0] < 1.22 * lay.cell_w_mm)
        & (size[:, 1] > 0.85 * lay.cell_h_mm)
        & (size[:, 1] < 1.18 * lay.cell_h_mm)
        & np.all(np.isfinite(projected), axis=(1, 2))
    )
    col, row, ok = _lattice_index(np.nan_to_num(centres))
    ok &= good_size & (np.abs(col) <= lay.cols) & (np.abs(row) <= lay.rows)
    return ok, row, col


def aspect_penalty(lattice: Lattice, shape: tuple[int, ...]) -> float:
    """Penalty for a lattice that no real camera could see as cards (see metric_error)."""
    try:
        error = metric_error(np.linalg.inv(lattice.homography), shape)
    except np.linalg.LinAlgError:
        return 10.0
    return 8.0 * error


def find_lattices(quads: list[np.ndarray], shape: tuple[int, ...]) -> list[Lattice]:
    """RANSAC over card candidates: up to 3 distinct lattices, the one explaining most first."""
    lay = active_layout()
    if len(quads) < 2:
        return []
    stack = np.stack(quads)  # (N, 4, 2)
    card = rect_corners(lay.cell_w_mm, lay.cell_h_mm).astype(np.float32)
    ranked: list[tuple[float, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    for quad in quads:
        for roll in (0, 1):
            src = np.roll(quad, -roll, axis=0).astype(np.float32)
            h = cv2.getPerspectiveTransform(src, card).astype(np.float64)
            ok, row, col = _hypothesis_inliers(h, stack)
            if ok.sum() < 3:
                continue
            ranked.append((_lattice_score(row[ok], col[ok]), h, ok, row, col))
    if not ranked:
        return []
    ranked.sort(key=lambda item: -item[0])
    found: list[tuple[float, float, Lattice]] = []
    seen: list[tuple[frozenset[int], float]] = []
    for score, h, ok, row, col in ranked:
        members = frozenset(np.flatnonzero(ok).tolist())
        axis = _x_axis_angle(h, stack[ok])
        if any(
            len(members & other) > 0.8 * len(members) and abs(axis - other_axis) % 180 < 30
            for other, other_axis in seen
        ):
            continue
        seen.append((members, axis))
        if len(seen) > 3 or score < 3:
            break
        lattice = _refine_lattice(h, stack[ok], row[ok], col[ok])
        for _ in range(2):
            if lattice is None:
                break
            ok2, row2, col2 = _guided_inliers(lattice, stack)
            if ok2.sum() < 3:
                break
            lattice = _refine_lattice(lattice.homography, stack[ok2], row2[ok2], col2[ok2])
        if lattice is None:
            continue
        keys = list(lattice.cells)
        final = _lattice_score(np.array([k[0] for k in keys]), np.array([k[1] for k in keys]))
        final -= aspect_penalty(lattice, shape)
        found.append((final, -lattice.residual_mm, lattice))
    found.sort(key=lambda item: (-item[0], -item[1]))
    return [lattice for _, _, lattice in found]


def _x_axis_angle(h: np.ndarray, quads: np.ndarray) -> float:
    """Image direction (degrees, mod 180) of the lattice's x axis at the quads' centre."""
    centre = quads.reshape(-1, 2).mean(axis=0)
    board = apply_homography(h, centre[None, :])[0]
    ends = apply_homography(np.linalg.inv(h), np.array([board, board + (10.0, 0.0)]))
    d = ends[1] - ends[0]
    return math.degrees(math.atan2(d[1], d[0])) % 180.0


def _lattice_score(row: np.ndarray, col: np.ndarray) -> float:
    """Distinct lattice cells explained, minus a penalty for spans beyond 4 rows x 5 columns."""
    lay = active_layout()
    cells = set(zip(row.tolist(), col.tolist(), strict=True))
    span_r = int(row.max() - row.min() + 1)
    span_c = int(col.max() - col.min() + 1)
    return len(cells) - 1.0 * (max(0, span_r - lay.rows) + max(0, span_c - lay.cols))


def _guided_inliers(
    lattice: Lattice, quads: np.ndarray, tol: float = 7.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Re-collect inlier quads with a refined lattice (known pitch): ``(ok, row, col)``."""
    lay = active_layout()
    projected = apply_homography(lattice.homography, quads)
    size = projected.max(axis=1) - projected.min(axis=1)
    centres = np.nan_to_num(projected.mean(axis=1))
    pitch = (lay.cell_w_mm + lattice.gap[0], lay.cell_h_mm + lattice.gap[1])
    col = np.round((centres[:, 0] - lay.cell_w_mm / 2) / pitch[0])
    row = np.round((centres[:, 1] - lay.cell_h_mm / 2) / pitch[1])
    dx = centres[:, 0] - lay.cell_w_mm / 2 - col * pitch[0]
    dy = centres[:, 1] - lay.cell_h_mm / 2 - row * pitch[1]
    ok = (
        (np.abs(dx) < tol)
        & (np.abs(dy) < tol)
        & (size[:, 0] > 0.85 * lay.cell_w_mm)
        & (size[:, 0] < 1.18 * lay.cell_w_mm)
        & (size[:, 1] > 0.88 * lay.cell_h_mm)
        & (size[:, 1] < 1.14 * lay.cell_h_mm)
        & (np.abs(col) <= 2 * lay.cols)
        & (np.abs(row) <= 2 * lay.rows)
    )
    return ok, row.astype(int), col.astype(int)


def _refine_lattice(
    h: np.ndarray, quads: np.ndarray, row: np.ndarray, col: np.ndarray
) -> Lattice | None:
    """Re-fit the homography and the gaps to all corners of the inlier cards."""
    lay = active_layout()
    # image corners in the board's TL, TR, BR, BL order (projected quads are near-upright)
    projected = apply_homography(h, quads)  # (N, 4, 2)
    total = projected.sum(axis=2)
    diff = projected[..., 0] - projected[..., 1]
    order = np.stack([total.argmin(1), diff.argmax(1), total.argmax(1), diff.argmin(1)], axis=1)
    ordered = np.take_along_axis(quads, order[..., None], axis=1)
    x, y = ordered[..., 0], ordered[..., 1]
    areas = 0.5 * np.abs(np.sum(x * np.roll(y, -1, 1) - y * np.roll(x, -1, 1), axis=1))
    # one quad per cell: the largest (an inner panel is smaller than its card)
    chosen: dict[tuple[int, int], np.ndarray] = {}
    best_area: dict[tuple[int, int], float] = {}
    for i, key in enumerate(zip(row.tolist(), col.tolist(), strict=True)):
        if len(set(order[i].tolist())) < 4:
            continue
        if key not in chosen or areas[i] > best_area[key]:
            chosen[key] = ordered[i]
            best_area[key] = float(areas[i])
    if not chosen:
        return None
    r0 = min(r for r, _ in chosen)
    c0 = min(c for _, c in chosen)
    cells = {(r - r0, c - c0): q for (r, c), q in chosen.items()}
    keys = list(cells)
    img_pts = np.concatenate([cells[k] for k in keys])
    rows_arr = np.repeat([k[0] for k in keys], 4)
    cols_arr = np.repeat([k[1] for k in keys], 4)
    corner_dx = np.tile([0.0, lay.cell_w_mm, lay.cell_w_mm, 0.0], len(keys))
    corner_dy = np.tile([0.0, 0.0, lay.cell_h_mm, lay.cell_h_mm], len(keys))
    gap = [3.0, 3.0]
    weights = np.ones(len(img_pts), dtype=bool)
    homography = h
    for _ in range(4):
        targets = np.stack(
            [
                cols_arr * (lay.cell_w_mm + gap[0]) + corner_dx,
                rows_arr * (lay.cell_h_mm + gap[1]) + corner_dy,
            ],
            axis=1,
        )
        homography = homography_dlt(img_pts[weights], targets[weights])
        board = apply_homography(homography, img_pts)
        err = np.linalg.norm(board - targets, axis=1)
        cutoff = max(3.0, 3.0 * float(np.median(err)))
        new_weights = err < cutoff
        if new_weights.sum() >= 8:
            weights = new_weights
        for axis, idx, d, pitch in (
            (0, cols_arr, corner_dx, lay.cell_w_mm),
            (1, rows_arr, corner_dy, lay.cell_h_mm),
        ):
            if len(np.unique(idx[weights])) < 2:
                continue
            y = board[weights, axis] - d[weights]
            a = np.stack([idx[weights].astype(float), np.ones(int(weights.sum()))], axis=1)
            (slope, _), *_ = np.linalg.lstsq(a, y, rcond=None)
            gap[axis] = float(np.clip(slope - pitch, *GAP_RANGE_MM))
    targets = np.stack(
        [
            cols_arr * (lay.cell_w_mm + gap[0]) + corner_dx,
            rows_arr * (lay.cell_h_mm + gap[1]) + corner_dy,
        ],
        axis=1,
    )
    residual = float(
        np.median(np.linalg.norm(apply_homography(homography, img_pts) - targets, axis=1))
    )
    return Lattice(homography, cells, (gap[0], gap[1]), residual)


#: What a fit's reason says (alone or among other doubts) when the lattice of cards found is
#: sure but not which of its 5x4 windows is the grid (:func:`extent_windows`).
EXTENT_IN_DOUBT = "outer extent of the grid is not determined"

#: 5x4 windows whose card evidence is within this of the best one are all kept: the cards
#: found do not tell which of them is the grid (the recogniser judges them, see
#: vision.reptile_tank.reader).
_EXTENT_TIE = 0.5


def extent_windows(
    lattice: Lattice, small_rgb: np.ndarray
) -> list[tuple[np.ndarray, set[tuple[int, int]], str]]:
    """The 5x4 windows of lattice cells that could be the grid, best first.

    Returns ``[(homography, cells inside, doubt), ...]``: one entry with an empty ``doubt``
    when the cards found decide the extent, otherwise every window within
    :data:`_EXTENT_TIE` of the best, each with the reason the extent is in doubt.
    """
    lay = active_layout()
    keys = list(lattice.cells)
    rows = [r for r, _ in keys]
    cols = [c for _, c in keys]
    span_r, span_c = max(rows) + 1, max(cols) + 1  # indices start at 0
    gx, gy = lattice.gap
    candidates_r = range(min(0, span_r - lay.rows), max(0, span_r - lay.rows) + 1)
    candidates_c = range(min(0, span_c - lay.cols), max(0, span_c - lay.cols) + 1)
    windows = [(r0, c0) for r0 in candidates_r for c0 in candidates_c]
    extra_cells = [
        (r0 + r, c0 + c)
        for r0, c0 in windows
        for r in range(lay.rows)
        for c in range(lay.cols)
        if (r0 + r, c0 + c) not in lattice.cells
    ]
    scores = {}
    if span_r < lay.rows or span_c < lay.cols:
        scores = cell_occupancy(
            small_rgb, lattice.homography, lattice.gap, cells=sorted(set(extra_cells))
        )
    ranked = []
    for r0, c0 in windows:
        inside = {
            (r - r0, c - c0) for r, c in keys if r0 <= r < r0 + lay.rows and c0 <= c < c0 + lay.cols
        }
        extra = sum(
            scores.get((r0 + r, c0 + c), 0.0)
            for r in range(lay.rows)
            for c in range(lay.cols)
            if (r0 + r, c0 + c) not in lattice.cells
        )
        ranked.append((len(inside) + extra, r0, c0, inside))
    ranked.sort(key=lambda item: -item[0])
    best_score = ranked[0][0]
    tied = [item for item in ranked if best_score - item[0] < _EXTENT_TIE]
    doubt = ""
    if len(tied) > 1:
        doubt = (
            f"{EXTENT_IN_DOUBT}: the cards found span {span_r} row(s) "
            f"x {span_c} column(s) and the missing ones could lie on either side"
        )
    out = []
    for _, r0, c0, inside in tied:
        shift = np.array(
            [
                [1.0, 0, -c0 * (lay.cell_w_mm + gx)],
                [0, 1.0, -r0 * (lay.cell_h_mm + gy)],
                [0, 0, 1.0],
            ]
        )
        out.append((shift @ lattice.homography, inside, doubt))
    return out


def transposed(lattice: Lattice) -> Lattice | None:
    """The same card quads taken the other way round (rows <-> columns), re-fitted.

    At a strong tilt a portrait card's foreshortened outline can look landscape, and a lattice
    of the right cards is then fitted with rows and columns swapped; its turned twin is the
    other hypothesis. Returns None when the re-fit fails.
    """
    lay = active_layout()
    keys = list(lattice.cells)
    quads = np.stack([lattice.cells[k] for k in keys])
    # a quarter turn of the board plane: old x -> new y (rows), old y -> new x (columns),
    # rescaled so that a 63 x 88 pitch maps onto an 88 x 63 one
    turn = np.array(
        [
            [0.0, lay.cell_w_mm / lay.cell_h_mm, 0.0],
            [-lay.cell_h_mm / lay.cell_w_mm, 0.0, 0.0],
            [0, 0, 1],
        ]
    )
    rows = np.array([-c for _, c in keys])
    cols = np.array([r for r, _ in keys])
    shift = np.array([[1.0, 0, 0], [0, 1.0, lay.cell_h_mm], [0, 0, 1]])
    return _refine_lattice(shift @ turn @ lattice.homography, quads, rows, cols)


def gap_from_extent(
    h_lattice: np.ndarray, outer: np.ndarray, lattice_gap: tuple[float, float]
) -> tuple[float, float]:
    """Gaps implied by the refined outer extent measured in lattice pitches.

    The ratio of the board's width to the column pitch, ``(5 * 63 + 4 g) / (63 + g)``, does
    not depend on the lattice's scale, so it survives a lattice fitted to inner panels.
    """
    lay = active_layout()
    board = apply_homography(h_lattice, outer)
    width = 0.5 * (np.linalg.norm(board[1] - board[0]) + np.linalg.norm(board[2] - board[3]))
    height = 0.5 * (np.linalg.norm(board[3] - board[0]) + np.linalg.norm(board[2] - board[1]))
    out = []
    for extent, count, card, g0 in (
        (width, lay.cols, lay.cell_w_mm, lattice_gap[0]),
        (height, lay.rows, lay.cell_h_mm, lattice_gap[1]),
    ):
        ratio = extent / (card + g0)
        if abs(ratio - (count - 1)) < 1e-6:
            out.append(g0)
            continue
        g = (count * card - card * ratio) / (ratio - (count - 1))
        out.append(float(np.clip(g, 0.0, GAP_RANGE_MM[1])))
    return out[0], out[1]
