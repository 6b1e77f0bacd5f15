"""Photo bytes in, an upright RGB array out (step 1 of the pipeline).

Accepts JPEG (including the MPO flavour many phones write), PNG, WebP, HEIC/HEIF and the other
still formats Pillow reads; applies the EXIF orientation; normalises grayscale, palette, CMYK,
16-bit and alpha images to 8-bit RGB. Refuses, with one clear line, anything that is not a usable
photo: empty or non-image bytes, truncated files, images over the pixel cap (checked from the
header, before any pixel is decoded, so a decompression bomb is rejected in milliseconds) and
images too small to hold a 4x5 terrarium.

Large JPEGs are decoded at a reduced size in the DCT domain (Pillow's ``draft``), which is where
most of the time of a naive pipeline goes: a 12 MP JPEG decodes in ~35 ms at 1/2 scale against
~180 ms at full size on one core.

Animated or multi-frame files (GIF, animated WebP, MPO, HEIF collections) use their first
(primary) frame: phones write MPO JPEGs and Live-Photo HEICs, so refusing multi-frame files
would refuse ordinary photos.
"""

from __future__ import annotations

import io
import math
import os
import warnings
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from vision.errors import ImageLoadError

#: Shortest side (pixels) below which an image cannot hold 20 legible cards.
MIN_SHORT_SIDE = 200

#: Default cap on decoded pixels (50 MP); a 100 MP or crafted file is refused from its header.
MAX_PIXELS = 50_000_000

#: Default long side of the returned array. 12 MP phone JPEGs decode at 1/2 scale in the DCT
#: domain (2016 x 1512) and are used as decoded (see DRAFT_SLACK); larger decodes are
#: area-resized to this. Grid finding works at ~1000 px and 20 card crops need far less.
DEFAULT_MAX_SIDE = 1600

_heif_registered = False


@dataclass(frozen=True)
class LoadedImage:
    """A decoded, upright photo.

    Attributes
    ----------
    rgb : np.ndarray
        ``(H, W, 3)`` uint8, RGB, EXIF orientation applied, C-contiguous.
    original_size : tuple of int
        ``(width, height)`` of the full-resolution image after EXIF orientation.
    scale : float
        ``rgb`` width divided by the original width (1.0 when not downscaled). A point
        ``(x, y)`` in ``rgb`` is ``(x / scale, y / scale)`` in the original photo.
    format : str
        Pillow's format name, e.g. ``"JPEG"``, ``"PNG"``, ``"WEBP"``, ``"HEIF"``, ``"MPO"``.
    """

    rgb: np.ndarray
    original_size: tuple[int, int]
    scale: float
    format: str


def _register_heif() -> None:
    """Register pillow-heif's HEIF/AVIF opener with Pillow, once, on first use."""
    global _heif_registered
    if _heif_registered:
        return
    try:
        import pillow_heif
    except ImportError:  # pragma: no cover - pillow-heif is a runtime dependency
        return
    pillow_heif.register_heif_opener()
    _heif_registered = True


def _one_line(error: BaseException) -> str:
    """A decoder's error text on one line (libheif's messages span several)."""
    return " ".join(str(error).split())


def _open_header(data: bytes) -> Image.Image:
    """Open the image lazily: Pillow reads only the header here, no pixel data."""
    with warnings.catch_warnings():
        # Pillow's own bomb check warns (or raises) against its global limit; we apply ours.
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            return Image.open(io.BytesIO(data))
        except Image.DecompressionBombError as error:
            raise ImageLoadError(
                "image is over the pixel limit, refused as a possible decompression bomb "
                f"({_one_line(error)})"
            ) from None
        except UnidentifiedImageError:
            raise ImageLoadError(
                "not an image (expected a JPEG, PNG, WebP or HEIC photo)"
            ) from None
        except (OSError, SyntaxError, ValueError, EOFError) as error:
            raise ImageLoadError(f"unreadable image header ({_one_line(error)})") from None


def _oriented_size(img: Image.Image, width: int, height: int) -> tuple[int, int]:
    """``(width, height)`` of a ``width`` x ``height`` image after its EXIF orientation."""
    try:
        orientation = img.getexif().get(0x0112, 1)
    except Exception:  # a damaged EXIF block only loses the orientation
        orientation = 1
    if orientation in (5, 6, 7, 8):
        return height, width
    return width, height


