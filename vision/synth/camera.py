"""The camera of a synthetic phone photo: a pinhole camera over the table plane (plane mm ->
image px homography), radial lens distortion, and the photo sizes phones take.

Game-blind: both games' scene renderers (``vision.<game>.scene``) aim their camera with these.
"""

from __future__ import annotations

import math

import numpy as np

#: Phone photo sizes (landscape ``(W, H)``); portrait scenes swap them.
PHONE_SIZES: tuple[tuple[int, int], ...] = (
    (4032, 3024),
    (4000, 3000),
    (4032, 2268),
    (3264, 2448),
    (2592, 1944),
    (1920, 1440),
    (1920, 1080),
    (1600, 1200),
)


def camera_homography(
    tilt_deg: float, roll_deg: float, f_px: float, distance: float, size: tuple[int, int]
) -> np.ndarray:
    """Plane (mm, origin at the target point) -> undistorted image pixels, ``(3, 3)``.

    The table plane has its z axis pointing into the table; the camera sits above the target
    point, tilted by ``tilt_deg`` about its x axis (looking away from the photographer at +y),
    and the plane is rotated by ``roll_deg`` about the target before viewing.
    """
    w, h = size
    t = math.radians(tilt_deg)
    x_c = np.array([1.0, 0.0, 0.0])
    y_c = np.array([0.0, math.cos(t), math.sin(t)])
    z_c = np.array([0.0, -math.sin(t), math.cos(t)])
    rot = np.stack([x_c, y_c, z_c])  # world -> camera
    centre = -distance * z_c  # camera centre in world
    a = math.radians(roll_deg)
    rz = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)], [0.0, 0.0]])
    k = np.array([[f_px, 0, (w - 1) / 2], [0, f_px, (h - 1) / 2], [0, 0, 1]])
    m = np.column_stack([rot @ rz, -rot @ centre])
    return k @ m


def project(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a homography to ``(N, 2)`` points."""
    p = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    return p[:, :2] / p[:, 2:3]


def undistort_points(pts: np.ndarray, size: tuple[int, int], k1: float, k2: float) -> np.ndarray:
    """Distorted image px -> undistorted image px (the closed-form direction)."""
    w, h = size
    c = np.array([(w - 1) / 2, (h - 1) / 2])
    norm = math.hypot(w, h) / 2
    d = (pts - c) / norm
    r2 = (d**2).sum(-1, keepdims=True)
    return c + d * (1 + k1 * r2 + k2 * r2 * r2) * norm


def distort_points(pts: np.ndarray, size: tuple[int, int], k1: float, k2: float) -> np.ndarray:
    """Undistorted image px -> distorted image px (fixed-point inverse of the above)."""
    w, h = size
    c = np.array([(w - 1) / 2, (h - 1) / 2])
    norm = math.hypot(w, h) / 2
    u = (pts - c) / norm
    d = u.copy()
    for _ in range(30):
        r2 = (d**2).sum(-1, keepdims=True)
        d = u / (1 + k1 * r2 + k2 * r2 * r2)
    return c + d * norm


def local_scale(h: np.ndarray, pt: np.ndarray) -> float:
    """Image pixels per plane millimetre at plane point ``pt`` (largest singular value)."""
    eps = 1.0
    p = project(h, np.array([pt, pt + [eps, 0], pt + [0, eps]]))
    jac = np.column_stack([p[1] - p[0], p[2] - p[0]]) / eps
    return float(np.linalg.svd(jac, compute_uv=False)[0])


def pick_size(
    rng: np.random.Generator, max_size: tuple[int, int], size: tuple[int, int] | None
) -> tuple[int, int]:
    if size is not None:
        w, h = int(size[0]), int(size[1])
        if w < 64 or h < 64:
            raise ValueError(f"size: must be at least 64x64, got {w}x{h}")
        return w, h
    mw, mh = int(max_size[0]), int(max_size[1])
    if mw < 64 or mh < 64:
        raise ValueError(f"max_size: must be at least 64x64, got {mw}x{mh}")
    w, h = PHONE_SIZES[int(rng.integers(len(PHONE_SIZES)))]
    long_cap, short_cap = max(mw, mh), min(mw, mh)
    scale = min(1.0, long_cap / w, short_cap / h)
    w, h = int(round(w * scale)), int(round(h * scale))
    if rng.random() < 0.3:
        w, h = h, w
    return w, h


def aim_camera(
    rng: np.random.Generator,
    outline_mm: np.ndarray,
    target: np.ndarray,
    size: tuple[int, int],
    tilt: float,
    roll: float,
    f_px: float,
    fill: float,
    *,
    margin: float,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Plane -> image homography (and its inverse) of a camera looking at ``target`` (plane mm)
    from the distance at which ``outline_mm`` takes the share ``fill`` of the frame, then
    shifted at random so the outline stays ``margin`` (share of the frame) inside the edges.

    Returns ``(h_plane, h_inv, distance_mm)``.
    """
    w_img, h_img = size
    distance = 800.0
    for _ in range(6):
        h_cam = camera_homography(tilt, roll, f_px, distance, (w_img, h_img))
        h_plane = h_cam @ np.array([[1, 0, -target[0]], [0, 1, -target[1]], [0, 0, 1.0]])
        pts = project(h_plane, outline_mm)
        ext = pts.max(0) - pts.min(0)
        distance *= max(ext[0] / w_img, ext[1] / h_img) / fill
    pts = project(h_plane, outline_mm)
    lo, hi = pts.min(0), pts.max(0)
    edge = margin * np.array([w_img, h_img])
    room_lo = edge - lo
    room_hi = np.array([w_img, h_img]) - edge - hi
    shift = np.array(
        [rng.uniform(min(room_lo[i], room_hi[i]), max(room_lo[i], room_hi[i])) for i in range(2)]
    )
    h_plane = np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1.0]]) @ h_plane
    h_plane /= h_plane[2, 2]
    return h_plane, np.linalg.inv(h_plane), distance


def visible_plane(
    size: tuple[int, int],
    h_inv: np.ndarray,
    lens: tuple[float, float],
    table_lo: np.ndarray,
    table_hi: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Plane box (mm, lo and hi corners) the photo sees, 10 mm wider, within the table."""
    w_img, h_img = size
    border = np.concatenate(
        [
            np.column_stack([np.linspace(0, w_img - 1, 33), np.zeros(33)]),
            np.column_stack([np.linspace(0, w_img - 1, 33), np.full(33, h_img - 1.0)]),
            np.column_stack([np.zeros(33), np.linspace(0, h_img - 1, 33)]),
            np.column_stack([np.full(33, w_img - 1.0), np.linspace(0, h_img - 1, 33)]),
        ]
    )
    und = undistort_points(border, (w_img, h_img), *lens)
    hom = np.column_stack([und, np.ones(len(und))]) @ h_inv.T
    ok = hom[:, 2] > 1e-9
    vis = hom[ok, :2] / hom[ok, 2:3]
    if len(vis) and ok.all():
        vis_lo, vis_hi = vis.min(0), vis.max(0)
    else:  # the horizon is in view: the far side is cut by the table edge
        vis_lo = np.minimum(vis.min(0), table_lo) if len(vis) else table_lo
        vis_hi = np.maximum(vis.max(0), table_hi) if len(vis) else table_hi
    return np.maximum(vis_lo - 10, table_lo), np.minimum(vis_hi + 10, table_hi)
