"""The app's doors to the backends: rules, storage, the photo reader and the face thumbnails.

Shared, expensive objects (the ONNX reader, the database engine) are created once per server
process with ``st.cache_resource``; everything per-user lives in ``st.session_state``
(:mod:`ui.state`). The photo reader sits behind one small adapter, :func:`read_photo`, which
turns the vision pipeline's ``BoardRead`` into the plain :class:`PhotoRead` the pages use.
"""

from __future__ import annotations

import hashlib
import io
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import streamlit as st
from PIL import Image

from ui.labels import SHORT_NAMES

#: Environment variable naming the database (any SQLAlchemy URL); SQLite file by default.
DB_URL_ENV = "REPTILE_TANK_DB_URL"
#: Environment variable naming the user's rules file (house values for their printing).
RULES_PATH_ENV = "REPTILE_TANK_RULES"
#: Environment variable naming the user's enrolled deck pack folder.
PACK_DIR_ENV = "REPTILE_TANK_PACK"
#: Long side of the photo thumbnail stored with a game (JPEG, pixels).
THUMBNAIL_SIDE = 320
#: Long side of the photo shown on the check page (JPEG, pixels); a phone screen needs no more.
DISPLAY_SIDE = 1024


def user_data_dir() -> Path:
    """Folder for the user's files (rules, deck): ``$REPTILE_TANK_HOME`` or ``~/.reptile-tank``."""
    return Path(os.environ.get("REPTILE_TANK_HOME", Path.home() / ".reptile-tank"))


def rules_path() -> Path:
    """The user's rules file (it may not exist: then the defaults apply)."""
    env = os.environ.get(RULES_PATH_ENV)
    return Path(env) if env else user_data_dir() / "rules.toml"


def pack_dir() -> Path | None:
    """The user's enrolled deck pack, or ``None`` for the bundled stand-in deck."""
    env = os.environ.get(PACK_DIR_ENV)
    path = Path(env) if env else user_data_dir() / "deck"
    return path if path.is_dir() else None


def db_url() -> str | None:
    """The database URL from the environment (``None``: the store's SQLite default)."""
    return os.environ.get(DB_URL_ENV) or None


@st.cache_resource(show_spinner=False)
def _store_for(url: str | None) -> Any:
    from leaderboard.store import Store

    return Store(url)


def get_store() -> Any:
    """The leaderboard store for the configured URL, one engine per URL and server process."""
    return _store_for(db_url())


def load_rules() -> Any:
    """The rules in force: the defaults, with the user's rules file merged on when it exists.

    Read on every run (a small TOML file) so an edit on the Rules page applies at once. A rules
    file that cannot be used is ignored with a warning on the page (the defaults apply), so a
    bad edit never locks the players out of scoring; the Rules page offers the reset.
    """
    from scoring.rules import RulesError
    from scoring.rules import load_rules as _load

    path = rules_path()
    if not path.is_file():
        return _load()
    try:
        return _load(path)
    except (RulesError, OSError, UnicodeDecodeError) as error:
        st.warning(f"Your rules file is ignored, the default rules apply: {error}")
        return _load()


def rules_fingerprint() -> tuple[str, str]:
    """``(rules_version, rules_hash)`` stored with a saved game.

    The version names the package and whether house values were in force; the hash is the
    SHA-256 of the default rules file followed by the user's rules file (if any).
    """
    from importlib.metadata import PackageNotFoundError, version

    from scoring.rules import DEFAULT_RULES_PATH

    try:
        package = version("reptile-tank")
    except PackageNotFoundError:  # pragma: no cover - the project is installed in practice
        package = "0"
    digest = hashlib.sha256(DEFAULT_RULES_PATH.read_bytes())
    path = rules_path()
    house = path.is_file()
    if house:
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return (
        f"reptile-tank {package} ({'house rules' if house else 'default rules'})",
        digest.hexdigest(),
    )


@st.cache_resource(show_spinner="Loading the card reader…")
def _reader_for(pack: str | None, copies: tuple[tuple[str, int], ...]) -> Any:
    from vision.reader import TerrariumReader

    return TerrariumReader(pack=pack, copies=dict(copies))


def get_reader() -> Any:
    """The ONNX terrarium reader, loaded once per server process, deck pack and deck size.

    ``TerrariumReader.read`` is thread-safe for concurrent sessions (onnxruntime sessions are).

    Raises
    ------
    OSError
        The model file is missing (``vision.classifier.ModelFileError``).
    """
    pack = pack_dir()
    rules = load_rules()
    copies = tuple(sorted((cid, r.copies) for cid, r in rules.cards.items() if cid != "water"))
    return _reader_for(str(pack) if pack else None, copies)


def reader_available() -> bool:
    """True when the photo pipeline is installed (the app still works by hand without it)."""
    try:
        import vision.reader  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass(frozen=True)
