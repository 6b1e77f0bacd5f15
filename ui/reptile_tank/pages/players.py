"""Page — Players and history: one player's games, trend, best terrarium and head-to-head;
every saved game with its photos, to look at, edit or remove."""

from __future__ import annotations

from types import SimpleNamespace

import streamlit as st

from service.errors import STORAGE_ERRORS, storage_message
from service.reptile_tank.records import player_history
from ui import nights
from ui.navigation import page_path
from ui.reptile_tank import persist
from ui.reptile_tank import state as S
from ui.reptile_tank.backend import get_store
from ui.reptile_tank.journey import escape_markdown
from ui.reptile_tank.widgets import flash_ui, pad_picture_ui
from ui.text import local_time

KEY_PLAYER = "players_player"
KEY_GAME = "players_game"


def pad_of(pad_json: dict) -> SimpleNamespace:
    """A stored pad (JSON) with what the board drawing reads: groups, total."""
    groups = [
        SimpleNamespace(
            cells=[tuple(c) for c in g.get("cells", [])],
            vp=int(g.get("vp", 0)),
            provenance=g.get("provenance", ""),
        )
        for g in pad_json.get("groups", [])
    ]
    return SimpleNamespace(groups=groups, total=int(pad_json.get("total", 0)))


def player_ui(games) -> None:
    names = sorted({line.name for game in games for line in game.players})
    if not names:
        st.info("No saved games yet.")
        return
    name = st.selectbox("Player", names, key=KEY_PLAYER)
    history = player_history(games, name)
    cols = st.columns(3)
    cols[0].metric("Games", len(history["games"]))
    cols[1].metric("Wins", history["wins"])
    cols[2].metric("Average VP", history["average"])
    if len(history["trend"]) >= 2:
        st.caption("Total VP, game after game")
        st.line_chart(history["trend"], height=160)
    if history["best"] is not None:
        best = next(g for g in games if g.id == history["best"]["game"])
        line = next(p for p in best.players if p.name == name)
        st.subheader(f"Best terrarium: {history['best']['total']} VP (game {best.id})")
        pad_picture_ui(line.board["rows"], pad_of(line.pad))
    if history["head_to_head"]:
        st.subheader("Head to head")
        st.dataframe(history["head_to_head"], hide_index=True, key="players_h2h")


def edit(game_id: int) -> None:
    try:
        persist.edit_saved_game(st.session_state, game_id)
    except STORAGE_ERRORS as error:
        st.session_state[S.STORAGE_ERROR] = f"Cannot edit: {storage_message(error)}"
        return
    st.session_state[S.FLASH] = f"Game {game_id} is open: fix it, then update it on Confirm."


def game_ui(games) -> None:
    ids = [g.id for g in reversed(games)]
    game_id = st.selectbox("Game", ids, key=KEY_GAME, format_func=lambda i: f"Game {i}")
    game = next(g for g in games if g.id == game_id)
    st.caption(
        f"Played {local_time(game.played_at, st.context.timezone)} · {game.mode}"
        + (f" · edited {len(game.extra.get('edits', []))}×" if game.extra.get("edits") else "")
    )
    for line in game.players:
        with st.container(border=True):
            st.text(f"{line.name} — {line.total} VP, place {line.rank}")
            if line.photo_thumbnail:
                st.image(line.photo_thumbnail, caption="The photo", width=240)
            pad_picture_ui(line.board["rows"], pad_of(line.pad), caption=" ")
    if game.notes:
        st.caption("Notes")
        st.text(game.notes)
    in_progress = st.session_state[S.PLAYERS] and st.session_state[S.LAST_SAVED_GAME] is None
    if game.mode == "multi" and in_progress:
        st.caption("Editing this game puts the unsaved game on this night aside (closed).")
    if game.mode == "multi" and st.button(
        f"Edit game {game.id}", key="players_edit", on_click=edit, args=(game.id,)
    ):
        st.switch_page(page_path("check.py"))


def players_ui() -> None:
    st.title("👤 Players and history")
    flash_ui(st.session_state)
    try:
        store = get_store()
        mine = nights.visible_ids(store, st.session_state)  # only this browser's nights
        games = [g for g in store.list_games() if g.session_id in mine]
    except STORAGE_ERRORS as error:
        st.error(escape_markdown(f"The games cannot be read: {storage_message(error)}"))
        return
    tab_player, tab_game = st.tabs(["A player", "A game"])
    with tab_player:
        player_ui(games)
    with tab_game:
        if games:
            game_ui(games)
        else:
            st.info("No saved games yet.")


players_ui()
