"""Reptile Tank's deck packs, for the command line (``reptile-tank enroll``) and the app (the
deck page): one way to build a pack, embedded with the model the reader reads with (so a pack
is never re-embedded when the reader loads it), and the face images it is built from, read by
the service layer's one photo loader (:mod:`service.photos`) and cut to their card
(:func:`vision.reptile_tank.enrol.crop_to_card`) on one path (:func:`read_face_file`,
:func:`face_from_bytes`).

The app's deck enrolment without widgets is here too: a player lays the 16 different faces out
(in the terrarium's grid, in any order, all at once or a few at a time), photographs them, and
taps a name under each card found. Each photo is cut into cards by :func:`cards_in_photo` (every
card by its own outline, :func:`vision.reptile_tank.enrol.layout_cards`: the grid finder's
occupied cells, or the cards wherever they lie; one card cut out by
:func:`vision.reptile_tank.enrol.crop_to_card` when none is found: a scan or a photo of one
card); a file named after a card id (``rock.jpg``) comes named. :func:`faces_from_names` turns
the names tapped into the 16 faces of the pack; :func:`faces_from_uploads` takes one uploaded
image per face, named after its card id.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

import numpy as np

from scoring.reptile_tank.cards import FACE_LABELS
from service.photos import PHOTO_SUFFIXES, PhotoInputError, load_photo, read_photo_file
from vision.loading import MIN_SHORT_SIDE

#: Shortest side (pixels) of a face image: a small scan of one card is enough.
FACE_MIN_SIDE = 32
#: Long side photos of laid-out faces are decoded to (each card keeps enough pixels; the
#: command line's ``enroll --from-layout`` and the app's deck page).
LAYOUT_MAX_SIDE = 2400
#: Size (width, height) of a card cut from a layout photo's grid cell (4 px/mm).
CELL_CUT = (252, 352)


def read_face_file(path: str | Path) -> np.ndarray:
    """Decode one face image file (EXIF orientation applied) to ``(H, W, 3)`` uint8 RGB, full
    size, through the one photo loader (a face may be a small scan: :data:`FACE_MIN_SIDE`).
    :class:`service.photos.PhotoInputError`, one line naming the file, when it is unusable."""
    try:
        return read_photo_file(
            path, max_side=None, min_short_side=FACE_MIN_SIDE, what="face image"
        ).image.rgb
    except PhotoInputError:
        raise
    except ValueError as error:
        raise PhotoInputError(str(error)) from None


def cut_face(image_rgb: np.ndarray) -> np.ndarray:
    """One face image cut to its card, upright and portrait
    (:func:`vision.reptile_tank.enrol.crop_to_card`: a scan or an exported face is kept as it
    is, a photo of one card on a table is cut to the card's outline)."""
    from vision.reptile_tank.enrol import crop_to_card

    return crop_to_card(image_rgb)


def face_from_bytes(data: bytes, name: str) -> np.ndarray:
    """One uploaded face image, decoded as :func:`read_face_file` decodes a file (full size,
    :data:`FACE_MIN_SIDE`) and cut to its card (:func:`cut_face`), as :func:`read_face_dir`
    does for the command line. :class:`service.photos.PhotoInputError` (one line naming
    ``name``) when it is unusable."""
    try:
        rgb = load_photo(data, max_side=None, min_short_side=FACE_MIN_SIDE, name=name).image.rgb
    except ValueError as error:
        raise PhotoInputError(str(error)) from None
    return cut_face(rgb)


def read_face_dir(directory: str | Path) -> dict[str, np.ndarray]:
    """One upright (H, W, 3) uint8 RGB face per label from ``<card id>.<ext>`` files, each cut
    to its card (:func:`vision.reptile_tank.enrol.crop_to_card`)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise PhotoInputError(f"{directory}: not a folder")
    faces: dict[str, np.ndarray] = {}
    unknown = []
    for path in sorted(directory.iterdir()):
        if path.suffix.lower() not in PHOTO_SUFFIXES:
            continue
        label = path.stem.lower()
        if label not in FACE_LABELS:
            unknown.append(path.name)
            continue
        if label in faces:
            raise PhotoInputError(f"{directory}: two images for {label}")
        faces[label] = cut_face(read_face_file(path))
    if unknown:
        raise PhotoInputError(
            f"{directory}: file names must be card ids; unknown: {', '.join(unknown[:5])}"
        )
    missing = [label for label in FACE_LABELS if label not in faces]
    if missing:
        raise PhotoInputError(f"{directory}: missing a face image for: {', '.join(missing)}")
    return faces


def faces_from_layouts(
    photos: Sequence[str | Path], names: str | None = None
) -> tuple[dict[str, np.ndarray], dict[str, list[np.ndarray]], list[str]]:
    """Faces and extra views from layout photos (:func:`vision.reptile_tank.enrol.named_faces`);
    ``names`` (comma-separated card ids, ``skip`` leaves a card out) names them. Also the faces
    cut where the grid finder could not see a card well (glare, a thumb: the documented
    layout's place assumed, :func:`vision.reptile_tank.enrol.unsure_faces`) and those washed out
    by glare (:func:`with_washed_out`), worth a look.
    One :class:`service.photos.PhotoInputError` per unusable photo."""
    from vision.errors import GridNotFoundError
    from vision.reptile_tank.enrol import layout_cards, named_faces, unsure_faces

    layouts = []
    for photo in photos:
        loaded = read_photo_file(photo, max_side=LAYOUT_MAX_SIDE).image
        try:
            layouts.append(layout_cards(loaded.rgb))
        except GridNotFoundError as error:
            raise PhotoInputError(f"{photo}: {error}") from None
    listed = None if names is None else [n.strip().lower() for n in names.split(",")]
    try:
        faces, views = named_faces(layouts, listed)
    except ValueError as error:
        raise PhotoInputError(str(error)) from None
    return faces, views, with_washed_out(unsure_faces(layouts, listed, faces), faces)


def stand_in_face(label: str, px_per_mm: float = 1.6) -> np.ndarray:
    """The stand-in deck's face of card ``label``, drawn (``(H, W, 3)`` uint8 RGB at
    ``px_per_mm``; the app's thumbnail when the night has no enrolled face)."""
    from vision.reptile_tank.synth.deck import render_face

    return render_face(label, px_per_mm=px_per_mm)


def with_washed_out(
    unsure: Sequence[str], faces: Mapping[str, np.ndarray], embedder: Any = None
) -> list[str]:
    """``unsure`` and, after them, the faces of ``faces`` (cut from photos) washed out by glare
    (:func:`vision.reptile_tank.washed_out.washed_out_faces`, by ``embedder``: the reader's by
    default)."""
    from vision.reptile_tank.washed_out import washed_out_faces

    out = list(unsure)
    embedder = embedder if embedder is not None else reader_embedder()
    return out + [label for label in washed_out_faces(faces, embedder) if label not in out]


def reader_embedder() -> Any:
    """The embedder :class:`vision.reptile_tank.reader.TerrariumReader` reads with
    (``READER_MODEL``); ``OSError`` when the model file is missing."""
    from vision.embedder import CardEmbedder
    from vision.reptile_tank.classifier import READER_MODEL

    return CardEmbedder(READER_MODEL)


def create_pack(
    path: str | Path,
    faces: Mapping[str, np.ndarray],
    *,
    views: Mapping[str, Sequence[np.ndarray]] | None = None,
    seed: int = 0,
    name: str | None = None,
    embedder: Any = None,
    unsure: Sequence[str] = (),
) -> tuple[Any, int]:
    """Write a deck pack at ``path`` from one upright ``(H, W, 3)`` uint8 RGB image per face,
    plus extra views of some cards (``views``: card id -> images, e.g. from layout photos);
    ``unsure``: the faces the player was told to look at, whose reads the reader flags
    (``DeckPack.unsure``).

    Returns ``(pack, extra views added)``; ``vision.reptile_tank.gallery.PackError`` (a
    ``ValueError``) when a face is missing or unknown.
    """
    from vision.reptile_tank.gallery import DeckPack, to_face_size

    embedder = embedder if embedder is not None else reader_embedder()
    pack = DeckPack.create(
        path, dict(faces), embedder, np.random.default_rng(seed), name=name, unsure=unsure
    )
    added = 0
    for label, crops in (views or {}).items():
        if len(crops):
            pack.add_examples(label, np.stack([to_face_size(c) for c in crops]), embedder)
            added += len(crops)
    return pack, added


# ------------------------------------------------------------------------------ the app's uploads


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
    crossed : list of bool
        Per card, whether something lies over its edge in the photo (a thumb:
        :attr:`vision.reptile_tank.enrol.LayoutCards.crossed`): worth a look, and another
        photo's card of the same name is kept as the face instead.
    problem : str
        Why nothing could be used from the file (empty otherwise).
    """

    name: str
    digest: str
    cards: list[np.ndarray] = field(default_factory=list)
    suggested: list[str | None] = field(default_factory=list)
    how: str = ""
    crossed: list[bool] = field(default_factory=list)
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
    from vision.errors import GridNotFoundError

    if not data:
        found = PhotoCards(name=name, digest=hashlib.sha256(data).hexdigest())
        found.problem = f"{name}: the file is empty (0 bytes)"
        return found
    try:  # the service layer's one loader: decoded and hashed once; a scan of one card may
        # be smaller than a table photo (FACE_MIN_SIDE), it is then taken as one card below
        photo = load_photo(data, max_side=LAYOUT_MAX_SIDE, min_short_side=FACE_MIN_SIDE)
    except ValueError as error:
        found = PhotoCards(name=name, digest=hashlib.sha256(data).hexdigest())
        found.problem = f"{name}: {error}"
        return found
    found = PhotoCards(name=name, digest=photo.sha256)
    rgb = photo.image.rgb
    label = label_from_file_name(name)
    if label is not None:
        found.cards = [cut_face(rgb)]
        found.suggested = [label]
        found.how = f"{name}: one card, named by its file name"
        return found
    if min(rgb.shape[:2]) < MIN_SHORT_SIDE:  # too few pixels for a layout of cards
        found.cards = [cut_face(rgb)]
        found.suggested = [None]
        found.how = (
            f"{name}: a small image ({rgb.shape[1]} × {rgb.shape[0]} px), taken as one card; "
            "tap its name"
        )
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
        found.cards = [cut_face(rgb)]
        found.suggested = [None]
        found.how = (
            f"{name}: no cards laid out found, so it is taken as one card (for several "
            "cards, lay them apart on a plain table, or in the 4 × 5 grid)"
        )
        return found
    count = len(laid.cards)
    if laid.documented_layout:  # the 16 faces in enrolment order
        found.cards = laid.cards[: len(FACE_LABELS)]
        found.crossed = list(laid.crossed[: len(FACE_LABELS)])
        found.suggested = list(FACE_LABELS)
        extra = count - len(FACE_LABELS)
        found.how = (
            f"{name}: {len(FACE_LABELS)} cards found, named in the enrolment order; "
            "change any that are wrong"
            + (f" ({extra} more place(s) after the 16th left out)" if extra else "")
        )
        cols = laid.grid_shape[1] if laid.grid_shape else 5
        unsure = [k for k, assumed in enumerate(laid.assumed[: len(FACE_LABELS)]) if assumed]
        crossed = [k for k, c in enumerate(laid.crossed[: len(FACE_LABELS)]) if c]
        for places, why in ((unsure, "no card could be seen well"),
                            (crossed, "something lies over the card's edge")):  # fmt: skip
            if places:
                where = " and ".join(f"row {k // cols + 1}, card {k % cols + 1}" for k in places)
                found.how += f"; {why} at {where} (glare, a thumb?): " + (
                    "look at that face" if len(places) == 1 else "look at those faces"
                )
    else:
        found.cards = laid.cards
        found.crossed = list(laid.crossed)
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
) -> tuple[dict[str, np.ndarray], dict[str, list[np.ndarray]], int]:
    """The faces named by the player, and the extra views of them.

    Parameters
    ----------
    photos : sequence of PhotoCards
    names : mapping ``(digest, card index) -> label or None``
        The name tapped under each card.

    Returns
    -------
    faces : dict of label -> (H, W, 3) uint8 RGB
        The card given each name; of several, the cleanest
        (:func:`vision.reptile_tank.enrol.cleanest_cut`: not the one under a thumb).
    views : dict of label -> list of (H, W, 3) uint8 RGB
        Every other card given the same name: another view of that face (a second photo of the
        deck), added to the gallery beside it (as ``enroll --from-layout`` with several photos).
    unnamed : int
        Cards without a name (left out).

    :func:`unsure_named` says which kept faces are cards something lay over.
    """
    from vision.reptile_tank.enrol import faces_and_views

    named = [
        (names.get((photo.digest, i)), card, i < len(photo.crossed) and photo.crossed[i])
        for photo in photos
        for i, card in enumerate(photo.cards)
    ]
    kept = [(label, card, crossed) for label, card, crossed in named if label is not None]
    faces, views = faces_and_views(
        ((label, card) for label, card, _ in kept), covered=[crossed for *_, crossed in kept]
    )
    return faces, views, sum(label is None for label, *_ in named)


def unsure_named(photos: Sequence[PhotoCards], faces: Mapping[str, np.ndarray]) -> list[str]:
    """The faces (of :func:`faces_from_names`) kept from a card something lies over in its
    photo (:attr:`PhotoCards.crossed`): no clean card of that name was given (the faces washed
    out by glare are added when the deck is built, :func:`with_washed_out`)."""
    crossed = [
        card
        for photo in photos
        for card, over in zip(photo.cards, photo.crossed, strict=False)
        if over
    ]
    return [label for label, face in faces.items() if any(face is card for card in crossed)]


def faces_from_uploads(uploads: Mapping[str, bytes]) -> tuple[dict[str, np.ndarray], list[str]]:
    """Decode uploaded face images named ``<card id>.<ext>`` (one card per file), each cut to
    its card as the command line's ``enroll --from-dir`` cuts them (:func:`face_from_bytes`).

    Parameters
    ----------
    uploads : mapping of file name -> bytes

    Returns
    -------
    faces : dict of card id -> (H, W, 3) uint8 RGB
        One per recognised, decodable file (EXIF orientation applied, cut to the card).
    problems : list of str
        One sentence per file that was not used (unknown name, unreadable, duplicate).
    """
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
            faces[label] = face_from_bytes(data, name)
        except ValueError as error:
            problems.append(str(error))
    return faces, problems
