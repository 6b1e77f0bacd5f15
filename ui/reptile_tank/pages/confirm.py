"""Page 5 — Confirm: when every player is in, score the table together and save the game.

The cockroach majority and the tie-breaks need every board, so they are settled here. Saving
turns the night's draft into a game in one transaction, once (a second press, a reload or
another server finds it saved); a change after saving is written to the same game as an edit
("Update game N"), and "Undo" removes the saved game while keeping it on the page.
"""

from __future__ import annotations

import streamlit as st

from service.errors import STORAGE_ERRORS, storage_message
from service.reptile_tank.game import MAX_NOTES_LENGTH, clean_notes
from ui import persist
from ui import state as S
from ui.backend import learn_corrections, load_rules, rules_fingerprint
from ui.navigation import page_path
from ui.pages_common import require_game
from ui.reptile_tank.journey import escape_markdown, game_record, is_complete, score_table
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


def _record(state):
    """The game record of the table as this page has it now (not as it was rendered)."""
    version, digest = rules_fingerprint()
    table = score_table(
        state[S.ENTRIES],
        state[S.PLAYERS],
        load_rules(),
        objectives=state[S.OBJECTIVES],
        star_cards_out=state[S.STAR_CARDS_OUT],
    )
    return game_record(
        table,
        state[S.ENTRIES],
        session_id=state[S.SESSION_ID],
        star_cards_out=state[S.STAR_CARDS_OUT],
        objectives=state[S.OBJECTIVES],
        rules_version=version,
        rules_hash=digest,
        notes=state[S.NOTES],
    )


def save() -> None:
    """Save (or update) the game the player sees, checked against the stored revision; a
    change on another device meanwhile, or a storage failure, keeps everything and says so."""
    was_saved = st.session_state[S.LAST_SAVED_GAME]
    try:
        game_id, wrote = persist.confirm(st.session_state, _record)
    except persist.SaveConflict:
        return  # the page shows the other device's version and says what changed
    except STORAGE_ERRORS as error:
        st.session_state[S.STORAGE_ERROR] = f"Not saved: {storage_message(error)}"
        return
    st.session_state[S.STORAGE_ERROR] = None
    if was_saved is not None and wrote:
        st.session_state[S.FLASH] = f"Game {game_id} updated (recorded as an edit)."
    elif wrote:
        try:
            learned = learn_corrections(st.session_state[S.ENTRIES].values())
        except (ValueError, OSError) as error:  # the game is saved; learning is a bonus
            st.session_state[S.FLASH] = f"Your deck could not learn the fixes: {error}"
        else:
            if learned:
                st.session_state[S.FLASH] = f"Your deck learned {learned} corrected card(s)."


def undo() -> None:
    try:
        deleted = persist.undo_save(st.session_state)
    except STORAGE_ERRORS as error:
        st.session_state[S.STORAGE_ERROR] = f"Not undone: {storage_message(error)}"
        return
    if deleted is not None:
        st.session_state[S.FLASH] = (
            f"Game {deleted} removed from the leaderboard; it is still here."
        )


def next_game() -> None:
    try:
        persist.next_game(st.session_state)
    except STORAGE_ERRORS as error:
        st.session_state[S.STORAGE_ERROR] = f"Not saved: {storage_message(error)}"


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
        st.switch_page(page_path("setup.py"))
    st.page_link(page_path("leaderboard.py"), label="See the leaderboard", icon="🏆")
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
    saved = st.session_state[S.LAST_SAVED_GAME]
    if saved is not None and saved_ui(saved):
        return
    flash_ui(st.session_state)
    st.subheader("The table's score pad")
    order = sorted(range(len(table.players)), key=lambda i: (table.ranks[i], -table.pads[i].total))
    st.dataframe(
        [
            {"Rank": table.ranks[i], "Player": table.players[i], "Total": table.pads[i].total}
            for i in order
        ],
        hide_index=True,
        key="confirm_table",
    )
    for note in table.notes:
        st.text(note)
    for i, (name, pad) in enumerate(zip(table.players, table.pads, strict=True)):
        with st.expander(f"{escape_markdown(name)}: {pad.total} VP — reasons"):
            score_pad_ui(name, pad, key=f"confirm_pad_{i}", rows=entries[name].rows)
            share_button_ui(name, entries[name].rows, pad, key=f"confirm_share_{i}")
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
