"""Find a Nimalia reserve's square lattice in a photo: orientation, pitch, phase and extent.

The reserve is an irregular patch of squares on a table. Every square boundary lies on one of two
families of lattice lines (land-colour changes between squares, a card's printed edge, the
reserve's outline), so:

1. **Foreground.** The table's colours are learnt from a strip along the image border (k-means in
   Lab on a blurred thumbnail); pixels far from all of them are card. The largest blob is the
   reserve (a draw pile or a stray card beside it is a smaller blob). A second, shadow-aware
   model (a table colour times a factor) gives a second blob hypothesis when a shadow changed
   the first (:func:`foreground_masks`); the reader judges both.
2. **Two line families.** Line segments (OpenCV's LSD) inside the reserve's hull are grouped by
   direction into the two strongest, roughly perpendicular families; each family's vanishing
   point is the least-squares common point of its lines.
3. **Rectification.** Sending the vanishing line to infinity leaves an affine image of the table;
   mapping the two (now parallel) families onto the x and y axes leaves only a scale per axis.
4. **Pitch and phase per axis.** Edge strength summed across the reserve gives one profile per
   axis; lattice lines are a comb in it. The pitch is the largest period whose comb response is
   close to the best (harmonics of the true period respond as well, sub-harmonics do not), bounded
   by the reserve's extent (at most 6 squares); the comb's phase places the lines. Up to
   :data:`PITCHES` candidates per axis; their pairs are lattice hypotheses, those whose squares
   would not be square in space last (:func:`_squareness`).
5. **Up.** Of the four quarter turns of the rectified lattice, the one whose "up" is closest to
   the image's up is kept: the photo is taken from the player's seat.

The result, :class:`Lattice`, maps lattice coordinates (``u`` along a row, ``v`` down a column,
in squares, 0 at the bounding box's top-left corner) to image pixels and back; recognising the
squares (``vision.nimalia.reader``) decides which cells hold a square and verifies the lattice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

#: Thumbnail long side for the foreground model and work image long side for lines/profiles.
MASK_SIDE = 320
WORK_SIDE = 900
MAX_SQUARES = 6
#: Pitch candidates per axis, and lattice hypotheses kept of their pairs (per reserve blob).
PITCHES = 5
HYPOTHESES = 9
#: A pitch pair whose squares' sides differ by more than this (|log ratio|, ~35 %) in space is
#: tried only after the pairs that pass (see :func:`_squareness`).
MAX_LOG_ASPECT = 0.3
#: Weight of Lab lightness against colour in the table model.
L_WEIGHT = 0.4


class LatticeNotFound(ValueError):
    """No reserve-like lattice in the photo."""


@dataclass
class Lattice:
    """A square lattice in an image.

    Attributes
    ----------
    rows, cols : int
        The candidate extent in squares (cells beyond the reserve's outline are read as empty).
    h_img_from_lat : (3, 3)
        Lattice coordinates (u, v) in squares -> image pixels (of the image given to
        :func:`find_lattice`).
    foreground : (rows, cols) float
        Share of each cell that the foreground model calls card (0..1).
    score : float
        Comb response of the chosen pitches (mean of both axes, 0..1).
    """

    rows: int
    cols: int
    h_img_from_lat: np.ndarray
    foreground: np.ndarray
    score: float

    def to_image(self, uv: np.ndarray) -> np.ndarray:
        uv = np.asarray(uv, np.float64).reshape(-1, 2)
        p = np.column_stack([uv, np.ones(len(uv))]) @ self.h_img_from_lat.T
        return p[:, :2] / p[:, 2:3]

    def cell_quad(self, r: int, c: int, shrink: float = 0.0) -> np.ndarray:
        """Image corners TL, TR, BR, BL of cell (r, c), optionally shrunk by a share per side."""
        a, b = shrink, 1 - shrink
        return self.to_image(
            np.array([[c + a, r + a], [c + b, r + a], [c + b, r + b], [c + a, r + b]])
        )

    def corners(self) -> np.ndarray:
        """Image points of every lattice corner, ``(rows + 1, cols + 1, 2)``."""
        uu, vv = np.meshgrid(np.arange(self.cols + 1), np.arange(self.rows + 1))
        return self.to_image(np.column_stack([uu.ravel(), vv.ravel()])).reshape(
            self.rows + 1, self.cols + 1, 2
        )

    def shifted(self, dr: int, dc: int, rows: int, cols: int) -> Lattice:
        """The same lattice with its origin moved to cell (dr, dc) and a new extent."""
        t = np.array([[1, 0, dc], [0, 1, dr], [0, 0, 1.0]])
        fg = np.zeros((rows, cols))
        for r in range(rows):
            for c in range(cols):
                if 0 <= r + dr < self.rows and 0 <= c + dc < self.cols:
                    fg[r, c] = self.foreground[r + dr, c + dc]
        return Lattice(rows, cols, self.h_img_from_lat @ t, fg, self.score)

    def square_side(self) -> float:
        """Mean image side, in pixels, of the central cell."""
        q = self.cell_quad(self.rows // 2, self.cols // 2)
        return float(np.mean([np.linalg.norm(q[i] - q[(i + 1) % 4]) for i in range(4)]))

    def coarser(self, dr: int, dc: int, fr: int = 2, fc: int = 2) -> Lattice:
        """The lattice of ``fr`` times the pitch down and ``fc`` times across (1, 2 or 3 each)
        whose cells are ``fr`` x ``fc`` blocks of this one's, the first block starting at cell
        (dr, dc): the true lattice when this one is at half the pitch on those axes (the comb
        picks each axis's pitch on its own). Its foreground is the blocks' mean."""
        rows, cols = (self.rows - dr + fr - 1) // fr, (self.cols - dc + fc - 1) // fc
        fg = np.zeros((fr * rows, fc * cols))
        part = self.foreground[dr:, dc:]
        fg[: part.shape[0], : part.shape[1]] = part
        fg = fg.reshape(rows, fr, cols, fc).mean((1, 3))
        t = np.array([[float(fc), 0, dc], [0, float(fr), dr], [0, 0, 1]])
        return Lattice(rows, cols, self.h_img_from_lat @ t, fg, self.score)

    def finer(self, fr: int = 2, fc: int = 2) -> Lattice:
        """The lattice of 1/``fr`` the pitch down and 1/``fc`` across over the same area (each
        cell split into ``fr`` x ``fc``): the true lattice when this one is at a multiple of
        the pitch on those axes (a cell a whole card, or a card's half)."""
        fg = np.repeat(np.repeat(self.foreground, fr, 0), fc, 1)
        t = np.diag([1 / fc, 1 / fr, 1.0])
        return Lattice(fr * self.rows, fc * self.cols, self.h_img_from_lat @ t, fg, self.score)


def _resize(img: np.ndarray, side: int) -> tuple[np.ndarray, float]:
    s = side / max(img.shape[:2])
    if s >= 1:
        return img, 1.0
    return cv2.resize(
        img, (round(img.shape[1] * s), round(img.shape[0] * s)), interpolation=cv2.INTER_AREA
    ), s


def _ring(a: np.ndarray, b: int) -> np.ndarray:
    """Pixels of a strip ``b`` wide along the border of ``a`` (``(N, channels)``)."""
    c = a.shape[2] if a.ndim == 3 else 1
    return np.concatenate(
        [
            a[:b].reshape(-1, c),
            a[-b:].reshape(-1, c),
            a[:, :b].reshape(-1, c),
            a[:, -b:].reshape(-1, c),
        ]
    )


def _threshold(d: np.ndarray, b: int) -> np.ndarray:
    """Card where the distance to the table is well above what the border strip shows."""
    d8 = np.clip(d * 2, 0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(d8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    thr = max(otsu / 2, float(np.percentile(_ring(d, b), 97)) + 4, 10.0)
    return d > thr


def table_distances(small: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Two per-pixel distances to the table's colours on a thumbnail: ``(lab, shadow, b)``.

    ``lab``: Lab distance (lightness weighted :data:`L_WEIGHT`) to the nearest of up to 6
    k-means colours of the border strip (``b`` px wide). ``shadow``: the same colours as a
    multiplicative model (RGB residual after the best scale in [0.35, 1.15] of a table colour,
    relative to the pixel's brightness): a hand or phone shadow, vignetting or a light gradient
    darkens the table by a factor, which this model explains and the Lab model does not.
    """
    blur = cv2.GaussianBlur(small, (0, 0), 1.5)
    lab = cv2.cvtColor(blur, cv2.COLOR_RGB2LAB).astype(np.float32)
    lab[..., 0] *= L_WEIGHT  # light and shadow change lightness far more than colour
    h, w = lab.shape[:2]
    b = max(3, int(0.04 * min(h, w)))
    ring = _ring(lab, b)
    k = 6
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 15, 1.0)
    cv2.setRNGSeed(0)  # the same photo gives the same read
    _, labels, centres = cv2.kmeans(
        ring,
        k,
        None,
        crit,
        2,
        cv2.KMEANS_PP_CENTERS,
    )
    labels = labels.ravel()
    counts = np.bincount(labels, minlength=k)
    keep = np.where(counts >= 0.02 * len(ring))[0]
    # |x - c| for every pixel and centre, without forming (h, w, K, 3) arrays
    x = lab.reshape(-1, 3)
    c = centres[keep]
    d2 = (x * x).sum(1)[:, None] - 2 * x @ c.T + (c * c).sum(1)[None]
    d_lab = np.sqrt(np.maximum(d2.min(1), 0)).reshape(h, w)
    rgb = blur.astype(np.float32)
    ring_rgb = _ring(rgb, b)
    table = np.array([ring_rgb[labels == j].mean(0) for j in keep], np.float32)  # (K, 3)
    p = rgb.reshape(-1, 3)
    tt = (table * table).sum(1)  # (K,)
    pt = p @ table.T  # (N, K)
    a = np.clip(pt / tt[None], 0.35, 1.15)
    # |p - a T|^2 and |a T|, without forming (N, K, 3) arrays
    res2 = (p * p).sum(1)[:, None] - 2 * a * pt + a * a * tt[None]
    res = np.sqrt(np.maximum(res2, 0))
    d_sh = (100 * res / (a * np.sqrt(tt)[None] + 20)).min(1).reshape(h, w)
    return d_lab, d_sh, b


def foreground_masks(rgb: np.ndarray, per_model: int = 1) -> tuple[list[np.ndarray], float]:
    """``([blob, ...], scale)``: reserve blob hypotheses on a thumbnail of ``rgb``.

    The first is the blob of the Lab table model (:func:`foreground_mask`); the second, when it
    differs, that of the shadow-aware model (a shadow the Lab model calls card can join the
    reserve or outgrow it). The reader judges them by recognition. ``per_model`` > 1 also gives
    each model's next largest card-sized blobs (a glare patch or a bright background can be
    larger than a small, far reserve).
    """
    small, s = _resize(rgb, MASK_SIDE)
    d_lab, d_sh, b = table_distances(small)
    blobs: list[np.ndarray] = []
    error: LatticeNotFound | None = None
    for card in (_threshold(d_lab, b), _threshold(d_sh, b)):
        try:
            found = _blobs(card, per_model)
        except LatticeNotFound as e:
            error = error or e
            continue
        for blob in found:
            if not any(_iou(blob, o) > SAME_BLOB_IOU for o in blobs):
                blobs.append(blob)
    if not blobs:
        raise error or LatticeNotFound("no reserve found")
    return blobs, s


#: Blobs per table model and the largest extent in squares of the rescue search
#: (:func:`find_lattice_sets`).
RESCUE_BLOBS = 3
RESCUE_SPAN = 10.0
#: Lattice hypotheses per pair of line families in the rescue search.
RESCUE_HYPOTHESES = 16

#: Two blobs overlapping this much (intersection over union) are one hypothesis.
SAME_BLOB_IOU = 0.85


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a > 0, b > 0
    return float((a & b).sum()) / max(float((a | b).sum()), 1.0)


def foreground_mask(rgb: np.ndarray) -> tuple[np.ndarray, float]:
    """``(mask uint8 0/255, scale)``: the reserve's blob on a thumbnail of ``rgb`` (Lab model).

    ``scale`` is thumbnail pixels per input pixel.
    """
    small, s = _resize(rgb, MASK_SIDE)
    d_lab, _, b = table_distances(small)
    return _blob(_threshold(d_lab, b)), s


def _blob(card: np.ndarray) -> np.ndarray:
    """The largest blob of a card mask plus blobs a hairline from it (uint8 0/255)."""
    return _blobs(card, 1)[0]


def _blobs(card: np.ndarray, n: int) -> list[np.ndarray]:
    """Up to ``n`` blob groups of a card mask, largest first: each a blob plus the blobs a
    hairline from it (uint8 0/255); groups after the first must be card-sized."""
    h, w = card.shape
    mask = card.astype(np.uint8) * 255
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n_comp, lab_img, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n_comp <= 1:
        raise LatticeNotFound("no reserve found: nothing stands out from the table")
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    area = stats[best, cv2.CC_STAT_AREA]
    if area < 0.004 * h * w:
        raise LatticeNotFound("no reserve found: nothing card-sized stands out from the table")
    # cards of one reserve can part by a hairline (offsets): group blobs a few mm apart
    big = np.isin(lab_img, 1 + np.where(stats[1:, cv2.CC_STAT_AREA] >= 0.05 * area)[0])
    reach = max(3, int(0.05 * math.sqrt(area)))
    grown = cv2.dilate(big.astype(np.uint8), np.ones((reach, reach), np.uint8))
    _, groups = cv2.connectedComponents(grown, connectivity=8)
    out, seen = [], set()
    for j in 1 + np.argsort(-stats[1:, cv2.CC_STAT_AREA], kind="stable"):
        if len(out) >= n or (out and stats[j, cv2.CC_STAT_AREA] < 0.004 * h * w):
            break
        group = int(groups[lab_img == j][0])
        if group in seen or not big[lab_img == j].any():
            continue
        seen.add(group)
        out.append(((groups == group) & big).astype(np.uint8) * 255)
    return out


def _detect(gray: np.ndarray) -> np.ndarray:
    """Every LSD segment ``(N, 4)`` x1 y1 x2 y2 of a grey image."""
    lsd = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD)
    lines = lsd.detect(gray)[0]
    if lines is None:
        return np.zeros((0, 4), np.float32)
    return lines.reshape(-1, 4)


def _segments(gray: np.ndarray, region: np.ndarray, seg: np.ndarray | None = None) -> np.ndarray:
    """LSD segments ``(N, 4)`` x1 y1 x2 y2 whose midpoints fall in ``region`` (``seg``: the
    image's segments when already detected)."""
    if seg is None:
        seg = _detect(gray)
    if not len(seg):
        return seg
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    mid = ((seg[:, :2] + seg[:, 2:]) / 2).astype(int)
    h, w = region.shape
    inside = region[np.clip(mid[:, 1], 0, h - 1), np.clip(mid[:, 0], 0, w - 1)] > 0
    return seg[inside & (length >= 0.012 * max(h, w))]


def _on_outline(seg: np.ndarray, blob: np.ndarray) -> np.ndarray:
    """Boolean per segment: it runs along the blob's outline (every one of 5 points along it
    within :data:`OUTLINE_PX` of the outline), i.e. it is an edge of a card against the table."""
    edge = blob ^ cv2.erode(blob, np.ones((3, 3), np.uint8))
    dist = cv2.distanceTransform((edge == 0).astype(np.uint8), cv2.DIST_L2, 3)
    t = np.linspace(0.1, 0.9, 5)[None, :, None]
    pts = seg[:, None, :2] + t * (seg[:, None, 2:] - seg[:, None, :2])
    h, w = blob.shape
    ix = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
    iy = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
    return (dist[iy, ix] <= OUTLINE_PX).all(1)


#: A segment within this many work-image pixels of the reserve's outline along its whole
#: length is an outline edge (:func:`_on_outline`).
OUTLINE_PX = 6.0
#: Weight of outline edges in the choice of the two line families: the reserve's outline is
#: made of card edges only, while inside it (and in the hull's notches) printed textures and a
#: striped table also give long straight lines.
OUTLINE_WEIGHT = 4.0


def _families(
    seg: np.ndarray, outline: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    """Two boolean masks over segments: the two strongest roughly perpendicular directions
    (segments weighted by length squared, outline edges ``outline`` by :data:`OUTLINE_WEIGHT`
    more), and the two directions in degrees."""
    d = seg[:, 2:] - seg[:, :2]
    length = np.hypot(d[:, 0], d[:, 1])
    ang = np.degrees(np.arctan2(d[:, 1], d[:, 0])) % 180.0
    wts = length**2 if outline is None else length**2 * np.where(outline, OUTLINE_WEIGHT, 1.0)
    hist = np.bincount(np.round(ang).astype(int) % 180, weights=wts, minlength=180)
    kern = np.exp(-0.5 * (np.arange(-6, 7) / 2.5) ** 2)
    smooth = np.convolve(np.concatenate([hist[-6:], hist, hist[:6]]), kern, "same")[6:-6]
    a1 = int(np.argmax(smooth))
    offs = (np.arange(180) - a1) % 180
    window = (offs >= 55) & (offs <= 125)
    a2 = int(np.argmax(np.where(window, smooth, -1)))

    def near(a: int) -> np.ndarray:
        diff = np.abs((ang - a + 90) % 180 - 90)
        return diff < 14

    return near(a1), near(a2), (a1, a2)


def _angle_gap(a: tuple[int, int], b: tuple[int, int]) -> float:
    """Largest difference in degrees between two pairs of line directions (unordered)."""

    def d(x: float, y: float) -> float:
        return abs((x - y + 90) % 180 - 90)

    return min(max(d(a[0], b[0]), d(a[1], b[1])), max(d(a[0], b[1]), d(a[1], b[0])))


#: Outline-weighted line families more than this many degrees from the plain ones give a
#: second set of hypotheses (:func:`_lattices_of_blob`).
FAMILY_GAP = 8.0
#: Segments whose midpoints lie in the blob dilated by this square kernel (work-image pixels:
#: the card edges on the outline stay in) are on the cards; when at least
#: :data:`BLOB_SEG_MIN_DROPPED` of the hull's segments are not, the cards' segments give a
#: second set of line families (:func:`_lattices_of_blob`).
BLOB_SEG_PX = 9
BLOB_SEG_MIN_DROPPED = 0.05


def _normaliser(shape: tuple[int, ...]) -> np.ndarray:
    """``(cx, cy, half the long side)`` of an image: points ``(p - c) / half`` are the
    normalised coordinates the vanishing points live in."""
    hh, ww = shape[:2]
    return np.array([(ww - 1) / 2, (hh - 1) / 2, max(ww, hh) / 2], np.float64)


def _segment_lines(seg: np.ndarray, norm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The homogeneous line through each segment (normalised coordinates, not unit) and each
    segment's length in those coordinates."""
    p1 = (seg[:, :2] - norm[:2]) / norm[2]
    p2 = (seg[:, 2:] - norm[:2]) / norm[2]
    ones = np.ones((len(seg), 1))
    return np.cross(np.hstack([p1, ones]), np.hstack([p2, ones])), np.hypot(*(p2 - p1).T)


def _vanishing_point(seg: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """Homogeneous common point of segment lines (normalised coordinates), robustly."""
    lines, wts = _segment_lines(seg, norm)
    lines /= np.linalg.norm(lines[:, :2], axis=1, keepdims=True) + 1e-12
    keep = np.ones(len(seg), bool)
    vp = None
    for _ in range(3):
        _, _, vt = np.linalg.svd(lines[keep] * wts[keep, None], full_matrices=False)
        vp = vt[-1]
        res = _vp_residual(seg, norm, vp[None])[0]
        new_keep = res < max(1.5, float(np.percentile(res, 80)))
        if new_keep.sum() < 3 or (new_keep == keep).all():
            break
        keep = new_keep
    return vp


def _vp_residual(seg: np.ndarray, norm: np.ndarray, vps: np.ndarray) -> np.ndarray:
    """``(len(vps), len(seg))``: the angle in degrees between each segment and the direction
    from its midpoint to each vanishing point (homogeneous, normalised coordinates)."""
    p1 = (seg[:, :2] - norm[:2]) / norm[2]
    p2 = (seg[:, 2:] - norm[:2]) / norm[2]
    mid = (p1 + p2) / 2
    to_vp = vps[:, None, :2] - mid[None] * vps[:, None, 2:3]
    seg_dir = p2 - p1
    cosang = np.abs(np.sum(to_vp * seg_dir[None], -1)) / (
        np.linalg.norm(to_vp, axis=-1) * np.linalg.norm(seg_dir, axis=-1)[None] + 1e-12
    )
    return np.degrees(np.arccos(np.clip(cosang, 0, 1)))


def _orthogonal_families(
    seg: np.ndarray, shape: tuple[int, ...], families: tuple[np.ndarray, np.ndarray, tuple]
) -> list[tuple[np.ndarray, np.ndarray, tuple]]:
    """The family whose segments meet best in their vanishing point, with its orthogonal
    partner searched afresh (:func:`_orthogonal_family`), when that differs: ``[]`` or one
    family pair."""
    f1, f2, angles = families
    if f1.sum() < 3 or f2.sum() < 3:
        return []
    norm = _normaliser(shape)
    vps = [_vanishing_point(seg[f], norm) for f in (f1, f2)]
    spread = [
        float(np.median(_vp_residual(seg[f], norm, v[None])[0]))
        for f, v in zip((f1, f2), vps, strict=True)
    ]
    if spread[0] <= spread[1]:
        partner = _orthogonal_family(seg, norm, f1, f2, vps[0])
        return [] if partner is None else [(f1, partner, angles)]
    partner = _orthogonal_family(seg, norm, f2, f1, vps[1])
    return [] if partner is None else [(partner, f2, angles)]


def _crossings(seg: np.ndarray, norm: np.ndarray) -> np.ndarray:
    """The crossing point of the lines of every pair of segments ``seg`` (homogeneous, in
    normalised coordinates, unit length): candidate vanishing points."""
    lines, _ = _segment_lines(seg, norm)
    i, j = np.triu_indices(len(seg), 1)
    cand = np.cross(lines[i], lines[j])
    return cand / (np.linalg.norm(cand, axis=1, keepdims=True) + 1e-12)


def _orthogonal_family(
    seg: np.ndarray,
    norm: np.ndarray,
    kept: np.ndarray,
    other: np.ndarray,
    v_kept: np.ndarray | None = None,
) -> np.ndarray | None:
    """The segments of the vanishing point, orthogonal in space to family ``kept``'s, that the
    most segment length points at (RANSAC over pairs of the longest segments not in ``kept``),
    when they differ from ``other``; else ``None``.

    A family was first the segments within 14 degrees of one image direction: under a steep
    view one family's card edges fan out wider than that, and a striped table or a printed band
    can take their place. With the camera centred on the image and a phone's focal length
    (0.6-1.4 x the long side), a vanishing point fixes the line its orthogonal partner lies on;
    the partner is searched along it. ``v_kept``: family ``kept``'s vanishing point when
    already estimated.
    """
    v1 = _vanishing_point(seg[kept], norm) if v_kept is None else v_kept
    free = ~kept
    if free.sum() < 3:
        return None
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    longest = np.where(free)[0][np.argsort(-length[free])[:ORTHO_CANDIDATES]]
    cand = _crossings(seg[longest], norm)
    # orthogonal in space: x1 x2 + y1 y2 + f^2 w1 w2 = 0 for a phone's focal length f
    dot = cand[:, :2] @ v1[:2]
    ww = cand[:, 2] * v1[2]
    with np.errstate(divide="ignore", invalid="ignore"):
        f2 = -dot / ww
    side = 2 * max(norm[0], norm[1]) / norm[2]  # the long side in normalised units
    at_infinity = np.abs(ww) < 1e-6
    orthogonal = np.where(
        at_infinity,
        np.abs(dot) < 0.1 * np.linalg.norm(cand[:, :2], axis=1) * np.linalg.norm(v1[:2]) + 1e-12,
        (f2 >= (0.6 * side) ** 2) & (f2 <= (1.4 * side) ** 2),
    )
    cand = cand[orthogonal]
    if not len(cand):
        return None
    res = _vp_residual(seg, norm, cand)  # (candidates, segments)
    support = ((res < ORTHO_INLIER_DEG) & free[None]).astype(np.float64) @ length
    best = cand[int(np.argmax(support))]
    mask = (_vp_residual(seg, norm, best[None])[0] < ORTHO_INLIER_DEG) & free
    if mask.sum() < 3:
        return None
    if _iou(mask, other) >= SAME_FAMILY_IOU:
        return None
    return mask


def _outline_families(
    seg: np.ndarray,
    outline: np.ndarray,
    hull: np.ndarray,
    shape: tuple[int, ...],
    known: list[tuple[np.ndarray, np.ndarray, tuple]],
) -> list[tuple[np.ndarray, np.ndarray, tuple]]:
    """The two line families of the two vanishing points the reserve's outline edges
    (``seg[outline]``) point at most (RANSAC over pairs of outline edges, each point at least
    :data:`OUTLINE_VP_AWAY` of the hull's diameter outside the hull: two edges meeting at a
    corner of the reserve are not a vanishing point), every segment within
    :data:`ORTHO_INLIER_DEG` of pointing at one of them in its family: ``[]`` or one family
    pair, when it is not one of ``known``'s.

    A family is otherwise the segments within 14 degrees of one image direction: a close-up
    seen from the seat fans one family's card edges out wider than that (fresh variant-style
    seed 1190040: the side edges of a 3 x 3 reserve at 65-102 degrees), and stripes printed on
    the cards take its place.
    """
    o = seg[outline]
    if len(o) < 4:
        return []
    norm = _normaliser(shape)
    length = np.hypot(o[:, 2] - o[:, 0], o[:, 3] - o[:, 1])
    cand = _crossings(o[np.argsort(-length)[:ORTHO_CANDIDATES]], norm)
    # finite points in pixels; points at infinity (parallel edges) are always away
    hp = hull.reshape(-1, 2).astype(np.float32)
    diam = float(np.sqrt(((hp[:, None] - hp[None]) ** 2).sum(-1).max()))
    finite = np.abs(cand[:, 2]) > 1e-9
    away = np.ones(len(cand), bool)
    for k in np.nonzero(finite)[0]:
        x, y = cand[k, :2] / cand[k, 2] * norm[2] + norm[:2]
        if abs(x) < 1e7 and abs(y) < 1e7:
            away[k] = -cv2.pointPolygonTest(hp, (float(x), float(y)), True) > OUTLINE_VP_AWAY * diam
    cand = cand[away]
    if len(cand) < 2:
        return []
    res = _vp_residual(o, norm, cand) < ORTHO_INLIER_DEG_OUTLINE
    first = int(np.argmax(res.astype(np.float64) @ length))
    rest = res & ~res[first][None]
    second = int(np.argmax(rest.astype(np.float64) @ length))
    if rest[second].sum() < 2 or res[first].sum() < 2:
        return []
    every = _vp_residual(seg, norm, cand[[first, second]]) < ORTHO_INLIER_DEG
    f1, f2 = every[0] & ~every[1], every[1] & ~every[0]
    if f1.sum() < 2 or f2.sum() < 2:
        return []
    for g1, g2, _ in known:
        if min(_iou(f1, g1), _iou(f2, g2)) >= SAME_FAMILY_IOU or (
            min(_iou(f1, g2), _iou(f2, g1)) >= SAME_FAMILY_IOU
        ):
            return []
    return [(f1, f2, (0, 0))]


#: the longest segments outside the kept family whose pairs give candidate vanishing points
ORTHO_CANDIDATES = 40
#: an outline edge within this many degrees of pointing at a vanishing point supports it
#: (:func:`_outline_families`: LSD's edges along a card's printed border bend a little)
ORTHO_INLIER_DEG_OUTLINE = 2.0
#: a vanishing point of the outline's edges lies at least this share of the hull's diameter
#: outside the hull
OUTLINE_VP_AWAY = 0.5
#: two family pairs whose segment masks overlap this much (intersection over union, each
#: family) are the same
SAME_FAMILY_IOU = 0.7
#: a segment within this many degrees of pointing at a vanishing point supports it
ORTHO_INLIER_DEG = 1.5


def _comb(
    profile: np.ndarray,
    span: tuple[float, float],
    lo: float,
    hi: float,
    keep: int = 3,
    extra: Sequence[float] = (),
) -> list[tuple[float, float, float]]:
    """Candidate ``(pitch, phase, contrast)`` combs in an edge profile, best first.

    Pitches lie in [lo, hi] px; up to ``keep`` candidates are local maxima of the score over the
    pitch, more than 12 % apart; then each pitch of ``extra`` (in [lo, hi], not within 4 % of
    one already chosen) at its best phase.

    A candidate (pitch, phase) scores the mean edge strength on its lines (within +-2 px) minus
    the mean strength half-way between them, over ``span`` (the reserve's extent): the true
    pitch wins over its harmonics (half of whose lines fall mid-square) and sub-harmonics (whose
    mid-points are lattice lines too).
    """
    prof = cv2.GaussianBlur(profile.reshape(1, -1).astype(np.float32), (0, 0), 1.0).ravel()
    n = len(prof)
    a, b = span
    inner = prof[max(int(a), 0) : min(int(b) + 1, n)]
    # compress: the reserve's outline (card against table) must not outvote the inner lines
    loc_max = inner[1:-1][(inner[1:-1] >= inner[:-2]) & (inner[1:-1] >= inner[2:])]
    top = np.sort(loc_max)[::-1]
    cap = 0.8 * float(top[min(2, len(top) - 1)]) if len(top) else float(inner.max())
    prof = np.minimum(prof, cap)
    peak = cv2.dilate(prof.reshape(1, -1), np.ones((1, 5), np.uint8)).ravel()
    mean = float(prof[max(int(a), 0) : min(int(b) + 1, n)].mean()) + 1e-9
    # every pitch at once (phases and lines padded to the largest count, padding masked)
    pitches = []
    p = lo
    while p <= hi:
        pitches.append(p)
        p *= 1.006
    ps = np.array(pitches)
    if not len(ps):
        return []
    steps = np.maximum(1.0, ps / 80)
    n_ph = np.ceil(ps / steps).astype(int)  # len(np.arange(0, p, step))
    k0 = np.floor((a - ps) / ps).astype(int) - 1
    n_k = np.ceil((b + ps) / ps).astype(int) + 1 - k0
    phases = np.arange(n_ph.max())[None, :] * steps[:, None]  # (pitches, phases)
    kk = np.arange(n_k.max())
    k_ok = kk[None, :] < n_k[:, None]  # (pitches, lines)
    pp = ps[:, None, None]
    pos = phases[:, :, None] + (k0[:, None] + kk[None, :])[:, None, :] * pp
    valid = (pos >= a - 0.3 * pp) & (pos <= b + 0.3 * pp) & k_ok[:, None, :]
    mids = pos + pp / 2
    valid_m = (mids >= a) & (mids <= b) & k_ok[:, None, :]
    on = peak[np.clip(np.round(pos).astype(int), 0, n - 1)]
    off = prof[np.clip(np.round(mids).astype(int), 0, n - 1)]
    count = np.maximum(valid.sum(-1), 1)
    s_on = (on * valid).sum(-1) / count
    s_off = (off * valid_m).sum(-1) / np.maximum(valid_m.sum(-1), 1)
    score = (s_on - s_off) / mean * np.sqrt(count)
    score[np.arange(phases.shape[1])[None, :] >= n_ph[:, None]] = -np.inf
    best_j = np.argmax(score, 1)
    results = [
        (float(score[i, j]), float(ps[i]), float(phases[i, j])) for i, j in enumerate(best_j)
    ]
    sc = np.array([r[0] for r in results])
    order = np.argsort(-sc)
    chosen: list[tuple[float, float, float]] = []
    for i in order:
        left = sc[i - 1] if i > 0 else -np.inf
        right = sc[i + 1] if i + 1 < len(sc) else -np.inf
        if sc[i] < left or sc[i] < right:
            continue
        pitch = results[i][1]
        if any(abs(pitch - c[0]) < 0.12 * c[0] for c in chosen):
            continue
        chosen.append((pitch, results[i][2], float(sc[i])))
        if len(chosen) >= keep:
            break
    for pitch in extra:  # asked-for pitches, each at its best phase, unless already chosen
        if not lo <= pitch <= hi or any(abs(pitch - c[0]) < 0.04 * c[0] for c in chosen):
            continue
        i = int(np.argmin(np.abs(ps - pitch)))
        chosen.append((float(ps[i]), results[i][2], float(sc[i])))
    return chosen


def find_lattice(rgb: np.ndarray) -> Lattice:
    """The most likely lattice in ``rgb`` (``(H, W, 3) uint8``); ``LatticeNotFound`` if none."""
    return find_lattices(rgb)[0]


def find_lattices(rgb: np.ndarray, keep: int = PITCHES) -> list[Lattice]:
    """Lattice hypotheses in ``rgb``, most likely first (pitch candidates of both axes, at most
    :data:`HYPOTHESES`; pitch pairs whose squares would not be square come last).

    The comb alone can take a multiple of the true pitch when few lines are visible; the
    reader verifies the hypotheses by recognition.
    """
    blob, s_mask = foreground_mask(rgb)
    work, s_work = _resize(rgb, WORK_SIDE)
    return _lattices_of_blob(work, s_work, blob, s_mask, keep)


def find_lattice_sets(
    rgb: np.ndarray, keep: int = PITCHES, *, rescue: bool = False, outline_vps: bool = False
) -> list[list[Lattice] | LatticeNotFound]:
    """Lattice hypotheses per reserve blob hypothesis (:func:`foreground_masks`), the Lab
    model's first; a blob without a lattice gives its :class:`LatticeNotFound` instead. The
    photo's line segments are detected once.

    ``rescue``: the wider search the reader runs when the first read is doubtful — up to
    :data:`RESCUE_BLOBS` blobs per table model, and pitches down to the blob's extent over
    :data:`RESCUE_SPAN` squares (glare or a shadow joined to the reserve makes the blob larger
    than 6 squares).

    ``outline_vps``: instead, only the hypotheses of the line families of the outline's
    vanishing points (:func:`_outline_families`) that the wider search did not try, at its
    settings: the reader's last resort.
    """
    rescue = rescue or outline_vps
    blobs, s_mask = foreground_masks(rgb, RESCUE_BLOBS if rescue else 1)
    work, s_work = _resize(rgb, WORK_SIDE)
    seg = _detect(cv2.cvtColor(work, cv2.COLOR_RGB2GRAY)) if len(blobs) > 1 else None
    out: list[list[Lattice] | LatticeNotFound] = []
    for blob in blobs:
        try:
            out.append(
                _lattices_of_blob(work, s_work, blob, s_mask, keep, seg, rescue, outline_vps)
            )
        except LatticeNotFound as error:
            out.append(error)
    return out


def _lattices_of_blob(
    work: np.ndarray,
    s_work: float,
    blob: np.ndarray,
    s_mask: float,
    keep: int,
    seg_all: np.ndarray | None = None,
    rescue: bool = False,
    outline_vps: bool = False,
) -> list[Lattice]:
    hw, ww = work.shape[:2]
    blob_w = cv2.resize(blob, (ww, hw), interpolation=cv2.INTER_NEAREST)
    pts = cv2.findNonZero(blob_w)
    hull = cv2.convexHull(pts)
    region = np.zeros_like(blob_w)
    cv2.fillConvexPoly(region, hull, 255)
    region = cv2.dilate(region, np.ones((9, 9), np.uint8))
    gray = cv2.cvtColor(work, cv2.COLOR_RGB2GRAY)
    if seg_all is None:
        seg_all = _detect(gray)
    seg = _segments(gray, region, seg_all)
    if len(seg) < 6:
        raise LatticeNotFound("no lattice lines on the reserve")
    # the segments on the cards alone: the hull's notches can hold a striped or grained table
    # whose lines pull a vanishing point, but the blob can miss squares close to the table's
    # colour, and their lines with them: recognition judges the hypotheses of both
    on_cards = cv2.dilate(blob_w, np.ones((BLOB_SEG_PX, BLOB_SEG_PX), np.uint8))
    seg_blob = _segments(gray, on_cards, seg_all)
    segment_sets = [seg]
    if len(seg) - len(seg_blob) >= BLOB_SEG_MIN_DROPPED * len(seg) and len(seg_blob) >= 6:
        segment_sets.append(seg_blob)
    out: list[Lattice] = []
    error: LatticeNotFound | None = None
    for seg in segment_sets:
        # the strongest two directions of all segments; when the directions of the reserve's
        # outline (card edges against the table, weighted up) differ, their hypotheses too
        plain = _families(seg)
        outline = _on_outline(seg, blob_w)
        outlined = _families(seg, outline)
        families = [plain]
        if _angle_gap(plain[2], outlined[2]) > FAMILY_GAP:
            families.append(outlined)
        if rescue:
            # the wider search only: a first read in doubt
            families += _orthogonal_families(seg, work.shape, plain)
        if outline_vps:
            families = _outline_families(seg, outline, hull, work.shape, families)
        for f1, f2, _ in families:
            try:
                out += _lattices_of_families(
                    work, s_work, blob, s_mask, keep, seg, f1, f2, hull, region, rescue
                )
            except LatticeNotFound as e:
                error = error or e
    if not out:
        raise error or LatticeNotFound("no lattice on the reserve")
    return out


def _lattices_of_families(
    work: np.ndarray,
    s_work: float,
    blob: np.ndarray,
    s_mask: float,
    keep: int,
    seg: np.ndarray,
    f1: np.ndarray,
    f2: np.ndarray,
    hull: np.ndarray,
    region: np.ndarray,
    rescue: bool,
) -> list[Lattice]:
    """The lattice hypotheses of one pair of line families (segments ``seg[f1]``, ``seg[f2]``)."""
    hh, ww = work.shape[:2]
    if f1.sum() < 2 or f2.sum() < 2:
        raise LatticeNotFound("the reserve shows fewer than two families of lines")
    norm = _normaliser(work.shape)
    v1 = _vanishing_point(seg[f1], norm)
    v2 = _vanishing_point(seg[f2], norm)
    n_mat = np.array(
        [[1 / norm[2], 0, -norm[0] / norm[2]], [0, 1 / norm[2], -norm[1] / norm[2]], [0, 0, 1.0]]
    )
    line = np.cross(v1, v2)
    if abs(line[2]) < 1e-9:
        raise LatticeNotFound("degenerate line families")
    line = line / line[2]
    # guard: a vanishing line crossing the reserve means a bad estimate; fall back to affine
    hpts = hull.reshape(-1, 2).astype(np.float64)
    hn = (hpts - norm[:2]) / norm[2]
    wv = 1 + hn @ line[:2]
    if (wv <= 0.2).any():
        line = np.array([0.0, 0.0, 1.0])
    hp = np.array([[1, 0, 0], [0, 1, 0], [line[0], line[1], 1.0]]) @ n_mat

    def apply(h: np.ndarray, p: np.ndarray) -> np.ndarray:
        q = np.column_stack([p, np.ones(len(p))]) @ h.T
        return q[:, :2] / q[:, 2:3]

    def direction(mask_f: np.ndarray) -> np.ndarray:
        a = apply(hp, seg[mask_f, :2].astype(np.float64))
        b = apply(hp, seg[mask_f, 2:].astype(np.float64))
        d = b - a
        # orientation tensor: principal direction, sign-free
        t = (d[:, :, None] * d[:, None, :]).sum(0)
        w_, v_ = np.linalg.eigh(t)
        return v_[:, -1]

    d1, d2 = direction(f1), direction(f2)
    lin = np.linalg.inv(np.column_stack([d1, d2]))
    if np.linalg.det(lin) < 0:
        lin = np.diag([1.0, -1.0]) @ lin
    h_aff = np.eye(3)
    h_aff[:2, :2] = lin
    h1 = h_aff @ hp
    hull_r = apply(h1, hpts)
    lo, hi = hull_r.min(0), hull_r.max(0)
    ext = hi - lo
    target = 560.0
    sc = target / max(ext.max(), 1e-9)
    margin = 30.0
    h_rect = np.array([[sc, 0, margin - lo[0] * sc], [0, sc, margin - lo[1] * sc], [0, 0, 1]]) @ h1
    # keep the aspect (the per-axis scale is set below from each axis's own pitch)
    size = (int(ext[0] * sc + 2 * margin), int(ext[1] * sc + 2 * margin))
    size = (max(size[0], 16), max(size[1], 16))
    rect = cv2.warpPerspective(work, h_rect, size, flags=cv2.INTER_LINEAR)
    rmask = cv2.warpPerspective(region, h_rect, size, flags=cv2.INTER_NEAREST)
    lab = cv2.cvtColor(rect, cv2.COLOR_RGB2LAB).astype(np.float32)
    gx = _channel_sum(np.abs(cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3)))
    gy = _channel_sum(np.abs(cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3)))
    inside = (cv2.erode(rmask, np.ones((3, 3), np.uint8)) > 0).astype(np.float32)
    prof_x = (gx * inside).sum(0)
    prof_y = (gy * inside).sum(1)
    ext_px = ext * sc
    cx, cy = (
        _comb(
            prof,
            (margin, margin + e),
            max(e / (RESCUE_SPAN if rescue else MAX_SQUARES + 0.8), 8),
            e / 1.6 + 1,
            keep,
            # the rescue also tries the blob's extent over a whole number of squares (a pitch
            # the comb's local maxima can miss when printed lines outvote the card edges)
            [e / k for k in range(2, MAX_SQUARES + 1)] if rescue else (),
        )
        for prof, e in ((prof_x, ext_px[0]), (prof_y, ext_px[1]))
    )
    if not cx or not cy:
        raise LatticeNotFound("no periodic lines on the reserve")
    # squares are square: with the camera's focal length (from the two families' orthogonality,
    # or a phone's typical one) the lattice's two steps must have the same length in space; a
    # pitch pair that fails this (a harmonic on one axis) is tried only after those that pass
    m_work = np.linalg.inv(h_rect)
    hyps = sorted(
        ((a[2] + b[2], a, b) for a in cx for b in cy),
        key=lambda t: (_squareness(m_work, t[1][0], t[2][0], (hh, ww)) > MAX_LOG_ASPECT, -t[0]),
    )[: RESCUE_HYPOTHESES if rescue else HYPOTHESES]
    out = []
    for score, (px, phx, _), (py, phy, _) in hyps:
        out.append(
            _lattice(
                px,
                phx,
                py,
                phy,
                (margin, margin + ext_px[0]),
                (margin, margin + ext_px[1]),
                h_rect,
                s_work,
                blob,
                s_mask,
                score,
            )
        )
    return out


def _channel_sum(img: np.ndarray) -> np.ndarray:
    """``img.sum(-1)`` of a 3-channel image, the same numbers five times faster (numpy reduces
    a short last axis slowly)."""
    return img[..., 0] + img[..., 1] + img[..., 2]


def _squareness(m_work: np.ndarray, px: float, py: float, shape: tuple[int, int]) -> float:
    """``|log(step_u / step_v)|`` in space of the lattice with pitches ``px``, ``py`` (rectified
    px) through ``m_work`` (rectified -> work image), for a pinhole camera centred on the image.

    The focal length is the one that makes the two steps perpendicular when that is a phone's
    (0.6-1.4 x the long side), else 0.93 x the long side; 0 for a true square lattice.
    """
    h, w = shape
    side = max(h, w)
    c = np.array([(w - 1) / 2, (h - 1) / 2])
    a = m_work[:, 0] * px
    b = m_work[:, 1] * py
    a = np.array([a[0] - c[0] * a[2], a[1] - c[1] * a[2], a[2]])
    b = np.array([b[0] - c[0] * b[2], b[1] - c[1] * b[2], b[2]])
    f = 0.93 * side
    if abs(a[2] * b[2]) > 1e-12:
        f2 = -(a[0] * b[0] + a[1] * b[1]) / (a[2] * b[2])
        if (0.6 * side) ** 2 < f2 < (1.4 * side) ** 2:
            f = math.sqrt(f2)
    ka = np.array([a[0] / f, a[1] / f, a[2]])
    kb = np.array([b[0] / f, b[1] / f, b[2]])
    return abs(math.log(max(np.linalg.norm(ka), 1e-12) / max(np.linalg.norm(kb), 1e-12)))


def _lattice(px, phx, py, phy, span_x, span_y, h_rect, s_work, blob, s_mask, score) -> Lattice:
    """The lattice of one (pitch, phase) pair per axis, covering the reserve plus one cell."""
    k0x = math.floor((span_x[0] - phx) / px + 0.5)
    k1x = math.floor((span_x[1] - phx) / px + 0.5)
    k0y = math.floor((span_y[0] - phy) / py + 0.5)
    k1y = math.floor((span_y[1] - phy) / py + 0.5)
    cols = max(1, min(k1x - k0x, MAX_SQUARES))
    rows = max(1, min(k1y - k0y, MAX_SQUARES))
    # one more cell on every side: the foreground model can miss squares that look like the
    # table (a jungle square on a green cloth); recognition decides which cells hold squares
    cols, rows = cols + 2, rows + 2
    ox, oy = phx + (k0x - 1) * px, phy + (k0y - 1) * py
    # lattice (u, v) -> rectified px -> work px -> input px
    lat_to_rect = np.array([[px, 0, ox], [0, py, oy], [0, 0, 1.0]])
    work_from_input = np.diag([s_work, s_work, 1.0])
    h_img = np.linalg.inv(work_from_input) @ np.linalg.inv(h_rect) @ lat_to_rect
    h_img /= h_img[2, 2]
    # foreground share per cell (on the thumbnail mask)
    g = np.linspace(0.2, 0.8, 4)
    q = np.column_stack([np.repeat(g, 4), np.tile(g, 4)])
    # every cell's 16 sample points at once: (rows, cols, 16, 2)
    rr, cc = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    pts = q[None, None] + np.stack([cc, rr], -1)[:, :, None, :]
    p = np.concatenate([pts, np.ones(pts.shape[:-1] + (1,))], -1) @ h_img.T
    p = p[..., :2] / p[..., 2:3] * s_mask
    ix = np.clip(p[..., 0].astype(int), 0, blob.shape[1] - 1)
    iy = np.clip(p[..., 1].astype(int), 0, blob.shape[0] - 1)
    fg = (blob[iy, ix] > 0).mean(-1)
    return _upright(Lattice(rows, cols, h_img, fg, float(score)))


def _upright(lat: Lattice) -> Lattice:
    """Turn the lattice by the quarter turn that puts its "up" closest to the image's up."""
    centre = np.array([[lat.cols / 2, lat.rows / 2]])
    c_img = lat.to_image(centre)[0]
    best, best_k = -2.0, 0
    for k in range(4):
        # lattice "up" after turning the lattice k quarter turns clockwise
        ups = [np.array([0, -1.0]), np.array([1.0, 0]), np.array([0, 1.0]), np.array([-1.0, 0])]
        u = lat.to_image(centre + 0.5 * ups[k][None])[0] - c_img
        u /= np.linalg.norm(u) + 1e-12
        score = -u[1]
        if score > best:
            best, best_k = score, k
    if best_k == 0:
        return lat
    r, c = lat.rows, lat.cols
    # new (u', v') -> old (u, v): turning by k quarters
    if best_k == 1:  # old up = +u: new cell (r', c') = old (c' ... )
        m = np.array([[0, -1, c], [1, 0, 0], [0, 0, 1.0]])
        nr, nc = c, r
        fg = np.rot90(lat.foreground, 1)
    elif best_k == 2:
        m = np.array([[-1, 0, c], [0, -1, r], [0, 0, 1.0]])
        nr, nc = r, c
        fg = np.rot90(lat.foreground, 2)
    else:
        m = np.array([[0, 1, 0], [-1, 0, r], [0, 0, 1.0]])
        nr, nc = c, r
        fg = np.rot90(lat.foreground, 3)
    return Lattice(nr, nc, lat.h_img_from_lat @ m, np.ascontiguousarray(fg), lat.score)


#: Lattice refinement (:func:`refine_lattice`): search windows (in squares, either side of each
#: lattice line) of its passes, and the RANSAC tolerance in squares.
REFINE_WINDOWS = (0.42, 0.25, 0.12)
REFINE_TOL = 0.08
#: A pass whose fit explains fewer than this share of the moved points ends the refinement.
REFINE_MIN_INLIERS = 0.3
#: Cells whose foreground share is at least this carry the lines refinement snaps to.
REFINE_MIN_FG = 0.3


def _edge_images(img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel Sobel derivatives ``(gx, gy)``, each ``(H, W, 3)`` float32."""
    f = cv2.GaussianBlur(img, (0, 0), 1.0).astype(np.float32)
    return cv2.Sobel(f, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(f, cv2.CV_32F, 0, 1, ksize=3)


def _normal_edge(gx: np.ndarray, gy: np.ndarray, pts: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """Edge strength across ``normal`` at image points ``pts`` (``(..., 2)``, bilinear; 0
    outside the image): the summed absolute channel derivatives along the unit normal."""
    shape = pts.shape[:-1]
    flat = pts.reshape(-1, 2).astype(np.float32)
    n_pts = len(flat)
    # remap's maps are images (each side under 32767): the points as rows of 1024
    width = 1024
    rows = max(1, -(-n_pts // width))
    maps = np.full((rows * width, 2), -1.0, np.float32)
    maps[:n_pts] = flat
    mx = maps[:, 0].reshape(rows, width)
    my = maps[:, 1].reshape(rows, width)
    ax = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    ay = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    ax, ay = ax.reshape(-1, 3)[:n_pts], ay.reshape(-1, 3)[:n_pts]
    n = normal.reshape(-1, 2)
    return np.abs(ax * n[:, :1] + ay * n[:, 1:]).sum(1).reshape(shape)


def _line_samples(
    fg: np.ndarray, axis: int, outline: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Lattice points on the lines of one family next to card cells (``fg``, ``(rows, cols)``
    bool): ``(k, t)`` per sample as ``(N, 2)`` lattice (u, v) points and the family index per
    sample (``axis`` 0: the lines u = k, 1: v = k). Samples keep away from the crossings (the
    other family's lines). ``outline``: only the lines between a card cell and a table cell (the
    reserve's outline)."""
    rows, cols = fg.shape
    ts = np.array([0.2, 0.35, 0.5, 0.65, 0.8])
    pts = []
    n_lines, n_cells = (cols, rows) if axis == 0 else (rows, cols)
    for k in range(n_lines + 1):
        for j in range(n_cells):
            if axis == 0:
                sides = (k > 0 and fg[j, k - 1], k < cols and fg[j, k])
            else:
                sides = (k > 0 and fg[k - 1, j], k < rows and fg[k, j])
            if (sides[0] != sides[1]) if outline else (sides[0] or sides[1]):
                pts += [(k, j + t) if axis == 0 else (j + t, k) for t in ts]
    return np.array(pts, np.float64).reshape(-1, 2), np.full(len(pts), axis)


def refine_lattice(
    img: np.ndarray, lat: Lattice, *, outline_first: bool = False, cards: np.ndarray | None = None
) -> Lattice:
    """Snap the lattice's lines to the image's edges and re-fit its homography.

    Along every lattice line beside a card cell, points between the crossings are moved across
    the line (within a window, in squares) to the strongest edge across it; a homography is
    fitted to the moved points (RANSAC) and the pass repeats with a narrower window
    (:data:`REFINE_WINDOWS`). A vanishing point pulled by table texture or printed lines leaves
    the far rows a fraction of a square off; the squares' own edges pull them back. The refined
    lattice is kept only when more edge lies on its lines than on the given one's.
    ``outline_first``: the widest pass snaps only the lines of the reserve's outline (between a
    card cell and a table cell), the clearest edges: inside the reserve printed stripes, badges
    or brush strokes can pull a line the wrong way (the reader tries it on reads that need a
    check).
    ``img``: the image ``lat`` maps into (any scale at which a square is tens of pixels).
    ``cards``: ``(rows, cols)`` bool, the cells taken as cards (default: foreground share at
    least :data:`REFINE_MIN_FG`); the reader adds the cells it read as squares, since a table
    close to the cards' colours leaves them out of the table model's foreground.
    """
    fg = lat.foreground >= REFINE_MIN_FG if cards is None else np.asarray(cards, bool)
    # only the lattice's own part of the image (plus a margin) is differentiated
    corners = lat.corners().reshape(-1, 2)
    if not np.isfinite(corners).all():  # a corner past the horizon
        return lat
    lo = np.floor(np.maximum(corners.min(0) - 8, 0)).astype(int)
    hi = np.ceil(np.minimum(corners.max(0) + 8, [img.shape[1], img.shape[0]])).astype(int)
    if (hi - lo < 16).any():
        return lat
    su, fu = _line_samples(fg, 0)
    sv, fv = _line_samples(fg, 1)
    base = np.concatenate([su, sv])
    fam = np.concatenate([fu, fv])
    if len(base) < 20 or not (fam == 0).any() or not (fam == 1).any():
        return lat
    given = lat
    shift = np.array([[1.0, 0, -lo[0]], [0, 1, -lo[1]], [0, 0, 1]])
    back = np.linalg.inv(shift)
    gx, gy = _edge_images(img[lo[1] : hi[1], lo[0] : hi[0]])
    lat = Lattice(lat.rows, lat.cols, shift @ lat.h_img_from_lat, lat.foreground, lat.score)
    step = np.where(fam[:, None] == 0, [[1.0, 0.0]], [[0.0, 1.0]])  # across the line

    def across(h: np.ndarray, pts: np.ndarray, dirs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Image points of lattice points ``pts`` (``(..., 2)``) through ``h``, and the edge
        strength there across the lattice direction ``dirs`` (the line's normal in the image)."""
        probe = Lattice(lat.rows, lat.cols, h, lat.foreground, lat.score)
        p = probe.to_image(pts.reshape(-1, 2)).reshape(pts.shape)
        q = probe.to_image((pts + 0.02 * dirs).reshape(-1, 2)).reshape(pts.shape)
        normal = (q - p) / (np.linalg.norm(q - p, axis=-1, keepdims=True) + 1e-9)
        return p, _normal_edge(gx, gy, p, normal)

    def support(h: np.ndarray) -> float:
        return float(across(h, base, step)[1].mean())

    first = (base, step)
    if outline_first:
        ou, gu = _line_samples(fg, 0, outline=True)
        ov, gv = _line_samples(fg, 1, outline=True)
        if len(ou) + len(ov) < 20 or not len(ou) or not len(ov):
            return given
        o_step = np.where(np.concatenate([gu, gv])[:, None] == 0, [[1.0, 0.0]], [[0.0, 1.0]])
        first = (np.concatenate([ou, ov]), o_step)
    h = lat.h_img_from_lat.copy()
    for i, window in enumerate(REFINE_WINDOWS):
        pts, dirs = first if i == 0 else (base, step)
        probe = Lattice(lat.rows, lat.cols, h, lat.foreground, lat.score)
        offs = np.linspace(-window, window, max(9, int(round(window * 60)) | 1))
        cand = pts[:, None, :] + offs[None, :, None] * dirs[:, None, :]  # (N, K, 2)
        p, strength = across(h, cand, dirs[:, None, :])  # (N, K, 2), (N, K)
        best = strength.argmax(1)
        peak = strength[np.arange(len(pts)), best]
        clear = peak > 1.5 * np.median(strength, 1) + 1e-6
        if clear.sum() < 12:
            break
        src = pts[clear].astype(np.float32)
        dst = p[np.arange(len(pts)), best][clear].astype(np.float32)
        side = probe.square_side()
        h_new, inl = cv2.findHomography(src, dst, cv2.RANSAC, max(1.0, REFINE_TOL * side))
        if h_new is None or inl is None or inl.sum() < max(12, REFINE_MIN_INLIERS * len(src)):
            break
        h = h_new / h_new[2, 2]
    if support(h) <= support(lat.h_img_from_lat):
        return Lattice(lat.rows, lat.cols, back @ lat.h_img_from_lat, lat.foreground, lat.score)
    h = back @ h
    h = h / h[2, 2]
    given = Lattice(lat.rows, lat.cols, back @ lat.h_img_from_lat, lat.foreground, lat.score)
    return Lattice(lat.rows, lat.cols, h, _carried_foreground(given, h), lat.score)


def _carried_foreground(given: Lattice, h_new: np.ndarray) -> np.ndarray:
    """The foreground shares of ``given`` carried to the lattice ``h_new`` of the same extent:
    each new cell takes the share of the given cell under its centre (0 outside). Refinement can
    move the lattice by up to half a square (a whole cell where its lines snapped to the next
    ones); the shares must stay with the squares, not with the cell indices."""
    rows, cols = given.rows, given.cols
    vv, uu = np.mgrid[0:rows, 0:cols]
    centres = np.column_stack([uu.ravel() + 0.5, vv.ravel() + 0.5])
    img = np.column_stack([centres, np.ones(len(centres))]) @ h_new.T
    img = img[:, :2] / img[:, 2:3]
    q = np.column_stack([img, np.ones(len(img))]) @ np.linalg.inv(given.h_img_from_lat).T
    uv = np.floor(q[:, :2] / q[:, 2:3]).astype(int)
    ok = (uv[:, 0] >= 0) & (uv[:, 0] < cols) & (uv[:, 1] >= 0) & (uv[:, 1] < rows)
    fg = np.zeros(rows * cols)
    fg[ok] = given.foreground[uv[ok, 1], uv[ok, 0]]
    return fg.reshape(rows, cols)


__all__ = [
    "Lattice",
    "LatticeNotFound",
    "find_lattice",
    "find_lattice_sets",
    "find_lattices",
    "foreground_mask",
    "foreground_masks",
    "refine_lattice",
]
