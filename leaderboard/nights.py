"""Game nights and players: the drawer of :class:`leaderboard.store.Store` that creates, lists
and deletes game nights (``sessions``) and lists, renames and merges players."""

from __future__ import annotations

import hashlib
import uuid

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from leaderboard.database import Database
from leaderboard.records import (
    MAX_NAME_CHARS,
    LeaderboardError,
    NotFoundError,
    SessionInfo,
    canonical_timestamp,
    check_text,
    utc_now,
)
from leaderboard.schema import GAME_LINES as _lines
from leaderboard.schema import GAMES as _games
from leaderboard.schema import PLAYERS as _players
from leaderboard.schema import SESSIONS as _sessions


def name_key(name: str) -> str:
    """Return the players table's unique key for ``name``: SHA-256 hex of its exact UTF-8.

    A digest rather than the name itself keeps the unique index small (PostgreSQL b-tree
    entries are limited to ~2.7 kB; names may have 10 000 characters).
    """
    return hashlib.sha256(name.encode("utf-8")).hexdigest()


class Nights(Database):
    """Game nights and players (a drawer of :class:`leaderboard.store.Store`)."""

    # -- sessions -------------------------------------------------------------------------

    def create_session(self, name: str, *, created_at: str | None = None) -> SessionInfo:
        """Start a game night.

        Parameters
        ----------
        name : str
            Any text up to ``MAX_NAME_CHARS`` characters; stored exactly as given.
        created_at : str, optional
            ISO 8601 timestamp; default now.
        """
        check_text(name, what="session name", max_chars=MAX_NAME_CHARS)
        stamp = canonical_timestamp(created_at or utc_now(), what="created_at")
        uid = uuid.uuid4().hex

        def work(conn: Connection, _attempt: int) -> int:
            return _insert_session(conn, uid=uid, name=name, created_at=stamp)

        session_id = self._transaction(work, write=True)
        return SessionInfo(id=session_id, uid=uid, name=name, created_at=stamp, game_count=0)

    def list_sessions(self) -> list[SessionInfo]:
        """Every game night, oldest first, with its number of games."""
        count = sa.select(sa.func.count()).where(_games.c.session_id == _sessions.c.id)
        query = sa.select(
            _sessions.c.id,
            _sessions.c.uid,
            _sessions.c.name,
            _sessions.c.created_at,
            count.scalar_subquery().label("game_count"),
        )
        rows = self._transaction(lambda conn, _a: conn.execute(query).all(), write=False)
        sessions = [SessionInfo(*row) for row in rows]
        return sorted(sessions, key=lambda s: (s.created_at, s.id))

    def get_session(self, session_id: int) -> SessionInfo:
        """One game night by id; :class:`NotFoundError` if there is none."""
        for session in self.list_sessions():
            if session.id == session_id:
                return session
        raise NotFoundError(f"no session with id {session_id}")

    def delete_session(self, session_id: int) -> int:
        """Delete a game night and all its games in one transaction.

        Returns
        -------
        int
            The number of games deleted.
        """

        def work(conn: Connection, _attempt: int) -> int:
            game_ids = sa.select(_games.c.id).where(_games.c.session_id == session_id)
            conn.execute(sa.delete(_lines).where(_lines.c.game_id.in_(game_ids)))
            games = conn.execute(sa.delete(_games).where(_games.c.session_id == session_id))
            gone = conn.execute(sa.delete(_sessions).where(_sessions.c.id == session_id))
            if gone.rowcount == 0:
                raise NotFoundError(f"no session with id {session_id}")
            return games.rowcount

        return self._transaction(work, write=True)

    # -- players --------------------------------------------------------------------------

    def list_players(self) -> list[str]:
        """Every known player name, sorted by Unicode code point (same order on every backend)."""
        names = self._transaction(
            lambda conn, _a: conn.execute(sa.select(_players.c.name)).scalars().all(),
            write=False,
        )
        return sorted(names)

    def rename_player(self, old: str, new: str) -> str:
        """Rename a player everywhere; merge into ``new`` when that player already exists.

        Merging moves every game line of ``old`` to ``new`` and removes ``old``; it is refused
        (nothing changes) when both played the same game, because one person cannot hold two
        seats.

        Returns
        -------
        str
            ``"renamed"``, ``"merged"`` or ``"unchanged"`` (``old == new``).
        """
        check_text(new, what="new player name", max_chars=MAX_NAME_CHARS)
        if not isinstance(old, str):
            raise LeaderboardError("old player name: expected text")

        def work(conn: Connection, _attempt: int) -> str:
            old_id = _player_id(conn, old)
            if old_id is None:
                raise NotFoundError(f"no player named {old[:80]!r}")
            if old == new:
                return "unchanged"
            new_id = _player_id(conn, new)
            if new_id is None:
                conn.execute(
                    sa.update(_players)
                    .where(_players.c.id == old_id)
                    .values(name=new, name_sha256=name_key(new))
                )
                return "renamed"
            shared = conn.execute(
                sa.select(_lines.c.game_id)
                .where(_lines.c.player_id == old_id)
                .intersect(sa.select(_lines.c.game_id).where(_lines.c.player_id == new_id))
            ).scalars()
            clash = sorted(shared)
            if clash:
                raise LeaderboardError(
                    f"cannot merge {old[:80]!r} into {new[:80]!r}: both played game "
                    f"{', '.join(map(str, clash[:5]))}"
                )
            conn.execute(
                sa.update(_lines).where(_lines.c.player_id == old_id).values(player_id=new_id)
            )
            conn.execute(sa.delete(_players).where(_players.c.id == old_id))
            return "merged"

        return self._transaction(work, write=True)


# -- row helpers ------------------------------------------------------------------------------


def _insert_session(conn: Connection, *, uid: str, name: str, created_at: str) -> int:
    result = conn.execute(sa.insert(_sessions).values(uid=uid, name=name, created_at=created_at))
    return int(result.inserted_primary_key[0])


def _player_id(conn: Connection, name: str) -> int | None:
    query = sa.select(_players.c.id).where(_players.c.name_sha256 == name_key(name))
    return conn.execute(query).scalar()


def _player_id_or_create(conn: Connection, name: str) -> int:
    """Find or add a player; safe against a concurrent transaction adding the same name."""
    found = _player_id(conn, name)
    if found is not None:
        return found
    try:
        with conn.begin_nested():
            result = conn.execute(sa.insert(_players).values(name=name, name_sha256=name_key(name)))
            return int(result.inserted_primary_key[0])
    except sa.exc.IntegrityError:
        found = _player_id(conn, name)
        if found is None:
            raise
        return found
