"""Table surfaces of a synthetic photo: procedural wood, cloth, patterned and plain tables, hard
mats, the backdrop beyond the table's edge, and the table layer over the plane the photo sees.

Game-blind: used by both games' scene renderers and training recipes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

TABLE_KINDS = ("wood", "cloth", "patterned", "plain", "dark", "light")


#: Harder tables for the hard evaluation set and training: crisp checks and stripes at card
#: scale and below, and playmats printed with card-sized panels in the cards' own colours.
HARD_TABLE_KINDS = (*TABLE_KINDS, "checks", "stripes", "card_mat")


MAX_TABLE_CANVAS_PX = 1.5e6


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cell: float) -> np.ndarray:
    """``(H, W) float32`` value noise in [0, 1] with features about ``cell`` pixels wide."""
    h, w = shape
    gh, gw = max(2, int(h / max(cell, 1)) + 2), max(2, int(w / max(cell, 1)) + 2)
    g = rng.random((gh, gw), dtype=np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def fractal_noise(rng: np.random.Generator, shape: tuple[int, int], cell: float) -> np.ndarray:
    out = np.zeros(shape, np.float32)
    amp, total = 1.0, 0.0
    for _ in range(4):
        out += amp * smooth_noise(rng, shape, cell)
        total += amp
        amp *= 0.5
        cell /= 2.2
        if cell < 1.5:
            break
    return out / total


def aniso_noise(
    rng: np.random.Generator, u: np.ndarray, v: np.ndarray, len_u: float, len_v: float
) -> np.ndarray:
    """Value noise in [0, 1] stretched along ``u``: features ``len_u`` x ``len_v`` mm."""
    g = rng.random((64, 64), dtype=np.float32)
    mx = np.mod(u / len_u, 64).astype(np.float32)
    my = np.mod(v / len_v, 64).astype(np.float32)
    return cv2.remap(g, mx, my, cv2.INTER_CUBIC, borderMode=cv2.BORDER_WRAP).clip(0, 1)


def palette(rng: np.random.Generator, kind: str) -> tuple[np.ndarray, np.ndarray]:
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


def draw_table(
    rng: np.random.Generator, kind: str, shape: tuple[int, int], px_per_mm: float
) -> np.ndarray:
    """A table surface, ``(H, W, 3) uint8 RGB``, at ``px_per_mm``."""
    h, w = shape
    c1, c2 = palette(rng, kind)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xx /= px_per_mm
    yy /= px_per_mm
    ang = rng.uniform(0, math.pi)
    u = xx * math.cos(ang) + yy * math.sin(ang)
    v = -xx * math.sin(ang) + yy * math.cos(ang)
    low = fractal_noise(rng, shape, 120 * px_per_mm)
    style = kind
    if kind in ("dark", "light"):
        style = str(rng.choice(["wood", "plain", "cloth"]))
    if style == "wood":
        plank = rng.uniform(70, 220)
        idx = np.floor(v / plank)
        period = rng.uniform(2.5, 9.0)
        warp = aniso_noise(rng, u, v, rng.uniform(150, 400), rng.uniform(20, 60))
        grain = 0.5 + 0.5 * np.sin(2 * math.pi * v / period + rng.uniform(3, 9) * warp + idx * 7.1)
        streak = aniso_noise(rng, u, v, rng.uniform(40, 120), rng.uniform(0.4, 1.2))
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
        folds = fractal_noise(rng, shape, rng.uniform(30, 90) * px_per_mm)
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
            t = (smooth_noise(rng, shape, period * px_per_mm * 0.5) > 0.62).astype(np.float32)
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
            colour = palette(rng, "patterned")[int(rng.integers(2))]
            cv2.fillConvexPoly(img, np.round(box).astype(np.int32), tuple(float(x) for x in colour))
            inner = cv2.boxPoints((centre, tuple(0.75 * size_mm * px_per_mm), 0.0))
            if rng.random() < 0.6:
                shade = tuple(float(x) for x in palette(rng, "light")[0])
                cv2.fillConvexPoly(img, np.round(inner).astype(np.int32), shade)
    else:  # plain
        fine = smooth_noise(rng, shape, max(1.5, 2 * px_per_mm))
        img = c1[None, None] * (0.92 + 0.1 * low[..., None] + 0.04 * fine[..., None])
    return np.clip(img, 0, 255).astype(np.uint8)


def backdrop(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
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
    small *= (0.75 + 0.4 * fractal_noise(rng, (sh, sw), sw / 4))[..., None]
    small *= np.linspace(1.1, 0.8, sh, dtype=np.float32)[:, None, None]
    small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.8, 2.5))
    return cv2.resize(np.clip(small, 0, 255).astype(np.uint8), (w, h))


def table_layer(
    rng: np.random.Generator,
    kinds: Sequence[str],
    vis_lo: np.ndarray,
    vis_hi: np.ndarray,
    need: float,
    size: tuple[int, int],
) -> tuple[str, tuple[np.ndarray, np.ndarray, np.ndarray, float]]:
    """A table texture drawn from ``kinds`` over the visible plane box, at most ``need`` px/mm.

    Returns the kind and the ``table`` layer of :func:`warp_layers` ``(rgb, alpha, origin, s)``.
    """
    w_img, h_img = size
    area = float(np.prod(np.maximum(vis_hi - vis_lo, 1)))
    s_table = min(need, 4.0, math.sqrt(min(MAX_TABLE_CANVAS_PX, 1.5 * w_img * h_img) / area))
    t_w = max(2, int(math.ceil((vis_hi[0] - vis_lo[0]) * s_table)))
    t_h = max(2, int(math.ceil((vis_hi[1] - vis_lo[1]) * s_table)))
    kind = str(rng.choice(kinds))
    table_rgb = draw_table(rng, kind, (t_h, t_w), s_table)
    return kind, (table_rgb, np.full((t_h, t_w), 255, np.uint8), vis_lo, s_table)


def table_texture(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A quick random table surface (the augmentation's and galleries' tables): wood, cloth, felt, stone or a plain colour.

    Parameters
    ----------
    rng : numpy.random.Generator
    size : (width, height)

    Returns
    -------
    (height, width, 3) uint8 RGB
    """
    full = size
    width, height = max(size[0] // 2, 2), max(size[1] // 2, 2)
    kind = rng.integers(5)
    base = rng.uniform(30, 230, size=3)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    if kind == 0:  # wood: warped sinusoidal grain
        angle = rng.uniform(0, np.pi)
        u = xx * np.cos(angle) + yy * np.sin(angle)
        v = -xx * np.sin(angle) + yy * np.cos(angle)
        freq = rng.uniform(0.05, 0.4)
        warp = 6 * np.sin(v * rng.uniform(0.005, 0.03) + rng.uniform(0, 6))
        grain = np.sin((u + warp) * freq) * 0.5 + 0.5
        base = np.array([rng.uniform(90, 200), rng.uniform(50, 140), rng.uniform(20, 90)])
        shade = 0.75 + 0.35 * grain[..., None]
        image = base * shade
    elif kind == 1:  # cloth: plaid or checks
        period = rng.uniform(4, 30)
        other = rng.uniform(30, 230, size=3)
        stripes_x = (np.sin(xx * 2 * np.pi / period) > rng.uniform(-0.5, 0.5))[..., None]
        stripes_y = (np.sin(yy * 2 * np.pi / period) > rng.uniform(-0.5, 0.5))[..., None]
        mix = 0.5 * stripes_x + 0.5 * stripes_y
        image = base * (1 - mix) + other * mix
    elif kind == 2:  # felt: flat colour, fine noise
        image = np.broadcast_to(base, (height, width, 3)).astype(np.float32)
    elif kind == 3:  # stone: smoothed noise blobs
        noise = rng.normal(0, 1, size=(max(height // 8, 2), max(width // 8, 2))).astype(np.float32)
        noise = cv2.resize(noise, (width, height), interpolation=cv2.INTER_CUBIC)
        image = base * (1 + 0.15 * noise[..., None])
    else:  # printed mat: random blobs of colour
        image = np.broadcast_to(base, (height, width, 3)).astype(np.float32).copy()
        for _ in range(rng.integers(2, 8)):
            centre = (int(rng.integers(0, width)), int(rng.integers(0, height)))
            axes = (int(rng.integers(3, width // 2 + 4)), int(rng.integers(3, height // 2 + 4)))
            colour = tuple(float(c) for c in rng.uniform(0, 255, size=3))
            cv2.ellipse(image, centre, axes, float(rng.uniform(0, 180)), 0, 360, colour, -1)
    image = image + rng.normal(0, rng.uniform(1, 10), size=(height, width, 1))
    image = np.clip(image, 0, 255).astype(np.uint8)
    return cv2.resize(image, full, interpolation=cv2.INTER_LINEAR)
