"""Augmented views of card faces and empty cells, as the grid's ``rectify_cells`` yields them.

One module serves both the training recipe (``models/train_embedder.py``) and the galleries
(:mod:`vision.reptile_tank.gallery`): a face image becomes a cell crop with a small perspective
and offset error of a few per cent of the cell, a little rotation jitter, neighbouring cards or
table at the edges, blur, noise, JPEG artefacts, a colour cast, glare and shadows (and, for the
training recipe, a game night's light and cards laid by hand). Every array in and out is RGB
uint8; every function takes its ``numpy.random.Generator`` explicitly.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.reptile_tank.synth.real_table import phone_processing
from vision.synth.table import table_texture

#: Card size in millimetres (width, height): the lattice cell is portrait.
CARD_MM = (63.0, 88.0)


def _neighbour_strip(rng: np.random.Generator, canvas: np.ndarray, box, others) -> None:
    """Paint parts of neighbouring cards beyond the gap around ``box`` (x0, y0, x1, y1)."""
    height, width = canvas.shape[:2]
    x0, y0, x1, y1 = box
    gap = int(rng.uniform(0.0, 0.06) * (x1 - x0))
    for side in range(4):
        if rng.random() > 0.5:
            continue
        if others:
            source = others[int(rng.integers(len(others)))]
            patch = cv2.resize(source, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
            if rng.random() < 0.5:
                patch = patch[::-1, ::-1]
        else:
            patch = np.empty((y1 - y0, x1 - x0, 3), np.uint8)
            patch[:] = rng.integers(0, 256, size=3)
        if side == 0:  # left
            xs, xe, ys, ye = x0 - gap - (x1 - x0), x0 - gap, y0, y1
        elif side == 1:  # right
            xs, xe, ys, ye = x1 + gap, x1 + gap + (x1 - x0), y0, y1
        elif side == 2:  # above
            xs, xe, ys, ye = x0, x1, y0 - gap - (y1 - y0), y0 - gap
        else:  # below
            xs, xe, ys, ye = x0, x1, y1 + gap, y1 + gap + (y1 - y0)
        shift = int(rng.uniform(-0.05, 0.05) * (x1 - x0))
        xs, xe = xs + (shift if side >= 2 else 0), xe + (shift if side >= 2 else 0)
        ys, ye = ys + (shift if side < 2 else 0), ye + (shift if side < 2 else 0)
        cx0, cy0, cx1, cy1 = max(xs, 0), max(ys, 0), min(xe, width), min(ye, height)
        if cx1 <= cx0 or cy1 <= cy0:
            continue
        canvas[cy0:cy1, cx0:cx1] = patch[cy0 - ys : cy1 - ys, cx0 - xs : cx1 - xs]


def _photometric(
    rng: np.random.Generator, image: np.ndarray, strength: float, strong: bool = False
) -> np.ndarray:
    """Lighting, colour cast, glare, shadow, blur, noise and JPEG on a (H, W, 3) uint8 RGB crop.

    ``strong`` widens the colour cast (±30 % instead of ±15 %), adds saturation changes and
    blur up to σ 1.8 (the training profile of the second-generation embedder).
    """
    height, width = image.shape[:2]
    out = image.astype(np.float32)
    gain = rng.uniform(1 - 0.35 * strength, 1 + 0.25 * strength)
    spread = 0.30 if strong else 0.15
    cast = rng.uniform(1 - spread * strength, 1 + spread * strength, size=3)
    out = out * gain * cast + rng.uniform(-20, 20) * strength
    if strong and rng.random() < 0.5:  # saturation: towards grey or away from it
        grey = out.mean(axis=2, keepdims=True)
        out = grey + (out - grey) * rng.uniform(0.4, 1.5)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    if rng.random() < 0.4 * strength:  # shadow: a soft dark half-plane
        angle = rng.uniform(0, 2 * np.pi)
        d = (xx - width / 2) * np.cos(angle) + (yy - height / 2) * np.sin(angle)
        edge = rng.uniform(-0.4, 0.4) * width
        soft = rng.uniform(1, 0.3 * width)
        mask = 1 / (1 + np.exp(-(d - edge) / soft))
        out = out * (1 - rng.uniform(0.2, 0.55) * mask[..., None])
    if rng.random() < 0.45 * strength:  # glare: a bright soft ellipse, up to a wash-out
        cx, cy = rng.uniform(0, width), rng.uniform(0, height)
        sx, sy = rng.uniform(0.1, 0.8) * width, rng.uniform(0.1, 0.8) * height
        blob = np.exp(-(((xx - cx) / sx) ** 2 + ((yy - cy) / sy) ** 2))
        out = out + rng.uniform(40, 255) * blob[..., None]
    if rng.random() < 0.1 * strength:  # over-exposure
        out = out * rng.uniform(1.2, 1.7)
    if rng.random() < 0.3:
        gamma = rng.uniform(0.7, 1.4)
        out = 255 * (np.clip(out, 0, 255) / 255) ** gamma
    out = np.clip(out, 0, 255).astype(np.uint8)
    max_sigma = 1.8 if strong else 1.0
    sigma = rng.uniform(0, max_sigma * strength) if rng.random() < 0.7 else 0.0
    if sigma > 0.25:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    noise = rng.uniform(0, (10 if strong else 7) * strength)
    if noise > 0.5:
        out = np.clip(out + rng.normal(0, noise, size=out.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        quality = int(rng.integers(20 if strong else 30, 95))
        ok, buffer = cv2.imencode(".jpg", out[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, quality])
        if ok:
            out = np.ascontiguousarray(cv2.imdecode(buffer, cv2.IMREAD_COLOR)[..., ::-1])
    return out


def _table_light(
    rng: np.random.Generator, image: np.ndarray, *, card: bool
) -> tuple[np.ndarray, bool]:
    """A game night's light on a (H, W, 3) uint8 RGB crop, before the camera's own artefacts.

    Each effect is drawn independently: a sleeve's haze (a veil toward white, uneven across the
    card), a narrow specular streak, a deep soft band of shadow (a forearm; sometimes tinted),
    a curled corner (lifted, lit or shaded, the table showing at its tip). Haze and curl only on
    cards (``card``). Returns the crop and whether the phone's sharpening should follow.
    """
    height, width = image.shape[:2]
    out = image.astype(np.float32)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    if card and rng.random() < 0.5:  # sleeve haze, stronger toward one side
        angle = rng.uniform(0, 2 * np.pi)
        ramp = ((xx / width - 0.5) * np.cos(angle) + (yy / height - 0.5) * np.sin(angle)) + 0.5
        haze = rng.uniform(0.03, 0.22) + rng.uniform(0.0, 0.15) * np.clip(ramp, 0, 1)
        out = out * (1 - haze[..., None]) + 255.0 * haze[..., None]
    if rng.random() < 0.35:  # a narrow specular streak across the sleeve
        streak = np.zeros((height, width), np.float32)
        axes = (int(width * rng.uniform(0.3, 1.0)), max(1, int(width * rng.uniform(0.04, 0.16))))
        centre = (int(rng.uniform(0, width)), int(rng.uniform(0, height)))
        cv2.ellipse(streak, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        streak = cv2.GaussianBlur(streak, (0, 0), max(1.0, 0.3 * axes[1]))
        level = rng.uniform(0.45, 0.95)
        out = out * (1 - level * streak[..., None]) + 255.0 * level * streak[..., None]
    if rng.random() < 0.35:  # a forearm's shadow: a soft band, deeper than the half-plane's
        angle = rng.uniform(0, np.pi)
        d = (xx - width * rng.uniform(0.1, 0.9)) * np.cos(angle) + (
            yy - height * rng.uniform(0.1, 0.9)
        ) * np.sin(angle)
        half = rng.uniform(0.15, 0.8) * width
        band = 1 / (1 + np.exp((np.abs(d) - half) / rng.uniform(2.0, 0.25 * width)))
        depth = rng.uniform(0.3, 0.7)
        tint = rng.uniform(0.9, 1.1, size=3) if rng.random() < 0.5 else np.ones(3)
        out = out * (1 - depth * band[..., None] * tint)
    if card and rng.random() < 0.15:  # a curled corner: shaded or lit, the table at its tip
        dx = xx if rng.random() < 0.5 else width - 1 - xx
        dy = yy if rng.random() < 0.5 else height - 1 - yy
        leg = rng.uniform(0.12, 0.3) * (width + height)
        lifted = np.clip(1.0 - (dx + dy) / leg, 0.0, 1.0)
        out = (
            out * (1.0 + float(rng.choice([-1.0, 1.0])) * rng.uniform(0.2, 0.5) * lifted)[..., None]
        )
        tip = (dx + dy) < rng.uniform(0.2, 0.45) * leg
        out[tip] = out[tip] * 0.2 + rng.uniform(40, 200, size=3)
    return np.clip(out, 0, 255).astype(np.uint8), bool(rng.random() < 0.5)


def _finish(
    rng: np.random.Generator,
    crop: np.ndarray,
    strength: float,
    *,
    small: float,
    strong: bool,
    table: float,
    card: bool,
) -> np.ndarray:
    """The light and the camera on a cut crop: table light (share ``table``), then small-photo
    or full-size photometrics, then sometimes the phone's sharpening."""
    sharpen = False
    if table > 0 and rng.random() < table:
        crop, sharpen = _table_light(rng, crop, card=card)
    if small > 0 and rng.random() < small:
        crop = small_photo(rng, crop, strength, strong=strong)
    else:
        crop = _photometric(rng, crop, strength, strong)
    if not sharpen:
        return crop
    return phone_processing(rng, crop, amount=(0.3, 1.2), sigma=(0.7, 1.6))


