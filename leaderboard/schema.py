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
4. Played games of the game list (issue 30, first step): ``played_games`` (one row per
   saved game, keyed by ``game`` id, the game's codec document and its scorer's result as
   JSON), ``played_game_players`` (seat, name, total, rank: what the one standings query reads)
   and ``game_drafts`` (the game in progress, one per night and game, compare-and-set on
   ``revision``). The step moves every row of the per-game tables an earlier release created
   on first use (:attr:`SchemaHistory.legacy_tables`) into them and drops those tables.
5. One storage model for every game of the game list (issue 30): ``games.game`` (the game id;
   every row of version 4's ``games`` is :attr:`SchemaHistory.first_game`'s), ``games.document`` and
   ``games.result`` (a listed game's whole document, as its codec writes it, and its scorer's
   result), ``game_players.game`` and the standings index led by it
   (``ix_game_players_game_standings`` replaces version 3's: one standings query for every
   game), ``ix_games_game_played_at``. The step moves every row of version 4's
   ``played_games`` / ``played_game_players`` into ``games`` / ``game_players`` (players
   matched by name) and drops those two tables; version 4's ``game_drafts`` stays.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from leaderboard.records import LeaderboardError

SCHEMA_VERSION = 5


@dataclass(frozen=True)
class LegacyGameTables:
    """Per-game tables an earlier release created on first use, outside the schema version
    (frozen history: one game kept its saved games, player lines and drafts apart). Version 4
    moves their rows into the played-games tables under ``game`` and drops them."""

    game: str
    games: str
    lines: str
    drafts: str


@dataclass(frozen=True)
class SchemaHistory:
    """The game facts of the schema's history, from the game list (handed to the store by
    whoever opens it).

    Attributes
    ----------
    first_game : str
        The game whose saved games are :class:`leaderboard.records.GameRecord` rows (boards and
        score pads per seat): the first release's, so every row written before version 5 is one
        of its games; the ``games.game`` / ``game_players.game`` default.
    legacy_tables : tuple of LegacyGameTables
        The per-game tables an earlier release created, which version 4 folds in.
    """

    first_game: str
    legacy_tables: tuple[LegacyGameTables, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.first_game, str) or not self.first_game:
            raise ValueError(f"SchemaHistory.first_game: a game id, got {self.first_game!r}")


class HistoryMissingError(LeaderboardError):
    """A database must be created or migrated below version 5 and the store was not handed the
    game list's :class:`SchemaHistory`."""


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


