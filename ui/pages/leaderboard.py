"""Page 6 — Leaderboard: every game's standings, one game (view) at a time, of this game
night or all time. The views come from the game list (:mod:`games`): each game draws its own
(Reptile Tank: table games and solo games; a game with none gets the shared played-games view
of :mod:`ui.played`)."""

from __future__ import annotations

import streamlit as st

import games
from service.errors import STORAGE_ERRORS, storage_message
from ui import nights
from ui import state as S
from ui.backend import get_store
from ui.kit import flash_ui
from ui.played import views
from ui.text import escape_markdown

KEY_SCOPE = "lb_scope"
ALL_TIME = "all"
KEY_KIND = "lb_kind"


def scope_ui(store) -> int | None:
    """This game night or all time; returns the session id (``None`` for all time)."""
    sessions = {s.id: s.name for s in nights.visible_sessions(store, st.session_state)}
    options = [ALL_TIME, *sessions]
    current = st.session_state[S.SESSION_ID]
    if KEY_SCOPE not in st.session_state or st.session_state[KEY_SCOPE] not in options:
        st.session_state[KEY_SCOPE] = current if current in sessions else ALL_TIME
    scope = st.selectbox(
        "Show",
        options,
        key=KEY_SCOPE,
        format_func=lambda s: "All time" if s == ALL_TIME else f"Game night: {sessions[s]}",
    )
    return None if scope == ALL_TIME else scope


def view_ui(store, session_id: int | None) -> None:
    """The games picker (one view per game, or per kind of game) and the chosen view."""
    shown = {view.key: view for view in views()}
    kind = st.segmented_control(
        "Games",
        list(shown),
        format_func=lambda key: shown[key].title,
        key=KEY_KIND,
        default=next(iter(shown)),
        required=True,
        persist_state="session",
    )
    view = shown.get(kind) or next(iter(shown.values()))
    games.resolve(view.render)(store, session_id)


def leaderboard_ui() -> None:
    st.title("🏆 Leaderboard")
    flash_ui(st.session_state)
    try:
        store = get_store()
        session_id = scope_ui(store)
        view_ui(store, session_id)
    except STORAGE_ERRORS as error:
        st.error(escape_markdown(f"The leaderboard cannot be read: {storage_message(error)}"))


leaderboard_ui()
