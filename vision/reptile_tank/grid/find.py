""":func:`find_grid` and :func:`fit_from_corners`: the grid-finding stages put together."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace

import cv2
import numpy as np

from scoring.layout import Layout
from vision.errors import GridNotFoundError
from vision.geometry import (
    is_convex_quad,
    lines_meet,
    order_quad_clockwise,
    quad_area,
    rectangle_aspect,
)
from vision.reptile_tank.grid.candidates import (
    busiest_quad,
    busiest_region,
    card_candidates,
    dedupe,
)
from vision.reptile_tank.grid.lattice import (
    Lattice,
    aspect_penalty,
    extent_windows,
    find_lattices,
    gap_from_extent,
    transposed,
)
from vision.reptile_tank.grid.model import (
    DEFAULT_GAP_MM,
    WORK_SIDE,
    WORK_UPSCALE,
    GridFit,
    active_layout,
    board_size,
    fit_from_homography,
    focal_prior,
    orient_outer_quad,
    outer_homography,
    shifted,
    upright_first,
    using_layout,
    work_copy,
)
from vision.reptile_tank.grid.outline import (
    fit_outlines,
    refine_outer_corners,
)
from vision.reptile_tank.grid.rectified import (
    LEVEL_TILTS_DEG,
    distinct_normals,
    level_normal,
    plane_normal,
    quads_normal,
    rectified_candidates,
)
from vision.reptile_tank.grid.verification import (
    MIN_BOUNDARY_FRACTION,
    cell_occupancy,
    internal_boundary_fraction,
    lattice_evidence,
    metric_error,
)


def fit_from_corners(
    image_shape: tuple[int, ...],
    corners: np.ndarray,
    *,
    image_rgb: np.ndarray | None = None,
    gap_mm: float | None = None,
    layout: Layout | None = None,
) -> GridFit:
    """Fit the grid to four outer corners given by the user, in any order.

    Parameters
    ----------
    image_shape : tuple of int
        ``(H, W)`` or ``(H, W, 3)`` of the photo the corners were clicked on.
    corners : array_like
        ``(4, 2)`` outer corners of the grid in photo pixels, any order.
    image_rgb : np.ndarray, optional
        ``(H, W, 3)`` uint8 RGB photo; when given, the 5-card side is also checked against
        edge evidence and each cell's occupancy is measured (otherwise all cells are marked
        occupied with occupancy 1).
    layout : scoring.layout.Layout, optional
        Rows, columns and card size of the grid (Reptile Tank's from the rules data when None).
    gap_mm : float, optional
        Gap between cards; :data:`DEFAULT_GAP_MM` when not given (the edge evidence inside
        the quad cannot tell a card's border from a gap reliably).

    Returns
    -------
    GridFit
        ``method == "corners"``; corners ordered TL, TR, BR, BL with the 5-card side on top
        and the board's top edge the upper one on screen (turn with :meth:`rotated_180`).

    Raises
    ------
    ValueError
        ``corners`` is not four distinct points forming a convex quadrilateral.
    """
    with using_layout(layout):
        return _fit_from_corners(image_shape, corners, image_rgb, gap_mm)


def _fit_from_corners(
    image_shape: tuple[int, ...],
    corners: np.ndarray,
    image_rgb: np.ndarray | None,
    gap_mm: float | None,
) -> GridFit:
    pts = np.asarray(corners, dtype=np.float64)
    if pts.shape != (4, 2) or not np.all(np.isfinite(pts)):
        raise ValueError(f"corners must be 4 (x, y) points, got shape {pts.shape}")
    quad = order_quad_clockwise(pts)
    if not is_convex_quad(quad) or quad_area(quad) < 100.0:
        raise ValueError("corners must form a convex quadrilateral of non-trivial area")
    gap = (DEFAULT_GAP_MM, DEFAULT_GAP_MM) if gap_mm is None else (float(gap_mm),) * 2
    if image_rgb is None:
        oriented, _ = orient_outer_quad(quad, image_shape, gap)
        h = outer_homography(oriented, gap)
        fit = fit_from_homography(h, gap, method="corners", quality=1.0)
        return upright_first(fit)
    fit = _fit_outer_quad(image_rgb, None, quad, method="corners", gap=gap)
    return upright_first(fit)


def _fit_outer_quad(
    image_rgb: np.ndarray,
    gray: np.ndarray | None,
    quad: np.ndarray,
    *,
    method: str,
    gap: tuple[float, float] | None = None,
    image_to_work: float = 1.0,
    small: np.ndarray | None = None,
) -> GridFit:
    """Fit the lattice to an outer grid quad (image px): pick the 5-card side and the gaps."""
    q = order_quad_clockwise(quad)
    shape = image_rgb.shape
    if gray is None or small is None:
        small, gray, image_to_work = work_copy(image_rgb)
    choices = []
    for roll in (0, 1):
        oriented = np.roll(q, -roll, axis=0)
        evidence, measured_gap = lattice_evidence(gray, oriented * image_to_work)
        use_gap = gap if gap is not None else measured_gap
        width, height = board_size(use_gap)
        aspect = rectangle_aspect(oriented, (shape[1] / 2, shape[0] / 2), focal_prior(shape))
        aspect_cost = abs(math.log(aspect) - math.log(width / height))
        choices.append((evidence - 1.5 * aspect_cost, evidence, oriented, use_gap))
    choices.sort(key=lambda item: -item[0])
    _, evidence, oriented, use_gap = choices[0]
    h_image = outer_homography(oriented, use_gap)
    h_work = h_image @ np.diag([1 / image_to_work, 1 / image_to_work, 1.0])
    occupancy = cell_occupancy(small, h_work, use_gap)
    margin = choices[0][0] - choices[1][0]
    quality = float(np.clip(0.5 * (evidence - 1.0), 0.0, 1.0) * np.clip(margin / 0.3, 0.3, 1.0))
    return fit_from_homography(
        h_image, use_gap, method=method, occupancy=occupancy, quality=quality
    )


#: A blob fit must be a plausible camera view of the board (see metric_error; right blob fits
#: measured <= 0.26 on 350 synthetic scenes, a wrong one spanning two boards' sides 0.44).
_MAX_BLOB_CAMERA_ERROR = 0.35


def _turned_blob(fit: GridFit, small: np.ndarray, factor: float) -> GridFit:
    """The same outer quad with the other side taken as the 5-card side (gaps swapped)."""
    swapped = (fit.gap_mm[1], fit.gap_mm[0])
    h_image = outer_homography(np.roll(fit.corners, -1, axis=0), swapped)
    h_work = h_image @ np.diag([1 / factor, 1 / factor, 1.0])
    return fit_from_homography(
        h_image,
        swapped,
        method="blob",
        occupancy=cell_occupancy(small, h_work, swapped),
        quality=fit.quality,
    )


def _blob_fit(
    image_rgb: np.ndarray,
    small: np.ndarray,
    gray: np.ndarray,
    factor: float,
    quads: list[np.ndarray],
    card_area: float = 0.0,
    doubtful: list[GridFit] | None = None,
) -> GridFit | None:
    """Fallback for touching cards: the best large quad taken as the grid's outer edge.

    ``card_area`` (work px^2) is the area of the separate cards found, if any: a quad whose
    layout's cells would be less than half that size is a block of a few cards, not the grid.
    Quads of the right shape and print that fail only the card-boundary or camera test (a
    small, blurred grid far away shows few boundaries) are appended to ``doubtful``.
    """
    lay = active_layout()
    image_area = gray.shape[0] * gray.shape[1]
    h, w = gray.shape
    big = [
        q
        for q in quads
        if quad_area(q) > 0.02 * image_area
        and q[:, 0].min() > 2
        and q[:, 1].min() > 2
        and q[:, 0].max() < w - 3
        and q[:, 1].max() < h - 3
    ][:6]
    best = None
    for quad in big:
        fit = _fit_outer_quad(
            image_rgb, gray, quad / factor, method="blob", image_to_work=factor, small=small
        )
        if quad_area(quad) / (lay.rows * lay.cols) < 0.5 * card_area:
            continue
        if fit.occupied.sum() < 15:
            continue
        board_w, board_h = fit.board_size_mm
        corners_work = fit.corners * factor
        aspect = rectangle_aspect(corners_work, (w / 2, h / 2), focal_prior(gray.shape))
        if not math.isfinite(aspect) or abs(math.log(aspect * board_h / board_w)) > 0.3:
            # the aspect estimate needs the focal length: a far, small grid may still be one
            if doubtful is not None and math.isfinite(aspect):
                doubtful.append(replace(fit, reason=_NO_STRUCTURE))
            continue
        boundaries = internal_boundary_fraction(gray, corners_work, fit.gap_mm)
        swapped = (fit.gap_mm[1], fit.gap_mm[0])
        turned = internal_boundary_fraction(gray, np.roll(corners_work, -1, axis=0), swapped)
        if turned > boundaries + 0.1:  # the card boundaries say the 5-card side is the other
            fit, boundaries = _turned_blob(fit, small, factor), turned
        if boundaries < MIN_BOUNDARY_FRACTION or (
            metric_error(np.linalg.inv(fit.homography), image_rgb.shape) > _MAX_BLOB_CAMERA_ERROR
        ):
            # one card's panel or a plain mat shows no card boundaries inside; no camera sees
            # a flat 5x4 board of cards like some quads
            if doubtful is not None:
                doubtful.append(replace(fit, reason=_NO_STRUCTURE))
            continue
        if best is None or fit.quality > best.quality:
            best = fit
    return best


#: A second pass on the grid's region runs when the first pass saw cards narrower than this
#: (working-copy pixels) or found nothing, and when the region gives this much more resolution.
_SMALL_CARD_PX = 60.0
_MIN_ZOOM_GAIN = 1.35
#: Photos up to this long side (an in-page camera's) are enlarged for grid finding.
_UPSCALE_MAX_SIDE = 1600


def find_grid_candidates(
    image_rgb: np.ndarray,
    *,
    min_quality: float = 0.2,
    limit: int = 6,
    twins: bool = True,
    layout: Layout | None = None,
    memo: dict | None = None,
) -> list[GridFit]:
    """Candidate lattices of the layout for a photo, the geometrically preferred one first.

    Grid finding's hypotheses, before their outline fit (:func:`refine_fit`): the accepted
    lattice (``reason == ""``) and the alternatives the geometry alone cannot rule out, each
    with its doubt in ``reason``: every 5x4 window when the cards found leave the grid's
    extent open, the lattice taken the other way round (rows <-> columns, which a strong tilt
    confuses), a lattice of card-shaped outlines that look like the table, a touching-cards
    block with the other side taken as the 5-card side. The caller judges them (the reader
    lets the recogniser say which explains the photo). Candidates whose outer corners agree
    within half a card are given once.

    A first pass works on a ~1000 px copy of the whole photo. When it finds small cards (or
    no accepted lattice), a second pass repeats the search on the region around that attempt,
    cropped from ``image_rgb`` at up to its full resolution; its candidates come first when
    it accepts a lattice that agrees with the first pass's (or the first pass had none).

    Parameters
    ----------
    image_rgb : np.ndarray
        ``(H, W, 3)`` uint8 RGB photo (any size; worked on at ~1000 px).
    min_quality : float, optional
        Blob fits below this quality are not candidates.
    limit : int, optional
        At most this many candidates are returned.
    twins : bool, optional
        Also propose the best lattice taken the other way round (and a touching-cards block's
        other side); ``False`` skips that work when the caller will only judge the first
        candidate.
    layout : scoring.layout.Layout, optional
        Rows, columns and card size of the grid (Reptile Tank's from the rules data when None).
    memo : dict, optional
        An empty dict the caller passes to every search of the same photo (and layout): the
        card candidates and lattices found are kept there, so a second search (``twins=True``
        after ``twins=False``) costs only what is new.

    Returns
    -------
    list of GridFit
        In the pixel frame of ``image_rgb``, board 'up' pointing up on screen where it can
        be told; at least one.

    Raises
    ------
    GridNotFoundError
        Nothing card-like forms a grid; ``attempted_fit`` holds the best try.
    """
    with using_layout(layout):
        return _find_grid_candidates(image_rgb, min_quality, limit, twins, memo)


def _find_grid_candidates(
    image_rgb: np.ndarray,
    min_quality: float,
    limit: int,
    twins: bool,
    memo: dict | None,
    rescue: bool = True,
) -> list[GridFit]:
    if image_rgb.ndim != 3 or image_rgb.shape[2] != 3 or image_rgb.dtype != np.uint8:
        raise ValueError(f"image_rgb must be (H, W, 3) uint8, got {image_rgb.shape}")
    # small photos (an in-page camera's) and their zoom crops are enlarged towards WORK_SIDE;
    # a phone photo's zoom crops only when the first pass accepted nothing (always enlarging
    # them cost ~25 % more time on 12 MP photos for no measured gain)
    upscale = WORK_UPSCALE if max(image_rgb.shape[:2]) <= _UPSCALE_MAX_SIDE else 1.0
    first_error: GridNotFoundError | None = None
    try:
        fits = _candidates_once(image_rgb, min_quality, twins, upscale, memo, None)
        guide: GridFit | None = fits[0]
    except GridNotFoundError as error:
        first_error, fits, guide = error, [], error.attempted_fit
    found = bool(fits) and not fits[0].reason
    # a rescue (nothing accepted yet) may enlarge its crops of a phone photo too
    zoom_upscale = upscale if found else WORK_UPSCALE
    regions = [_zoom_region(image_rgb.shape, _bounds(guide), found=found, upscale=zoom_upscale)]
    if not found and rescue:
        busiest = None if memo is None else memo.get("busiest")
        if busiest is None:
            busiest = (busiest_region(image_rgb), busiest_quad(image_rgb))
            if memo is not None:
                memo["busiest"] = busiest
        for bounds in busiest:
            regions.append(_zoom_region(image_rgb.shape, bounds, found=False, upscale=zoom_upscale))
    for region in dict.fromkeys(r for r in regions if r is not None):
        x0, y0, x1, y1 = region
        try:
            crop = np.ascontiguousarray(image_rgb[y0:y1, x0:x1])
            found_here = _candidates_once(crop, min_quality, twins, zoom_upscale, memo, region)
            zoomed = [shifted(f, x0, y0) for f in found_here]
        except GridNotFoundError:
            continue
        if zoomed[0].reason:
            fits = fits + zoomed  # only doubtful ones: theirs after the first pass's
            continue
        if found and not _same_grid(fits[0], zoomed[0]):
            continue  # the closer look found something else: keep the first answer
        fits = zoomed + fits[1:]
        break
    if not fits:
        assert first_error is not None
        raise first_error
    fits.sort(key=lambda f: bool(f.reason))  # stable: accepted first, in their order
    out: list[GridFit] = []
    for fit in fits:
        fit = upright_first(fit)
        if not any(_same_grid(fit, other, 0.5) and _same_side(fit, other) for other in out):
            out.append(fit)
    return out[:limit]


def refine_fit(image_rgb: np.ndarray, fit: GridFit) -> GridFit:
    """A candidate fitted to its cards' outlines at the photo's resolution (see find_grid)."""
    with using_layout(fit.layout):
        return upright_first(fit_outlines(image_rgb, fit))


def find_grid(
    image_rgb: np.ndarray, *, min_quality: float = 0.2, layout: Layout | None = None
) -> GridFit:
    """Locate the layout's grid of cards in a photo: the geometrically preferred candidate.

    :func:`find_grid_candidates`' first candidate, fitted to the card outlines
    (:func:`refine_fit`), when grid finding accepted it; the reader instead judges all
    candidates with the recogniser.

    Parameters
    ----------
    image_rgb : np.ndarray
        ``(H, W, 3)`` uint8 RGB photo (any size; worked on at ~1000 px).
    min_quality : float, optional
        Fits below this quality are rejected.
    layout : scoring.layout.Layout, optional
        Rows, columns and card size of the grid (Reptile Tank's from the rules data when None).

    Returns
    -------
    GridFit
        In the pixel frame of ``image_rgb``, board 'up' pointing up on screen where it can
        be told (the 180-degree choice is left to the classifier's vote).

    Raises
    ------
    GridNotFoundError
        No grid, or its outer extent cannot be told; ``attempted_fit`` holds the best try.
    """
    fits = find_grid_candidates(image_rgb, min_quality=min_quality, twins=False, layout=layout)
    if fits[0].reason:
        raise GridNotFoundError(f"no terrarium found: {fits[0].reason}", fits[0])
    return refine_fit(image_rgb, fits[0])


def _same_side(a: GridFit, b: GridFit) -> bool:
    """True when two fits take the same image direction as their 5-card side."""
    da = a.corners[1] - a.corners[0]
    db = b.corners[1] - b.corners[0]
    cos = abs(float(da @ db)) / max(float(np.linalg.norm(da) * np.linalg.norm(db)), 1e-9)
    return cos > 0.5


def _same_grid(a: GridFit, b: GridFit, cards: float = 1.5) -> bool:
    """True when two fits' outer corners agree within ``cards`` card widths (modulo 180°)."""
    card = cards * (np.linalg.norm(a.corners[1] - a.corners[0])) / active_layout().cols
    return any(
        float(np.linalg.norm(np.roll(b.corners, k, axis=0) - a.corners, axis=1).max()) < card
        for k in (0, 2)
    )


def _bounds(fit: GridFit | None) -> tuple[np.ndarray, np.ndarray, float] | None:
    """``(lo, hi, card width)`` in image pixels of a fit's outer quad, or None."""
    if fit is None or not np.all(np.isfinite(fit.corners)):
        return None
    c = fit.corners
    card = 0.5 * (np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[2] - c[3])) / active_layout().cols
    return c.min(axis=0), c.max(axis=0), float(card)


def _zoom_region(
    shape: tuple[int, ...],
    bounds: tuple[np.ndarray, np.ndarray, float] | None,
    *,
    found: bool,
    upscale: float = 1.0,
) -> tuple[int, int, int, int] | None:
    """Crop ``(x0, y0, x1, y1)`` for the second pass, or None when it would not help.

    The crop is the guide's bounding box grown by 15 % of its size on each side (25 % for a
    failed first pass, whose extent is uncertain). It is used when the first pass saw cards
    narrower than :data:`_SMALL_CARD_PX` in its working copy (or failed) and the crop's own
    working copy is at least :data:`_MIN_ZOOM_GAIN` times sharper.
    """
    if bounds is None:
        return None
    lo, hi, card = bounds
    h, w = shape[:2]
    factor = min(upscale, WORK_SIDE / max(h, w))
    if found and factor * card >= _SMALL_CARD_PX:
        return None
    grow = (0.15 if found else 0.25) * (hi - lo) + 8.0
    x0, y0 = np.floor(np.maximum(lo - grow, 0)).astype(int)
    x1, y1 = np.ceil(np.minimum(hi + grow, (w, h))).astype(int)
    if x1 - x0 < 64 or y1 - y0 < 64:
        return None
    crop_factor = min(upscale, WORK_SIDE / max(x1 - x0, y1 - y0))
    if crop_factor < _MIN_ZOOM_GAIN * factor:
        return None
    return int(x0), int(y0), int(x1), int(y1)


def _lattice_fits(
    lattice: Lattice, small: np.ndarray, gray: np.ndarray, factor: float
) -> list[tuple[GridFit, str]]:
    """The grids fitted from a lattice of card candidates: ``[(fit in image px, doubt)]``.

    One fit per 5x4 window the cards leave possible (see :func:`extent_windows`); ``doubt``
    is empty for an accepted fit. A lattice is in doubt when its 5x4 extent is not
    determined, when too few separate cards support it and the cells show no card
    boundaries, or when most of its cards lie in cells that look like the table (a lattice of
    table-cloth checks).
    """
    out = []
    for h_work, inside, doubt in extent_windows(lattice, small):
        fit, why = _window_fit(lattice, h_work, inside, small, gray, factor)
        out.append((fit, doubt or why))
    return out


def _window_fit(
    lattice: Lattice,
    h_work: np.ndarray,
    inside: set[tuple[int, int]],
    small: np.ndarray,
    gray: np.ndarray,
    factor: float,
) -> tuple[GridFit, str]:
    """One 5x4 window of a lattice fitted: ``(fit in image px, why rejected)``."""
    gap = lattice.gap
    fit = fit_from_homography(h_work, gap, method="lattice", residual_px=lattice.residual_mm)
    refined = refine_outer_corners(gray, fit.corners, board_size(gap))
    if refined is not None:
        gap = gap_from_extent(h_work, refined, lattice.gap)
        h_work = outer_homography(refined, gap)
    occupancy = cell_occupancy(small, h_work, gap)
    quality = math.exp(-lattice.residual_mm / 4.0) * (
        0.4 + 0.6 * len(inside) / max(1, int((occupancy > 0.5).sum()))
    )
    fit = fit_from_homography(
        h_work,
        gap,
        method="lattice",
        occupancy=occupancy,
        residual_px=lattice.residual_mm,
        quality=min(1.0, quality),
    ).scaled(1.0 / factor)
    on_table = sum(occupancy[r, c] <= 0.5 for r, c in inside)
    if on_table > 0.5 * len(inside):
        return fit, _TABLE_LIKE
    if len(inside) >= 6 or (
        fit.occupied.sum() >= 10
        and internal_boundary_fraction(gray, fit.corners * factor, gap) >= MIN_BOUNDARY_FRACTION
    ):
        return fit, ""
    return fit, f"{_FEW_SEPARATE} ({len(inside)}) in the grid; give the grid's corners"


_TRANSPOSED = "the cards could also be read the other way round (rows and columns swapped)"
_NO_STRUCTURE = "the largest card-coloured block shows no clear 5x4 card boundaries"
_TABLE_LIKE = "the card-shaped outlines found look like the table, not cards"
#: Lattices in doubt for these reasons are still candidates (the recogniser judges them, and
#: a wrong one explains few cards); a lattice of poor quality is not.
_FEW_SEPARATE = "too few separate cards found"
_JUDGEABLE = (
    "outer extent of the grid is not determined",
    _TABLE_LIKE,
    _TRANSPOSED,
    _NO_STRUCTURE,
    _FEW_SEPARATE,
)


#: A lattice other than the best-scoring one is only tried when a camera could plausibly see
#: it (see aspect_penalty; the right lattice scores ~0-2, wrong-way-round ones > 4).
#: Lattice fits below this quality are refused (the user's corners decide). Measured on 461
#: synthetic scenes (frozen full/mid-game/unseen-deck sets and a development set): right fits
#: scored 0.16-0.80, the four wrong fits (off by 2-3 cards, unseen deck) 0.03-0.06.
_MIN_LATTICE_QUALITY = 0.1
_MAX_ALTERNATIVE_PENALTY = 3.0


def _candidates_once(
    image_rgb: np.ndarray,
    min_quality: float,
    twins: bool,
    upscale: float = 1.0,
    memo: dict | None = None,
    key: object = None,
) -> list[GridFit]:
    """One grid-finding pass on a ~1000 px working copy: candidates (see find_grid_candidates).

    Lattices are tried best first until one is accepted; the accepted one and the judgeable
    doubtful ones (and the transposed twin of the best lattice) are returned, accepted first.
    The touching-cards fallback runs when no lattice is accepted. ``memo`` (owned by one caller
    for one photo) keeps the pass's card quads and lattices under ``key`` for a second search.
    """
    search = None if memo is None else memo.get((key, upscale))
    if search is None:
        small, gray, factor = work_copy(image_rgb, upscale)
        quads = dedupe(card_candidates(gray))
        card_quads = [q for q in quads if quad_area(q) < 0.2 * gray.size][:200]
        lattices = find_lattices(card_quads, gray.shape)
        search = (small, gray, factor, quads, card_quads, lattices)
        if memo is not None:
            memo[(key, upscale)] = search
            if key is None:  # the whole photo's outlines (see find_rectified_candidates)
                memo.setdefault("first quads", (factor, card_quads))
    small, gray, factor, quads, card_quads, lattices = search
    reason = "no card-shaped outlines found"
    if card_quads:
        reason = (  # a table's pattern or a die makes outlines too: never say "one card"
            f"no 3 cards in a grid ({len(card_quads)} card-shaped outline"
            f"{'s' * (len(card_quads) != 1)} seen); give the grid's corners"
        )
    attempted = None
    accepted: list[GridFit] = []
    doubtful: list[GridFit] = []
    for rank, lattice in enumerate(lattices):
        if rank > 0 and aspect_penalty(lattice, gray.shape) > _MAX_ALTERNATIVE_PENALTY:
            continue
        variants = [(lattice, "")]
        if rank == 0 and twins:
            twin = transposed(lattice)
            if twin is not None and len(twin.cells) >= 3:
                variants.append((twin, _TRANSPOSED))
        for k, (variant, twin_doubt) in enumerate(variants):
            fits_key = ("fits", key, upscale, rank, k)
            window_fits = None if memo is None else memo.get(fits_key)
            if window_fits is None:
                window_fits = _lattice_fits(variant, small, gray, factor)
                if memo is not None:
                    memo[fits_key] = window_fits
            for fit, why in window_fits:
                if not why and fit.quality < _MIN_LATTICE_QUALITY:
                    why = (
                        f"the best {active_layout().rows}x{active_layout().cols} lattice fits the "
                        f"photo poorly (quality {fit.quality:.2f})"
                    )
                why = why or twin_doubt
                if not why:
                    accepted.append(replace(fit, reason=""))
                elif why.startswith(_JUDGEABLE):
                    doubtful.append(replace(fit, reason=why))
                if k == 0 and rank == 0 and why and attempted is None:
                    attempted, reason = fit, why
        if accepted:
            break
    if accepted:
        return accepted + doubtful
    card_area = (
        float(np.median([quad_area(q) for q in lattices[0].cells.values()])) if lattices else 0.0
    )
    blob_key = ("blob", key, upscale)
    if memo is not None and blob_key in memo:
        blob, blobs = memo[blob_key]
    else:
        blobs = []
        blob = _blob_fit(image_rgb, small, gray, factor, quads, card_area, blobs)
        if memo is not None:
            memo[blob_key] = (blob, blobs)
    if not twins:
        blobs = []
    if blob is not None and blob.quality >= min_quality:
        refined = refine_outer_corners(gray, blob.corners * factor, blob.board_size_mm)
        if refined is not None:
            oriented = refined / factor
            h = outer_homography(oriented, blob.gap_mm)
            blob = replace(
                fit_from_homography(h, blob.gap_mm, method="blob", quality=blob.quality),
                occupied=blob.occupied,
                occupancy=blob.occupancy,
            )
        # on the refined outline, right blob fits' boundaries beat the other side's by >= 0.45
        corners_work = blob.corners * factor
        swapped = (blob.gap_mm[1], blob.gap_mm[0])
        turned_boundaries = internal_boundary_fraction(
            gray, np.roll(corners_work, -1, axis=0), swapped
        )
        if turned_boundaries > internal_boundary_fraction(gray, corners_work, blob.gap_mm):
            blob = _turned_blob(blob, small, factor)
        if not twins:
            return [upright_first(blob)] + doubtful
        twin = replace(_turned_blob(blob, small, factor), reason=_TRANSPOSED)
        return [upright_first(blob)] + doubtful + [upright_first(twin)]
    for doubtful_blob in blobs[:2]:
        doubtful.append(upright_first(doubtful_blob))
        turned = _turned_blob(doubtful_blob, small, factor)
        doubtful.append(upright_first(replace(turned, reason=_NO_STRUCTURE)))
    if doubtful:
        return doubtful
    if blob is not None and (attempted is None or attempted.quality < blob.quality):
        attempted = replace(blob, reason="the largest card-coloured block has no 5x4 structure")
        reason = attempted.reason if not lattices else reason
    raise GridNotFoundError(f"no terrarium found: {reason}", attempted)


def outlines_outside(fit: GridFit, memo: dict | None, within: float | None = None) -> int:
    """How many distinct card-shaped outlines of the photo lie outside ``fit``'s grid.

    The outlines are those of the photo's first search (kept in ``memo`` by
    :func:`find_grid_candidates`); one whose centre falls inside the grid's outline is the
    grid's own, and nested outlines (a card's inner panel, its sleeve) count once: outlines
    whose centres lie within half a card's side of one already counted are the same card.
    ``within``: only outlines whose centre lies at most that many of their own sides (the
    square root of their area) from the grid's outline, the cards right beside it. 0 when the
    memo holds none.
    """

    def beside(_centre, side, inside) -> bool:
        return inside < 0 and (within is None or -inside <= within * side)

    return len(_distinct_outlines(fit, memo, beside))


#: A card outline inside the grid whose centre lies at least this share of its own side from
#: every cell's centre is cut through by the grid (:func:`outlines_across`).
ACROSS_OFFSET = 0.35


def outlines_across(fit: GridFit, memo: dict | None) -> int:
    """How many distinct card-shaped outlines inside ``fit``'s grid it cuts through: their
    centre lies at least :data:`ACROSS_OFFSET` of their side from every cell's centre (outlines
    of a card's size only: 0.75-1.33 times the cells' side). A grid
    on the board has its cards on its cells (laid by hand, a few millimetres off); a grid put
    half a card beside the board (onto the table and a neighbour's loose cards) has the
    board's cards straddling its cells. Outlines as :func:`outlines_outside` counts them."""
    cells = np.asarray(fit.cell_quads, np.float64).reshape(-1, 4, 2)
    centres = cells.mean(axis=1)
    cell_side = float(np.median([math.sqrt(max(quad_area(q), 0.0)) for q in cells]))

    def across(centre, side, inside) -> bool:
        if inside < 0 or not 0.75 * cell_side <= side <= 1.33 * cell_side:
            return False  # outside, or no card's size here (a card's art panel, two cards)
        return float(np.linalg.norm(centres - centre, axis=1).min()) >= ACROSS_OFFSET * side

    return len(_distinct_outlines(fit, memo, across))


def _distinct_outlines(fit: GridFit, memo: dict | None, keep) -> list[np.ndarray]:
    """The centres of the photo's card outlines (``memo``'s first search) in ``fit``'s pixels
    that ``keep(centre, side, inside)`` keeps (``side``: the square root of the outline's area;
    ``inside``: the centre's signed distance to the grid's outline, positive inside), nested
    ones (centres within half a side of one kept) once."""
    first = None if memo is None else memo.get("first quads")
    if not first or not first[1]:
        return []
    factor, card_quads = first
    outline = fit.corners.astype(np.float32).reshape(-1, 1, 2)
    counted: list[np.ndarray] = []
    for quad in card_quads:
        quad = np.asarray(quad, np.float64) / factor
        centre = quad.mean(axis=0)
        inside = cv2.pointPolygonTest(outline, (float(centre[0]), float(centre[1])), True)
        side = math.sqrt(max(quad_area(quad), 0.0))
        if not keep(centre, side, float(inside)):
            continue
        if any(float(np.linalg.norm(centre - other)) < 0.5 * side for other in counted):
            continue
        counted.append(centre)
    return counted


#: A corner pulled off (:func:`find_completed_candidates`): each side through a good corner is
#: looked for within this many degrees of the opposite side's direction, in steps of
#: :data:`_SIDE_STEP_DEG`, over this share of its length from the corner.
_SIDE_SPREAD_DEG = 20.0
_SIDE_STEP_DEG = 0.5
_SIDE_REACH = (0.05, 0.6)
#: The best earlier hypotheses whose corners are completed.
_COMPLETED_FITS = 2


def _side_direction(
    gx: np.ndarray, gy: np.ndarray, corner: np.ndarray, guess: np.ndarray
) -> np.ndarray:
    """The unit direction, near ``guess`` (a side's vector from ``corner``), along which the
    image steps most consistently across a line from ``corner``: a card's edge against the
    table, one sign of the gradient across it all along."""
    h, w = gx.shape
    length = float(np.linalg.norm(guess))
    base = math.atan2(guess[1], guess[0])
    t = np.linspace(*_SIDE_REACH, 80) * length
    best, best_score = guess / max(length, 1e-9), -1.0
    for offset in np.arange(-_SIDE_SPREAD_DEG, _SIDE_SPREAD_DEG + 1e-9, _SIDE_STEP_DEG):
        angle = base + math.radians(float(offset))
        direction = np.array([math.cos(angle), math.sin(angle)])
        points = corner + t[:, None] * direction
        x = np.clip(np.rint(points[:, 0]).astype(int), 0, w - 1)
        y = np.clip(np.rint(points[:, 1]).astype(int), 0, h - 1)
        across = gx[y, x] * -direction[1] + gy[y, x] * direction[0]
        score = abs(float(across.mean()))
        if score > best_score:
            best, best_score = direction, score
    return best


def find_completed_candidates(
    image_rgb: np.ndarray, fits: list[GridFit], *, layout: Layout | None = None
) -> list[GridFit]:
    """Each of the first :data:`_COMPLETED_FITS` ``fits`` with one outer corner found again
    from the other three: a hand, a die or a loose card touching the board pulls one corner
    of its outline off (the blob's quad takes them in), while the other three and the two
    sides from them away from it stay the board's. For each corner, those two sides are
    looked for along the board's edge near the opposite sides' directions
    (:func:`_side_direction`) and the corner put where they meet; four candidates a fit, for
    the recogniser to judge (run by the reader only when no hypothesis explains the photo).
    """
    out: list[GridFit] = []
    _, gray, factor = work_copy(image_rgb)
    blur = cv2.GaussianBlur(gray.astype(np.float32), (5, 5), 0)
    gx, gy = cv2.Sobel(blur, cv2.CV_32F, 1, 0), cv2.Sobel(blur, cv2.CV_32F, 0, 1)
    for fit in fits[:_COMPLETED_FITS]:
        quad = np.asarray(fit.corners, np.float64) * factor
        for k in range(4):
            after, opposite, before = (quad[(k + i) % 4] for i in (1, 2, 3))
            first = _side_direction(gx, gy, after, before - opposite)
            second = _side_direction(gx, gy, before, after - opposite)
            corner = lines_meet((after, first), (before, second))
            if corner is None:
                continue
            completed = quad.copy()
            completed[k] = corner
            try:
                out.append(
                    fit_from_corners(
                        image_rgb.shape, completed / factor, image_rgb=image_rgb, layout=layout
                    )
                )
            except ValueError:
                continue  # the sides met where no convex board lies
    return out


#: The best earlier hypotheses whose planes are tried.
_PLANE_FITS = 2


def find_rectified_candidates(
    image_rgb: np.ndarray,
    fits: list[GridFit],
    *,
    layout: Layout | None = None,
    memo: dict | None = None,
) -> Iterator[list[GridFit]]:
    """Grid candidates found on top-down views of the table (see :mod:`vision.reptile_tank.grid.rectified`).

    Yields, view by view, the candidates found there in ``image_rgb``'s pixels (the caller
    stops when one explains the photo). The table's plane is taken, in this order, from the
    card-like quads of the photo's first search (kept in ``memo`` by
    :func:`find_grid_candidates`) when enough of them agree, from ``fits`` (earlier
    hypotheses, best first, the first :data:`_PLANE_FITS`: right or wrong, they lie on the
    table), and from a phone held level (the horizon parallel to the image's rows, the table
    seen at :data:`~vision.reptile_tank.grid.rectified.LEVEL_TILTS_DEG`); at most
    :data:`~vision.reptile_tank.grid.rectified.MAX_PLANES` distinct, strongly tilted planes. Each view
    shows the region around its hypothesis (for the others: where most card-like quads lie;
    the whole photo when there are none).
    """
    with using_layout(layout):
        shape = image_rgb.shape
        h, w = shape[:2]
        whole = (np.zeros(2), np.array([w - 1.0, h - 1.0]))
        quads_region, quads_plane = whole, None
        first = None if memo is None else memo.get("first quads")
        if first is not None and first[1]:
            factor, card_quads = first
            quads = [q / factor for q in card_quads[:60]]
            centres = np.array([q.mean(axis=0) for q in quads])
            # where the card-like outlines are (the busiest region is often a shadow's edge
            # or a die): the middle 80 % of their centres
            quads_region = (np.percentile(centres, 10, axis=0), np.percentile(centres, 90, axis=0))
            quads_plane = quads_normal(quads, shape)
        normals: list[np.ndarray | None] = [quads_plane]
        regions = [quads_region]
        for fit in fits[:_PLANE_FITS]:
            normals.append(plane_normal(fit.homography, shape))
            regions.append((fit.corners.min(axis=0), fit.corners.max(axis=0)))
        for tilt in LEVEL_TILTS_DEG:
            normals.append(level_normal(tilt))
            regions.append(quads_region)
        chosen = distinct_normals(normals, regions)

        def find(view: np.ndarray) -> list[GridFit]:
            # the view is framed on the grid's likely place: no rescue zooms elsewhere
            return _find_grid_candidates(view, 0.2, 6, True, None, rescue=False)

        for i in chosen:
            out: list[GridFit] = []
            for fit in rectified_candidates(image_rgb, [normals[i]], [regions[i]], find):
                fit = upright_first(fit)
                if not any(_same_grid(fit, other, 0.5) and _same_side(fit, other) for other in out):
                    out.append(fit)
            yield out
