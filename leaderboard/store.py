"""The leaderboard store: sessions, confirmed games and standings in any SQLAlchemy database.

A SQLite file is the default (WAL journal, ``synchronous=FULL``, foreign keys on, writers take
the lock up front with ``BEGIN IMMEDIATE``); a club can share one board through any SQLAlchemy
URL, e.g. PostgreSQL (``postgresql+psycopg://...``). Every public call is one transaction,
retried with jittered exponential backoff when the database is busy or a serialisation failure
occurs, so a crash at any point leaves either the whole game or nothing.

Examples
--------
>>> from leaderboard import Store, GameRecord, GamePlayer
>>> store = Store("sqlite://")  # in memory; Store() uses REPTILE_TANK_DB_URL or the default file
>>> night = store.create_session("Friday")
>>> pad = {"total": 42}
>>> board = {"rows": [["rock"] * 5] * 4}
>>> game_id = store.save_game(GameRecord(night.id, (GamePlayer("Ann", board, pad, 1),
...                                                 GamePlayer("Bo", board, {"total": 40}, 2))))
>>> [(row.player, row.wins) for row in store.leaderboard(night.id)]
[('Ann', 1), ('Bo', 0)]
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import os
import random
import re
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection, Engine

from leaderboard.records import (
    MAX_NAME_CHARS,
    MAX_VP,
    GamePlayer,
    GameRecord,
    GamesPage,
    ImportSummary,
    LeaderboardError,
    LeaderboardPage,
    LeaderboardRow,
    NotFoundError,
    SessionInfo,
    canonical_timestamp,
    check_text,
    dump_json,
    utc_now,
)
from leaderboard.schema import (
    RECORD_GAME,
    SCHEMA_VERSION,
    TABLES,
    database_version,
    pending_migrations,
)

#: Environment variable holding the database URL (or a SQLite file path).
ENV_DB_URL = "REPTILE_TANK_DB_URL"
#: Where the leaderboard lives when neither an argument nor the environment says otherwise.
DEFAULT_DB_PATH = Path("~/.local/share/reptile-tank/leaderboard.sqlite3")
#: ``format`` field of an export.
EXPORT_FORMAT = "reptile-tank-leaderboard"
#: Version of the export layout (independent of the database schema version).
EXPORT_FORMAT_VERSION = 1
#: Score pad keys that become their own CSV columns (in the rulebook's column order).
PAD_CSV_KEYS = ("lizards", "snakes", "turtles", "cockroach", "water", "dry_land", "objectives")
#: Arbitrary key for the PostgreSQL advisory lock that serialises migrations.
_PG_MIGRATION_LOCK = 0x52_54_4C_42
_WRITE_OPTION = "reptile_tank_write"

T = TypeVar("T")

_sessions = TABLES["sessions"]
_players = TABLES["players"]
_games = TABLES["games"]
_lines = TABLES["game_players"]
_versions = TABLES["schema_version"]


#: Largest page of :meth:`Store.leaderboard_page` and :meth:`Store.list_games_page`.
MAX_PAGE_SIZE = 1000
#: Games written per transaction by :meth:`Store.import_json` (a save waits at most one batch).
IMPORT_BATCH_SIZE = 200
#: Pause between two import batches (s): long enough for SQLite's busy handler of a waiting
#: save to poll (it sleeps 1, 2, 5, 10, ... up to 100 ms).
IMPORT_PAUSE_S = 0.1
#: Characters that make a spreadsheet read a cell as a formula (OWASP's list).
_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


class StorageError(LeaderboardError):
    """The database cannot be used: cannot be opened or created, not a database, damaged,
    read-only, disk full, unreachable server. The message is one line naming the database and
    the reason; nothing was written by the call that raised it."""


class StoreBusyError(StorageError):
    """The database stayed locked (or kept failing to serialise) past the retry deadline."""


def _storage_reason(error: BaseException) -> str:
    """A readable reason for a database failure (SQLite's and PostgreSQL's usual texts)."""
    orig = getattr(error, "orig", None) or error
    text = " ".join(str(orig).split())
    low = text.lower()
    if "unable to open database file" in low:
        return "cannot open the file (missing or unwritable folder, or a folder in its place)"
    if "file is not a database" in low:
        return "the file is not a database (not SQLite, or overwritten)"
    if "malformed" in low or "database corruption" in low:
        return "the database file is damaged (malformed); restore a backup or move it away"
    if "readonly" in low or "read-only" in low or "read only" in low:
        return "it is read-only (file or folder permissions, or a read-only disk)"
    if "disk is full" in low or "no space left" in low:
        return "the disk is full; nothing was saved"
    if "disk i/o error" in low:
        return "a disk I/O error (damaged, removed or full disk)"
    if "connection" in low and ("refused" in low or "failed" in low or "timeout" in low):
        return f"cannot reach the database server ({text[:160]})"
    return text[:200] or type(orig).__name__


def resolve_url(target: str | os.PathLike[str] | None = None) -> URL:
    """Turn a URL, a file path or nothing into the database URL to open.

    Parameters
    ----------
    target : str, path or None
        A SQLAlchemy URL (anything containing ``://``), or a path to a SQLite file, or ``None``
        for ``$REPTILE_TANK_DB_URL`` and then ``~/.local/share/reptile-tank/leaderboard.sqlite3``.

    Returns
    -------
    sqlalchemy.engine.URL
        A plain ``postgresql://`` URL is given the psycopg (3) driver when psycopg2 is absent.
    """
    if target is None:
        target = os.environ.get(ENV_DB_URL) or DEFAULT_DB_PATH
    text = os.fspath(target)
    if "://" not in text:
        path = Path(text).expanduser().resolve()
        return URL.create("sqlite", database=str(path))
    try:
        url = sa.make_url(text)
    except sa.exc.ArgumentError:
        raise StorageError(f"not a database URL: {text[:80]!r}") from None
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername=f"postgresql+{_postgres_driver()}")
    return url


def _postgres_driver() -> str:
    import importlib.util

    if importlib.util.find_spec("psycopg2") is None and importlib.util.find_spec("psycopg"):
        return "psycopg"
    return "psycopg2"


def name_key(name: str) -> str:
    """Return the players table's unique key for ``name``: SHA-256 hex of its exact UTF-8.

    A digest rather than the name itself keeps the unique index small (PostgreSQL b-tree
    entries are limited to ~2.7 kB; names may have 10 000 characters).
    """
    return hashlib.sha256(name.encode("utf-8")).hexdigest()


def _is_transient(error: sa.exc.DBAPIError) -> bool:
    """Whether retrying the whole transaction may succeed (busy, locked, serialisation)."""
    if error.connection_invalidated:
        return True
    orig = error.orig
    if isinstance(orig, sqlite3.OperationalError):
        message = str(orig).lower()
        return "locked" in message or "busy" in message
    sqlstate = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    return sqlstate in ("40001", "40P01")  # serialization_failure, deadlock_detected


def _first_failure(error: sa.exc.DBAPIError) -> sa.exc.DBAPIError:
    """The failure that started it: SQLite rolls a whole transaction back on some errors (a full
    disk, an I/O error), so leaving a savepoint then fails with "no such savepoint", which would
    hide the reason the player needs ("database or disk is full")."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, sa.exc.DBAPIError) and "no such savepoint" not in str(seen.orig):
            return seen
        seen = seen.__cause__ or seen.__context__
    return error


def _configure_sqlite(engine: Engine, *, busy_timeout_s: float, in_memory: bool) -> None:
    """Per-connection SQLite settings and explicit ``BEGIN`` / ``BEGIN IMMEDIATE``.

    pysqlite's own transaction handling is switched off (``isolation_level = None``) so that
    SQLAlchemy's ``begin`` really starts a transaction, savepoints work, and writers take the
    write lock at ``BEGIN IMMEDIATE`` (where ``busy_timeout`` applies) rather than on their
    first write (where SQLite may fail at once to avoid a deadlock).
    """

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
        cursor.execute("PRAGMA foreign_keys = ON")
        if not in_memory:
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = FULL")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        write = conn.get_execution_options().get(_WRITE_OPTION, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


class Store:
    """Sessions, confirmed games and leaderboards in one database.

    Parameters
    ----------
    url : str, path or None
        SQLAlchemy URL or SQLite file path; ``None`` reads ``$REPTILE_TANK_DB_URL``, else uses
        ``~/.local/share/reptile-tank/leaderboard.sqlite3`` (its folder is created).
    migrate : bool
        Bring the schema up to date on open (default). Opening never downgrades: a database
        written by a newer version raises :class:`LeaderboardError`.
    busy_timeout_s : float
        How long SQLite waits for a lock before reporting busy.
    retry_s : float
        How long a transaction is retried on busy/serialisation failures before
        :class:`StoreBusyError`.

    Notes
    -----
    One ``Store`` is safe to share between threads (e.g. with ``st.cache_resource``); several
    processes may open the same file or server at once.
    """

    def __init__(
        self,
        url: str | os.PathLike[str] | None = None,
        *,
        migrate: bool = True,
        busy_timeout_s: float = 10.0,
        retry_s: float = 60.0,
    ) -> None:
        self.url = resolve_url(url)
        self.retry_s = retry_s
        #: Transactions retried after a busy/serialisation failure since open (observability).
        self.retries = 0
        self._rng = random.Random()
        backend = self.url.get_backend_name()
        in_memory = False
        if backend == "sqlite":
            database = self.url.database or ""
            in_memory = database in ("", ":memory:") or database.startswith("file::memory:")
            if not in_memory and not database.startswith("file:"):
                folder = Path(database).expanduser().parent
                try:
                    folder.mkdir(parents=True, exist_ok=True)
                except OSError as error:
                    raise StorageError(
                        f"the leaderboard database {database} cannot be used: cannot create "
                        f"its folder {folder} ({error.strerror or error})"
                    ) from None
            engine = sa.create_engine(self.url, connect_args={"timeout": busy_timeout_s})
            _configure_sqlite(engine, busy_timeout_s=busy_timeout_s, in_memory=in_memory)
        else:
            try:
                engine = sa.create_engine(self.url, pool_pre_ping=True)
            except (ImportError, sa.exc.NoSuchModuleError, sa.exc.ArgumentError) as error:
                raise StorageError(
                    f"the database URL {self.url.render_as_string(hide_password=True)[:80]!r} "
                    f"cannot be used: its kind ({self.url.drivername[:30]}) is not supported "
                    "here (use a SQLite file or a postgresql:// URL) "
                    f"[{type(error).__name__}]"
                ) from None
        self._engine = engine
        self._write_engine = engine.execution_options(**{_WRITE_OPTION: True})
        if migrate:
            try:
                self.migrate()
                if backend == "sqlite" and not in_memory:
                    self.check_file()
            except BaseException:
                engine.dispose()  # no pooled connection may outlive a failed open
                raise

    # -- plumbing -------------------------------------------------------------------------

    @property
    def backend(self) -> str:
        """The database kind: ``"sqlite"``, ``"postgresql"``, ..."""
        return self.url.get_backend_name()

    def close(self) -> None:
        """Close every pooled connection."""
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.url.render_as_string(hide_password=True)!r})"

    def _where(self) -> str:
        """The database as messages name it: the SQLite file, or the URL without password."""
        if self.backend == "sqlite":
            return self.url.database or "(in memory)"
        return self.url.render_as_string(hide_password=True)

    def _transaction(self, work: Callable[[Connection, int], T], *, write: bool) -> T:
        """Run ``work(conn, attempt)`` in one transaction, retrying transient failures."""
        engine = self._write_engine if write else self._engine
        deadline = time.monotonic() + self.retry_s
        delay = 0.005
        attempt = 0
        while True:
            attempt += 1
            try:
                with engine.begin() as conn:
                    return work(conn, attempt)
            except OverflowError:  # a number the database cannot hold (an id of 2**63, ...)
                raise LeaderboardError(
                    "a number is out of the database's range (at most 2**63 - 1); nothing was "
                    "written"
                ) from None
            except sa.exc.DBAPIError as raised:
                error = _first_failure(raised)
                if not _is_transient(error):
                    raise StorageError(
                        f"the leaderboard database {self._where()} cannot be used: "
                        f"{_storage_reason(error)}"
                    ) from error
                if time.monotonic() + delay > deadline:
                    raise StoreBusyError(
                        f"the leaderboard database stayed busy for {self.retry_s:.0f} s "
                        f"({attempt} attempts); try again"
                    ) from error
            self.retries += 1
            time.sleep(delay * self._rng.uniform(0.5, 1.5))
            delay = min(delay * 2, 0.5)

    def check_file(self) -> None:
        """SQLite: ``PRAGMA quick_check`` (run at open): a damaged page is reported as one
        :class:`StorageError` naming the file, not found later as wrong standings."""
        if self.backend != "sqlite":
            return
        rows = self._transaction(
            lambda c, _a: [r[0] for r in c.exec_driver_sql("PRAGMA quick_check").fetchall()],
            write=False,
        )
        if rows != ["ok"]:
            detail = str(rows[0])[:120] if rows else "no answer"
            raise StorageError(
                f"the leaderboard database {self._where()} is damaged ({detail}); restore a "
                "backup or export what is readable"
            )

    def schema_version(self) -> int:
        """Return the schema version recorded in the database."""
        return self._transaction(lambda conn, _a: database_version(conn), write=False)

    def migrate(self) -> int:
        """Bring the database to ``SCHEMA_VERSION``, one transaction for all steps.

        Returns
        -------
        int
            The version the database had before (0 when it was empty).
        """
        before = self.schema_version()
        if before > SCHEMA_VERSION:
            raise LeaderboardError(
                f"the leaderboard database has schema version {before}, newer than this "
                f"program's {SCHEMA_VERSION}; upgrade reptile-tank"
            )
        if before == SCHEMA_VERSION:
            return before

        def work(conn: Connection, _attempt: int) -> int:
            if conn.dialect.name == "postgresql":
                conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_PG_MIGRATION_LOCK)))
            version = database_version(conn)  # again, under the lock
            for target, step in pending_migrations(version):
                step(conn)
                conn.execute(sa.insert(_versions).values(version=target, applied_at=utc_now()))
            return version

        self._transaction(work, write=True)
        return before

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

    # -- games ----------------------------------------------------------------------------

    def save_game(self, record: GameRecord) -> int:
        """Save a confirmed game: the game and every player line, or nothing.

        Parameters
        ----------
        record : GameRecord
            ``record.id`` is ignored; ``record.uid`` is kept when given (an existing uid raises
            :class:`LeaderboardError`), else a new one is made.

        Returns
        -------
        int
            The new game's id.
        """
        record.check()
        generated = record.uid is None
        uid = record.uid if record.uid is not None else uuid.uuid4().hex
        played_at = canonical_timestamp(record.played_at or utc_now(), what="played_at")

        def work(conn: Connection, attempt: int) -> int:
            existing = conn.execute(sa.select(_games.c.id).where(_games.c.uid == uid)).scalar()
            if existing is not None:
                if generated and attempt > 1:
                    return existing  # our own commit whose acknowledgement was lost
                raise LeaderboardError(f"a game with uid {uid} is already saved")
            session = conn.execute(
                sa.select(_sessions.c.id).where(_sessions.c.id == record.session_id)
            ).scalar()
            if session is None:
                raise NotFoundError(f"no session with id {record.session_id}")
            return _insert_game(conn, record, uid=uid, played_at=played_at)

        return self._transaction(work, write=True)

    def get_game(self, game_id: int) -> GameRecord:
        """One game with every player line; :class:`NotFoundError` if there is none."""
        games = self._transaction(
            lambda conn, _a: _read_games(conn, _games.c.id == game_id), write=False
        )  # _read_games reads record games only: another game's id is not found
        if not games:
            raise NotFoundError(f"no game with id {game_id}")
        return games[0]

    def list_games(self, session_id: int | None = None) -> list[GameRecord]:
        """Every game (of one session, or all), oldest first, with every player line."""
        where = sa.true() if session_id is None else _games.c.session_id == session_id
        return self._transaction(lambda conn, _a: _read_games(conn, where), write=False)

    def delete_game(self, game_id: int) -> None:
        """Delete a game and its player lines (players themselves stay)."""

        def work(conn: Connection, _attempt: int) -> None:
            # the game row first, locked: an edit being saved at the same moment (which locks
            # it too) either lands before (its lines are then deleted with it) or finds the
            # game gone — never lines inserted for a game deleted under them
            locked = conn.execute(
                sa.select(_games.c.id)
                .where(_games.c.id == game_id, _games.c.game == RECORD_GAME)
                .with_for_update()
            ).scalar()
            if locked is None:
                raise NotFoundError(f"no game with id {game_id}")
            conn.execute(sa.delete(_lines).where(_lines.c.game_id == game_id))
            conn.execute(sa.delete(_games).where(_games.c.id == game_id))

        self._transaction(work, write=True)

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

    # -- standings ------------------------------------------------------------------------

    def leaderboard(
        self, session_id: int | None = None, *, mode: str | None = None
    ) -> list[LeaderboardRow]:
        """Standings per player over one session's games (or all games).

        Parameters
        ----------
        session_id : int, optional
            Restrict to one game night; ``None`` is the all-time view.
        mode : str, optional
            ``"multi"`` or ``"solo"`` to count only those games; ``None`` counts both.

        Returns
        -------
        list of LeaderboardRow
            Most wins first, then best average, then most VP, then name (code point order).
            Games holding a total outside ``-MAX_VP..MAX_VP`` (only an older version or
            hand-written SQL could store one) are left out, so they cannot overflow the sums;
            see :meth:`out_of_range_games`.
        """
        rows, _total, _excluded = self._standings(session_id, mode, offset=0, limit=None)
        return rows

    def leaderboard_page(
        self,
        session_id: int | None = None,
        *,
        mode: str | None = None,
        offset: int = 0,
        limit: int = 50,
    ) -> LeaderboardPage:
        """One page of :meth:`leaderboard`, ordered and sliced by the database.

        The page's rows equal ``leaderboard(session_id, mode=mode)[offset:offset + limit]``;
        only ``limit`` rows are built, whatever the history's length.

        Parameters
        ----------
        offset : int
            Rows to skip (>= 0).
        limit : int
            Page size, 1..``MAX_PAGE_SIZE``.
        """
        _check_page(offset, limit)
        rows, total, excluded = self._standings(session_id, mode, offset=offset, limit=limit)
        return LeaderboardPage(rows, total, offset, limit, excluded)

    def out_of_range_games(self, session_id: int | None = None) -> list[int]:
        """Ids of games holding a total outside ``-MAX_VP..MAX_VP`` (left out of standings)."""
        query = (
            sa.select(_lines.c.game_id)
            .where(_lines.c.game == RECORD_GAME, _out_of_range())
            .distinct()
        )
        if session_id is not None:
            query = query.where(
                _lines.c.game_id.in_(
                    sa.select(_games.c.id).where(_games.c.session_id == session_id)
                )
            )
        return self._transaction(
            lambda conn, _a: sorted(conn.execute(query).scalars().all()), write=False
        )

    def _standings(
        self,
        session_id: int | None,
        mode: str | None,
        *,
        offset: int,
        limit: int | None,
        game: str = RECORD_GAME,
    ) -> tuple[list[LeaderboardRow], int, int]:
        """The one standings query, of one game (``game``: an id of the game list): per player
        games, wins, VP and best, over the covering index led by the game."""
        games = None  # every game: no need to look at the games table at all
        if session_id is not None or mode is not None:
            games = sa.select(_games.c.id)
            if session_id is not None:
                games = games.where(_games.c.session_id == session_id)
            if mode is not None:
                games = games.where(_games.c.mode == mode)
        # Over all games (or one mode) the game leads the covering index; one night's few games
        # are found by key, so there the game is only checked, not searched by.
        same_game = _game_is(_lines.c.game, game, indexed=session_id is None)
        bad = sa.select(_lines.c.game_id).where(same_game, _out_of_range())
        # Unary plus: over all games (or one mode) the filters must not pick the (game_id, seat)
        # key to search by, or SQLite reads every wide player line (boards, pads, thumbnails):
        # the standings read the covering ix_game_players_standings only.
        # One game night's few games are still best found by key.
        game_id = _lines.c.game_id
        if session_id is None:
            game_id = sa.literal_column("+game_players.game_id")
        counted = sa.and_(same_game, game_id.not_in(bad))
        if games is not None:
            counted = sa.and_(game_id.in_(games), counted)
        # Aggregate per player id over the covering index (ix_game_players_standings), then
        # join the names of the page's rows only.
        per_player = (
            sa.select(
                _lines.c.player_id.label("player_id"),
                sa.func.count().label("played"),
                sa.func.sum(sa.case((_lines.c.rank == 1, 1), else_=0)).label("wins"),
                sa.func.sum(_lines.c.total).label("vp"),
                sa.func.max(_lines.c.total).label("best"),
            )
            .where(counted)
            .group_by(_lines.c.player_id)
            .subquery()
        )
        average = sa.cast(per_player.c.vp, sa.Float) / per_player.c.played
        query = sa.select(
            _players.c.name,
            per_player.c.played,
            per_player.c.wins,
            per_player.c.vp,
            per_player.c.best,
            sa.func.count().over().label("listed"),
        ).join(per_player, _players.c.id == per_player.c.player_id)

        def work(conn: Connection, _attempt: int) -> tuple[list[Any], int, int]:
            name = _players.c.name
            if conn.dialect.name == "postgresql":
                name = sa.collate(name, "C")  # code point order, as SQLite's BINARY
            ordered = query.order_by(
                per_player.c.wins.desc(), average.desc(), per_player.c.vp.desc(), name
            )
            if limit is not None:
                ordered = ordered.offset(offset).limit(limit)
            rows = conn.execute(ordered).all()
            if rows:
                listed = int(rows[0].listed)
            elif offset == 0:
                listed = 0
            else:  # a page past the end: count the listing on its own
                listed = conn.execute(
                    sa.select(sa.func.count()).select_from(per_player)
                ).scalar_one()
            return [row[:5] for row in rows], int(listed), _count(conn, games, same_game)

        rows, total, excluded = self._transaction(work, write=False)
        table = [
            LeaderboardRow(
                player=name,
                games=int(count),
                wins=int(won),
                total_vp=int(vp),
                average=int(vp) / int(count),
                best=int(best),
            )
            for name, count, won, vp, best in rows
        ]
        return table, total, excluded

    def list_games_page(
        self,
        session_id: int | None = None,
        *,
        offset: int = 0,
        limit: int = 20,
        thumbnails: bool = False,
    ) -> GamesPage:
        """One page of games, newest first; only that page's games and lines are read.

        Parameters
        ----------
        offset, limit : int
            Games to skip (>= 0) and page size (1..``MAX_PAGE_SIZE``).
        thumbnails : bool
            Read the photo thumbnails too (default: left out, ``photo_thumbnail=None``).
        """
        _check_page(offset, limit)
        where = _games.c.game == RECORD_GAME
        if session_id is not None:
            where = sa.and_(where, _games.c.session_id == session_id)

        def work(conn: Connection, _attempt: int) -> tuple[list[GameRecord], int]:
            ids = (
                conn.execute(
                    sa.select(_games.c.id)
                    .where(where)
                    .order_by(_games.c.played_at.desc(), _games.c.id.desc())
                    .offset(offset)
                    .limit(limit)
                )
                .scalars()
                .all()
            )
            total = conn.execute(sa.select(sa.func.count()).select_from(_games).where(where))
            found = _read_games(conn, _games.c.id.in_(ids), thumbnails=thumbnails) if ids else []
            return found, int(total.scalar() or 0)

        games, total = self._transaction(work, write=False)
        games.sort(key=lambda g: (g.played_at or "", g.id or 0), reverse=True)
        return GamesPage(games, total, offset, limit)

    # -- exchange -------------------------------------------------------------------------

    def export_json(
        self, session_id: int | None = None, *, thumbnails: bool = True
    ) -> dict[str, Any]:
        """Everything (or one session) as JSON-ready data that :meth:`import_json` reads back.

        Database ids are left out: sessions and games are identified by their ``uid``, so an
        export imports into any store and a second import of it changes nothing. Built when
        called: a page offers it behind a button, never on every render. ``thumbnails=False``
        leaves the photo thumbnails out (``null``).
        """

        def work(conn: Connection, _attempt: int) -> dict[str, Any]:
            where = sa.true() if session_id is None else _sessions.c.id == session_id
            sessions = conn.execute(
                sa.select(
                    _sessions.c.id, _sessions.c.uid, _sessions.c.name, _sessions.c.created_at
                ).where(where)
            ).all()
            if session_id is not None and not sessions:
                raise NotFoundError(f"no session with id {session_id}")
            game_where = sa.true() if session_id is None else _games.c.session_id == session_id
            return {
                "sessions": sessions,
                "games": _read_games(conn, game_where, thumbnails=thumbnails),
            }

        found = self._transaction(work, write=False)
        uid_of = {row.id: row.uid for row in found["sessions"]}
        sessions = sorted(
            ({"uid": r.uid, "name": r.name, "created_at": r.created_at} for r in found["sessions"]),
            key=lambda s: (s["created_at"], s["uid"]),
        )
        games = []
        for game in found["games"]:
            data = game.to_json()
            del data["id"], data["session_id"]
            games.append({"session_uid": uid_of[game.session_id], **data})
        games.sort(key=lambda g: (g["played_at"], g["uid"]))
        return {
            "format": EXPORT_FORMAT,
            "format_version": EXPORT_FORMAT_VERSION,
            "sessions": sessions,
            "games": games,
        }

    def import_json(
        self,
        data: dict[str, Any],
        *,
        verify: Callable[[GameRecord], str | None] | bool,
        batch_size: int = IMPORT_BATCH_SIZE,
        progress: Callable[[int, int], None] | None = None,
        pause_s: float = IMPORT_PAUSE_S,
    ) -> ImportSummary:
        """Read an :meth:`export_json` document back, in bounded batches.

        The whole document is checked first (shape, text, every number's range, the sessions
        its games name, and, with ``verify``, every game re-scored from its boards); a
        malformed document raises :class:`LeaderboardError` naming the place, and nothing is
        written. Games are then written ``batch_size`` per transaction, so a save from another
        user waits for one batch at most, never for the whole import. Sessions and games already
        present (same ``uid``) are kept as they are, so importing the same file twice adds
        nothing, and an import cut short (a storage failure, a crash) is completed by importing
        the file again.

        Parameters
        ----------
        verify : bool or callable
            Required: the game's import check, ``(GameRecord) -> reason or None`` (its game
            list entry's ``import_check``, passed by :func:`service.played.import_games`): it
            raises :class:`LeaderboardError` to refuse a game (e.g. a pad its board does not
            score), and a reason flags one imported unchecked (``ImportSummary.flagged``).
            ``False`` skips it. Storage names no game and never imports the scorers.
        batch_size : int
            Games per transaction, 1..10 000.
        progress : callable, optional
            ``progress(games_done, games_total)`` after each batch is committed (no lock held).
        pause_s : float
            Pause between batches, so that saves waiting for the write lock get it.
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, int):
            raise LeaderboardError(f"batch_size must be an integer, got {batch_size!r}")
        if not 1 <= batch_size <= 10_000:
            raise LeaderboardError(f"batch_size must be 1..10000, got {batch_size}")
        sessions, games = _parse_export(data)
        check = _verifier(verify)
        flagged: list[tuple[str, str]] = []
        if check is not None:
            for i, (_session_uid, record) in enumerate(games):
                try:
                    reason = check(record)
                except LeaderboardError as error:
                    raise LeaderboardError(f"import: games[{i}]: {error}") from None
                if reason:
                    flagged.append((str(record.uid), reason))
        known = {session["uid"] for session in sessions}
        others = sorted({uid for uid, _record in games} - known)

        def sessions_work(conn: Connection, _attempt: int) -> tuple[dict[str, int], int]:
            for uid in others:  # before anything is written
                found = conn.execute(
                    sa.select(_sessions.c.id).where(_sessions.c.uid == uid)
                ).scalar()
                if found is None:
                    where = next(i for i, (s_uid, _r) in enumerate(games) if s_uid == uid)
                    raise LeaderboardError(f"import: games[{where}]: unknown session {uid[:80]!r}")
            ids: dict[str, int] = {}
            added = 0
            for session in sessions:
                found = conn.execute(
                    sa.select(_sessions.c.id).where(_sessions.c.uid == session["uid"])
                ).scalar()
                if found is None:
                    found = _insert_session(conn, **session)
                    added += 1
                ids[session["uid"]] = found
            for uid in others:
                ids[uid] = conn.execute(
                    sa.select(_sessions.c.id).where(_sessions.c.uid == uid)
                ).scalar_one()
            return ids, added

        session_ids, added_sessions = self._transaction(sessions_work, write=True)
        added = skipped = 0
        for start in range(0, len(games), batch_size):
            batch = games[start : start + batch_size]

            def batch_work(conn: Connection, _attempt: int, batch=batch) -> tuple[int, int]:
                new = old = 0
                for session_uid, record in batch:
                    exists = conn.execute(
                        sa.select(_games.c.id).where(_games.c.uid == record.uid)
                    ).scalar()
                    if exists is not None:
                        old += 1
                        continue
                    placed = dataclasses.replace(record, session_id=session_ids[session_uid])
                    _insert_game(conn, placed, uid=record.uid, played_at=record.played_at)
                    new += 1
                return new, old

            new, old = self._transaction(batch_work, write=True)
            added += new
            skipped += old
            if progress is not None:
                progress(start + len(batch), len(games))
            if start + batch_size < len(games):
                # Let a save waiting for the write lock take it: SQLite's busy handler polls
                # (every 1..100 ms), and an importer starting its next batch at once keeps
                # winning the race (saves waited 4-6 s during a 2 000-game import without this).
                time.sleep(pause_s)
        return ImportSummary(added_sessions, added, skipped, tuple(flagged))

    def export_csv(self, session_id: int | None = None) -> str:
        """One CSV row per player per game (RFC 4180, header first), for spreadsheets.

        Text cells starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return get a
        leading ``'`` (:func:`csv_text`) so that spreadsheet programs show them as text instead
        of running them as formulas; numbers are written as numbers. The JSON export keeps
        every text intact. Thumbnails are not read.
        """
        export = self.export_json(session_id, thumbnails=False)
        names = {s["uid"]: s["name"] for s in export["sessions"]}
        header = [
            "session",
            "session_uid",
            "game_uid",
            "played_at",
            "mode",
            "player_count_variant",
            "objectives",
            "rules_version",
            "rules_hash",
            "seat",
            "player",
            "rank",
            "win",
            "total",
            *(f"pad_{key}" for key in PAD_CSV_KEYS),
            "photo_sha256",
            "notes",
        ]
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(header)
        for game in export["games"]:
            for seat, line in enumerate(game["players"], start=1):  # seats as the app says them
                pad = line["pad"]
                writer.writerow(
                    [
                        csv_text(names[game["session_uid"]]),
                        csv_text(game["session_uid"]),
                        csv_text(game["uid"]),
                        game["played_at"],
                        game["mode"],
                        int(game["player_count_variant"]),
                        ";".join(str(o) for o in game["objectives"]),
                        csv_text(game["rules_version"]),
                        csv_text(game["rules_hash"]),
                        seat,
                        csv_text(line["name"]),
                        line["rank"],
                        int(line["rank"] == 1),
                        line["total"],
                        *(_csv_number(pad.get(key)) for key in PAD_CSV_KEYS),
                        line["photo_sha256"] or "",
                        csv_text(game["notes"]),
                    ]
                )
        return buffer.getvalue()


# -- row helpers (module level so that tests can slow them down in a child process) ----------


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


def ensure_side_tables(store: Store, tables: Iterable[sa.Table]) -> None:
    """Create ``tables`` (of one ``MetaData``, kept outside the schema version) when the
    database lacks any of them, under the migration lock on PostgreSQL."""
    tables = list(tables)

    def work(conn: Connection, _attempt: int) -> None:
        if conn.dialect.name == "postgresql":
            conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_PG_MIGRATION_LOCK)))
        tables[0].metadata.create_all(conn, tables=tables, checkfirst=True)

    names = set(store._transaction(lambda c, _a: sa.inspect(c).get_table_names(), write=False))
    if not {t.name for t in tables} <= names:
        store._transaction(work, write=True)


def game_row_fields(record: GameRecord, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``games`` columns a record fills besides its uid, game night and time
    (``extra`` replaces the record's own ``extra``)."""
    return {
        "mode": record.mode,
        "player_count_variant": record.player_count_variant,
        "objectives": dump_json(list(record.objectives)),
        "rules_version": record.rules_version,
        "rules_hash": record.rules_hash,
        "notes": record.notes,
        "extra": dump_json(record.extra if extra is None else extra),
        "player_count": len(record.players),
    }


