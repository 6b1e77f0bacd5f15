"""Small pieces shared by the game pages: "is there a game?", the player picker, whose turn it
is next, and whether the game on the page is saved."""

from __future__ import annotations

import streamlit as st

from service.photos import PHOTO_TYPES  # noqa: F401 - Reptile Tank's pages take it from here
from ui.kit import night_link
from ui.reptile_tank import persist
from ui.reptile_tank import state as S
from ui.reptile_tank.journey import escape_markdown


def require_game() -> bool:
    """True when a game has been started; otherwise say so and link to the setup page."""
    if st.session_state[S.PLAYERS]:
        return True
    st.info("Start a game first: pick the game night and the players.")
    night_link("setup.py", "Game setup", "🎲")
    return False


def player_picker_ui(*, key: str) -> str:
    """Choose whose terrarium this page is about (shared across pages); returns the name.

    Radio buttons, not a drop-down: a phone shows no keyboard, and every name is one tap.
    """
    players = st.session_state[S.PLAYERS]
    if st.session_state[S.ACTIVE_PLAYER] not in players:
        st.session_state[S.ACTIVE_PLAYER] = players[0]
    st.session_state[key] = st.session_state[S.ACTIVE_PLAYER]

    def picked() -> None:
        st.session_state[S.ACTIVE_PLAYER] = st.session_state[key]
        st.session_state[S.SELECTED_CELL] = None

    entered = set(st.session_state[S.ENTRIES])
    st.radio(
        "Player",
        players,
        key=key,
        on_change=picked,
        horizontal=True,
        format_func=lambda p: escape_markdown(f"{p} ✓" if p in entered else p),
    )
    return st.session_state[S.ACTIVE_PLAYER]


def next_player(player: str) -> str | None:
    """The next player (in seat order after ``player``) whose terrarium is not in yet."""
    players = st.session_state[S.PLAYERS]
    missing = [p for p in players if p not in st.session_state[S.ENTRIES]]
    if not missing:
        return None
    start = players.index(player) if player in players else 0
    for p in players[start + 1 :] + players[: start + 1]:
        if p in missing:
            return p
    return None


def next_player_hint_ui(player: str) -> None:
    """After a terrarium is in: "Now photograph Bo" (one tap), or "everyone is in"."""
    following = next_player(player)
    if following is None:
        night_link("confirm.py", "Everyone is in: score the table", "✅")
        return

    def go() -> None:  # the label names ``following``: the callback opens the page
        st.session_state[S.ACTIVE_PLAYER] = following
        st.session_state[S.SELECTED_CELL] = None
        S.go_to(st.session_state, "photo")

    st.button(
        escape_markdown(f"Next: photograph {following}'s terrarium"),
        key="next_player",
        icon="📷",
        on_click=go,
    )


def saved_state_ui() -> None:
    """Whether the game on the page is saved: a change after saving is said, not hidden."""
    saved = st.session_state[S.LAST_SAVED_GAME]
    if saved is None:
        return
    if persist.changed_since_save(st.session_state):
        st.warning(
            f"Changed since game {saved} was saved: these changes are not on the leaderboard "
            "yet. Update the saved game on the Confirm page."
        )
    else:
        st.caption(f"Game {saved} is saved; a change here can update it from the Confirm page.")
