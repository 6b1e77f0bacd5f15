"""Synthetic phone photos of a Nimalia reserve, with exact ground truth.

A reserve is a list of placements in order (card id, row and column of its top-left square in
the 6 x 6 frame, clockwise turn), as the rules' documents write it; later cards lie on top.
:func:`sample_reserve` draws legal reserves (every card after the first covers at least one
square already there, all within the 6 x 6 frame), so their outlines have the notches and holes
of real play. :func:`render_reserve` lays the cards on the table plane with small offsets and
turns (a thin edge and a drop shadow where one card lies on another) and photographs the table
with the camera, table textures, light and sensor model of the Reptile Tank generator
(:mod:`vision.reptile_tank.synth.scene`, used read-only).

Geometry: plane millimetres, x to the right along a row, y towards the photographer along a
column, origin at the top-left corner of the 6 x 6 frame; a square is :func:`square_mm` wide. The
photo is taken from the player's seat: the far side (row 0) is the image's top, give or take the
camera roll (within +-35 degrees, so the nearest quarter turn is always 0).

Truth (JSON-serialisable): ``squares`` (the visible squares cropped to the reserve's bounding
box, tokens as in the reference), ``frame`` (the full 6 x 6 grid), ``bbox`` ``[row0, col0, rows,
cols]`` in the frame, ``placements``, ``square_quads`` (image corners TL, TR, BR, BL of each
visible square of the top card covering it, ``None`` where empty), ``lattice`` (image points of
the nominal lattice corners of the bounding box, ``(rows + 1) x (cols + 1)``), ``size``, ``params``.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from scoring.nimalia.cards import EMPTY, cards, layout, turn
from vision.nimalia.deck import STAND_IN, DeckStyle, card_mask, render_back, render_card, square_mm
from vision.synth.camera import (
    aim_camera,
    distort_points,
    local_scale,
    pick_size,
    project,
    visible_plane,
)
from vision.synth.canvas import card_canvas, warp_layers
from vision.synth.photo import apply_light_and_sensor, encode_jpeg
from vision.synth.table import TABLE_KINDS, table_layer

# ---------------------------------------------------------------------------------------------
# Reserves
# ---------------------------------------------------------------------------------------------


def visible_frame(placements: list[dict[str, int]], size: int | None = None) -> list[list[str]]:
    """The frame's visible squares (tokens, ``"."`` empty) from placements in order."""
    n = size or layout().rows
    grid = [[EMPTY] * n for _ in range(n)]
    for p in placements:
        sq = turn(int(p["card"]), int(p["turn"]))
        for q in range(4):
            dr, dc = divmod(q, 2)
            grid[p["row"] + dr][p["col"] + dc] = sq[q].token
    return grid


def _owners(placements: list[dict[str, int]], n: int) -> list[list[int]]:
    own = [[-1] * n for _ in range(n)]
    for k, p in enumerate(placements):
        for q in range(4):
            dr, dc = divmod(q, 2)
            own[p["row"] + dr][p["col"] + dc] = k
    return own


def crop_to_bbox(grid: list[list[str]]) -> tuple[list[list[str]], list[int]]:
    """The grid cropped to its non-empty bounding box, and ``[row0, col0, rows, cols]``."""
    rows = [r for r, row in enumerate(grid) if any(t != EMPTY for t in row)]
    cols = [c for c in range(len(grid[0])) if any(row[c] != EMPTY for row in grid)]
    if not rows:
        return [], [0, 0, 0, 0]
    r0, r1, c0, c1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    return [row[c0:c1] for row in grid[r0:r1]], [r0, c0, r1 - r0, c1 - c0]


def sample_reserve(rng: np.random.Generator, n_cards: int | None = None) -> list[dict[str, int]]:
    """Legal placements in order: each later card covers >= 1 occupied square, all in the frame.

    ``n_cards`` defaults to 3 x a round drawn from 1-5 (the reserve after that round).
    """
    n = layout().rows
    if n_cards is None:
        n_cards = 3 * int(rng.integers(1, 6))
    ids = rng.choice(sorted(cards()), size=n_cards, replace=False)
    occ = np.zeros((n, n), bool)
    out = []
    for k, cid in enumerate(ids):
        options = [
            (r, c)
            for r in range(n - 1)
            for c in range(n - 1)
            if k == 0 or occ[r : r + 2, c : c + 2].any()
        ]
        r, c = options[int(rng.integers(len(options)))]
        occ[r : r + 2, c : c + 2] = True
        turn_deg = int(rng.choice(4)) * 90
        out.append({"card": int(cid), "row": int(r), "col": int(c), "turn": turn_deg})
    return out


