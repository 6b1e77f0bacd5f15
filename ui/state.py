"""Per-user state of the app: one game being entered, kept in ``st.session_state``.

Everything here works on any ``MutableMapping`` (Streamlit's session state in the app, a plain
``dict`` in tests), so the journey's bookkeeping is testable without Streamlit. Each browser
session has its own session state, so several people using the app at once never see each
other's game.

Keys are namespaced ``rt_*``; widget keys live in the pages and never collide with them.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

from scoring.cards import CELL_LABELS, COLS, EMPTY, ROWS

#: Session-state keys owned by this module.
SESSION_ID = "rt_session_id"
PLAYERS = "rt_players"
STAR_CARDS_OUT = "rt_star_cards_out"
OBJECTIVES = "rt_objectives"
ENTRIES = "rt_entries"
ACTIVE_PLAYER = "rt_active_player"
SELECTED_CELL = "rt_selected_cell"
LAST_SAVED_GAME = "rt_last_saved_game"
FLASH = "rt_flash"
LAST_PHOTO = "rt_last_photo"
PENDING = "rt_pending_corners"
SOLO_ENTRY = "rt_solo_entry"
SEEN_FILES = "rt_seen_files"

#: Cells whose read confidence (the classifier's margin to the runner-up label, as in
#: ``vision.reader.BoardRead.low_confidence``) is below this are highlighted for checking.
LOW_CONFIDENCE = 0.1

#: Longest player name accepted (characters, after trimming).
MAX_NAME_LENGTH = 40
#: Most players in a game (the base game seats 1-4; solo is its own page).
MAX_PLAYERS = 4


@dataclass
class TerrariumEntry:
    """One player's terrarium as entered for the current game.

    Attributes
    ----------
    rows : list of list of str
        4 rows of 5 cell labels (card ids, ``water`` or ``empty``), row 0 farthest from the owner.
    confidence : list of list of float or None
        Per-cell confidence of the photo read, same shape as ``rows``; ``None`` when the board
        was entered by hand.
    source : str
        ``"photo"`` or ``"manual"``.
    photo_sha256 : str or None
        Hex digest of the photo's bytes, stored with the game instead of the photo.
    thumbnail_jpeg : bytes or None
        A small JPEG of the photo (long side <= 320 px) stored with the game.
    overlay_jpeg : bytes or None
        The photo (downscaled) with the fitted grid and labels drawn, for the check page.
    corrected : set of tuple of int
        ``(row, col)`` cells the user changed after the read.
    read_ms : float or None
        How long the photo read took, in milliseconds.
    crops : np.ndarray or None
        ``(4, 5, h, w, 3)`` uint8 RGB cell crops of the read (to learn from corrections).
    """

    rows: list[list[str]]
    confidence: list[list[float]] | None = None
    source: str = "manual"
    photo_sha256: str | None = None
    thumbnail_jpeg: bytes | None = None
    overlay_jpeg: bytes | None = None
    corrected: set[tuple[int, int]] = field(default_factory=set)
    read_ms: float | None = None
    crops: Any = None


def empty_rows() -> list[list[str]]:
    """A 4x5 board of ``empty`` cells (a terrarium not started yet)."""
    return [[EMPTY] * COLS for _ in range(ROWS)]


def init_state(state: MutableMapping[str, Any]) -> None:
    """Give every key this module owns a default, leaving keys that are already set alone."""
    defaults: dict[str, Any] = {
        SESSION_ID: None,
        PLAYERS: [],
        STAR_CARDS_OUT: False,
        OBJECTIVES: [],
        ENTRIES: {},
        ACTIVE_PLAYER: None,
        SELECTED_CELL: None,
        LAST_SAVED_GAME: None,
        FLASH: None,
        LAST_PHOTO: {},
        PENDING: {},
    }
    if SOLO_ENTRY not in state:
        state[SOLO_ENTRY] = TerrariumEntry(rows=empty_rows())
    for key, value in defaults.items():
        if key not in state:
            state[key] = value


def clean_name(raw: str) -> str:
    """Trim a typed player name and check it; the name is kept as typed otherwise.

    Names are stored and shown as plain text (HTML, markdown and emoji included, never rendered).

    Raises
    ------
    ValueError
        If the name is empty, longer than :data:`MAX_NAME_LENGTH` or holds control characters.
    """
    name = " ".join(str(raw).split())
    if not name:
        raise ValueError("a player name cannot be empty")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(f"a player name has at most {MAX_NAME_LENGTH} characters")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise ValueError("a player name cannot hold control characters")
    return name


def parse_player_names(text: str) -> list[str]:
    """Split the setup page's "one name per line" text into clean, distinct player names.

    Raises
    ------
    ValueError
        If a name is invalid, two names are equal (ignoring case), or there are more than
        :data:`MAX_PLAYERS` or no names.
    """
    names = [clean_name(line) for line in str(text).splitlines() if line.strip()]
    if not names:
        raise ValueError("enter at least one player name")
    if len(names) > MAX_PLAYERS:
        raise ValueError(f"a game seats at most {MAX_PLAYERS} players (solo has its own page)")
    seen: set[str] = set()
    for name in names:
        folded = name.casefold()
        if folded in seen:
            raise ValueError(f"two players are called {name!r}; give them different names")
        seen.add(folded)
    return names


def start_game(
    state: MutableMapping[str, Any],
    players: list[str],
    *,
    star_cards_out: bool,
    objectives: list[int],
    session_id: int | None = None,
) -> None:
    """Begin a new game: set its players and variant, and clear any terrariums entered before.

    Parameters
    ----------
    players : list of str
        Clean, distinct names (see :func:`parse_player_names`).
    star_cards_out : bool
        True for the 2-3 player variant (the star cards are out of the deck).
    objectives : list of int
        The objective cards in play (0 or 2 of them).
    session_id : int, optional
        The game night the game belongs to.
    """
    init_state(state)
    if objectives and len(objectives) != 2:
        raise ValueError("a game uses exactly 2 objective cards, or none")
    state[PLAYERS] = list(players)
    state[STAR_CARDS_OUT] = bool(star_cards_out)
    state[OBJECTIVES] = sorted(int(o) for o in objectives)
    state[ENTRIES] = {}
    state[ACTIVE_PLAYER] = players[0] if players else None
    state[SELECTED_CELL] = None
    state[LAST_SAVED_GAME] = None
    state[LAST_PHOTO] = {}
    state[PENDING] = {}
    if session_id is not None:
        state[SESSION_ID] = session_id


def entry_for(state: MutableMapping[str, Any], player: str) -> TerrariumEntry:
    """The player's terrarium entry, created empty (manual) on first use."""
    init_state(state)
    if player not in state[PLAYERS]:
        raise ValueError(f"{player!r} is not a player of this game")
    entries: dict[str, TerrariumEntry] = state[ENTRIES]
    if player not in entries:
        entries[player] = TerrariumEntry(rows=empty_rows())
    return entries[player]


