"""Reptile Tank's game in progress, kept in the database as it changes (a draft).

The page's URL carries the game night (``?night=<uid>``, followed by the shared frame,
:mod:`ui.persist`). Every run of the app, through this game's :data:`APP_SESSION`:

1. :func:`night_chosen` — a fresh browser session (a reload, a phone that dropped the tab,
   another app server) that found the night in the URL loads its current draft;
   :func:`resume` — a session that already has the game checks the draft's revision and
   reloads it when another device changed it;
2. the page runs (callbacks and widgets change the game in ``st.session_state``);
3. :func:`sync` — when the game's document differs from the one last written, it is written
   (a new draft for a new game). A storage failure leaves the game on the page and says
   "Not saved: …" with a retry button.

All session keys are :mod:`ui.reptile_tank.state`'s (and this module's merge keys); the draft
documents are :mod:`service.reptile_tank.drafts`'s.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import streamlit as st

import games
from common.merge import changed_paths
from leaderboard.drafts import ConflictError, DraftConflict, SavedGameDeleted, document_hash
from service.errors import STORAGE_ERRORS, storage_message
from service.reptile_tank.drafts import from_document, game_from_record, to_document
from service.shared import Written, describe, reapply, write_merged
from ui.persist import choose_night, show_night_in_url  # noqa: F401 - the pages' names
from ui.reptile_tank import state as S
from ui.reptile_tank.backend import get_drafts, get_store
from ui.state import NIGHT_PARAM  # noqa: F401 - the pages' name

#: The stored document this page last read or wrote (at ``S.DRAFT_REVISION``): the base of a
#: three-way merge when another phone wrote meanwhile.
DRAFT_BASE = "rt_draft_base"
#: ``(paths and values, message)`` of this page's changes another phone overwrote at the same
#: place: shown with a button that puts them back (:func:`offer_ui`).
OFFERED = "rt_offered_again"
#: Places that belong to one page, not the table (which player a phone shows): never a conflict.
PAGE_LOCAL = (("active_player",),)
#: True when this run's write met another device's write (merged, or its game shown instead).
MET_ANOTHER = "rt_met_another_write"


class SaveConflict(ConflictError):
    """Save refused: the game changed on another device since this page showed it (the stored
    version is now on the page; nothing was saved)."""


def _load_draft_keeping_view(state: MutableMapping[str, Any], draft: Any) -> None:
    """Load another device's version but stay on the player and cell this phone shows (another
    phone picking Ben must not move this one off Ann)."""
    keep = {key: state.get(key) for key in (S.ACTIVE_PLAYER, S.SELECTED_CELL)}
    _load_draft(state, draft)
    for key, value in keep.items():
        if key != S.ACTIVE_PLAYER or value in state[S.PLAYERS]:
            state[key] = value


def place_name(path: tuple) -> str:
    """A place in a Reptile Tank draft, for a message ("Ben's board, row 2 column 3")."""
    if len(path) >= 5 and path[0] == "entries" and path[2] in ("rows", "confidence"):
        return f"{path[1]}'s board, row {int(path[3]) + 1} column {int(path[4]) + 1}"
    if len(path) >= 2 and path[0] in ("entries", "pending"):
        return f"{path[1]}'s terrarium"
    names = {
        "notes": "the notes",
        "players": "the players",
        "objectives": "the objectives",
        "star_cards_out": "the star-cards variant",
    }
    return names.get(str(path[0]), " › ".join(map(str, path))) if path else "the game"


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
    state[DRAFT_BASE] = draft.document


def night_chosen(state: MutableMapping[str, Any], session: Any) -> None:
    """The page's game night is now ``session`` (a ``SessionInfo``): show its current draft
    (no game when it has none)."""
    S.init_state(state)
    draft = get_drafts().current(session.id)
    if draft is None:
        S.clear_game(state)
    else:
        _load_draft(state, draft)


def resume(state: MutableMapping[str, Any]) -> None:
    """Start of a run: follow the draft's newer revisions (the shared frame has followed the
    URL's game night already).

    Storage failures are kept in ``state[S.STORAGE_ERROR]`` for the banner, never raised.
    """
    S.init_state(state)
    try:
        uid = state[S.DRAFT_UID]
        if uid is not None:
            revision = get_drafts().revision(uid)
            if revision is not None and revision != state[S.DRAFT_REVISION]:
                stored = get_drafts().get(uid)
                current = get_drafts().current(stored.session_id)
                if stored.status == "closed" and current is not None and current.uid != uid:
                    _load_draft(state, current)  # the table moved on to its next game
                    state[S.FLASH] = (
                        "Another device started the next game: it is shown here (the last "
                        "game is kept" + (" as saved)." if stored.game_id else ", unsaved).")
                    )
                    return
                document = to_document(S.game_in_progress(state), _put_blob(state))
                if document_hash(document) != state[S.DRAFT_HASH]:
                    sync(state)  # a change on this page (its callback ran first): merged
                    return
                _load_draft_keeping_view(state, stored)
                state[S.FLASH] = "This game was updated from another device."
    except STORAGE_ERRORS as error:
        state[S.STORAGE_ERROR] = f"Not saved: {storage_message(error)}"


def _merged_flash(written: Written) -> str | None:
    """What the page says after its write met another phone's (None when nobody else wrote)."""
    if not written.merged:
        return None
    theirs = describe(written.other_changes, namer=place_name) or "the game"
    if written.conflicts:
        same = describe(written.conflicts, namer=place_name)
        return (
            f"Another device changed this game at the same time ({theirs}). Where you both "
            f"changed the same place ({same}) their version is shown: put yours back below "
            "if it was right. Your other changes are kept."
        )
    return f"Another device changed this game at the same time ({theirs}); your change is kept too."


