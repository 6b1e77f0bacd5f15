"""The grid model: board-plane geometry, :class:`GridFit`, rectifying and drawing a fit."""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from scoring.layout import Layout
from vision.geometry import (
    apply_homography,
    order_quad_clockwise,
    rect_corners,
    rectangle_aspect,
)

# ------------------------------------------------------------------------------ layout
#
# Grid finding works for any layout of rows x cols cards of cell_w_mm x cell_h_mm: the public
# functions take it as a value (``layout=``, or a fit's own ``GridFit.layout``) and make it the
# active one for the stages below them, which read it through ``active_layout()``; there is no
# grid size at import time. Reptile Tank's layout comes from the rules data's ``[grid]`` section.

_ACTIVE_LAYOUT: ContextVar[Layout | None] = ContextVar("vision_grid_layout", default=None)


@lru_cache(maxsize=1)
def reptile_tank_layout() -> Layout:
    """Reptile Tank's layout (rows, columns, card size) from the default rules data."""
    from scoring.reptile_tank.rules import default_layout

    return default_layout()


def active_layout() -> Layout:  # the active layout, read by every stage
    layout = _ACTIVE_LAYOUT.get()
    return layout if layout is not None else reptile_tank_layout()


@contextmanager
def using_layout(layout: Layout | None) -> Iterator[Layout]:
    """Make ``layout`` (the active one when None) the grid layout inside the block."""
    active = layout if layout is not None else active_layout()
    token = _ACTIVE_LAYOUT.set(active)
    try:
        yield active
    finally:
        _ACTIVE_LAYOUT.reset(token)


#: Gap between cards assumed when nothing measures it (manual corners, touching-card blobs).
DEFAULT_GAP_MM = 1.0
#: Gaps outside this range (mm) are not a terrarium.
GAP_RANGE_MM = (-3.0, 15.0)
#: Long side (px) of the working copy used for grid finding.
WORK_SIDE = 1000
#: Photos (and zoom crops) smaller than the working size are enlarged by up to this much.
WORK_UPSCALE = 2.0
#: Default size ``(width, height)`` of a rectified cell crop, portrait like the card.
CELL_SIZE = (96, 128)


