"""Light and sensor of a synthetic photo (gradient, colour cast, cast shadows, glare, blur, noise)
and its JPEG encoding.

Game-blind: used by both games' scene renderers and training recipes.
"""

from __future__ import annotations

import math

import cv2
import numpy as np


def apply_light_and_sensor(
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
