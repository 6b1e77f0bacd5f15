"""Nimalia's widgets: the night's game choice, the reserve as 36 square buttons, the square
picker, the store door, and the Nimalia standings for the leaderboard page.

The UI only renders and collects: every rule is :mod:`service.nimalia.game`'s (and so the engine's).
User text (player names) only goes through ``escape_markdown`` labels or dataframes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import streamlit as st

from service.nimalia import game as N
from ui import state as S
from ui.backend import db_url, get_store, night_settings, save_night_settings
from ui.reptile_tank.journey import escape_markdown

#: The Nimalia game on this page (``service.nimalia.game``'s document) and its bookkeeping.
GAME = "nim_game"
NIGHT = "nim_night"
REVISION = "nim_revision"
HASH = "nim_hash"
SELECTED = "nim_selected"
LAST_CHANGE = "nim_last_change"
KEY_GAME_CHOICE = "night_game"
GAME_NAMES = {"reptile_tank": "Reptile Tank", "nimalia": "Nimalia"}


@st.cache_resource(show_spinner=False)
def _nimalia_store_for(url: str | None) -> Any:
    from leaderboard.nimalia_games import NimaliaStore

    return NimaliaStore(get_store())


def get_nimalia_store() -> Any:
    """Nimalia's saved games and drafts (``leaderboard.nimalia_games``), one per database."""
    return _nimalia_store_for(db_url())


# ------------------------------------------------------------------------------ game of the night


def night_game() -> str:
    """The game this page's game night plays (``"reptile_tank"`` without a night)."""
    return night_settings().game


def game_choice_ui() -> str:
    """Which game the night plays, one tap; kept in the night's settings (every phone of the
    night follows). Returns the game id."""
    current = night_game()
    st.session_state[KEY_GAME_CHOICE] = current

    def changed() -> None:
        chosen = st.session_state.get(KEY_GAME_CHOICE) or current
        save_night_settings(replace(night_settings(), game=chosen))
        st.session_state[S.FLASH] = f"This game night plays {GAME_NAMES[chosen]}."

    st.segmented_control(
        "Game tonight",
        list(GAME_NAMES),
        format_func=GAME_NAMES.get,
        key=KEY_GAME_CHOICE,
        required=True,
        on_change=changed,
    )
    return current


# ------------------------------------------------------------------------------ the reserve


#: Constant CSS of the reserve and picker buttons (no user text).
RESERVE_CSS = """<style>
div[class*="st-key-nim_sq_"] button {
  min-height: 3.1rem; padding: 0.1rem 0; font-size: 1.15rem; line-height: 1.1;
  border: 1px solid rgba(0, 0, 0, 0.25); color: #111;
}
div[class*="st-key-nim_pick_"] button {
  min-height: 2.7rem; padding: 0.15rem 0.25rem; font-size: 0.85rem; color: #111;
}
div[class*="st-key-nim_sq_"] button p, div[class*="st-key-nim_pick_"] button p {
  white-space: normal; overflow-wrap: anywhere;
}
div[class*="st-key-nim_sq_"] button p { font-size: 1.35rem; }
</style>"""


def _colour_rules(selector: str, token: str) -> str:
    colour = N.square_colour(token)
    if colour is None:  # empty: the table, not a card
        return f"{selector} button {{ background: #fff; border-style: dashed; }}"
    return f"{selector} button {{ background: {colour}; }}"


def reserve_css(
    rows: list[list[str]],
    *,
    key: str,
    flagged: Iterable[tuple[int, int]] = (),
    highlight: Iterable[tuple[int, int]] = (),
    selected: tuple[int, int] | None = None,
    footprint: Iterable[tuple[int, int]] = (),
) -> str:
    """Per-square CSS: land colours, flagged squares outlined (dashed orange), the squares a
    reason refers to ringed (thick blue), the selected square framed black, where the next card
    would go dotted black."""
    rules = [
        _colour_rules(f".st-key-{key}_{r}_{c}", token)
        for r, line in enumerate(rows)
        for c, token in enumerate(line)
    ]
    rules += [
        f".st-key-{key}_{r}_{c} button {{ outline: 3px dashed #d55e00; outline-offset: -4px; }}"
        for r, c in flagged
    ]
    rules += [
        f".st-key-{key}_{r}_{c} button {{ border: 4px solid #0b3d91 !important; "
        "box-shadow: 0 0 0 2px #0b3d91; }"
        for r, c in highlight
    ]
    rules += [
        f".st-key-{key}_{r}_{c} button {{ outline: 3px dotted #000; outline-offset: -6px; }}"
        for r, c in footprint
    ]
    if selected is not None:
        r, c = selected
        rules.append(
            f".st-key-{key}_{r}_{c} button {{ border: 3px solid #000 !important; "
            "transform: scale(0.94); }"
        )
    return "<style>" + " ".join(rules) + "</style>"


