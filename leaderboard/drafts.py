"""Games in progress and per-game-night settings, in the leaderboard's database.

A *draft* is a game being entered (players, photos, reads, fixes) as one JSON document, written
on every change and read back after a reload, a phone switching apps, a server restart, or on
another app server sharing the same database. Photos and overlays are content-addressed blobs
so a cell fix rewrites only the small document. Confirming turns a draft into a saved game in
one transaction, once: whatever the presses (and whichever server), a draft makes at most one
game; a change after saving is written to that game as an edit.

*Night settings* hold what belongs to one game night: the game, house rules (overrides of the
default rules) and the deck. Nothing here is global to a server.

The tables live beside the store's (:mod:`leaderboard.schema`) but are created here, with
``CREATE TABLE IF NOT EXISTS`` semantics under the store's migration lock, so that a database
made by an older version gains them on first use and the store's schema version is untouched.
Every call is one transaction of :class:`leaderboard.store.Store`.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from common.merge import changed_paths, path_text
from leaderboard.records import GameRecord, LeaderboardError, NotFoundError, dump_json, utc_now
from leaderboard.schema import GAME_LINES as _lines
from leaderboard.schema import GAMES as _games
from leaderboard.schema import SESSIONS as _sessions
from leaderboard.store import (
    Store,
    _insert_game,
    _insert_player_line,
    ensure_side_tables,
    game_row_fields,
)

#: Largest draft document (JSON text, characters) and blob (bytes) accepted.
MAX_DOCUMENT_CHARS = 2_000_000
MAX_BLOB_BYTES = 25 * 1024 * 1024

METADATA = sa.MetaData()
_drafts = sa.Table(
    "drafts",
    METADATA,
    sa.Column("uid", sa.String(64), primary_key=True),
    sa.Column("session_id", sa.Integer, nullable=False, index=True),
    sa.Column("revision", sa.Integer, nullable=False),
    sa.Column("document", sa.Text, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # open | closed
    sa.Column("game_id", sa.Integer, nullable=True),  # the saved game, once confirmed
    sa.Column("saved_hash", sa.String(64), nullable=True),  # document hash at the last save
    sa.Column("created_at", sa.String(40), nullable=False),
    sa.Column("updated_at", sa.String(40), nullable=False),
)
_blobs = sa.Table(
    "draft_blobs",
    METADATA,
    sa.Column("digest", sa.String(64), primary_key=True),
    sa.Column("data", sa.LargeBinary, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=False),
)
_settings = sa.Table(
    "night_settings",
    METADATA,
    sa.Column("session_id", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("revision", sa.Integer, nullable=False),
    sa.Column("document", sa.Text, nullable=False),
    sa.Column("updated_at", sa.String(40), nullable=False),
)


class ConflictError(LeaderboardError):
    """A compare-and-set write lost: the document was written elsewhere (another phone or
    server) since the revision this writer saw. Nothing was written.

    Attributes
    ----------
    revision : int
        The stored revision now (0 when the document is gone or was never written).
    document : dict or None
        The stored document now: what the stale writer should show (and merge into).
    changed : list of tuple
        Where the stored document differs from the one this writer tried to write
        (:func:`common.merge.changed_paths`), named in the message.
    """

    def __init__(
        self,
        what: str,
        *,
        seen: int,
        revision: int,
        document: dict[str, Any] | None,
        attempted: dict[str, Any] | None = None,
    ) -> None:
        self.seen = int(seen)
        self.revision = int(revision)
        self.document = document
        self.changed = changed_paths(attempted, document, limit=8) if attempted is not None else []
        where = ", ".join(path_text(p) for p in self.changed[:4])
        more = f" and {len(self.changed) - 4} more" if len(self.changed) > 4 else ""
        super().__init__(
            f"{what} was changed on another device (revision {self.revision}, this page had "
            f"{self.seen})" + (f": {where}{more}" if where else "")
        )


class DraftConflict(ConflictError):
    """The draft changed elsewhere (another phone or server) since this copy was read;
    ``current`` is the stored draft (``None`` when it is gone)."""

    current: Draft | None = None


class SavedGameDeleted(LeaderboardError):
    """The draft's saved game was deleted elsewhere (another phone's leaderboard) before this
    change to it was saved. Nothing was saved; the draft is now unlinked from the deleted game
    (``revision`` is its new revision), so saving again stores it as a new game — a choice the
    player makes, never made for them."""

    def __init__(self, game_id: int, revision: int) -> None:
        self.game_id = int(game_id)
        self.revision = int(revision)
        super().__init__(
            f"game {self.game_id} was deleted on another device; nothing was saved (save again "
            "to store this game as a new one)"
        )


@dataclass(frozen=True)
class Draft:
    """A stored game in progress.

    Attributes
    ----------
    uid : str
        The draft's id (32 hex digits).
    session_id : int
        The game night.
    revision : int
        Incremented by every write; a write names the revision it read.
    document : dict
        The game as JSON data (the game's own service layer writes it).
    status : str
        ``"open"`` or ``"closed"`` (the table moved on to the next game).
    game_id : int or None
        The saved game, once confirmed.
    saved_hash : str or None
        :func:`document_hash` of the document that was last written to the saved game.
    """

    uid: str
    session_id: int
    revision: int
    document: dict[str, Any]
    status: str
    game_id: int | None
    saved_hash: str | None
    updated_at: str

    @property
    def changed_since_save(self) -> bool:
        """True when the game was saved and the draft has changed since."""
        return self.game_id is not None and self.saved_hash != document_hash(self.document)


def document_hash(document: dict[str, Any]) -> str:
    """SHA-256 of a document's canonical JSON (sorted keys)."""
    text = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _dump_document(document: dict[str, Any]) -> str:
    if not isinstance(document, dict):
        raise LeaderboardError("a draft document must be a JSON object")
    text = dump_json(document)
    if len(text) > MAX_DOCUMENT_CHARS:
        raise LeaderboardError(f"the draft is too large ({len(text)} characters)")
    return text


def _draft_from_row(row: Any) -> Draft:
    return Draft(
        uid=row.uid,
        session_id=int(row.session_id),
        revision=int(row.revision),
        document=json.loads(row.document),
        status=row.status,
        game_id=None if row.game_id is None else int(row.game_id),
        saved_hash=row.saved_hash,
        updated_at=row.updated_at,
    )


class DraftStore:
    """Drafts, their blobs and night settings in the database of a :class:`Store`.

    Parameters
    ----------
    store : Store
        The leaderboard store whose database (and transactions, retries) are used.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.ensure_tables()

    def ensure_tables(self) -> None:
        """Create the drafts, blobs and settings tables when the database lacks them."""
        ensure_side_tables(self.store, METADATA.sorted_tables)

    # -- drafts ---------------------------------------------------------------------------

    def create(
        self, session_id: int, document: dict[str, Any], *, replace_open: bool = False
    ) -> Draft:
        """Start a draft on a game night: the night's one open draft.

        The night's row is locked (``FOR NO KEY UPDATE`` on PostgreSQL; SQLite's write
        transactions are serial), so two phones starting a game at once never make two open
        drafts: the second is refused with :class:`DraftConflict` carrying the first (``current``)
        unless ``replace_open`` (editing a saved game replaces the game at the table), in which
        case earlier open drafts are closed.
        """
        text = _dump_document(document)
        uid = uuid.uuid4().hex
        now = utc_now()

        def work(conn: Connection, _attempt: int) -> Draft:
            _lock_night(conn, session_id)
            open_row = conn.execute(
                sa.select(_drafts)
                .where(_drafts.c.session_id == session_id, _drafts.c.status == "open")
                .order_by(_drafts.c.updated_at.desc())
                .limit(1)
            ).one_or_none()
            if open_row is not None and not replace_open:
                raise _draft_conflict(
                    _draft_from_row(open_row), seen=0, attempted=document, what="This game night"
                )
            conn.execute(  # replaced: its revision moves so its phones follow the table
                sa.update(_drafts)
                .where(_drafts.c.session_id == session_id, _drafts.c.status == "open")
                .values(status="closed", revision=_drafts.c.revision + 1, updated_at=now)
            )
            conn.execute(
                sa.insert(_drafts).values(
                    uid=uid,
                    session_id=session_id,
                    revision=1,
                    document=text,
                    status="open",
                    game_id=None,
                    saved_hash=None,
                    created_at=now,
                    updated_at=now,
                )
            )
            return _draft_from_row(
                conn.execute(sa.select(_drafts).where(_drafts.c.uid == uid)).one()
            )

        return self.store._transaction(work, write=True)

    def get(self, uid: str) -> Draft:
        """One draft by uid; :class:`NotFoundError` if there is none."""
        row = self.store._transaction(
            lambda c, _a: c.execute(sa.select(_drafts).where(_drafts.c.uid == uid)).one_or_none(),
            write=False,
        )
        if row is None:
            raise NotFoundError(f"no draft {uid[:40]!r}")
        return _draft_from_row(row)

    def current(self, session_id: int) -> Draft | None:
        """The game night's open draft (the game at the table now), if any."""
        query = (
            sa.select(_drafts)
            .where(_drafts.c.session_id == session_id, _drafts.c.status == "open")
            .order_by(_drafts.c.updated_at.desc())
            .limit(1)
        )
        row = self.store._transaction(lambda c, _a: c.execute(query).one_or_none(), write=False)
        return None if row is None else _draft_from_row(row)

    def revision(self, uid: str) -> int | None:
        """The draft's revision (``None`` when it is gone): a cheap "did it change?" check."""
        query = sa.select(_drafts.c.revision).where(_drafts.c.uid == uid)
        value = self.store._transaction(lambda c, _a: c.execute(query).scalar(), write=False)
        return None if value is None else int(value)

    def write(self, uid: str, document: dict[str, Any], *, expected_revision: int) -> Draft:
        """Replace the draft's document if nobody wrote it since ``expected_revision``.

        One compare-and-set: ``UPDATE drafts SET … WHERE uid = :uid AND revision = :seen``,
        its row count checked. On PostgreSQL (READ COMMITTED) a second writer of the same
        revision waits for the first's row lock, re-reads the row and matches nothing.

        Raises
        ------
        DraftConflict
            The stored revision is not ``expected_revision`` (changed on another device); it
            carries the stored draft (``current``) and names what differs.
        NotFoundError
            No such draft.
        """
        text = _dump_document(document)

        def work(conn: Connection, _attempt: int) -> Draft:
            done = conn.execute(
                sa.update(_drafts)
                .where(_drafts.c.uid == uid, _drafts.c.revision == int(expected_revision))
                .values(document=text, revision=_drafts.c.revision + 1, updated_at=utc_now())
            )
            row = conn.execute(sa.select(_drafts).where(_drafts.c.uid == uid)).one_or_none()
            if row is None:
                raise NotFoundError(f"no draft {uid[:40]!r}")
            if done.rowcount != 1:
                raise _draft_conflict(
                    _draft_from_row(row), seen=expected_revision, attempted=document
                )
            return _draft_from_row(row)

        return self.store._transaction(work, write=True)

    def close(self, uid: str) -> None:
        """The table moves on: the draft is no longer the night's current game (its revision
        moves, so another phone on it notices and follows the table)."""
        self.store._transaction(
            lambda c, _a: c.execute(
                sa.update(_drafts)
                .where(_drafts.c.uid == uid, _drafts.c.status == "open")
                .values(status="closed", revision=_drafts.c.revision + 1, updated_at=utc_now())
            ),
            write=True,
        )

    def confirm(
        self, uid: str, record: GameRecord, *, expected_revision: int | None = None
    ) -> tuple[int, bool]:
        """Save the draft as a game, once; a change after saving is written as an edit.

        In one transaction (the draft row is locked): when ``expected_revision`` is given and
        the stored draft is at another revision, nothing is written and :class:`DraftConflict`
        says what changed (the player saw another version than the one stored: the save must
        be of what they saw, and must never mark a document they did not see as saved). Else,
        when the draft has no game yet, the game is inserted and linked; when it has one and
        the document changed since, that game is replaced by ``record`` (same id and uid;
        ``extra["edits"]`` gains a line); otherwise nothing is written. When that game was
        deleted elsewhere, :class:`SavedGameDeleted` is raised (the draft is unlinked, nothing
        else is written): an edit never re-creates a deleted game behind the player's back.
        Two servers confirming the same draft at once make one game.

        Returns
        -------
        (int, bool)
            The game id and whether anything was written.
        """
        record.check()

        def work(conn: Connection, _attempt: int) -> tuple[int | SavedGameDeleted, bool]:
            row = conn.execute(
                sa.select(_drafts).where(_drafts.c.uid == uid).with_for_update()
            ).one_or_none()
            if row is None:
                raise NotFoundError(f"no draft {uid[:40]!r}")
            draft = _draft_from_row(row)
            if expected_revision is not None and draft.revision != int(expected_revision):
                raise _draft_conflict(draft, seen=expected_revision, attempted=None)
            digest = document_hash(draft.document)
            if draft.game_id is not None:
                exists = conn.execute(  # locked: a concurrent delete waits, or has won
                    sa.select(_games.c.id).where(_games.c.id == draft.game_id).with_for_update()
                ).scalar()
                if exists is None:  # deleted elsewhere: unlink, say so, never re-create it
                    conn.execute(
                        sa.update(_drafts)
                        .where(_drafts.c.uid == uid)
                        .values(game_id=None, saved_hash=None, revision=draft.revision + 1)
                    )
                    return SavedGameDeleted(draft.game_id, draft.revision + 1), False
                if draft.saved_hash == digest:
                    return draft.game_id, False
                _replace_game(conn, draft.game_id, record)
                conn.execute(
                    sa.update(_drafts).where(_drafts.c.uid == uid).values(saved_hash=digest)
                )
                return draft.game_id, True
            game_id = _insert_game(
                conn, record, uid=f"draft-{uid}-{draft.revision}", played_at=utc_now()
            )
            conn.execute(
                sa.update(_drafts)
                .where(_drafts.c.uid == uid)
                .values(game_id=game_id, saved_hash=digest)
            )
            return game_id, True

        game_id, wrote = self.store._transaction(work, write=True)
        if isinstance(game_id, SavedGameDeleted):
            raise game_id  # the unlink is committed; the player decides what comes next
        return game_id, wrote

    def undo_save(self, uid: str) -> int | None:
        """Delete the draft's saved game (the draft stays, unsaved); returns the deleted id."""

        def work(conn: Connection, _attempt: int) -> int | None:
            row = conn.execute(
                sa.select(_drafts).where(_drafts.c.uid == uid).with_for_update()
            ).one_or_none()
            if row is None:
                raise NotFoundError(f"no draft {uid[:40]!r}")
            if row.game_id is None:
                return None
            conn.execute(sa.delete(_lines).where(_lines.c.game_id == row.game_id))
            conn.execute(sa.delete(_games).where(_games.c.id == row.game_id))
            conn.execute(
                sa.update(_drafts)
                .where(_drafts.c.uid == uid)
                .values(game_id=None, saved_hash=None, revision=row.revision + 1)
            )
            return int(row.game_id)

        return self.store._transaction(work, write=True)

    def edit_game(self, game_id: int, document: dict[str, Any]) -> Draft:
        """Open a saved game for editing: a new open draft of its night, linked to the game."""
        game = self.store.get_game(game_id)
        draft = self.create(game.session_id, document, replace_open=True)
        digest = "edit-not-saved"  # the first update writes the game whatever changed

        def work(conn: Connection, _attempt: int) -> Draft:
            conn.execute(
                sa.update(_drafts)
                .where(_drafts.c.uid == draft.uid)
                .values(game_id=game_id, saved_hash=digest)
            )
            return _draft_from_row(
                conn.execute(sa.select(_drafts).where(_drafts.c.uid == draft.uid)).one()
            )

        return self.store._transaction(work, write=True)

    # -- blobs ----------------------------------------------------------------------------

    def put_blob(self, data: bytes) -> str:
        """Store bytes once (content-addressed); returns their SHA-256 hex digest."""
        if not isinstance(data, bytes | bytearray) or len(data) > MAX_BLOB_BYTES:
            raise LeaderboardError("a draft photo must be bytes of at most 25 MB")
        digest = hashlib.sha256(data).hexdigest()

        def work(conn: Connection, _attempt: int) -> None:
            found = conn.execute(
                sa.select(_blobs.c.digest).where(_blobs.c.digest == digest)
            ).scalar()
            if found is None:
                try:
                    with conn.begin_nested():
                        conn.execute(
                            sa.insert(_blobs).values(
                                digest=digest, data=bytes(data), created_at=utc_now()
                            )
                        )
                except sa.exc.IntegrityError:
                    pass  # another server stored the same bytes meanwhile

        self.store._transaction(work, write=True)
        return digest

    def get_blob(self, digest: str) -> bytes | None:
        """The bytes stored under ``digest`` (``None`` when unknown)."""
        query = sa.select(_blobs.c.data).where(_blobs.c.digest == digest)
        value = self.store._transaction(lambda c, _a: c.execute(query).scalar(), write=False)
        return None if value is None else bytes(value)

    # -- night settings -------------------------------------------------------------------

    def settings(self, session_id: int) -> tuple[dict[str, Any], int]:
        """The game night's settings document and its revision (``({}, 0)`` when never set)."""
        row = read_session_document(self.store, _settings, session_id)
        if row is None:
            return {}, 0
        return json.loads(row.document), int(row.revision)

    def put_settings(
        self,
        session_id: int,
        document: dict[str, Any],
        *,
        expected_revision: int | None = None,
    ) -> int:
        """Replace the game night's settings; returns the new revision.

        With ``expected_revision`` (the revision read, 0 for never set) it is a compare-and-set:
        :class:`ConflictError` (carrying the stored settings) when someone wrote since.
        """
        text = _dump_document(document)

        return write_session_document(
            self.store,
            _settings,
            session_id,
            text,
            expected_revision=expected_revision,
            what="This game night's settings",
        )


