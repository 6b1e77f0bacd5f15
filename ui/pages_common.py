"""Small pieces shared by the game pages: "is there a game?" and the player picker."""

from __future__ import annotations

import streamlit as st

from ui import state as S
from ui.navigation import page_path


def require_game() -> bool:
    """True when a game has been started; otherwise say so and link to the setup page."""
    if st.session_state[S.PLAYERS]:
        return True
    st.info("Start a game first: pick the game night and the players.")
    st.page_link(page_path("setup.py"), label="Game setup", icon="🎲")
    return False


def player_picker_ui(*, key: str) -> str:
    """Choose whose terrarium this page is about (shared across pages); returns the name."""
    players = st.session_state[S.PLAYERS]
    if st.session_state[S.ACTIVE_PLAYER] not in players:
        st.session_state[S.ACTIVE_PLAYER] = players[0]
    st.session_state[key] = st.session_state[S.ACTIVE_PLAYER]

    def picked() -> None:
        st.session_state[S.ACTIVE_PLAYER] = st.session_state[key]
        st.session_state[S.SELECTED_CELL] = None

    entered = set(st.session_state[S.ENTRIES])
    st.selectbox(
        "Player",
        players,
        key=key,
        on_change=picked,
        format_func=lambda p: f"{p}  ✓" if p in entered else p,
    )
    return st.session_state[S.ACTIVE_PLAYER]
