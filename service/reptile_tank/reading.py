"""Photo bytes → a read the app can show and keep: the board, how sure, what to check.

:func:`make_reader` builds the reader of a deck (the app's and ``reptile-tank score``'s), and
:func:`read_board` is the one call into the vision pipeline for a photo already loaded by
:mod:`service.photos`. :func:`read_photo` (the app) turns the reader's ``BoardRead`` into a
plain :class:`PhotoRead`: labels, per-cell confidence, the reader's calibrated ``check`` flags
(when the reader gives them; otherwise nothing is flagged), its best guesses per cell, the
photo with the grid drawn, and a thumbnail; the command line prints the ``BoardRead`` itself.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from service.photos import (  # noqa: F401 - also the pages' names for these
    DISPLAY_SIDE,
    THUMBNAIL_SIDE,
    Photo,
    display_jpeg,
    fit_pixel_cap,
    load_photo,
    png_bytes,
    thumbnail_jpeg,
)
from service.reptile_tank.game import CANDIDATES_PER_CELL


def deck_copies(rules: Any) -> dict[str, int]:
    """Copies of each card front in the deck (``water``, the back, left out), from the rules."""
    return {card: int(r.copies) for card, r in rules.cards.items() if card != "water"}


def reader_available() -> bool:
    """Whether the photo reader is installed here (the app still works by hand without it)."""
    try:
        import vision.reptile_tank.reader  # noqa: F401
    except ImportError:
        return False
    return True


def make_reader(
    pack: str | None,
    rules: Any = None,
    *,
    copies: dict[str, int] | None = None,
    max_side: int | None = None,
) -> Any:
    """The terrarium reader of a deck pack folder (``None``: the bundled stand-in deck), its
    deck sizes from ``rules`` (:func:`deck_copies`) or ``copies``; ``max_side`` as the
    reader's (its default when ``None``). ``OSError`` when the model file is missing,
    ``vision.reptile_tank.gallery.PackError`` (a ``ValueError``) for an unusable pack."""
    from vision.reptile_tank.reader import TerrariumReader

    if copies is None:
        copies = deck_copies(rules) if rules is not None else None
    kwargs = {} if max_side is None else {"max_side": max_side}
    return TerrariumReader(pack, copies=None if copies is None else dict(copies), **kwargs)


def read_board(
    photo: Photo,
    reader: Any,
    *,
    corners: Any = None,
    star_cards_removed: bool = False,
    started: tuple[float, float] | None = None,
) -> Any:
    """The reader's ``BoardRead`` of a photo loaded once by :mod:`service.photos`.

    ``corners``: 4 ``(x, y)`` outer corners in the loaded image's frame (skips grid finding);
    ``started``: ``(perf_counter, process_time)`` clocks the read's timings count from.
    ``vision.errors.GridNotFoundError`` (a ``ValueError``) when no grid is found, here nor on
    the reader's closer look at the photo's bytes.
    """
    return reader.read_loaded(
        photo.image,
        corners=None if corners is None else np.asarray(corners, dtype=float),
        star_cards_removed=star_cards_removed,
        started=started,
        photo_bytes=photo.data,
    )


@dataclass(frozen=True)
class PhotoRead:
    """What the app keeps of one photo read.

    Attributes
    ----------
    grid_found : bool
        False when no terrarium was located; ``message`` says why and the user gives corners.
    rows : list of list of str or None
        The terrarium's cell labels, row 0 farthest from the owner (``None`` when no grid).
    confidence : list of list of float or None
        Per-cell confidence (margin to the runner-up), same shape.
    overlay_jpeg : bytes
        JPEG (long side <= :data:`DISPLAY_SIDE`) of the photo with the fitted grid and labels
        drawn; the plain photo when no grid was found.
    image_size : tuple of int
        ``(width, height)`` of the reader's image; corners are given in this frame.
    photo_sha256 : str
        Hex SHA-256 of the photo's bytes.
    thumbnail_jpeg : bytes
        JPEG, long side <= :data:`THUMBNAIL_SIDE`.
    read_ms : float
        Wall time of the read, milliseconds.
    message : str
        Why no grid was found (empty otherwise).
    crops : np.ndarray or None
        ``(4, 5, h, w, 3)`` uint8 RGB rectified cells of the upright board.
    check : list of list of bool or None
        The reader's per-cell ``check`` flags; ``None`` when the reader gives none.
    needs_check : bool
        The reader's whole-read flag (any cell flagged, when the reader gives no such flag).
    candidates : list of list of list of str or None
        Per cell, the reader's best labels, best first.
    check_reasons : tuple of str
        Why the reader asks for a check, one short phrase each (a thumb, two faces too close to
        tell apart, a face enrolled from a covered card, the grid's fit in doubt); empty when
        nothing is in doubt.
    """

    grid_found: bool
    rows: list[list[str]] | None
    confidence: list[list[float]] | None
    overlay_jpeg: bytes
    image_size: tuple[int, int]
    photo_sha256: str
    thumbnail_jpeg: bytes
    read_ms: float
    message: str = ""
    crops: np.ndarray | None = None
    check: list[list[bool]] | None = None
    needs_check: bool = False
    candidates: list[list[list[str]]] | None = None
    check_reasons: tuple[str, ...] = ()


def _check_flags(read: Any) -> tuple[list[list[bool]] | None, bool]:
    """The reader's ``check`` per cell and ``needs_check`` per read, when it gives them.

    ``BoardRead.check`` is a ``(rows, cols)`` bool array backed by the calibrated
    ``BoardRead.confidence``; a read without that calibration (``confidence is None``) flags
    nothing here rather than every cell. A reader whose cells carry their own ``check`` is read
    cell by cell.
    """
    flags = None
    if getattr(read, "confidence", None) is not None and getattr(read, "check", None) is not None:
        flags = [[bool(v) for v in row] for row in np.asarray(read.check, dtype=bool).tolist()]
    elif all(hasattr(cell, "check") for row in read.cells for cell in row):
        flags = [[bool(cell.check) for cell in row] for row in read.cells]
    needs = getattr(read, "needs_check", None) if flags is not None else None
    if needs is None:
        needs = bool(flags) and any(any(row) for row in flags)
    return flags, bool(needs)


def corner_request(
    photo_bytes: bytes,
    reader: Any,
    message: str,
    *,
    started: float | None = None,
    photo: Photo | None = None,
) -> PhotoRead:
    """A read that asks for the grid's corners: the plain photo in the frame corners are given in.

    Used when no grid is found, and when the player says a found grid is in the wrong place.
    ``photo`` is the photo already decoded and hashed for the reader (:func:`read_photo`
    passes it, so a photo with no grid found is not decoded or hashed again).
    """
    start = time.perf_counter() if started is None else started
    if photo is None:
        photo = load_photo(photo_bytes, max_side=reader.max_side)
    image = photo.image.rgb  # the frame the user's corners are given in
    return PhotoRead(
        grid_found=False,
        rows=None,
        confidence=None,
        overlay_jpeg=display_jpeg(image),
        image_size=(int(image.shape[1]), int(image.shape[0])),
        photo_sha256=photo.sha256,
        thumbnail_jpeg=thumbnail_jpeg(image),
        read_ms=(time.perf_counter() - start) * 1000.0,
        message=message,
    )


def read_photo(
    photo_bytes: bytes,
    reader: Any,
    *,
    corners: list[tuple[float, float]] | None = None,
    star_cards_removed: bool = False,
    short_names: dict[str, str] | None = None,
) -> PhotoRead:
    """Read a terrarium photo into a board.

    Parameters
    ----------
    photo_bytes : bytes
        The file as uploaded (JPEG, PNG, WebP, HEIC; EXIF orientation is honoured).
    reader : vision.reptile_tank.reader.TerrariumReader
        The reader of the game night's deck.
    corners : list of 4 (x, y), optional
        The terrarium's outer corners in the frame of a previous read's ``image_size``.
    star_cards_removed : bool
        The 2-3 player variant: the star cards cannot be in the terrarium.
    short_names : dict, optional
        Label → text drawn on the overlay (the ids by default).

    Raises
    ------
    ValueError
        ``vision.errors.ImageLoadError`` when the bytes are not a usable photo.
    """
    from vision.errors import GridNotFoundError
    from vision.reptile_tank.grid import draw_overlay

    start = time.perf_counter()
    clocks = (start, time.process_time())
    # decoded and hashed once (the service layer's one loader), with the reader's size limit
    photo = load_photo(photo_bytes, max_side=reader.max_side)
    digest = photo.sha256
    try:
        read = read_board(
            photo, reader, corners=corners, star_cards_removed=star_cards_removed, started=clocks
        )
    except GridNotFoundError as error:
        return corner_request(photo_bytes, reader, str(error), started=start, photo=photo)
    elapsed = (time.perf_counter() - start) * 1000.0
    rows = [list(row) for row in read.rows]
    confidence = [[float(cell.confidence) for cell in row] for row in read.cells]
    candidates = [
        [[label for label, _score in cell.top][:CANDIDATES_PER_CELL] for cell in row]
        for row in read.cells
    ]
    check, needs_check = _check_flags(read)
    names = short_names or {}
    overlay = draw_overlay(
        read.image, read.fit, labels=[[names.get(x, x) for x in r] for r in rows]
    )
    if getattr(getattr(read, "orientation", None), "rotation", 0) == 180:
        overlay = np.ascontiguousarray(overlay[::-1, ::-1])  # shown as the board: owner's side down
    return PhotoRead(
        grid_found=True,
        rows=rows,
        confidence=confidence,
        overlay_jpeg=display_jpeg(overlay),
        image_size=(int(read.image.shape[1]), int(read.image.shape[0])),
        photo_sha256=digest,
        thumbnail_jpeg=thumbnail_jpeg(read.image),
        read_ms=elapsed,
        crops=np.asarray(read.crops),
        check=check,
        needs_check=needs_check,
        candidates=candidates,
        check_reasons=tuple(str(r) for r in getattr(read, "check_reasons", ())),
    )
