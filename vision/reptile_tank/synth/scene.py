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
from vision.synth.camera import (
    PHONE_SIZES,
    aim_camera,
    distort_points,
    local_scale,
    pick_size,
    project,
    visible_plane,
)
from vision.synth.canvas import Canvas, card_canvas, warp_layers
from vision.synth.photo import apply_light_and_sensor, encode_jpeg
from vision.synth.table import HARD_TABLE_KINDS, TABLE_KINDS, table_layer

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


# ---------------------------------------------------------------------------------------------
# Procedural textures
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Sprites on the plane canvas (premultiplied RGBA)
# ---------------------------------------------------------------------------------------------


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

    w_img, h_img = pick_size(rng, max_size, size)
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
    need = max(local_scale(h_plane, p) for p in grid_outer)
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
    image = warp_layers(
        rng, (w_img, h_img), h_inv, (k1, k2), table=table, cards=(cards_rgba, zone_lo, s_cards)
    )

    # --- ground truth -------------------------------------------------------------------------
    def to_image(pts_mm: np.ndarray) -> np.ndarray:
        return distort_points(project(h_plane, pts_mm), (w_img, h_img), k1, k2)

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
        image = apply_light_and_sensor(rng, image, cells, occupied, hard_light)
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
    canvas: Canvas,
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
