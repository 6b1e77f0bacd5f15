"""The leaderboard's tables and the migrations that build them, version by version.

``TABLES`` describes the *current* schema (version ``SCHEMA_VERSION``) and is what queries use.
``MIGRATIONS`` builds it: a fresh database runs every step from 1, an old database runs the
steps above its recorded version. Step 1 is the first release's schema, frozen here as its own
table definitions; later steps only ALTER. A fresh database and a migrated one therefore end
up identical. JSON values live in TEXT columns written by :func:`leaderboard.records.dump_json`,
so they round-trip exactly on every backend.

Version history
---------------
1. First release: ``schema_version``, ``sessions``, ``players``, ``games``, ``game_players``.
2. ``games.notes`` (free text) and ``game_players.photo_thumbnail`` (small JPEG bytes).
3. Indexes for pages that cost O(page): ``ix_game_players_standings`` (player, game, rank,
   total: the standings read this covering index, never the wide player lines with their
   boards, pads and thumbnails; it replaces version 1's ``ix_game_players_player_id``) and
   ``ix_games_played_at`` (newest games first).
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.engine import Connection

SCHEMA_VERSION = 3


def _schema_v1(metadata: sa.MetaData) -> None:
    """Declare the first release's tables on ``metadata`` (frozen: never edit)."""
    sa.Table(
        "schema_version",
        metadata,
        sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("applied_at", sa.String(40), nullable=False),
    )
    sa.Table(
        "sessions",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("uid", sa.String(64), nullable=False, unique=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
    )
    sa.Table(
        "players",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("name_sha256", sa.String(64), nullable=False, unique=True),
    )
    sa.Table(
        "games",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("uid", sa.String(64), nullable=False, unique=True),
        sa.Column(
            "session_id",
            sa.Integer,
            sa.ForeignKey("sessions.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("played_at", sa.String(40), nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("player_count_variant", sa.Boolean, nullable=False),
        sa.Column("objectives", sa.Text, nullable=False),
        sa.Column("rules_version", sa.Text, nullable=False),
        sa.Column("rules_hash", sa.Text, nullable=False),
        sa.Column("extra", sa.Text, nullable=False),
        sa.Column("player_count", sa.Integer, nullable=False),
    )
    sa.Table(
        "game_players",
        metadata,
        sa.Column(
            "game_id",
            sa.Integer,
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("player_id", sa.Integer, sa.ForeignKey("players.id"), nullable=False, index=True),
        sa.Column("board", sa.Text, nullable=False),
        sa.Column("pad", sa.Text, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Column("photo_sha256", sa.String(64), nullable=True),
    )


def _columns_v2(metadata: sa.MetaData) -> None:
    """Add version 2's columns to a metadata holding version 1's tables."""
    metadata.tables["games"].append_column(
        sa.Column("notes", sa.Text, nullable=False, server_default="")
    )
    metadata.tables["game_players"].append_column(
        sa.Column("photo_thumbnail", sa.LargeBinary, nullable=True)
    )


#: Version 1's index on ``game_players.player_id``, dropped by version 3: the standings index
#: starts with ``player_id`` and serves the same lookups, and while both exist SQLite's planner
#: may walk this one and read every wide player line (0.3 s at 10 000 games).
_DROPPED_V3 = "ix_game_players_player_id"


def _indexes_v3(metadata: sa.MetaData) -> list[sa.Index]:
    """Version 3's indexes, bound to ``metadata``'s tables (and version 1's one dropped)."""
    lines = metadata.tables["game_players"]
    games = metadata.tables["games"]
    lines.indexes.difference_update({i for i in lines.indexes if i.name == _DROPPED_V3})
    return [
        sa.Index(
            "ix_game_players_standings",
            lines.c.player_id,
            lines.c.game_id,
            lines.c.rank,
            lines.c.total,
        ),
        sa.Index("ix_games_played_at", games.c.played_at, games.c.id),
    ]


def current_metadata() -> sa.MetaData:
    """Return a fresh ``MetaData`` describing the current schema (version ``SCHEMA_VERSION``)."""
    metadata = sa.MetaData()
    _schema_v1(metadata)
    _columns_v2(metadata)
    _indexes_v3(metadata)
    return metadata


METADATA = current_metadata()
TABLES = METADATA.tables


def _migrate_to_1(conn: Connection) -> None:
    """Create the first release's tables."""
    metadata = sa.MetaData()
    _schema_v1(metadata)
    metadata.create_all(conn)


def _add_column(conn: Connection, table: str, column: sa.Column) -> None:
    """``ALTER TABLE ... ADD COLUMN`` with the column type as the connected dialect spells it."""
    preparer = conn.dialect.identifier_preparer
    ddl = (
        f"ALTER TABLE {preparer.quote(table)} ADD COLUMN {preparer.quote(column.name)} "
        f"{column.type.compile(dialect=conn.dialect)}"
    )
    if column.server_default is not None:
        ddl += f" DEFAULT '{column.server_default.arg}'"
    if not column.nullable:
        ddl += " NOT NULL"
    conn.exec_driver_sql(ddl)


def _migrate_to_2(conn: Connection) -> None:
    """Add ``games.notes`` and ``game_players.photo_thumbnail``."""
    _add_column(conn, "games", sa.Column("notes", sa.Text, nullable=False, server_default=""))
    _add_column(conn, "game_players", sa.Column("photo_thumbnail", sa.LargeBinary, nullable=True))


def _migrate_to_3(conn: Connection) -> None:
    """Create the indexes of O(page) standings and game lists; drop the one they replace."""
    conn.exec_driver_sql(f"DROP INDEX IF EXISTS {_DROPPED_V3}")
    metadata = current_metadata()
    for index in metadata.tables["game_players"].indexes | metadata.tables["games"].indexes:
        if index.name in ("ix_game_players_standings", "ix_games_played_at"):
            index.create(conn, checkfirst=True)


#: ``(version, step)``: running ``step`` on a database at ``version - 1`` brings it to ``version``.
MIGRATIONS: tuple[tuple[int, Callable[[Connection], None]], ...] = (
    (1, _migrate_to_1),
    (2, _migrate_to_2),
    (3, _migrate_to_3),
)


def database_version(conn: Connection) -> int:
    """Return the schema version recorded in the database (0 for an empty database).

    Raises
    ------
    ValueError
        When the database holds tables but no ``schema_version``: not a leaderboard database.
    """
    inspector = sa.inspect(conn)
    names = set(inspector.get_table_names())
    if "schema_version" not in names:
        if names & {"sessions", "players", "games", "game_players"}:
            raise ValueError("the database has leaderboard-like tables but no schema_version")
        return 0
    version = conn.execute(sa.text("SELECT MAX(version) FROM schema_version")).scalar()
    return int(version or 0)


def pending_migrations(version: int) -> list[tuple[int, Callable[[Connection], None]]]:
    """Return the steps that bring a database at ``version`` to ``SCHEMA_VERSION``, in order."""
    return [(v, step) for v, step in MIGRATIONS if v > version]