@dataclass(frozen=True)
class GridFit:
    """A rows x cols lattice (its ``layout``) fitted to a photo.

    Attributes
    ----------
    homography : np.ndarray
        ``(3, 3)`` float64, image pixels -> board plane (mm).
    corners : np.ndarray
        ``(4, 2)`` float64 outer grid corners in image pixels, TL, TR, BR, BL in this fit's
        board orientation (the upright board or the board turned by 180 degrees; the
        classifier's vote decides, see :meth:`rotated_180`).
    cell_quads : np.ndarray
        ``(4, 5, 4, 2)`` float64, each cell's card corners TL, TR, BR, BL in image pixels.
    occupied : np.ndarray
        ``(4, 5)`` bool, whether a card lies in the cell.
    occupancy : np.ndarray
        ``(4, 5)`` float64 in 0..1, the evidence behind ``occupied`` (> 0.5 = occupied).
    quality : float
        0..1, from the corner reprojection residual and the fraction of cells with card
        evidence; below ~0.5 the app should ask the user to check the corners.
    method : str
        ``"lattice"`` (separate cards), ``"blob"`` (outer edge of touching cards) or
        ``"corners"`` (given by the user).
    gap_mm : tuple of float
        ``(gx, gy)``, gap between columns and between rows in mm.
    reason : str
        Why the fit is doubtful or was rejected; empty for a good fit.
    layout : scoring.layout.Layout
        The layout fitted (rows, columns, card size); Reptile Tank's when None.
    unseen : np.ndarray or None
        ``(4, 5)`` bool, the cells no card evidence was gathered for (the new line of a lattice
        moved by whole cells, :meth:`shifted_lines`): their ``occupancy`` is 0.5, no opinion,
        not a measured 0.5. None: every cell was looked at.
    """

    homography: np.ndarray
    corners: np.ndarray
    cell_quads: np.ndarray
    occupied: np.ndarray
    occupancy: np.ndarray
    quality: float
    method: str
    gap_mm: tuple[float, float] = (DEFAULT_GAP_MM, DEFAULT_GAP_MM)
    reason: str = ""
    residual_px: float = field(default=float("nan"))
    layout: Layout | None = None
    unseen: np.ndarray | None = None

    @property
    def unseen_cells(self) -> np.ndarray:
        """``unseen`` as a bool array of the lattice's shape (all False when None)."""
        if self.unseen is None:
            return np.zeros(self.occupancy.shape, bool)
        return np.asarray(self.unseen, bool)

    @property
    def board_size_mm(self) -> tuple[float, float]:
        """``(width, height)`` of the board plane in mm."""
        with using_layout(self.layout):
            return board_size(self.gap_mm)

    def rotated_180(self) -> GridFit:
        """The same fit with the board turned by 180 degrees (cell (0,0) <-> (3,4))."""
        width, height = self.board_size_mm
        turn = np.array([[-1.0, 0.0, width], [0.0, -1.0, height], [0.0, 0.0, 1.0]])
        return replace(
            self,
            homography=turn @ self.homography,
            corners=np.roll(self.corners, -2, axis=0),
            cell_quads=np.roll(self.cell_quads[::-1, ::-1], -2, axis=2).copy(),
            occupied=self.occupied[::-1, ::-1].copy(),
            occupancy=self.occupancy[::-1, ::-1].copy(),
            unseen=None if self.unseen is None else self.unseen[::-1, ::-1].copy(),
        )

    def shifted_lines(self, rows: int = 0, cols: int = 0) -> GridFit:
        """The same lattice moved by whole cells: cell ``(r, c)`` of the result is cell
        ``(r + rows, c + cols)`` of this fit (one column or row either way of an empty edge
        line). The occupancy of the cells both fits share is kept, the new line's is unknown
        (0.5, no opinion, and marked :attr:`unseen`); the quality is kept.
        """
        with using_layout(self.layout):
            lay = active_layout()
            gx, gy = self.gap_mm
            shift = np.array(
                [
                    [1.0, 0.0, -cols * (lay.cell_w_mm + gx)],
                    [0.0, 1.0, -rows * (lay.cell_h_mm + gy)],
                    [0.0, 0.0, 1.0],
                ]
            )
            occupancy = np.full((lay.rows, lay.cols), 0.5)
            unseen = np.ones((lay.rows, lay.cols), bool)
            before = self.unseen_cells
            for r in range(lay.rows):
                for c in range(lay.cols):
                    if 0 <= r + rows < lay.rows and 0 <= c + cols < lay.cols:
                        occupancy[r, c] = self.occupancy[r + rows, c + cols]
                        unseen[r, c] = before[r + rows, c + cols]
            moved = fit_from_homography(
                shift @ self.homography,
                self.gap_mm,
                method=self.method,
                occupancy=occupancy,
                residual_px=self.residual_px,
                quality=self.quality,
                reason=self.reason,
            )
            return replace(moved, unseen=unseen)

    def scaled(self, factor: float) -> GridFit:
        """The fit for the same photo resized by ``factor`` (image pixels times ``factor``)."""
        unscale = np.diag([1.0 / factor, 1.0 / factor, 1.0])
        return replace(
            self,
            homography=self.homography @ unscale,
            corners=self.corners * factor,
            cell_quads=self.cell_quads * factor,
        )


# --------------------------------------------------------------------------- board plane


def board_size(gap: tuple[float, float]) -> tuple[float, float]:
    lay = active_layout()
    gx, gy = gap
    return lay.cols * lay.cell_w_mm + (lay.cols - 1) * gx, lay.rows * lay.cell_h_mm + (
        lay.rows - 1
    ) * gy