def sync(state: MutableMapping[str, Any]) -> bool:
    """End of a run: write the game to its draft when it changed; True when it is stored.

    Every write is a compare-and-set on the revision this page read. When another device wrote
    first, this page's change is merged into theirs (:func:`service.shared.write_merged`:
    changes to other cells are kept and written; where both changed the same cell, theirs is
    shown and this page's value is offered again, :func:`offer_ui`), and the page says so. Two
    phones starting a game at once: the second is shown the first's game.
    """
    S.init_state(state)
    state[MET_ANOTHER] = False
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
            try:
                draft = drafts.create(state[S.SESSION_ID], document)
            except DraftConflict as error:
                mine = ", ".join(state[S.PLAYERS])
                _load_draft(state, error.current)
                state[MET_ANOTHER] = True
                state[S.FLASH] = (
                    "A game was started on this night on another device at the same time: it "
                    f"is shown here (yours was for {mine}; start it again to replace theirs)."
                )
                return True
            state[S.DRAFT_UID] = draft.uid
            state[S.DRAFT_REVISION] = draft.revision
            state[S.DRAFT_HASH] = digest
            state[DRAFT_BASE] = document
            state[S.STORAGE_ERROR] = None
            return True
        uid = state[S.DRAFT_UID]
        base = state.get(DRAFT_BASE) or document

        def write(doc: dict[str, Any], seen: int) -> int:
            return drafts.write(uid, doc, expected_revision=seen).revision

        written = write_merged(write, base, document, state[S.DRAFT_REVISION])
        local = [c for c in written.conflicts if c in PAGE_LOCAL]
        written.conflicts = [c for c in written.conflicts if c not in PAGE_LOCAL]
        written.offered = [(p, v) for p, v in written.offered if p not in local]
        if written.merged:
            state[MET_ANOTHER] = True
            _load_draft_keeping_view(state, drafts.get(uid))
            state[S.FLASH] = _merged_flash(written)
            if written.offered:
                state[OFFERED] = written.offered
        else:
            state[S.DRAFT_REVISION] = written.revision
            state[S.DRAFT_HASH] = digest
            state[DRAFT_BASE] = document
        state[S.STORAGE_ERROR] = None
        return True
    except STORAGE_ERRORS as error:
        state[S.STORAGE_ERROR] = f"Not saved: {storage_message(error)}"
        return False


