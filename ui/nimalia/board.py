"""The reserve editor: lay cards by number and turn (:func:`place_ui`, the default), tap squares
(:func:`tap_ui`), and every change remembered for its delta and undo (:func:`snapshot`,
:func:`remember_change`, :func:`undo`)."""

from __future__ import annotations

import copy

import streamlit as st

from service.nimalia import game as N
from ui import state as S
from ui.nimalia.widgets import (
    LAST_CHANGE,
    SELECTED,
    lay_grid_style_ui,
    lay_window,
    picker_ui,
)

KEY_CARD = "nim_card"
KEY_TURN = "nim_turn"
#: The lay grid's square buttons: ``f"{KEY_LAY}_{i}_{j}"`` in the window shown.
KEY_LAY = "nim_lay"


def snapshot(game: dict, player: str) -> dict:
    """The player's reserve, flags and goal points before a change (for the delta and undo)."""
    return {
        "points": points_now(game, player),
        "grid": copy.deepcopy(N.reserve_of(game, player)),
        "check": [list(s) for s in N.checks_of(game, player)],
        "round": game["round"],
    }


def remember_change(game: dict, player: str, text: str, before: dict) -> None:
    st.session_state[LAST_CHANGE] = {"player": player, "text": text, **before}


def undo(game: dict) -> None:
    """Callback: put back the reserve as it was before the last change."""
    change = st.session_state.get(LAST_CHANGE) or {}
    if change.get("round") != game["round"] or change.get("player") not in game["players"]:
        return
    player = change["player"]
    game["reserves"][player][game["round"] - 1] = change["grid"]
    game["check"][player] = change["check"]
    st.session_state[LAST_CHANGE] = None
    st.session_state[S.FLASH] = f"Undone: {change['text']}"


def points_now(game: dict, player: str) -> dict[str, int]:
    result = N.score(game)
    return {str(g["goal"]): g["points"] for g in N.reason_lines(result, player, game["round"])}


def tap_ui(game: dict, player: str) -> None:
    """The picker for the selected square (tap a square of the reserve first)."""
    selected = st.session_state.get(SELECTED)
    if selected is None:
        st.caption("Tap a square of the reserve, then what it shows.")
        return
    r, c = selected
    grid = N.reserve_of(game, player)
    st.caption(f"{N.position_name(r, c)}: {N.square_name(grid[r][c])} → tap the right kind")
    likely = game.get("likely", {}).get(player, {}).get(f"{r},{c}")

    def pick(token: str) -> None:
        before = snapshot(game, player)
        old = grid[r][c]
        if N.set_square(game, player, r, c, token):
            remember_change(
                game,
                player,
                f"{N.position_name(r, c)}: {N.square_name(old)} → {N.square_name(token)}",
                before,
            )
        st.session_state[SELECTED] = None

    picker_ui(grid[r][c], pick, likely=likely)


def place_ui(game: dict, player: str) -> None:
    """Lay cards at card speed: type the card's number, tap its turn (0° unless tapped), then
    tap where its top-left square goes on the reserve — up to 3 taps a card. The grid shows
    the reserve with one square around it wherever the next card may go (up and left too:
    the reserve moves to make room, within 6 x 6); the turn goes back to 0° for the next card.
    """
    from scoring.nimalia.cards import turn

    if st.session_state.get(KEY_TURN) not in (0, 90, 180, 270):
        st.session_state[KEY_TURN] = 0
    cols = st.columns([1, 2], vertical_alignment="bottom")
    cols[0].number_input("Card number", 1, 60, value=None, key=KEY_CARD, step=1)
    card = st.session_state.get(KEY_CARD)
    degrees = int(st.session_state[KEY_TURN])
    if card is None:
        cols[1].caption("Type the card's number, then tap where its top-left square goes.")
    else:
        cols[1].caption(f"Card {int(card)}: tap its turn, then where its top-left square goes.")

    def set_turn(d: int) -> None:
        st.session_state[KEY_TURN] = d

    turns = st.grid(4, wrap=False, min_column_width=60, gap="xxsmall")
    for d in (0, 90, 180, 270):  # the card as it would lie, each turn one tap
        if card is not None and 1 <= int(card) <= 60:
            sq = [N.square_text(x.token) for x in turn(int(card), d)]
            label = f"{sq[0]}{sq[1]}\n{sq[2]}{sq[3]}"
        else:
            label = f"↻ {d}°"
        turns.button(
            label,
            key=f"nim_turn_{d}",
            help=f"Turned {d}° clockwise",
            type="primary" if d == degrees else "secondary",
            on_click=set_turn,
            args=(d,),
            width="stretch",
        )
    top, left, height, width = lay_window(game, player)
    grid = N.reserve_of(game, player)
    spots = set(N.grown_positions(game, player))

    def token_at(r: int, c: int) -> str:
        return grid[r][c] if 0 <= r < len(grid) and 0 <= c < len(grid[0]) else "."

    def lay(r: int, c: int) -> None:
        number = st.session_state.get(KEY_CARD)
        if number is None:
            st.session_state[S.FLASH] = "Type the card's number first, then tap the grid."
            return
        d = int(st.session_state.get(KEY_TURN) or 0)
        before = snapshot(game, player)
        try:
            _squares, moved = N.lay_card(game, player, int(number), r, c, d)
        except (ValueError, TypeError) as error:
            st.session_state[S.FLASH] = str(error)
            return
        where = N.position_name(r + moved[0], c + moved[1])
        note = " (the reserve moved to make room)" if any(moved) else ""
        remember_change(
            game, player, f"Card {int(number)} turned {d}° laid at {where}{note}", before
        )
        st.session_state[KEY_TURN] = 0  # the next card starts unturned
        st.session_state[KEY_CARD] = None

    window = [[token_at(top + i, left + j) for j in range(width)] for i in range(height)]
    lay_grid_style_ui(window, key=KEY_LAY, footprint=[(r - top, c - left) for r, c in spots])
    board = st.grid(width, wrap=False, min_column_width=40, gap="xxsmall")
    for i in range(height):
        for j in range(width):
            r, c = top + i, left + j
            board.button(
                N.square_text(window[i][j]),
                key=f"{KEY_LAY}_{i}_{j}",
                help="Lay the card with its top-left square here" if (r, c) in spots else None,
                on_click=lay,
                args=(r, c),
                width="stretch",
                disabled=(r, c) not in spots,
            )
    st.caption("Dotted: where a card's top-left square may go.")
