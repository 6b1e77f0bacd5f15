"""Enrolment: one image per face in, upright portrait card faces out.

The command line (``reptile-tank enroll``) and the app's *My deck* page enrol the same way: each
uploaded image goes through :func:`crop_to_card` (a scan is kept, a photo of one card is cut out
and straightened), or a photo of the 16 faces laid out in the layout's grid is cut into its cells by
:func:`faces_from_layout`. The faces then go to :meth:`vision.reptile_tank.gallery.DeckPack.create`.
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np

from scoring.reptile_tank.cards import FACE_LABELS
from vision.geometry import fit_line, lines_meet, order_quad_clockwise

#: A card's width over its height (63 x 88 mm).
CARD_ASPECT = 63.0 / 88.0
#: Size (width, height) of a face cut from a photo: 8 px/mm.
FACE_CUT_SIZE = (504, 704)


def faces_from_images(images: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """:func:`crop_to_card` applied to every image of a ``label -> (H, W, 3) RGB`` mapping."""
    return {label: crop_to_card(np.asarray(image)) for label, image in images.items()}


def crop_to_card(image_rgb: np.ndarray) -> np.ndarray:
    """Cut the card out of a photo or scan of one card, upright and portrait.

    An image with the card's own aspect (63 × 88 mm, within 3 %) is taken as already cropped (a
    scan or an exported face). Otherwise the largest convex four-sided outline with a card-like
    aspect covering 15–98 % of the image is taken as the card and warped to a 63 × 88 mm
    portrait rectangle; without one the whole image is used. Landscape results are turned 90°
    clockwise.

    Parameters
    ----------
    image_rgb : (H, W, 3) uint8 RGB

    Returns
    -------
    (H', W', 3) uint8 RGB, portrait
    """
    h, w = image_rgb.shape[:2]
    aspect = min(h, w) / max(h, w)
    quad = None
    if abs(aspect - CARD_ASPECT) > 0.03 * CARD_ASPECT:
        quad = largest_card_quad(image_rgb)
    if quad is not None:
        q = order_quad_clockwise(quad.astype(np.float64)).astype(np.float32)
        top = np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])
        side = np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])
        if top > side:  # the card lies landscape: start from the next corner
            q = np.roll(q, -1, axis=0)
        out_w, out_h = FACE_CUT_SIZE
        target = np.array([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]], np.float32)
        matrix = cv2.getPerspectiveTransform(q, target)
        return cv2.warpPerspective(image_rgb, matrix, (out_w, out_h), flags=cv2.INTER_AREA)
    if w > h:
        image_rgb = np.ascontiguousarray(np.rot90(image_rgb, k=-1))
    return image_rgb


def _card_like(quad: np.ndarray, ratio_range: tuple[float, float] = (0.55, 0.85)) -> bool:
    """Whether a quad's mean side lengths have a card's aspect (perspective allowed): the
    shorter over the longer within ``ratio_range``."""
    q = order_quad_clockwise(quad)
    a = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    b = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    ratio = min(a, b) / max(a, b, 1e-9)
    return ratio_range[0] <= ratio <= ratio_range[1]


def _opposite_ratio(quad: np.ndarray) -> float:
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
            if len(quad) != 4 or not _card_like(quad, ratio_range):
                continue
            if max_opposite_ratio is None or _opposite_ratio(quad) <= max_opposite_ratio:
                if fit_sides:
                    quad = _fit_sides(quad, contour.reshape(-1, 2).astype(np.float64))
                best, best_area = quad / factor, a
    return best


def _fit_sides(quad: np.ndarray, outline: np.ndarray) -> np.ndarray:
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


def faces_from_layout(image_rgb: np.ndarray) -> dict[str, np.ndarray]:
    """The 16 faces from a photo of them laid out in a grid, row by row in label order.

    The order is :data:`scoring.reptile_tank.cards.FACE_LABELS` (the 15 fronts, then the Water back), the
    first 16 cells of the grid read row by row from the top-left; the remaining cells stay
    empty (the grid's shape is the grid finder's).

    Raises
    ------
    vision.errors.GridNotFoundError
        No grid of cards was found in the photo.
    """
    from vision.reptile_tank.grid import find_grid, rectify_cells

    fit = find_grid(image_rgb)
    crops = rectify_cells(image_rgb, fit, cell_size=(252, 352))
    flat = crops.reshape((-1,) + crops.shape[2:])
    if len(flat) < len(FACE_LABELS):
        raise ValueError(f"a layout photo needs at least {len(FACE_LABELS)} cells")
    return {label: np.ascontiguousarray(flat[k]) for k, label in enumerate(FACE_LABELS)}
