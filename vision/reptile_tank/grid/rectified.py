"""Rectification-first search: grid finding repeated on a top-down view of the table plane.

At a strong tilt (60-65 degrees) a small grid's cards are thin slivers in the photo: a
portrait card's foreshortened outline looks landscape, the gaps between rows are a pixel or
two wide, and the card finder's blur and minimum area lose them. Everything lying on the table
-- the cards found, stray cards, the checks of a cloth, a wrong lattice -- tells where the
table's horizon (vanishing line) is, and the horizon and a focal length are all a metric
rectification needs: rotating the camera about its centre until it looks straight down turns
the table plane into a scaled copy of itself (:func:`plane_normal`, :func:`rectifying_homography`).
The region around the grid's likely place is warped to a ~1000 px top-down view in which the
cards are portrait rectangles again, grid finding runs there, and its candidates are mapped
back to the photo (:func:`rectified_candidates`). The caller (the reader) judges them with the
recogniser like every other hypothesis.

The horizon of a homography ``image -> plane`` is its third row, whatever the in-plane scale,
stretch or rotation: a lattice of square checks (fitted as 63 x 88 cards), a lattice taken
the wrong way round, or a single card quad give the same horizon as the right grid.
"""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np

from vision.errors import GridNotFoundError
from vision.geometry import apply_homography
from vision.reptile_tank.grid.model import WORK_SIDE, GridFit, focal_prior

#: Two plane normals closer than this (degrees) are one hypothesis (a view tolerates ~10
#: degrees of error in its plane: the search on it is projective).
_SAME_PLANE_DEG = 8.0
#: Planes seen at less than this tilt need no rectification (the first search saw them fine);
#: more than the upper bound is no table a phone photographs cards on.
_TILT_RANGE_DEG = (35.0, 80.0)
#: Quads whose planes' normals are this close (degrees) agree on the table.
_QUADS_AGREE_DEG = 8.0
#: A region is grown by this fraction of its size on each side before it is rectified.
_GROW = 0.5
#: The top-down view may enlarge the photo's pixels at most this much (on average).
_MAX_ENLARGE = 3.0
#: Top-down views searched at most (each costs one grid-finding pass, ~100-300 ms).
MAX_PLANES = 3
#: A phone held level sees the table's horizon parallel to the image's rows, above the image;
#: these tilts (from the optical axis, with the focal prior) are tried when the photo's own
#: outlines do not say (60-65 degree camera tilts read as 45-75 with the focal prior).
LEVEL_TILTS_DEG = (45.0, 60.0)


