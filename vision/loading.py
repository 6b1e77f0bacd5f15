"""Photo bytes in, an upright RGB array out (step 1 of the pipeline).

Accepts exactly JPEG (baseline, progressive, arithmetic-coded, and the MPO flavour many phones
write), PNG, WebP, HEIC/HEIF, AVIF and TIFF; the format is judged from the file's first bytes
before any decoder runs, and Pillow is only allowed that format's plugin, so an EPS or PDF
renamed ``.jpg`` never reaches Ghostscript and a GIF, BMP or TGA is refused by name. Applies the
EXIF orientation; normalises grayscale, palette, CMYK, 16-bit and alpha images to 8-bit RGB.
Refuses, with one clear line, anything that is not a usable photo: empty, oversized
(:data:`MAX_PHOTO_BYTES`) or non-image bytes, truncated files, images over the pixel cap (checked
from the header, before any pixel is decoded, so a decompression bomb is rejected in
milliseconds) and images too small to hold a grid of cards. Files are read through
:mod:`common.safe_io`: regular files only, size checked before reading.

Arithmetic-coded JPEGs (a valid JPEG coding that Pillow's libjpeg build refuses) are decoded by
OpenCV's libjpeg, at a reduced size like Pillow's draft mode, with the EXIF orientation applied
from the header Pillow read.

Large JPEGs are decoded at a reduced size in the DCT domain (Pillow's ``draft``), which is where
most of the time of a naive pipeline goes: a 12 MP JPEG decodes in ~35 ms at 1/2 scale against
~180 ms at full size on one core.

Animated or multi-frame files (GIF, animated WebP, MPO, HEIF collections) use their first
(primary) frame: phones write MPO JPEGs and Live-Photo HEICs, so refusing multi-frame files
would refuse ordinary photos.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import sys
import tempfile
import threading
import warnings
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from common.safe_io import MAX_PHOTO_BYTES, SafeFileError, read_bytes
from vision.errors import ImageLoadError

#: Shortest side (pixels) below which an image cannot hold 20 legible cards.
MIN_SHORT_SIDE = 200

#: Default cap on decoded pixels (50 MP); a 100 MP or crafted file is refused from its header.
MAX_PIXELS = 50_000_000
#: Longest side over shortest side a photo may have (a phone panorama is about 4-8).
MAX_ASPECT = 12

#: Default long side of the returned array. 12 MP phone JPEGs decode at 1/2 scale in the DCT
#: domain (2016 x 1512) and are used as decoded (see DRAFT_SLACK); larger decodes are
#: area-resized to this. Grid finding works at ~1000 px and 20 card crops need far less.
DEFAULT_MAX_SIDE = 1600

_heif_registered = False

#: The accepted formats, as messages name them.
ACCEPTED_FORMATS = "JPEG, PNG, WebP, HEIC/HEIF, AVIF or TIFF"
#: Sniffed format -> the only Pillow plugins allowed to open it.
_PILLOW_PLUGINS: dict[str, tuple[str, ...]] = {
    "JPEG": ("JPEG",),  # MPO files are opened by the JPEG plugin
    "PNG": ("PNG",),
    "WEBP": ("WEBP",),
    "TIFF": ("TIFF",),
    "HEIF": ("HEIF", "AVIF"),
    "AVIF": ("AVIF", "HEIF"),
}
#: ISO-BMFF ``ftyp`` brands of HEIF still images (AVIF ones separately).
_HEIF_BRANDS = frozenset(
    {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"hevm", b"hevs", b"mif1", b"msf1"}
)
_AVIF_BRANDS = frozenset({b"avif", b"avis"})
#: Formats recognised by their first bytes only to be named in the refusal.
_REFUSED_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%!PS", "an EPS (PostScript) file"),
    (b"\xc5\xd0\xd3\xc6", "an EPS (PostScript) file"),
    (b"%PDF", "a PDF document"),
    (b"8BPS", "a Photoshop (PSD) file"),
    (b"\x00\x00\x00\x0cjP  ", "a JPEG 2000 image"),
    (b"\xffO\xffQ", "a JPEG 2000 image"),
    (b"BM", "a BMP image"),
)
#: JPEG frame markers (SOF9-SOF15 less DHT-like ones) of arithmetic-coded JPEGs.
_ARITHMETIC_SOF = frozenset({0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF})
_SOF_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


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


def sniff_format(data: bytes) -> str | None:
    """The accepted format ``data`` starts like (``"JPEG"``, ``"PNG"``, ``"WEBP"``, ``"TIFF"``,
    ``"HEIF"``, ``"AVIF"``), or ``None``: judged from the first bytes only."""
    if data[:3] == b"\xff\xd8\xff":
        return "JPEG"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "PNG"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "TIFF"
    if data[4:8] == b"ftyp" and len(data) >= 16:
        size = int.from_bytes(data[:4], "big")
        end = min(max(size, 16), 256, len(data))
        brands = {data[8:12]} | {data[i : i + 4] for i in range(16, end - 3, 4)}
        if brands & _AVIF_BRANDS and data[8:12] not in _HEIF_BRANDS:
            return "AVIF"
        if brands & (_HEIF_BRANDS | _AVIF_BRANDS):
            return "HEIF"
    return None


def pillow_formats(data: bytes) -> tuple[str, ...]:
    """The Pillow plugins allowed to open ``data`` (its sniffed format's), HEIF registered.

    For callers that decode with Pillow themselves (e.g. card-face images).

    Raises
    ------
    ImageLoadError
        ``data`` is not one of the accepted formats (judged from its first bytes).
    """
    if not data:
        raise ImageLoadError("empty file: no image data")
    sniffed = sniff_format(data)
    if sniffed is None:
        _refuse_unaccepted(data)
    if sniffed in ("HEIF", "AVIF"):
        _register_heif()
    return _PILLOW_PLUGINS[sniffed]


def _refuse_unaccepted(data: bytes) -> None:
    """Raise the refusal of bytes that are not one of the accepted formats."""
    for magic, what in _REFUSED_MAGIC:
        if data.startswith(magic):
            raise ImageLoadError(
                f"{what}, not an accepted photo format (expected a {ACCEPTED_FORMATS} photo)"
            )
    raise ImageLoadError(f"not an image (expected a {ACCEPTED_FORMATS} photo)")


def _jpeg_frame_marker(data: bytes) -> int | None:
    """The JPEG's frame (SOFn) marker byte, from the segment headers; ``None`` if not found."""
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in _SOF_MARKERS:
            return marker
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        if marker in (0xD9, 0xDA):  # end of image or start of scan before any frame
            return None
        i += 2 + int.from_bytes(data[i + 2 : i + 4], "big")
    return None


def _open_header(data: bytes, fmt: str) -> Image.Image:
    """Open the image lazily with ``fmt``'s plugins only: Pillow reads the header, no pixels."""
    with warnings.catch_warnings():
        # Pillow's own bomb check warns (or raises) against its global limit; we apply ours.
        # Its other warnings (e.g. "Corrupt EXIF data") would be stray stderr lines.
        warnings.simplefilter("ignore")
        try:
            return Image.open(io.BytesIO(data), formats=_PILLOW_PLUGINS[fmt])
        except Image.DecompressionBombError as error:
            raise ImageLoadError(
                "image is over the pixel limit, refused as a possible decompression bomb "
                f"({_one_line(error)})"
            ) from None
        except UnidentifiedImageError:
            raise ImageLoadError(
                f"not an image (starts like {fmt} but is not one; expected a "
                f"{ACCEPTED_FORMATS} photo)"
            ) from None
        except Exception as error:  # a decoder's header parser on hostile bytes: any error
            raise ImageLoadError(f"unreadable image header ({_one_line(error)})") from None


def _oriented_size(img: Image.Image, width: int, height: int) -> tuple[int, int]:
    """``(width, height)`` of a ``width`` x ``height`` image after its EXIF orientation."""
    orientation = _exif_orientation(img)
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
    max_bytes: int = MAX_PHOTO_BYTES,
    min_short_side: int = MIN_SHORT_SIDE,
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
    max_bytes : int, optional
        Refuse files larger than this before looking at them.
    min_short_side : int, optional
        Refuse images whose short side is under this many pixels (:data:`MIN_SHORT_SIDE`
        for a photo of a table; a scan of one card face may be smaller).

    Returns
    -------
    LoadedImage
        ``rgb`` is ``(H, W, 3)`` uint8 RGB.

    Raises
    ------
    ImageLoadError
        Empty, over ``max_bytes``, not one of the accepted formats (judged from the first
        bytes), truncated or corrupt, over ``max_pixels``, or shorter than ``MIN_SHORT_SIDE``
        pixels on its short side.
    """
    if max_side is not None and max_side < MIN_SHORT_SIDE:
        raise ValueError(f"max_side must be at least {MIN_SHORT_SIDE}, got {max_side}")
    if not data:
        raise ImageLoadError("empty file: no image data")
    if len(data) > max_bytes:
        raise ImageLoadError(
            f"the photo is {len(data) / 2**20:.1f} MB, over the {max_bytes / 2**20:.0f} MB limit"
        )
    sniffed = sniff_format(data)
    if sniffed is None:
        _refuse_unaccepted(data)
    if sniffed in ("HEIF", "AVIF"):
        _register_heif()
    img = _open_header(data, sniffed)
    fmt = img.format or sniffed
    width, height = img.size
    if width * height > max_pixels:
        raise ImageLoadError(
            f"image is {width}x{height} ({width * height / 1e6:.0f} MP), over the "
            f"{max_pixels / 1e6:.0f} MP limit"
        )
    if min(width, height) < min_short_side:
        need = "to see 20 cards" if min_short_side >= MIN_SHORT_SIDE else "for a card face"
        raise ImageLoadError(
            f"image is only {width}x{height} pixels; at least {min_short_side} px on the "
            f"short side are needed {need}"
        )
    if max(width, height) > MAX_ASPECT * min(width, height):
        raise ImageLoadError(
            f"image is {width}x{height} pixels, a strip more than {MAX_ASPECT} times longer "
            "than wide: not a photo of a table"
        )
    if sniffed == "JPEG" and _jpeg_frame_marker(data) in _ARITHMETIC_SOF:
        return _load_arithmetic_jpeg(data, img, max_side=max_side)
    if max_side is not None and fmt in ("JPEG", "MPO") and max(width, height) > max_side:
        factor = max_side / max(width, height)
        img.draft("RGB", (math.ceil(width * factor), math.ceil(height * factor)))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            img.load()
            upright = ImageOps.exif_transpose(img)
    except Image.DecompressionBombError as error:
        raise ImageLoadError(f"image is over the pixel limit ({_one_line(error)})") from None
    except Exception as error:  # OSError, SyntaxError, struct.error, KeyError, MemoryError...
        raise ImageLoadError(f"truncated or corrupt image file ({_one_line(error)})") from None
    original_size = _oriented_size(img, width, height)
    return _finish(_to_rgb_array(upright), original_size, fmt, max_side=max_side)


def _finish(
    rgb: np.ndarray, original_size: tuple[int, int], fmt: str, *, max_side: int | None
) -> LoadedImage:
    """Area-resize an upright decode down to ``max_side`` where needed; wrap it up."""
    width, height = original_size
    if max_side is not None and max(rgb.shape[:2]) > _resize_limit(max_side, fmt, width, height):
        import cv2  # local: keeps `import vision.loading` light

        factor = max_side / max(rgb.shape[:2])
        size = (round(rgb.shape[1] * factor), round(rgb.shape[0] * factor))
        rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
    return LoadedImage(
        rgb=np.ascontiguousarray(rgb),
        original_size=original_size,
        scale=rgb.shape[1] / original_size[0],
        format=fmt,
    )


def _exif_orientation(img: Image.Image) -> int:
    """The EXIF orientation tag (1-8); 1 when absent or damaged (with no warning printed)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = int(img.getexif().get(0x0112, 1))
    except Exception:  # a damaged EXIF block only loses the orientation
        return 1
    return value if 1 <= value <= 8 else 1


def _orient(rgb: np.ndarray, orientation: int) -> np.ndarray:
    """Apply an EXIF orientation (1-8) to an array, as ``ImageOps.exif_transpose`` does."""
    if orientation == 2:
        return rgb[:, ::-1]
    if orientation == 3:
        return rgb[::-1, ::-1]
    if orientation == 4:
        return rgb[::-1]
    if orientation == 5:
        return rgb.transpose(1, 0, 2)
    if orientation == 6:
        return np.rot90(rgb, k=-1)
    if orientation == 7:
        return rgb.transpose(1, 0, 2)[::-1, ::-1]
    if orientation == 8:
        return np.rot90(rgb, k=1)
    return rgb


_STDERR_LOCK = threading.Lock()


class _Captured:
    text = ""


@contextlib.contextmanager
def _captured_stderr():
    """Capture what C code writes to file descriptor 2 (libjpeg's warnings) while inside.

    libjpeg reports corrupt data as a warning printed on stderr and still returns pixels;
    capturing it both keeps the command line's stderr to one line and lets the loader refuse
    the file, as Pillow does for baseline JPEGs. Serialised by a lock; another thread's write
    to fd 2 in that window (milliseconds, arithmetic JPEGs only) lands in the capture.
    """
    captured = _Captured()
    with _STDERR_LOCK, tempfile.TemporaryFile() as sink:
        try:
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):
            pass
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)
        try:
            yield captured
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            captured.text = sink.read(4096).decode("utf-8", "replace")


