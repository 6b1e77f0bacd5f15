"""Page 4 — Score pad: each terrarium drawn with its scoring groups, its columns, every number
expandable into its reasons, and a picture of it to share.

Live: it is recomputed from the boards on every run, so a fixed cell shows at once. A
half-built terrarium shows its "score so far"; the cockroach majority waits for the table.
"""

from __future__ import annotations

import streamlit as st

from ui.kit import night_link
from ui.reptile_tank import state as S
from ui.reptile_tank.backend import load_rules
from ui.reptile_tank.journey import escape_markdown, is_complete, score_entry
from ui.reptile_tank.page_helpers import require_game, saved_state_ui
from ui.reptile_tank.widgets import score_pad_ui, share_button_ui


def pad_ui() -> None:
    st.title("🧮 Score pad")
    if not require_game():
        return
    saved_state_ui()
    rules = load_rules()
    entries = st.session_state[S.ENTRIES]
    if not entries:
        st.info("No terrarium entered yet.")
        night_link("photo.py", "Photograph a terrarium", "📷")
        return
    for i, player in enumerate(st.session_state[S.PLAYERS]):
        entry = entries.get(player)
        if entry is None:
            st.text(f"{player}: not entered yet")
            continue
        pad = score_entry(
            entry,
            rules,
            objectives=st.session_state[S.OBJECTIVES],
            players=len(st.session_state[S.PLAYERS]),
            star_cards_out=st.session_state[S.STAR_CARDS_OUT],
        )
        with st.container(border=True):
            partial = not is_complete(entry.rows)
            score_pad_ui(player, pad, key=f"pad_{i}", partial=partial, rows=entry.rows)
            share_button_ui(player, entry.rows, pad, key=f"pad_share_{i}")
    missing = S.missing_players(st.session_state)
    if missing:  # never a dead end: on to the next photo
        st.caption(f"Still to enter: {len(missing)} player(s).")

        def photograph(name: str = missing[0]) -> None:
            st.session_state[S.ACTIVE_PLAYER] = name
            S.go_to(st.session_state, "photo")

        st.button(
            escape_markdown(f"Next: photograph {missing[0]}'s terrarium"),
            key="pad_next_photo",
            icon="📷",
            on_click=photograph,
        )
    else:
        night_link("confirm.py", "Everyone is in: score the table", "✅")


pad_ui()
