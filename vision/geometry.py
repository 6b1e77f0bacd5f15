"""Small geometric helpers for grid finding: quad ordering, homographies, rectangle aspect.

Coordinates are ``(x, y)`` image pixels with y pointing down unless stated otherwise.
"""

from __future__ import annotations

import math

import numpy as np


def order_quad_clockwise(points: np.ndarray) -> np.ndarray:
    """Order four points clockwise on screen (y down), starting with the top-most-left one.

    Parameters
    ----------
    points : np.ndarray
        ``(4, 2)`` float, any order, forming a convex quadrilateral.

    Returns
    -------
    np.ndarray
        ``(4, 2)`` float64, clockwise as seen on screen; first the point with the smallest
        ``x + y``.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(4, 2)
    center = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - center[1], pts[:, 0] - center[0])
    pts = pts[np.argsort(angles)]  # increasing angle = clockwise on a y-down screen
    start = int(np.argmin(pts.sum(axis=1)))
    return pts[(_NEXT0 + start) % 4]


_NEXT0 = np.arange(4)
_NEXT1 = np.array([1, 2, 3, 0])


def fit_line(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Robust (Huber) line through ``(N, 2)`` points: ``(point, unit direction)``."""
    import cv2  # local: keeps `import vision.geometry` light

    vx, vy, x0, y0 = cv2.fitLine(
        np.asarray(points, np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01
    ).ravel()
    return np.array([x0, y0], float), np.array([vx, vy], float)


def lines_meet(
    first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray]
) -> np.ndarray | None:
    """Where two ``(point, direction)`` lines cross; ``None`` when they are (nearly) parallel."""
    (p1, d1), (p2, d2) = first, second
    m = np.array([d1, -d2]).T
    if abs(np.linalg.det(m)) < 1e-6:
        return None
    t = np.linalg.solve(m, p2 - p1)
    return p1 + t[0] * d1


def is_convex_quad(quad: np.ndarray) -> bool:
    """True when the ``(4, 2)`` points, in order, form a strictly convex quadrilateral."""
    q = np.asarray(quad, dtype=np.float64)
    edges = q[_NEXT1] - q
    nxt = edges[_NEXT1]
    cross = edges[:, 0] * nxt[:, 1] - edges[:, 1] * nxt[:, 0]
    return bool(np.all(cross > 0) or np.all(cross < 0))


def quad_area(quad: np.ndarray) -> float:
    """Area of a simple ``(4, 2)`` polygon (shoelace formula), always >= 0."""
    q = np.asarray(quad, dtype=np.float64)
    x, y = q[:, 0], q[:, 1]
    if len(q) == 4:
        return 0.5 * abs(float((x[0] - x[2]) * (y[1] - y[3]) - (x[1] - x[3]) * (y[0] - y[2])))
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def apply_homography(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map ``(..., 2)`` points through a 3x3 homography; returns the same shape, float64."""
    pts = np.asarray(points, dtype=np.float64)
    flat = pts.reshape(-1, 2)
    hom = flat @ h[:, :2].T + h[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = hom[:, :2] / hom[:, 2:3]
    return out.reshape(pts.shape)


def rect_corners(width: float, height: float) -> np.ndarray:
    """Corners TL, TR, BR, BL of the rectangle ``[0, width] x [0, height]``, ``(4, 2)``."""
    return np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float64)


def homography_dlt(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Least-squares homography mapping ``src`` to ``dst`` (both ``(N, 2)``, N >= 4).

    Normalised DLT; returns a 3x3 float64 matrix with ``h[2, 2] == 1``.
    """
    src = np.asarray(src, dtype=np.float64)
    dst = np.asarray(dst, dtype=np.float64)

    def normaliser(p: np.ndarray) -> np.ndarray:
        c = p.mean(axis=0)
        d = np.sqrt(((p - c) ** 2).sum(axis=1)).mean()
        s = math.sqrt(2) / d if d > 0 else 1.0
        return np.array([[s, 0, -s * c[0]], [0, s, -s * c[1]], [0, 0, 1]])

    ts, td = normaliser(src), normaliser(dst)
    a = apply_homography(ts, src)
    b = apply_homography(td, dst)
    n = len(a)
    rows = np.zeros((2 * n, 9))
    rows[0::2, 0:2] = a
    rows[0::2, 2] = 1
    rows[0::2, 6:8] = -b[:, :1] * a
    rows[0::2, 8] = -b[:, 0]
    rows[1::2, 3:5] = a
    rows[1::2, 5] = 1
    rows[1::2, 6:8] = -b[:, 1:2] * a
    rows[1::2, 8] = -b[:, 1]
    _, _, vt = np.linalg.svd(rows, full_matrices=False)
    h = vt[-1].reshape(3, 3)
    h = np.linalg.inv(td) @ h @ ts
    return h / h[2, 2]


def rectangle_aspect(
    quad: np.ndarray, principal_point: tuple[float, float], focal_prior: float
) -> float:
    """Estimate width/height of the real rectangle seen as ``quad`` in a photo.

    Uses the single-view rectangle method of Zhang & He (2006): the focal length is solved
    from the quad assuming square pixels and the given principal point, then the aspect of
    the back-projected rectangle is measured. When the quad does not determine the focal
    length (a trapezoid or parallelogram) or gives an implausible one, ``focal_prior`` is used.

    Parameters
    ----------
    quad : np.ndarray
        ``(4, 2)`` corners TL, TR, BR, BL of the rectangle in image pixels.
    principal_point : tuple of float
        ``(cx, cy)``, usually the image centre.
    focal_prior : float
        Focal length in pixels to fall back on (a phone's main camera: ~0.8 x the long side).

    Returns
    -------
    float
        Estimated ``|TL-TR| / |TL-BL|`` in the rectangle's own units.
    """
    q = np.asarray(quad, dtype=np.float64) - np.asarray(principal_point, dtype=np.float64)
    m1, m2, m4, m3 = (np.array([p[0], p[1], 1.0]) for p in q)  # paper: m1 TL, m2 TR, m3 BL
    denom2 = float(np.dot(np.cross(m2, m4), m3))
    denom3 = float(np.dot(np.cross(m3, m4), m2))
    if abs(denom2) < 1e-12 or abs(denom3) < 1e-12:
        return _affine_aspect(q)
    k2 = float(np.dot(np.cross(m1, m4), m3)) / denom2
    k3 = float(np.dot(np.cross(m1, m4), m2)) / denom3
    n2 = k2 * m2 - m1
    n3 = k3 * m3 - m1
    f2 = focal_prior**2
    zz = n2[2] * n3[2]
    if abs(zz) > 1e-12:
        estimate = -float(n2[:2] @ n3[:2]) / zz
        if (0.4 * focal_prior) ** 2 < estimate < (2.5 * focal_prior) ** 2:
            f2 = estimate
    w2 = (n2[0] ** 2 + n2[1] ** 2) / f2 + n2[2] ** 2
    h2 = (n3[0] ** 2 + n3[1] ** 2) / f2 + n3[2] ** 2
    if w2 <= 0 or h2 <= 0:
        return _affine_aspect(q)
    return math.sqrt(w2 / h2)


def _affine_aspect(q: np.ndarray) -> float:
    width = 0.5 * (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3]))
    height = 0.5 * (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1]))
    return float(width / height) if height > 0 else float("inf")
