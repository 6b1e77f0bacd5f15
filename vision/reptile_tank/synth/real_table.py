"""The real-table mode of the generator (issue 28 item 3): a game night, not a test bench.

:func:`vision.reptile_tank.synth.scene.render_scene` with ``real_table=True`` draws, beside its
usual scene: a stronger barrel lens, cards laid by hand (a few degrees of rotation, a few
millimetres off the lattice, one or two pushed onto a neighbour), curled corners, glossy sleeves
with glare (sometimes over most of a card), the photographer's arm shadow, a thumb over an edge
card, a neighbour's terrarium and loose cards in the frame, and phone processing (sensor noise
amplified by sharpening). Every draw comes from the scene's own generator, only in this mode,
so scenes without it are byte for byte what they were.

The truth records what hides a card: ``covered_cells`` (``[row, col, share]`` of a card under a
thumb, as in ``../shared/hard-photos``) and ``glared_cells`` (``[row, col, share]`` of a card
washed out by glare), both in the board's upright cell order.

All images are ``(H, W, 3) uint8 RGB``; plane coordinates are millimetres in the board frame.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

#: A card share at or above this counts as covered / glared in the truth.
RECORD_SHARE = 0.05


def hand_layout(rng: np.random.Generator, layout: dict[str, Any]) -> dict[str, Any]:
    """Placement by hand: looser gaps, larger offsets and rotations than the bench's."""
    out = dict(layout)
    out["gap_x"] = float(rng.uniform(0.0, 5.0))
    out["gap_y"] = float(rng.uniform(0.0, 5.0))
    out["jitter_mm"] = float(rng.uniform(1.0, 3.0))
    out["rot_sd_deg"] = float(rng.uniform(1.5, 4.0))
    out["jitter_clip_mm"] = 6.0
    out["rot_clip_deg"] = 9.0
    return out


def lens(rng: np.random.Generator) -> tuple[float, float]:
    """A phone's wide lens: clear barrel distortion (k1 > 0 in the scene's model)."""
    return float(rng.uniform(0.03, 0.14)), float(rng.uniform(-0.01, 0.03))


def overlap_pushes(
    rng: np.random.Generator, rows: list[list[str]], empty: str
) -> dict[tuple[int, int], np.ndarray]:
    """One or two cards pushed 2-5 mm onto a neighbour (``{(r, c): offset mm}``)."""
    n_rows, n_cols = len(rows), len(rows[0])
    out: dict[tuple[int, int], np.ndarray] = {}
    for _ in range(int(rng.integers(0, 3))):
        r, c = int(rng.integers(n_rows)), int(rng.integers(n_cols))
        if rows[r][c] == empty:
            continue
        direction = [(0, 1), (0, -1), (1, 0), (-1, 0)][int(rng.integers(4))]
        out[(r, c)] = np.array(direction[::-1], np.float64) * rng.uniform(2.0, 5.0)
    return out


def sleeve(sprite: np.ndarray, haze: float) -> np.ndarray:
    """A glossy sleeve over a face: a little haze toward white (float RGB 0..255)."""
    return sprite * (1.0 - haze) + 255.0 * haze


def curl_corner(
    rng: np.random.Generator, sprite: np.ndarray, mask: np.ndarray, px_per_mm: float
) -> tuple[np.ndarray, np.ndarray]:
    """A curled corner: the tip lifts off the table (cut from the outline, the table shows), the
    lifted part catches light or shade along the fold."""
    sprite = sprite.copy()
    mask = mask.copy()
    h, w = mask.shape
    corner = int(rng.integers(4))
    leg = rng.uniform(9.0, 18.0) * px_per_mm
    tip = rng.uniform(0.25, 0.45) * leg  # how far the outline is pulled in at the tip
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    dx = xx if corner in (0, 3) else (w - 1 - xx)
    dy = yy if corner in (0, 1) else (h - 1 - yy)
    d = (dx + dy) / leg  # < 1 inside the corner triangle
    lifted = np.clip(1.0 - d, 0.0, 1.0)
    shade = float(rng.choice([-1.0, 1.0])) * rng.uniform(0.25, 0.5)
    sprite *= (1.0 + shade * lifted)[..., None]
    np.clip(sprite, 0, 255, out=sprite)
    mask[(dx + dy) < tip] = 0.0
    return sprite, mask


