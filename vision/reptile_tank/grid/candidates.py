"""Stage 1 of grid finding: card-shaped quadrilaterals (and the busiest region) in a photo."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.geometry import (
    is_convex_quad,
    order_quad_clockwise,
    quad_area,
)
from vision.reptile_tank.grid.model import (
    work_copy,
)

# --------------------------------------------------------------------- card candidates


def card_candidates(gray: np.ndarray) -> list[np.ndarray]:
    """Convex quadrilaterals of plausible size from several binarisations of ``gray``.

    Returns a list of ``(4, 2)`` float64 quads (clockwise on screen), largest first.
    """
    h, w = gray.shape
    image_area = float(h * w)
    min_area, max_area = 0.0012 * image_area, 0.97 * image_area
    blur = cv2.GaussianBlur(gray, (5, 5), 0)
    masks = []
    edges = cv2.Canny(blur, 30, 90)
    masks.append(edges)
    masks.append(cv2.dilate(edges, np.ones((3, 3), np.uint8)))
    _, otsu = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    masks.extend([otsu, 255 - otsu])
    block = 2 * (max(h, w) // 16) + 1
    adaptive = cv2.adaptiveThreshold(
        blur, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -4
    )
    masks.append(cv2.morphologyEx(adaptive, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)))
    quads: list[tuple[float, np.ndarray]] = []
    for mask in masks:
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if area < min_area or area > max_area:
                continue
            quad = contour_quad(contour, area)
            if quad is not None:
                quads.append((quad_area(quad), quad))
    quads.sort(key=lambda item: -item[0])
    return [q for _, q in quads]


def contour_quad(contour: np.ndarray, area: float) -> np.ndarray | None:
    """Simplify a contour to a convex quad that it fills well, or None."""
    hull = cv2.convexHull(contour)
    hull_area = cv2.contourArea(hull)
    if hull_area <= 0 or area / hull_area < 0.85:
        return None
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.02, 0.035, 0.05):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            quad = order_quad_clockwise(approx.reshape(4, 2).astype(np.float64))
            if not is_convex_quad(quad):
                return None
            if hull_area / max(quad_area(quad), 1e-9) < 0.9:
                return None
            sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
            if sides.min() < 0.15 * sides.max():
                return None
            return quad
        if len(approx) < 4:
            return None
    return None


def dedupe(quads: list[np.ndarray], max_keep: int = 400) -> list[np.ndarray]:
    """Drop quads whose centre and size repeat a larger one already kept (inner panels)."""
    if not quads:
        return []
    stack = np.stack(quads)
    centres = stack.mean(axis=1)
    x, y = stack[..., 0], stack[..., 1]
    areas = 0.5 * np.abs(np.sum(x * np.roll(y, -1, axis=1) - y * np.roll(x, -1, axis=1), axis=1))
    sizes = np.sqrt(areas)
    kept: list[int] = []
    for i in np.argsort(-areas, kind="stable"):
        if kept:
            k = np.asarray(kept)
            near = np.linalg.norm(centres[k] - centres[i], axis=1) < 0.15 * sizes[k]
            if np.any(near & (sizes[i] > 0.75 * sizes[k])):
                continue
        kept.append(int(i))
        if len(kept) >= max_keep:
            break
    return [quads[i] for i in kept]


def busiest_region(image_rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, float] | None:
    """Bounds of the region of densest gradients (a grid of printed cards), as :func:`_bounds`.

    The gradient magnitude of the working copy is averaged over windows of 1/20 of its long
    side; the region is the connected part, around the densest window, of windows at least
    half as dense. The card width is unknown (NaN).
    """
    _, gray, factor = work_copy(image_rgb)
    h, w = gray.shape
    blur = cv2.GaussianBlur(gray, (3, 3), 0)
    magnitude = cv2.magnitude(cv2.Sobel(blur, cv2.CV_32F, 1, 0), cv2.Sobel(blur, cv2.CV_32F, 0, 1))
    k = max(9, max(h, w) // 20)
    density = cv2.boxFilter(magnitude, -1, (k, k))
    _, peak, _, at = cv2.minMaxLoc(density)
    if peak <= 0:
        return None
    _, labels, stats, _ = cv2.connectedComponentsWithStats((density >= 0.5 * peak).astype(np.uint8))
    x, y, bw, bh = stats[labels[at[1], at[0]], :4]
    lo = np.array([x, y], float) / factor
    hi = np.array([x + bw, y + bh], float) / factor
    return lo, hi, math.nan


def busiest_quad(image_rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, float] | None:
    """Bounds of the card-candidate quad (2-60 % of the photo) with the most print inside.

    A small grid of touching cards far away is often found only as one quad: its cards are
    too small to be found separately, and a loose card beside it is the densest window (see
    :func:`busiest_region`). Among the five largest quads that do not touch the frame, the
    one whose interior has the highest mean gradient is taken; as :func:`busiest_region`.
    """
    _, gray, factor = work_copy(image_rgb)
    h, w = gray.shape
    area = float(h * w)
    quads = [
        q
        for q in card_candidates(gray)
        if 0.02 * area <= quad_area(q) <= 0.6 * area
        and q[:, 0].min() > 2
        and q[:, 1].min() > 2
        and q[:, 0].max() < w - 3
        and q[:, 1].max() < h - 3
    ][:5]
    if not quads:
        return None
    blur = cv2.GaussianBlur(gray, (3, 3), 0)
    magnitude = cv2.magnitude(cv2.Sobel(blur, cv2.CV_32F, 1, 0), cv2.Sobel(blur, cv2.CV_32F, 0, 1))
    best, best_density = None, 0.0
    for quad in quads:
        mask = np.zeros(gray.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
        density = float(cv2.mean(magnitude, mask)[0])
        if density > best_density:
            best, best_density = quad, density
    if best is None:
        return None
    return best.min(axis=0) / factor, best.max(axis=0) / factor, math.nan
