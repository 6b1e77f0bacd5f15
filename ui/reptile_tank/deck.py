"""Deck enrolment without widgets: find the cards in the player's photos, collect their names.

A player enrols their own printing from the phone: lay the 16 different faces out (in the
terrarium's grid, in any order, all at once or a few at a time), photograph them, and tap
a name under each card found. Each photo is cut into cards by :func:`cards_in_photo` (every card
by its own outline, :func:`vision.reptile_tank.enrol.layout_cards`: the grid finder's occupied
cells, or the cards wherever they lie; one card cut out by
:func:`vision.reptile_tank.enrol.crop_to_card` when none is found: a scan or a photo of one
card); a file named after a card id (``rock.jpg``) comes named. :func:`faces_from_names`
turns the names tapped into the 16 faces of the pack.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

import numpy as np

from scoring.reptile_tank.cards import FACE_LABELS

#: Size (width, height) of a card cut from a layout photo's grid cell (4 px/mm).
CELL_CUT = (252, 352)
#: Long side a layout photo is decoded at (the command line's ``enroll --from-layout`` too).
LAYOUT_SIDE = 2400


@dataclass
class PhotoCards:
    """The cards found in one uploaded photo.

    Attributes
    ----------
    name : str
        The file's name.
    digest : str
        Hex SHA-256 of the file's bytes (stable widget keys across reruns).
    cards : list of (H, W, 3) uint8 RGB
        Upright portrait card faces, row by row for a grid.
    suggested : list of str or None
        A name for each card when the photo says it: a file named after a card id, or a full
        layout of the 16 faces (taken in the enrolment order, :data:`FACE_LABELS`).
    how : str
        One sentence saying how the cards were found.
    problem : str
        Why nothing could be used from the file (empty otherwise).
    """

    name: str
    digest: str
    cards: list[np.ndarray] = field(default_factory=list)
    suggested: list[str | None] = field(default_factory=list)
    how: str = ""
    problem: str = ""


def label_from_file_name(name: str) -> str | None:
    """The card id a file is named after (``Rock.JPG`` -> ``rock``), or ``None``."""
    label = PurePath(name).stem.lower()
    return label if label in FACE_LABELS else None


def cards_in_photo(name: str, data: bytes, reader=None) -> PhotoCards:
    """Find the cards in one uploaded photo (or scan).

    A file named after a card id is one card, cut out of its photo. Otherwise every card laid
    out is one card, cut by its own outline, row by row
    (:func:`vision.reptile_tank.enrol.layout_cards`: the terrarium's grid, or cards laid
    anywhere); when none is found the photo is taken as one card. With a ``reader``
    (:class:`vision.reptile_tank.reader.TerrariumReader`) the grid the reader finds (what
    Photograph reads, its non-empty places the cards) is taken when it holds more cards than
    the grid finder's or the loose outlines. Never raises: a file that cannot be used has
    ``problem`` set and no cards.
    """
    from service.photos import load_photo
    from vision.errors import GridNotFoundError
    from vision.reptile_tank.enrol import crop_to_card

    if not data:
        found = PhotoCards(name=name, digest=hashlib.sha256(data).hexdigest())
        found.problem = f"{name}: the file is empty (0 bytes)"
        return found
    try:  # the service layer's one loader: decoded and hashed once
        photo = load_photo(data, max_side=LAYOUT_SIDE)
    except ValueError as error:
        found = PhotoCards(name=name, digest=hashlib.sha256(data).hexdigest())
        found.problem = f"{name}: {error}"
        return found
    found = PhotoCards(name=name, digest=photo.sha256)
    rgb = photo.image.rgb
    label = label_from_file_name(name)
    if label is not None:
        found.cards = [crop_to_card(rgb)]
        found.suggested = [label]
        found.how = f"{name}: one card, named by its file name"
        return found
    from vision.reptile_tank.enrol import layout_cards

    try:
        laid = layout_cards(rgb, size=CELL_CUT)
    except GridNotFoundError:
        laid = None
    if reader is not None:
        by_reader = _reader_layout(reader, rgb)
        if by_reader is not None and (laid is None or len(by_reader.cards) > len(laid.cards)):
            laid = by_reader
    if laid is None:
        found.cards = [crop_to_card(rgb)]
        found.suggested = [None]
        found.how = (
            f"{name}: no cards laid out found, so it is taken as one card (for several "
            "cards, lay them apart on a plain table, or in the 4 × 5 grid)"
        )
        return found
    count = len(laid.cards)
    if laid.documented_layout:  # the 16 faces in enrolment order
        found.cards = laid.cards[: len(FACE_LABELS)]
        found.suggested = list(FACE_LABELS)
        extra = count - len(FACE_LABELS)
        found.how = (
            f"{name}: {len(FACE_LABELS)} cards found, named in the enrolment order; "
            "change any that are wrong"
            + (f" ({extra} more place(s) after the 16th left out)" if extra else "")
        )
    else:
        found.cards = laid.cards
        found.suggested = [None] * count
        where = "in the grid" if laid.source == "grid" else "laid out"
        found.how = f"{name}: {count} card(s) found {where}"
    return found


def _reader_layout(reader, rgb: np.ndarray):
    """The cards in the grid the reader finds in ``rgb`` (its non-empty places), or None."""
    from dataclasses import replace

    from vision.errors import GridNotFoundError
    from vision.reptile_tank.enrol import layout_cards

    try:
        read = reader.read_image(rgb)
    except (GridNotFoundError, ValueError):
        return None
    occupied = np.array([[label != "empty" for label in row] for row in read.rows])
    if not occupied.any():
        return None
    fit = replace(read.fit, occupied=occupied)
    try:
        return layout_cards(read.image, size=CELL_CUT, fit=fit)
    except GridNotFoundError:
        return None


def faces_from_names(
    photos: Sequence[PhotoCards], names: Mapping[tuple[str, int], str | None]
) -> tuple[dict[str, np.ndarray], list[str], int]:
    """The faces named by the player.

    Parameters
    ----------
    photos : sequence of PhotoCards
    names : mapping ``(digest, card index) -> label or None``
        The name tapped under each card.

    Returns
    -------
    faces : dict of label -> (H, W, 3) uint8 RGB
        The first card given each name (photos and cards in order).
    duplicates : list of str
        Labels given to more than one card (only the first is used).
    unnamed : int
        Cards without a name (left out).
    """
    faces: dict[str, np.ndarray] = {}
    duplicates: list[str] = []
    unnamed = 0
    for photo in photos:
        for i, card in enumerate(photo.cards):
            label = names.get((photo.digest, i))
            if label is None:
                unnamed += 1
            elif label in faces:
                if label not in duplicates:
                    duplicates.append(label)
            else:
                faces[label] = card
    return faces, duplicates, unnamed


def faces_from_uploads(uploads: Mapping[str, bytes]) -> tuple[dict[str, np.ndarray], list[str]]:
    """Decode uploaded face images named ``<card id>.<ext>`` (one card per file).

    Parameters
    ----------
    uploads : mapping of file name -> bytes

    Returns
    -------
    faces : dict of card id -> (H, W, 3) uint8 RGB
        One per recognised, decodable file (EXIF orientation applied).
    problems : list of str
        One sentence per file that was not used (unknown name, unreadable, duplicate).
    """
    from service.photos import load_photo

    faces: dict[str, np.ndarray] = {}
    problems: list[str] = []
    for name, data in sorted(uploads.items()):
        label = label_from_file_name(name)
        if label is None:
            problems.append(f"{name}: not named after a card id (e.g. rock.png, water.png)")
            continue
        if label in faces:
            problems.append(f"{name}: a second image for {label}; the first one is kept")
            continue
        try:
            faces[label] = load_photo(data).image.rgb
        except ValueError as error:
            problems.append(f"{name}: {error}")
    return faces, problems
