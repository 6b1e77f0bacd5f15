"""Export and import: the drawer of :class:`leaderboard.store.Store` that writes the record
game's history as JSON (read back by the import, in bounded batches) or CSV (for spreadsheets)."""

from __future__ import annotations

import csv
import dataclasses
import io
import re
import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from leaderboard.database import Database
from leaderboard.nights import _insert_session
from leaderboard.records import (
    MAX_NAME_CHARS,
    GameRecord,
    ImportSummary,
    LeaderboardError,
    NotFoundError,
    canonical_timestamp,
    check_text,
)
from leaderboard.saved import _insert_game, _read_games
from leaderboard.schema import GAMES as _games
from leaderboard.schema import SESSIONS as _sessions

#: ``format`` field of an export.
EXPORT_FORMAT = "reptile-tank-leaderboard"
#: Version of the export layout (independent of the database schema version).
EXPORT_FORMAT_VERSION = 1
#: Score pad keys that become their own CSV columns (in the rulebook's column order).
PAD_CSV_KEYS = ("lizards", "snakes", "turtles", "cockroach", "water", "dry_land", "objectives")
#: Games written per transaction by :meth:`Store.import_json` (a save waits at most one batch).
IMPORT_BATCH_SIZE = 200
#: Pause between two import batches (s): long enough for SQLite's busy handler of a waiting
#: save to poll (it sleeps 1, 2, 5, 10, ... up to 100 ms).
IMPORT_PAUSE_S = 0.1
#: Characters that make a spreadsheet read a cell as a formula (OWASP's list).
_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


class Exchange(Database):
    """Export and import (a drawer of :class:`leaderboard.store.Store`)."""

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
        game = self.record_game

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
                "games": _read_games(conn, game_where, game=game, thumbnails=thumbnails),
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
