"""Reptile Tank's deck packs, for the command line (``reptile-tank enroll``) and the app (the
deck page): one way to build a pack, embedded with the model the reader reads with (so a pack
is never re-embedded when the reader loads it), and the face images it is built from, read by
the service layer's one photo loader (:mod:`service.photos`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from service.photos import PHOTO_SUFFIXES, PhotoInputError, read_photo_file

#: Shortest side (pixels) of a face image: a small scan of one card is enough.
FACE_MIN_SIDE = 32
#: Long side photos of laid-out faces are decoded to (each card keeps enough pixels).
LAYOUT_MAX_SIDE = 2400


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


def read_face_dir(directory: str | Path) -> dict[str, np.ndarray]:
    """One upright (H, W, 3) uint8 RGB face per label from ``<card id>.<ext>`` files, each cut
    to its card (:func:`vision.reptile_tank.enrol.crop_to_card`)."""
    from scoring.reptile_tank.cards import FACE_LABELS
    from vision.reptile_tank.enrol import crop_to_card

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
        faces[label] = crop_to_card(read_face_file(path))
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
) -> tuple[dict[str, np.ndarray], dict[str, list[np.ndarray]]]:
    """Faces and extra views from layout photos (:func:`vision.reptile_tank.enrol.named_faces`);
    ``names`` (comma-separated card ids, ``skip`` leaves a card out) names them. One
    :class:`service.photos.PhotoInputError` per unusable photo."""
    from vision.errors import GridNotFoundError
    from vision.reptile_tank.enrol import layout_cards, named_faces

    layouts = []
    for photo in photos:
        loaded = read_photo_file(photo, max_side=LAYOUT_MAX_SIDE).image
        try:
            layouts.append(layout_cards(loaded.rgb))
        except GridNotFoundError as error:
            raise PhotoInputError(f"{photo}: {error}") from None
    listed = None if names is None else [n.strip().lower() for n in names.split(",")]
    try:
        return named_faces(layouts, listed)
    except ValueError as error:
        raise PhotoInputError(str(error)) from None


def reader_embedder() -> Any:
    """The embedder :class:`vision.reptile_tank.reader.TerrariumReader` reads with
    (``READER_MODEL``); ``OSError`` when the model file is missing."""
    from vision.reptile_tank.classifier import READER_MODEL, CardEmbedder

    return CardEmbedder(READER_MODEL)


def create_pack(
    path: str | Path,
    faces: Mapping[str, np.ndarray],
    *,
    views: Mapping[str, Sequence[np.ndarray]] | None = None,
    seed: int = 0,
    name: str | None = None,
    embedder: Any = None,
) -> tuple[Any, int]:
    """Write a deck pack at ``path`` from one upright ``(H, W, 3)`` uint8 RGB image per face,
    plus extra views of some cards (``views``: card id -> images, e.g. from layout photos).

    Returns ``(pack, extra views added)``; ``vision.reptile_tank.gallery.PackError`` (a
    ``ValueError``) when a face is missing or unknown.
    """
    from vision.reptile_tank.gallery import DeckPack, to_face_size

    embedder = embedder if embedder is not None else reader_embedder()
    pack = DeckPack.create(path, dict(faces), embedder, np.random.default_rng(seed), name=name)
    added = 0
    for label, crops in (views or {}).items():
        if len(crops):
            pack.add_examples(label, np.stack([to_face_size(c) for c in crops]), embedder)
            added += len(crops)
    return pack, added