def _tables_v4(metadata: sa.MetaData) -> None:
    """Version 4's tables: the played games of every game, their player lines, the drafts."""
    sa.Table(
        "played_games",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("uid", sa.String(64), nullable=False),
        sa.Column(
            "session_id",
            sa.Integer,
            sa.ForeignKey("sessions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("played_at", sa.String(40), nullable=False),
        sa.Column("document", sa.Text, nullable=False),
        sa.Column("result", sa.Text, nullable=False),
        sa.Column("player_count", sa.Integer, nullable=False),
        sa.UniqueConstraint("game", "uid", name="uq_played_games_game_uid"),
        sa.Index("ix_played_games_game_session", "game", "session_id", "played_at"),
    )
    sa.Table(
        "played_game_players",
        metadata,
        sa.Column(
            "game_id",
            sa.Integer,
            sa.ForeignKey("played_games.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("name_sha256", sa.String(64), nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("rank", sa.Integer, nullable=False),
        sa.Index("ix_played_game_players_standings", "name_sha256", "game_id", "rank", "total"),
    )
    sa.Table(
        "game_drafts",
        metadata,
        sa.Column(
            "session_id",
            sa.Integer,
            sa.ForeignKey("sessions.id", ondelete="CASCADE"),
            primary_key=True,
            autoincrement=False,
        ),
        sa.Column("game", sa.String(40), primary_key=True),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.Column("document", sa.Text, nullable=False),
        sa.Column("updated_at", sa.String(40), nullable=False),
    )


#: Version 3's standings index, replaced by version 5's (game first).
_DROPPED_V5 = "ix_game_players_standings"


#: The Reptile Tank record columns of a game kept whole as its codec's document (every game
#: but Reptile Tank, from version 5): what ``leaderboard.played`` writes and what the
#: migration to 5 gave the games it moved in.
DOCUMENT_GAME_COLUMNS: dict[str, object] = {
    "mode": "multi",
    "player_count_variant": False,
    "objectives": "[]",
    "rules_version": "",
    "rules_hash": "",
    "extra": "{}",
    "notes": "",
}


def _columns_v5(metadata: sa.MetaData, first_game: str | None) -> None:
    """Version 5: every game's saved games in ``games`` keyed by ``game`` (version 4's
    played-games tables folded in, its ``game_drafts`` kept); the standings index led by the
    game. ``first_game`` is the columns' default (``None``: declared without one, for queries;
    the database keeps the default it was created or migrated with)."""
    games = metadata.tables["games"]
    lines = metadata.tables["game_players"]
    for column in _v5_game_columns(first_game):
        games.append_column(column)
    lines.append_column(_v5_line_game(first_game))
    lines.indexes.difference_update({i for i in lines.indexes if i.name == _DROPPED_V5})
    sa.Index(
        "ix_game_players_game_standings",
        lines.c.game,
        lines.c.player_id,
        lines.c.game_id,
        lines.c.rank,
        lines.c.total,
    )
    sa.Index("ix_games_game_played_at", games.c.game, games.c.played_at, games.c.id)
    for name in ("played_game_players", "played_games"):
        metadata.remove(metadata.tables[name])


def _v5_game_columns(first_game: str | None) -> list[sa.Column]:
    return [
        sa.Column("game", sa.String(40), nullable=False, server_default=first_game),
        sa.Column("document", sa.Text, nullable=True),  # a listed game's whole document
        sa.Column("result", sa.Text, nullable=True),  # and its scorer's result
    ]


def _v5_line_game(first_game: str | None) -> sa.Column:
    # the game again on each line, so the standings read one covering index
    return sa.Column("game", sa.String(40), nullable=False, server_default=first_game)


def current_metadata(first_game: str | None = None) -> sa.MetaData:
    """Return a fresh ``MetaData`` describing the current schema (version ``SCHEMA_VERSION``);
    ``first_game`` is the ``game`` columns' default (``None``: none declared, as :data:`TABLES`:
    a record game's insert leaves the column to the database's own default, its record game)."""
    metadata = sa.MetaData()
    _schema_v1(metadata)
    _columns_v2(metadata)
    _indexes_v3(metadata)
    _tables_v4(metadata)
    _columns_v5(metadata, first_game)
    return metadata


METADATA = current_metadata()
TABLES = METADATA.tables
#: The current tables, as the store's drawers use them.
SESSIONS = TABLES["sessions"]
PLAYERS = TABLES["players"]
GAMES = TABLES["games"]
GAME_LINES = TABLES["game_players"]
GAME_DRAFTS = TABLES["game_drafts"]
VERSIONS = TABLES["schema_version"]


def _migrate_to_1(conn: Connection, _history: SchemaHistory) -> None:
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


def _migrate_to_2(conn: Connection, _history: SchemaHistory) -> None:
    """Add ``games.notes`` and ``game_players.photo_thumbnail``."""
    _add_column(conn, "games", sa.Column("notes", sa.Text, nullable=False, server_default=""))
    _add_column(conn, "game_players", sa.Column("photo_thumbnail", sa.LargeBinary, nullable=True))


def _migrate_to_3(conn: Connection, _history: SchemaHistory) -> None:
    """Create the indexes of O(page) standings and game lists; drop the one they replace."""
    conn.exec_driver_sql(f"DROP INDEX IF EXISTS {_DROPPED_V3}")
    metadata = current_metadata()
    for index in metadata.tables["game_players"].indexes | metadata.tables["games"].indexes:
        if index.name in ("ix_game_players_standings", "ix_games_played_at"):
            index.create(conn, checkfirst=True)


def _migrate_to_4(conn: Connection, history: SchemaHistory) -> None:
    """Create the played-games tables; move the legacy per-game tables' rows into them
    (``history.legacy_tables``)."""
    metadata = sa.MetaData()  # version 4's tables, as they were (version 5 folds two in)
    _schema_v1(metadata)
    _columns_v2(metadata)
    _tables_v4(metadata)
    new = [metadata.tables[n] for n in ("played_games", "played_game_players", "game_drafts")]
    metadata.create_all(conn, tables=new, checkfirst=True)
    games, lines, drafts = new
    present = set(sa.inspect(conn).get_table_names())
    for legacy in history.legacy_tables:
        game_id, games_name, lines_name, drafts_name = (
            legacy.game,
            legacy.games,
            legacy.lines,
            legacy.drafts,
        )
        if not {games_name, lines_name, drafts_name} & present:
            continue
        old = sa.MetaData()
        if games_name in present:
            old_games = sa.Table(games_name, old, autoload_with=conn)
            old_lines = sa.Table(lines_name, old, autoload_with=conn)
            for row in conn.execute(sa.select(old_games).order_by(old_games.c.id)).mappings():
                new_id = conn.execute(
                    sa.insert(games).values(
                        game=game_id,
                        uid=row["uid"],
                        session_id=row["session_id"],
                        played_at=row["played_at"],
                        document=row["document"],
                        result=row["result"],
                        player_count=row["player_count"],
                    )
                ).inserted_primary_key[0]
                for line in conn.execute(
                    sa.select(old_lines).where(old_lines.c.game_id == row["id"])
                ).mappings():
                    conn.execute(
                        sa.insert(lines).values(
                            game_id=new_id,
                            seat=line["seat"],
                            name=line["name"],
                            name_sha256=line["name_sha256"],
                            total=line["total"],
                            rank=line["rank"],
                        )
                    )
        if drafts_name in present:
            old_drafts = sa.Table(drafts_name, old, autoload_with=conn)
            for row in conn.execute(sa.select(old_drafts)).mappings():
                conn.execute(
                    sa.insert(drafts).values(
                        session_id=row["session_id"],
                        game=game_id,
                        revision=row["revision"],
                        document=row["document"],
                        updated_at=row["updated_at"],
                    )
                )
        for name in (lines_name, games_name, drafts_name):  # lines first: they refer to games
            if name in present:
                conn.exec_driver_sql(f"DROP TABLE {conn.dialect.identifier_preparer.quote(name)}")


def _migrate_to_5(conn: Connection, history: SchemaHistory) -> None:
    """Key ``games`` by game (every row so far: ``history.first_game``'s); move version 4's
    played games into it; drop their tables."""
    for column in _v5_game_columns(history.first_game):
        _add_column(conn, "games", column)
    _add_column(conn, "game_players", _v5_line_game(history.first_game))
    conn.exec_driver_sql(f"DROP INDEX IF EXISTS {_DROPPED_V5}")
    metadata = current_metadata()
    games, lines = metadata.tables["games"], metadata.tables["game_players"]
    for index in games.indexes | lines.indexes:
        if index.name in ("ix_game_players_game_standings", "ix_games_game_played_at"):
            index.create(conn, checkfirst=True)
    players = metadata.tables["players"]
    present = set(sa.inspect(conn).get_table_names())
    if {"played_games", "played_game_players"} <= present:
        old = sa.MetaData()
        old_games = sa.Table("played_games", old, autoload_with=conn)
        old_lines = sa.Table("played_game_players", old, autoload_with=conn)
        for row in conn.execute(sa.select(old_games).order_by(old_games.c.id)).mappings():
            new_id = conn.execute(
                sa.insert(games).values(
                    uid=row["uid"],
                    session_id=row["session_id"],
                    played_at=row["played_at"],
                    **DOCUMENT_GAME_COLUMNS,
                    player_count=row["player_count"],
                    game=row["game"],
                    document=row["document"],
                    result=row["result"],
                )
            ).inserted_primary_key[0]
            result = json.loads(row["result"])
            seats = result.get("players", []) if isinstance(result, dict) else []
            for line in conn.execute(
                sa.select(old_lines).where(old_lines.c.game_id == row["id"])
            ).mappings():
                player = conn.execute(
                    sa.select(players.c.id).where(players.c.name_sha256 == line["name_sha256"])
                ).scalar()
                if player is None:
                    player = conn.execute(
                        sa.insert(players).values(
                            name=line["name"], name_sha256=line["name_sha256"]
                        )
                    ).inserted_primary_key[0]
                seat = int(line["seat"])
                pad = seats[seat] if seat < len(seats) else {}
                conn.execute(
                    sa.insert(lines).values(
                        game_id=new_id,
                        seat=seat,
                        player_id=player,
                        board="{}",
                        pad=json.dumps(pad, ensure_ascii=False, separators=(",", ":")),
                        total=line["total"],
                        rank=line["rank"],
                        photo_sha256=None,
                        game=row["game"],
                    )
                )
    for name in ("played_game_players", "played_games"):  # lines first: they refer to games
        if name in present:
            conn.exec_driver_sql(f"DROP TABLE {conn.dialect.identifier_preparer.quote(name)}")


#: ``(version, step)``: running ``step`` on a database at ``version - 1`` brings it to ``version``.
MIGRATIONS: tuple[tuple[int, Callable[[Connection, SchemaHistory], None]], ...] = (
    (1, _migrate_to_1),
    (2, _migrate_to_2),
    (3, _migrate_to_3),
    (4, _migrate_to_4),
    (5, _migrate_to_5),
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


def pending_migrations(
    version: int,
) -> list[tuple[int, Callable[[Connection, SchemaHistory], None]]]:
    """Return the steps that bring a database at ``version`` to ``SCHEMA_VERSION``, in order."""
    return [(v, step) for v, step in MIGRATIONS if v > version]


def require_history(history: SchemaHistory | None, version: int, where: str) -> SchemaHistory:
    """``history``, or :class:`HistoryMissingError` (one line) when a database at ``version``
    must be migrated (created, at 0) and the store was not handed the game list's facts."""
    if history is not None:
        return history
    doing = "create" if version == 0 else f"migrate (schema version {version} to {SCHEMA_VERSION})"
    raise HistoryMissingError(
        f"cannot {doing} the leaderboard database {where}: the store was not given the game "
        "list's schema history (which game its old rows belong to, which tables an earlier "
        "release kept for one game); open it with Store(..., history=service.store."
        "schema_history())"
    )


def record_game_of(conn: Connection) -> str | None:
    """The game a version-5 database's ``games.game`` defaults to (its first game, recorded when
    the database was created or migrated); ``None`` when it has no such default."""
    for column in sa.inspect(conn).get_columns("games"):
        if column["name"] == "game" and column.get("default"):
            match = re.match(r"\s*\(?\s*'((?:[^']|'')*)'", str(column["default"]))
            if match:
                return match.group(1).replace("''", "'")
    return None
