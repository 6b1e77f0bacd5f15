"""The app's shared UI kit (game-blind): the one-off message of the last action, the night's
game choice (every game of the list, one tap) and the link to a game's own page."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import streamlit as st

import games
from ui import state as S
from ui.backend import night_settings, save_night_settings
from ui.navigation import PAGES_DIR

#: Widget key of the night's game choice.
KEY_GAME_CHOICE = "night_game"


def flash_ui(state: MutableMapping[str, Any]) -> None:
    """Show (once) the message a callback left for the next run."""
    message = state.get(S.FLASH)
    if message:
        st.success(message)
        state[S.FLASH] = None


def game_names() -> dict[str, str]:
    """Every game of the game list, by id (what a night can play)."""
    return {g.id: g.name for g in games.GAMES.values()}


def night_game() -> str:
    """The game this page's game night plays (the first game of the list without a night)."""
    return night_settings().game


def game_choice_ui() -> str:
    """Which game the night plays, one tap; kept in the night's settings (every phone of the
    night follows). Returns the game id."""
    from dataclasses import replace

    current = night_game()
    st.session_state[KEY_GAME_CHOICE] = current

    def changed() -> None:
        chosen = st.session_state.get(KEY_GAME_CHOICE) or current
        save_night_settings(replace(night_settings(), game=chosen))
        st.session_state[S.FLASH] = f"This game night plays {game_names()[chosen]}."

    names = game_names()
    st.segmented_control(
        "Game tonight",
        list(names),
        format_func=names.get,
        key=KEY_GAME_CHOICE,
        required=True,
        on_change=changed,
    )
    return current


def game_page_link_ui(game_id: str) -> None:
    """A link to the first page of ``game_id`` (the page where its game is played)."""
    entry = games.game(game_id)
    if entry.pages:
        page = entry.pages[0]
        st.page_link(str(PAGES_DIR / page.script), label=f"Play {entry.name}", icon=entry.icon)
