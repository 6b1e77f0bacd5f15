"""The leaderboard database: opening it (SQLite file or any SQLAlchemy URL), one transaction per
call with retries, the schema's migrations, and the game its record rows belong to.

:class:`Database` is the base every drawer of :class:`leaderboard.store.Store` builds on
(:mod:`leaderboard.nights`, :mod:`leaderboard.saved`, :mod:`leaderboard.standings`,
:mod:`leaderboard.exchange`): they read and write only through :meth:`Database._transaction`.
A SQLite file is the default (WAL journal, ``synchronous=FULL``, foreign keys on, writers take
the lock up front with ``BEGIN IMMEDIATE``); every public call is one transaction, retried with
jittered exponential backoff when the database is busy or a serialisation failure occurs.
"""

from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Self, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection, Engine

from leaderboard.records import (
    LeaderboardError,
    utc_now,
)
from leaderboard.schema import (
    SCHEMA_VERSION,
    TABLES,
    HistoryMissingError,
    SchemaHistory,
    database_version,
    pending_migrations,
    record_game_of,
    require_history,
)

#: Environment variable holding the database URL (or a SQLite file path).
ENV_DB_URL = "REPTILE_TANK_DB_URL"
#: Where the leaderboard lives when neither an argument nor the environment says otherwise.
DEFAULT_DB_PATH = Path("~/.local/share/reptile-tank/leaderboard.sqlite3")
#: Arbitrary key for the PostgreSQL advisory lock that serialises migrations.
_PG_MIGRATION_LOCK = 0x52_54_4C_42
_WRITE_OPTION = "reptile_tank_write"

T = TypeVar("T")

_versions = TABLES["schema_version"]


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


class Database:
    """One leaderboard database: its engine, transactions and schema (the base of
    :class:`leaderboard.store.Store` and each of its drawers).

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
    history : SchemaHistory, optional
        The game list's facts of the schema's history (:func:`service.store.schema_history`):
        needed to create a database or migrate one below version 5, which without them is
        refused (:class:`leaderboard.schema.HistoryMissingError`), never guessed. A database at
        the current version opens without them: it records its record game itself.

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
        history: SchemaHistory | None = None,
    ) -> None:
        self.url = resolve_url(url)
        if history is not None and not isinstance(history, SchemaHistory):
            raise TypeError(f"history: a leaderboard.schema.SchemaHistory, got {history!r}")
        self.history = history
        self._record_game: str | None = None
        self._record_game_lock = threading.Lock()
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

    def __enter__(self) -> Self:
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
        history = require_history(self.history, before, self._where())

        def work(conn: Connection, _attempt: int) -> int:
            if conn.dialect.name == "postgresql":
                conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_PG_MIGRATION_LOCK)))
            version = database_version(conn)  # again, under the lock
            for target, step in pending_migrations(version):
                step(conn, history)
                conn.execute(sa.insert(_versions).values(version=target, applied_at=utc_now()))
            return version

        self._transaction(work, write=True)
        return before

    @property
    def record_game(self) -> str:
        """The game whose saved games are this store's :class:`GameRecord` rows (what
        :meth:`save_game`, :meth:`leaderboard` and the export read and write): the database's
        own record of it (the ``games.game`` default it was created or migrated with), read once.

        Raises
        ------
        HistoryMissingError
            The database is not at the current schema version yet (opened with
            ``migrate=False``) and records no such game.
        """
        if self._record_game is None:
            with self._record_game_lock:
                if self._record_game is None:
                    found = self._transaction(lambda c, _a: _recorded_game(c), write=False)
                    if found is None:
                        raise HistoryMissingError(
                            f"the leaderboard database {self._where()} records no game for its "
                            f"saved games (schema version {self.schema_version()}, not "
                            f"{SCHEMA_VERSION}); migrate it first"
                        )
                    if self.history is not None and found != self.history.first_game:
                        raise LeaderboardError(
                            f"the leaderboard database {self._where()} keeps {found[:40]!r}'s "
                            f"saved games, not {self.history.first_game[:40]!r}'s (the game "
                            "list's first game); it was written with another game list"
                        )
                    self._record_game = found
        return self._record_game


def ensure_side_tables(store: Database, tables: Iterable[sa.Table]) -> None:
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


def _recorded_game(conn: Connection) -> str | None:
    if database_version(conn) != SCHEMA_VERSION:
        return None
    return record_game_of(conn)
