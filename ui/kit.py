"""The app's shared UI kit (game-blind): the one-off message of the last action, a link that
keeps the night, the "Not saved" banner, the night's game choice (every game of the list, one tap), the link to a game's
own page and the phone menu that closes itself."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

import streamlit as st

import games
from ui import state as S
from ui.backend import night_settings, save_night_settings
from ui.navigation import PAGES_DIR, page_path
from ui.text import escape_markdown


def night_link(page: str, label: str, icon: str) -> None:
    """A link to the app page ``page`` (its file name, e.g. ``"photo.py"``) that keeps the
    night's ``?night=`` (so Back is one press)."""
    st.page_link(
        page_path(page), query_params=S.night_params(st.session_state), label=label, icon=icon
    )


#: Widget key of the night's game choice.
KEY_GAME_CHOICE = "night_game"


def flash_ui(state: MutableMapping[str, Any]) -> None:
    """Show (once) the message a callback left for the next run."""
    message = state.get(S.FLASH)
    if message:
        st.success(message)
        state[S.FLASH] = None


def storage_banner_ui(
    state: MutableMapping[str, Any],
    *,
    retry: Callable[[MutableMapping[str, Any]], Any] | None = None,
    toast: bool = False,
) -> None:
    """Say "Not saved: …" when the database failed, with a retry (the game stays on the page).

    ``retry(state)`` runs when the button is tapped, before the page runs again.
    """
    message = state.get(S.STORAGE_ERROR)
    if not message:
        return
    if toast:
        st.toast(escape_markdown(message), icon="⚠️")
    st.error(escape_markdown(f"{message}. Your game is kept on this page; nothing is lost yet."))
    st.button(
        "Retry saving",
        key="storage_retry_end" if toast else "storage_retry",
        on_click=retry,
        args=(state,) if retry else None,
    )


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


#: Constant script (no user text): on a phone, picking a page in the side menu closes the menu,
#: so it never stays open over the page (Streamlit leaves it open). Installed once per tab.
CLOSE_MENU_JS = """<script>
(() => {
  const doc = window.parent ? window.parent.document : document;
  const win = doc.defaultView || window;
  if (win.__rtCloseMenu) return;
  win.__rtCloseMenu = true;
  doc.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest('[data-testid="stSidebarNav"] a');
    if (!link || win.innerWidth >= 640) return;
    setTimeout(() => {
      const close = doc.querySelector('[data-testid="stSidebarCollapseButton"] button');
      if (close) close.click();
    }, 150);
  }, true);
})();
</script>"""


def close_menu_on_phone_ui() -> None:
    """Install :data:`CLOSE_MENU_JS` (in the side menu, where it takes no room on the page)."""
    st.sidebar.html(CLOSE_MENU_JS, unsafe_allow_javascript=True)
