"""Nimalia — the game night's Nimalia game: 4 goals, 2-4 players, 5 rounds.

Each round every player enters their reserve (lay cards by number and turn — the default —,
tap squares, or a photo read square by square); the round's goals are scored on it with every
reason drawn on the reserve, running totals are floored at 0, and after round 5 the ranking
(with the tie-break) is saved to Nimalia's own leaderboard. The game in progress is the night's
Nimalia draft in the database, so a reload or another phone finds it back.

The page is split along its seams, under ``ui/nimalia/``: :mod:`ui.nimalia.new_game` (players,
goals, options), :mod:`ui.nimalia.board` (laying cards, tapping squares, undo),
:mod:`ui.nimalia.photo` (a photo read, or one card's corners) with :mod:`ui.nimalia.deck` (the
night's deck), :mod:`ui.nimalia.rounds` (goals, points, reasons, totals, the ranking and its
save) and :mod:`ui.nimalia.draft` (the game as the night's draft: resume, merge, offer back);
this script lays a round out and runs the page.
"""

from __future__ import annotations

import streamlit as st

import games
from games import nimalia as NIMALIA
from service.errors import STORAGE_ERRORS, storage_message
from service.nimalia import game as N
from ui import state as S
from ui.kit import flash_ui, game_choice_ui, game_page_link_ui, night_link
from ui.nimalia.board import place_ui, tap_ui
from ui.nimalia.draft import MET_ANOTHER, SHOWN, offer_ui, resume, sync
from ui.nimalia.new_game import setup_ui
from ui.nimalia.photo import photo_ui
from ui.nimalia.rounds import (
    KEY_VIEW,
    finish_ui,
    goal_points_ui,
    goals_header_ui,
    player_ui,
    reasons_list_ui,
    reasons_ui,
    round_view_ui,
    totals_ui,
)
from ui.nimalia.widgets import GAME, LAST_CHANGE, REVISION, SELECTED, reserve_ui
from ui.text import escape_markdown

KEY_MODE = "nim_mode"
#: How a reserve is entered; the first is the default: laying cards takes at most 3 taps a card
#: (number, turn, place), tapping squares 2 a square, 8 a card (BENCHMARKS.md, Nimalia entry).
MODES = ("Lay cards", "Tap squares", "Photo")
LAY, TAP, PHOTO = MODES


def game_ui(game: dict) -> None:
    goals_header_ui(game)
    player = player_ui(game)
    number = game["round"]
    view = round_view_ui(game)
    playing = view == number
    if playing:
        mode = st.segmented_control(
            "Enter the reserve by", MODES, key=KEY_MODE, default=LAY, required=True
        )
    else:
        mode = None
        st.caption(f"Round {view} as it was scored (read only).")
    result = N.score(game)
    goals = N.reason_lines(result, player, view)
    highlight, options, labels = reasons_ui(goals)
    goal_points_ui(goals, player, deltas=playing)

    def select(r: int, c: int) -> None:
        st.session_state[SELECTED] = None if st.session_state.get(SELECTED) == (r, c) else (r, c)

    if mode == LAY:  # the lay grid is the reserve, with room to grow
        place_ui(game, player)
    else:
        reserve_ui(
            N.reserve_of(game, player, view),
            flagged=N.checks_of(game, player) if playing else (),
            highlight=highlight,
            selected=st.session_state.get(SELECTED) if playing else None,
            on_select=select if playing else None,
        )
    if playing and (mode == TAP or st.session_state.get(SELECTED) is not None):
        tap_ui(game, player)
    if mode == PHOTO:
        photo_ui(game, player)
    reasons_list_ui(goals, options, labels)
    totals_ui(result)
    if N.finished(game):
        finish_ui(game, result)
    else:

        def advance() -> None:
            st.session_state[KEY_VIEW] = N.next_round(game)
            st.session_state[SELECTED] = None
            st.session_state[LAST_CHANGE] = None

        st.button(f"Next: round {number + 1}", key="nim_next", on_click=advance, type="primary")
    with st.expander("End this game without saving"):
        if st.button("Discard the game", key="nim_discard"):
            st.session_state[GAME] = None
            st.rerun()


def nimalia_ui() -> None:
    st.title("🦦 Nimalia")
    if st.session_state[S.SESSION_ID] is None:
        st.info("Pick or create a game night first.")
        night_link("setup.py", "Game setup", "🎲")
        return
    try:
        chosen = game_choice_ui()
        if chosen != NIMALIA.ID:
            flash_ui(st.session_state)
            names = {g.id: g.name for g in games.GAMES.values()}
            st.info(f"This game night plays {names[chosen]}: choose Nimalia above to play it.")
            game_page_link_ui(chosen)
            return
        resume()
        flash_ui(st.session_state)
        offer_ui()
        game = st.session_state.get(GAME)
        if game is None:
            setup_ui()
        else:
            game_ui(game)
        st.session_state[MET_ANOTHER] = False
        sync()
        st.session_state[SHOWN] = st.session_state.get(REVISION)  # what the player now sees
    except STORAGE_ERRORS as error:
        st.error(escape_markdown(f"Not saved: {storage_message(error)}"))
        return
    if st.session_state.get(MET_ANOTHER):
        st.session_state[MET_ANOTHER] = False
        st.rerun()  # show the merged game and say so


nimalia_ui()
