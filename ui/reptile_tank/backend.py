"""Reptile Tank's doors to the backends: its rules at the night, the ONNX reader, the face
thumbnails, the night's deck pack and what the reader learns.

The reader is created once per server process, deck pack and deck size with
``st.cache_resource``; everything per-user lives in ``st.session_state``
(:mod:`ui.reptile_tank.state`). The photo reader sits behind one small adapter,
:func:`read_photo`, which turns the vision pipeline's ``BoardRead`` into the plain
:class:`PhotoRead` the pages use. The shared doors (storage, night settings, the user's data
folder) are :mod:`ui.backend`'s.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import numpy as np
import streamlit as st
from PIL import Image

from service.reptile_tank.house_rules import rules_fingerprint as _fingerprint
from service.reptile_tank.house_rules import rules_for
from service.reptile_tank.reading import (  # noqa: F401 - the pages' names for these
    DISPLAY_SIDE,
    THUMBNAIL_SIDE,
    PhotoRead,
    display_jpeg,
    png_bytes,
    thumbnail_jpeg,
)
from service.settings import NightSettings
from ui import state as S
from ui.backend import (  # noqa: F401 - the pages' names for the shared doors
    PACK_DIR_ENV,
    get_drafts,
    get_store,
    night_settings,
    night_settings_problems,
    save_night_settings,
    settings_seen,
    user_data_dir,
)
from ui.reptile_tank.labels import SHORT_NAMES

#: This game's id in the game list (its deck choice in the night settings).
GAME_ID = "reptile_tank"


def night_pack_path(session_uid: str) -> Path:
    """Where a game night's enrolled deck pack lives (on this server's disk).

    ``$REPTILE_TANK_PACK`` names one pack folder for every night (a server operator's choice);
    otherwise each night has its own folder under the user data dir.
    """
    from common.safe_write import check_name, child_folder

    env = os.environ.get(PACK_DIR_ENV)
    if env:
        return Path(env)
    check_name(session_uid, what="game night id")  # "../x" never leaves the data folder
    return child_folder(user_data_dir(), "decks", f"night-{session_uid}", what="the deck folder")


def pack_dir() -> Path | None:
    """The game night's enrolled deck pack, or ``None`` for the bundled stand-in deck.

    The night's settings choose: ``deck = "bundled"`` is always the stand-in deck (even when
    an enrolled pack exists, so going back is one tap and loses nothing).
    """
    session_uid = st.session_state.get(S.NIGHT_UID)
    if session_uid is None or night_settings().deck_of(GAME_ID) != "enrolled":
        return None
    try:
        path = night_pack_path(session_uid)
    except ValueError:  # an id that cannot name a folder: no enrolled deck can exist
        return None
    return path if path.is_dir() and not path.is_symlink() else None


def load_rules() -> Any:
    """The rules in force at this page's game night: the defaults with its house values.

    House values that no longer fit the rules (e.g. written by another version) are ignored
    with a warning on the page, so a bad value never locks the players out of scoring; the
    Rules page offers the reset.
    """
    from scoring.reptile_tank.rules import RulesError

    settings = night_settings()
    problems = night_settings_problems()
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        st.warning(
            "Some of this game night's stored settings cannot be used: "
            + "; ".join(problems[:3])
            + more
            + ". The Rules page can reset them."
        )
    try:
        return rules_for(settings)
    except RulesError as error:
        st.warning(f"This game night's house rules are ignored, the defaults apply: {error}")
        return rules_for(NightSettings())


def rules_fingerprint() -> tuple[str, str]:
    """``(rules_version, rules_hash)`` of this game night's rules, stored with a saved game."""
    return _fingerprint(night_settings())


@st.cache_resource(show_spinner="Loading the card reader…")
def _reader_for(pack: str | None, copies: tuple[tuple[str, int], ...]) -> Any:
    from service.reptile_tank.reading import make_reader

    return make_reader(pack, copies=dict(copies))


@st.cache_resource(show_spinner="Loading the card reader…", max_entries=8)
def _night_reader_for(
    pack: str | None, copies: tuple[tuple[str, int], ...], learnt: str, version: tuple[str, ...]
) -> Any:
    """A reader of its own for a night that has learnt (:mod:`service.reptile_tank.learning`):
    the deck's gallery plus the night's examples; ``version`` (the examples' files) renews it."""
    from service.reptile_tank.learning import NightExamples
    from service.reptile_tank.reading import make_reader

    del version  # part of the cache key
    reader = make_reader(pack, copies=dict(copies))
    reader.gallery = NightExamples(learnt).gallery(reader.gallery, reader.embedder)
    return reader


def night_learning_path(session_uid: str) -> Path:
    """Where a game night's learnt examples live (its own folder; no other night reads it)."""
    from common.safe_write import check_name, child_folder

    check_name(session_uid, what="game night id")
    return child_folder(
        user_data_dir(), "learning", f"night-{session_uid}", what="the night's examples"
    )