def neighbour_cards(
    rng: np.random.Generator, grid_w: float, grid_h: float, pitch: np.ndarray
) -> list[tuple[np.ndarray, float]]:
    """A neighbour's terrarium: a few cards of another lattice beside this one.

    Returns ``[(centre mm, angle deg)]``; the lattice starts 70-160 mm past one side of the
    grid, turned a little, 2-3 rows of 2-4 cards with some missing.
    """
    side = int(rng.integers(4))
    angle = float(rng.normal(0, 6))
    away = rng.uniform(70.0, 160.0)
    rows, cols = int(rng.integers(2, 4)), int(rng.integers(2, 5))
    if side == 0:
        origin = np.array([rng.uniform(-60, grid_w - 60), -away - rows * pitch[1]])
    elif side == 1:
        origin = np.array([rng.uniform(-60, grid_w - 60), grid_h + away])
    elif side == 2:
        origin = np.array([-away - cols * pitch[0], rng.uniform(-60, grid_h - 60)])
    else:
        origin = np.array([grid_w + away, rng.uniform(-60, grid_h - 60)])
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    out = []
    for r in range(rows):
        for c in range(cols):
            if rng.random() < 0.25:
                continue
            local = np.array([(c + 0.5) * pitch[0], (r + 0.5) * pitch[1]])
            out.append((origin + rot @ local, angle + float(rng.normal(0, 2))))
    return out


def _quad_mask(quad: np.ndarray, shape: tuple[int, int], f: float) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(np.asarray(quad) * f).astype(np.int32)], 1)
    return mask


def sleeve_glare(
    rng: np.random.Generator, image: np.ndarray, cells: list, occupied: list
) -> tuple[np.ndarray, list[list[float]]]:
    """Specular glare on sleeved cards: 1-3 streaks, sometimes one over most of a card.

    Returns the image and ``glared_cells`` (``[row, col, share]``: the share of the card
    washed out, added light >= 60 % of white).
    """
    h, w = image.shape[:2]
    f = 0.25  # masks at quarter resolution
    sh, sw = max(8, int(h * f)), max(8, int(w * f))
    add = np.zeros((sh, sw), np.float32)
    cards = [(r, c) for r, row in enumerate(occupied) for c, v in enumerate(row) if v]
    if not cards:
        return image, []
    for k in range(int(rng.integers(1, 4))):
        r, c = cards[int(rng.integers(len(cards)))]
        quad = np.asarray(cells[r][c]) * f
        centre = quad.mean(0) + rng.normal(0, 0.15, 2) * (quad.max(0) - quad.min(0))
        card_px = float(np.linalg.norm(quad[1] - quad[0]))
        if k == 0 and rng.random() < 0.35:  # most of one card under a broad sheen
            axes = (int(card_px * rng.uniform(0.55, 0.8)), int(card_px * rng.uniform(0.5, 0.8)))
            level = rng.uniform(0.75, 1.0)
        else:
            axes = (int(card_px * rng.uniform(0.4, 1.2)), int(card_px * rng.uniform(0.06, 0.2)))
            level = rng.uniform(0.5, 0.95)
        spot = np.zeros_like(add)
        cv2.ellipse(
            spot,
            (int(centre[0]), int(centre[1])),
            (max(1, axes[0]), max(1, axes[1])),
            float(rng.uniform(0, 180)),
            0,
            360,
            1.0,
            -1,
        )
        spot = cv2.GaussianBlur(spot, (0, 0), max(1.0, 0.25 * min(axes)))
        add = np.maximum(add, spot * level)
    glared = []
    for r, c in cards:
        mask = _quad_mask(np.asarray(cells[r][c]), (sh, sw), f).astype(bool)
        if mask.any():
            share = float((add[mask] >= 0.6).mean())
            if share >= RECORD_SHARE:
                glared.append([r, c, round(share, 3)])
    full = cv2.resize(add, (w, h), interpolation=cv2.INTER_LINEAR)
    return _lit_by_sheen(image, full), glared