# ---------------------------------------------------------------------------------------------
# The photo
# ---------------------------------------------------------------------------------------------


def _quad(centre: np.ndarray, angle_deg: float, w: float, h: float | None = None) -> np.ndarray:
    """Corners TL, TR, BR, BL of a ``w x h`` rectangle turned about its centre (plane mm)."""
    h = w if h is None else h
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return centre + local @ rot.T


def render_reserve(
    rng: np.random.Generator | int,
    *,
    style: DeckStyle = STAND_IN,
    placements: list[dict[str, int]] | None = None,
    n_cards: int | None = None,
    max_size: tuple[int, int] = (4032, 3024),
    size: tuple[int, int] | None = None,
    tilt_deg: tuple[float, float] = (0.0, 50.0),
    roll_deg: float = 35.0,
    fill: tuple[float, float] = (0.3, 0.9),
    jitter_mm: tuple[float, float] = (0.0, 1.2),
    rot_sd_deg: tuple[float, float] = (0.0, 1.2),
    distractors: bool = True,
    degrade: bool = True,
) -> tuple[np.ndarray, dict[str, Any]]:
    """One phone photo of a reserve and its truth (see the module docstring).

    ``fill`` is the share of the frame taken by the reserve's bounding box (largest of its
    image width / W and height / H); ``jitter_mm`` and ``rot_sd_deg`` bound the per-scene
    spread of each card's offset (mm) and turn (degrees) from the exact lattice.
    """
    seed = None
    if not isinstance(rng, np.random.Generator):
        seed = int(rng)
        rng = np.random.default_rng(seed)
    s_mm = square_mm()
    n = layout().rows
    if placements is None:
        placements = sample_reserve(rng, n_cards)
    frame = visible_frame(placements, n)
    owners = _owners(placements, n)
    squares, bbox = crop_to_bbox(frame)
    if not squares:
        raise ValueError("placements: the reserve is empty")
    r0, c0, nr, nc = bbox

    w_img, h_img = pick_size(rng, max_size, size)
    jit = float(rng.uniform(*jitter_mm))
    rot_sd = float(rng.uniform(*rot_sd_deg))
    card_quads = []
    for p in placements:
        centre = np.array([(p["col"] + 1) * s_mm, (p["row"] + 1) * s_mm])
        centre = centre + np.clip(rng.normal(0, jit, 2), -2.5, 2.5)
        ang = float(np.clip(rng.normal(0, rot_sd), -3, 3))
        card_quads.append(_quad(centre, ang, 2 * s_mm))

    box_lo = np.array([c0 * s_mm, r0 * s_mm])
    box_hi = np.array([(c0 + nc) * s_mm, (r0 + nr) * s_mm])
    box = np.array([box_lo, [box_hi[0], box_lo[1]], box_hi, [box_lo[0], box_hi[1]]])
    box_centre = (box_lo + box_hi) / 2

    # --- camera (as vision.reptile_tank.synth.scene: orientation, zoom, distance for the fill, placement) ---
    tilt = float(rng.uniform(*tilt_deg))
    roll = float(rng.uniform(-roll_deg, roll_deg))
    f_px = float(rng.uniform(0.72, 1.15)) * max(w_img, h_img)
    fill_target = float(rng.uniform(*fill))
    k1 = float(rng.uniform(-0.03, 0.06)) if degrade else 0.0
    k2 = float(rng.uniform(-0.01, 0.02)) if degrade else 0.0
    target = box_centre + rng.normal(0, 10, 2)
    h_plane, h_inv, distance = aim_camera(
        rng, box, target, (w_img, h_img), tilt, roll, f_px, fill_target, margin=0.03
    )

    # --- visible part of the table ----------------------------------------------------------
    table_lo = box_lo - rng.uniform(300, 1200, 2)
    table_hi = box_hi + rng.uniform(300, 1200, 2)
    vis_lo, vis_hi = visible_plane((w_img, h_img), h_inv, (k1, k2), table_lo, table_hi)

    need = max(local_scale(h_plane, p) for p in box)
    table_kind, table = table_layer(rng, TABLE_KINDS, vis_lo, vis_hi, need, (w_img, h_img))

    # --- the card canvas ----------------------------------------------------------------------
    zone_lo = np.maximum(vis_lo, box_lo - 220.0)
    zone_hi = np.minimum(vis_hi, box_hi + 220.0)
    canvas = card_canvas(zone_lo, zone_hi, need, 8.0)
    s_cards = canvas.s
    ppm = float(min(max(s_cards, 1.0), 6.0))
    mask = card_mask(2 * int(round(s_mm * ppm)), style, ppm).astype(np.float32) / 255.0

    light = rng.normal(0, 1, 2)
    light /= np.linalg.norm(light) + 1e-9
    shadow_off = light * rng.uniform(0.3, 1.2)
    shadow_a = cv2.GaussianBlur(mask, (0, 0), max(0.6, rng.uniform(0.4, 1.2) * ppm))
    shadow_a *= float(rng.uniform(0.25, 0.5))
    black = np.zeros(mask.shape + (3,), np.float32)

    def tint(img: np.ndarray) -> np.ndarray:
        t = rng.uniform(0.92, 1.05) * rng.uniform(0.97, 1.03, 3)
        return np.clip(img.astype(np.float32) * t, 0, 255)

    placed = []
    if distractors:
        placed = _distractors(rng, canvas, box_lo, box_hi, style, ppm, mask, s_mm)
    for p, q in zip(placements, card_quads, strict=True):
        canvas.paste(black, shadow_a, q + shadow_off)
        canvas.paste(
            tint(render_card(p["card"], style=style, px_per_mm=ppm, turn=p["turn"])), mask, q
        )
    # a soft shadow of the whole reserve on the table
    sigma = max(0.6, rng.uniform(0.8, 2.5) * s_cards)
    off = light * rng.uniform(0.5, 2.5) * s_cards
    canvas.drop_shadow(off, sigma, float(rng.uniform(0.25, 0.55)))
    cards_rgba = canvas.rgba()
    del canvas
    image = warp_layers(
        rng, (w_img, h_img), h_inv, (k1, k2), table=table, cards=(cards_rgba, zone_lo, s_cards)
    )

    # --- truth ------------------------------------------------------------------------------
    def to_image(pts_mm: np.ndarray) -> np.ndarray:
        return distort_points(project(h_plane, pts_mm), (w_img, h_img), k1, k2)

    def r2(q: np.ndarray) -> list[list[float]]:
        return [[round(float(x), 2), round(float(y), 2)] for x, y in q]

    sq_quads: list[list[Any]] = []
    occupied: list[list[bool]] = []
    for r in range(nr):
        row_q, row_o = [], []
        for c in range(nc):
            k = owners[r0 + r][c0 + c]
            if k < 0:
                row_q.append(None)
                row_o.append(False)
                continue
            p = placements[k]
            # the card's quad TL, TR, BR, BL; square (dr, dc) of the card is bilinear in it
            tl, tr, br, bl = card_quads[k]
            dr, dc = r0 + r - p["row"], c0 + c - p["col"]

            def at(u: float, v: float, tl=tl, tr=tr, br=br, bl=bl) -> np.ndarray:
                return (1 - v) * ((1 - u) * tl + u * tr) + v * ((1 - u) * bl + u * br)

            corners = np.array(
                [
                    at(dc / 2, dr / 2),
                    at((dc + 1) / 2, dr / 2),
                    at((dc + 1) / 2, (dr + 1) / 2),
                    at(dc / 2, (dr + 1) / 2),
                ]
            )
            row_q.append(r2(to_image(corners)))
            row_o.append(True)
        sq_quads.append(row_q)
        occupied.append(row_o)
    lattice = []
    for r in range(nr + 1):
        pts_r = np.array([[(c0 + c) * s_mm, (r0 + r) * s_mm] for c in range(nc + 1)])
        lattice.append(r2(to_image(pts_r)))

    jpeg_quality = int(rng.integers(55, 96))
    if degrade:
        glare_cells = [[q if q is not None else [[0, 0]] * 4 for q in row] for row in sq_quads]
        image = apply_light_and_sensor(rng, image, glare_cells, occupied)
    params = {
        "seed": seed,
        "style": style.name,
        "tilt_deg": round(tilt, 3),
        "roll_deg": round(roll, 3),
        "focal_px": round(f_px, 2),
        "camera_distance_mm": round(float(distance), 1),
        "fill": round(fill_target, 4),
        "lens_k1": round(k1, 5),
        "lens_k2": round(k2, 5),
        "table": table_kind,
        "jitter_mm": round(jit, 3),
        "card_rotation_sd_deg": round(rot_sd, 3),
        "square_mm": s_mm,
        "distractors": placed,
        "jpeg_quality": jpeg_quality,
        "degrade": degrade,
    }
    truth = {
        "image": None,
        "size": [w_img, h_img],
        "squares": squares,
        "frame": frame,
        "bbox": bbox,
        "placements": [dict(p) for p in placements],
        "square_quads": sq_quads,
        "lattice": lattice,
        "params": params,
    }
    return image, truth


