"""Leaderboard storage: game nights, confirmed games and standings (SQLAlchemy).

SQLite file by default, any SQLAlchemy URL (e.g. PostgreSQL) for a club sharing one board.
Independent of :mod:`scoring` and :mod:`vision`: boards and score pads are stored as opaque JSON.
"""

from leaderboard.records import (
    GAME_MODES,
    MAX_NAME_CHARS,
    MAX_NOTES_CHARS,
    MAX_PLAYERS,
    MAX_THUMBNAIL_BYTES,
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
)
from leaderboard.schema import SCHEMA_VERSION
from leaderboard.store import (
    DEFAULT_DB_PATH,
    ENV_DB_URL,
    EXPORT_FORMAT,
    MAX_PAGE_SIZE,
    StorageError,
    Store,
    StoreBusyError,
    resolve_url,
)

__all__ = [
    "DEFAULT_DB_PATH",
    "ENV_DB_URL",
    "EXPORT_FORMAT",
    "GAME_MODES",
    "MAX_NAME_CHARS",
    "MAX_NOTES_CHARS",
    "MAX_PLAYERS",
    "MAX_PAGE_SIZE",
    "MAX_THUMBNAIL_BYTES",
    "MAX_VP",
    "SCHEMA_VERSION",
    "GamePlayer",
    "GameRecord",
    "GamesPage",
    "ImportSummary",
    "LeaderboardError",
    "LeaderboardPage",
    "LeaderboardRow",
    "NotFoundError",
    "SessionInfo",
    "StorageError",
    "Store",
    "StoreBusyError",
    "resolve_url",
]
