"""Nimalia's photo reads, for the app and the command line: a reserve photo decoded and hashed
once (:func:`load_reserve_photo`, :func:`service.photos.read_photo_file`) and read square by
square (:func:`read_reserve_photo`, on :func:`vision.nimalia.reader.read_reserve`), and whether
the reader is installed on this machine (:func:`reader_available`).

The app and the command line reach the Nimalia reader only through this module and
:mod:`service.nimalia.deck` (the deck packs); the reader's results (``ReserveRead``) are
returned as they are.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

from service.photos import Photo, fit_pixel_cap, load_photo, read_photo_file


def reader_available() -> bool:
    """Whether the Nimalia photo reader can be imported here (its model and OpenCV); without
    it the app offers no photo mode and the squares are tapped."""
    try:
        import vision.nimalia.reader  # noqa: F401
    except Exception:  # noqa: BLE001 - no reader (missing model or OpenCV): no photo mode
        return False
    return True


def load_reserve_photo(data: bytes, *, sha256: str | None = None) -> Photo:
    """An uploaded reserve photo as the app reads it: full size (the reader scales it itself),
    one over the loader's pixel cap reduced first (:func:`service.photos.fit_pixel_cap`),
    decoded once; ``sha256`` is the digest of ``data`` as uploaded (given when the caller has
    it already, so the bytes are hashed once). ``ValueError`` (one line) when ``data`` is not
    a photo the loader can open."""
    reduced, _note = fit_pixel_cap(data)
    if reduced is data and sha256 is None:
        return load_photo(data, max_side=None)
    image = load_photo(reduced, max_side=None).image
    return Photo(data=data, sha256=sha256 or hashlib.sha256(data).hexdigest(), image=image)


def read_reserve_photo(
    photo: Photo | str | os.PathLike[str], pack: str | os.PathLike[str] | None = None
) -> tuple[Any, Photo]:
    """Read a reserve's squares from a photo: ``(ReserveRead, photo)``.

    ``photo`` is a :class:`service.photos.Photo` already loaded (the app's upload,
    :func:`load_reserve_photo`) or a photo file's path (the command line's: read by the one
    loader, long side :data:`vision.loading.DEFAULT_MAX_SIDE`). ``photo.image.scale`` maps the
    read's pixels to the photo's. ``pack``: the deck pack folder, ``None`` for the stand-in
    deck.

    Raises
    ------
    ValueError
        A path that is not a usable photo, or (for a path) a photo OpenCV cannot read: one
        line naming the file.
    """
    if isinstance(photo, Photo):
        from vision.nimalia.reader import read_reserve

        return read_reserve(photo.image.rgb, pack), photo
    import cv2

    from vision.nimalia.reader import read_reserve

    loaded = read_photo_file(photo)
    try:
        return read_reserve(loaded.image.rgb, pack), loaded
    except cv2.error as error:  # never a traceback: one line naming the photo
        detail = str(error).strip().splitlines()[-1][:160] if str(error).strip() else "cv2"
        raise ValueError(f"{os.fspath(photo)}: the photo could not be read ({detail})") from None