def square_corners(centre, side: float, angle_deg: float, far_narrower: float = 0.0) -> np.ndarray:
    """Image corners ``(4, 2)`` (top-left first, clockwise) of a square card of ``side`` pixels
    at ``centre``, turned by ``angle_deg`` and seen a little from its near side (its far edge
    ``far_narrower`` shorter): where :func:`one_card_photo` lays a card."""
    half = side / 2
    base = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    base[:2, 0] *= 1 - far_narrower
    a = np.deg2rad(angle_deg)
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return base @ turn.T + np.asarray(centre, float)


def one_card_photo(card_img: np.ndarray, background: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """A photo of one card (as a player enrols a deck): ``card_img`` (a tight square card image,
    black outside its rounded corners) laid on ``background`` with its corners (top-left first,
    clockwise) at ``corners``, slightly soft as a phone takes it."""
    s = card_img.shape[0]
    src = np.float32([[0, 0], [s, 0], [s, s], [0, s]])
    matrix = cv2.getPerspectiveTransform(src, np.asarray(corners, np.float32))
    size = background.shape[1], background.shape[0]
    inside = cv2.warpPerspective((card_img.sum(-1) > 0).astype(np.uint8), matrix, size) > 0
    out = background.copy()
    out[inside] = cv2.warpPerspective(card_img, matrix, size)[inside]
    return cv2.GaussianBlur(out, (0, 0), 0.8)


def _distractors(rng, canvas, box_lo, box_hi, style, ppm, mask, s_mm) -> list[str]:
    """A face-down draw pile and a stray card beside the reserve (never touching it)."""
    out = []
    side = 2 * s_mm
    for kind in ("pile", "stray"):
        if rng.random() > 0.4:
            continue
        for _ in range(10):
            edge = int(rng.integers(4))
            d = rng.uniform(25, 140) + side * 0.75
            if edge == 0:
                c = [rng.uniform(box_lo[0] - 100, box_hi[0] + 100), box_lo[1] - d]
            elif edge == 1:
                c = [rng.uniform(box_lo[0] - 100, box_hi[0] + 100), box_hi[1] + d]
            elif edge == 2:
                c = [box_lo[0] - d, rng.uniform(box_lo[1] - 100, box_hi[1] + 100)]
            else:
                c = [box_hi[0] + d, rng.uniform(box_lo[1] - 100, box_hi[1] + 100)]
            c = np.array(c)
            if np.all(c + side * 0.75 > box_lo - 20) and np.all(c - side * 0.75 < box_hi + 20):
                continue
            break
        else:
            continue
        ang = float(rng.uniform(0, 360))
        if kind == "pile":
            back = render_back(style=style, px_per_mm=ppm).astype(np.float32)
            k_n = int(rng.integers(3, 10))
            for k in range(k_n):
                shade = 0.75 + 0.25 * (k + 1) / k_n
                canvas.paste(
                    back * shade,
                    mask,
                    _quad(c + [k * 0.1, -k * 0.25], ang + rng.normal(0, 1.5), side),
                )
        else:
            cid = int(rng.choice(sorted(cards())))
            img = render_card(cid, style=style, px_per_mm=ppm, turn=int(rng.choice(4)) * 90)
            canvas.paste(img.astype(np.float32), mask, _quad(c, ang, side))
        out.append(kind)
    return out


__all__ = [
    "crop_to_bbox",
    "encode_jpeg",
    "render_reserve",
    "sample_reserve",
    "visible_frame",
]
