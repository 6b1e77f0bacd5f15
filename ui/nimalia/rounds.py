"""A round's view: its goals, the player, the goal points and their change, the reasons drawn on
the reserve, the running totals, the round shown, and the final ranking saved to the
leaderboard."""

from __future__ import annotations

import streamlit as st

from service.errors import STORAGE_ERRORS, storage_message
from service.nimalia import game as N
from ui import state as S
from ui.kit import night_link
from ui.nimalia.board import undo
from ui.nimalia.draft import SHOWN
from ui.nimalia.widgets import (
    GAME,
    LAST_CHANGE,
    REVISION,
    get_nimalia_store,
)
from ui.text import escape_markdown

KEY_PLAYER = "nim_player"
KEY_SHOW = "nim_show"
KEY_VIEW = "nim_view"


def goals_header_ui(game: dict) -> None:
    catalogue = N.catalogue()
    number = game["round"]
    scored = N.round_goals(game, number)
    st.markdown(
        f"**Round {number} of {N.rounds_total()}** · scores goals "
        + ", ".join(f"{g} ({catalogue[g]['colour']})" for g in scored)
    )
    with st.expander("The 4 goals"):
        st.caption(
            f"Goal 12 scored as {game.get('goal12', 'printed')}; "
            f"tie-break: {str(game.get('tiebreak', 'adaptation')).replace('_', ' ')}."
        )
        for g in game["goals"]:
            st.text(
                f"{g}. {catalogue[g]['name']} ({catalogue[g]['colour']}): {catalogue[g]['text']}"
            )


def player_ui(game: dict) -> str:
    players = game["players"]
    if st.session_state.get(KEY_PLAYER) not in players:
        st.session_state[KEY_PLAYER] = players[0]
    return st.radio(
        "Player",
        players,
        key=KEY_PLAYER,
        horizontal=True,
        format_func=escape_markdown,
    )


def goal_points_ui(goals: list[dict], player: str, *, deltas: bool = True) -> None:
    """This round's goals for the player: points, and how the last change moved them."""
    change = (st.session_state.get(LAST_CHANGE) or {}) if deltas else {}
    before = change.get("points", {}) if change.get("player") == player else {}
    with st.container(key="nim_points"):
        grid = st.grid(len(goals) + 1, wrap=False, min_column_width=60, gap="xxsmall")
        for goal in goals:
            old = before.get(str(goal["goal"]))
            delta = None if old is None or old == goal["points"] else goal["points"] - old
            grid.metric(
                f"Goal {goal['goal']}",
                goal["points"],
                delta=f"{delta:+d}" if delta else None,
                help=goal["name"],
            )
        grid.metric("Total", goals[-1]["total_after"] if goals else 0)
    if change.get("player") == player and change.get("text"):
        cols = st.columns([3, 1], vertical_alignment="center")
        cols[0].caption(change["text"])
        cols[1].button("Undo", key="nim_undo", on_click=undo, args=(st.session_state[GAME],))


def reasons_ui(goals: list[dict]) -> tuple[list[tuple[int, int]], list[str], dict[str, str]]:
    """Pick a goal or one of its lines to ring its squares on the reserve; returns them."""
    options: list[str] = ["none"]
    squares: dict[str, list[tuple[int, int]]] = {"none": []}
    labels: dict[str, str] = {"none": "Nothing highlighted"}
    for goal in goals:
        key = f"g{goal['goal']}"
        options.append(key)
        squares[key] = [tuple(s) for line in goal["lines"] for s in line["squares"]]
        labels[key] = f"Goal {goal['goal']} · {goal['points']:+d}: {goal['reason']}"
        for i, line in enumerate(goal["lines"]):
            if len(goal["lines"]) > 1:
                lk = f"g{goal['goal']}_{i}"
                options.append(lk)
                squares[lk] = [tuple(s) for s in line["squares"]]
                labels[lk] = f"  └ {line['points']:+d}: {line['reason']}"
    if st.session_state.get(KEY_SHOW) not in options:
        st.session_state[KEY_SHOW] = "none"
    shown = st.session_state[KEY_SHOW]
    return squares.get(shown, []), options, labels


def reasons_list_ui(goals: list[dict], options, labels) -> None:
    st.caption("Why: tap a goal or a line to ring its squares on the reserve.")
    st.radio(
        "Show on the reserve",
        options,
        key=KEY_SHOW,
        format_func=lambda k: escape_markdown(labels[k]),  # relative goals name players
        label_visibility="collapsed",
    )


def totals_ui(result: dict) -> None:
    rows = []
    for p in result["players"]:
        row = {"Player": p["name"]}
        for r in p["rounds"]:
            row[f"R{r['round']}"] = r["goals"][-1]["total_after"] if r["goals"] else r["total"]
        rows.append(row)
    st.caption("Running totals (floored at 0 after each goal)")
    st.dataframe(rows, hide_index=True, key="nim_totals")


def finish_ui(game: dict, result: dict) -> None:
    st.subheader("Final ranking")
    st.dataframe(N.ranking_rows(result), hide_index=True, key="nim_ranking")
    st.caption("Ties on the total: most animals of one kind in the last reserve (as counted).")
    found = get_nimalia_store().saved(game["uid"])  # saved here, on another phone, earlier
    changed = found is not None and found[1] != game
    if found is not None and not changed:
        st.success(f"Nimalia game {found[0]} is saved to the leaderboard.")
        night_link("leaderboard.py", "See the leaderboard", "🏆")
        if st.button("New Nimalia game", key="nim_new"):
            st.session_state[GAME] = None
            st.rerun()
        return
    if changed:
        st.warning(f"Nimalia game {found[0]} changed since it was saved.")
    label = "Save the changes" if changed else "Save to the leaderboard"
    if st.button(label, type="primary", key="nim_save"):
        if st.session_state.get(SHOWN) != st.session_state.get(REVISION):
            # another device wrote after this page was drawn: save only what the player saw
            st.warning(
                "Not saved: this Nimalia game was changed on another device just now (shown "
                "above). Check it and save again."
            )
            return
        try:
            get_nimalia_store().save_game(st.session_state[S.SESSION_ID], game, result)
        except STORAGE_ERRORS as error:
            st.error(escape_markdown(f"Not saved: {storage_message(error)}"))
            return
        st.rerun()


def round_view_ui(game: dict) -> int:
    """Which round's reserve and goals are shown: the round being played, or an earlier one
    (read-only, as it was scored)."""
    number = game["round"]
    if number == 1:
        return 1
    if st.session_state.get(KEY_VIEW) not in range(1, number + 1):
        st.session_state[KEY_VIEW] = number
    return st.segmented_control(
        "Round",
        list(range(1, number + 1)),
        key=KEY_VIEW,
        required=True,
        format_func=lambda k: f"Round {k}" if k == number else f"R{k}",
    )
