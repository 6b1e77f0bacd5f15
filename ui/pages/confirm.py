"""Page 5 — Confirm: when every player is in, score the table together and save the game.

The cockroach majority and the tie-breaks need every board, so they are settled here. Saving
writes the boards, the pads, the rules version and each photo's hash and thumbnail in one
transaction.
"""

from __future__ import annotations

import streamlit as st

from ui import state as S
from ui.backend import get_store, learn_corrections, load_rules, rules_fingerprint
from ui.journey import escape_markdown, game_record, is_complete, score_table, table_rows
from ui.navigation import page_path
from ui.pages_common import require_game
from ui.widgets import flash_ui, score_pad_ui

KEY_SAVE = "confirm_save"


def confirm_ui() -> None:
    st.title("✅ Confirm & save")
    if not require_game():
        return
    saved = st.session_state[S.LAST_SAVED_GAME]
    if saved is not None:
        st.success(f"Game {saved} saved to the leaderboard.")
        flash_ui(st.session_state)
        st.page_link(page_path("leaderboard.py"), label="See the leaderboard", icon="🏆")
        st.page_link(page_path("setup.py"), label="Start the next game", icon="🎲")
        return
    players = st.session_state[S.PLAYERS]
    entries = st.session_state[S.ENTRIES]
    missing = S.missing_players(st.session_state)
    st.dataframe(
        [{"Player": p, "Terrarium": "in" if p in entries else "missing"} for p in players],
        hide_index=True,
        key="confirm_status",
    )
    if missing:
        st.info("Every player's terrarium must be in before the table is scored.")
        st.page_link(page_path("photo.py"), label="Photograph the missing ones", icon="📷")
        return
    rules = load_rules()
    table = score_table(
        entries,
        players,
        rules,
        objectives=st.session_state[S.OBJECTIVES],
        star_cards_out=st.session_state[S.STAR_CARDS_OUT],
    )
    st.subheader("The table's score pad")
    st.dataframe(table_rows(table), hide_index=True, key="confirm_table")
    for note in table.notes:
        st.text(note)
    for i, (name, pad) in enumerate(zip(table.players, table.pads, strict=True)):
        with st.expander(f"{escape_markdown(name)}: {pad.total} VP — reasons"):
            score_pad_ui(name, pad, key=f"confirm_pad_{i}")
    unfinished = [p for p in players if not is_complete(entries[p].rows)]
    if unfinished:
        st.warning(
            f"{len(unfinished)} terrarium(s) still have empty cells: this is the score so far. "
            "Fill every cell to save the game."
        )
        return
    if st.session_state[S.SESSION_ID] is None:
        st.warning("Pick a game night on the setup page to save this game.")
        return
    if st.button("Save the game", type="primary", key=KEY_SAVE):
        version, digest = rules_fingerprint()
        record = game_record(
            table,
            entries,
            session_id=st.session_state[S.SESSION_ID],
            star_cards_out=st.session_state[S.STAR_CARDS_OUT],
            objectives=st.session_state[S.OBJECTIVES],
            rules_version=version,
            rules_hash=digest,
        )
        try:
            game_id = get_store().save_game(record)
        except ValueError as error:
            st.error(f"Not saved: {error}")
        else:
            st.session_state[S.LAST_SAVED_GAME] = game_id
            try:
                learned = learn_corrections(entries.values())
            except (ValueError, OSError) as error:  # the game is saved; learning is a bonus
                st.session_state[S.FLASH] = f"Your deck could not learn the fixes: {error}"
            else:
                if learned:
                    st.session_state[S.FLASH] = f"Your deck learned {learned} corrected card(s)."
            st.rerun()


confirm_ui()