def _rotation(angle: float) -> np.ndarray:
    """The (2, 2) float32 matrix turning points by ``angle`` radians."""
    return np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]], np.float32)


def _crop_quad(rng: np.random.Generator, box, strength: float) -> np.ndarray:
    """Corners TL, TR, BR, BL of ``box`` with per-corner, offset, scale and rotation error."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    quad = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    centre = quad.mean(axis=0)
    scale = rng.uniform(1 - 0.04 * strength, 1 + 0.07 * strength)
    rot = _rotation(np.deg2rad(rng.normal(0, 2.0 * strength)))
    quad = (quad - centre) @ rot.T * scale + centre
    quad += rng.normal(0, 0.025 * strength, size=2).astype(np.float32) * [w, h]
    quad += rng.normal(0, 0.018 * strength, size=(4, 2)).astype(np.float32) * [w, h]
    return quad


def _hand_laid(rng: np.random.Generator, quad: np.ndarray, box) -> np.ndarray:
    """``quad`` turned about its centre by up to ~6° and shifted a few per cent of the card."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    centre = quad.mean(axis=0)
    rot = _rotation(np.deg2rad(rng.uniform(-6.0, 6.0)))
    shift = rng.uniform(-0.05, 0.05, size=2).astype(np.float32) * [w, h]
    return ((quad - centre) @ rot.T + centre + shift).astype(np.float32)


