"""The Nimalia game in progress as the night's draft in the database: loaded when this page does
not have it or it changed elsewhere (:func:`resume`), written back with a compare-and-set that
merges another device's change (:func:`sync`), and this page's squares offered back where
another device's write replaced them (:func:`offer_ui`)."""

from __future__ import annotations

import copy
import hashlib
import json

import streamlit as st

from leaderboard.drafts import ConflictError
from service.nimalia import game as N
from service.shared import Written, describe, reapply, write_merged
from ui import state as S
from ui.nimalia.widgets import (
    GAME,
    HASH,
    LAST_CHANGE,
    NIGHT,
    REVISION,
    SELECTED,
    get_nimalia_store,
)
from ui.text import escape_markdown


def _hash(game: dict | None) -> str:
    return hashlib.sha256(json.dumps(game, sort_keys=True).encode()).hexdigest()


#: The stored game this page last read or wrote (the base of a merge) and this page's squares
#: another device changed too (offered again).
BASE = "nim_base"
OFFERED = "nim_offered_again"


def place_name(path: tuple) -> str:
    """A place in a Nimalia game document, for a message ("Ann's reserve, round 2, B3")."""
    if len(path) >= 5 and path[0] == "reserves":
        where = N.position_name(int(path[3]), int(path[4]))
        return f"{path[1]}'s reserve, round {int(path[2]) + 1}, {where}"
    if len(path) >= 2 and path[0] in ("reserves", "check"):
        return f"{path[1]}'s reserve"
    return {"round": "the round", "goals": "the goals", "players": "the players"}.get(
        str(path[0]) if path else "", "the game"
    )


def _show(document: dict | None, revision: int) -> None:
    """Put the stored game on the page (checked: a damaged one is replaced by a new game)."""
    if document is not None:
        try:
            N.check_game(document)
        except (ValueError, TypeError, AttributeError) as error:
            st.error(
                escape_markdown(
                    f"The Nimalia game stored for this night cannot be read ({error}); "
                    "start a new one below (it replaces it)."
                )
            )
            document = None
    before = st.session_state.get(GAME) or {}
    st.session_state[GAME] = copy.deepcopy(document)
    st.session_state[BASE] = copy.deepcopy(document)
    st.session_state[NIGHT] = st.session_state[S.SESSION_ID]
    st.session_state[REVISION] = revision
    st.session_state[HASH] = _hash(document)
    if (document or {}).get("uid") != before.get("uid"):  # another game: nothing to carry over
        st.session_state[SELECTED] = None
        st.session_state[LAST_CHANGE] = None


def resume() -> None:
    """Load the night's Nimalia game when this page does not have it, or it changed elsewhere;
    a change made on this page meanwhile (its callback ran first) is merged, never dropped."""
    night = st.session_state[S.SESSION_ID]
    store = get_nimalia_store()
    document, revision = store.draft(night) if night else (None, 0)
    if st.session_state.get(NIGHT) == night:
        if revision == st.session_state.get(REVISION):
            return
        if _hash(st.session_state.get(GAME)) != st.session_state.get(HASH):
            sync()  # compare-and-set on the revision this page had: merged with theirs
            return
        st.session_state[S.FLASH] = "This Nimalia game was updated from another device."
    _show(document, revision)


def sync() -> None:
    """Write the game to the night's draft when it changed on this page.

    A compare-and-set on the revision this page read (as Reptile Tank's drafts,
    :func:`service.shared.write_merged`): another device's write meanwhile is merged with this
    page's change (other squares both kept); a square both changed shows theirs and offers this
    page's again; a game started on two phones at once keeps the first and says so.
    """
    game = st.session_state.get(GAME)
    if _hash(game) == st.session_state.get(HASH):
        return
    night = st.session_state[S.SESSION_ID]
    store = get_nimalia_store()
    base = st.session_state.get(BASE)
    seen = int(st.session_state.get(REVISION) or 0)

    def write(document: dict | None, expected: int) -> int:
        return store.put_draft(night, document, expected_revision=expected)

    same_game = base is not None and game is not None and game.get("uid") == base.get("uid")
    try:
        if same_game:
            written = write_merged(write, base, game, seen)
        else:  # a new game, or the game discarded: only over the version this page saw
            written = Written(game, write(game, seen))
    except ConflictError as error:
        _show(error.document or None, error.revision)
        st.session_state[S.FLASH] = (
            "The Nimalia game was started, changed or ended on another device at the same "
            "time: theirs is shown (yours was not written; start or discard it again to "
            "replace theirs)."
        )
        return
    if not written.merged:
        st.session_state[REVISION] = written.revision
        st.session_state[HASH] = _hash(game)
        st.session_state[BASE] = copy.deepcopy(game)
        return
    keep = st.session_state.get(SELECTED)
    _show(written.document, written.revision)
    st.session_state[SELECTED] = keep
    theirs = describe(written.other_changes, namer=place_name) or "the game"
    if written.conflicts:
        st.session_state[OFFERED] = written.offered
        same = describe(written.conflicts, namer=place_name)
        st.session_state[S.FLASH] = (
            f"Another device changed this Nimalia game at the same time ({theirs}). Where you "
            f"both changed the same square ({same}) their version is shown: put yours back "
            "below if it was right. Your other changes are kept."
        )
    else:
        st.session_state[S.FLASH] = (
            f"Another device changed this Nimalia game at the same time ({theirs}); your change "
            "is kept too."
        )
    st.session_state[MET_ANOTHER] = True


MET_ANOTHER = "nim_met_another_write"
#: The revision of the game as this page last drew it (a save is of what the player saw).
SHOWN = "nim_shown_revision"


def put_mine_back() -> None:
    """Put this page's squares back where another device's change replaced them."""
    offered = st.session_state.pop(OFFERED, None)
    if offered and st.session_state.get(BASE) is not None:
        st.session_state[GAME] = reapply(st.session_state[BASE], offered)
        where = describe([p for p, _ in offered], namer=place_name)
        st.session_state[S.FLASH] = f"Your version of {where} is back."


def offer_ui() -> None:
    offered = st.session_state.get(OFFERED)
    if not offered:
        return
    where = describe([p for p, _ in offered], namer=place_name)
    cols = st.columns([3, 1], vertical_alignment="center")
    cols[0].warning(escape_markdown(f"Your change to {where} was replaced by another device's."))
    cols[1].button("Put mine back", key="nim_offer_put_back", on_click=put_mine_back)
    if cols[1].button("Keep theirs", key="nim_offer_keep_theirs"):
        st.session_state.pop(OFFERED, None)
        st.rerun()