class PhotoRead:
    """What the app keeps of one photo read.

    Attributes
    ----------
    grid_found : bool
        False when no terrarium was located; ``message`` says why and the user gives corners.
    rows : list of list of str or None
        4x5 cell labels, row 0 farthest from the owner (``None`` when no grid).
    confidence : list of list of float or None
        Per-cell confidence in [0, 1], same shape.
    overlay_jpeg : bytes
        JPEG (long side <= :data:`DISPLAY_SIDE`) of the photo with the fitted grid and labels
        drawn; the plain photo when no grid was found.
    image_size : tuple of int
        ``(width, height)`` of the reader's image (``TerrariumReader.load``); corners are given
        in this frame, whatever the resolution of ``overlay_jpeg``.
    photo_sha256 : str
        Hex SHA-256 of the photo's bytes.
    thumbnail_jpeg : bytes
        JPEG, long side <= :data:`THUMBNAIL_SIDE`.
    read_ms : float
        Wall time of the read, milliseconds.
    message : str
        Why no grid was found (empty otherwise).
    crops : np.ndarray or None
        ``(4, 5, h, w, 3)`` uint8 RGB rectified cells of the upright board, kept so that
        confirmed corrections can teach the user's deck pack (:func:`learn_corrections`).
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


def read_photo(
    photo_bytes: bytes,
    *,
    corners: list[tuple[float, float]] | None = None,
    star_cards_removed: bool = False,
    reader: Any = None,
) -> PhotoRead:
    """Read a terrarium photo into a board (the app's one call into the vision pipeline).

    Parameters
    ----------
    photo_bytes : bytes
        The file as uploaded (JPEG, PNG, WebP, HEIC; EXIF orientation is honoured).
    corners : list of 4 (x, y), optional
        The terrarium's outer corners in the frame of a previous read's ``image_size``, given by
        the user when no grid was found.
    star_cards_removed : bool
        The 2-3 player variant: the star cards cannot be in the terrarium.
    reader : TerrariumReader, optional
        Defaults to the shared :func:`get_reader`.

    Raises
    ------
    ValueError
        ``vision.errors.ImageLoadError`` when the bytes are not a usable photo.
    """
    from vision.errors import GridNotFoundError
    from vision.grid import draw_overlay

    reader = reader if reader is not None else get_reader()
    digest = hashlib.sha256(photo_bytes).hexdigest()
    start = time.perf_counter()
    try:
        read = reader.read(
            photo_bytes,
            corners=None if corners is None else np.asarray(corners, dtype=float),
            star_cards_removed=star_cards_removed,
        )
    except GridNotFoundError as error:
        image = reader.load(photo_bytes).rgb  # the frame the user's corners are given in
        return PhotoRead(
            grid_found=False,
            rows=None,
            confidence=None,
            overlay_jpeg=display_jpeg(image),
            image_size=(int(image.shape[1]), int(image.shape[0])),
            photo_sha256=digest,
            thumbnail_jpeg=thumbnail_jpeg(image),
            read_ms=(time.perf_counter() - start) * 1000.0,
            message=str(error),
        )
    elapsed = (time.perf_counter() - start) * 1000.0
    rows = [list(row) for row in read.rows]
    confidence = [[float(cell.confidence) for cell in row] for row in read.cells]
    overlay = draw_overlay(read.image, read.fit, labels=[[SHORT_NAMES[x] for x in r] for r in rows])
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
    )


@st.cache_data(show_spinner=False, max_entries=64)
def read_photo_cached(
    photo_bytes: bytes,
    corners: tuple[tuple[float, float], ...] | None = None,
    star_cards_removed: bool = False,
) -> PhotoRead:
    """:func:`read_photo` memoised on the photo's bytes (a rerun never reads a photo twice)."""
    return read_photo(
        photo_bytes,
        corners=[tuple(c) for c in corners] if corners else None,
        star_cards_removed=star_cards_removed,
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
    from scoring.cards import FACE_LABELS

    if label not in FACE_LABELS:
        return None
    if face_path is not None:
        image = Image.open(face_path).convert("RGB")
        image.thumbnail((100, 140))
        return png_bytes(np.asarray(image))
    from vision.synth.deck import render_face

    return png_bytes(render_face(label, px_per_mm=1.6))


def sample_photos() -> list[Path]:
    """The bundled sample photos (``reptile_tank/samples/``), sorted by name."""
    folder = Path(__file__).resolve().parent.parent / "reptile_tank" / "samples"
    if not folder.is_dir():
        return []
    exts = {".jpg", ".jpeg", ".png", ".webp", ".heic"}
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in exts)


def user_pack_path() -> Path:
    """Where the user's enrolled deck pack is written (``$REPTILE_TANK_PACK`` or the data dir)."""
    env = os.environ.get(PACK_DIR_ENV)
    return Path(env) if env else user_data_dir() / "deck"


def enroll_deck(faces: dict[str, np.ndarray], path: Path) -> Path:
    """Build a deck pack from one upright ``(H, W, 3)`` uint8 RGB image per face.

    The shipped embedder turns the faces into the pack's gallery; the reader is reloaded for
    the new pack on the next photo (its cache is keyed on the pack folder).

    Raises
    ------
    ValueError
        A face missing or unknown (``vision.gallery.PackError``), or no model installed.
    """
    from vision.classifier import CardEmbedder
    from vision.gallery import DeckPack

    try:
        embedder = CardEmbedder()
    except OSError as error:
        raise ValueError(f"the card reader's model is not installed: {error}") from None
    DeckPack.create(path, faces, embedder, np.random.default_rng(0))
    _reader_for.clear()
    return path


def learn_corrections(entries: Any) -> int:
    """Teach the user's enrolled deck the cells they corrected; returns how many were added.

    Only a deck pack on disk learns (its ``examples/`` folder grows and its gallery is saved):
    the bundled stand-in gallery is shared by every session of the server and is left alone.

    Parameters
    ----------
    entries : iterable of ui.state.TerrariumEntry
        Confirmed terrariums; those read from a photo carry their cell crops.
    """
    if pack_dir() is None:
        return 0
    reader = get_reader()
    if reader.pack is None:
        return 0
    added = 0
    for entry in entries:
        if entry.crops is None:
            continue
        for r, c in sorted(entry.corrected):
            reader.pack.add_examples(entry.rows[r][c], entry.crops[r, c][None], reader.embedder)
            added += 1
    return added