def _night_examples() -> Any:
    """This night's :class:`service.reptile_tank.learning.NightExamples`, or None."""
    from service.reptile_tank.learning import NightExamples

    session_uid = st.session_state.get(S.NIGHT_UID)
    if session_uid is None:
        return None
    try:
        return NightExamples(night_learning_path(session_uid))
    except ValueError:
        return None


def _base_reader() -> Any:
    pack = pack_dir()
    return _reader_for(str(pack) if pack else None, _deck_copies())


def _deck_copies() -> tuple[tuple[str, int], ...]:
    """The deck's copies of each front (:func:`service.reptile_tank.reading.deck_copies`), as
    a cache key."""
    from service.reptile_tank.reading import deck_copies

    return tuple(sorted(deck_copies(load_rules()).items()))


def get_reader() -> Any:
    """The ONNX terrarium reader, loaded once per server process, deck pack and deck size.

    A night that has learnt from its confirmed reads gets a reader of its own, with its
    examples added to the deck's gallery (:func:`_night_reader_for`); no other night sees them.
    ``TerrariumReader.read`` is thread-safe for concurrent sessions (onnxruntime sessions are).

    Raises
    ------
    OSError
        The model file is missing (``vision.reptile_tank.classifier.ModelFileError``).
    """
    night = _night_examples()
    version = night.version() if night is not None else ()
    if not version:
        return _base_reader()
    pack = pack_dir()
    return _night_reader_for(
        str(pack) if pack else None, _deck_copies(), str(night.folder), version
    )


def reader_available() -> bool:
    """True when the photo pipeline is installed (the app still works by hand without it)."""
    from service.reptile_tank.reading import reader_available as available

    return available()


def read_photo(
    photo_bytes: bytes,
    *,
    corners: list[tuple[float, float]] | None = None,
    star_cards_removed: bool = False,
    reader: Any = None,
) -> PhotoRead:
    """Read a terrarium photo with the game night's reader (:func:`service.reptile_tank.reading.read_photo`).

    Raises
    ------
    ValueError
        ``vision.errors.ImageLoadError`` when the bytes are not a usable photo.
    """
    from service.reptile_tank.reading import read_photo as _read

    return _read(
        photo_bytes,
        reader if reader is not None else get_reader(),
        corners=corners,
        star_cards_removed=star_cards_removed,
        short_names=SHORT_NAMES,
    )


@st.cache_data(show_spinner=False, max_entries=64)
def _read_photo_cached(
    photo_bytes: bytes,
    corners: tuple[tuple[float, float], ...] | None,
    star_cards_removed: bool,
    pack: str | None,
    learnt: tuple[str, ...] = (),
) -> PhotoRead:
    del pack, learnt  # the cache key: the same photo reads differently with another gallery
    return read_photo(
        photo_bytes,
        corners=[tuple(c) for c in corners] if corners else None,
        star_cards_removed=star_cards_removed,
    )


def read_photo_cached(
    photo_bytes: bytes,
    corners: tuple[tuple[float, float], ...] | None = None,
    star_cards_removed: bool = False,
) -> PhotoRead:
    """:func:`read_photo` memoised on the photo's bytes and the night's deck (a rerun never
    reads a photo twice)."""
    pack = pack_dir()
    night = _night_examples()
    return _read_photo_cached(
        photo_bytes,
        tuple(tuple(c) for c in corners) if corners else None,
        bool(star_cards_removed),
        str(pack) if pack else None,
        night.version() if night is not None else (),
    )


def face_thumbnail(label: str) -> bytes | None:
    """PNG thumbnail (about 100 x 140 px) of a face for the label picker; ``None`` for ``empty``.

    The user's enrolled deck shows its own faces; otherwise the stand-in deck's are drawn.
    """
    pack = pack_dir()
    face = pack / "faces" / f"{label}.png" if pack is not None else None
    return _face_thumbnail(label, str(face) if face is not None and face.is_file() else None)


@st.cache_data(show_spinner=False)
def _face_thumbnail(label: str, face_path: str | None) -> bytes | None:
    from scoring.reptile_tank.cards import FACE_LABELS

    if label not in FACE_LABELS:
        return None
    if face_path is not None:
        image = Image.open(face_path).convert("RGB")
        image.thumbnail((100, 140))
        return png_bytes(np.asarray(image))
    from service.reptile_tank.deck import stand_in_face

    return png_bytes(stand_in_face(label, px_per_mm=1.6))


def sample_photos() -> list[Path]:
    """The bundled sample photos (``reptile_tank/samples/``), sorted by name."""
    folder = Path(__file__).resolve().parents[2] / "reptile_tank" / "samples"
    if not folder.is_dir():
        return []
    exts = {".jpg", ".jpeg", ".png", ".webp", ".heic"}
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in exts)


