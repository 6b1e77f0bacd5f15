"""The leaderboard's records: plain dataclasses in, plain dataclasses out.

Every record converts to and from a JSON-ready ``dict`` (``to_json`` / ``from_json``); the only
non-JSON value, a photo thumbnail (``bytes``), travels as base64 text there. Validation lives
here too, so that :class:`leaderboard.store.Store` never writes a record it could not read back.
The store treats boards, score pads, objectives and ``extra`` as opaque JSON: it never imports
:mod:`scoring` or :mod:`vision`.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

#: Game modes: a table of 2 or more players, or one player against the Terrarium Master.
GAME_MODES: tuple[str, ...] = ("multi", "solo")
#: Longest player or session name, in characters (checked on input; see ``docs/decisions.md``).
MAX_NAME_CHARS = 100
#: Longest free text (game notes), in characters.
MAX_NOTES_CHARS = 100_000
#: Largest photo thumbnail, in bytes (a small JPEG).
MAX_THUMBNAIL_BYTES = 32 * 1024
#: Most players in one game (the game seats 1 to 4).
MAX_PLAYERS = 4
#: Largest VP magnitude of a pad's total or column. Far above any house-rule game, far below
#: what a 64-bit sum over millions of games could overflow.
MAX_VP = 1_000_000
#: Largest magnitude of any integer inside stored JSON (boards, pads, extra): exact in every
#: JSON reader, including JavaScript's.
MAX_JSON_INT = 2**53
#: Deepest nesting of stored JSON.
MAX_JSON_DEPTH = 32
#: Most objective cards in play, and the largest objective card number.
MAX_OBJECTIVES = 16
MAX_OBJECTIVE_NUMBER = 999
#: Score pad columns whose values are VP (bounded by ``MAX_VP``).
PAD_VP_KEYS = (
    "total",
    "lizards",
    "snakes",
    "turtles",
    "cockroach",
    "water",
    "dry_land",
    "objectives",
)
_JPEG_MAGIC = b"\xff\xd8\xff"


class LeaderboardError(ValueError):
    """A request the leaderboard cannot honour (bad record, unknown id, name clash)."""


class NotFoundError(LeaderboardError):
    """The session, game or player asked for does not exist."""


def utc_now() -> str:
    """Return the current time as the store's canonical timestamp text.

    Returns
    -------
    str
        ISO 8601, UTC, microseconds, e.g. ``"2026-11-29T18:20:00.123456+00:00"``.
    """
    return datetime.now(UTC).isoformat(timespec="microseconds")


def canonical_timestamp(value: str | datetime, *, what: str) -> str:
    """Normalise a timestamp to the store's canonical UTC text.

    Parameters
    ----------
    value : str or datetime
        An ISO 8601 text or a ``datetime``; a naive value is taken as UTC.
    what : str
        Name of the field, for the error message.

    Returns
    -------
    str
        ``YYYY-MM-DDTHH:MM:SS.ffffff+00:00``; these texts sort in time order.
    """
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise LeaderboardError(f"{what}: not an ISO 8601 timestamp: {value[:40]!r}") from None
    elif isinstance(value, datetime):
        moment = value
    else:
        raise LeaderboardError(f"{what}: expected a timestamp, got {type(value).__name__}")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC).isoformat(timespec="microseconds")
    except (OverflowError, ValueError):
        raise LeaderboardError(
            f"{what}: {str(value)[:40]!r} is out of range (years 1 to 9999 in UTC)"
        ) from None


def check_text(value: Any, *, what: str, max_chars: int, allow_empty: bool = False) -> str:
    """Check that a free-text value can be stored intact on every supported database.

    The text is never altered. Refused: non-strings, NUL characters (PostgreSQL text cannot hold
    them), lone surrogates (not encodable as UTF-8), over-long text and, unless ``allow_empty``,
    empty or whitespace-only text.

    Returns
    -------
    str
        ``value`` itself.
    """
    if not isinstance(value, str):
        raise LeaderboardError(f"{what}: expected text, got {type(value).__name__}")
    if not allow_empty and not value.strip():
        raise LeaderboardError(f"{what}: must not be empty")
    if len(value) > max_chars:
        raise LeaderboardError(f"{what}: {len(value)} characters, at most {max_chars} allowed")
    if "\x00" in value:
        raise LeaderboardError(f"{what}: contains a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise LeaderboardError(f"{what}: not valid Unicode (lone surrogate)") from None
    return value


def _check_json_numbers(value: Any, what: str) -> None:
    """Every integer inside ``value`` within ``MAX_JSON_INT``; nesting within ``MAX_JSON_DEPTH``.

    Iterative, so hostile nesting cannot exhaust the stack; the message names the place
    (``game.extra.master.cards.rock``).
    """
    stack: list[tuple[Any, str, int]] = [(value, what, 0)]
    while stack:
        item, where, level = stack.pop()
        if level > MAX_JSON_DEPTH:
            raise LeaderboardError(f"{where}: nested deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(item, dict):
            stack.extend((v, f"{where}.{str(k)[:40]}", level + 1) for k, v in item.items())
        elif isinstance(item, list | tuple):
            stack.extend((v, f"{where}[{i}]", level + 1) for i, v in enumerate(item))
        elif _is_int(item) and not -MAX_JSON_INT <= item <= MAX_JSON_INT:
            raise LeaderboardError(
                f"{where}: the number {_short_int(item)} is out of range "
                f"(at most {MAX_JSON_INT} in size)"
            )


def _short_int(value: int) -> str:
    text = (
        str(value)
        if abs(value) < 10**30
        else f"{'-' if value < 0 else ''}~10^{len(str(abs(value))) - 1}"
    )
    return text


def check_json(value: Any, *, what: str, kind: type) -> Any:
    """Check that ``value`` is of ``kind``, holds only bounded numbers (``MAX_JSON_INT``,
    ``MAX_JSON_DEPTH``) and survives a strict JSON round trip unchanged.

    Returns
    -------
    object
        ``value`` itself.
    """
    if not isinstance(value, kind):
        raise LeaderboardError(f"{what}: expected {kind.__name__}, got {type(value).__name__}")
    _check_json_numbers(value, what)
    try:
        text = dump_json(value)
    except (TypeError, ValueError) as error:
        raise LeaderboardError(f"{what}: not JSON data ({error})") from None
    if json.loads(text) != value:
        raise LeaderboardError(f"{what}: does not survive a JSON round trip (tuples, int keys?)")
    return value


def dump_json(value: Any) -> str:
    """Serialise JSON data exactly as the store writes it (UTF-8 text, no NaN/Infinity)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class SessionInfo:
    """A game night.

    Attributes
    ----------
    id : int
        Database id (local to one database).
    uid : str
        Stable id (UUID text), kept by export and import.
    name : str
        What the players called the evening.
    created_at : str
        Canonical UTC timestamp.
    game_count : int
        Games saved in the session.
    """

    id: int
    uid: str
    name: str
    created_at: str
    game_count: int = 0

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {
            "id": self.id,
            "uid": self.uid,
            "name": self.name,
            "created_at": self.created_at,
            "game_count": self.game_count,
        }


