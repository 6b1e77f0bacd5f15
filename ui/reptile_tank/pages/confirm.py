"""Page 5 — Confirm: when every player is in, score the table together and save the game.

The cockroach majority and the tie-breaks need every board, so they are settled here. Saving
turns the night's draft into a game in one transaction, once (a second press, a reload or
another server finds it saved); a change after saving is written to the same game as an edit
("Update game N"), and "Undo" removes the saved game while keeping it on the page.
"""

from __future__ import annotations

import streamlit as st

from service.reptile_tank.game import MAX_NOTES_LENGTH, clean_notes
from ui.kit import night_link
from ui.navigation import page_path
from ui.reptile_tank import persist
from ui.reptile_tank import state as S
from ui.reptile_tank.backend import load_rules
from ui.reptile_tank.journey import escape_markdown, is_complete, score_table, table_rows
from ui.reptile_tank.page_helpers import require_game
from ui.reptile_tank.saving import next_game, save, undo
from ui.reptile_tank.widgets import flash_ui, score_pad_ui, share_button_ui

KEY_SAVE = "confirm_save"
KEY_NOTES = "confirm_notes"
KEY_UNDO = "confirm_undo"
KEY_NEXT = "confirm_next"


def notes_ui() -> None:
    """The players' note on the game (kept in the draft, saved with the game)."""
    st.session_state[KEY_NOTES] = st.session_state[S.NOTES]

    def changed() -> None:
        try:
            st.session_state[S.NOTES] = clean_notes(st.session_state[KEY_NOTES])
        except ValueError:
            st.session_state[S.NOTES] = st.session_state[KEY_NOTES][:MAX_NOTES_LENGTH]

    st.text_area(
        "Notes (optional)",
        key=KEY_NOTES,
        max_chars=MAX_NOTES_LENGTH,
        height=80,
        placeholder="Who brought snacks, a rules question, a house rule…",
        on_change=changed,
    )


def saved_ui(saved: int) -> bool:
    """The saved game's controls; True when the page should stop here (nothing to update)."""
    if persist.changed_since_save(st.session_state):
        st.warning(
            f"Changed since game {saved} was saved: the leaderboard still has the old version."
        )
        return False
    st.success(f"Game {saved} saved to the leaderboard.")
    flash_ui(st.session_state)
    cols = st.columns(2)
    cols[0].button("Undo: remove it again", key=KEY_UNDO, on_click=undo, width="stretch")
    if cols[1].button("Start the next game", key=KEY_NEXT, on_click=next_game, width="stretch"):
        st.switch_page(page_path("setup.py"), query_params=S.night_params(st.session_state))
    night_link("leaderboard.py", "See the leaderboard", "🏆")
    return True


def confirm_ui() -> None:
    st.title("✅ Confirm & save")
    if not require_game():
        return
    players = st.session_state[S.PLAYERS]
    entries = st.session_state[S.ENTRIES]
    missing = S.missing_players(st.session_state)
    if missing:
        st.dataframe(
            [{"Player": p, "Terrarium": "in" if p in entries else "missing"} for p in players],
            hide_index=True,
            key="confirm_status",
        )
        st.info("Every player's terrarium must be in before the table is scored.")
        night_link("photo.py", "Photograph the missing ones", "📷")
        return
    rules = load_rules()
    table = score_table(
        entries,
        players,
        rules,
        objectives=st.session_state[S.OBJECTIVES],
        star_cards_out=st.session_state[S.STAR_CARDS_OUT],
    )
    saved = st.session_state[S.LAST_SAVED_GAME]
    done = saved is not None and saved_ui(saved)  # saved and unchanged: the pad, no save
    if not done:
        flash_ui(st.session_state)
    st.subheader("The table's score pad")
    st.dataframe(  # every line of the pad, not only the totals
        table_rows(table), hide_index=True, key="confirm_table"
    )
    for note in table.notes:
        st.text(note)
    for i, (name, pad) in enumerate(zip(table.players, table.pads, strict=True)):
        with st.expander(f"{escape_markdown(name)}: {pad.total} VP — reasons"):
            score_pad_ui(name, pad, key=f"confirm_pad_{i}", rows=entries[name].rows)
            share_button_ui(name, entries[name].rows, pad, key=f"confirm_share_{i}")
    if done:
        return
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
    notes_ui()
    label = "Save the game" if saved is None else f"Update game {saved}"
    st.button(label, type="primary", key=KEY_SAVE, on_click=save)


confirm_ui()
