"""Saved games of the record game (:class:`leaderboard.records.GameRecord`: boards and score
pads per seat): the drawer of :class:`leaderboard.store.Store` that saves, reads, pages and
deletes them, and the row helpers the drafts (:mod:`leaderboard.drafts`) and the import share."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from leaderboard.database import Database
from leaderboard.nights import _player_id_or_create
from leaderboard.records import (
    GamePlayer,
    GameRecord,
    GamesPage,
    LeaderboardError,
    NotFoundError,
    canonical_timestamp,
    dump_json,
    utc_now,
)
from leaderboard.schema import GAME_LINES as _lines
from leaderboard.schema import GAMES as _games
from leaderboard.schema import PLAYERS as _players
from leaderboard.schema import SESSIONS as _sessions
from leaderboard.standings import _check_page, _game_is


class SavedGames(Database):
    """The record game's saved games (a drawer of :class:`leaderboard.store.Store`)."""

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
        game = self.record_game
        games = self._transaction(
            lambda conn, _a: _read_games(conn, _games.c.id == game_id, game=game), write=False
        )  # _read_games reads record games only: another game's id is not found
        if not games:
            raise NotFoundError(f"no game with id {game_id}")
        return games[0]

    def list_games(self, session_id: int | None = None) -> list[GameRecord]:
        """Every game (of one session, or all), oldest first, with every player line."""
        where = sa.true() if session_id is None else _games.c.session_id == session_id
        game = self.record_game
        return self._transaction(lambda conn, _a: _read_games(conn, where, game=game), write=False)

    def delete_game(self, game_id: int) -> None:
        """Delete a game and its player lines (players themselves stay)."""
        record_game = self.record_game

        def work(conn: Connection, _attempt: int) -> None:
            # the game row first, locked: an edit being saved at the same moment (which locks
            # it too) either lands before (its lines are then deleted with it) or finds the
            # game gone — never lines inserted for a game deleted under them
            locked = conn.execute(
                sa.select(_games.c.id)
                .where(_games.c.id == game_id, _games.c.game == record_game)
                .with_for_update()
            ).scalar()
            if locked is None:
                raise NotFoundError(f"no game with id {game_id}")
            conn.execute(sa.delete(_lines).where(_lines.c.game_id == game_id))
            conn.execute(sa.delete(_games).where(_games.c.id == game_id))

        self._transaction(work, write=True)

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
        game = self.record_game
        where = _games.c.game == game
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
            found = []
            if ids:
                found = _read_games(conn, _games.c.id.in_(ids), game=game, thumbnails=thumbnails)
            return found, int(total.scalar() or 0)

        games, total = self._transaction(work, write=False)
        games.sort(key=lambda g: (g.played_at or "", g.id or 0), reverse=True)
        return GamesPage(games, total, offset, limit)


# -- row helpers (module level so that tests can slow them down in a child process) ----------


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


def _read_games(
    conn: Connection, where: sa.ColumnElement[bool], *, game: str, thumbnails: bool = True
) -> list[GameRecord]:
    """Record games (``game``'s: the store's record game) matching ``where`` with their player
    lines, oldest first."""
    where = sa.and_(_game_is(_games.c.game, game, indexed=False), where)
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
