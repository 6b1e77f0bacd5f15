"""Page 3 — Check the read: the photo with the fitted grid beside the board as read.

Low-confidence cells are highlighted; tapping a cell opens the picker of the 17 labels (with a
thumbnail of each face) and one tap sets it. The whole board can also be typed as a grid of
selectboxes (manual entry, no photo needed). The score so far updates with every fix.
"""

from __future__ import annotations

import streamlit as st

from ui import state as S
from ui.backend import load_rules
from ui.journey import is_complete, score_entry
from ui.navigation import page_path
from ui.pages_common import player_picker_ui, require_game
from ui.widgets import board_fix_ui, grid_editor_ui

KEY_GRID = "check_grid"
KEY_THUMBS = "check_thumbs"


def check_ui() -> None:
    st.title("🔎 Check the read")
    if not require_game():
        return
    player = player_picker_ui(key="check_player")
    entry = st.session_state[S.ENTRIES].get(player)
    if entry is None:
        st.info("This terrarium has not been entered yet: photograph it, or enter it by hand.")
        if st.button("Enter this board by hand", key="check_manual", type="primary"):
            S.start_manual(st.session_state, player)
            st.rerun()
        st.page_link(page_path("photo.py"), label="Photograph it", icon="📷")
        return

    def typed(r: int, c: int, label: str) -> None:
        S.set_cell(st.session_state, player, r, c, label)

    if entry.overlay_jpeg is not None:
        left, right = st.columns([1, 1])
        left.image(entry.overlay_jpeg, caption="The photo as read", width="stretch")
        board_box = right
    else:
        st.caption("Entered by hand. Tap a cell to set it, or type the whole grid below.")
        board_box = st.container()
    with board_box:
        todo = S.low_confidence_cells(entry, S.LOW_CONFIDENCE)
        if todo:
            st.warning(f"{len(todo)} cell(s) marked ⚠ may be misread: tap to check.")
        board_fix_ui(
            entry,
            typed,
            key="check",
            selected_key=S.SELECTED_CELL,
            thumbnails=st.session_state.get(KEY_THUMBS, True),
        )
    with st.expander("Type the whole board (no photo needed)", expanded=entry.source == "manual"):
        grid_editor_ui(entry.rows, typed, key=KEY_GRID)
    pad = score_entry(
        entry,
        load_rules(),
        objectives=st.session_state[S.OBJECTIVES],
        players=len(st.session_state[S.PLAYERS]),
        star_cards_out=st.session_state[S.STAR_CARDS_OUT],
    )
    label = "Total" if is_complete(entry.rows) else "Score so far"
    st.metric(label, f"{pad.total} VP", border=True)
    st.page_link(page_path("pad.py"), label="See the score pad with every reason", icon="🧮")


check_ui()
