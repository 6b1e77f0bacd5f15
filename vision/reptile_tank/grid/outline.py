"""Stage 3 of grid finding: snap the outer edge and fit the lattice to the cards' outlines."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.geometry import (
    apply_homography,
    fit_line,
    lines_meet,
    quad_area,
    rect_corners,
)
from vision.reptile_tank.grid.model import (
    GAP_RANGE_MM,
    GridFit,
    active_layout,
    board_size,
    fit_from_homography,
)
from vision.reptile_tank.grid.verification import (
    cell_occupancy,
)

_REFINE_IN_MM = 1.5
_REFINE_OUT_MM = 6.0
_REFINE_SIGNIFICANT = 0.35
_REFINE_DIRECTED = 0.2


def refine_outer_corners(
    gray: np.ndarray, corners: np.ndarray, board_mm: tuple[float, float]
) -> np.ndarray | None:
    """Snap the four outer sides to the cards' outline nearby; None if unsupported.

    Each side is searched within ``[-1.5, +6]`` mm of the estimate (outwards positive) on
    profiles across it. A card's printed border is one colour band between its artwork and
    its outline, so, going outwards, the artwork's edge and the outline step in opposite
    directions when the border is brighter (or darker) than both. Card borders are usually
    lighter than the table, so the outline is taken to darken going outwards unless all four
    sides show a darker band inside than outside (:func:`_outline_polarity`). The outline
    is then the outermost clear peak of that direction (>= 20 % of the side's strongest);
    when a side has none, the outermost clear peak (>= 35 %) of either direction is taken.

    ``corners`` ``(4, 2)`` TL, TR, BR, BL in ``gray`` pixels; ``board_mm`` the board's
    ``(width, height)`` in mm, to convert the search window to pixels.
    """
    gray_f = cv2.GaussianBlur(gray, (3, 3), 0).astype(np.float32)
    step = 0.5
    sides = []
    for k in range(4):
        a, b = corners[k], corners[(k + 1) % 4]
        length = float(np.linalg.norm(b - a))
        if length < 20:
            return None
        px_per_mm = length / (board_mm[0] if k % 2 == 0 else board_mm[1])
        direction = (b - a) / length
        normal = np.array([direction[1], -direction[0]])  # outward for clockwise quads
        ts = np.linspace(0.06, 0.94, 60)
        offsets = np.arange(-_REFINE_IN_MM * px_per_mm, _REFINE_OUT_MM * px_per_mm + step, step)
        base = a[None, :] + ts[:, None] * (b - a)[None, :]
        pts = base[:, None, :] + offsets[None, :, None] * normal[None, None, :]
        samples = cv2.remap(
            gray_f,
            pts[..., 0].astype(np.float32),
            pts[..., 1].astype(np.float32),
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        sides.append((a, b, px_per_mm, normal, ts, offsets, base, samples))
    polarity = _outline_polarity(sides)
    lines: list[tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]] = []
    for a, b, px_per_mm, normal, ts, offsets, base, samples in sides:
        straight = (a.astype(float), (b - a) / float(np.linalg.norm(b - a)))
        side_line = _outline_line(samples, offsets, step, px_per_mm, polarity, base, normal, ts)
        lines.append(side_line if side_line is not None else (straight, straight))
    out = np.empty((4, 2))
    for k in range(4):
        corner = lines_meet(lines[(k - 1) % 4][1], lines[k][0])
        if corner is None:
            return None
        out[k] = corner
    if np.max(np.linalg.norm(out - corners, axis=1)) > 0.05 * np.linalg.norm(
        corners[2] - corners[0]
    ):
        return None
    return out


def _outline_polarity(sides: list) -> float:
    """Sign of the outline's brightness step going outwards: -1 (lighter border) or +1.

    Compares the median brightness 0.5-2 mm inside each estimated side (the card's border)
    with 1.5-5 mm outside it (the table). +1 only when all four sides agree that the inside
    is darker: an estimate lying on the cards' artwork panels (a border's width inwards)
    sees a darker inside on a light table too, and a majority vote followed it there
    (frozen full set: mean corner error 1.60 % with the vote, 1.42 % with this prior).
    """
    votes = 0.0
    for _, _, px_per_mm, _, _, offsets, _, samples in sides:
        mm = offsets / px_per_mm
        inside = samples[:, (mm > -2.0) & (mm < -0.5)]
        outside = samples[:, (mm > 1.5) & (mm < 5.0)]
        if inside.size == 0 or outside.size == 0:
            continue
        diff = float(np.median(outside) - np.median(inside))
        if abs(diff) > 6.0:
            votes += math.copysign(1.0, diff)
    return 1.0 if votes >= 4 else -1.0


def _outline_line(
    samples: np.ndarray,
    offsets: np.ndarray,
    step: float,
    px_per_mm: float,
    polarity: float,
    base: np.ndarray,
    normal: np.ndarray,
    ts: np.ndarray,
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None:
    """The outline's line near each end of one side, or None when no clear edge was found."""
    signed = samples[:, 2:] - samples[:, :-2]  # centred at offsets[1:-1]
    n = signed.shape[1]
    if n < 3:  # a lattice a few pixels across: its search window holds no profile
        return None
    mean_signed = signed.mean(axis=0)
    profile = np.abs(mean_signed)
    if profile.max() < 1.0:
        return None
    is_peak = np.zeros(n, dtype=bool)
    is_peak[1:-1] = (profile[1:-1] >= profile[:-2]) & (profile[1:-1] >= profile[2:])
    directed = is_peak & (mean_signed * polarity > 0)
    directed &= profile >= _REFINE_DIRECTED * profile.max()
    if directed.any():
        is_peak, deriv = directed, np.maximum(signed * polarity, 0.0)
    else:
        is_peak &= profile >= _REFINE_SIGNIFICANT * profile.max()
        deriv = np.abs(signed)
    if not is_peak.any():
        return None
    centre = int(np.flatnonzero(is_peak)[-1])
    half = max(2, round(0.8 * px_per_mm / step))
    lo_i, hi_i = max(1, centre - half), min(n - 1, centre + half + 1)
    window = deriv[:, lo_i:hi_i]
    last = lo_i + np.argmax(window, axis=1)
    top = window.max(axis=1)
    rows = np.where((top > 4.0) & (last > 0) & (last < n - 1))[0]
    if len(rows) < 15:
        return None
    peak = last[rows]
    left = deriv[rows, peak - 1]
    mid = deriv[rows, peak]
    right = deriv[rows, peak + 1]
    denom = left - 2 * mid + right
    sub = peak + np.divide(
        0.5 * (left - right), denom, out=np.zeros_like(denom), where=np.abs(denom) > 1e-6
    )
    offset = offsets[0] + (sub + 1.0) * step
    med = float(np.median(offset))
    keep = np.abs(offset - med) < max(1.0, 0.8 * px_per_mm)
    if keep.sum() < 12:
        return None
    edge_pts = base[rows][keep] + offset[keep, None] * normal[None, :]
    along = ts[rows][keep]
    whole = fit_line(edge_pts)
    # lens distortion bows long sides: fit each corner from the side's nearby part
    near_start = fit_line(edge_pts[along < 0.45]) if (along < 0.45).sum() >= 8 else whole
    near_end = fit_line(edge_pts[along > 0.55]) if (along > 0.55).sum() >= 8 else whole
    return near_start, near_end


#: Outline fit (see :func:`_fit_to_card_outlines`). Profiles across each card side: their
#: sample spacing and how far either side of the predicted outline they reach (mm).
_OUTLINE_STEP_MM = 0.2
_OUTLINE_REACH_MM = 6.0
#: Outline points farther than this from the prediction are dropped, per pass (mm).
_OUTLINE_ACCEPT_MM = (5.0, 1.5)
#: Where along each card side profiles are taken (fractions; avoids the rounded corners).
_OUTLINE_ALONG = np.linspace(0.05, 0.95, 10)
#: A peak is an edge when it is at least this share of the profile's strongest (and >= 6).
_OUTLINE_PEAK_SHARE = 0.35
#: Step directions tried, the usual first: an outline darkening outwards (a light border).
_POLARITIES = (-1.0, 1.0)
#: The other direction's fit replaces the first when it has this many times its support ...
_OUTLINE_SWITCH_SUPPORT = 3.0
#: ... or at least this share of it and covers this much more image area per mm^2 (the
#: lattice of the cards' artwork panels lies inside the outlines: ~0.84 of their area).
_OUTLINE_MIN_SUPPORT = 0.4
_OUTER_LATTICE_AREA = 1.05
#: The outline fit may move a board corner by at most this much (mm) from the first fit.
_MAX_OUTLINE_MOVE_MM = 12.0


def _card_side_profiles(
    gray: np.ndarray,
    homography: np.ndarray,
    gap: tuple[float, float],
    cells: list[tuple[int, int]],
    reach_mm: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Brightness profiles across every side of the given cards' predicted outlines.

    Returns ``(samples (N, K) float32, base (N, 2) board mm, normal (N, 2) outward unit,
    offsets (K,) mm, sides (N, 4) int [row, col, axis, far])``: ``axis`` 0 for a vertical
    side (its board x is known), 1 for a horizontal one; ``far`` 1 for the right / bottom
    side of the card.
    """
    lay = active_layout()
    inverse = np.linalg.inv(homography)
    offsets = np.arange(-reach_mm, reach_mm + 1e-9, _OUTLINE_STEP_MM)
    ts = _OUTLINE_ALONG
    k = len(ts)
    rc = np.asarray(cells, dtype=int)  # (M, 2)
    x0 = rc[:, 1] * (lay.cell_w_mm + gap[0])
    y0 = rc[:, 0] * (lay.cell_h_mm + gap[1])
    # per card: left, top, right, bottom sides, k profiles each -> (M, 4, k)
    far = np.array([0, 0, 1, 1])
    axis = np.array([0, 1, 0, 1])
    bx = np.where(
        axis[None, :, None] == 0,
        x0[:, None, None] + far[None, :, None] * lay.cell_w_mm,
        x0[:, None, None] + ts[None, None, :] * lay.cell_w_mm,
    )
    by = np.where(
        axis[None, :, None] == 1,
        y0[:, None, None] + far[None, :, None] * lay.cell_h_mm,
        y0[:, None, None] + ts[None, None, :] * lay.cell_h_mm,
    )
    base_b = np.stack([bx, by], axis=-1).reshape(-1, 2)
    unit = np.array([[-1.0, 0.0], [0.0, -1.0], [1.0, 0.0], [0.0, 1.0]])
    normal_b = np.broadcast_to(unit[None, :, None, :], (len(rc), 4, k, 2)).reshape(-1, 2)
    sides = np.empty((len(rc), 4, k, 4), dtype=int)
    sides[..., 0] = rc[:, 0, None, None]
    sides[..., 1] = rc[:, 1, None, None]
    sides[..., 2] = axis[None, :, None]
    sides[..., 3] = far[None, :, None]
    # a board line maps to an image line; over a few mm its spacing is uniform to << 0.1 px
    ends = apply_homography(
        inverse, np.stack([base_b + offsets[0] * normal_b, base_b + offsets[-1] * normal_b])
    )
    along = (offsets - offsets[0]) / (offsets[-1] - offsets[0])
    image = (ends[0][:, None, :] + along[None, :, None] * (ends[1] - ends[0])[:, None, :]).astype(
        np.float32
    )
    samples = cv2.remap(
        gray, image[..., 0], image[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    ).astype(np.float32)
    return samples, base_b, normal_b, offsets, sides.reshape(-1, 4)


def _outline_points(
    samples: np.ndarray, offsets: np.ndarray, polarity: float
) -> tuple[np.ndarray, np.ndarray]:
    """Per profile, the outline's offset (mm): the clear edge of the outline's direction
    nearest the prediction. Returns ``(profile indices, offsets)`` of the profiles where one
    was found.
    """
    signed = samples[:, 2:] - samples[:, :-2]  # centred at offsets[1:-1], outwards
    deriv = np.maximum(signed * polarity, 0.0)  # polarity is -1 or +1
    n = deriv.shape[1]
    peak = np.zeros(deriv.shape, dtype=bool)
    peak[:, 1:-1] = (deriv[:, 1:-1] >= deriv[:, :-2]) & (deriv[:, 1:-1] > deriv[:, 2:])
    peak &= deriv >= np.maximum(6.0, _OUTLINE_PEAK_SHARE * deriv.max(axis=1, keepdims=True))
    distance = np.where(peak, np.abs(np.arange(n)[None, :] - (n - 1) / 2.0), np.inf)
    nearest = np.argmin(distance, axis=1)
    rows = np.flatnonzero(np.isfinite(distance[np.arange(len(nearest)), nearest]))
    pk = nearest[rows]
    left, mid, right = deriv[rows, pk - 1], deriv[rows, pk], deriv[rows, pk + 1]
    denom = left - 2 * mid + right
    sub = pk + np.divide(
        0.5 * (left - right), denom, out=np.zeros_like(denom), where=np.abs(denom) > 1e-6
    )
    step = offsets[1] - offsets[0]
    return rows, offsets[0] + (sub + 1.0) * step


def _resolve_touching(
    base: np.ndarray,
    normal: np.ndarray,
    sides: np.ndarray,
    rows: np.ndarray,
    found: np.ndarray,
    accept_mm: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Outline points in the board plane, with touching neighbours' sides replaced.

    Where two neighbouring cards touch there is no outline to see, and each card's search
    finds the other card's artwork edge beyond the shared boundary instead: the two sides'
    points cross (the left card's right side lies right of the right card's left side).
    For such a pair each profile position gives one point midway between the two, whose
    target is the middle of the gap (a deck's border is the same width on every card).

    Other points farther than ``accept_mm`` from the prediction are dropped. Returns
    ``(board points (M, 2), sides (M, 5) [row, col, axis, far, half_gap])``; the target
    coordinate of a point is ``index * (card + gap) + far * card + half_gap * gap / 2``.
    """
    offset = np.full(len(base), np.nan)
    offset[rows] = found
    board = base + np.nan_to_num(offset)[:, None] * normal
    per_side = len(_OUTLINE_ALONG)
    starts = {tuple(sides[i]): i for i in range(0, len(sides), per_side)}
    keep = ~np.isnan(offset)
    extra_pts, extra_sides = [], []
    for (r, c, axis, far), i in starts.items():
        if far != 1:
            continue
        j = starts.get((r, c + 1, axis, 0) if axis == 0 else (r + 1, c, axis, 0))
        if j is None:
            continue
        a, b = slice(i, i + per_side), slice(j, j + per_side)
        both = keep[a] & keep[b]
        if both.sum() < 3:
            continue
        crossing = np.median(board[a][both, axis] - board[b][both, axis])
        if crossing <= 0.3:
            continue
        keep[a] = keep[b] = False
        extra_pts.append(0.5 * (board[a][both] + board[b][both]))
        extra_sides.append(np.tile([r, c, axis, 1, 1], (int(both.sum()), 1)))
    keep &= np.abs(np.nan_to_num(offset)) <= accept_mm
    sides5 = np.concatenate([sides, np.zeros((len(sides), 1), int)], axis=1)[keep]
    points = board[keep]
    if extra_pts:
        points = np.concatenate([points, *extra_pts])
        sides5 = np.concatenate([sides5, *extra_sides])
    return points, sides5


def _lattice_side_residuals(
    params: np.ndarray, points: np.ndarray, sides: np.ndarray, *, jacobian: bool = False
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Board-plane distance (mm) of each outline point from its card side's lattice line.

    ``params`` = 8 entries of the image->board homography (``h33 = 1``, in normalised image
    coordinates) and the two gaps; ``points`` ``(N, 2)`` normalised image coordinates;
    ``sides`` ``(N, 5)`` as returned by :func:`_resolve_touching`. With ``jacobian`` also
    returns the ``(N, 10)`` derivatives of the residuals with respect to ``params``.
    """
    lay = active_layout()
    h = np.append(params[:8], 1.0).reshape(3, 3)
    ph = np.concatenate([points, np.ones((len(points), 1))], axis=1)
    axis, far, half = sides[:, 2], sides[:, 3], sides[:, 4]
    numerator = np.where(axis == 0, ph @ h[0], ph @ h[1])
    denominator = ph @ h[2]
    value = numerator / denominator
    index = np.where(axis == 0, sides[:, 1], sides[:, 0])
    card = np.where(axis == 0, lay.cell_w_mm, lay.cell_h_mm)
    gap = np.where(axis == 0, params[8], params[9])
    residual = value - (index * (card + gap) + far * card + half * gap / 2.0)
    if not jacobian:
        return residual
    jac = np.zeros((len(points), 10))
    row = ph / denominator[:, None]
    x_rows, y_rows = axis == 0, axis == 1
    jac[x_rows, 0:3] = row[x_rows]
    jac[y_rows, 3:6] = row[y_rows]
    jac[:, 6:8] = -value[:, None] * row[:, :2]
    d_gap = -(index + half / 2.0)
    jac[x_rows, 8] = d_gap[x_rows]
    jac[y_rows, 9] = d_gap[y_rows]
    return residual, jac


def _fit_to_card_outlines(
    gray: np.ndarray,
    homography: np.ndarray,
    gap: tuple[float, float],
    cells: list[tuple[int, int]],
) -> tuple[np.ndarray, tuple[float, float], int] | None:
    """Re-fit the homography and both gaps to the outlines of all the cards.

    Every side of every card in ``cells`` is searched within 6 mm of where the lattice puts
    it for the nearest edge that steps the way a card's outline does (brighter to darker
    going outwards, or the reverse: both are tried); sides of touching neighbours are
    resolved by :func:`_resolve_touching`; points farther than 5 mm (first pass) or 1.5 mm
    (second pass, from the improved fit) from the prediction are dropped. The model -- one
    homography, 63 x 88 mm cards, a gap between columns and one between rows, the same
    model the ground truth is measured with -- is fitted to all points by robust
    Gauss-Newton, so each card's own placement error averages out. Of the two step
    directions, the fit with the larger cards wins among those with at least
    :data:`_OUTLINE_MIN_SUPPORT` of the best support: the lattice of the cards' artwork
    panels fits well too, but lies inside the outlines.

    Returns ``(image->board homography, (gx, gy), support)`` or None when too few outline
    points were found or the fit left the plausible range.
    """
    first = _card_side_profiles(gray, homography, gap, cells, _OUTLINE_REACH_MM)
    fits = []
    for polarity in _POLARITIES:  # the same profiles serve every step direction
        fitted = _outline_pass(first, homography, gap, polarity, _OUTLINE_ACCEPT_MM[0])
        if fitted is not None:
            fits.append((polarity, fitted))
    if not fits:
        return None
    # Cards' borders are usually lighter than the table (fits[0]); the other direction wins
    # when it explains far more of the outlines, or when it is the outer of the two lattices
    # (a lattice of the cards' artwork panels also fits well, but lies inside the outlines).
    polarity, best = fits[0]
    for other_polarity, other in fits[1:]:
        outer = _image_area_per_mm2(other[0], other[1]) >= _OUTER_LATTICE_AREA * (
            _image_area_per_mm2(best[0], best[1])
        )
        if (outer and other[2] >= _OUTLINE_MIN_SUPPORT * best[2]) or other[2] >= (
            _OUTLINE_SWITCH_SUPPORT * best[2]
        ):
            polarity, best = other_polarity, other
    for accept in _OUTLINE_ACCEPT_MM[1:]:
        h, g = best[0], best[1]
        profiles = _card_side_profiles(gray, h, g, cells, _OUTLINE_REACH_MM)
        fitted = _outline_pass(profiles, h, g, polarity, accept)
        if fitted is None:
            return None
        best = fitted
    return best


def _outline_pass(
    profiles: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    homography: np.ndarray,
    gap: tuple[float, float],
    polarity: float,
    accept_mm: float,
) -> tuple[np.ndarray, tuple[float, float], int] | None:
    """One outline search and lattice fit from :func:`_card_side_profiles` output."""
    samples, base, normal, offsets, sides = profiles
    rows, found = _outline_points(samples, offsets, polarity)
    board, sides_found = _resolve_touching(base, normal, sides, rows, found, accept_mm)
    if len(board) < 60 or len(np.unique(sides_found[:, 2])) < 2:
        return None
    points = apply_homography(np.linalg.inv(homography), board)
    return _robust_lattice_fit(points, sides_found, homography, gap)


def _px_per_mm_across(homography: np.ndarray, points: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """Image pixels per board mm along board ``axis`` (0 = x) at each image point ``(N, 2)``."""
    board = apply_homography(homography, points)
    step = np.zeros_like(board)
    step[np.arange(len(board)), axis] = 0.5
    inverse = np.linalg.inv(homography)
    ends = apply_homography(inverse, board + step) - apply_homography(inverse, board - step)
    return np.linalg.norm(ends, axis=1)


def _image_area_per_mm2(homography: np.ndarray, gap: tuple[float, float]) -> float:
    """Image area (px^2) of one mm^2 of the board, averaged over the board."""
    width, height = board_size(gap)
    corners = apply_homography(np.linalg.inv(homography), rect_corners(width, height))
    return quad_area(corners) / (width * height)


def _robust_lattice_fit(
    points: np.ndarray, sides: np.ndarray, homography: np.ndarray, gap: tuple[float, float]
) -> tuple[np.ndarray, tuple[float, float], int] | None:
    """Gauss-Newton for :func:`_lattice_side_residuals`, dropping points > 3 sigma away.

    Residuals are weighted by the image's pixels per mm at each point, so the fit
    minimises image distances, as the ground truth's least-squares fit does (under strong
    perspective the near cards, large in the photo, weigh more).

    Returns ``(homography, gaps, support)``, support = points within 0.5 mm of their line.
    """
    weight = _px_per_mm_across(homography, points, sides[:, 2])
    min_keep = 0.5 * float(np.median(weight))
    centre = points.mean(axis=0)
    scale = math.sqrt(2) / max(1e-9, float(np.linalg.norm(points - centre, axis=1).mean()))
    norm = np.array([[scale, 0, -scale * centre[0]], [0, scale, -scale * centre[1]], [0, 0, 1]])
    h0 = homography @ np.linalg.inv(norm)
    params = np.concatenate([(h0 / h0[2, 2]).ravel()[:8], gap])
    q = apply_homography(norm, points)
    for _ in range(6):
        residual, jac = _lattice_side_residuals(params, q, sides, jacobian=True)
        residual, jac = weight * residual, weight[:, None] * jac
        sigma = 1.4826 * float(np.median(np.abs(residual)))
        keep = np.abs(residual) < max(min_keep, 3.0 * sigma)
        if keep.sum() < 40:
            return None
        step, *_ = np.linalg.lstsq(jac[keep], -residual[keep], rcond=None)
        params = params + step
        if not np.all(np.isfinite(params)):
            return None
        params[8:] = np.clip(params[8:], *GAP_RANGE_MM)
        if np.abs(step[8:]).max() < 1e-3:
            break
    lo, hi = GAP_RANGE_MM
    if not (lo <= params[8] <= hi and lo <= params[9] <= hi):
        return None
    support = int(np.sum(np.abs(_lattice_side_residuals(params, q, sides)) < 0.5))
    h = np.append(params[:8], 1.0).reshape(3, 3) @ norm
    return h / h[2, 2], (float(params[8]), float(params[9])), support


def fit_outlines(image_rgb: np.ndarray, fit: GridFit) -> GridFit:
    """The fit re-fitted to the outlines of its cards at the photo's full resolution.

    See :func:`_fit_to_card_outlines`; the fit is kept as it is when that fails or moves a
    board corner by more than :data:`_MAX_OUTLINE_MOVE_MM`. Occupancy is measured again on
    the re-fitted cells.
    """
    lay = active_layout()
    cells = [(r, c) for r in range(lay.rows) for c in range(lay.cols) if fit.occupied[r, c]]
    if len(cells) < 4:
        return fit
    gray = cv2.cvtColor(image_rgb, cv2.COLOR_RGB2GRAY)
    refined = _fit_to_card_outlines(gray, fit.homography, fit.gap_mm, cells)
    if refined is None:
        return fit
    homography, gap = refined[0], refined[1]
    if _corner_shift_mm(fit.homography, fit.gap_mm, homography, gap) > _MAX_OUTLINE_MOVE_MM:
        return fit
    return fit_from_homography(
        homography,
        gap,
        method=fit.method,
        occupancy=cell_occupancy(image_rgb, homography, gap),
        residual_px=fit.residual_px,
        quality=fit.quality,
        reason=fit.reason,
    )


def _corner_shift_mm(
    h_a: np.ndarray, gap_a: tuple[float, float], h_b: np.ndarray, gap_b: tuple[float, float]
) -> float:
    """Largest move (mm, in fit a's board plane) of a board corner from fit a to fit b."""
    corners_b = apply_homography(np.linalg.inv(h_b), rect_corners(*board_size(gap_b)))
    moved = apply_homography(h_a, corners_b) - rect_corners(*board_size(gap_a))
    return float(np.abs(moved).max()) if np.all(np.isfinite(moved)) else math.inf