def _lock_night(conn: Connection, session_id: int) -> None:
    """Lock the game night's row (``FOR NO KEY UPDATE`` on PostgreSQL: its games may still be
    inserted); :class:`NotFoundError` when the night does not exist."""
    night = sa.select(_sessions.c.id).where(_sessions.c.id == session_id)
    if conn.execute(night.with_for_update(key_share=True)).scalar() is None:
        raise NotFoundError(f"no game night with id {session_id}")


def _draft_conflict(
    draft: Draft, *, seen: int, attempted: dict[str, Any] | None, what: str = "This game"
) -> DraftConflict:
    error = DraftConflict(
        what, seen=seen, revision=draft.revision, document=draft.document, attempted=attempted
    )
    error.current = draft
    return error


def _key_filter(table: sa.Table, session_id: int, key: Mapping[str, Any] | None) -> list[Any]:
    """``session_id = :id`` and one ``column = value`` per entry of ``key``."""
    return [table.c.session_id == session_id, *(table.c[k] == v for k, v in (key or {}).items())]


def read_session_document(
    store: Store, table: sa.Table, session_id: int, *, key: Mapping[str, Any] | None = None
) -> Any:
    """The ``document`` and ``revision`` row of a game night's one-per-night ``table``
    (one per night and ``key``, e.g. ``{"game": GAME_ID}``; ``None`` when never written)."""
    query = sa.select(table.c.document, table.c.revision).where(
        *_key_filter(table, session_id, key)
    )
    return store._transaction(lambda c, _a: c.execute(query).one_or_none(), write=False)


