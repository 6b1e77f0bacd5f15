"""Read a Nimalia reserve from a photo: lattice, then every square by embedder + gallery.

:func:`read_reserve` is the one entry point (the CLI and the app call it)::

    result = read_reserve(rgb)                 # the stand-in deck's gallery
    result = read_reserve(rgb, pack="my-deck") # a deck enrolled from one image per card
    result.squares        # rows of tokens cropped to the reserve's bounding box ("." empty)
    result.cells          # per square: token, confidence, check, top kinds
    result.needs_check    # the reserve as a whole should be checked by the player
    result.lattice_quads  # image quads of every square (for overlays)

Recognition: every lattice cell is cut out of the photo through the lattice's homography (a 64 x
64 square crop), embedded with the card embedder and the Nimalia square embedder side by side
(:mod:`vision.nimalia.squares`) and compared with a **square gallery**: prototypes of the 14
square kinds as they look at each quarter turn (a quarter turn of an otter square shows the
other river, so the river is read as part of the kind) plus table (``"."``). The gallery is
built from one image per card: each card is turned 4 times and each of its squares is cut out
with small offsets, scale and light changes (:func:`build_gallery`); the card data comes from
:mod:`scoring.nimalia.cards` only.

A cell's score per class is its cosine similarity to the nearest prototype of the class; its
confidence is the margin to the best other class. ``check`` flags a square whose margin is under
:data:`CHECK_MARGIN`; ``needs_check`` flags a reserve with any checked square, a low lattice
score, or an extent over 6 x 6 (thresholds calibrated on held-out scenes, see
``docs/nimalia-vision.md``).

The reader is split along its seams (this module keeps the entry points and re-exports the
public names, so ``vision.nimalia.reader`` stays the one door):

- :mod:`vision.nimalia.gallery`: the square gallery, card faces, deck packs (enrol, load);
- :mod:`vision.nimalia.hypotheses`: :class:`ReserveReader`, lattice hypotheses and their search;
- :mod:`vision.nimalia.downscale`: the photo downscales squares are read from, edge snapping;
- :mod:`vision.nimalia.decide`: from per-cell scores to a read, with its checks;
- :mod:`vision.nimalia.extent`: whole cards, stray and enclosed squares, pale edges;
- :mod:`vision.nimalia.checks`: the calibrated thresholds and the reasons a read gives;
- :mod:`vision.nimalia.result`: :class:`ReserveRead` / :class:`SquareRead`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.nimalia.gallery import (
    CLASSES,
    CROP,
    DEFAULT_GALLERY,
    NimaliaPackError,
    SquareGallery,
    _photometric,  # models/train_nimalia_squares.py
    build_gallery,
    card_face,
    card_faces,
    card_outline,
    enroll_pack,
    gallery_crops,
    load_gallery,
)
from vision.nimalia.hypotheses import ReserveReader
from vision.nimalia.result import ReserveRead, SquareRead
from vision.nimalia.squares import square_embedder

_READERS: dict[tuple, ReserveReader] = {}


def cached_reader(pack: str | Path | None = None) -> ReserveReader:
    """The reader of ``pack`` (``None``: the stand-in deck), loaded once per process.

    The cache key includes the pack's gallery file as it is now (inode, size, modification
    time): a deck enrolled again in the same folder — by this process or another server — is
    loaded afresh, never read with the gallery it replaced.
    """
    if pack is None:
        key: tuple = ("",)
    else:
        folder = Path(pack).resolve()
        try:
            st = (folder / "gallery.npz").stat()
            key = (str(folder), st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            key = (str(folder),)  # no gallery: ReserveReader reports it
    reader = _READERS.get(key)
    if reader is None:
        reader = ReserveReader(pack)
        for old in [k for k in _READERS if k[0] == key[0]]:  # a replaced pack's reader
            del _READERS[old]
        _READERS[key] = reader
    return reader


def read_reserve(image: np.ndarray, pack: str | Path | None = None) -> ReserveRead:
    """Read a reserve photo (``(H, W, 3) uint8 RGB``, upright as taken from the player's seat).

    ``pack``: a Nimalia deck pack folder (``reptile-tank nimalia enroll``) or ``None`` for the
    stand-in deck. The reader (embedder + gallery) is cached per pack (:func:`cached_reader`).
    """
    return cached_reader(pack).read(np.ascontiguousarray(image[..., :3]))


__all__ = [
    "CLASSES",
    "CROP",
    "DEFAULT_GALLERY",
    "NimaliaPackError",
    "ReserveRead",
    "ReserveReader",
    "SquareGallery",
    "SquareRead",
    "_photometric",
    "build_gallery",
    "cached_reader",
    "card_face",
    "card_faces",
    "card_outline",
    "enroll_pack",
    "gallery_crops",
    "load_gallery",
    "read_reserve",
    "square_embedder",
]
