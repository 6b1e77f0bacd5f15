"""The leaderboard store: sessions, confirmed games and standings in any SQLAlchemy database.

:class:`Store` composes its drawers, one module each: :mod:`leaderboard.database` (opening,
transactions and retries, migrations, the record game), :mod:`leaderboard.nights` (game nights
and players), :mod:`leaderboard.saved` (the record game's saved games), :mod:`leaderboard.standings`
(the standings query) and :mod:`leaderboard.exchange` (JSON and CSV export, batched import). The
drafts and night documents (compare-and-set on a revision) are :mod:`leaderboard.drafts`, other
games' saved games :mod:`leaderboard.played`.

A SQLite file is the default (WAL journal, ``synchronous=FULL``, foreign keys on, writers take
the lock up front with ``BEGIN IMMEDIATE``); a club can share one board through any SQLAlchemy
URL, e.g. PostgreSQL (``postgresql+psycopg://...``). Every public call is one transaction,
retried with jittered exponential backoff when the database is busy or a serialisation failure
occurs, so a crash at any point leaves either the whole game or nothing.

Examples
--------
>>> from leaderboard import Store, GameRecord, GamePlayer
>>> from leaderboard.schema import SchemaHistory
>>> history = SchemaHistory(first_game="a_game")  # the app's: service.store.schema_history()
>>> store = Store("sqlite://", history=history)  # in memory; Store() uses REPTILE_TANK_DB_URL
>>> night = store.create_session("Friday")
>>> pad = {"total": 42}
>>> board = {"rows": [["rock"] * 5] * 4}
>>> game_id = store.save_game(GameRecord(night.id, (GamePlayer("Ann", board, pad, 1),
...                                                 GamePlayer("Bo", board, {"total": 40}, 2))))
>>> [(row.player, row.wins) for row in store.leaderboard(night.id)]
[('Ann', 1), ('Bo', 0)]
"""

from __future__ import annotations

# The drawers' public names, importable from here as before the split.
from leaderboard.database import (  # noqa: F401
    _PG_MIGRATION_LOCK,
    DEFAULT_DB_PATH,
    ENV_DB_URL,
    Database,
    StorageError,
    StoreBusyError,
    ensure_side_tables,
    resolve_url,
)
from leaderboard.exchange import (  # noqa: F401
    EXPORT_FORMAT,
    EXPORT_FORMAT_VERSION,
    IMPORT_BATCH_SIZE,
    IMPORT_PAUSE_S,
    PAD_CSV_KEYS,
    Exchange,
    csv_text,
)
from leaderboard.nights import Nights, _insert_session, _player_id, _player_id_or_create, name_key  # noqa: F401
from leaderboard.saved import (  # noqa: F401
    SavedGames,
    _insert_game,
    _insert_game_row,
    _insert_player_line,
    _read_games,
    game_row_fields,
)
from leaderboard.standings import MAX_PAGE_SIZE, Standings  # noqa: F401


class Store(Nights, SavedGames, Standings, Exchange):
    """Sessions, confirmed games and leaderboards in one database.

    Its parameters (``url``, ``migrate``, ``busy_timeout_s``, ``retry_s``, ``history``) are
    :class:`leaderboard.database.Database`'s: the drawers share that one connection.

    Notes
    -----
    One ``Store`` is safe to share between threads (e.g. with ``st.cache_resource``); several
    processes may open the same file or server at once.
    """