def write_session_document(
    store: Store,
    table: sa.Table,
    session_id: int,
    text: str,
    *,
    expected_revision: int | None = None,
    what: str = "This document",
    key: Mapping[str, Any] | None = None,
) -> int:
    """Replace the ``document`` of a game night's one-per-night ``table`` (keyed by
    ``session_id`` and the columns of ``key``, with ``revision`` and ``updated_at``); returns
    the new revision.

    With ``expected_revision`` (the revision the writer read; 0 when it read none) the write is
    a compare-and-set (``UPDATE … WHERE revision = :seen``, row count checked; the first write
    inserts under the night's lock): a stale writer gets :class:`ConflictError` carrying the
    stored document and revision, and nothing is written. Without it the write is
    unconditional (a deliberate replace). Writers of one night are serialised on the game
    night's row (``FOR NO KEY UPDATE`` on PostgreSQL; SQLite's write transactions are serial),
    so two writers never get the same revision and the night's first write cannot race another
    insert. Raises :class:`NotFoundError` when the game night does not exist.
    """
    attempted = json.loads(text)
    where = _key_filter(table, session_id, key)

    def conflict(conn: Connection, seen: int) -> ConflictError:
        row = conn.execute(
            sa.select(table.c.document, table.c.revision).where(*where)
        ).one_or_none()
        return ConflictError(
            what,
            seen=seen,
            revision=0 if row is None else int(row.revision),
            document=None if row is None else json.loads(row.document),
            attempted=attempted,
        )

    def work(conn: Connection, _attempt: int) -> int:
        _lock_night(conn, session_id)
        query = sa.select(table.c.revision).where(*where)
        row = conn.execute(query).one_or_none()
        if row is None:
            if expected_revision not in (None, 0):
                raise conflict(conn, int(expected_revision))
            conn.execute(
                sa.insert(table).values(
                    session_id=session_id,
                    revision=1,
                    document=text,
                    updated_at=utc_now(),
                    **(key or {}),
                )
            )
            return 1
        seen = int(row.revision) if expected_revision is None else int(expected_revision)
        done = conn.execute(
            sa.update(table)
            .where(*where, table.c.revision == seen)
            .values(document=text, revision=seen + 1, updated_at=utc_now())
        )
        if done.rowcount != 1:
            raise conflict(conn, seen)
        return seen + 1

    return store._transaction(work, write=True)


def _replace_game(conn: Connection, game_id: int, record: GameRecord) -> None:
    """Overwrite a saved game's lines and fields with ``record``, noting the edit."""
    old_extra = json.loads(
        conn.execute(sa.select(_games.c.extra).where(_games.c.id == game_id)).scalar() or "{}"
    )
    edits = list(old_extra.get("edits", []))
    edits.append({"at": utc_now()})
    extra = {**record.extra, "edits": edits}
    conn.execute(sa.delete(_lines).where(_lines.c.game_id == game_id))
    conn.execute(
        sa.update(_games).where(_games.c.id == game_id).values(**game_row_fields(record, extra))
    )
    for seat, player in enumerate(record.players):
        _insert_player_line(conn, game_id, seat, player)
