"""The simple grid-finding baseline the benchmarks compare :func:`vision.reptile_tank.grid.find_grid` with.

The largest Otsu-thresholded region of the photo (either polarity), simplified to a quad (or
its minimum-area rectangle), taken as the grid's outer corners and split by
:func:`vision.reptile_tank.grid.fit_from_corners`. Images are ``(H, W, 3) uint8 RGB``.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.errors import GridNotFoundError
from vision.geometry import order_quad_clockwise
from vision.reptile_tank.grid import GridFit, fit_from_corners


def largest_contour_fit(image_rgb: np.ndarray) -> GridFit:
    """Largest external contour -> quad -> lattice from its corners.

    Raises
    ------
    GridNotFoundError
        The thresholded photo has no contour at all.
    """
    gray = cv2.cvtColor(image_rgb, cv2.COLOR_RGB2GRAY)
    _, mask = cv2.threshold(cv2.GaussianBlur(gray, (5, 5), 0), 0, 255, cv2.THRESH_OTSU)
    best = None
    for m in (mask, 255 - mask):
        contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if contours:
            c = max(contours, key=cv2.contourArea)
            if best is None or cv2.contourArea(c) > cv2.contourArea(best):
                best = c
    if best is None:
        raise GridNotFoundError("no contour")
    hull = cv2.convexHull(best)
    approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
    quad = approx.reshape(-1, 2) if len(approx) == 4 else cv2.boxPoints(cv2.minAreaRect(best))
    return fit_from_corners(image_rgb.shape, order_quad_clockwise(np.asarray(quad, float)))
