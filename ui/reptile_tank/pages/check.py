"""Page 3 — Check the read: the board as read, the cells to check first, a fix in two taps.

Cells the reader flagged ``check`` are outlined and listed first; tapping a cell opens a picker
with the reader's best guesses first (their face pictures are the buttons), then every card by
category. The total and the pad line the last fix changed stay at the top of the screen. The
whole board can also be typed as a grid of selectboxes (manual entry, no photo needed).
"""

from __future__ import annotations

import streamlit as st

from ui import state as S
from ui.backend import load_rules
from ui.navigation import page_path
from ui.pages_common import next_player_hint_ui, player_picker_ui, require_game, saved_state_ui
from ui.reptile_tank.journey import cell_name, is_complete, pad_columns, score_entry
from ui.reptile_tank.labels import full_name
from ui.reptile_tank.widgets import board_fix_ui, grid_editor_ui

KEY_GRID = "check_grid"
KEY_THUMBS = "check_thumbs"


def _pad(entry, rules):
    return score_entry(
        entry,
        rules,
        objectives=st.session_state[S.OBJECTIVES],
        players=len(st.session_state[S.PLAYERS]),
        star_cards_out=st.session_state[S.STAR_CARDS_OUT],
    )


def fix_line(fix: dict) -> str:
    """The last fix in words: which cell, old → new card, and the pad lines that moved."""
    moved = [f"{h} {a} → {b}" for h, a, b in fix["changes"]]
    text = f"{cell_name(fix['row'], fix['col'])}: {full_name(fix['old'])} → {full_name(fix['new'])}"
    return text + (f" · {', '.join(moved)} VP" if moved else " · no VP change")


def total_box_ui(player: str, entry, pad) -> None:
    """The total (and what the last fix changed), kept at the top of the screen."""
    with st.container(key="check_total"):
        label = "Total" if is_complete(entry.rows) else "Score so far"
        fix = st.session_state[S.LAST_FIX]
        delta = None
        if fix and fix["player"] == player:
            delta = fix["total_new"] - fix["total_old"]
        st.metric(label, f"{pad.total} VP", delta=f"{delta:+d} VP" if delta else None)
        if fix and fix["player"] == player:
            st.caption(fix_line(fix))


def check_ui() -> None:
    st.title("🔎 Check the read")
    if not require_game():
        return
    saved_state_ui()
    player = player_picker_ui(key="check_player")
    entry = st.session_state[S.ENTRIES].get(player)
    if entry is None:
        st.info("This terrarium has not been entered yet: photograph it, or enter it by hand.")
        if st.button("Enter this board by hand", key="check_manual", type="primary"):
            S.start_manual(st.session_state, player)
            st.rerun()
        st.page_link(page_path("photo.py"), label="Photograph it", icon="📷")
        return
    rules = load_rules()

    def typed(r: int, c: int, label: str) -> None:
        before = _pad(entry, rules)
        old = entry.rows[r][c]
        if not S.set_cell(st.session_state, player, r, c, label):
            return
        after = _pad(entry, rules)
        changes = [
            (a.header, a.vp, b.vp)
            for a, b in zip(pad_columns(before), pad_columns(after), strict=True)
            if a.vp != b.vp
        ]
        st.session_state[S.LAST_FIX] = {
            "player": player,
            "row": r,
            "col": c,
            "old": old,
            "new": label,
            "changes": changes,
            "total_old": int(before.total),
            "total_new": int(after.total),
        }

    total_box_ui(player, entry, _pad(entry, rules))
    if entry.overlay_jpeg is not None:
        board_box, photo_box = st.columns([1, 1])  # board first: on a phone it comes on top
    else:
        st.caption("Entered by hand. Tap a cell to set it, or type the whole grid below.")
        board_box, photo_box = st.container(), None
    with board_box:
        board_fix_ui(
            entry,
            typed,
            key="check",
            selected_key=S.SELECTED_CELL,
            thumbnails=st.session_state.get(KEY_THUMBS, True),
        )
    if photo_box is not None:
        photo_box.image(entry.overlay_jpeg, caption="The photo as read", width="stretch")
    with st.expander("Type the whole board (no photo needed)", expanded=entry.source == "manual"):
        grid_editor_ui(entry.rows, typed, key=KEY_GRID)
    next_player_hint_ui(player)
    st.page_link(page_path("pad.py"), label="See the score pad with every reason", icon="🧮")


check_ui()