def user_pack_path() -> Path:
    """Where this game night's enrolled deck pack is written."""
    session_uid = st.session_state.get(S.NIGHT_UID)
    if session_uid is None:
        raise ValueError("pick a game night first: a deck belongs to a game night")
    return night_pack_path(session_uid)


def use_deck(deck: str) -> None:
    """Switch this game night to ``"bundled"`` or its ``"enrolled"`` deck (one tap)."""
    save_night_settings(night_settings().with_deck(GAME_ID, deck))


def enroll_deck(
    faces: dict[str, np.ndarray],
    path: Path,
    views: dict[str, list[np.ndarray]] | None = None,
    unsure: list[str] | None = None,
) -> list[str]:
    """Build a deck pack from one upright ``(H, W, 3)`` uint8 RGB image per face, cut from the
    player's photos (and, in ``views``, more images of some faces: added to the gallery as
    other views of them; ``unsure``: faces cut from a card something lay over). Returns the
    faces whose reads the reader flags: ``unsure`` and those washed out by glare
    (:func:`service.reptile_tank.deck.with_washed_out`).

    The shipped embedder turns the faces into the pack's gallery; the reader is reloaded for
    the new pack on the next photo (its cache is keyed on the pack folder).

    The pack is built in a temporary folder beside ``path`` and renamed into place
    (:func:`common.safe_write.replace_folder`): ``path`` holds the previous deck or the whole
    new one, never half of one, whatever fails.

    Raises
    ------
    ValueError
        A face missing or unknown (``vision.reptile_tank.gallery.PackError``), no model
        installed, or the pack could not be written (``FolderWriteError``: a full disk, a
        symbolic link; the previous deck is kept), each one message.
    """
    from common.safe_write import replace_folder
    from service.reptile_tank.deck import create_pack, reader_embedder, with_washed_out

    try:
        embedder = reader_embedder()  # the reader's model: the pack needs no rebuild on load
    except OSError as error:
        raise ValueError(f"the card reader's model is not installed: {error}") from None
    path = Path(path)
    unsure = with_washed_out(unsure or (), faces, embedder)
    replace_folder(
        path,
        lambda new: create_pack(
            new,
            faces,
            views=views,
            seed=0,
            name=path.name,
            embedder=embedder,
            unsure=unsure,
        ),
        what="the night's deck",
    )
    _reader_for.clear()
    _night_reader_for.clear()
    if st.session_state.get(S.SESSION_ID) is not None:
        use_deck("enrolled")
    return unsure


def learn_corrections(entries: Any) -> int:
    """Teach the user's enrolled deck the cells they corrected; returns how many were added.

    Only a deck pack on disk learns (its ``examples/`` folder grows and its gallery is saved):
    the bundled stand-in gallery is shared by every session of the server and is left alone.

    Parameters
    ----------
    entries : iterable of ui.reptile_tank.state.TerrariumEntry
        Confirmed terrariums; those read from a photo carry their cell crops.
    """
    entries = list(entries)
    _learn_tonight(entries)
    if pack_dir() is None:
        return 0
    reader = _base_reader()
    if reader.pack is None:
        return 0
    added = 0
    with _learn_lock(str(reader.pack.path) if hasattr(reader.pack, "path") else str(pack_dir())):
        for entry in entries:
            if entry.crops is None:
                continue
            for r, c in sorted(entry.corrected):
                reader.pack.add_examples(entry.rows[r][c], entry.crops[r, c][None], reader.embedder)
                added += 1
    return added


def _learn_tonight(entries: list) -> int:
    """This night's gallery learns its confirmed photo reads' hard cells: the cells the players
    corrected (unless the night's enrolled deck learns them itself) and the cells the reader
    asked to check that they confirmed (:mod:`service.reptile_tank.learning`). Returns how
    many examples were added; 0 without a night or a model."""
    night = _night_examples()
    if night is None:
        return 0
    try:
        reader = _base_reader()
    except OSError:
        return 0
    enrolled = pack_dir() is not None and getattr(reader, "pack", None) is not None
    added = 0
    for entry in entries:
        if entry.crops is None:
            continue
        check = np.asarray(entry.check, bool) if entry.check is not None else None
        cells = []
        for r, row in enumerate(entry.rows):
            for c, _ in enumerate(row):
                corrected = (r, c) in entry.corrected
                flagged = check is not None and bool(check[r, c])
                if (corrected and not enrolled) or (flagged and not corrected):
                    cells.append((r, c))
        if cells:
            crops = np.asarray(entry.crops)
            added += night.learn(crops, entry.rows, entry.rows, None, reader.embedder,
                                 cells=cells).added  # fmt: skip
    return added


_LEARN_LOCKS: dict[str, threading.Lock] = {}
_LEARN_LOCKS_GUARD = threading.Lock()


def _learn_lock(pack: str) -> threading.Lock:
    """One lock per deck pack: two sessions of one night never write its gallery at once."""
    with _LEARN_LOCKS_GUARD:
        return _LEARN_LOCKS.setdefault(pack, threading.Lock())
