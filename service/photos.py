"""Photos as the app shows and keeps them, for every game: PNG and JPEG encodings, the
display-size photo and the stored thumbnail (game-blind)."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

#: Photo types the app's upload boxes take, for every game: what the one loader
#: (``vision.loading``) reads.
PHOTO_TYPES = ["jpg", "jpeg", "png", "webp", "heic", "heif", "avif", "tif", "tiff"]
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


#: Long side a photo over the pixel cap is reduced to (far above what the reader decodes to).
REDUCED_SIDE = 4096
#: Largest photo :func:`fit_pixel_cap` reduces (pixels, from the header): a 108 MP phone photo
#: is reduced, a crafted 1-gigapixel header is left for the loader to refuse.
REDUCE_UP_TO_PIXELS = 160_000_000


def fit_pixel_cap(data: bytes, max_pixels: int | None = None) -> tuple[bytes, str]:
    """A photo over the reader's pixel cap, reduced to just under it; ``(bytes, note)``.

    Phones shoot 50-108 MP photos; the loader (``vision.loading``) refuses anything over its
    cap (50 MP) from the header, so such a photo is decoded here (a JPEG at a reduced DCT
    scale where it can be), turned upright from its EXIF orientation, scaled to a long side of
    :data:`REDUCED_SIDE` (and under ``max_pixels``) and re-encoded as a JPEG (quality 92). Any
    other photo — within the cap, over :data:`REDUCE_UP_TO_PIXELS`, or not one Pillow can
    open — is returned unchanged, with an empty note, for the loader to read or refuse with
    its own message.

    Returns
    -------
    (bytes, str)
        The photo to read and, when it was reduced, a sentence saying so
        (``"The photo is 8200 × 6200 px (51 MP): reduced to 49 MP to read it."``).
    """
    from PIL import ImageOps

    from vision.loading import MAX_PIXELS, _register_heif, sniff_format

    cap = MAX_PIXELS if max_pixels is None else int(max_pixels)
    if sniff_format(data) in ("HEIF", "AVIF"):
        _register_heif()
    try:
        image = Image.open(io.BytesIO(data))
        width, height = image.size
    except Exception:  # noqa: BLE001 - not ours to judge: the loader says what is wrong
        return data, ""
    if width * height <= cap or width * height > REDUCE_UP_TO_PIXELS:
        return data, ""
    scale = min((cap * 0.98 / (width * height)) ** 0.5, REDUCED_SIDE / max(width, height))
    size = (max(1, int(width * scale)), max(1, int(height * scale)))
    try:
        if image.format in ("JPEG", "MPO"):
            image.draft("RGB", size)  # decode at 1/2, 1/4 or 1/8 when that is still >= size
        image = ImageOps.exif_transpose(image.convert("RGB"))
        shrink = min(
            (cap * 0.98 / (image.size[0] * image.size[1])) ** 0.5,
            REDUCED_SIDE / max(image.size),
        )
        target = tuple(max(1, int(side * min(1.0, shrink))) for side in image.size)
        image = image.resize(target, Image.Resampling.BOX)
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=92)
    except Exception:  # noqa: BLE001 - a photo Pillow cannot decode: the loader's message
        return data, ""
    note = (
        f"The photo is {width} × {height} px ({width * height / 1e6:.0f} MP): reduced to "
        f"{target[0] * target[1] / 1e6:.0f} MP to read it."
    )
    return out.getvalue(), note