def _cell_rects_mm(gap: tuple[float, float]) -> np.ndarray:
    """``(4, 5, 4, 2)`` board-plane corners TL, TR, BR, BL of every cell's card."""
    lay = active_layout()
    gx, gy = gap
    out = np.empty((lay.rows, lay.cols, 4, 2))
    for r in range(lay.rows):
        for c in range(lay.cols):
            x0, y0 = c * (lay.cell_w_mm + gx), r * (lay.cell_h_mm + gy)
            out[r, c] = rect_corners(lay.cell_w_mm, lay.cell_h_mm) + (x0, y0)
    return out


def fit_from_homography(
    homography: np.ndarray,
    gap: tuple[float, float],
    *,
    method: str,
    occupancy: np.ndarray | None = None,
    residual_px: float = float("nan"),
    quality: float = 1.0,
    reason: str = "",
) -> GridFit:
    lay = active_layout()
    inverse = np.linalg.inv(homography)
    width, height = board_size(gap)
    corners = apply_homography(inverse, rect_corners(width, height))
    cells = apply_homography(inverse, _cell_rects_mm(gap))
    if occupancy is None:
        occupancy = np.ones((lay.rows, lay.cols))
    return GridFit(
        homography=homography / homography[2, 2],
        corners=corners,
        cell_quads=cells,
        occupied=occupancy > 0.5,
        occupancy=occupancy,
        quality=float(quality),
        method=method,
        gap_mm=(float(gap[0]), float(gap[1])),
        reason=reason,
        residual_px=float(residual_px),
        layout=lay,
    )


def upright_first(fit: GridFit) -> GridFit:
    """Of a fit and its 180-degree turn, return the one whose board 'up' points up on screen."""
    c = fit.corners
    down = (c[3] + c[2] - c[0] - c[1]) / 2.0  # board +y as seen in the image
    return fit if down[1] >= 0 else fit.rotated_180()


# ------------------------------------------------------------------------ manual corners


def focal_prior(image_shape: tuple[int, ...]) -> float:
    return 0.8 * max(image_shape[0], image_shape[1])


def orient_outer_quad(
    quad: np.ndarray, image_shape: tuple[int, ...], gap: tuple[float, float]
) -> tuple[np.ndarray, float]:
    """Return the quad re-ordered so TL->TR is the 5-card side, and the log-aspect margin.

    The margin is ``|log(a / b)|`` style evidence: positive when the chosen side matches the
    board's aspect better than the other choice (0 = undecidable).
    """
    q = order_quad_clockwise(quad)
    h, w = image_shape[:2]
    width, height = board_size(gap)
    target = math.log(width / height)
    aspect = rectangle_aspect(q, (w / 2.0, h / 2.0), focal_prior(image_shape))
    cost_keep = abs(math.log(aspect) - target)
    cost_turn = abs(-math.log(aspect) - target)
    if cost_keep <= cost_turn:
        return q, cost_turn - cost_keep
    return np.roll(q, -1, axis=0), cost_keep - cost_turn


def outer_homography(oriented: np.ndarray, gap: tuple[float, float]) -> np.ndarray:
    width, height = board_size(gap)
    return cv2.getPerspectiveTransform(
        oriented.astype(np.float32), rect_corners(width, height).astype(np.float32)
    ).astype(np.float64)


# ----------------------------------------------------------------------- rectify & draw


def rectify_cells(
    image_rgb: np.ndarray,
    fit: GridFit,
    *,
    cell_size: tuple[int, int] = CELL_SIZE,
    margin_mm: float = 0.0,
) -> np.ndarray:
    """Warp every cell of the fitted grid to an upright card crop.

    The same function makes the classifier's training crops and its inference inputs.

    Parameters
    ----------
    image_rgb : np.ndarray
        ``(H, W, 3)`` uint8 RGB photo, in the pixel frame of ``fit``.
    fit : GridFit
        The grid; crops follow its board orientation (row 0 = its top row).
    cell_size : tuple of int, optional
        ``(width, height)`` of each crop in pixels.
    margin_mm : float, optional
        Extra border around the 63 x 88 mm card in each crop (negative crops inside it).

    Returns
    -------
    np.ndarray
        ``(4, 5, height, width, 3)`` uint8 RGB.
    """
    with using_layout(fit.layout):
        return _rectify_cells(image_rgb, fit, cell_size=cell_size, margin_mm=margin_mm)


