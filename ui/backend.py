"""The app's shared doors to the backends (game-blind): storage, the night's settings and the
user's data folder.

Shared, expensive objects (the database engine) are created once per server process with
``st.cache_resource``; everything per-user lives in ``st.session_state`` (:mod:`ui.state`).
Each game's own doors (its reader, its deck) live in its folder (``ui/<game id>/backend.py``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import streamlit as st

from service.settings import NightSettings
from ui import state as S

#: Environment variable naming the database (any SQLAlchemy URL); SQLite file by default.
DB_URL_ENV = "REPTILE_TANK_DB_URL"
#: Environment variable naming the user's enrolled deck pack folder.
PACK_DIR_ENV = "REPTILE_TANK_PACK"


def user_data_dir() -> Path:
    """Folder for the user's files (rules, deck): ``$REPTILE_TANK_HOME`` or ``~/.reptile-tank``."""
    return Path(os.environ.get("REPTILE_TANK_HOME", Path.home() / ".reptile-tank"))


def db_url() -> str | None:
    """The database URL from the environment (``None``: the store's SQLite default)."""
    return os.environ.get(DB_URL_ENV) or None


@st.cache_resource(show_spinner=False)
def _store_for(url: str | None) -> Any:
    from service.store import open_store

    return open_store(url)


def get_store() -> Any:
    """The leaderboard store for the configured URL, one engine per URL and server process."""
    return _store_for(db_url())


@st.cache_resource(show_spinner=False)
def _drafts_for(url: str | None) -> Any:
    from leaderboard.drafts import DraftStore

    return DraftStore(_store_for(url))


def get_drafts() -> Any:
    """Drafts and night settings in the leaderboard database (``leaderboard.drafts``)."""
    return _drafts_for(db_url())


#: The settings document and revision this page last read (the base of its next write).
SETTINGS_SEEN = "rt_settings_seen"


def night_settings() -> NightSettings:
    """The settings of this page's game night (defaults without a night or on a storage
    failure, which the page reports elsewhere). Read from the database on every run, so a
    change made on another phone or server applies at once. Stored values that cannot be used
    (malformed, out of range) are left out with a warning on the page, never a crash."""
    session_id = st.session_state.get(S.SESSION_ID)
    if session_id is None:
        return NightSettings()
    try:
        document, revision = get_drafts().settings(session_id)
    except Exception:  # noqa: BLE001 - storage trouble is reported by the draft sync
        return NightSettings()
    st.session_state[SETTINGS_SEEN] = (session_id, document, revision)
    return NightSettings.from_json(document)


def night_settings_problems() -> list[str]:
    """What of this night's stored settings was left out (see :func:`night_settings`)."""
    from service.settings import settings_problems

    seen = st.session_state.get(SETTINGS_SEEN)
    if seen is None or seen[0] != st.session_state.get(S.SESSION_ID):
        return []
    return settings_problems(seen[1])


def settings_seen() -> tuple[int, dict[str, Any], int] | None:
    """``(night id, document, revision)`` of the settings this page last read: a page that
    shows settings keeps it at render and passes it to :func:`save_night_settings`, so what it
    writes is checked against what the player saw."""
    return st.session_state.get(SETTINGS_SEEN)


def save_night_settings(
    settings: NightSettings, *, seen: tuple[int, dict[str, Any], int] | None = None
) -> None:
    """Write this page's game night's settings: a compare-and-set on the revision the page
    read (``seen``, else the last read), merged with another phone's change of other values
    (theirs kept where both changed the same value, and the page says so). Raises on a
    storage failure."""
    from service.shared import describe, write_merged

    session_id = st.session_state.get(S.SESSION_ID)
    if session_id is None:
        raise ValueError("pick a game night first")
    drafts = get_drafts()
    seen = seen or st.session_state.get(SETTINGS_SEEN)
    if seen is None or seen[0] != session_id:
        document, revision = drafts.settings(session_id)
        seen = (session_id, document, revision)
    _night, base, revision = seen
    mine = settings.to_json()
    base_settings = NightSettings.from_json(base).to_json()

    def write(doc: dict[str, Any], expected: int) -> int:
        return drafts.put_settings(session_id, doc, expected_revision=expected)

    written = write_merged(write, base_settings, mine, revision)
    st.session_state[SETTINGS_SEEN] = (session_id, written.document, written.revision)
    if written.conflicts:
        st.session_state[S.FLASH] = (
            "Another device changed the same setting at the same time "
            f"({describe(written.conflicts)}): theirs is kept; set yours again if it was right."
        )
    elif written.merged:
        st.session_state[S.FLASH] = (
            "Another device changed this night's settings at the same time: both changes are kept."
        )