def _insert_game_row(conn: Connection, record: GameRecord, *, uid: str, played_at: str) -> int:
    result = conn.execute(
        sa.insert(_games).values(
            uid=uid,
            session_id=record.session_id,
            played_at=played_at,
            **game_row_fields(record),
        )
    )
    return int(result.inserted_primary_key[0])


def _insert_player_line(conn: Connection, game_id: int, seat: int, player: GamePlayer) -> None:
    conn.execute(
        sa.insert(_lines).values(
            game_id=game_id,
            seat=seat,
            player_id=_player_id_or_create(conn, player.name),
            board=dump_json(player.board),
            pad=dump_json(player.pad),
            total=player.total,
            rank=player.rank,
            photo_sha256=player.photo_sha256,
            photo_thumbnail=player.photo_thumbnail,
        )
    )


def _insert_game(conn: Connection, record: GameRecord, *, uid: str, played_at: str) -> int:
    game_id = _insert_game_row(conn, record, uid=uid, played_at=played_at)
    for seat, player in enumerate(record.players):
        _insert_player_line(conn, game_id, seat, player)
    return game_id


def _out_of_range() -> sa.ColumnElement[bool]:
    """Player lines whose total is outside ``-MAX_VP..MAX_VP`` (never written by this version)."""
    return sa.or_(_lines.c.total > MAX_VP, _lines.c.total < -MAX_VP)