def _rectify_cells(
    image_rgb: np.ndarray,
    fit: GridFit,
    *,
    cell_size: tuple[int, int] = CELL_SIZE,
    margin_mm: float = 0.0,
) -> np.ndarray:
    lay = active_layout()
    if image_rgb.ndim != 3 or image_rgb.shape[2] != 3:
        raise ValueError(f"image_rgb must be (H, W, 3), got {image_rgb.shape}")
    out_w, out_h = int(cell_size[0]), int(cell_size[1])
    if out_w < 8 or out_h < 8:
        raise ValueError(f"cell_size must be at least 8x8, got {cell_size}")
    gx, gy = fit.gap_mm
    sx = out_w / (lay.cell_w_mm + 2 * margin_mm)
    sy = out_h / (lay.cell_h_mm + 2 * margin_mm)
    crops = np.empty((lay.rows, lay.cols, out_h, out_w, 3), dtype=np.uint8)
    for r in range(lay.rows):
        for c in range(lay.cols):
            x0 = c * (lay.cell_w_mm + gx) - margin_mm
            y0 = r * (lay.cell_h_mm + gy) - margin_mm
            crops[r, c] = _board_crop(image_rgb, fit.homography, (x0, y0), (sx, sy), (out_w, out_h))
    return crops


def _board_crop(image_rgb, homography, origin_mm, scale, size) -> np.ndarray:
    """The photo's rectangle of the board plane from ``origin_mm`` (its top-left, mm) at
    ``scale`` (px per mm, x and y), warped to ``size`` (width, height)."""
    (x0, y0), (sx, sy) = origin_mm, scale
    to_crop = np.array([[sx, 0, -sx * x0 - 0.5], [0, sy, -sy * y0 - 0.5], [0, 0, 1.0]])
    return cv2.warpPerspective(
        image_rgb,
        to_crop @ homography,
        size,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


def shifted_cell_crops(
    image_rgb: np.ndarray,
    fit: GridFit,
    row: int,
    col: int,
    moves: list[tuple[float, float]],
    *,
    cell_size: tuple[int, int] = CELL_SIZE,
) -> np.ndarray:
    """One cell's crops (as :func:`rectify_cells` cuts it, no margin) moved in the board's
    plane by each ``(dx, dy)`` of ``moves``, shares of the card's width and height (a card laid
    off its place): ``(len(moves), height, width, 3)`` uint8 RGB."""
    with using_layout(fit.layout):
        lay = active_layout()
        gx, gy = fit.gap_mm
        out_w, out_h = int(cell_size[0]), int(cell_size[1])
        scale = (out_w / lay.cell_w_mm, out_h / lay.cell_h_mm)
        x0, y0 = col * (lay.cell_w_mm + gx), row * (lay.cell_h_mm + gy)
        out = np.empty((len(moves), out_h, out_w, 3), np.uint8)
        for k, (dx, dy) in enumerate(moves):
            origin = (x0 + dx * lay.cell_w_mm, y0 + dy * lay.cell_h_mm)
            out[k] = _board_crop(image_rgb, fit.homography, origin, scale, (out_w, out_h))
        return out


def draw_overlay(
    image_rgb: np.ndarray,
    fit: GridFit,
    labels: list[list[str]] | None = None,
    *,
    thickness: int | None = None,
) -> np.ndarray:
    """Draw the fitted grid on a copy of the photo.

    Outer edge in yellow (its top edge thicker, marking the fit's row 0), occupied cells in
    green, empty cells in grey; optional ``labels`` (4 rows of 5 strings) at cell centres.

    Parameters
    ----------
    image_rgb : np.ndarray
        ``(H, W, 3)`` uint8 RGB photo in the pixel frame of ``fit``.

    Returns
    -------
    np.ndarray
        ``(H, W, 3)`` uint8 RGB.
    """
    with using_layout(fit.layout):
        return _draw_overlay(image_rgb, fit, labels, thickness=thickness)


def _draw_overlay(
    image_rgb: np.ndarray,
    fit: GridFit,
    labels: list[list[str]] | None = None,
    *,
    thickness: int | None = None,
) -> np.ndarray:
    lay = active_layout()
    out = np.ascontiguousarray(image_rgb.copy())
    t = thickness or max(1, round(max(out.shape[:2]) / 500))
    for r in range(lay.rows):
        for c in range(lay.cols):
            color = (40, 220, 60) if fit.occupied[r, c] else (150, 150, 150)
            pts = np.round(fit.cell_quads[r, c]).astype(np.int32)
            cv2.polylines(out, [pts], True, color, t, cv2.LINE_AA)
    outer = np.round(fit.corners).astype(np.int32)
    cv2.polylines(out, [outer], True, (255, 210, 0), t * 2, cv2.LINE_AA)
    cv2.line(out, tuple(outer[0]), tuple(outer[1]), (255, 120, 0), t * 4, cv2.LINE_AA)
    if labels is not None:
        scale = max(0.4, max(out.shape[:2]) / 2500)
        for r in range(lay.rows):
            for c in range(lay.cols):
                text = str(labels[r][c])
                cx, cy = fit.cell_quads[r, c].mean(axis=0)
                (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, t)
                org = (int(cx - tw / 2), int(cy + th / 2))
                cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), t + 2)
                cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), t)
    return out


