"""Reptile Tank's views on the leaderboard page: table games (wins, totals, averages, a chart)
and solo games against the Terrarium Master, each followed by the night's games (one page at a
time; deleting one with confirmation), renaming a player and the CSV/JSON exports. Reptile
Tank's saved games are :class:`leaderboard.store.Store`'s records."""

from __future__ import annotations

import json

import streamlit as st

from ui import nights
from ui.navigation import page_path
from ui.reptile_tank import state as S
from ui.reptile_tank.journey import (
    escape_markdown,
    game_rows,
    solo_game_rows,
    solo_standings_rows,
    standings_rows,
)

KEY_RENAME_OLD = "lb_rename_old"
KEY_RENAME_NEW = "lb_rename_new"
KEY_DELETE_GAME = "lb_delete_game"
KEY_DELETE_SURE = "lb_delete_sure"
#: Standings rows and games shown per page.
STANDINGS_SHOWN = 50
GAMES_PER_PAGE = 20
KEY_GAMES_PAGE = "lb_games_page"


def table_standings_ui(store, session_id: int | None) -> None:
    """Table games: wins (ties for first all win), totals, averages; then the games."""
    _view(store, session_id, "multi")


def solo_standings_ui(store, session_id: int | None) -> None:
    """Solo: games against the Terrarium Master, how many were won, averages; then the games."""
    _view(store, session_id, "solo")


def _view(store, session_id: int | None, kind: str) -> None:
    standings_ui(store, session_id, kind)
    if session_id is None and not nights.passphrase_set():
        st.caption("Pick one of your game nights above to see (and edit) its games.")
    elif kind == "solo":
        solo_games_ui(store, session_id)
    else:
        games_ui(store, session_id)
    rename_ui(store)
    export_ui(store, session_id)


def standings_ui(store, session_id: int | None, kind: str) -> None:
    """The standings of ``kind`` (``"multi"`` or ``"solo"``)."""
    if kind == "solo":
        rows = solo_standings_rows([g for g in store.list_games(session_id) if g.mode == "solo"])
    else:
        page = store.leaderboard_page(session_id, mode="multi", offset=0, limit=STANDINGS_SHOWN)
        rows = standings_rows(page.rows)
        if page.total > len(page.rows):
            st.caption(f"The top {len(page.rows)} of {page.total} players.")
        if page.excluded_games:
            st.warning(
                f"{page.excluded_games} game(s) hold an impossible total and are left out; "
                "delete them below."
            )
    if not rows:
        st.info("No confirmed games of this kind yet.")
        return
    # A dataframe, not st.table: st.table renders names as Markdown (an image name would make
    # every viewer's browser fetch it); a dataframe shows text as text.
    st.dataframe(
        [{**row, "Average VP": f"{row['Average VP']:.1f}"} for row in rows],
        hide_index=True,
        key="lb_standings",
    )
    st.bar_chart(
        rows,
        x="Player",
        y="Average VP",
        horizontal=True,
        sort="-Average VP",
        height=60 + 40 * len(rows),
    )


def games_ui(store, session_id: int | None) -> None:
    """The games, newest first, one page at a time (the page never reads the whole history)."""
    page_no = int(st.session_state.get(KEY_GAMES_PAGE, 1))
    found = store.list_games_page(
        session_id, offset=(page_no - 1) * GAMES_PER_PAGE, limit=GAMES_PER_PAGE
    )
    st.subheader(f"Games ({found.total})")
    if not found.total:
        return
    pages = max(1, -(-found.total // GAMES_PER_PAGE))
    if page_no > pages:  # games were deleted: back to the last page
        st.session_state[KEY_GAMES_PAGE] = pages
        st.rerun()
    st.dataframe(game_rows(found.games, st.context.timezone), hide_index=True, key="lb_games")
    if pages > 1:
        st.number_input(
            f"Page (of {pages})", min_value=1, max_value=pages, step=1, key=KEY_GAMES_PAGE
        )
    st.page_link(page_path("players.py"), label="Player pages, photos, edit a game", icon="👤")
    shown = {g.id for g in found.games}
    delete_game_ui(
        store,
        [g.id for g in found.games]
        + [i for i in store.out_of_range_games(session_id) if i not in shown],
    )


def delete_game_ui(store, ids: list[int]) -> None:
    """Delete one of ``ids`` (a choice, a confirmation tick, then the button)."""
    with st.expander("Delete a game"):
        st.selectbox("Game", ids, key=KEY_DELETE_GAME, format_func=lambda i: f"Game {i}")
        sure = st.checkbox("Yes, delete this game for good", key=KEY_DELETE_SURE)
        st.button(
            "Delete game",
            key="lb_delete",
            disabled=not sure,
            type="primary",
            on_click=delete_game,
            args=(store,),
        )


def solo_games_ui(store, session_id: int | None) -> None:
    """Solo games only (never the table's), newest first, each with the Master's score and who
    won; one can be deleted (with confirmation)."""
    games = [g for g in reversed(store.list_games(session_id)) if g.mode == "solo"]
    st.subheader(f"Solo games ({len(games)})")
    if not games:
        return
    st.dataframe(solo_game_rows(games, st.context.timezone), hide_index=True, key="lb_solo_games")
    delete_game_ui(store, [g.id for g in games])


def delete_game(store) -> None:
    """Callback: delete the chosen game (the confirmation box was ticked) and untick it."""
    game_id = st.session_state[KEY_DELETE_GAME]
    if not st.session_state.get(KEY_DELETE_SURE):
        return
    store.delete_game(game_id)
    st.session_state[KEY_DELETE_SURE] = False
    st.session_state[S.FLASH] = f"Game {game_id} deleted."


def rename_ui(store) -> None:
    players = store.list_players()
    if not players:
        return
    with st.expander("Rename a player"):
        st.selectbox("Player", players, key=KEY_RENAME_OLD)
        st.text_input("New name", key=KEY_RENAME_NEW, max_chars=S.MAX_NAME_LENGTH)
        if st.button("Rename", key="lb_rename"):
            try:
                new = S.clean_name(st.session_state[KEY_RENAME_NEW])
                store.rename_player(st.session_state[KEY_RENAME_OLD], new)
            except ValueError as error:
                st.error(escape_markdown(str(error)))
            else:
                st.session_state[S.FLASH] = "Player renamed."
                st.rerun()


def export_ui(store, session_id: int | None) -> None:
    """CSV and JSON exports, built when tapped (not on every click of the page): of the chosen
    game night (this page's night under "All time") unless every night is asked for."""
    if session_id is None:
        session_id = st.session_state[S.SESSION_ID]
    every = st.checkbox(
        "Export every game night on this server", key="lb_export_all", value=session_id is None
    )
    if every:
        session_id = None
    cols = st.columns(2)
    cols[0].download_button(
        "Download CSV",
        lambda: store.export_csv(session_id),
        file_name="reptile-tank-leaderboard.csv",
        mime="text/csv",
        key="lb_csv",
        width="stretch",
        on_click="ignore",
    )
    cols[1].download_button(
        "Download JSON",
        lambda: json.dumps(store.export_json(session_id), ensure_ascii=False, indent=1),
        file_name="reptile-tank-leaderboard.json",
        mime="application/json",
        key="lb_json",
        width="stretch",
        on_click="ignore",
    )
