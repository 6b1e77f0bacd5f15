"""Standings: the drawer of :class:`leaderboard.store.Store` that ranks players over the record
game's saved games (the one standings query, which :mod:`leaderboard.played` runs for every other
game of the game list too)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from leaderboard.database import Database
from leaderboard.records import (
    MAX_VP,
    LeaderboardError,
    LeaderboardPage,
    LeaderboardRow,
)
from leaderboard.schema import GAME_LINES as _lines
from leaderboard.schema import GAMES as _games
from leaderboard.schema import PLAYERS as _players

#: Largest page of :meth:`Store.leaderboard_page` and :meth:`Store.list_games_page`.
MAX_PAGE_SIZE = 1000


class Standings(Database):
    """Standings of the record game (a drawer of :class:`leaderboard.store.Store`)."""

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
            .where(_lines.c.game == self.record_game, _out_of_range())
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
        game: str | None = None,
    ) -> tuple[list[LeaderboardRow], int, int]:
        """The one standings query, of one game (``game``: an id of the game list; ``None``: the
        record game): per player games, wins, VP and best, over the covering index led by the
        game."""
        if game is None:
            game = self.record_game
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