# ------------------------------------------------------------------------- working copy


def work_copy(image_rgb: np.ndarray, upscale: float = 1.0) -> tuple[np.ndarray, np.ndarray, float]:
    """Working copy with long side <= :data:`WORK_SIDE`: ``(small RGB, gray, factor)``.

    The gray copy (edges, grid finding) is area-resampled; the colour copy (only used for
    occupancy statistics) is bilinear, which costs ~4x less than area on three channels.
    A smaller image is enlarged (bilinear) by up to ``upscale`` towards :data:`WORK_SIDE`: the
    card finder's blur and thresholds are sized for cards of 40+ px there.
    """
    h, w = image_rgb.shape[:2]
    factor = min(upscale, WORK_SIDE / max(h, w))
    if factor > 1.0:
        size = (round(w * factor), round(h * factor))
        small = cv2.resize(image_rgb, size, interpolation=cv2.INTER_LINEAR)
        return small, cv2.cvtColor(small, cv2.COLOR_RGB2GRAY), factor
    factor = min(1.0, factor)
    if factor == 1.0:
        return image_rgb, cv2.cvtColor(image_rgb, cv2.COLOR_RGB2GRAY), factor
    size = (max(1, round(w * factor)), max(1, round(h * factor)))
    small = cv2.resize(image_rgb, size, interpolation=cv2.INTER_LINEAR)
    gray = cv2.resize(
        cv2.cvtColor(image_rgb, cv2.COLOR_RGB2GRAY), size, interpolation=cv2.INTER_AREA
    )
    return small, gray, factor


def shifted(fit: GridFit, dx: float, dy: float) -> GridFit:
    """The fit of a crop whose top-left is at ``(dx, dy)``, moved to the full photo's frame."""
    back = np.array([[1.0, 0.0, -dx], [0.0, 1.0, -dy], [0.0, 0.0, 1.0]])
    return replace(
        fit,
        homography=fit.homography @ back,
        corners=fit.corners + (dx, dy),
        cell_quads=fit.cell_quads + (dx, dy),
    )
