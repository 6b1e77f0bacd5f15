"""Plane-aligned canvases of a synthetic photo (the cards, their shadows, things on the table)
and the warp that pulls the table and card layers through the lens into the image.

Game-blind: used by both games' scene renderers.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.synth.camera import undistort_points
from vision.synth.table import backdrop

MAX_CARD_CANVAS_PX = 6.0e6


MAP_STEP = 4  # remap maps are computed every MAP_STEP pixels and interpolated


class Canvas:
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


def card_canvas(
    zone_lo: np.ndarray, zone_hi: np.ndarray, need: float, max_px_per_mm: float
) -> Canvas:
    """An empty canvas over the plane box ``zone_lo``-``zone_hi`` (mm) at 1.1 x ``need`` px/mm,
    at most ``max_px_per_mm`` and :data:`MAX_CARD_CANVAS_PX` pixels."""
    area = float(np.prod(np.maximum(zone_hi - zone_lo, 1)))
    s_cards = min(need * 1.1, max_px_per_mm, math.sqrt(MAX_CARD_CANVAS_PX / area))
    c_w = max(2, int(math.ceil((zone_hi[0] - zone_lo[0]) * s_cards)))
    c_h = max(2, int(math.ceil((zone_hi[1] - zone_lo[1]) * s_cards)))
    return Canvas(float(zone_lo[0]), float(zone_lo[1]), c_w, c_h, s_cards)


def warp_layers(
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
    step = MAP_STEP
    # n samples placed where cv2.resize(INTER_LINEAR, n -> w) puts them (it aligns pixel
    # centres: output x reads source (x + 0.5) * n / w - 0.5), so the resized map is exact there
    nx, ny = math.ceil(w / step), math.ceil(h / step)
    gx = (np.arange(nx) + 0.5) * (w / nx) - 0.5
    gy = (np.arange(ny) + 0.5) * (h / ny) - 0.5
    xx, yy = np.meshgrid(gx, gy)
    pts = np.column_stack([xx.ravel(), yy.ravel()])
    und = undistort_points(pts, size, *lens)
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
    base = over(table_img, backdrop(rng, size))
    c_rgba, c_origin, c_s = cards
    card_img = cv2.remap(
        c_rgba, full_map(c_origin, c_s), None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )
    return over(card_img, base)


def over(top_pm: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """Premultiplied ``(H, W, 4) uint8`` over opaque ``(H, W, 3) uint8``."""
    inv = cv2.cvtColor(cv2.bitwise_not(top_pm[..., 3]), cv2.COLOR_GRAY2RGB)
    return cv2.add(
        cv2.cvtColor(top_pm, cv2.COLOR_RGBA2RGB), cv2.multiply(bottom, inv, scale=1 / 255)
    )


def rounded_card_mask(width: int, height: int, radius_px: float) -> np.ndarray:
    """``(height, width) uint8`` mask, 255 inside a rectangle with rounded corners."""
    mask = np.zeros((height, width), np.uint8)
    r = int(round(max(radius_px, 0)))
    if r == 0:
        mask[:] = 255
        return mask
    cv2.rectangle(mask, (r, 0), (width - 1 - r, height - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (width - 1, height - 1 - r), 255, -1)
    for cx, cy in (
        (r, r),
        (width - 1 - r, r),
        (r, height - 1 - r),
        (width - 1 - r, height - 1 - r),
    ):
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask
