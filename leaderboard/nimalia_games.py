"""Nimalia's games in the leaderboard database, kept apart from Reptile Tank's.

Reptile Tank's ``games``/``game_players`` hold terrariums and score pads (checked, exported and
re-scored as such); a Nimalia game is a different thing (4 goals, 5 rounds of 6 x 6 reserves,
totals floored at 0, a tie-break), so it has its own tables:

* ``nimalia_games`` -- one row per saved game: its game night, goals, the whole game document
  (every player's reserve after every round) and the engine's result, the options in force;
* ``nimalia_game_players`` -- one row per player: seat, name, total, rank;
* ``nimalia_drafts`` -- the game being entered on a game night (one per night), written as it
  changes so a reload or another phone finds it back.

The tables are created as :mod:`leaderboard.drafts` creates its own: ``CREATE TABLE IF NOT
EXISTS`` under the store's migration lock on first use, leaving the store's schema version
alone, so an older database gains them without a migration step and Reptile Tank's queries,
exports and imports are untouched. A game night's deletion deletes its Nimalia games
(foreign key, ``ON DELETE CASCADE``). Players are matched by name (exact text); renaming a
Reptile Tank player does not rename their Nimalia lines.

Saving is idempotent on the game's ``uid``: saving the same game again (a double tap, a second
server) rewrites it instead of adding a second one.
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
from leaderboard.schema import TABLES
from leaderboard.store import Store, ensure_side_tables, name_key

#: Largest stored game or draft document (JSON text, characters).
MAX_DOCUMENT_CHARS = 200_000
MAX_PLAYERS = 4
#: ``format`` of :meth:`NimaliaStore.export_json`.
EXPORT_FORMAT = "reptile-tank-nimalia-games"

METADATA = sa.MetaData()
_sessions_ref = sa.Table("sessions", METADATA, sa.Column("id", sa.Integer, primary_key=True))
_games = sa.Table(
    "nimalia_games",
    METADATA,
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
    sa.Column("goals", sa.Text, nullable=False),
    sa.Column("rounds", sa.Integer, nullable=False),
    sa.Column("document", sa.Text, nullable=False),
    sa.Column("result", sa.Text, nullable=False),
    sa.Column("options", sa.Text, nullable=False),
    sa.Column("player_count", sa.Integer, nullable=False),
)
_lines = sa.Table(
    "nimalia_game_players",
    METADATA,
    sa.Column(
        "game_id",
        sa.Integer,
        sa.ForeignKey("nimalia_games.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("name_sha256", sa.String(64), nullable=False, index=True),
    sa.Column("total", sa.Integer, nullable=False),
    sa.Column("rank", sa.Integer, nullable=False),
)
_drafts = sa.Table(
    "nimalia_drafts",
    METADATA,
    sa.Column(
        "session_id",
        sa.Integer,
        sa.ForeignKey("sessions.id", ondelete="CASCADE"),
        primary_key=True,
        autoincrement=False,
    ),
    sa.Column("revision", sa.Integer, nullable=False),
    sa.Column("document", sa.Text, nullable=False),
    sa.Column("updated_at", sa.String(40), nullable=False),
)
_sessions = TABLES["sessions"]


@dataclass(frozen=True)
class NimaliaLine:
    seat: int
    name: str
    total: int
    rank: int


@dataclass(frozen=True)
class NimaliaGame:
    """A saved Nimalia game (``document`` and ``result`` as the app and the engine made them)."""

    id: int
    uid: str
    session_id: int
    played_at: str
    goals: list[int]
    rounds: int
    players: list[NimaliaLine]
    document: dict[str, Any]
    result: dict[str, Any]
    options: dict[str, Any]


@dataclass(frozen=True)
class NimaliaStanding:
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


def _check_lines(result: dict[str, Any]) -> list[NimaliaLine]:
    players = result.get("players")
    if not isinstance(players, list) or not 1 <= len(players) <= MAX_PLAYERS:
        raise LeaderboardError(f"a Nimalia game has 1 to {MAX_PLAYERS} players")
    lines = []
    for seat, p in enumerate(players):
        name = check_text(p.get("name"), what=f"players[{seat}].name", max_chars=MAX_NAME_CHARS)
        total, rank = p.get("total"), p.get("rank")
        for what, value, low, high in (
            ("total", total, 0, MAX_VP),
            ("rank", rank, 1, MAX_PLAYERS),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise LeaderboardError(f"players[{seat}].{what}: {value!r} is out of range")
        lines.append(NimaliaLine(seat, name, int(total), int(rank)))
    return lines


class NimaliaStore:
    """Nimalia games and drafts in the database of a :class:`Store`."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.ensure_tables()

    def ensure_tables(self) -> None:
        """Create the Nimalia tables when the database lacks them."""
        ensure_side_tables(self.store, [_games, _lines, _drafts])

    # -- saved games ------------------------------------------------------------------------

    def save_game(
        self, session_id: int, document: dict[str, Any], result: dict[str, Any]
    ) -> tuple[int, bool]:
        """Save (or rewrite) the game ``document["uid"]``; returns ``(game id, created)``.

        ``result`` is :func:`scoring.nimalia.api.score_game`'s answer for ``document``.
        """
        uid = check_text(document.get("uid"), what="game uid", max_chars=64)
        doc_text = _dump(document, "game document")
        result_text = _dump(result, "game result")
        lines = _check_lines(result)
        goals = [int(g) for g in document.get("goals", [])]
        rounds = len(result["players"][0]["rounds"])
        values = {
            "session_id": session_id,
            "goals": dump_json(goals),
            "rounds": rounds,
            "document": doc_text,
            "result": result_text,
            "options": dump_json(result.get("options", {})),
            "player_count": len(lines),
        }

        def work(conn: Connection, _attempt: int) -> tuple[int, bool]:
            if (
                conn.execute(sa.select(_sessions.c.id).where(_sessions.c.id == session_id)).scalar()
                is None
            ):
                raise NotFoundError(f"no game night with id {session_id}")
            found = conn.execute(sa.select(_games.c.id).where(_games.c.uid == uid)).scalar()
            if found is None:
                game_id = conn.execute(
                    sa.insert(_games).values(uid=uid, played_at=utc_now(), **values)
                ).inserted_primary_key[0]
                created = True
            else:
                game_id = int(found)
                conn.execute(sa.update(_games).where(_games.c.id == game_id).values(**values))
                conn.execute(sa.delete(_lines).where(_lines.c.game_id == game_id))
                created = False
            for line in lines:
                conn.execute(
                    sa.insert(_lines).values(
                        game_id=game_id,
                        seat=line.seat,
                        name=line.name,
                        name_sha256=name_key(line.name),
                        total=line.total,
                        rank=line.rank,
                    )
                )
            return int(game_id), created

        return self.store._transaction(work, write=True)

    def list_games(self, session_id: int | None = None) -> list[NimaliaGame]:
        """Saved Nimalia games, newest first."""
        query = sa.select(_games).order_by(_games.c.played_at.desc(), _games.c.id.desc())
        if session_id is not None:
            query = query.where(_games.c.session_id == session_id)

        def work(conn: Connection, _attempt: int) -> list[NimaliaGame]:
            games = conn.execute(query).all()
            ids = [g.id for g in games]
            lines: dict[int, list[NimaliaLine]] = {i: [] for i in ids}
            if ids:
                for row in conn.execute(
                    sa.select(_lines).where(_lines.c.game_id.in_(ids)).order_by(_lines.c.seat)
                ):
                    lines[row.game_id].append(NimaliaLine(row.seat, row.name, row.total, row.rank))
            return [
                NimaliaGame(
                    id=int(g.id),
                    uid=g.uid,
                    session_id=int(g.session_id),
                    played_at=g.played_at,
                    goals=json.loads(g.goals),
                    rounds=int(g.rounds),
                    players=lines[g.id],
                    document=json.loads(g.document),
                    result=json.loads(g.result),
                    options=json.loads(g.options),
                )
                for g in games
            ]

        return self.store._transaction(work, write=False)

    def saved(self, uid: str) -> tuple[int, dict[str, Any]] | None:
        """``(game id, document as saved)`` of the game with this uid, if it was saved (from
        any phone)."""
        query = sa.select(_games.c.id, _games.c.document).where(_games.c.uid == uid)
        row = self.store._transaction(lambda c, _a: c.execute(query).one_or_none(), write=False)
        return None if row is None else (int(row.id), json.loads(row.document))

    def export_json(self, session_id: int | None = None) -> dict[str, Any]:
        """Every saved Nimalia game (or one night's) as JSON-ready data: the game night's uid
        and name, when, the goals, every reserve of every round and the engine's result."""
        nights = {s.id: s for s in self.store.list_sessions()}
        return {
            "format": EXPORT_FORMAT,
            "version": 1,
            "games": [
                {
                    "uid": g.uid,
                    "night": {"uid": nights[g.session_id].uid, "name": nights[g.session_id].name},
                    "played_at": g.played_at,
                    "goals": g.goals,
                    "rounds": g.rounds,
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
            conn.execute(sa.delete(_lines).where(_lines.c.game_id == game_id))
            if conn.execute(sa.delete(_games).where(_games.c.id == game_id)).rowcount == 0:
                raise NotFoundError(f"no Nimalia game with id {game_id}")

        self.store._transaction(work, write=True)

    def standings(self, session_id: int | None = None) -> list[NimaliaStanding]:
        """Per player: games, wins (rank 1, shared firsts all win), total, average, best.
        Most wins first, then best average, then most points, then name."""
        games = sa.select(_games.c.id)
        if session_id is not None:
            games = games.where(_games.c.session_id == session_id)
        wins = sa.func.sum(sa.case((_lines.c.rank == 1, 1), else_=0))
        total = sa.func.sum(_lines.c.total)
        played = sa.func.count()
        query = (
            sa.select(sa.func.min(_lines.c.name), played, wins, total, sa.func.max(_lines.c.total))
            .where(_lines.c.game_id.in_(games))
            .group_by(_lines.c.name_sha256)
        )
        rows = self.store._transaction(lambda c, _a: c.execute(query).all(), write=False)
        table = [
            NimaliaStanding(
                player=name,
                games=int(n),
                wins=int(w),
                total=int(t),
                average=int(t) / int(n),
                best=int(b),
            )
            for name, n, w, t, b in rows
        ]
        table.sort(key=lambda s: (-s.wins, -s.average, -s.total, s.player))
        return table

    # -- the game being entered -------------------------------------------------------------

    def draft(self, session_id: int) -> tuple[dict[str, Any] | None, int]:
        """The night's Nimalia game in progress and its revision (``(None, 0)`` when none)."""
        row = read_session_document(self.store, _drafts, session_id)
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
        text = _dump(document or {}, "Nimalia draft")

        return write_session_document(
            self.store,
            _drafts,
            session_id,
            text,
            expected_revision=expected_revision,
            what="This Nimalia game",
        )