@dataclass(frozen=True)
class GamePlayer:
    """One player's line in a confirmed game.

    Attributes
    ----------
    name : str
        The player's name; players are global by exact name (see ``docs/decisions.md``).
    board : dict
        Board JSON, ``{"rows": [[card id, ...] x 5] x 4}``; stored as given.
    pad : dict
        Score pad JSON (``ScorePad.to_json()``); opaque except ``pad["total"]`` (integer VP).
    rank : int
        1 for the winner; tied players share a rank (all tied firsts count as wins). In a solo
        game 1 means the player beat the Terrarium Master, 2 that the Master won.
    photo_sha256 : str or None
        SHA-256 hex digest of the photo the board was read from.
    photo_thumbnail : bytes or None
        A small JPEG (at most ``MAX_THUMBNAIL_BYTES``) of that photo.
    """

    name: str
    board: dict[str, Any]
    pad: dict[str, Any]
    rank: int
    photo_sha256: str | None = None
    photo_thumbnail: bytes | None = None

    @property
    def total(self) -> int:
        """The pad's total VP."""
        return self.pad["total"]

    def check(self, *, where: str, player_count: int) -> None:
        """Raise :class:`LeaderboardError` naming ``where`` if this line cannot be stored."""
        check_text(self.name, what=f"{where}.name", max_chars=MAX_NAME_CHARS)
        check_json(self.board, what=f"{where}.board", kind=dict)
        check_json(self.pad, what=f"{where}.pad", kind=dict)
        if not _is_int(self.pad.get("total")):
            raise LeaderboardError(f"{where}.pad: needs an integer 'total' (VP)")
        for key in PAD_VP_KEYS:
            value = self.pad.get(key)
            if _is_int(value) and not -MAX_VP <= value <= MAX_VP:
                raise LeaderboardError(
                    f"{where}.pad.{key}: {_short_int(value)} VP is out of range "
                    f"(-{MAX_VP}..{MAX_VP})"
                )
        if not _is_int(self.rank):
            raise LeaderboardError(f"{where}.rank: expected an integer")
        if not 1 <= self.rank <= player_count:
            raise LeaderboardError(f"{where}.rank: {self.rank} not in 1..{player_count}")
        digest = self.photo_sha256
        if digest is not None and (
            not isinstance(digest, str)
            or len(digest) != 64
            or any(c not in "0123456789abcdef" for c in digest)
        ):
            raise LeaderboardError(f"{where}.photo_sha256: expected 64 lowercase hex digits")
        thumb = self.photo_thumbnail
        if thumb is not None:
            if not isinstance(thumb, bytes):
                raise LeaderboardError(f"{where}.photo_thumbnail: expected bytes")
            if len(thumb) > MAX_THUMBNAIL_BYTES:
                raise LeaderboardError(
                    f"{where}.photo_thumbnail: {len(thumb)} bytes, at most "
                    f"{MAX_THUMBNAIL_BYTES} allowed"
                )
            if not thumb.startswith(_JPEG_MAGIC):
                raise LeaderboardError(f"{where}.photo_thumbnail: not a JPEG")

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict; the thumbnail becomes base64 text (or ``None``)."""
        thumb = self.photo_thumbnail
        return {
            "name": self.name,
            "rank": self.rank,
            "total": self.total,
            "board": self.board,
            "pad": self.pad,
            "photo_sha256": self.photo_sha256,
            "photo_thumbnail": None if thumb is None else base64.b64encode(thumb).decode("ascii"),
        }

    @classmethod
    def from_json(cls, data: Any, *, where: str = "player") -> GamePlayer:
        """Build a line from :meth:`to_json` output (``total`` is ignored: it is the pad's)."""
        if not isinstance(data, dict):
            raise LeaderboardError(f"{where}: expected an object")
        thumb = data.get("photo_thumbnail")
        if thumb is not None:
            if not isinstance(thumb, str):
                raise LeaderboardError(f"{where}.photo_thumbnail: expected base64 text")
            try:
                thumb = base64.b64decode(thumb.encode("ascii"), validate=True)
            except (binascii.Error, UnicodeEncodeError):
                raise LeaderboardError(f"{where}.photo_thumbnail: not base64") from None
        try:
            return cls(
                name=data["name"],
                board=data["board"],
                pad=data["pad"],
                rank=data["rank"],
                photo_sha256=data.get("photo_sha256"),
                photo_thumbnail=thumb,
            )
        except KeyError as error:
            raise LeaderboardError(f"{where}: missing key {error}") from None


@dataclass(frozen=True)
class GameRecord:
    """A confirmed game: who played, their boards and pads, and how it was set up.

    Attributes
    ----------
    session_id : int
        The game night it belongs to.
    players : tuple of GamePlayer
        In seat order; 2..``MAX_PLAYERS`` for ``"multi"``, exactly 1 for ``"solo"``.
    mode : str
        ``"multi"`` or ``"solo"``.
    player_count_variant : bool
        True when the star cards were removed (the 2-3-player / solo variant).
    objectives : list of int
        Objective card numbers in play.
    rules_version : str
        Version text of the rules used to score.
    rules_hash : str
        Hash of the rules file used to score (house values change it).
    notes : str
        Free text.
    extra : dict
        Mode-specific JSON, opaque to the store (e.g. the solo Master's cards, level and pad).
    played_at : str or None
        Canonical UTC timestamp; ``None`` means "now" when saved.
    id : int or None
        Database id; set on records read from the store, ignored by ``save_game``.
    uid : str or None
        Stable id kept by export/import; generated when saved if ``None``.
    """

    session_id: int
    players: tuple[GamePlayer, ...]
    mode: str = "multi"
    player_count_variant: bool = False
    objectives: list[int] = field(default_factory=list)
    rules_version: str = ""
    rules_hash: str = ""
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    played_at: str | None = None
    id: int | None = None
    uid: str | None = None

    def check(self) -> None:
        """Raise :class:`LeaderboardError` naming the field if this game cannot be stored."""
        if self.mode not in GAME_MODES:
            raise LeaderboardError(f"game.mode: {self.mode!r} is not one of {GAME_MODES}")
        players = self.players
        if not isinstance(players, tuple | list) or not all(
            isinstance(p, GamePlayer) for p in players
        ):
            raise LeaderboardError("game.players: expected a sequence of GamePlayer")
        low, high = (1, 1) if self.mode == "solo" else (2, MAX_PLAYERS)
        if not low <= len(players) <= high:
            raise LeaderboardError(
                f"game.players: a {self.mode} game has {low}..{high} players, got {len(players)}"
            )
        places = len(players) + (1 if self.mode == "solo" else 0)  # the Master takes a place
        for seat, player in enumerate(players):
            player.check(where=f"game.players[{seat}]", player_count=places)
        names = [p.name for p in players]
        if len(set(names)) != len(names):
            raise LeaderboardError("game.players: the same player appears twice")
        if not isinstance(self.player_count_variant, bool):
            raise LeaderboardError("game.player_count_variant: expected true or false")
        check_json(self.objectives, what="game.objectives", kind=list)
        if not all(_is_int(o) for o in self.objectives):
            raise LeaderboardError("game.objectives: expected objective card numbers")
        if len(self.objectives) > MAX_OBJECTIVES:
            raise LeaderboardError(
                f"game.objectives: {len(self.objectives)} objectives, at most {MAX_OBJECTIVES}"
            )
        if not all(0 <= o <= MAX_OBJECTIVE_NUMBER for o in self.objectives):
            raise LeaderboardError(
                f"game.objectives: objective numbers are 0..{MAX_OBJECTIVE_NUMBER}"
            )
        check_text(self.rules_version, what="game.rules_version", max_chars=200, allow_empty=True)
        check_text(self.rules_hash, what="game.rules_hash", max_chars=200, allow_empty=True)
        check_text(self.notes, what="game.notes", max_chars=MAX_NOTES_CHARS, allow_empty=True)
        check_json(self.extra, what="game.extra", kind=dict)
        if self.uid is not None:
            check_text(self.uid, what="game.uid", max_chars=64)

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field (thumbnails as base64 text)."""
        return {
            "id": self.id,
            "uid": self.uid,
            "session_id": self.session_id,
            "played_at": self.played_at,
            "mode": self.mode,
            "player_count_variant": self.player_count_variant,
            "objectives": list(self.objectives),
            "rules_version": self.rules_version,
            "rules_hash": self.rules_hash,
            "notes": self.notes,
            "extra": self.extra,
            "players": [p.to_json() for p in self.players],
        }

    @classmethod
    def from_json(cls, data: Any, *, where: str = "game") -> GameRecord:
        """Build a record from :meth:`to_json` output."""
        if not isinstance(data, dict):
            raise LeaderboardError(f"{where}: expected an object")
        raw_players = data.get("players")
        if not isinstance(raw_players, list):
            raise LeaderboardError(f"{where}.players: expected a list")
        try:
            return cls(
                session_id=data["session_id"],
                players=tuple(
                    GamePlayer.from_json(p, where=f"{where}.players[{i}]")
                    for i, p in enumerate(raw_players)
                ),
                mode=data.get("mode", "multi"),
                player_count_variant=data.get("player_count_variant", False),
                objectives=data.get("objectives", []),
                rules_version=data.get("rules_version", ""),
                rules_hash=data.get("rules_hash", ""),
                notes=data.get("notes", ""),
                extra=data.get("extra", {}),
                played_at=data.get("played_at"),
                id=data.get("id"),
                uid=data.get("uid"),
            )
        except KeyError as error:
            raise LeaderboardError(f"{where}: missing key {error}") from None


@dataclass(frozen=True)
class LeaderboardRow:
    """One player's standing over a set of games.

    Attributes
    ----------
    player : str
        The player's name.
    games : int
        Games played.
    wins : int
        Games ranked 1 (every player tied for first counts a win).
    total_vp : int or float
        Sum of the pads' totals.
    average : float
        ``total_vp / games``.
    best : int or float
        Highest single-game total.
    """

    player: str
    games: int
    wins: int
    total_vp: int
    average: float
    best: int

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict of every field."""
        return {
            "player": self.player,
            "games": self.games,
            "wins": self.wins,
            "total_vp": self.total_vp,
            "average": self.average,
            "best": self.best,
        }


@dataclass(frozen=True)
class ImportSummary:
    """What :meth:`leaderboard.store.Store.import_json` did.

    Attributes
    ----------
    sessions_added, games_added : int
        New sessions and games written.
    games_skipped : int
        Games whose ``uid`` was already in the store (import is idempotent).
    """

    sessions_added: int
    games_added: int
    games_skipped: int
    #: ``(game uid, reason)`` of games imported but not verified (see
    #: its game's ``import_check``), e.g. scored with house rules.
    flagged: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class LeaderboardPage:
    """One page of standings (:meth:`leaderboard.store.Store.leaderboard_page`).

    Attributes
    ----------
    rows : list of LeaderboardRow
        The page, in standings order.
    total : int
        Players in the whole listing.
    offset, limit : int
        Where the page starts and its size.
    excluded_games : int
        Games left out of the standings because a stored total is out of range (written by an
        older version or by hand); :meth:`~leaderboard.store.Store.out_of_range_games` lists
        them for deletion.
    """

    rows: list[LeaderboardRow]
    total: int
    offset: int
    limit: int
    excluded_games: int = 0


@dataclass(frozen=True)
class GamesPage:
    """One page of games, newest first (:meth:`leaderboard.store.Store.list_games_page`)."""

    games: list[GameRecord]
    total: int
    offset: int
    limit: int
