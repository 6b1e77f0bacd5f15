"""Photos as the app shows and keeps them, for every game: PNG and JPEG encodings, the
display-size photo and the stored thumbnail (game-blind)."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

#: Long side of the photo thumbnail stored with a game (JPEG, pixels).
THUMBNAIL_SIDE = 320
#: Long side of the photo shown on the check page (JPEG, pixels); a phone screen needs no more.
DISPLAY_SIDE = 1024


def png_bytes(image_rgb: np.ndarray) -> bytes:
    """Encode an ``(H, W, 3)`` uint8 RGB array as PNG bytes."""
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(image_rgb, dtype=np.uint8)).save(buffer, format="PNG")
    return buffer.getvalue()


def thumbnail_jpeg(image_rgb: np.ndarray, side: int = THUMBNAIL_SIDE, quality: int = 70) -> bytes:
    """A JPEG of an ``(H, W, 3)`` uint8 RGB image, long side at most ``side`` pixels."""
    image = Image.fromarray(np.ascontiguousarray(image_rgb, dtype=np.uint8))
    image.thumbnail((side, side))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue()


def display_jpeg(image_rgb: np.ndarray) -> bytes:
    """The photo (or overlay) as shown in the app: JPEG, long side <= :data:`DISPLAY_SIDE`."""
    return thumbnail_jpeg(image_rgb, DISPLAY_SIDE, quality=85)
