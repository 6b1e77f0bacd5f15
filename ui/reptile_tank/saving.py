"""Saving the table's game: the record as the page has it now, save (or update), undo, next
game. Shared by the Confirm page and the table's check page (one tap saves from either)."""

from __future__ import annotations

import streamlit as st

from service.errors import STORAGE_ERRORS, storage_message
from ui.reptile_tank import persist
from ui.reptile_tank import state as S
from ui.reptile_tank.backend import learn_corrections, load_rules, rules_fingerprint
from ui.reptile_tank.journey import game_record, score_table


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
