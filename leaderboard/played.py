"""Saved games and games in progress of every game of the game list, in the one storage model.

Every game's saved games are rows of the one ``games`` table keyed by ``game`` (schema version
5, :mod:`leaderboard.schema`): a listed game's row holds its whole document (the game codec's
JSON, opaque here) in ``games.document`` and its scorer's result in ``games.result``; its
player lines are ``game_players`` rows (player, total, rank, the player's result line in
``pad``), which the one standings query (:meth:`leaderboard.store.Store._standings`) reads for
every game. ``game_drafts`` holds the game being entered, one per game night and game, written
by compare-and-set (:func:`leaderboard.drafts.write_session_document`). Versions 4 and 5 moved
the rows of the per-game tables an earlier release kept into these.

Storage knows no game: :class:`PlayedGames` is opened for one game id and checks only what
every game's result must carry (``players``: ``name``, ``total``, ``rank`` per seat). Saving
is idempotent on the game's ``uid`` (a double tap, a second server rewrites instead of adding).
A game night's deletion deletes its games and drafts; players are the store's (matched by
name, renamed once for every game).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from leaderboard.drafts import read_session_document, write_session_document
from leaderboard.records import (
    MAX_NAME_CHARS,
    MAX_VP,
    LeaderboardError,
    NotFoundError,
    check_json,
    check_text,
    dump_json,
    utc_now,
)
from leaderboard.schema import DOCUMENT_GAME_COLUMNS, TABLES
from leaderboard.store import Store, _player_id_or_create

#: Largest stored game or draft document (JSON text, characters).
MAX_DOCUMENT_CHARS = 200_000
#: Most seats a played game may have (a game's own rules may allow fewer).
MAX_SEATS = 8
#: ``format`` of :meth:`PlayedGames.export_json`.
EXPORT_FORMAT = "reptile-tank-played-games"

_games = TABLES["games"]
_lines = TABLES["game_players"]
_players = TABLES["players"]
_drafts = TABLES["game_drafts"]
_sessions = TABLES["sessions"]


@dataclass(frozen=True)
class PlayedLine:
    seat: int
    name: str
    total: int
    rank: int


@dataclass(frozen=True)
class PlayedGame:
    """A saved game (``document`` and ``result`` as the game's codec and scorer made them)."""

    id: int
    game: str
    uid: str
    session_id: int
    played_at: str
    players: list[PlayedLine]
    document: dict[str, Any]
    result: dict[str, Any]


@dataclass(frozen=True)
class Standing:
    player: str
    games: int
    wins: int
    total: int
    average: float
    best: int


def _dump(value: Any, what: str) -> str:
    check_json(value, what=what, kind=dict)
    text = dump_json(value)
    if len(text) > MAX_DOCUMENT_CHARS:
        raise LeaderboardError(f"{what}: too large ({len(text)} characters)")
    return text


def check_lines(result: Any, *, max_seats: int = MAX_SEATS) -> list[PlayedLine]:
    """The player lines of a scorer's result (``LeaderboardError`` naming what is wrong)."""
    players = result.get("players") if isinstance(result, dict) else None
    if not isinstance(players, list) or not 1 <= len(players) <= max_seats:
        raise LeaderboardError(f"a saved game has 1 to {max_seats} players")
    lines = []
    for seat, p in enumerate(players):
        if not isinstance(p, dict):
            raise LeaderboardError(f"players[{seat}]: not an object")
        name = check_text(p.get("name"), what=f"players[{seat}].name", max_chars=MAX_NAME_CHARS)
        total, rank = p.get("total"), p.get("rank")
        for what, value, low, high in (
            ("total", total, 0, MAX_VP),
            ("rank", rank, 1, len(players)),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise LeaderboardError(f"players[{seat}].{what}: {value!r} is out of range")
        lines.append(PlayedLine(seat, name, int(total), int(rank)))
    return lines


class PlayedGames:
    """One game's saved games and games in progress in the database of a :class:`Store`."""

    def __init__(self, store: Store, game: str, *, name: str | None = None) -> None:
        if not isinstance(game, str) or not game.isidentifier() or len(game) > 40:
            raise LeaderboardError(f"a game id is an identifier, not {str(game)[:40]!r}")
        self.store = store
        self.game = game
        #: How messages name the game ("This Nimalia game").
        self.name = name or game

    # -- saved games ------------------------------------------------------------------------

    def save_game(
        self, session_id: int, document: dict[str, Any], result: dict[str, Any]
    ) -> tuple[int, bool]:
        """Save (or rewrite) the game ``document["uid"]``; returns ``(game id, created)``.

        ``result`` is the game's scorer's answer for ``document`` (its ``players`` are stored as
        the lines the standings read)."""
        uid = check_text(document.get("uid"), what="game uid", max_chars=64)
        doc_text = _dump(document, "game document")
        result_text = _dump(result, "game result")
        lines = check_lines(result)
        values = {
            "session_id": session_id,
            "document": doc_text,
            "result": result_text,
            "player_count": len(lines),
        }
        where = (_games.c.game == self.game, _games.c.uid == uid)

        def work(conn: Connection, _attempt: int) -> tuple[int, bool]:
            night = sa.select(_sessions.c.id).where(_sessions.c.id == session_id)
            if conn.execute(night).scalar() is None:
                raise NotFoundError(f"no game night with id {session_id}")
            taken = conn.execute(
                sa.select(_games.c.game).where(_games.c.uid == uid, _games.c.game != self.game)
            ).scalar()
            if taken is not None:
                raise LeaderboardError(f"a game with uid {uid[:64]} is another game's")
            found = conn.execute(sa.select(_games.c.id).where(*where).with_for_update()).scalar()
            if found is None:
                game_id = conn.execute(
                    sa.insert(_games).values(
                        game=self.game,
                        uid=uid,
                        played_at=utc_now(),
                        **DOCUMENT_GAME_COLUMNS,
                        **values,
                    )
                ).inserted_primary_key[0]
                created = True
            else:
                game_id = int(found)
                conn.execute(sa.update(_games).where(_games.c.id == game_id).values(**values))
                conn.execute(sa.delete(_lines).where(_lines.c.game_id == game_id))
                created = False
            for line, own in zip(lines, result["players"], strict=True):
                conn.execute(
                    sa.insert(_lines).values(
                        game_id=game_id,
                        seat=line.seat,
                        player_id=_player_id_or_create(conn, line.name),
                        board="{}",
                        pad=dump_json(own),
                        total=line.total,
                        rank=line.rank,
                        photo_sha256=None,
                        game=self.game,
                    )
                )
            return int(game_id), created

        return self.store._transaction(work, write=True)

    def list_games(self, session_id: int | None = None) -> list[PlayedGame]:
        """This game's saved games, newest first."""
        query = (
            sa.select(_games)
            .where(_games.c.game == self.game)
            .order_by(_games.c.played_at.desc(), _games.c.id.desc())
        )
        if session_id is not None:
            query = query.where(_games.c.session_id == session_id)

        def work(conn: Connection, _attempt: int) -> list[PlayedGame]:
            games = conn.execute(query).all()
            ids = [g.id for g in games]
            lines: dict[int, list[PlayedLine]] = {i: [] for i in ids}
            if ids:
                read = (
                    sa.select(_lines.c.game_id, _lines.c.seat, _players.c.name, _lines.c.total)
                    .add_columns(_lines.c.rank)
                    .select_from(_lines.join(_players))
                    .where(_lines.c.game_id.in_(ids))
                    .order_by(_lines.c.game_id, _lines.c.seat)
                )
                for row in conn.execute(read):
                    lines[row.game_id].append(PlayedLine(row.seat, row.name, row.total, row.rank))
            return [
                PlayedGame(
                    id=int(g.id),
                    game=g.game,
                    uid=g.uid,
                    session_id=int(g.session_id),
                    played_at=g.played_at,
                    players=lines[g.id],
                    document=json.loads(g.document),
                    result=json.loads(g.result),
                )
                for g in games
            ]

        return self.store._transaction(work, write=False)

    def saved(self, uid: str) -> tuple[int, dict[str, Any]] | None:
        """``(game id, document as saved)`` of this game's saved game with this uid, if any
        (saved from any phone)."""
        query = sa.select(_games.c.id, _games.c.document).where(
            _games.c.game == self.game, _games.c.uid == uid
        )
        row = self.store._transaction(lambda c, _a: c.execute(query).one_or_none(), write=False)
        return None if row is None else (int(row.id), json.loads(row.document))

    def export_json(self, session_id: int | None = None) -> dict[str, Any]:
        """Every saved game of this game (or one night's) as JSON-ready data: the game night's
        uid and name, when, the players' lines, the document and the result."""
        nights = {s.id: s for s in self.store.list_sessions()}
        return {
            "format": EXPORT_FORMAT,
            "version": 1,
            "game": self.game,
            "games": [
                {
                    "uid": g.uid,
                    "night": {"uid": nights[g.session_id].uid, "name": nights[g.session_id].name},
                    "played_at": g.played_at,
                    "players": [
                        {"seat": p.seat, "name": p.name, "total": p.total, "rank": p.rank}
                        for p in g.players
                    ],
                    "document": g.document,
                    "result": g.result,
                }
                for g in self.list_games(session_id)
            ],
        }

    def delete_game(self, game_id: int) -> None:
        def work(conn: Connection, _attempt: int) -> None:
            mine = (_games.c.id == game_id, _games.c.game == self.game)
            locked = sa.select(_games.c.id).where(*mine).with_for_update()
            if conn.execute(locked).scalar() is None:
                raise NotFoundError(f"no {self.name} game with id {game_id}")
            conn.execute(sa.delete(_lines).where(_lines.c.game_id == game_id))
            conn.execute(sa.delete(_games).where(*mine))

        self.store._transaction(work, write=True)

    def standings(self, session_id: int | None = None) -> list[Standing]:
        """Per player: games, wins (rank 1, shared firsts all win), total, average, best; most
        wins first, then best average, then most points, then name. The one standings query
        of every game (:meth:`leaderboard.store.Store._standings`)."""
        rows, _total, _excluded = self.store._standings(
            session_id, None, offset=0, limit=None, game=self.game
        )
        return [Standing(r.player, r.games, r.wins, r.total_vp, r.average, r.best) for r in rows]

    # -- the game being entered -------------------------------------------------------------

    def draft(self, session_id: int) -> tuple[dict[str, Any] | None, int]:
        """The night's game in progress and its revision (``(None, 0)`` when none)."""
        row = read_session_document(self.store, _drafts, session_id, key={"game": self.game})
        if row is None:
            return None, 0
        document = json.loads(row.document)
        return (document or None), int(row.revision)

    def put_draft(
        self,
        session_id: int,
        document: dict[str, Any] | None,
        *,
        expected_revision: int | None = None,
    ) -> int:
        """Replace the night's game in progress (``None`` clears it); returns the revision.

        With ``expected_revision`` (the revision read, 0 for none) it is a compare-and-set:
        :class:`leaderboard.drafts.ConflictError` carrying the stored game when another phone
        wrote since (nothing written)."""
        text = _dump(document or {}, f"{self.name} draft")
        return write_session_document(
            self.store,
            _drafts,
            session_id,
            text,
            expected_revision=expected_revision,
            what=f"This {self.name} game",
            key={"game": self.game},
        )
