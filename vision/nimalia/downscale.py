"""The photo downscales squares are read from (made once per read) and the lattice snapped
to the squares' edges in them.

Split out of :mod:`vision.nimalia.reader` (no behaviour change).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

import cv2
import numpy as np

from vision.nimalia.gallery import (
    CROP,
)
from vision.nimalia.lattice import (
    Lattice,
    refine_lattice,
)


def prefilter_scale(lat: Lattice) -> float:
    """The downscale that makes a square about 1.5 crops wide (at most 1)."""
    return min(1.0, 1.5 * CROP / max(lat.square_side(), 1.0))


def prefilter(rgb: np.ndarray, lat: Lattice) -> tuple[np.ndarray, float]:
    """Downscale the photo so a square is about 1.5 crops wide (area-averaged, no aliasing).
    Within :meth:`ReserveReader.read`, a downscale made for a scale within
    :data:`DOWNSCALE_REUSE` of this one is reused (the refined lattice of a read, its re-read)."""
    s = prefilter_scale(lat)
    if s > 0.8:
        return rgb, 1.0
    return area_downscale(rgb, s, DOWNSCALE_REUSE)


#: a downscale made for scale s serves a request for s' within this share of s (one read)
DOWNSCALE_REUSE = 0.1

_READ_STATE = threading.local()


@contextmanager
def downscales_shared(rgb: np.ndarray):
    """Within the block, downscales of ``rgb`` are made once and reused (per thread: the
    cached reader serves every session of the app)."""
    _READ_STATE.downscales = (rgb, [])
    try:
        yield
    finally:
        _READ_STATE.downscales = None


def area_downscale(rgb: np.ndarray, s: float, reuse: float = 0.0) -> tuple[np.ndarray, float]:
    """``rgb`` area-averaged by ``s``, and the scale made (a shared one within ``reuse`` of
    ``s``, inside :func:`downscales_shared`). Requests with ``reuse`` 0 (the ranking's
    pyramid) and others keep apart, so the first read of a photo is as it would be alone."""
    shared = getattr(_READ_STATE, "downscales", None)
    made = shared[1] if shared is not None and shared[0] is rgb else None
    for small, s_made, tol in made or ():
        if tol == reuse and abs(s_made / s - 1) <= reuse:
            return small, s_made
    small = cv2.resize(
        rgb, (round(rgb.shape[1] * s), round(rgb.shape[0] * s)), interpolation=cv2.INTER_AREA
    )
    if made is not None:
        made.append((small, s, reuse))
    return small, s


def snap_to_edges(
    rgb: np.ndarray, lat: Lattice, *, outline_first: bool = False, cards: np.ndarray | None = None
) -> Lattice:
    """``lat`` (in ``rgb``'s pixels) snapped to the squares' edges
    (:func:`~vision.nimalia.lattice.refine_lattice`) in the downscale the squares are read from."""
    small, s = prefilter(rgb, lat)
    snapped = refine_lattice(small, scaled(lat, s), outline_first=outline_first, cards=cards)
    return scaled(snapped, 1 / s)


def scaled(lat: Lattice, s: float) -> Lattice:
    if s == 1.0:
        return lat
    return Lattice(
        lat.rows, lat.cols, np.diag([s, s, 1.0]) @ lat.h_img_from_lat, lat.foreground, lat.score
    )