def _lit_by_sheen(image: np.ndarray, light: np.ndarray) -> np.ndarray:
    """``image`` (uint8) with a sheen's light added: ``light`` (h, w) 0..1 per pixel, at 1 most of
    the print washed towards white."""
    full = np.asarray(light, np.float32)[..., None]
    out = image.astype(np.float32) * (1 - 0.85 * full) + 255.0 * 0.85 * full + 20 * full
    return np.clip(out, 0, 255).astype(np.uint8)


def broad_sheen(card: np.ndarray, level: float = 0.9, turn: float = 0.0) -> np.ndarray:
    """One card image (H, W, 3 uint8) under a sleeve's broad sheen over most of it, as
    :func:`sleeve_glare` lights one: a soft ellipse over about 70 % of it, ``level`` its light at
    the middle, ``turn`` its axis (degrees)."""
    h, w = card.shape[:2]
    spot = np.zeros((h, w), np.float32)
    cv2.ellipse(spot, (w // 2, h // 2), (int(0.65 * w), int(0.55 * h)), turn, 0, 360, 1.0, -1)
    return _lit_by_sheen(card, cv2.GaussianBlur(spot, (0, 0), 0.13 * w) * level)


def arm_shadow(rng: np.random.Generator, image: np.ndarray, cells: list) -> np.ndarray:
    """The photographer's forearm: a long soft band of shadow from a frame edge over the grid."""
    h, w = image.shape[:2]
    f = 0.125
    sh, sw = max(8, int(h * f)), max(8, int(w * f))
    grid = np.asarray(cells, np.float64).reshape(-1, 2) * f
    lo, hi = grid.min(0), grid.max(0)
    target = lo + rng.uniform(0.1, 0.9, 2) * (hi - lo)
    edge = int(rng.integers(4))
    start = {
        0: (rng.uniform(0, sw), -0.1 * sh),
        1: (rng.uniform(0, sw), 1.1 * sh),
        2: (-0.1 * sw, rng.uniform(0, sh)),
        3: (1.1 * sw, rng.uniform(0, sh)),
    }[edge]
    width = rng.uniform(0.06, 0.14) * max(sw, sh)
    mask = np.zeros((sh, sw), np.float32)
    cv2.line(
        mask,
        (int(start[0]), int(start[1])),
        (int(target[0]), int(target[1])),
        1.0,
        max(1, int(width)),
    )
    cv2.circle(mask, (int(target[0]), int(target[1])), max(1, int(width * 0.6)), 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, width * rng.uniform(0.3, 0.8)))
    strength = rng.uniform(0.25, 0.5)
    full = cv2.resize(mask, (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
    return np.clip(image.astype(np.float32) * (1 - strength * full), 0, 255).astype(np.uint8)


def thumb(
    rng: np.random.Generator, image: np.ndarray, cells: list, occupied: list
) -> tuple[np.ndarray, list[list[float]]]:
    """A thumb over an edge card, entering from the board's outside.

    Returns the image and ``covered_cells`` (``[row, col, share]``).
    """
    h, w = image.shape[:2]
    n_rows, n_cols = len(cells), len(cells[0])
    edge_cards = [
        (r, c)
        for r in range(n_rows)
        for c in range(n_cols)
        if occupied[r][c] and (r in (0, n_rows - 1) or c in (0, n_cols - 1))
    ]
    if not edge_cards:
        return image, []
    r, c = edge_cards[int(rng.integers(len(edge_cards)))]
    quad = np.asarray(cells[r][c], np.float64)
    centre = quad.mean(0)
    # out of the board across the edge this card lies on (one of them, for a corner card)
    sides = [(dr, dc) for dr, dc, on in ((-1, 0, r == 0), (1, 0, r == n_rows - 1),
             (0, -1, c == 0), (0, 1, c == n_cols - 1)) if on]  # fmt: skip
    dr, dc = sides[int(rng.integers(len(sides)))]
    inner = np.asarray(cells[r - dr][c - dc], np.float64).mean(0)
    outward = centre - inner
    outward /= np.linalg.norm(outward) + 1e-9
    card_w = float(np.linalg.norm(quad[1] - quad[0]))
    # the thumb's tip lies 30-80 % of a card inside the card, its body goes out of the board
    # (nearer the camera than the cards, so wider than life: half a card or more)
    depth = rng.uniform(0.3, 0.8) * card_w
    sides_mid = (quad + np.roll(quad, -1, axis=0)) / 2 - centre
    half_extent = float((sides_mid @ outward).max())
    tip = centre + outward * (half_extent - depth)
    length = 1.4 * card_w
    thick = rng.uniform(0.5, 0.8) * card_w
    body = tip + outward * length / 2
    mask = np.zeros((h, w), np.uint8)
    # a capsule: the rounded tip inside the card, the thumb running out past the board
    start = tip + outward * thick / 2
    end = tip + outward * length
    cv2.line(
        mask,
        (int(start[0]), int(start[1])),
        (int(end[0]), int(end[1])),
        255,
        max(1, int(thick)),
        cv2.LINE_AA,
    )
    cv2.circle(mask, (int(start[0]), int(start[1])), max(1, int(thick / 2)), 255, -1, cv2.LINE_AA)
    hand = tip + outward * (length + 0.8 * card_w)  # the hand the thumb belongs to
    cv2.line(
        mask,
        (int(end[0]), int(end[1])),
        (int(hand[0]), int(hand[1])),
        255,
        max(1, int(2.2 * thick)),
        cv2.LINE_AA,
    )
    skin = np.array(
        rng.uniform([170, 110, 85], [235, 175, 145]), np.float32
    )  # light to medium skin, RGB
    x0, y0, bw, bh = cv2.boundingRect(mask)
    if bw == 0 or bh == 0:
        return image, []
    roi = (slice(y0, y0 + bh), slice(x0, x0 + bw))
    alpha = cv2.GaussianBlur(mask[roi].astype(np.float32) / 255.0, (0, 0), max(1.0, thick * 0.03))
    # shading across the thumb (rounded), a nail near the tip
    yy, xx = np.mgrid[y0 : y0 + bh, x0 : x0 + bw].astype(np.float32)
    across = ((xx - body[0]) * -outward[1] + (yy - body[1]) * outward[0]) / (thick / 2)
    shade = 1.0 - 0.35 * np.clip(np.abs(across), 0, 1) ** 2
    colour = skin[None, None, :] * shade[..., None]
    nail_c = tip + outward * thick * 0.45
    along = (xx - nail_c[0]) * outward[0] + (yy - nail_c[1]) * outward[1]
    nail = (np.abs(along) < thick * 0.3) & (np.abs(across) < 0.6)
    colour[nail] = colour[nail] * 0.6 + np.array([245, 215, 205], np.float32) * 0.4
    region = image[roi].astype(np.float32)
    image = image.copy()
    image[roi] = np.clip(region * (1 - alpha[..., None]) + colour * alpha[..., None], 0, 255)
    covered = []
    f = 0.25  # shares measured at quarter resolution
    small = (max(8, int(h * f)), max(8, int(w * f)))
    covered_mask = cv2.resize(mask, small[::-1], interpolation=cv2.INTER_AREA) > 127
    for rr in range(n_rows):
        for cc in range(n_cols):
            if not occupied[rr][cc]:
                continue
            cell = _quad_mask(np.asarray(cells[rr][cc]), small, f).astype(bool)
            if cell.any():
                share = float((covered_mask & cell).sum() / cell.sum())
                if share >= RECORD_SHARE:
                    covered.append([rr, cc, round(share, 3)])
    return image, covered


def phone_processing(
    rng: np.random.Generator,
    image: np.ndarray,
    *,
    amount: tuple[float, float] = (0.4, 1.3),
    sigma: tuple[float, float] = (0.8, 2.0),
) -> np.ndarray:
    """A phone's pipeline after the sensor: unsharp-mask sharpening (amplifying the noise), its
    ``amount`` and blur ``sigma`` (pixels of a 2000 px photo, scaled up for larger ones) drawn
    from the ranges given."""
    amount = rng.uniform(*amount)
    sigma = rng.uniform(*sigma) * max(1.0, max(image.shape[:2]) / 2000)
    blurred = cv2.GaussianBlur(image, (0, 0), sigma)
    return cv2.addWeighted(image, 1.0 + amount, blurred, -amount, 0)


def play_mat(
    rng: np.random.Generator,
    table: tuple[np.ndarray, np.ndarray, np.ndarray, float],
    grid_w: float,
    grid_h: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """A play mat under the board: a coloured rounded rectangle reaching 30-160 mm past the
    grid, printed with large motifs (fruit, leaves, discs) some of which lie next to the grid,
    where an empty edge line's cells would be (the table layer of :func:`vision.synth.canvas.warp_layers`)."""
    rgb, alpha, origin, s = table
    rgb = rgb.copy()
    h, w = rgb.shape[:2]
    lo = np.array([-rng.uniform(30, 160), -rng.uniform(30, 160)])
    hi = np.array([grid_w + rng.uniform(30, 160), grid_h + rng.uniform(30, 160)])

    def px(pt):
        return (np.asarray(pt, np.float64) - origin) * s - 0.5

    base = np.array(rng.uniform([40, 90, 30], [190, 210, 170]), np.float32)
    if rng.random() < 0.5:
        base = base[[1, 0, 2]] if rng.random() < 0.5 else base[[2, 1, 0]]
    mask = np.zeros((h, w), np.uint8)
    p0, p1 = px(lo), px(hi)
    radius = max(1, int(15 * s))
    x0, y0, x1, y1 = int(p0[0]), int(p0[1]), int(p1[0]), int(p1[1])
    cv2.rectangle(mask, (x0 + radius, y0), (x1 - radius, y1), 255, -1)
    cv2.rectangle(mask, (x0, y0 + radius), (x1, y1 - radius), 255, -1)
    for cx, cy in ((x0 + radius, y0 + radius), (x1 - radius, y0 + radius),
                   (x1 - radius, y1 - radius), (x0 + radius, y1 - radius)):  # fmt: skip
        cv2.circle(mask, (cx, cy), radius, 255, -1)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    shade = 1.0 + 0.15 * np.sin(xx / max(w, 1) * rng.uniform(1, 4) + rng.uniform(0, 6))
    mat = (base[None, None, :] * shade[..., None]).astype(np.float32)
    # motifs: a cluster beside one side of the grid and a few elsewhere on the mat
    side = int(rng.integers(4))
    centres = []
    for _ in range(int(rng.integers(3, 7))):
        along = rng.uniform(0.0, 1.0)
        off = rng.uniform(10, 70)
        centres.append(
            [
                (along * grid_w, -off),
                (along * grid_w, grid_h + off),
                (-off, along * grid_h),
                (grid_w + off, along * grid_h),
            ][side]
        )
    for _ in range(int(rng.integers(1, 5))):
        centres.append(rng.uniform(lo, hi))
    for centre in centres:
        colour = np.array(rng.uniform([10, 10, 10], [250, 250, 250]), np.float32)
        r_mm = rng.uniform(15, 55)
        c = px(centre)
        axes = (max(1, int(r_mm * s)), max(1, int(r_mm * s * rng.uniform(0.45, 1.0))))
        motif = np.zeros((h, w), np.uint8)
        cv2.ellipse(motif, (int(c[0]), int(c[1])), axes, rng.uniform(0, 180), 0, 360, 255, -1)
        a = cv2.GaussianBlur(motif.astype(np.float32) / 255.0, (0, 0), max(0.6, 0.8 * s))
        lit = np.hypot(xx - c[0] + axes[0] * 0.3, yy - c[1] + axes[1] * 0.3) / axes[0]
        gloss = 1.0 + 0.35 * np.clip(1 - lit, 0, 1)
        mat = mat * (1 - a[..., None]) + (colour[None, None, :] * gloss[..., None]) * a[..., None]
    m = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), 0.8)[..., None]
    out = rgb.astype(np.float32) * (1 - m) + np.clip(mat, 0, 255) * m
    return np.clip(out, 0, 255).astype(np.uint8), alpha, origin, s
