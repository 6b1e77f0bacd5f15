"""Grid-finding ground truth for synthetic scenes: the visible lattice and corner errors.

The generator's ``grid_corners`` are the nominal, un-jittered lattice, but every card is placed
with position jitter and a small rotation, so an error measured against them cannot fall below
the jitter. The truth used by the benchmarks is instead the *visible lattice*: the model that
:func:`vision.reptile_tank.grid.find_grid` fits (one board -> image homography, 63 x 88 mm cards, a free gap
between columns and one between rows) least-squares fitted, in image pixels, to all four
corners of every occupied cell's true card quad (``cells`` in the scene JSON; these include
lens distortion, which no homography models).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import apply_homography, rect_corners
from vision.reptile_tank.grid import reptile_tank_layout


def lattice_points(gap: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Board-plane (mm) card corners TL, TR, BR, BL of cells ``(rows, cols)``: ``(N * 4, 2)``."""
    layout = reptile_tank_layout()
    CARD_W_MM, CARD_H_MM = layout.cell_w_mm, layout.cell_h_mm  # noqa: N806
    dx = np.array([0.0, CARD_W_MM, CARD_W_MM, 0.0])
    dy = np.array([0.0, 0.0, CARD_H_MM, CARD_H_MM])
    x = cols[:, None] * (CARD_W_MM + gap[0]) + dx[None, :]
    y = rows[:, None] * (CARD_H_MM + gap[1]) + dy[None, :]
    return np.stack([x.ravel(), y.ravel()], axis=1)


def visible_lattice(cells: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    """Outer corners of the 4x5 lattice that best explains the cards actually in the photo.

    Gauss-Newton on the 8 homography entries and the 2 gaps, started from the DLT at 1 mm gaps.

    Parameters
    ----------
    cells : np.ndarray
        ``(4, 5, 4, 2)`` ground-truth card corners TL, TR, BR, BL in image pixels.
    occupied : np.ndarray
        ``(4, 5)`` bool; at least two cards.

    Returns
    -------
    np.ndarray
        ``(4, 2)`` outer corners TL, TR, BR, BL of the fitted lattice in image pixels.
    """
    cells = np.asarray(cells, float)
    rows, cols = np.nonzero(np.asarray(occupied, bool))
    image_pts = cells[rows, cols].reshape(-1, 2)
    gap = np.array([1.0, 1.0])
    h, _ = cv2.findHomography(lattice_points(gap, rows, cols), image_pts, 0)
    params = np.concatenate([(h / h[2, 2]).ravel()[:8], gap])

    def residual(p: np.ndarray) -> np.ndarray:
        hm = np.append(p[:8], 1.0).reshape(3, 3)
        return (apply_homography(hm, lattice_points(p[8:], rows, cols)) - image_pts).ravel()

    scale = np.abs(params) * 1e-6 + 1e-6
    for _ in range(20):
        r0 = residual(params)
        jac = np.stack(
            [(residual(params + np.eye(10)[k] * scale[k]) - r0) / scale[k] for k in range(10)],
            axis=1,
        )
        step, *_ = np.linalg.lstsq(jac, -r0, rcond=None)
        params = params + step
        if np.abs(step[8:]).max() < 1e-4:
            break
    hm = np.append(params[:8], 1.0).reshape(3, 3)
    layout = reptile_tank_layout()
    width = layout.cols * layout.cell_w_mm + (layout.cols - 1) * params[8]
    height = layout.rows * layout.cell_h_mm + (layout.rows - 1) * params[9]
    return apply_homography(hm, rect_corners(width, height))


def corner_error(corners: np.ndarray, truth: np.ndarray) -> float:
    """Mean distance of 4 outer corners to the truth's, in card widths, modulo 180 degrees.

    A card width is the truth's top side over 5. ``corners`` and ``truth`` are ``(4, 2)`` in
    the same pixels, TL, TR, BR, BL.
    """
    corners, truth = np.asarray(corners, float), np.asarray(truth, float)
    card_px = np.linalg.norm(truth[1] - truth[0]) / reptile_tank_layout().cols
    errors = [
        float(np.linalg.norm(np.roll(corners, k, axis=0) - truth, axis=1).mean()) for k in (0, 2)
    ]
    return min(errors) / card_px


def extent_determined(occupied: np.ndarray) -> bool:
    """True when the cards present reach all four sides of the 4x5 grid (``(4, 5)`` bool).

    Otherwise the cards alone cannot tell where the grid's outer edge is (a missing first or
    last row or column could lie on either side) and the user's corners decide.
    """
    occ = np.asarray(occupied, bool)
    return bool(occ[0].any() and occ[-1].any() and occ[:, 0].any() and occ[:, -1].any())
