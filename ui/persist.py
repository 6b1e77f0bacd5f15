"""The game in progress, kept in the database as it changes (a draft), resumed from the URL.

The page's URL carries the game night (``?night=<uid>``). Every run of the app:

1. :func:`resume` — a fresh browser session (a reload, a phone that dropped the tab, another
   app server) finds the night in the URL and loads its current draft; a session that already
   has the game checks the draft's revision and reloads it when another device changed it;
2. the page runs (callbacks and widgets change the game in ``st.session_state``);
3. :func:`sync` — when the game's document differs from the one last written, it is written
   (a new draft for a new game). A storage failure leaves the game on the page and says
   "Not saved: …" with a retry button.

All session keys are :mod:`ui.state`'s; the draft documents are :mod:`service.reptile_tank.drafts`'s.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import streamlit as st

from leaderboard.drafts import DraftConflict, document_hash
from service.errors import STORAGE_ERRORS, storage_message
from service.reptile_tank.drafts import from_document, game_from_record, to_document
from ui import state as S
from ui.backend import get_drafts, get_store

#: The URL query parameter naming the game night.
NIGHT_PARAM = "night"


def _put_blob(state: MutableMapping[str, Any]):
    stored: set[str] = state[S.STORED_BLOBS]

    def put(data: bytes) -> str:
        from service.reptile_tank.drafts import digest_of

        digest = digest_of(data)
        if digest not in stored:
            get_drafts().put_blob(data)
            stored.add(digest)
        return digest

    return put


def _load_draft(state: MutableMapping[str, Any], draft: Any) -> None:
    """Put a stored draft on the page (its game, revision, hash and saved game)."""
    drafts = get_drafts()
    S.load_game(state, from_document(draft.document, drafts.get_blob))
    state[S.DRAFT_UID] = draft.uid
    state[S.DRAFT_REVISION] = draft.revision
    state[S.DRAFT_HASH] = document_hash(draft.document)
    state[S.DRAFT_SAVED_HASH] = draft.saved_hash
    state[S.LAST_SAVED_GAME] = draft.game_id
    state[S.STORED_BLOBS] = set()


def choose_night(state: MutableMapping[str, Any], session: Any) -> None:
    """Make ``session`` (a ``SessionInfo``) this page's game night and resume its game."""
    S.init_state(state)
    if state[S.NIGHT_UID] == session.uid and state[S.SESSION_ID] == session.id:
        return
    state[S.SESSION_ID] = session.id
    state[S.NIGHT_UID] = session.uid
    draft = get_drafts().current(session.id)
    if draft is None:
        S.clear_game(state)
    else:
        _load_draft(state, draft)


def resume(state: MutableMapping[str, Any]) -> None:
    """Start of a run: follow the URL's game night and the draft's newer revisions.

    Storage failures are kept in ``state[S.STORAGE_ERROR]`` for the banner, never raised.
    """
    S.init_state(state)
    try:
        wanted = st.query_params.get(NIGHT_PARAM)
        if wanted and wanted != state[S.NIGHT_UID]:
            found = next((s for s in get_store().list_sessions() if s.uid == wanted), None)
            if found is None:
                state[S.STORAGE_ERROR] = "The game night in this link does not exist (any more)."
            else:
                choose_night(state, found)
                return
        uid = state[S.DRAFT_UID]
        if uid is not None:
            revision = get_drafts().revision(uid)
            if revision is not None and revision != state[S.DRAFT_REVISION]:
                _load_draft(state, get_drafts().get(uid))
                state[S.FLASH] = "This game was updated from another device."
    except STORAGE_ERRORS as error:
        state[S.STORAGE_ERROR] = f"Not saved: {storage_message(error)}"


def show_night_in_url(state: MutableMapping[str, Any]) -> None:
    """Keep ``?night=<uid>`` in the address bar (a reload or a shared link resumes the night)."""
    uid = state.get(S.NIGHT_UID)
    if uid and st.query_params.get(NIGHT_PARAM) != uid:
        st.query_params[NIGHT_PARAM] = uid