def put_mine_back(state: MutableMapping[str, Any]) -> None:
    """Put this page's values back where another device's change replaced them (the next sync
    writes them as an ordinary change, checked against the revision now shown)."""
    offered = state.pop(OFFERED, None)
    if not offered or state.get(DRAFT_BASE) is None:
        return
    document = reapply(state[DRAFT_BASE], offered)
    S.load_game(state, from_document(document, get_drafts().get_blob))
    state[S.FLASH] = (
        "Your version of " + describe([p for p, _ in offered], namer=place_name) + (" is back.")
    )


def offer_ui(state: MutableMapping[str, Any]) -> None:
    """When another device changed the same place as this page: offer this page's value again."""
    offered = state.get(OFFERED)
    if not offered:
        return

    where = describe([p for p, _ in offered], namer=place_name)
    cols = st.columns([3, 1], vertical_alignment="center")
    cols[0].warning(f"Your change to {where} was replaced by another device's.")
    cols[1].button("Put mine back", key="offer_put_back", on_click=put_mine_back, args=(state,))
    if cols[1].button("Keep theirs", key="offer_keep_theirs"):
        state.pop(OFFERED, None)
        st.rerun()


def changed_since_save(state: MutableMapping[str, Any]) -> bool:
    """True when the game was saved and has changed on this page since."""
    return (
        state.get(S.LAST_SAVED_GAME) is not None
        and state.get(S.DRAFT_HASH) is not None
        and state[S.DRAFT_HASH] != state.get(S.DRAFT_SAVED_HASH)
    )


def confirm(state: MutableMapping[str, Any], record: Any) -> tuple[int, bool]:
    """Save the game (or write its changes to the saved game): once, atomically, and only the
    version this page shows.

    ``record`` is the game record, or a callable ``record(state)`` building it from the page's
    game after this page's changes are written (so what is saved is what the player sees).

    Returns
    -------
    (int, bool)
        The game id and whether anything was written.

    Raises
    ------
    SaveConflict
        Another device changed the game since this page showed it: nothing is saved, the
        merged/stored version is now on the page, and the message names what changed.
    Exception
        Any of :data:`service.errors.STORAGE_ERRORS`; the game stays on the page.
    """
    revision_before = state.get(S.DRAFT_REVISION) or 0
    if not sync(state):
        raise OSError(state[S.STORAGE_ERROR].removeprefix("Not saved: "))
    if state.get(MET_ANOTHER):
        # this page's last change met another device's: the player has not seen the result
        state[S.FLASH] = f"Not saved: {state.get(S.FLASH) or 'the game changed'}"
        raise SaveConflict(
            "This game",
            seen=revision_before,
            revision=state[S.DRAFT_REVISION],
            document=state.get(DRAFT_BASE),
        )
    built = record(state) if callable(record) else record
    try:
        game_id, wrote = get_drafts().confirm(
            state[S.DRAFT_UID], built, expected_revision=state[S.DRAFT_REVISION]
        )
    except DraftConflict as error:
        base = state.get(DRAFT_BASE)
        if error.current is not None:
            _load_draft(state, error.current)
        changed = describe(changed_paths(base, error.document), namer=place_name)
        changed = changed or "the game"
        state[S.FLASH] = (
            f"Not saved: this game was changed on another device ({changed}). Its version is "
            "shown now: check it and save again."
        )
        raise SaveConflict(
            "This game", seen=error.seen, revision=error.revision, document=error.document
        ) from error
    except SavedGameDeleted as error:
        _load_draft(state, get_drafts().get(state[S.DRAFT_UID]))  # now unlinked, unsaved
        state[S.FLASH] = (
            f"Not saved: game {error.game_id} was deleted on another device (from the "
            "leaderboard) while you changed it. It is still here: tap Save again to store it "
            "as a new game."
        )
        raise SaveConflict(
            "This game", seen=revision_before, revision=error.revision, document=None
        ) from error
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


def met_another(state: MutableMapping[str, Any]) -> bool:
    """True when this run's write met another device's (the frame runs the page again)."""
    return bool(state.get(MET_ANOTHER))


#: Reptile Tank's part in every run of the app's frame (``games.Game.app_session``).
APP_SESSION = games.AppSession(
    init=S.init_state,
    night_chosen=night_chosen,
    resume=resume,
    sync=sync,
    offer_ui=offer_ui,
    rerun=met_another,
)
