"""A new Nimalia game: its players, the 4 goals (drawn at random by level, or picked one per
colour), the scoring options, and the night's deck."""

from __future__ import annotations

import streamlit as st

from service.nimalia import game as N
from ui import state as S
from ui.nimalia.deck import nimalia_deck_ui
from ui.nimalia.widgets import GAME
from ui.text import escape_markdown

KEY_PLAYERS = "nim_players"
KEY_LEVEL = "nim_level"
KEY_GOAL12 = "nim_goal12"
KEY_TIEBREAK = "nim_tiebreak"


def goal_key(colour: str) -> str:
    return f"nim_goal_{colour}"


def draw_goals() -> None:
    goals = N.draw_goals(st.session_state.get(KEY_LEVEL) or "easy")
    for colour, goal in zip(N.COLOURS, goals, strict=True):
        st.session_state[goal_key(colour)] = goal


def setup_ui() -> None:
    """Players and the 4 goals (drawn at random by level, or picked one per colour)."""
    st.subheader("New Nimalia game")
    st.text_area(
        "Players, one per line (2 to 4)",
        key=KEY_PLAYERS,
        height=120,
        placeholder="Ann\nBen\nChloé",
    )
    catalogue = N.catalogue()
    cols = st.columns([2, 1], vertical_alignment="bottom")
    cols[0].segmented_control(
        "Goal level",
        list(N.LEVELS),
        key=KEY_LEVEL,
        default="easy",
        required=True,
    )
    cols[1].button("Draw goals", key="nim_draw", on_click=draw_goals, width="stretch")
    by_colour = N.goals_by_colour()
    for colour in N.COLOURS:
        st.selectbox(
            f"{colour.capitalize()} goal",
            by_colour[colour],
            index=None,
            key=goal_key(colour),
            placeholder="Draw, or pick one",
            format_func=lambda g: f"{g}. {catalogue[g]['name']} (level {catalogue[g]['level']})",
        )
        chosen = st.session_state.get(goal_key(colour))
        if chosen:
            st.caption(catalogue[chosen]["text"])
    with st.expander("Scoring options (open questions of the rules)"):
        st.toggle(
            "Goal 12 as the online adaptation scores it (a run of 2 or more ending in the"
            " last column scores 3)",
            key=KEY_GOAL12,
        )
        st.toggle(
            "Break ties at every place (not only between the players tied for first)",
            key=KEY_TIEBREAK,
        )
    nimalia_deck_ui()  # the photo reader's deck; also under each photo upload
    if st.button("Start the Nimalia game", type="primary", key="nim_start"):
        try:
            players = S.parse_player_names(st.session_state.get(KEY_PLAYERS, ""))
            goals = [st.session_state.get(goal_key(c)) for c in N.COLOURS]
            game = N.new_game(
                players,
                goals,
                goal12="adaptation" if st.session_state.get(KEY_GOAL12) else "printed",
                tiebreak="every_place" if st.session_state.get(KEY_TIEBREAK) else "adaptation",
            )
        except ValueError as error:
            st.error(escape_markdown(str(error)))
            return
        st.session_state[GAME] = game
        st.session_state[S.FLASH] = f"Nimalia started with {len(game['players'])} players."
        st.rerun()
