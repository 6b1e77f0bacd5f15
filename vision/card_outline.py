"""The outline of the largest card in a photo of one card (or one card's image): the card's own
edges as a convex quad, refined to straight sides. Game-blind: Reptile Tank's enrolment crops
one-card photos with it, Nimalia's gallery finds its cards' outline with it."""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import fit_line, lines_meet, order_quad_clockwise


def card_like(quad: np.ndarray, ratio_range: tuple[float, float] = (0.55, 0.85)) -> bool:
    """Whether a quad's mean side lengths have a card's aspect (perspective allowed): the
    shorter over the longer within ``ratio_range``."""
    q = order_quad_clockwise(quad)
    a = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    b = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    ratio = min(a, b) / max(a, b, 1e-9)
    return ratio_range[0] <= ratio <= ratio_range[1]


def opposite_ratio(quad: np.ndarray) -> float:
    """The larger of the two ratios longer / shorter of a quad's opposite sides."""
    q = order_quad_clockwise(quad)
    sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    return float(
        max(max(sides[0], sides[2]) / max(min(sides[0], sides[2]), 1e-9),
            max(sides[1], sides[3]) / max(min(sides[1], sides[3]), 1e-9))
    )  # fmt: skip


def largest_card_quad(
    image_rgb: np.ndarray,
    ratio_range: tuple[float, float] = (0.55, 0.85),
    share_range: tuple[float, float] = (0.15, 0.98),
    max_opposite_ratio: float | None = None,
    fit_sides: bool = False,
) -> np.ndarray | None:
    """The largest convex four-sided outline (edges, or Otsu's light or dark side) covering
    ``share_range`` of the image whose sides' ratio is in ``ratio_range`` (and, when given, whose
    opposite sides differ by at most ``max_opposite_ratio``); ``None`` without one.

    With ``fit_sides`` the corners are where lines fitted to the outline along each side meet
    (the polygon's own corners cut a card's rounded corners short).
    """
    h, w = image_rgb.shape[:2]
    factor = min(1.0, 800 / max(h, w))
    small = cv2.resize(image_rgb, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY)
    area = gray.shape[0] * gray.shape[1]
    edges = cv2.dilate(cv2.Canny(cv2.GaussianBlur(gray, (5, 5), 0), 40, 120), np.ones((3, 3)))
    _, otsu = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    best, best_area = None, 0.0
    for binary in (edges, otsu, 255 - otsu):
        contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for contour in contours:
            hull = cv2.convexHull(contour)
            a = cv2.contourArea(hull)
            if not (share_range[0] * area <= a <= share_range[1] * area) or a <= best_area:
                continue
            approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
            quad = approx.reshape(-1, 2).astype(np.float64)
            if len(quad) != 4 or not card_like(quad, ratio_range):
                continue
            if max_opposite_ratio is None or opposite_ratio(quad) <= max_opposite_ratio:
                if fit_sides:
                    quad = fit_quad_sides(quad, contour.reshape(-1, 2).astype(np.float64))
                best, best_area = quad / factor, a
    return best


def fit_quad_sides(quad: np.ndarray, outline: np.ndarray) -> np.ndarray:
    """``quad``'s corners moved to where lines fitted to ``outline`` along its sides meet.

    A side's line is fitted to the outline points within 3 % of the side's length from it and
    over its middle 70 %; a side with too few such points, or lines meeting far from the
    polygon's corner (over 10 % of the side), leave the corner as it was.
    """
    q = order_quad_clockwise(quad)
    lines = []
    for k in range(4):
        a, b = q[k], q[(k + 1) % 4]
        length = float(np.linalg.norm(b - a))
        direction = (b - a) / max(length, 1e-9)
        normal = np.array([-direction[1], direction[0]])
        along = (outline - a) @ direction
        across = (outline - a) @ normal
        near = (np.abs(across) < 0.03 * length) & (along > 0.15 * length) & (along < 0.85 * length)
        if near.sum() < 10:
            lines.append(None)
            continue
        lines.append(fit_line(outline[near]))
    out = q.copy()
    for k in range(4):
        before, after = lines[(k - 1) % 4], lines[k]
        if before is None or after is None:
            continue
        corner = lines_meet(before, after)
        if corner is None:
            continue
        side = float(np.linalg.norm(q[(k + 1) % 4] - q[k]))
        if np.linalg.norm(corner - q[k]) < 0.1 * side:
            out[k] = corner
    return out
