"""Reptile Tank's per-user state: one table game being entered, kept in ``st.session_state``.

Everything here works on any ``MutableMapping`` (Streamlit's session state in the app, a plain
``dict`` in tests), so the journey's bookkeeping is testable without Streamlit. Each browser
session has its own session state, so several people using the app at once never see each
other's game.

Keys are namespaced ``rt_*``; widget keys live in the pages and never collide with them. The
keys every game shares (the night, the flash message, the storage error, page switches) are
:mod:`ui.state`'s, re-exported here so the game's pages read one module.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableMapping
from typing import Any

from scoring.reptile_tank.cards import CELL_LABELS
from scoring.reptile_tank.rules import default_layout
from service.reptile_tank.drafts import GameInProgress, PendingPhoto
from service.reptile_tank.game import (  # noqa: F401 - the pages' names
    MAX_NAME_LENGTH,
    TABLE_OBJECTIVES,
    TerrariumEntry,
    check_rows,
    clean_name,
    parse_player_names,
)
from service.reptile_tank.game import empty_rows as _empty_rows
from service.reptile_tank.reading import PhotoRead
from ui.state import (  # noqa: F401 - the shared keys, under the names the pages use
    FLASH,
    GOTO,
    LAST_PAGE,
    NIGHT_PARAM,
    NIGHT_UID,
    SESSION_ID,
    STORAGE_ERROR,
    go_to,
    init_shared,
    night_params,
)

__all__ = [
    "MAX_NAME_LENGTH",
    "PendingPhoto",
    "PhotoRead",
    "TerrariumEntry",
    "clean_name",
    "parse_player_names",
]

#: Session-state keys owned by this module.
PLAYERS = "rt_players"
STAR_CARDS_OUT = "rt_star_cards_out"
OBJECTIVES = "rt_objectives"
ENTRIES = "rt_entries"
ACTIVE_PLAYER = "rt_active_player"
SELECTED_CELL = "rt_selected_cell"
LAST_SAVED_GAME = "rt_last_saved_game"
LAST_PHOTO = "rt_last_photo"
PENDING = "rt_pending_corners"
#: player -> the bytes of their last photo read with a grid (to give its corners instead).
READ_PHOTOS = "rt_read_photos"
SOLO_ENTRY = "rt_solo_entry"
SEEN_FILES = "rt_seen_files"
#: The game night's draft in the database: its uid, the revision this page has, the hash of the
#: document last written and the saved game it belongs to (if confirmed).
DRAFT_UID = "rt_draft_uid"
DRAFT_REVISION = "rt_draft_revision"
DRAFT_HASH = "rt_draft_hash"
DRAFT_SAVED_HASH = "rt_draft_saved_hash"
#: The players' note on the game being entered.
NOTES = "rt_notes"
#: Blob digests already in the database (so a sync does not store a photo twice).
STORED_BLOBS = "rt_stored_blobs"
#: Idempotency key of the solo game on screen (one saved game per key).
SOLO_UID = "rt_solo_uid"
#: The table's last cell fix: (player, row, col, old label, new label, old total, new total).
LAST_FIX = "rt_last_fix"

#: Kept for callers that pass a threshold; the cells to check are the reader's ``check`` flags.
LOW_CONFIDENCE = 0.1


def empty_rows() -> list[list[str]]:
    """A board of ``empty`` cells in the terrarium's layout (a terrarium not started yet)."""
    return _empty_rows()


def init_state(state: MutableMapping[str, Any]) -> None:
    """Give every key this module owns (and the shared ones) a default, leaving keys that are
    already set alone."""
    init_shared(state)
    defaults: dict[str, Any] = {
        PLAYERS: [],
        STAR_CARDS_OUT: False,
        OBJECTIVES: [],
        ENTRIES: {},
        ACTIVE_PLAYER: None,
        SELECTED_CELL: None,
        LAST_SAVED_GAME: None,
        LAST_PHOTO: {},
        PENDING: {},
        READ_PHOTOS: {},
        DRAFT_UID: None,
        DRAFT_REVISION: 0,
        DRAFT_HASH: None,
        DRAFT_SAVED_HASH: None,
        NOTES: "",
        STORED_BLOBS: set(),
        SOLO_UID: None,
        LAST_FIX: None,
    }
    if SOLO_ENTRY not in state:
        state[SOLO_ENTRY] = TerrariumEntry(rows=empty_rows())
    for key, value in defaults.items():
        if key not in state:
            state[key] = value


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
    if objectives and len(objectives) != TABLE_OBJECTIVES:
        raise ValueError(f"a game uses exactly {TABLE_OBJECTIVES} objective cards, or none")
    state[PLAYERS] = list(players)
    state[STAR_CARDS_OUT] = bool(star_cards_out)
    state[OBJECTIVES] = sorted(int(o) for o in objectives)
    state[ENTRIES] = {}
    state[ACTIVE_PLAYER] = players[0] if players else None
    state[SELECTED_CELL] = None
    state[LAST_SAVED_GAME] = None
    state[LAST_PHOTO] = {}
    state[PENDING] = {}
    state[READ_PHOTOS] = {}
    state[NOTES] = ""
    state[LAST_FIX] = None
    state[DRAFT_UID] = None  # a new game is a new draft (the next sync creates it)
    state[DRAFT_REVISION] = 0
    state[DRAFT_HASH] = None
    state[DRAFT_SAVED_HASH] = None
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
    if not default_layout().contains(row, col):
        raise ValueError(f"{default_layout().describe(row, col)} is outside the terrarium")
    entry = entry_for(state, player)
    if entry.rows[row][col] == label:
        return False
    entry.rows[row][col] = label
    if entry.confidence is not None:
        entry.corrected.add((row, col))
        entry.confidence[row][col] = 1.0
    return True


