"""Synthetic phone photos of a terrarium on a table, with exact ground truth.

Geometry (see ``docs/decisions.md``, "Synthetic data"): everything lies on the table plane,
measured in millimetres in the *board frame*: x to the right along a row (col 0 -> col 4),
y downward along a column (row 0 -> row 3), origin at the outer top-left corner of the nominal
4 x 5 lattice. A card is 63 x 88 mm, portrait, upright (its top towards row 0); the cell pitch
is card size + gap. A pinhole camera (tilt, roll, focal length, distance) gives a homography
from the plane to the undistorted image, then a radial lens distortion moves image points.

Rendering composes two plane-aligned canvases (the table, and the cards with their shadows and
the distractors) at a resolution close to what the camera needs, and pulls them into the image
with one ``cv2.remap`` each (the map combines lens distortion, the homography and the canvas
scale). Photometric effects (light gradient, colour cast, cast shadows, glare, blur, noise) are
applied in image space with low-resolution fields. JPEG compression is applied when saving
(:func:`encode_jpeg`), with the quality recorded in the ground truth.

All images are ``(H, W, 3) uint8 RGB``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import cv2
import numpy as np

from scoring.reptile_tank.cards import CARD_IDS, CELL_LABELS, EMPTY, WATER
from scoring.reptile_tank.rules import default_layout
from vision.reptile_tank.synth import real_table as rt
from vision.reptile_tank.synth.deck import (
    CARD_H_MM,
    CARD_W_MM,
    CORNER_RADIUS_MM,
    default_copies,
    rounded_card_mask,
)

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
TABLE_KINDS = ("wood", "cloth", "patterned", "plain", "dark", "light")
#: Harder tables for the hard evaluation set and training: crisp checks and stripes at card
#: scale and below, and playmats printed with card-sized panels in the cards' own colours.
HARD_TABLE_KINDS = (*TABLE_KINDS, "checks", "stripes", "card_mat")

_MAX_CARD_CANVAS_PX = 6.0e6
_MAX_TABLE_CANVAS_PX = 1.5e6
_MAP_STEP = 4  # remap maps are computed every _MAP_STEP pixels and interpolated


# ---------------------------------------------------------------------------------------------
# Boards
# ---------------------------------------------------------------------------------------------


def sample_board(
    rng: np.random.Generator,
    copies: Mapping[str, int] | None = None,
    *,
    partial: float = 0.0,
    water: float | None = None,
) -> list[list[str]]:
    """Draw a 4 x 5 board from a deck's copy counts.

    Twenty cards are drawn without replacement from the deck (126 cards by default); each is
    flipped to its Water back with probability ``water`` (drawn from [0, 0.45] when ``None``),
    and each cell is left empty with probability ``partial`` (mid-game; at least one card stays).

    Returns
    -------
    list of 4 lists of 5 labels (card ids, ``"water"`` or ``"empty"``), row 0 first.
    """
    ROWS, COLS = default_layout().shape  # noqa: N806
    if not 0.0 <= partial < 1.0:
        raise ValueError(f"partial: must be in [0, 1), got {partial}")
    copies = dict(default_copies() if copies is None else copies)
    pool = [cid for cid in CARD_IDS for _ in range(int(copies.get(cid, 0)))]
    if len(pool) < ROWS * COLS:
        raise ValueError(f"copies: the deck has {len(pool)} cards, a board needs {ROWS * COLS}")
    p_water = float(rng.uniform(0.0, 0.45)) if water is None else float(water)
    picks = rng.choice(len(pool), ROWS * COLS, replace=False)
    flips = rng.random(ROWS * COLS) < p_water
    empties = rng.random(ROWS * COLS) < partial
    if empties.all():
        empties[int(rng.integers(ROWS * COLS))] = False
    labels = [
        EMPTY if empties[i] else (WATER if flips[i] else pool[picks[i]]) for i in range(ROWS * COLS)
    ]
    return [labels[r * COLS : (r + 1) * COLS] for r in range(ROWS)]


def _check_board(board: Any) -> list[list[str]]:
    ROWS, COLS = default_layout().shape  # noqa: N806
    rows = board.get("rows") if isinstance(board, Mapping) else board
    if (
        not isinstance(rows, Sequence)
        or len(rows) != ROWS
        or any(not isinstance(r, Sequence) or len(r) != COLS for r in rows)
    ):
        raise ValueError(f"board: expected {ROWS} rows of {COLS} labels")
    out = [[str(x) for x in r] for r in rows]
    bad = sorted({x for r in out for x in r if x not in CELL_LABELS})
    if bad:
        raise ValueError(f"board: unknown labels {bad}")
    return out


# ---------------------------------------------------------------------------------------------
# Camera
# ---------------------------------------------------------------------------------------------


def _camera_homography(
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


def _project(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a homography to ``(N, 2)`` points."""
    p = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    return p[:, :2] / p[:, 2:3]


def _undistort_points(pts: np.ndarray, size: tuple[int, int], k1: float, k2: float) -> np.ndarray:
    """Distorted image px -> undistorted image px (the closed-form direction)."""
    w, h = size
    c = np.array([(w - 1) / 2, (h - 1) / 2])
    norm = math.hypot(w, h) / 2
    d = (pts - c) / norm
    r2 = (d**2).sum(-1, keepdims=True)
    return c + d * (1 + k1 * r2 + k2 * r2 * r2) * norm


def _distort_points(pts: np.ndarray, size: tuple[int, int], k1: float, k2: float) -> np.ndarray:
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


def _local_scale(h: np.ndarray, pt: np.ndarray) -> float:
    """Image pixels per plane millimetre at plane point ``pt`` (largest singular value)."""
    eps = 1.0
    p = _project(h, np.array([pt, pt + [eps, 0], pt + [0, eps]]))
    jac = np.column_stack([p[1] - p[0], p[2] - p[0]]) / eps
    return float(np.linalg.svd(jac, compute_uv=False)[0])