def _to_rgb_array(img: Image.Image) -> np.ndarray:
    """Normalise any Pillow mode to a ``(H, W, 3)`` uint8 RGB array.

    16-bit and 32-bit integer modes keep their high byte; float modes are clipped to 0..255
    (high-dynamic-range photos are not expected); alpha is composited over white.
    """
    mode = img.mode
    if mode in ("I;16", "I;16L", "I;16B", "I;16N", "I"):
        values = np.asarray(img).astype(np.uint32)
        peak = int(values.max()) if values.size else 0
        shift = 8 if mode.startswith("I;16") or peak > 255 else 0
        gray = np.clip(values >> shift, 0, 255).astype(np.uint8)
        return np.ascontiguousarray(np.repeat(gray[:, :, None], 3, axis=2))
    if mode == "F":
        gray = np.clip(np.asarray(img), 0, 255).astype(np.uint8)
        return np.ascontiguousarray(np.repeat(gray[:, :, None], 3, axis=2))
    if mode in ("RGBA", "LA", "PA", "RGBa", "La") or (mode == "P" and "transparency" in img.info):
        rgba = img.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        img = Image.alpha_composite(white, rgba)
    if img.mode != "RGB":
        img = img.convert("RGB")
    return np.ascontiguousarray(np.asarray(img, dtype=np.uint8))


#: A JPEG decoded at reduced size in the DCT domain is kept as it is when its long side is
#: within this factor of ``max_side``: area-resampling 2016 -> 1600 px costs ~20 ms, more than
#: the extra pixels cost the grid finder (its working copy halves them exactly).
DRAFT_SLACK = 1.3


def _resize_limit(max_side: int, fmt: str, width: int, height: int) -> float:
    """Long side above which the decoded array is area-resized down to ``max_side``."""
    drafted = fmt in ("JPEG", "MPO") and max(width, height) > max_side
    return max_side * DRAFT_SLACK if drafted else max_side


def load_image(
    data: bytes,
    *,
    max_side: int | None = DEFAULT_MAX_SIDE,
    max_pixels: int = MAX_PIXELS,
) -> LoadedImage:
    """Decode photo bytes to an upright RGB array, refusing unusable files.

    Parameters
    ----------
    data : bytes
        The file as uploaded (JPEG, PNG, WebP, HEIC/HEIF, ...).
    max_side : int or None, optional
        Long side of the returned array; larger images are downscaled (JPEGs in the DCT
        domain first, then area-resized -- a JPEG decoded to within :data:`DRAFT_SLACK` of
        ``max_side`` is kept as decoded). ``None`` keeps the full resolution.
    max_pixels : int, optional
        Refuse images with more pixels than this, judged from the header before decoding.

    Returns
    -------
    LoadedImage
        ``rgb`` is ``(H, W, 3)`` uint8 RGB.

    Raises
    ------
    ImageLoadError
        Empty, not an image, truncated or corrupt, over ``max_pixels``, or shorter than
        ``MIN_SHORT_SIDE`` pixels on its short side.
    """
    if max_side is not None and max_side < MIN_SHORT_SIDE:
        raise ValueError(f"max_side must be at least {MIN_SHORT_SIDE}, got {max_side}")
    if not data:
        raise ImageLoadError("empty file: no image data")
    _register_heif()
    img = _open_header(data)
    fmt = img.format or "unknown"
    width, height = img.size
    if width * height > max_pixels:
        raise ImageLoadError(
            f"image is {width}x{height} ({width * height / 1e6:.0f} MP), over the "
            f"{max_pixels / 1e6:.0f} MP limit"
        )
    if min(width, height) < MIN_SHORT_SIDE:
        raise ImageLoadError(
            f"image is only {width}x{height} pixels; at least {MIN_SHORT_SIDE} px on the "
            "short side are needed to see 20 cards"
        )
    if max_side is not None and fmt in ("JPEG", "MPO") and max(width, height) > max_side:
        factor = max_side / max(width, height)
        img.draft("RGB", (math.ceil(width * factor), math.ceil(height * factor)))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img.load()
            upright = ImageOps.exif_transpose(img)
    except Image.DecompressionBombError as error:
        raise ImageLoadError(f"image is over the pixel limit ({_one_line(error)})") from None
    except (OSError, SyntaxError, ValueError, EOFError, IndexError, MemoryError) as error:
        raise ImageLoadError(f"truncated or corrupt image file ({_one_line(error)})") from None
    original_size = _oriented_size(img, width, height)
    rgb = _to_rgb_array(upright)
    if max_side is not None and max(rgb.shape[:2]) > _resize_limit(max_side, fmt, width, height):
        import cv2  # local: keeps `import vision.loading` light

        factor = max_side / max(rgb.shape[:2])
        size = (round(rgb.shape[1] * factor), round(rgb.shape[0] * factor))
        rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
    return LoadedImage(
        rgb=rgb,
        original_size=original_size,
        scale=rgb.shape[1] / original_size[0],
        format=fmt,
    )


def load_image_file(
    path: str | os.PathLike[str],
    *,
    max_side: int | None = DEFAULT_MAX_SIDE,
    max_pixels: int = MAX_PIXELS,
) -> LoadedImage:
    """Read a photo file and decode it with :func:`load_image`.

    Raises
    ------
    OSError
        The file cannot be read.
    ImageLoadError
        As :func:`load_image`; the message names the file.
    """
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        return load_image(data, max_side=max_side, max_pixels=max_pixels)
    except ImageLoadError as error:
        raise ImageLoadError(f"{os.fspath(path)}: {error}") from None