def _load_arithmetic_jpeg(data: bytes, img: Image.Image, *, max_side: int | None) -> LoadedImage:
    """Decode an arithmetic-coded JPEG with OpenCV's libjpeg (Pillow's refuses the coding).

    The header (size, pixel cap, EXIF) was read by Pillow. Like Pillow's draft mode, the DCT
    decode is reduced by 2, 4 or 8 while the result stays at least ``max_side`` long.
    """
    import cv2  # local: keeps `import vision.loading` light

    width, height = img.size
    scan = data.find(b"\xff\xda")
    if scan < 0 or data.rfind(b"\xff\xd9") < scan:
        raise ImageLoadError("truncated or corrupt image file (no end-of-image marker)")
    flags = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2}
    flags |= {4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}
    reduce = 1
    if max_side is not None:
        for factor in (8, 4, 2):
            if math.ceil(max(width, height) / factor) >= max_side:
                reduce = factor
                break
    with _captured_stderr() as messages:
        try:
            bgr = cv2.imdecode(
                np.frombuffer(data, np.uint8), flags[reduce] | cv2.IMREAD_IGNORE_ORIENTATION
            )
        except cv2.error as error:
            raise ImageLoadError(f"truncated or corrupt image file ({_one_line(error)})") from None
    warning = _one_line(messages.text)
    if bgr is None or bgr.ndim != 3 or bgr.shape[2] != 3 or "Corrupt JPEG" in warning:
        detail = warning[:200] or "arithmetic-coded JPEG"
        raise ImageLoadError(f"truncated or corrupt image file ({detail})")
    orientation = _exif_orientation(img)
    rgb = _orient(bgr[:, :, ::-1], orientation)
    original_size = (height, width) if orientation in (5, 6, 7, 8) else (width, height)
    return _finish(np.ascontiguousarray(rgb), original_size, "JPEG", max_side=max_side)


def load_image_file(
    path: str | os.PathLike[str],
    *,
    max_side: int | None = DEFAULT_MAX_SIDE,
    max_pixels: int = MAX_PIXELS,
) -> LoadedImage:
    """Read a photo file and decode it with :func:`load_image`.

    Raises
    ------
    ImageLoadError
        The file cannot be read, is not a regular file (folder, FIFO, device, or a link to
        one), is over :data:`MAX_PHOTO_BYTES` (judged before reading), or as
        :func:`load_image`; the message names the file.
    """
    try:
        data = read_bytes(path, max_bytes=MAX_PHOTO_BYTES, what="photo")
    except SafeFileError as error:
        raise ImageLoadError(str(error)) from None
    try:
        return load_image(data, max_side=max_side, max_pixels=max_pixels)
    except ImageLoadError as error:
        raise ImageLoadError(f"{os.fspath(path)}: {error}") from None
