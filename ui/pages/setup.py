"""Page 1 — Game setup: the game night (session), the players, the variant, the objectives."""

from __future__ import annotations

import streamlit as st

from ui import state as S
from ui.backend import get_store, load_rules
from ui.navigation import page_path
from ui.widgets import flash_ui

#: Widget keys of this page.
KEY_SESSION = "setup_session"
KEY_NEW_SESSION = "setup_new_session"
KEY_CREATE_SESSION = "setup_create_session"
KEY_PLAYERS = "setup_players"
KEY_STAR_OUT = "setup_star_out"
KEY_USE_OBJECTIVES = "setup_use_objectives"
KEY_OBJECTIVES = "setup_objectives"
KEY_START = "setup_start"


def session_ui() -> None:
    """Pick the game night, or start a new one."""
    store = get_store()
    sessions = store.list_sessions()
    names = {s.id: s.name for s in sessions}
    if sessions:
        ids = [s.id for s in sessions]
        current = st.session_state[S.SESSION_ID]
        if current not in names:
            st.session_state[S.SESSION_ID] = ids[0]
        st.session_state[KEY_SESSION] = st.session_state[S.SESSION_ID]

        def picked() -> None:
            st.session_state[S.SESSION_ID] = st.session_state[KEY_SESSION]

        st.selectbox(
            "Game night",
            ids,
            format_func=lambda i: f"{names[i]} ({i})",
            key=KEY_SESSION,
            on_change=picked,
        )
    with st.form(KEY_CREATE_SESSION, clear_on_submit=True, border=False):
        cols = st.columns([3, 1], vertical_alignment="bottom")
        new_name = cols[0].text_input("New game night", key=KEY_NEW_SESSION, max_chars=80)
        if cols[1].form_submit_button("Create", width="stretch") and new_name.strip():
            created = store.create_session(new_name.strip())
            st.session_state[S.SESSION_ID] = created.id
            st.rerun()


def objectives_ui(rules) -> list[int]:
    """Optional objective cards: none, or exactly 2 chosen from the rules' list."""
    use = st.toggle("Play with objective cards", key=KEY_USE_OBJECTIVES, persist_state="session")
    if not use:
        return []
    numbers = sorted(rules.objectives)
    return st.multiselect(
        "Objective cards in play (pick 2)",
        numbers,
        format_func=lambda n: f"{n}: {rules.objectives[n].text} ({rules.objectives[n].vp} VP)",
        max_selections=2,
        key=KEY_OBJECTIVES,
        persist_state="session",
    )


def setup_ui() -> None:
    st.title("🦎 Game setup")
    flash_ui(st.session_state)
    rules = load_rules()
    session_ui()
    if st.session_state[S.SESSION_ID] is None:
        st.info("Create a game night to start (it groups the evening's games on the leaderboard).")
        return
    if KEY_PLAYERS not in st.session_state and st.session_state[S.PLAYERS]:
        st.session_state[KEY_PLAYERS] = "\n".join(st.session_state[S.PLAYERS])
    st.text_area(
        "Players, one per line (2 to 4)",
        key=KEY_PLAYERS,
        height=120,
        placeholder="Ann\nBen\nChloé",
        persist_state="session",
    )
    st.toggle(
        "Star cards out (2–3 player variant: no Corn snake, Brown anole or Rock)",
        key=KEY_STAR_OUT,
        persist_state="session",
    )
    objectives = objectives_ui(rules)
    if st.button("Start the game", type="primary", key=KEY_START):
        try:
            players = S.parse_player_names(st.session_state[KEY_PLAYERS])
            if len(players) < 2:
                raise ValueError("a table game needs at least 2 players (solo has its own page)")
            if objectives and len(objectives) != 2:
                raise ValueError("pick exactly 2 objective cards, or switch objectives off")
        except ValueError as error:
            st.error(str(error))
        else:
            S.start_game(
                st.session_state,
                players,
                star_cards_out=st.session_state[KEY_STAR_OUT],
                objectives=objectives,
            )
            note = ""
            if len(players) in (2, 3) and not st.session_state[KEY_STAR_OUT]:
                note = (
                    " The rulebook takes the star cards out with 2–3 players: "
                    "switch it on if you did."
                )
            st.session_state[S.FLASH] = f"Game started with {len(players)} players.{note}"
            st.rerun()
    if st.session_state[S.PLAYERS]:
        st.subheader("This game")
        st.dataframe(
            [{"Seat": i + 1, "Player": p} for i, p in enumerate(st.session_state[S.PLAYERS])],
            hide_index=True,
            key="setup_players_table",
        )
        st.page_link(page_path("photo.py"), label="Next: photograph each terrarium", icon="📷")


setup_ui()