def confirm_cell(
    state: MutableMapping[str, Any], player: str, row: int, col: int, label: str
) -> bool:
    """A flagged cell checked by the player: set to ``label`` (which may be what was read) and
    remembered as checked, so it is no longer listed; returns True when the label changed."""
    changed = set_cell(state, player, row, col, label)
    entry = entry_for(state, player)
    entry.corrected.add((row, col))
    if entry.confidence is not None:
        entry.confidence[row][col] = 1.0
    return changed


def table_to_check(state: MutableMapping[str, Any]) -> list[tuple[str, int, int]]:
    """Every cell still to check at the table, ``(player, row, col)``, in seat then reading
    order (a read with no flag adds nothing)."""
    init_state(state)
    return [
        (player, r, c)
        for player in state[PLAYERS]
        if player in state[ENTRIES]
        for r, c in state[ENTRIES][player].cells_to_check()
    ]


def next_missing(state: MutableMapping[str, Any], after: str | None = None) -> str | None:
    """The next player in seat order after ``after`` (from the first seat when ``None``)
    whose terrarium is not in yet, wrapping round; ``None`` when everyone is in."""
    init_state(state)
    players = list(state[PLAYERS])
    missing = set(missing_players(state))
    start = players.index(after) + 1 if after in players else 0
    for p in players[start:] + players[:start]:
        if p in missing:
            return p
    return None


def missing_players(state: MutableMapping[str, Any]) -> list[str]:
    """Players of the game whose terrarium has not been entered (photo or by hand) yet."""
    init_state(state)
    return [p for p in state[PLAYERS] if p not in state[ENTRIES]]


def low_confidence_cells(
    entry: TerrariumEntry, threshold: float = LOW_CONFIDENCE
) -> list[tuple[int, int]]:
    """Cells the reader flagged ``check`` and nobody fixed yet (``threshold`` is ignored: the
    reader's flags are calibrated; a reader without flags flags nothing)."""
    del threshold
    return entry.cells_to_check()


def _check_rows(rows: list[list[str]]) -> None:
    check_rows(rows)


def photo_is_new(state: MutableMapping[str, Any], player: str, photo: bytes) -> bool:
    """True unless ``photo`` is the last photo read for ``player`` (reruns never re-read)."""
    init_state(state)
    return state[LAST_PHOTO].get(player) != hashlib.sha256(photo).hexdigest()


def store_read(state: MutableMapping[str, Any], player: str, photo: bytes, read: Any) -> None:
    """Keep a photo read: the player's board when a grid was found, else a corner request.

    Parameters
    ----------
    read : service.reptile_tank.reading.PhotoRead
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
    state[READ_PHOTOS][player] = photo
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
            check=read.check,
            candidates=read.candidates,
            check_reasons=list(read.check_reasons),
        ),
    )


def read_photo_of(state: MutableMapping[str, Any], player: str) -> bytes | None:
    """The photo behind the player's current read (None after a reload or a board by hand)."""
    init_state(state)
    return state[READ_PHOTOS].get(player)


def ask_corners(state: MutableMapping[str, Any], player: str, read: Any) -> None:
    """The player says the grid is in the wrong place: their photo now waits for its corners.

    ``read`` is a corner request for the photo of :func:`read_photo_of`
    (``service.reptile_tank.reading.corner_request``).
    """
    photo = read_photo_of(state, player)
    if photo is None:
        raise ValueError(f"no photo of {player!r} to give corners for")
    state[PENDING][player] = PendingPhoto(photo=photo, read=read)


def pending_corners(state: MutableMapping[str, Any], player: str) -> PendingPhoto | None:
    """The player's photo waiting for corners, if any."""
    init_state(state)
    return state[PENDING].get(player)


def start_manual(state: MutableMapping[str, Any], player: str) -> TerrariumEntry:
    """Switch the player to a board entered by hand (keeps the cells of an earlier read)."""
    entry = entry_for(state, player)
    state[PENDING].pop(player, None)
    return entry


def game_in_progress(state: MutableMapping[str, Any]) -> GameInProgress:
    """The game on this page as the service layer's value (what a draft stores)."""
    init_state(state)
    return GameInProgress(
        players=list(state[PLAYERS]),
        star_cards_out=bool(state[STAR_CARDS_OUT]),
        objectives=list(state[OBJECTIVES]),
        entries=dict(state[ENTRIES]),
        pending=dict(state[PENDING]),
        active_player=state[ACTIVE_PLAYER],
        notes=str(state[NOTES]),
    )


def load_game(state: MutableMapping[str, Any], game: GameInProgress) -> None:
    """Put a resumed (or reopened) game on this page, replacing whatever was there."""
    init_state(state)
    state[PLAYERS] = list(game.players)
    state[STAR_CARDS_OUT] = bool(game.star_cards_out)
    state[OBJECTIVES] = list(game.objectives)
    state[ENTRIES] = dict(game.entries)
    state[PENDING] = dict(game.pending)
    state[ACTIVE_PLAYER] = game.active_player
    state[NOTES] = game.notes
    state[SELECTED_CELL] = None
    state[LAST_PHOTO] = {
        name: entry.photo_sha256 for name, entry in game.entries.items() if entry.photo_sha256
    }
    state[LAST_PHOTO].update({name: p.read.photo_sha256 for name, p in game.pending.items()})
    state[LAST_FIX] = None


def clear_game(state: MutableMapping[str, Any]) -> None:
    """No game on this page (the next game starts from the setup page)."""
    load_game(state, GameInProgress())
    state[DRAFT_UID] = None
    state[DRAFT_REVISION] = 0
    state[DRAFT_HASH] = None
    state[DRAFT_SAVED_HASH] = None
    state[LAST_SAVED_GAME] = None