def _warp(canvas: np.ndarray, quad: np.ndarray, out_size: tuple[int, int]) -> np.ndarray:
    width, height = out_size
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    matrix = cv2.getPerspectiveTransform(quad.astype(np.float32), target)
    return cv2.warpPerspective(
        canvas, matrix, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )


def card_view(
    face: np.ndarray,
    rng: np.random.Generator,
    *,
    out_size: tuple[int, int],
    rotation: int = 0,
    strength: float = 1.0,
    others: list[np.ndarray] | None = None,
    small: float = 0.0,
    strong: bool = False,
    table: float = 0.0,
    hand: float = 0.0,
) -> np.ndarray:
    """One augmented cell crop of a card face, as ``rectify_cells`` would cut it from a photo.

    Parameters
    ----------
    face : (H, W, 3) uint8 RGB
        The upright face, portrait (63 × 88 mm aspect).
    rng : numpy.random.Generator
    out_size : (width, height)
        The crop size.
    rotation : {0, 90, 180, 270}
        The card's rotation in the cell, counter-clockwise degrees. 90 and 270 squeeze the
        landscape face into the portrait cell.
    strength : float
        0 gives a clean crop; 1 the full augmentation.
    others : list of (h, w, 3) uint8 RGB, optional
        Faces that may appear as neighbouring cards at the crop's edges.
    small : float
        Probability that the card is seen as in a small photo (:func:`small_photo`: the card
        22-60 px wide, compressed at that size, then upsampled as the rectifier does).
    strong : bool
        The wider photometric profile of :func:`_photometric`.
    table : float
        Probability of a game night's light on the card (:func:`_table_light`: sleeve haze, a
        specular streak, a forearm's shadow, a curled corner; then sometimes sharpening).
    hand : float
        Probability that the card lies as a hand lays it in its cut: turned up to about 6° and
        a few per cent off, beyond the cut's own error.

    Returns
    -------
    (height, width, 3) uint8 RGB
    """
    face = _rotate(face, rotation)
    width, height = out_size
    # Work at about 2.5x the output so that the warp does not alias more than the real pipeline.
    work_h = int(height * rng.uniform(1.6, 3.0)) if strength > 0 else height * 2
    work_w = int(round(work_h * width / height))
    card = cv2.resize(face, (work_w, work_h), interpolation=cv2.INTER_AREA)
    margin_x, margin_y = int(0.3 * work_w), int(0.3 * work_h)
    canvas = table_texture(rng, (work_w + 2 * margin_x, work_h + 2 * margin_y))
    box = (margin_x, margin_y, margin_x + work_w, margin_y + work_h)
    if strength > 0:
        _neighbour_strip(rng, canvas, box, others or [])
    canvas[margin_y : margin_y + work_h, margin_x : margin_x + work_w] = card
    if strength > 0:
        quad = _crop_quad(rng, box, strength)
        if hand > 0 and rng.random() < hand:
            quad = _hand_laid(rng, quad, box)
    else:
        x0, y0, x1, y1 = box
        quad = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    crop = _warp(canvas, quad, out_size)
    if strength <= 0:
        return crop
    return _finish(rng, crop, strength, small=small, strong=strong, table=table, card=True)


