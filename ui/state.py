"""Per-user state every page shares (game-blind), kept in ``st.session_state``.

Everything here works on any ``MutableMapping`` (Streamlit's session state in the app, a plain
``dict`` in tests). Each browser session has its own session state, so several people using the
app at once never see each other's game. This module holds what the app's frame and every game
use: the game night, the one-off message of the last action, the storage error and the page
switches. A game's own session state lives in its folder (``ui/<game id>/``) and is set up
through its :class:`games.AppSession` (:func:`init_state` runs every game's ``init``).

Keys are namespaced ``rt_*`` (they predate the second game and stored sessions use them);
widget keys live in the pages and never collide with them.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import games
from service.players import MAX_NAME_LENGTH, clean_name, parse_player_names

__all__ = ["MAX_NAME_LENGTH", "clean_name", "parse_player_names"]

#: The game night (the store's session id).
SESSION_ID = "rt_session_id"
#: The game night's uid as carried in the page's URL (``?night=``).
NIGHT_UID = "rt_night_uid"
#: A one-off message for the next run (:func:`ui.kit.flash_ui`).
FLASH = "rt_flash"
#: The last storage error ("Not saved: …"), shown by :func:`ui.kit.storage_banner_ui`.
STORAGE_ERROR = "rt_storage_error"
#: The url path of the page the last run drew (so a page knows it was just opened).
LAST_PAGE = "rt_last_page"
#: A page a button's callback asked for (its url path): the next run opens it (a callback
#: cannot switch pages, and a button whose label the callback changes reads as not pressed).
GOTO = "rt_goto"
#: The URL query parameter naming the game night.
NIGHT_PARAM = "night"


def init_shared(state: MutableMapping[str, Any]) -> None:
    """Give the shared keys a default, leaving keys that are already set alone."""
    for key, value in {SESSION_ID: None, NIGHT_UID: None, FLASH: None, STORAGE_ERROR: None}.items():
        if key not in state:
            state[key] = value


def app_sessions() -> list[games.AppSession]:
    """Every registered game's part in the app's runs (games without one are left out)."""
    return [games.resolve(g.app_session) for g in games.GAMES.values() if g.app_session]


def init_state(state: MutableMapping[str, Any]) -> None:
    """The shared keys and every game's session keys, defaulted where not set yet."""
    init_shared(state)
    for hooks in app_sessions():
        if hooks.init is not None:
            hooks.init(state)


def night_params(state: MutableMapping[str, Any]) -> dict[str, str]:
    """The page's ``?night=`` to carry on a link or a page switch: without it the next page
    adds it itself, a second history entry (Back then needed two presses)."""
    uid = state.get(NIGHT_UID)
    return {NIGHT_PARAM: uid} if uid else {}


def go_to(state: MutableMapping[str, Any], url_path: str) -> None:
    """Ask for page ``url_path`` (e.g. ``"photo"``) to open on the next run (from a callback)."""
    state[GOTO] = url_path
