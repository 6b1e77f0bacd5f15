"""The shared UI of played games (:mod:`leaderboard.played`): the door to one game's saved
games and drafts, and the standings view the leaderboard page shows for a game that brings
none of its own. Game-blind: the game is an id from :mod:`games`."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

import games
from ui import state as S
from ui.backend import db_url, get_store
from ui.text import local_time


@st.cache_resource(show_spinner=False)
def _played_for(url: str | None, game_id: str) -> Any:
    from leaderboard.played import PlayedGames

    return PlayedGames(get_store(), game_id, name=games.game(game_id).name)


def played_games(game_id: str) -> Any:
    """One game's saved games and drafts (:class:`leaderboard.played.PlayedGames`), one per
    database and game."""
    return _played_for(db_url(), game_id)


def game_rows(
    found: Any, timezone: str | None = None, describe: Any = None
) -> list[dict[str, Any]]:
    """Saved games as table rows, "Played" in the viewer's local time; ``describe(document)``
    (the game's ``describe_game``) adds the game's own columns before the result."""
    return [
        {
            "Game": g.id,
            "Played": local_time(g.played_at, timezone),
            **(describe(g.document) if describe else {}),
            "Result": " · ".join(
                f"{p.rank}. {p.name} {p.total}"
                for p in sorted(g.players, key=lambda p: (p.rank, p.seat))
            ),
        }
        for g in found
    ]


def export_scope(session_id: int | None) -> int | None:
    """The night an export carries: the chosen one (this page's under "All time"); every
    night only when asked ("Export every game night" on the leaderboard page)."""
    if st.session_state.get("lb_export_all"):
        return None
    chosen = session_id or st.session_state.get(S.SESSION_ID)
    return -1 if chosen is None else chosen  # no night of this browser: an empty export


def standings_view(game_id: str):
    """The leaderboard view of ``game_id``'s played games: ``render(store, session_id)``."""

    def render(_store: Any, session_id: int | None) -> None:
        standings_ui(game_id, session_id)

    return render


def standings_ui(game_id: str, session_id: int | None) -> None:
    """One game's standings, its games, a JSON export and deleting a game (never mixed with
    another game's)."""
    entry = games.game(game_id)
    store = played_games(game_id)
    key = f"lb_{game_id}"
    rows = [
        {
            "Player": s.player,
            "Games": s.games,
            "Wins": s.wins,
            "Total": s.total,
            "Average": f"{s.average:.1f}",
            "Best": s.best,
        }
        for s in store.standings(session_id)
    ]
    if not rows:
        st.info(f"No saved {entry.name} games yet.")
        return
    st.dataframe(rows, hide_index=True, key=f"{key}_standings")
    found = store.list_games(session_id)
    describe = games.resolve(entry.describe_game) if entry.describe_game else None
    st.caption(f"{entry.name} games ({len(found)})")
    st.dataframe(
        game_rows(found, st.context.timezone, describe), hide_index=True, key=f"{key}_games"
    )
    st.download_button(
        f"Download {entry.name} games (JSON)",
        lambda: json.dumps(
            store.export_json(export_scope(session_id)), ensure_ascii=False, indent=1
        ),
        file_name=f"{game_id}-games.json",
        mime="application/json",
        key=f"{key}_json",
        on_click="ignore",
    )
    with st.expander(f"Delete a {entry.name} game"):
        st.selectbox(
            f"{entry.name} game",
            [g.id for g in found],
            key=f"{key}_delete_game",
            format_func=lambda i: f"{entry.name} game {i}",
        )
        sure = st.checkbox(f"Yes, delete this {entry.name} game for good", key=f"{key}_delete_sure")

        def delete() -> None:
            game_id_ = st.session_state[f"{key}_delete_game"]
            if not st.session_state.get(f"{key}_delete_sure"):
                return
            store.delete_game(game_id_)
            st.session_state[f"{key}_delete_sure"] = False
            st.session_state[S.FLASH] = f"{entry.name} game {game_id_} deleted."

        st.button(
            f"Delete {entry.name} game", key=f"{key}_delete", disabled=not sure, on_click=delete
        )


def views() -> list[games.LeaderboardView]:
    """Every game's leaderboard views, in the game list's order (the shared played-games view
    for a game that names none)."""
    out = []
    for entry in games.GAMES.values():
        out.extend(
            entry.leaderboard
            or (games.LeaderboardView(entry.id, entry.name, standings_view(entry.id)),)
        )
    return out