def set_entry(state: MutableMapping[str, Any], player: str, entry: TerrariumEntry) -> None:
    """Store a (new) terrarium entry for a player, e.g. after a photo was read."""
    init_state(state)
    if player not in state[PLAYERS]:
        raise ValueError(f"{player!r} is not a player of this game")
    _check_rows(entry.rows)
    state[ENTRIES][player] = entry
    state[SELECTED_CELL] = None


def set_cell(state: MutableMapping[str, Any], player: str, row: int, col: int, label: str) -> bool:
    """Fix one cell of a player's board; returns True when the label changed.

    A changed cell of a photo read is remembered as corrected and its confidence set to 1.
    """
    if label not in CELL_LABELS:
        raise ValueError(f"unknown cell label {label!r}")
    if not (0 <= row < ROWS and 0 <= col < COLS):
        raise ValueError(f"cell ({row}, {col}) is outside the 4x5 terrarium")
    entry = entry_for(state, player)
    if entry.rows[row][col] == label:
        return False
    entry.rows[row][col] = label
    if entry.confidence is not None:
        entry.corrected.add((row, col))
        entry.confidence[row][col] = 1.0
    return True


def missing_players(state: MutableMapping[str, Any]) -> list[str]:
    """Players of the game whose terrarium has not been entered (photo or by hand) yet."""
    init_state(state)
    return [p for p in state[PLAYERS] if p not in state[ENTRIES]]


def low_confidence_cells(entry: TerrariumEntry, threshold: float) -> list[tuple[int, int]]:
    """Cells whose read confidence is below ``threshold`` and that the user has not fixed."""
    if entry.confidence is None:
        return []
    return [
        (r, c)
        for r in range(ROWS)
        for c in range(COLS)
        if entry.confidence[r][c] < threshold and (r, c) not in entry.corrected
    ]


def _check_rows(rows: list[list[str]]) -> None:
    if len(rows) != ROWS or any(len(row) != COLS for row in rows):
        raise ValueError("a terrarium is 4 rows of 5 cells")
    for row in rows:
        for label in row:
            if label not in CELL_LABELS:
                raise ValueError(f"unknown cell label {label!r}")


@dataclass
class PendingPhoto:
    """A photo in which no grid was found, waiting for the user's four corners."""

    photo: bytes
    read: Any  # ui.backend.PhotoRead with grid_found False


def photo_is_new(state: MutableMapping[str, Any], player: str, photo: bytes) -> bool:
    """True unless ``photo`` is the last photo read for ``player`` (reruns never re-read)."""
    init_state(state)
    return state[LAST_PHOTO].get(player) != hashlib.sha256(photo).hexdigest()


def store_read(state: MutableMapping[str, Any], player: str, photo: bytes, read: Any) -> None:
    """Keep a photo read: the player's board when a grid was found, else a corner request.

    Parameters
    ----------
    read : ui.backend.PhotoRead
        The adapter's result for ``photo``.
    """
    init_state(state)
    if player not in state[PLAYERS]:
        raise ValueError(f"{player!r} is not a player of this game")
    state[LAST_PHOTO][player] = read.photo_sha256
    if not read.grid_found:
        state[PENDING][player] = PendingPhoto(photo=photo, read=read)
        return
    state[PENDING].pop(player, None)
    set_entry(
        state,
        player,
        TerrariumEntry(
            rows=[list(r) for r in read.rows],
            confidence=[[float(v) for v in r] for r in read.confidence],
            source="photo",
            photo_sha256=read.photo_sha256,
            thumbnail_jpeg=read.thumbnail_jpeg,
            overlay_jpeg=read.overlay_jpeg,
            read_ms=read.read_ms,
            crops=getattr(read, "crops", None),
        ),
    )


def pending_corners(state: MutableMapping[str, Any], player: str) -> PendingPhoto | None:
    """The player's photo waiting for corners, if any."""
    init_state(state)
    return state[PENDING].get(player)


def start_manual(state: MutableMapping[str, Any], player: str) -> TerrariumEntry:
    """Switch the player to a board entered by hand (keeps the cells of an earlier read)."""
    entry = entry_for(state, player)
    state[PENDING].pop(player, None)
    return entry
