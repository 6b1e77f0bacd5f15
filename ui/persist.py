"""The app's frame around every page run (game-blind): the game night in the URL, and each
game's game in progress resumed from and written to the database.

The page's URL carries the game night (``?night=<uid>``). Every run of the app (``app.py``):

1. :func:`resume` — a fresh browser session (a reload, a phone that dropped the tab, another
   app server) finds the night in the URL and makes it the page's night (:func:`choose_night`:
   every game loads its game in progress); otherwise every game picks up another device's
   change;
2. :func:`offer_ui`, then the page runs;
3. :func:`sync` — every game writes its change; a storage failure leaves the game on the page
   and the shared banner says "Not saved: …" with a retry button;
4. :func:`wants_rerun` — a write met another device's: the frame runs again to show it.

Each step calls the games' :class:`games.AppSession` hooks (:func:`ui.state.app_sessions`); a
game with none keeps its own state in its pages.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import streamlit as st

from service.errors import STORAGE_ERRORS, storage_message
from ui import state as S
from ui.backend import get_store
from ui.state import NIGHT_PARAM


def choose_night(state: MutableMapping[str, Any], session: Any) -> None:
    """Make ``session`` (a ``SessionInfo``) this page's game night and resume its games."""
    from ui.nights import remember

    S.init_state(state)
    remember(state, session.uid)  # this browser joined it: listed from now on
    if state[S.NIGHT_UID] == session.uid and state[S.SESSION_ID] == session.id:
        return
    state[S.SESSION_ID] = session.id
    state[S.NIGHT_UID] = session.uid
    for hooks in S.app_sessions():
        if hooks.night_chosen is not None:
            hooks.night_chosen(state, session)


def resume(state: MutableMapping[str, Any]) -> None:
    """Start of a run: follow the URL's game night, else every game's newer revisions.

    Storage failures are kept in ``state[S.STORAGE_ERROR]`` for the banner, never raised.
    """
    S.init_state(state)
    try:
        wanted = st.query_params.get(NIGHT_PARAM)
        if wanted and wanted != state[S.NIGHT_UID]:
            found = next((s for s in get_store().list_sessions() if s.uid == wanted), None)
            if found is None:
                state[S.STORAGE_ERROR] = "The game night in this link does not exist (any more)."
            else:
                choose_night(state, found)
                return
    except STORAGE_ERRORS as error:
        state[S.STORAGE_ERROR] = f"Not saved: {storage_message(error)}"
        return
    for hooks in S.app_sessions():
        if hooks.resume is not None:
            hooks.resume(state)


def show_night_in_url(state: MutableMapping[str, Any]) -> None:
    """Keep ``?night=<uid>`` in the address bar (a reload or a shared link resumes the night)."""
    uid = state.get(S.NIGHT_UID)
    if uid and st.query_params.get(NIGHT_PARAM) != uid:
        st.query_params[NIGHT_PARAM] = uid


def sync(state: MutableMapping[str, Any]) -> bool:
    """End of a run: every game writes its change; True when all of them are stored."""
    S.init_state(state)
    results = [hooks.sync(state) for hooks in S.app_sessions() if hooks.sync is not None]
    return all(results)


def offer_ui(state: MutableMapping[str, Any]) -> None:
    """What each game offers after a write that met another device's (before the page)."""
    for hooks in S.app_sessions():
        if hooks.offer_ui is not None:
            hooks.offer_ui(state)


def wants_rerun(state: MutableMapping[str, Any]) -> bool:
    """True when a game's write this run met another device's (show the merged game)."""
    return any(hooks.rerun(state) for hooks in S.app_sessions() if hooks.rerun is not None)