def empty_view(
    rng: np.random.Generator,
    *,
    out_size: tuple[int, int],
    others: list[np.ndarray] | None = None,
    strength: float = 1.0,
    small: float = 0.0,
    strong: bool = False,
    table: float = 0.0,
) -> np.ndarray:
    """One augmented crop of an empty cell: table, sometimes with neighbouring cards' edges.

    ``small``, ``strong`` and ``table`` (streaks and shadows only) as in :func:`card_view`.

    Returns
    -------
    (height, width, 3) uint8 RGB
    """
    width, height = out_size
    work_h = int(height * rng.uniform(1.6, 3.0))
    work_w = int(round(work_h * width / height))
    margin_x, margin_y = int(0.3 * work_w), int(0.3 * work_h)
    canvas = table_texture(rng, (work_w + 2 * margin_x, work_h + 2 * margin_y))
    box = (margin_x, margin_y, margin_x + work_w, margin_y + work_h)
    _neighbour_strip(rng, canvas, box, others or [])
    crop = _warp(canvas, _crop_quad(rng, box, max(strength, 0.5)), out_size)
    return _finish(rng, crop, strength, small=small, strong=strong, table=table, card=False)


def small_photo(
    rng: np.random.Generator,
    crop: np.ndarray,
    strength: float = 1.0,
    *,
    width_px: tuple[float, float] = (22.0, 60.0),
    strong: bool = False,
) -> np.ndarray:
    """A crop as a small photo gives it: light and blur at the card's size in the photo.

    The crop is area-shrunk so the card is ``width_px`` wide (as in a 640 x 480 or 1280 x 720
    in-page camera shot), lit, blurred, noised and JPEG-compressed at that size, then upsampled
    back bilinearly, as ``rectify_cells`` samples a small cell. Returns the crop's shape.
    """
    height, width = crop.shape[:2]
    card_w = float(rng.uniform(*width_px))
    small_w = max(int(round(card_w)), 8)
    small_h = max(int(round(card_w * height / width)), 8)
    if small_w >= width:
        return _photometric(rng, crop, strength, strong)
    shrunk = cv2.resize(crop, (small_w, small_h), interpolation=cv2.INTER_AREA)
    shrunk = _photometric(rng, shrunk, strength, strong)
    return cv2.resize(shrunk, (width, height), interpolation=cv2.INTER_LINEAR)


def _rotate(image: np.ndarray, rotation: int) -> np.ndarray:
    """Rotate (H, W, C) by a multiple of 90° counter-clockwise; 90/270 keep the (H, W) shape."""
    if rotation % 360 == 0:
        return image
    turned = np.ascontiguousarray(np.rot90(image, k=(rotation // 90) % 4))
    if turned.shape[:2] != image.shape[:2]:
        turned = cv2.resize(turned, (image.shape[1], image.shape[0]), interpolation=cv2.INTER_AREA)
    return turned


def rotate_crop(image: np.ndarray, rotation: int) -> np.ndarray:
    """Rotate a (H, W, 3) crop by ``rotation`` degrees counter-clockwise, keeping its shape."""
    if rotation % 90:
        raise ValueError(f"rotation must be a multiple of 90, got {rotation}")
    return _rotate(image, rotation)