def _game_is(column: sa.ColumnElement[Any], game: str, *, indexed: bool) -> Any:
    """``column = game``; with ``indexed=False`` written so that no index is searched by it
    (SQLite would otherwise walk every line of the game instead of a few games' by key)."""
    return (column if indexed else sa.func.coalesce(column, "")) == game


def _count(conn: Connection, games: sa.Select | None, same_game: Any) -> int:
    """How many of ``games`` (``None``: all of the game's) hold an out-of-range total."""
    query = sa.select(sa.func.count(sa.distinct(_lines.c.game_id))).where(
        same_game, _out_of_range()
    )
    if games is not None:
        query = query.where(_lines.c.game_id.in_(games))
    return int(conn.execute(query).scalar() or 0)


def _check_page(offset: int, limit: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE_SIZE:
        raise LeaderboardError(f"page limit must be 1..{MAX_PAGE_SIZE}, got {limit!r}")
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise LeaderboardError(f"page offset must be 0 or more, got {offset!r}")


def _read_games(
    conn: Connection, where: sa.ColumnElement[bool], *, thumbnails: bool = True
) -> list[GameRecord]:
    """Record games (:data:`RECORD_GAME`'s) matching ``where`` with their player lines, oldest
    first."""
    where = sa.and_(_game_is(_games.c.game, RECORD_GAME, indexed=False), where)
    games = conn.execute(sa.select(_games).where(where)).mappings().all()
    game_ids = sa.select(_games.c.id).where(where)
    columns = [c for c in _lines.c if thumbnails or c.name != "photo_thumbnail"]
    if not thumbnails:
        columns.append(sa.null().label("photo_thumbnail"))
    lines = conn.execute(
        sa.select(*columns, _players.c.name)
        .select_from(_lines.join(_players))
        .where(_lines.c.game_id.in_(game_ids))
    ).mappings()
    by_game: dict[int, list[Any]] = {}
    for line in lines:
        by_game.setdefault(line["game_id"], []).append(line)
    records = [_record_from_rows(game, by_game.get(game["id"], [])) for game in games]
    return sorted(records, key=lambda g: (g.played_at or "", g.id or 0))


def _record_from_rows(game: Any, lines: Iterable[Any]) -> GameRecord:
    players = tuple(
        GamePlayer(
            name=line["name"],
            board=json.loads(line["board"]),
            pad=json.loads(line["pad"]),
            rank=line["rank"],
            photo_sha256=line["photo_sha256"],
            photo_thumbnail=None
            if line["photo_thumbnail"] is None
            else bytes(line["photo_thumbnail"]),
        )
        for line in sorted(lines, key=lambda row: row["seat"])
    )
    return GameRecord(
        session_id=game["session_id"],
        players=players,
        mode=game["mode"],
        player_count_variant=bool(game["player_count_variant"]),
        objectives=json.loads(game["objectives"]),
        rules_version=game["rules_version"],
        rules_hash=game["rules_hash"],
        notes=game["notes"],
        extra=json.loads(game["extra"]),
        played_at=game["played_at"],
        id=game["id"],
        uid=game["uid"],
    )


def _csv_number(value: Any) -> Any:
    return value if isinstance(value, int) and not isinstance(value, bool) else ""


def csv_text(value: str) -> str:
    """A text cell a spreadsheet shows as text: a leading ``= + - @``, tab or carriage return
    (which spreadsheet programs read as a formula) gets a ``'`` in front (OWASP's advice)."""
    return "'" + value if value.startswith(_FORMULA_PREFIXES) else value


def _verifier(verify: Any) -> Callable[[GameRecord], str | None] | None:
    if verify is False or verify is None:
        return None
    if callable(verify):
        return verify
    raise LeaderboardError(f"verify must be a callable or False, got {verify!r}")


#: A game night's uid names its deck folders: letters, digits, ``-`` and ``_`` only.
_NIGHT_UID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


def _check_night_uid(value: Any, *, where: str) -> str:
    check_text(value, what=where, max_chars=64)
    if not _NIGHT_UID.fullmatch(value):
        raise LeaderboardError(
            f"{where}: {value[:40]!r} is not a game night id (letters, digits, '-' and '_')"
        )
    return value


def _parse_export(data: Any) -> tuple[list[dict[str, str]], list[tuple[str, GameRecord]]]:
    """Check an export document; return its sessions and ``(session_uid, record)`` pairs."""
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise LeaderboardError(f"import: not a {EXPORT_FORMAT} document")
    if data.get("format_version") != EXPORT_FORMAT_VERSION:
        raise LeaderboardError(
            f"import: format_version {data.get('format_version')!r} is not {EXPORT_FORMAT_VERSION}"
        )
    raw_sessions, raw_games = data.get("sessions"), data.get("games")
    if not isinstance(raw_sessions, list) or not isinstance(raw_games, list):
        raise LeaderboardError("import: 'sessions' and 'games' must be lists")
    sessions = []
    for i, raw in enumerate(raw_sessions):
        where = f"import: sessions[{i}]"
        if not isinstance(raw, dict):
            raise LeaderboardError(f"{where}: expected an object")
        try:
            session = {
                "uid": _check_night_uid(raw["uid"], where=f"{where}.uid"),
                "name": check_text(raw["name"], what=f"{where}.name", max_chars=MAX_NAME_CHARS),
                "created_at": canonical_timestamp(raw["created_at"], what=f"{where}.created_at"),
            }
        except KeyError as error:
            raise LeaderboardError(f"{where}: missing key {error}") from None
        sessions.append(session)
    games = []
    for i, raw in enumerate(raw_games):
        where = f"import: games[{i}]"
        if not isinstance(raw, dict):
            raise LeaderboardError(f"{where}: expected an object")
        for key in ("uid", "session_uid", "played_at"):
            if not isinstance(raw.get(key), str):
                raise LeaderboardError(f"{where}: missing key '{key}'")
        record = GameRecord.from_json({**raw, "session_id": 0}, where=where)
        played_at = canonical_timestamp(raw["played_at"], what=f"{where}.played_at")
        record = dataclasses.replace(record, played_at=played_at)
        try:
            record.check()
        except LeaderboardError as error:
            raise LeaderboardError(f"{where}: {error}") from None
        games.append((raw["session_uid"], record))
    return sessions, games