# ---------------------------------------------------------------------------------------------
# Procedural textures
# ---------------------------------------------------------------------------------------------


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cell: float) -> np.ndarray:
    """``(H, W) float32`` value noise in [0, 1] with features about ``cell`` pixels wide."""
    h, w = shape
    gh, gw = max(2, int(h / max(cell, 1)) + 2), max(2, int(w / max(cell, 1)) + 2)
    g = rng.random((gh, gw), dtype=np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def _fractal_noise(rng: np.random.Generator, shape: tuple[int, int], cell: float) -> np.ndarray:
    out = np.zeros(shape, np.float32)
    amp, total = 1.0, 0.0
    for _ in range(4):
        out += amp * _smooth_noise(rng, shape, cell)
        total += amp
        amp *= 0.5
        cell /= 2.2
        if cell < 1.5:
            break
    return out / total


def _aniso_noise(
    rng: np.random.Generator, u: np.ndarray, v: np.ndarray, len_u: float, len_v: float
) -> np.ndarray:
    """Value noise in [0, 1] stretched along ``u``: features ``len_u`` x ``len_v`` mm."""
    g = rng.random((64, 64), dtype=np.float32)
    mx = np.mod(u / len_u, 64).astype(np.float32)
    my = np.mod(v / len_v, 64).astype(np.float32)
    return cv2.remap(g, mx, my, cv2.INTER_CUBIC, borderMode=cv2.BORDER_WRAP).clip(0, 1)


def _palette(rng: np.random.Generator, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Two RGB colours (float32) for a table kind."""

    def hsv(hh, ss, vv):
        c = np.array([[[hh, ss, vv]]], np.uint8)
        return cv2.cvtColor(c, cv2.COLOR_HSV2RGB)[0, 0].astype(np.float32)

    if kind == "wood":
        hue = rng.uniform(8, 22)
        v = rng.uniform(90, 210)
        return hsv(hue, rng.uniform(90, 190), v), hsv(hue, rng.uniform(110, 210), v * 0.7)
    if kind == "dark":
        hue = rng.uniform(0, 180)
        v = rng.uniform(25, 70)
        return hsv(hue, rng.uniform(0, 120), v), hsv(hue, rng.uniform(0, 120), v * 0.7)
    if kind == "light":
        hue = rng.uniform(0, 180)
        v = rng.uniform(200, 250)
        return hsv(hue, rng.uniform(0, 40), v), hsv(hue, rng.uniform(0, 60), v * 0.9)
    hue = rng.uniform(0, 180)
    return (
        hsv(hue, rng.uniform(30, 220), rng.uniform(60, 230)),
        hsv((hue + rng.uniform(0, 90)) % 180, rng.uniform(30, 220), rng.uniform(60, 230)),
    )


def _table_texture(
    rng: np.random.Generator, kind: str, shape: tuple[int, int], px_per_mm: float
) -> np.ndarray:
    """A table surface, ``(H, W, 3) uint8 RGB``, at ``px_per_mm``."""
    h, w = shape
    c1, c2 = _palette(rng, kind)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xx /= px_per_mm
    yy /= px_per_mm
    ang = rng.uniform(0, math.pi)
    u = xx * math.cos(ang) + yy * math.sin(ang)
    v = -xx * math.sin(ang) + yy * math.cos(ang)
    low = _fractal_noise(rng, shape, 120 * px_per_mm)
    style = kind
    if kind in ("dark", "light"):
        style = str(rng.choice(["wood", "plain", "cloth"]))
    if style == "wood":
        plank = rng.uniform(70, 220)
        idx = np.floor(v / plank)
        period = rng.uniform(2.5, 9.0)
        warp = _aniso_noise(rng, u, v, rng.uniform(150, 400), rng.uniform(20, 60))
        grain = 0.5 + 0.5 * np.sin(2 * math.pi * v / period + rng.uniform(3, 9) * warp + idx * 7.1)
        streak = _aniso_noise(rng, u, v, rng.uniform(40, 120), rng.uniform(0.4, 1.2))
        t = 0.45 * grain**2 + 0.35 * streak + 0.2 * low
        t = t + (np.sin(idx * 12.9898) * 0.5) * 0.2  # per-plank tint
        img = c1[None, None] * (1 - t[..., None]) + c2[None, None] * t[..., None]
        joint = rng.uniform(400, 1200)
        u_plank = u + (np.sin(idx * 78.233) * 0.5 + 0.5) * joint
        seam_w = max(0.6, 1.2 / px_per_mm)
        seam = (np.mod(v, plank) < seam_w) | (np.mod(u_plank, joint) < seam_w)
        img *= (1 - 0.45 * seam.astype(np.float32))[..., None]
    elif style == "cloth":
        period = max(rng.uniform(1.0, 3.0), 2.5 / px_per_mm)
        weave = np.sin(u * 2 * math.pi / period) * np.sin(v * 2 * math.pi / period)
        folds = _fractal_noise(rng, shape, rng.uniform(30, 90) * px_per_mm)
        t = 0.5 + 0.12 * weave
        img = (
            c1[None, None]
            * (0.92 + rng.uniform(0.05, 0.18) * folds[..., None])
            * (0.9 + 0.2 * t[..., None])
        )
    elif style == "patterned":
        sub = str(rng.choice(["gingham", "stripes", "dots", "flowers"]))
        period = rng.uniform(12, 60)
        if sub == "gingham":
            a = (np.mod(u, period) < period / 2).astype(np.float32)
            b = (np.mod(v, period) < period / 2).astype(np.float32)
            t = (a + b) / 2
        elif sub == "stripes":
            t = (np.mod(u, period) < period * rng.uniform(0.2, 0.6)).astype(np.float32)
        elif sub == "dots":
            du = np.mod(u, period) - period / 2
            dv = np.mod(v, period) - period / 2
            t = ((du**2 + dv**2) < (period * 0.22) ** 2).astype(np.float32)
        else:
            t = (_smooth_noise(rng, shape, period * px_per_mm * 0.5) > 0.62).astype(np.float32)
        t = cv2.GaussianBlur(t, (0, 0), max(0.5, 0.3 * px_per_mm))
        img = c1[None, None] * (1 - t[..., None]) + c2[None, None] * t[..., None]
        img *= (0.9 + 0.2 * low)[..., None]
    elif style in ("checks", "stripes"):
        period = rng.uniform(5, 45)
        a = (np.mod(u, period) < period / 2).astype(np.float32)
        if style == "checks":
            b = (np.mod(v, period) < period / 2).astype(np.float32)
            t = np.abs(a - b)
        else:
            t = (np.mod(u, period) < period * rng.uniform(0.25, 0.6)).astype(np.float32)
        t = cv2.GaussianBlur(t, (0, 0), max(0.4, 0.15 * px_per_mm))
        img = c1[None, None] * (1 - t[..., None]) + c2[None, None] * t[..., None]
        img *= (0.92 + 0.16 * low)[..., None]
    elif style == "card_mat":
        img = c1[None, None] * (0.9 + 0.2 * low[..., None])
        img = np.array(np.broadcast_to(img, (h, w, 3)), dtype=np.float32, copy=True)
        panels = int(min(300, h * w / (px_per_mm**2 * 18000) + 3))
        for _ in range(panels):
            centre = (rng.uniform(0, w), rng.uniform(0, h))
            size_mm = rng.uniform(35, 95, 2)
            box = cv2.boxPoints((centre, tuple(size_mm * px_per_mm), rng.uniform(0, 180)))
            colour = _palette(rng, "patterned")[int(rng.integers(2))]
            cv2.fillConvexPoly(img, np.round(box).astype(np.int32), tuple(float(x) for x in colour))
            inner = cv2.boxPoints((centre, tuple(0.75 * size_mm * px_per_mm), 0.0))
            if rng.random() < 0.6:
                shade = tuple(float(x) for x in _palette(rng, "light")[0])
                cv2.fillConvexPoly(img, np.round(inner).astype(np.int32), shade)
    else:  # plain
        fine = _smooth_noise(rng, shape, max(1.5, 2 * px_per_mm))
        img = c1[None, None] * (0.92 + 0.1 * low[..., None] + 0.04 * fine[..., None])
    return np.clip(img, 0, 255).astype(np.uint8)


def _backdrop(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """What lies beyond the table edge (floor, wall, furniture), ``(H, W, 3) uint8 RGB``."""
    w, h = size
    sw, sh = max(16, w // 16), max(12, h // 16)
    wall = rng.uniform(60, 200) * (1 + rng.uniform(-0.15, 0.15, 3))
    floor = rng.uniform(30, 120) * (1 + rng.uniform(-0.2, 0.2, 3))
    small = np.empty((sh, sw, 3), np.float32)
    small[:] = wall.astype(np.float32)
    line = int(rng.uniform(0.3, 0.9) * sh)
    small[line:] = floor.astype(np.float32)
    for _ in range(int(rng.integers(0, 5))):  # furniture, doors, shelves
        x0, y0 = int(rng.uniform(0, sw)), int(rng.uniform(0, sh))
        x1, y1 = x0 + int(rng.uniform(0.05, 0.4) * sw), y0 + int(rng.uniform(0.1, 0.6) * sh)
        colour = (rng.uniform(20, 200) * (1 + rng.uniform(-0.2, 0.2, 3))).tolist()
        cv2.rectangle(small, (x0, y0), (x1, y1), colour, -1)
    small *= (0.75 + 0.4 * _fractal_noise(rng, (sh, sw), sw / 4))[..., None]
    small *= np.linspace(1.1, 0.8, sh, dtype=np.float32)[:, None, None]
    small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.8, 2.5))
    return cv2.resize(np.clip(small, 0, 255).astype(np.uint8), (w, h))


# ---------------------------------------------------------------------------------------------
# Sprites on the plane canvas (premultiplied RGBA)
# ---------------------------------------------------------------------------------------------


class _Canvas:
    """A plane-aligned premultiplied RGBA canvas; plane mm ``(X, Y)`` -> px ``((X-x0)*s, ...)``."""

    def __init__(self, x0: float, y0: float, width: int, height: int, s: float) -> None:
        self.x0, self.y0, self.s = x0, y0, s
        self.rgb = np.zeros((height, width, 3), np.float32)
        self.alpha = np.zeros((height, width), np.float32)

    def to_px(self, pts: np.ndarray) -> np.ndarray:
        return (pts - [self.x0, self.y0]) * self.s - 0.5

    def drop_shadow(self, offset_px: np.ndarray, sigma_px: float, strength: float) -> None:
        """Darken the table under everything on the canvas: its alpha blurred by ``sigma_px``,
        moved by ``offset_px`` and scaled by ``strength``, added beneath what is there."""
        h, w = self.alpha.shape
        shadow = cv2.GaussianBlur(self.alpha, (0, 0), sigma_px)
        shadow = cv2.warpAffine(
            shadow, np.float32([[1, 0, offset_px[0]], [0, 1, offset_px[1]]]), (w, h), borderValue=0
        )
        shadow *= strength
        self.alpha += shadow * (1 - self.alpha)

    def rgba(self) -> np.ndarray:
        """The canvas as premultiplied ``(H, W, 4) uint8``."""
        return cv2.merge(
            [*cv2.split(cv2.convertScaleAbs(self.rgb)), cv2.convertScaleAbs(self.alpha, alpha=255)]
        )

    def paste(self, sprite_rgb: np.ndarray, sprite_a: np.ndarray, corners_mm: np.ndarray) -> None:
        """Composite a sprite (RGB 0..255 float/uint8, alpha 0..1) whose TL, TR, BL corners
        land on ``corners_mm[0], [1], [3]`` (plane mm), over what is there."""
        sh, sw = sprite_a.shape
        src = np.float32([[-0.5, -0.5], [sw - 0.5, -0.5], [-0.5, sh - 0.5]])
        dst_all = self.to_px(np.asarray(corners_mm, np.float64))
        dst = np.float32([dst_all[0], dst_all[1], dst_all[3]])
        x_lo = max(int(math.floor(dst_all[:, 0].min())) - 2, 0)
        y_lo = max(int(math.floor(dst_all[:, 1].min())) - 2, 0)
        x_hi = min(int(math.ceil(dst_all[:, 0].max())) + 3, self.alpha.shape[1])
        y_hi = min(int(math.ceil(dst_all[:, 1].max())) + 3, self.alpha.shape[0])
        if x_hi <= x_lo or y_hi <= y_lo:
            return
        m = cv2.getAffineTransform(src, dst - np.float32([x_lo, y_lo]))
        rgba = np.dstack([sprite_rgb.astype(np.float32) * sprite_a[..., None], sprite_a])
        out = cv2.warpAffine(
            rgba, m, (x_hi - x_lo, y_hi - y_lo), flags=cv2.INTER_LINEAR, borderValue=0
        )
        a = out[..., 3]
        roi_rgb = self.rgb[y_lo:y_hi, x_lo:x_hi]
        roi_a = self.alpha[y_lo:y_hi, x_lo:x_hi]
        roi_rgb *= (1 - a)[..., None]
        roi_rgb += out[..., :3]
        roi_a *= 1 - a
        roi_a += a


def _card_corners(centre: np.ndarray, angle_deg: float, w: float = CARD_W_MM, h: float = CARD_H_MM):
    """Corners TL, TR, BR, BL (plane mm) of a ``w x h`` rectangle rotated about its centre."""
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return centre + local @ rot.T


def _score_pad_sprite(
    rng: np.random.Generator, s: float
) -> tuple[np.ndarray, np.ndarray, float, float]:
    w_mm, h_mm = rng.uniform(90, 120), rng.uniform(130, 180)
    w, h = max(8, int(w_mm * s)), max(8, int(h_mm * s))
    paper = np.array(rng.uniform([235, 232, 215], [252, 250, 240]), np.float32)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = paper.astype(np.uint8)
    ink = tuple(int(v) for v in rng.uniform([10, 10, 40], [60, 60, 140]))
    line = (160, 180, 210)
    t = max(1, int(0.25 * s))
    for k in range(1, 14):
        y = int(k * h / 14)
        cv2.line(img, (0, y), (w, y), line, t)
    for k in range(1, 5):
        x = int(k * w / 5)
        cv2.line(img, (x, int(h / 14)), (x, h), line, t)
    heads = ["Liz", "Snk", "Tur", "Roa", "Wat"]
    fs = max(0.2, 0.11 * s)
    for k, text in enumerate(heads):
        cv2.putText(
            img,
            text,
            (int(k * w / 5 + 0.8 * s), int(h / 14 - 1.5 * s)),
            cv2.FONT_HERSHEY_SIMPLEX,
            fs,
            (40, 40, 40),
            t,
            cv2.LINE_AA,
        )
    for row in range(1, int(rng.integers(2, 12))):
        for col in range(5):
            if rng.random() < 0.7:
                cv2.putText(
                    img,
                    str(int(rng.integers(0, 20))),
                    (int(col * w / 5 + 2 * s), int((row + 1) * h / 14 - 2 * s)),
                    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
                    fs * 1.6,
                    ink,
                    t,
                    cv2.LINE_AA,
                )
    return img, np.ones((h, w), np.float32), w_mm, h_mm


def _die_sprite(rng: np.random.Generator, s: float) -> tuple[np.ndarray, np.ndarray, float]:
    size_mm = rng.uniform(12, 18)
    n = max(6, int(size_mm * s))
    body = tuple(
        int(v)
        for v in rng.choice(
            [[240, 240, 235], [200, 30, 30], [30, 60, 160], [20, 20, 20], [40, 140, 60]]
        )
    )
    pip = (20, 20, 20) if sum(body) > 300 else (245, 245, 245)
    img = np.empty((n, n, 3), np.uint8)
    img[:] = body
    # a little shading so it reads as a cube seen from above
    ramp = np.linspace(1.08, 0.85, n, dtype=np.float32)
    img = np.clip(img * ramp[:, None, None], 0, 255).astype(np.uint8)
    face = int(rng.integers(1, 7))
    spots = {
        1: [(0.5, 0.5)],
        2: [(0.25, 0.25), (0.75, 0.75)],
        3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
        4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
        5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
        6: [(0.25, 0.22), (0.75, 0.22), (0.25, 0.5), (0.75, 0.5), (0.25, 0.78), (0.75, 0.78)],
    }[face]
    for fx, fy in spots:
        cv2.circle(img, (int(fx * n), int(fy * n)), max(1, int(n * 0.09)), pip, -1, cv2.LINE_AA)
    mask = rounded_card_mask(n, n, n * 0.18).astype(np.float32) / 255
    return img, mask, size_mm


# ---------------------------------------------------------------------------------------------
# The scene
# ---------------------------------------------------------------------------------------------


def _pick_size(
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


def _cell_layout(rng: np.random.Generator) -> dict[str, Any]:
    gap_x = 0.0 if rng.random() < 0.2 else float(rng.uniform(0.5, 6.0))
    gap_y = 0.0 if rng.random() < 0.2 else float(rng.uniform(0.5, 6.0))
    jitter = float(rng.uniform(0.0, 1.5))
    rot_sd = float(rng.uniform(0.0, 2.5))
    return {"gap_x": gap_x, "gap_y": gap_y, "jitter_mm": jitter, "rot_sd_deg": rot_sd}


def render_scene(
    rng: np.random.Generator | int,
    deck: Mapping[str, np.ndarray],
    *,
    board: Any = None,
    partial: float = 0.0,
    max_size: tuple[int, int] = (4032, 3024),
    size: tuple[int, int] | None = None,
    tilt_deg: tuple[float, float] = (0.0, 60.0),
    fill: tuple[float, float] = (0.30, 0.95),
    distractors: bool = True,
    degrade: bool = True,
    copies: Mapping[str, int] | None = None,
    deck_name: str | None = None,
    tables: tuple[str, ...] = TABLE_KINDS,
    hard_light: bool = False,
    real_table: bool = False,
) -> tuple[np.ndarray, dict[str, Any]]:
    """Render one phone photo of a terrarium and its ground truth.

    Parameters
    ----------
    rng : numpy Generator or int
        Source of every random choice (an int is used as a seed and recorded).
    deck : mapping label -> (h, w, 3) uint8 RGB face
        The 16 faces (:class:`vision.reptile_tank.synth.deck.DeckFaces` or any mapping).
    board : {"rows": 4 x 5 labels} or 4 x 5 list, optional
        The upright board to lay out; drawn from the deck's copy counts when ``None``.
    partial : float
        Probability that a cell is empty (mid-game scenes); used only when ``board`` is None.
    max_size : (int, int)
        Bound on the phone size drawn (long side, short side in either order).
    size : (int, int), optional
        Exact output ``(W, H)``; overrides ``max_size``.
    tilt_deg, fill : (float, float)
        Ranges of the camera tilt from overhead and of the grid's share of the frame
        (largest of its bounding box's width/W and height/H).
    distractors, degrade : bool
        Draw objects beside the grid; apply light and sensor effects.
    copies : mapping, optional
        Copies per front id (defaults to ``deck.copies`` or the 126-card deck).
    tables : tuple of str
        The table kinds drawn from (:data:`TABLE_KINDS`; :data:`HARD_TABLE_KINDS` adds crisp
        checks, stripes and card-coloured playmats). A board of only ``empty`` cells with
        ``distractors=False`` is a bare table: a photo with no terrarium.
    hard_light : bool
        Also a sharp-edged shadow across the frame and a strong glare spot over the grid.
    real_table : bool
        A game night (:mod:`vision.reptile_tank.synth.real_table`): a wide lens, cards laid by
        hand (rotated, off the lattice, overlapping), curled corners, sleeves and their glare,
        an arm shadow, a thumb over an edge card, a neighbour's cards, phone sharpening. The
        truth gains ``covered_cells`` and ``glared_cells``.

    Returns
    -------
    image : (H, W, 3) uint8 RGB
    truth : dict
        JSON-serialisable ground truth (schema in ``datasets/README.md``); ``truth["image"]``
        is ``None`` until a writer names the file.
    """
    ROWS, COLS = default_layout().shape  # noqa: N806
    seed = None
    if not isinstance(rng, np.random.Generator):
        seed = int(rng)
        rng = np.random.default_rng(seed)
    missing = [lab for lab in (*CARD_IDS, WATER) if lab not in deck]
    if missing:
        raise ValueError(f"deck: missing faces {missing}")
    if not (0 <= tilt_deg[0] <= tilt_deg[1] <= 75):
        raise ValueError(f"tilt_deg: expected 0 <= lo <= hi <= 75, got {tilt_deg}")
    if not (0.05 <= fill[0] <= fill[1] <= 0.98):
        raise ValueError(f"fill: expected 0.05 <= lo <= hi <= 0.98, got {fill}")
    if copies is None:
        copies = getattr(deck, "copies", None) or default_copies()
    rows = sample_board(rng, copies, partial=partial) if board is None else _check_board(board)

    w_img, h_img = _pick_size(rng, max_size, size)
    layout = _cell_layout(rng)
    if real_table:
        layout = rt.hand_layout(rng, layout)
    pitch = np.array([CARD_W_MM + layout["gap_x"], CARD_H_MM + layout["gap_y"]])
    grid_w = COLS * CARD_W_MM + (COLS - 1) * layout["gap_x"]
    grid_h = ROWS * CARD_H_MM + (ROWS - 1) * layout["gap_y"]
    grid_centre = np.array([grid_w / 2, grid_h / 2])
    grid_outer = np.array([[0, 0], [grid_w, 0], [grid_w, grid_h], [0, grid_h]], np.float64)

    # --- camera: orientation, zoom, then distance for the wanted fill, then placement --------
    tilt = float(rng.uniform(*tilt_deg))
    roll = float(rng.uniform(0, 360))
    f_px = float(rng.uniform(0.72, 1.15)) * max(w_img, h_img)
    fill_target = float(rng.uniform(*fill))
    k1 = float(rng.uniform(-0.03, 0.06)) if degrade else 0.0
    k2 = float(rng.uniform(-0.01, 0.02)) if degrade else 0.0
    if real_table and degrade:
        k1, k2 = rt.lens(rng)
    target = grid_centre + rng.normal(0, 15, 2)
    h_plane, h_inv, distance = aim_camera(
        rng, grid_outer, target, (w_img, h_img), tilt, roll, f_px, fill_target, margin=0.02
    )

    # --- where the table lies and what part of the plane the camera sees ---------------------
    table_lo = -rng.uniform(400, 1500, 2)
    table_hi = np.array([grid_w, grid_h]) + rng.uniform(400, 1500, 2)
    vis_lo, vis_hi = visible_plane((w_img, h_img), h_inv, (k1, k2), table_lo, table_hi)

    # --- the table canvas ---------------------------------------------------------------------
    need = max(_local_scale(h_plane, p) for p in grid_outer)
    unknown = set(tables) - set(HARD_TABLE_KINDS)
    if not tables or unknown:
        raise ValueError(f"tables: expected kinds from {HARD_TABLE_KINDS}, got {tables}")
    table_kind, table = table_layer(rng, tables, vis_lo, vis_hi, need, (w_img, h_img))
    play_mat = real_table and rng.random() < 0.5
    if play_mat:
        table = rt.play_mat(rng, table, grid_w, grid_h)

    # --- the card canvas: grid, shadows and distractors ---------------------------------------
    zone_lo = np.maximum(vis_lo, -260.0)
    zone_hi = np.minimum(vis_hi, np.array([grid_w, grid_h]) + 260.0)
    canvas = card_canvas(zone_lo, zone_hi, need, 9.0)
    s_cards = canvas.s

    face_w = max(4, int(round(CARD_W_MM * s_cards)))
    face_h = max(4, int(round(CARD_H_MM * s_cards)))
    card_mask = rounded_card_mask(face_w, face_h, CORNER_RADIUS_MM * s_cards).astype(np.float32)
    card_mask /= 255.0
    faces = {
        lab: cv2.resize(np.ascontiguousarray(img), (face_w, face_h), interpolation=cv2.INTER_AREA)
        for lab, img in deck.items()
        if lab in (*CARD_IDS, WATER)
    }

    sleeved = real_table and rng.random() < 0.7
    haze = float(rng.uniform(0.03, 0.1)) if sleeved else 0.0

    def card_sprite(label: str) -> np.ndarray:
        tint = rng.uniform(0.9, 1.06) * rng.uniform(0.97, 1.03, 3)
        sprite = np.clip(faces[label].astype(np.float32) * tint, 0, 255)
        return rt.sleeve(sprite, haze) if sleeved else sprite

    # distractors first (they lie beside the grid, under nothing)
    placed: list[dict[str, Any]] = []
    if distractors:
        placed = _place_distractors(rng, canvas, grid_w, grid_h, card_sprite, card_mask)

    neighbours: list = []
    if real_table and rng.random() < 0.6:  # a neighbour's terrarium beside this one
        for centre, angle in rt.neighbour_cards(rng, grid_w, grid_h, pitch):
            label = str(rng.choice([*CARD_IDS, WATER]))
            canvas.paste(card_sprite(label), card_mask, _card_corners(centre, angle))
            neighbours.append(label)

    cells: list[list[list[list[float]]]] = []
    occupied: list[list[bool]] = []
    order = rng.permutation(ROWS * COLS)
    card_quads: dict[int, np.ndarray] = {}
    jitter_clip = layout.get("jitter_clip_mm", 3.0)
    rot_clip = layout.get("rot_clip_deg", 6.0)
    pushes = rt.overlap_pushes(rng, rows, EMPTY) if real_table else {}
    for idx in range(ROWS * COLS):
        r, c = divmod(idx, COLS)
        nominal = np.array([c * pitch[0] + CARD_W_MM / 2, r * pitch[1] + CARD_H_MM / 2])
        jit = np.clip(rng.normal(0, layout["jitter_mm"], 2), -jitter_clip, jitter_clip)
        ang = float(np.clip(rng.normal(0, layout["rot_sd_deg"]), -rot_clip, rot_clip))
        jit = jit + pushes.get((r, c), 0.0)
        card_quads[idx] = _card_corners(nominal + jit, ang)
        if rows[r][c] == EMPTY:
            card_quads[idx] = _card_corners(nominal, 0.0)
    curled: set[int] = set()
    if real_table:
        occupied_idx = [i for i in range(ROWS * COLS) if rows[i // COLS][i % COLS] != EMPTY]
        for _ in range(int(rng.integers(0, 3))):
            curled.add(int(occupied_idx[int(rng.integers(len(occupied_idx)))]))
    for idx in order:
        r, c = divmod(int(idx), COLS)
        if rows[r][c] != EMPTY:
            sprite, mask = card_sprite(rows[r][c]), card_mask
            if int(idx) in curled:
                sprite, mask = rt.curl_corner(rng, sprite, mask, s_cards)
            canvas.paste(sprite, mask, card_quads[int(idx)])

    # drop shadows under everything on the card canvas
    light_dir = rng.normal(0, 1, 2)
    light_dir /= np.linalg.norm(light_dir) + 1e-9
    offset = light_dir * rng.uniform(0.5, 3.0) * s_cards
    sigma = max(0.6, rng.uniform(0.8, 3.0) * s_cards)
    canvas.drop_shadow(offset, sigma, float(rng.uniform(0.25, 0.6)))
    cards_rgba = canvas.rgba()
    del canvas

    # --- project both canvases through the lens --------------------------------------------
    image = _warp_layers(
        rng, (w_img, h_img), h_inv, (k1, k2), table=table, cards=(cards_rgba, zone_lo, s_cards)
    )

    # --- ground truth -------------------------------------------------------------------------
    def to_image(pts_mm: np.ndarray) -> np.ndarray:
        return _distort_points(_project(h_plane, pts_mm), (w_img, h_img), k1, k2)

    for r in range(ROWS):
        row_quads, row_occ = [], []
        for c in range(COLS):
            q = to_image(card_quads[r * COLS + c])
            row_quads.append([[round(float(x), 2), round(float(y), 2)] for x, y in q])
            row_occ.append(rows[r][c] != EMPTY)
        cells.append(row_quads)
        occupied.append(row_occ)
    corners = to_image(grid_outer)
    centre_img = to_image(grid_centre[None])[0]
    top_mid = to_image(np.array([[grid_w / 2, 0.0]]))[0]
    v = top_mid - centre_img
    rotation = math.degrees(math.atan2(-v[0], -v[1])) % 360.0

    jpeg_quality = int(rng.integers(55, 96))
    covered: list[list[float]] = []
    glared: list[list[float]] = []
    if real_table:
        if rng.random() < 0.6:
            image = rt.arm_shadow(rng, image, cells)
        if sleeved and rng.random() < 0.85:
            image, glared = rt.sleeve_glare(rng, image, cells, occupied)
        if rng.random() < 0.5:
            image, covered = rt.thumb(rng, image, cells, occupied)
    if degrade:
        image = _degrade(rng, image, cells, occupied, hard_light)
    if real_table and degrade and rng.random() < 0.85:
        image = rt.phone_processing(rng, image)
    params = {
        "seed": seed,
        "deck": deck_name or getattr(deck, "name", "custom"),
        "tilt_deg": round(tilt, 3),
        "roll_deg": round(roll, 3),
        "focal_px": round(f_px, 2),
        "camera_distance_mm": round(float(distance), 1),
        "fill": round(fill_target, 4),
        "lens_k1": round(k1, 5),
        "lens_k2": round(k2, 5),
        "table": table_kind,
        "gap_mm": [round(layout["gap_x"], 3), round(layout["gap_y"], 3)],
        "jitter_mm": round(layout["jitter_mm"], 3),
        "card_rotation_sd_deg": round(layout["rot_sd_deg"], 3),
        "card_size_mm": [CARD_W_MM, CARD_H_MM],
        "distractors": [d["kind"] for d in placed],
        "partial": partial,
        "jpeg_quality": jpeg_quality,
        "degrade": degrade,
        "hard_light": hard_light,
        "canvas_px_per_mm": round(s_cards, 3),
    }
    if real_table:
        params.update(
            real_table=True,
            sleeved=bool(sleeved),
            curled_cells=sorted([int(i) // COLS, int(i) % COLS] for i in curled),
            pushed_cells=sorted([r, c] for r, c in pushes),
            neighbour_cards=len(neighbours),
            play_mat=bool(play_mat),
        )
    truth = {
        "image": None,
        "size": [w_img, h_img],
        "board": {"rows": rows},
        "grid_corners": [[round(float(x), 2), round(float(y), 2)] for x, y in corners],
        "cells": cells,
        "occupied": occupied,
        "rotation_deg": round(rotation, 3),
        "params": params,
    }
    if real_table:
        truth["covered_cells"] = covered
        truth["glared_cells"] = glared
    return image, truth


def _place_distractors(
    rng: np.random.Generator,
    canvas: _Canvas,
    grid_w: float,
    grid_h: float,
    card_sprite,
    card_mask: np.ndarray,
) -> list[dict[str, Any]]:
    """Draw pile, score pad, stray cards and dice beside the grid (never over it)."""
    kinds = ["draw_pile", "score_pad", "stray_card", "stray_card", "die", "die", "die"]
    chosen = [k for k in kinds if rng.random() < 0.45]
    placed: list[dict[str, Any]] = []
    keep_out_lo = np.array([-12.0, -12.0])
    keep_out_hi = np.array([grid_w + 12.0, grid_h + 12.0])
    for kind in chosen:
        if kind in ("draw_pile", "stray_card"):
            w_mm, h_mm = CARD_W_MM, CARD_H_MM
        elif kind == "score_pad":
            sprite, alpha, w_mm, h_mm = _score_pad_sprite(rng, canvas.s)
        else:
            sprite, alpha, w_mm = _die_sprite(rng, canvas.s)
            h_mm = w_mm
        radius = math.hypot(w_mm, h_mm) / 2
        for _attempt in range(10):
            side = int(rng.integers(4))
            dist = radius + rng.uniform(5, 160)
            if side == 0:
                centre = [rng.uniform(-100, grid_w + 100), -12 - dist]
            elif side == 1:
                centre = [rng.uniform(-100, grid_w + 100), grid_h + 12 + dist]
            elif side == 2:
                centre = [-12 - dist, rng.uniform(-100, grid_h + 100)]
            else:
                centre = [grid_w + 12 + dist, rng.uniform(-100, grid_h + 100)]
            centre = np.array(centre)
            if np.all(centre + radius > keep_out_lo) and np.all(centre - radius < keep_out_hi):
                continue
            if any(np.linalg.norm(centre - p["centre"]) < radius + p["radius"] for p in placed):
                continue
            break
        else:
            continue
        ang = float(rng.uniform(0, 360))
        if kind == "draw_pile":
            n = int(rng.integers(4, 14))
            for k in range(n):
                q = _card_corners(centre + [k * 0.12, -k * 0.28], ang + rng.normal(0, 1.5))
                shade = 0.75 + 0.25 * (k + 1) / n
                canvas.paste(card_sprite(WATER) * shade, card_mask, q)
        elif kind == "stray_card":
            label = str(rng.choice([*CARD_IDS, WATER]))
            canvas.paste(card_sprite(label), card_mask, _card_corners(centre, ang))
        else:
            canvas.paste(sprite, alpha, _card_corners(centre, ang, w_mm, h_mm))
        placed.append({"kind": kind, "centre": centre, "radius": radius})
    return placed


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
        h_cam = _camera_homography(tilt, roll, f_px, distance, (w_img, h_img))
        h_plane = h_cam @ np.array([[1, 0, -target[0]], [0, 1, -target[1]], [0, 0, 1.0]])
        pts = _project(h_plane, outline_mm)
        ext = pts.max(0) - pts.min(0)
        distance *= max(ext[0] / w_img, ext[1] / h_img) / fill
    pts = _project(h_plane, outline_mm)
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
    und = _undistort_points(border, (w_img, h_img), *lens)
    hom = np.column_stack([und, np.ones(len(und))]) @ h_inv.T
    ok = hom[:, 2] > 1e-9
    vis = hom[ok, :2] / hom[ok, 2:3]
    if len(vis) and ok.all():
        vis_lo, vis_hi = vis.min(0), vis.max(0)
    else:  # the horizon is in view: the far side is cut by the table edge
        vis_lo = np.minimum(vis.min(0), table_lo) if len(vis) else table_lo
        vis_hi = np.maximum(vis.max(0), table_hi) if len(vis) else table_hi
    return np.maximum(vis_lo - 10, table_lo), np.minimum(vis_hi + 10, table_hi)


def table_layer(
    rng: np.random.Generator,
    kinds: Sequence[str],
    vis_lo: np.ndarray,
    vis_hi: np.ndarray,
    need: float,
    size: tuple[int, int],
) -> tuple[str, tuple[np.ndarray, np.ndarray, np.ndarray, float]]:
    """A table texture drawn from ``kinds`` over the visible plane box, at most ``need`` px/mm.

    Returns the kind and the ``table`` layer of :func:`_warp_layers` ``(rgb, alpha, origin, s)``.
    """
    w_img, h_img = size
    area = float(np.prod(np.maximum(vis_hi - vis_lo, 1)))
    s_table = min(need, 4.0, math.sqrt(min(_MAX_TABLE_CANVAS_PX, 1.5 * w_img * h_img) / area))
    t_w = max(2, int(math.ceil((vis_hi[0] - vis_lo[0]) * s_table)))
    t_h = max(2, int(math.ceil((vis_hi[1] - vis_lo[1]) * s_table)))
    kind = str(rng.choice(kinds))
    table_rgb = _table_texture(rng, kind, (t_h, t_w), s_table)
    return kind, (table_rgb, np.full((t_h, t_w), 255, np.uint8), vis_lo, s_table)


def card_canvas(
    zone_lo: np.ndarray, zone_hi: np.ndarray, need: float, max_px_per_mm: float
) -> _Canvas:
    """An empty canvas over the plane box ``zone_lo``-``zone_hi`` (mm) at 1.1 x ``need`` px/mm,
    at most ``max_px_per_mm`` and :data:`_MAX_CARD_CANVAS_PX` pixels."""
    area = float(np.prod(np.maximum(zone_hi - zone_lo, 1)))
    s_cards = min(need * 1.1, max_px_per_mm, math.sqrt(_MAX_CARD_CANVAS_PX / area))
    c_w = max(2, int(math.ceil((zone_hi[0] - zone_lo[0]) * s_cards)))
    c_h = max(2, int(math.ceil((zone_hi[1] - zone_lo[1]) * s_cards)))
    return _Canvas(float(zone_lo[0]), float(zone_lo[1]), c_w, c_h, s_cards)


def _warp_layers(
    rng: np.random.Generator,
    size: tuple[int, int],
    h_inv: np.ndarray,
    lens: tuple[float, float],
    *,
    table: tuple[np.ndarray, np.ndarray, np.ndarray, float],
    cards: tuple[np.ndarray, np.ndarray, float],
) -> np.ndarray:
    """Pull the plane canvases into the distorted image; returns ``(H, W, 3) uint8 RGB``."""
    w, h = size
    step = _MAP_STEP
    # n samples placed where cv2.resize(INTER_LINEAR, n -> w) puts them (it aligns pixel
    # centres: output x reads source (x + 0.5) * n / w - 0.5), so the resized map is exact there
    nx, ny = math.ceil(w / step), math.ceil(h / step)
    gx = (np.arange(nx) + 0.5) * (w / nx) - 0.5
    gy = (np.arange(ny) + 0.5) * (h / ny) - 0.5
    xx, yy = np.meshgrid(gx, gy)
    pts = np.column_stack([xx.ravel(), yy.ravel()])
    und = _undistort_points(pts, size, *lens)
    hom = np.column_stack([und, np.ones(len(und))]) @ h_inv.T
    bad = hom[:, 2] <= 1e-9
    hom[bad, 2] = 1.0
    plane = hom[:, :2] / hom[:, 2:3]
    plane[bad] = -1e6
    plane = np.clip(plane, -1e6, 1e6)

    def full_map(origin: np.ndarray, s: float) -> np.ndarray:
        px = ((plane - origin) * s - 0.5).astype(np.float32).reshape(ny, nx, 2)
        return cv2.resize(px, (w, h), interpolation=cv2.INTER_LINEAR)  # (h, w, 2) CV_32FC2

    t_rgb, t_alpha, t_origin, t_s = table
    # the table canvas is opaque inside, so its RGB is already premultiplied
    table_img = cv2.remap(
        cv2.merge([*cv2.split(t_rgb), t_alpha]),
        full_map(t_origin, t_s),
        None,
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
    )
    base = _over(table_img, _backdrop(rng, size))
    c_rgba, c_origin, c_s = cards
    card_img = cv2.remap(
        c_rgba, full_map(c_origin, c_s), None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )
    return _over(card_img, base)


def _over(top_pm: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """Premultiplied ``(H, W, 4) uint8`` over opaque ``(H, W, 3) uint8``."""
    inv = cv2.cvtColor(cv2.bitwise_not(top_pm[..., 3]), cv2.COLOR_GRAY2RGB)
    return cv2.add(
        cv2.cvtColor(top_pm, cv2.COLOR_RGBA2RGB), cv2.multiply(bottom, inv, scale=1 / 255)
    )


def _degrade(
    rng: np.random.Generator,
    image: np.ndarray,
    cells: list,
    occupied: list,
    hard_light: bool = False,
) -> np.ndarray:
    """Light and sensor: gradient, colour cast, cast shadow, glare, blur, noise.

    ``hard_light`` adds a sharp-edged shadow of a large object across the frame and a strong
    glare spot over the grid (the draws come after the others', so scenes without it are
    unchanged).
    """
    h, w = image.shape[:2]
    sw, sh = max(8, w // 8), max(8, h // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xx /= sw
    yy /= sh
    # light gradient + vignette
    ang = rng.uniform(0, 2 * math.pi)
    grad = 1 + rng.uniform(0, 0.35) * ((xx - 0.5) * math.cos(ang) + (yy - 0.5) * math.sin(ang))
    vig = 1 - rng.uniform(0, 0.35) * ((xx - 0.5) ** 2 + (yy - 0.5) ** 2) * 2
    exposure = rng.uniform(0.75, 1.2)
    mult = (grad * vig * exposure)[..., None] * rng.uniform(0.85, 1.12, 3).astype(np.float32)
    # cast shadow: a hand (palm + fingers) or a phone, soft-edged
    if rng.random() < 0.45:
        mask = np.zeros((sh, sw), np.float32)
        cx, cy = rng.uniform(0, sw), rng.uniform(0, sh)
        scale = rng.uniform(0.15, 0.45) * max(sw, sh)
        a0 = rng.uniform(0, 360)
        if rng.random() < 0.5:  # phone
            box = ((cx, cy), (scale * 0.5, scale), a0)
            cv2.fillPoly(mask, [cv2.boxPoints(box).astype(np.int32)], 1.0)
        else:  # hand
            cv2.ellipse(
                mask, (int(cx), int(cy)), (int(scale * 0.35), int(scale * 0.3)), a0, 0, 360, 1.0, -1
            )
            for k in range(4):
                fa = math.radians(a0 - 30 + k * 20)
                p = (cx + math.cos(fa) * scale * 0.6, cy + math.sin(fa) * scale * 0.6)
                cv2.ellipse(
                    mask,
                    (int(p[0]), int(p[1])),
                    (int(scale * 0.28), int(scale * 0.06)),
                    math.degrees(fa),
                    0,
                    360,
                    1.0,
                    -1,
                )
            # the arm, leaving the frame
            fa = math.radians(a0 + 180)
            far = (cx + math.cos(fa) * scale * 3, cy + math.sin(fa) * scale * 3)
            cv2.line(
                mask, (int(cx), int(cy)), (int(far[0]), int(far[1])), 1.0, max(1, int(scale * 0.4))
            )
        mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(1.0, 5.0))
        mult *= (1 - rng.uniform(0.2, 0.55) * mask)[..., None]
    add = np.zeros((sh, sw), np.float32)
    # glare on the glossy cards: a bright soft streak somewhere over the grid
    if rng.random() < 0.4:
        occ = [
            np.array(cells[r][c])
            for r in range(len(cells))
            for c in range(len(cells[0]))
            if occupied[r][c]
        ]
        if occ:
            q = occ[int(rng.integers(len(occ)))].mean(0) / 8
            axes = (int(rng.uniform(0.03, 0.15) * sw), int(rng.uniform(0.01, 0.05) * sw))
            cv2.ellipse(
                add,
                (int(q[0]), int(q[1])),
                axes,
                rng.uniform(0, 180),
                0,
                360,
                float(rng.uniform(0.2, 0.55)),
                -1,
            )
            add = cv2.GaussianBlur(add, (0, 0), max(1.0, axes[1] * 0.8))
    if hard_light:
        if rng.random() < 0.7:  # a lamp or a box: a big, sharp-edged polygon of shadow
            corners = rng.uniform(-0.2, 1.2, (int(rng.integers(3, 5)), 2)) * (sw, sh)
            hull = cv2.convexHull(corners.astype(np.float32)).astype(np.int32)
            shadow = np.zeros((sh, sw), np.float32)
            cv2.fillPoly(shadow, [hull], 1.0)
            shadow = cv2.GaussianBlur(shadow, (0, 0), rng.uniform(0.3, 1.0))
            mult *= (1 - rng.uniform(0.35, 0.6) * shadow)[..., None]
        occ = [
            np.array(c)
            for row, flags in zip(cells, occupied, strict=True)
            for c, f in zip(row, flags, strict=True)
            if f
        ]
        if occ and rng.random() < 0.6:  # a strong glare spot over the grid
            q = occ[int(rng.integers(len(occ)))].mean(0) / 8
            radius = rng.uniform(0.04, 0.12) * sw
            spot = np.zeros((sh, sw), np.float32)
            cv2.circle(spot, (int(q[0]), int(q[1])), max(1, int(radius)), 1.0, -1)
            add += cv2.GaussianBlur(spot, (0, 0), max(1.0, radius * 0.5)) * rng.uniform(0.4, 0.8)
    mult8 = np.clip(mult * 128, 0, 255).astype(np.uint8)
    mult_full = cv2.resize(mult8, (w, h), interpolation=cv2.INTER_LINEAR)
    out = cv2.multiply(image, mult_full, scale=1 / 128)
    if add.max() > 0:
        add8 = np.clip(add * 255, 0, 255).astype(np.uint8)
        add_full = cv2.resize(add8, (w, h), interpolation=cv2.INTER_LINEAR)
        out = cv2.add(out, cv2.cvtColor(add_full, cv2.COLOR_GRAY2RGB))
    # blur: defocus or motion
    px = max(w, h) / 2000
    roll = rng.random()
    if roll < 0.45:
        sigma = rng.uniform(0.3, 1.8) * px
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    elif roll < 0.65:
        length = max(3, int(rng.uniform(2, 7) * px) | 1)
        k = np.zeros((length, length), np.float32)
        k[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), rng.uniform(0, 180), 1)
        k = cv2.warpAffine(k, rot, (length, length))
        k /= max(k.sum(), 1e-6)
        out = cv2.filter2D(out, -1, k)
    # sensor noise (luma + chroma), at half resolution for big frames; stored as uint8 around
    # 128 so that adding it is one saturating uint8 operation
    sigma = float(rng.uniform(1.0, 7.0))
    big = w * h > 3_000_000
    nh, nw = (h // 2 + 1, w // 2 + 1) if big else (h, w)
    noise = rng.standard_normal((nh, nw, 3), dtype=np.float32) * sigma + 128.0
    noise8 = np.clip(noise, 0, 255).astype(np.uint8)
    if big:
        noise8 = cv2.resize(noise8, (w, h), interpolation=cv2.INTER_NEAREST)
    return cv2.addWeighted(out, 1.0, noise8, 1.0, -128.0)


def encode_jpeg(image: np.ndarray, quality: int) -> bytes:
    """Encode a ``(H, W, 3) uint8 RGB`` image as JPEG bytes (deterministic)."""
    if not 1 <= int(quality) <= 100:
        raise ValueError(f"quality: must be in [1, 100], got {quality}")
    ok, buf = cv2.imencode(
        ".jpg", cv2.cvtColor(image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(quality)]
    )
    if not ok:  # pragma: no cover - OpenCV always encodes a valid uint8 array
        raise ValueError("could not encode JPEG")
    return buf.tobytes()


__all__ = [
    "HARD_TABLE_KINDS",
    "PHONE_SIZES",
    "TABLE_KINDS",
    "aim_camera",
    "card_canvas",
    "encode_jpeg",
    "render_scene",
    "sample_board",
    "table_layer",
    "visible_plane",
]
