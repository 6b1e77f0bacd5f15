"""Photos for every game (game-blind): the one photo loader of the app and the command line
(:func:`load_photo`, :func:`read_photo_file`: a photo decoded and hashed once per read), the
one list of accepted types, and the PNG and JPEG encodings the app shows and keeps (the
display-size photo, the stored thumbnail)."""

from __future__ import annotations

import hashlib
import io
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

from vision.loading import DEFAULT_MAX_SIDE

#: Photo types the app's upload boxes and the command line take, for every game: what the one
#: loader (``vision.loading``) reads.
PHOTO_TYPES = ["jpg", "jpeg", "png", "webp", "heic", "heif", "avif", "tif", "tiff"]
#: The same list as file suffixes (``.jpg``, ...), for a command telling a photo from a document.
PHOTO_SUFFIXES = tuple(f".{kind}" for kind in PHOTO_TYPES)


class PhotoInputError(ValueError):
    """A photo file given on the command line cannot be used (one line naming it)."""


@dataclass(frozen=True)
class Photo:
    """One photo as read: its bytes, their SHA-256 and the decoded, upright image.

    ``image`` is a :class:`vision.loading.LoadedImage` (``rgb``, ``scale``, ...), decoded once
    with the ``max_side`` the photo was loaded with; ``sha256`` is the hex digest of ``data``.
    """

    data: bytes
    sha256: str
    image: Any


def is_photo_path(path: str | os.PathLike[str]) -> bool:
    """Whether a file name ends in one of :data:`PHOTO_SUFFIXES` (a photo, not a document)."""
    return os.fspath(path).lower().endswith(PHOTO_SUFFIXES)


def load_photo(
    data: bytes,
    *,
    max_side: int | None = DEFAULT_MAX_SIDE,
    name: str | None = None,
    min_short_side: int | None = None,
) -> Photo:
    """Decode and hash photo bytes once (``vision.loading.load_image``: ``max_side`` and
    ``min_short_side`` as there, ``None`` = full size / the loader's minimum for a table).
    ``vision.errors.ImageLoadError`` (a ``ValueError``, one line, starting with ``name`` when
    given) when they are not a usable photo."""
    from vision.errors import ImageLoadError
    from vision.loading import load_image

    limits = {} if min_short_side is None else {"min_short_side": int(min_short_side)}
    try:
        image = load_image(data, max_side=max_side, **limits)
    except ImageLoadError as error:
        raise ImageLoadError(f"{name}: {error}" if name else str(error)) from None
    return Photo(data=data, sha256=hashlib.sha256(data).hexdigest(), image=image)


def read_photo_bytes(path: str | os.PathLike[str], *, what: str = "photo") -> bytes:
    """A photo file's bytes: a regular file of at most ``common.safe_io.MAX_PHOTO_BYTES``
    (devices, FIFOs, folders and links to them refused before any byte is read), else
    :class:`PhotoInputError`."""
    from common.safe_io import MAX_PHOTO_BYTES, SafeFileError, read_bytes

    try:
        return read_bytes(path, max_bytes=MAX_PHOTO_BYTES, what=what)
    except SafeFileError as error:
        raise PhotoInputError(str(error)) from None


def read_photo_file(
    path: str | os.PathLike[str],
    *,
    max_side: int | None = DEFAULT_MAX_SIDE,
    min_short_side: int | None = None,
    what: str = "photo",
) -> Photo:
    """Read a photo file (:func:`read_photo_bytes`) and decode and hash it once
    (:func:`load_photo`); every refusal is a ``ValueError`` whose one line names the file."""
    data = read_photo_bytes(path, what=what)
    return load_photo(data, max_side=max_side, name=os.fspath(path), min_short_side=min_short_side)


def clockwise_corners(points: Any) -> list[tuple[float, float]]:
    """Four corners tapped on a photo, in clockwise order on screen (image ``y`` runs
    downwards) from the top-left one, the one with the smallest ``x + y``: the order the
    readers take (:func:`vision.geometry.order_quad_clockwise`)."""
    from vision.geometry import order_quad_clockwise

    return [(float(x), float(y)) for x, y in order_quad_clockwise(points)]


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