def reserve_ui(
    rows: list[list[str]],
    *,
    key: str = "nim_sq",
    flagged: Iterable[tuple[int, int]] = (),
    highlight: Iterable[tuple[int, int]] = (),
    selected: tuple[int, int] | None = None,
    on_select: Callable[[int, int], None] | None = None,
    footprint: Iterable[tuple[int, int]] = (),
) -> None:
    """The reserve as 6 x 6 square buttons that keep their 6 columns on a 390 px phone."""
    flagged, highlight = list(flagged), list(highlight)
    st.html(
        RESERVE_CSS
        + reserve_css(
            rows,
            key=key,
            flagged=flagged,
            highlight=highlight,
            selected=selected,
            footprint=footprint,
        )
    )
    grid = st.grid(len(rows[0]), wrap=False, min_column_width=44, gap="xxsmall")
    for r, line in enumerate(rows):
        for c, token in enumerate(line):
            note = " — please check" if (r, c) in flagged else ""
            grid.button(
                N.square_text(token),
                key=f"{key}_{r}_{c}",
                help=f"{N.position_name(r, c)}: {N.square_name(token)}{note}",
                on_click=on_select,
                args=(r, c) if on_select else None,
                width="stretch",
                disabled=on_select is None,
            )


def lay_window(game: dict, player: str) -> tuple[int, int, int, int]:
    """``(top, left, rows, cols)`` of the lay grid: the reserve and every place the next card
    may go (one square up or left of it too), so the window follows the reserve as it grows."""
    grid = N.reserve_of(game, player)
    cells = [(r, c) for r, line in enumerate(grid) for c, t in enumerate(line) if t != "."]
    for r, c in N.grown_positions(game, player):
        cells += [(r, c), (r + 1, c + 1)]
    top, left = min(r for r, _ in cells), min(c for _, c in cells)
    bottom, right = max(r for r, _ in cells), max(c for _, c in cells)
    return top, left, bottom - top + 1, right - left + 1


def picker_ui(
    current: str, on_pick: Callable[[str], None], *, likely: list[str] | None = None
) -> None:
    """The 14 kinds and empty, one tap each (otters with their river); the reader's likely
    kinds first. Widget keys ``nim_pick_<index in TOKENS>``."""
    order = [t for t in (likely or []) if t in N.TOKENS and t != current][:3]
    order += [t for t in N.TOKENS if t not in order]
    st.html(
        "<style>"
        + " ".join(_colour_rules(f".st-key-nim_pick_{N.TOKENS.index(t)}", t) for t in N.TOKENS)
        + f" .st-key-nim_pick_{N.TOKENS.index(current)} button {{ border: 3px solid #000; }}"
        + "</style>"
    )
    if likely:
        st.caption("Most likely first, then every kind:")
    grid = st.grid("auto", min_column_width=104, gap="xxsmall")
    for token in order:
        name = N.square_name(token)
        grid.button(
            f"{N.square_text(token)} {name}",
            key=f"nim_pick_{N.TOKENS.index(token)}",
            on_click=on_pick,
            args=(token,),
            width="stretch",
        )


# ------------------------------------------------------------------------------ leaderboard


def _export_scope(session_id: int | None) -> int | None:
    """The night a Nimalia export carries: the chosen one (this page's under "All time"); every
    night only when asked ("Export every game night" on the leaderboard page)."""
    if st.session_state.get("lb_export_all"):
        return None
    chosen = session_id or st.session_state.get(S.SESSION_ID)
    return -1 if chosen is None else chosen  # no night of this browser: an empty export


def nimalia_game_rows(games, timezone: str | None = None) -> list[dict]:
    """Saved Nimalia games as table rows, "Played" in the viewer's local time (as Reptile
    Tank's: :func:`ui.reptile_tank.journey.local_time`)."""
    from ui.reptile_tank.journey import local_time

    return [
        {
            "Game": g.id,
            "Played": local_time(g.played_at, timezone),
            "Goals": ", ".join(str(x) for x in g.goals),
            "Result": " · ".join(
                f"{p.rank}. {p.name} {p.total}"
                for p in sorted(g.players, key=lambda p: (p.rank, p.seat))
            ),
        }
        for g in games
    ]


def standings_ui(session_id: int | None) -> None:
    """Nimalia's standings and games (never mixed with Reptile Tank's)."""
    store = get_nimalia_store()
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
        st.info("No saved Nimalia games yet.")
        return
    st.dataframe(rows, hide_index=True, key="lb_nimalia_standings")
    games = store.list_games(session_id)
    st.caption(f"Nimalia games ({len(games)})")
    st.dataframe(
        nimalia_game_rows(games, st.context.timezone), hide_index=True, key="lb_nimalia_games"
    )
    st.download_button(
        "Download Nimalia games (JSON)",
        lambda: json.dumps(
            store.export_json(_export_scope(session_id)), ensure_ascii=False, indent=1
        ),
        file_name="nimalia-games.json",
        mime="application/json",
        key="lb_nim_json",
        on_click="ignore",
    )
    with st.expander("Delete a Nimalia game"):
        st.selectbox(
            "Nimalia game",
            [g.id for g in games],
            key="lb_nim_delete_game",
            format_func=lambda i: f"Nimalia game {i}",
        )
        sure = st.checkbox("Yes, delete this Nimalia game for good", key="lb_nim_delete_sure")

        def delete() -> None:
            game_id = st.session_state["lb_nim_delete_game"]
            if not st.session_state.get("lb_nim_delete_sure"):
                return
            store.delete_game(game_id)
            st.session_state["lb_nim_delete_sure"] = False
            st.session_state[S.FLASH] = f"Nimalia game {game_id} deleted."

        st.button("Delete Nimalia game", key="lb_nim_delete", disabled=not sure, on_click=delete)


__all__ = ["escape_markdown"]