def plane_normal(image_to_plane: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """Unit normal, in camera coordinates, of the plane of a homography ``image -> plane``.

    The camera is the focal prior's pinhole with its principal point at the image centre;
    the normal points towards the camera (``z > 0``). None for a degenerate horizon.
    """
    h, w = shape[:2]
    f = focal_prior(shape)
    horizon = np.asarray(image_to_plane, float)[2]
    # x_image = C^-1 x_centred: the horizon in centred coordinates is C^-T l, i.e. l C^-1
    uncentre = np.array([[1.0, 0, w / 2], [0, 1.0, h / 2], [0, 0, 1.0]])
    line = horizon @ uncentre
    normal = np.array([f * line[0], f * line[1], line[2]])
    norm = float(np.linalg.norm(normal))
    if not math.isfinite(norm) or norm <= 0:
        return None
    normal /= norm
    return normal if normal[2] >= 0 else -normal


def level_normal(tilt: float) -> np.ndarray:
    """The normal of a table seen ``tilt`` degrees from above by a camera held level."""
    t = math.radians(tilt)
    return np.array([0.0, math.sin(t), math.cos(t)])


def tilt_deg(normal: np.ndarray) -> float:
    """Angle between the optical axis and the plane's normal, in degrees."""
    return math.degrees(math.acos(float(np.clip(abs(normal[2]), 0.0, 1.0))))


def rectifying_homography(normal: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``image px -> top-down px`` (before framing): the camera turned to face the plane.

    ``K R K^-1`` with ``R`` the rotation taking ``normal`` onto the optical axis; the plane
    is then seen head-on, so its image is a similarity of the plane (up to the focal prior's
    error).
    """
    h, w = shape[:2]
    f = focal_prior(shape)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    n = np.asarray(normal, float) / np.linalg.norm(normal)
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(n, z)
    s = float(np.linalg.norm(axis))
    if s < 1e-9:
        rotation = np.eye(3)
    else:
        angle = math.atan2(s, float(n @ z))
        rotation, _ = cv2.Rodrigues(axis / s * angle)
    return k @ rotation @ np.linalg.inv(k)


def warped(fit: GridFit, to_view: np.ndarray) -> GridFit:
    """A fit found in a view (``to_view``: photo px -> view px) moved to the photo's frame."""
    back = np.linalg.inv(to_view)
    return replace(
        fit,
        homography=fit.homography @ to_view,
        corners=apply_homography(back, fit.corners),
        cell_quads=apply_homography(back, fit.cell_quads),
    )


def distinct_normals(
    normals: list[np.ndarray | None],
    regions: list[tuple[np.ndarray, np.ndarray]],
    limit: int = MAX_PLANES,
) -> list[int]:
    """Indices of the strongly tilted, distinct views, in order, at most ``limit``.

    Two views are one when their normals are within :data:`_SAME_PLANE_DEG` and their regions
    mostly overlap (intersection over union > 0.5).
    """
    out: list[int] = []
    for i, normal in enumerate(normals):
        if normal is None or not _TILT_RANGE_DEG[0] <= tilt_deg(normal) <= _TILT_RANGE_DEG[1]:
            continue
        if any(
            math.degrees(math.acos(float(np.clip(normal @ normals[j], -1, 1)))) < _SAME_PLANE_DEG
            and _overlap(regions[i], regions[j]) > 0.5
            for j in out
        ):
            continue
        out.append(i)
        if len(out) >= limit:
            break
    return out


def _overlap(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> float:
    """Intersection over union of two boxes ``(lo, hi)``."""
    lo, hi = np.maximum(a[0], b[0]), np.minimum(a[1], b[1])
    inter = float(np.prod(np.clip(hi - lo, 0, None)))
    union = float(np.prod(a[1] - a[0]) + np.prod(b[1] - b[0])) - inter
    return inter / union if union > 0 else 0.0


def quads_normal(quads: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray | None:
    """The table's normal from many small card-like quads, or None (fewer than 3 agree).

    Each quad's horizon is the line through the vanishing points of its two pairs of opposite
    sides (whichever side is the card's long one); one quad's is noisy. The normal that most
    quads agree with (within :data:`_QUADS_AGREE_DEG`, weighted by their size: cards, stray
    cards, checks) is taken, averaged over those that agree.
    """
    normals, weights = [], []
    card = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float32)
    for quad in quads:
        h = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), card).astype(np.float64)
        normal = plane_normal(h, shape)
        if normal is None:
            continue
        normals.append(normal)
        weights.append(math.sqrt(max(cv2.contourArea(np.asarray(quad, np.float32)), 1.0)))
    if len(normals) < 3:
        return None
    stack, w = np.array(normals), np.array(weights)
    # the mode, not the mean: the normal most quads (by size) agree with, then their mean
    near = stack @ stack.T > math.cos(math.radians(_QUADS_AGREE_DEG))
    support = near.astype(float) @ w
    best = int(np.argmax(support))
    if near[best].sum() < 3:
        return None
    mean = (w[near[best], None] * stack[near[best]]).sum(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else None


def top_down_view(
    image_rgb: np.ndarray, normal: np.ndarray, region: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray] | None:
    """The region ``(lo, hi)`` (photo px) seen head-on: ``(view RGB, photo px -> view px)``.

    The region is grown by :data:`_GROW` of its size on each side (within the photo); the view's
    long side is :data:`WORK_SIDE` (less when that would enlarge the photo's pixels more than
    :data:`_MAX_ENLARGE` times). None when the region crosses the plane's horizon.
    """
    h, w = image_rgb.shape[:2]
    lo, hi = np.asarray(region[0], float), np.asarray(region[1], float)
    grow = _GROW * (hi - lo)
    lo = np.maximum(lo - grow, 0.0)
    hi = np.minimum(hi + grow, (w - 1.0, h - 1.0))
    if np.any(hi - lo < 16):
        return None
    box = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
    rect = rectifying_homography(normal, image_rgb.shape)
    hom = np.c_[box, np.ones(4)] @ rect.T
    if np.any(hom[:, 2] <= 1e-9 * np.abs(hom[:, :2]).max()):
        return None  # behind the horizon
    points = hom[:, :2] / hom[:, 2:3]
    vlo, vhi = points.min(axis=0), points.max(axis=0)
    size = vhi - vlo
    if not np.all(np.isfinite(size)) or size.min() <= 0:
        return None
    scale = WORK_SIDE / float(size.max())
    region_px = float((hi - lo).prod())
    enlarge = math.sqrt(scale * scale * float(size.prod()) / max(region_px, 1.0))
    if enlarge > _MAX_ENLARGE:
        scale *= _MAX_ENLARGE / enlarge
    frame = np.array([[scale, 0, -scale * vlo[0]], [0, scale, -scale * vlo[1]], [0, 0, 1.0]])
    to_view = frame @ rect
    out_w = max(16, int(math.ceil(scale * size[0])))
    out_h = max(16, int(math.ceil(scale * size[1])))
    view = cv2.warpPerspective(
        image_rgb, to_view, (out_w, out_h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return view, to_view


def rectified_candidates(
    image_rgb: np.ndarray,
    normals: list[np.ndarray],
    regions: list[tuple[np.ndarray, np.ndarray]],
    find,
) -> list[GridFit]:
    """Grid candidates found on top-down views of each plane (and region), in photo px.

    ``find(view_rgb) -> list[GridFit]`` is grid finding on one view (it may raise
    :class:`GridNotFoundError`); ``regions`` pairs with ``normals`` (the same region for all
    when it has one entry).
    """
    out: list[GridFit] = []
    for i, normal in enumerate(normals):
        region = regions[min(i, len(regions) - 1)]
        made = top_down_view(image_rgb, normal, region)
        if made is None:
            continue
        view, to_view = made
        try:
            fits = find(view)
        except GridNotFoundError:
            continue
        out.extend(warped(fit, to_view) for fit in fits)
    return out