def sync(state: MutableMapping[str, Any]) -> bool:
    """End of a run: write the game to its draft when it changed; True when it is stored.

    A conflict (another device wrote the draft first) reloads the stored game and says so.
    """
    S.init_state(state)
    if not state[S.PLAYERS] or state[S.SESSION_ID] is None:
        return True
    try:
        document = to_document(S.game_in_progress(state), _put_blob(state))
        digest = document_hash(document)
        if digest == state[S.DRAFT_HASH] and state[S.DRAFT_UID] is not None:
            state[S.STORAGE_ERROR] = None
            return True
        drafts = get_drafts()
        if state[S.DRAFT_UID] is None:
            draft = drafts.create(state[S.SESSION_ID], document)
        else:
            try:
                draft = drafts.write(
                    state[S.DRAFT_UID], document, expected_revision=state[S.DRAFT_REVISION]
                )
            except DraftConflict:
                _load_draft(state, drafts.get(state[S.DRAFT_UID]))
                state[S.FLASH] = (
                    "This game was changed on another device at the same time: "
                    "their version is shown; make your last change again."
                )
                return True
        state[S.DRAFT_UID] = draft.uid
        state[S.DRAFT_REVISION] = draft.revision
        state[S.DRAFT_HASH] = digest
        state[S.STORAGE_ERROR] = None
        return True
    except STORAGE_ERRORS as error:
        state[S.STORAGE_ERROR] = f"Not saved: {storage_message(error)}"
        return False


def changed_since_save(state: MutableMapping[str, Any]) -> bool:
    """True when the game was saved and has changed on this page since."""
    return (
        state.get(S.LAST_SAVED_GAME) is not None
        and state.get(S.DRAFT_HASH) is not None
        and state[S.DRAFT_HASH] != state.get(S.DRAFT_SAVED_HASH)
    )


def confirm(state: MutableMapping[str, Any], record: Any) -> tuple[int, bool]:
    """Save the game (or write its changes to the saved game): once, atomically.

    Returns
    -------
    (int, bool)
        The game id and whether anything was written.

    Raises
    ------
    Exception
        Any of :data:`service.errors.STORAGE_ERRORS`; the game stays on the page.
    """
    if not sync(state):
        raise OSError(state[S.STORAGE_ERROR].removeprefix("Not saved: "))
    game_id, wrote = get_drafts().confirm(state[S.DRAFT_UID], record)
    state[S.LAST_SAVED_GAME] = game_id
    state[S.DRAFT_SAVED_HASH] = state[S.DRAFT_HASH]
    return game_id, wrote


def undo_save(state: MutableMapping[str, Any]) -> int | None:
    """Delete the saved game of this draft (the game stays on the page, unsaved)."""
    deleted = get_drafts().undo_save(state[S.DRAFT_UID])
    state[S.LAST_SAVED_GAME] = None
    state[S.DRAFT_SAVED_HASH] = None
    state[S.DRAFT_REVISION] = get_drafts().revision(state[S.DRAFT_UID]) or 0
    return deleted


def next_game(state: MutableMapping[str, Any]) -> None:
    """Close the night's current draft and clear the page for the next game."""
    if state.get(S.DRAFT_UID):
        get_drafts().close(state[S.DRAFT_UID])
    S.clear_game(state)


def edit_saved_game(state: MutableMapping[str, Any], game_id: int) -> None:
    """Reopen a saved game as this night's draft; "Save" then writes it back as an edit."""
    record = get_store().get_game(game_id)
    sessions = {s.id: s for s in get_store().list_sessions()}
    choose_night(state, sessions[record.session_id])
    game = game_from_record(record)
    document = to_document(game, _put_blob(state))
    draft = get_drafts().edit_game(game_id, document)
    _load_draft(state, draft)
