"""A game in progress as a JSON document, and back: what a draft in the database holds.

The document carries everything a player would miss after a reload: the players, the variant,
the objectives, the notes, whose turn it is, every terrarium (labels, confidences, the reader's
``check`` flags and best guesses, the cells fixed) and every photo still waiting for its
corners. Photos, overlays and thumbnails are stored once as blobs (by SHA-256) and referenced by
digest, so a cell fix rewrites a few kilobytes. Cell crops (for teaching a deck) stay in memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from service.reptile_tank.game import TerrariumEntry, check_rows
from service.reptile_tank.reading import PhotoRead

#: Version of the document layout.
DOCUMENT_FORMAT = 1

PutBlob = Callable[[bytes], str]
GetBlob = Callable[[str], "bytes | None"]


@dataclass
class PendingPhoto:
    """A photo in which no grid was found, waiting for the user's four corners."""

    photo: bytes
    read: PhotoRead


@dataclass
class GameInProgress:
    """Everything of the game at the table that must survive a reload.

    Attributes
    ----------
    players : list of str
        Names in seat order.
    star_cards_out : bool
        The 2-3 player variant.
    objectives : list of int
        Objective cards in play.
    entries : dict str → TerrariumEntry
        The terrariums entered so far.
    pending : dict str → PendingPhoto
        Photos waiting for corners.
    active_player : str or None
        Whose terrarium the pages show.
    notes : str
        The players' note on the game.
    kind : str
        The game (``"reptile_tank"``).
    """

    players: list[str] = field(default_factory=list)
    star_cards_out: bool = False
    objectives: list[int] = field(default_factory=list)
    entries: dict[str, TerrariumEntry] = field(default_factory=dict)
    pending: dict[str, PendingPhoto] = field(default_factory=dict)
    active_player: str | None = None
    notes: str = ""
    kind: str = "reptile_tank"


def blob_ref(data: bytes | None, put: PutBlob) -> str | None:
    """Store ``data`` through ``put`` and return its digest (``None`` for no data)."""
    return None if data is None else put(bytes(data))


def _entry_json(entry: TerrariumEntry, put: PutBlob) -> dict[str, Any]:
    return {
        "rows": [list(row) for row in entry.rows],
        "confidence": entry.confidence,
        "source": entry.source,
        "photo_sha256": entry.photo_sha256,
        "thumbnail": blob_ref(entry.thumbnail_jpeg, put),
        "overlay": blob_ref(entry.overlay_jpeg, put),
        "corrected": sorted([int(r), int(c)] for r, c in entry.corrected),
        "read_ms": entry.read_ms,
        "check": entry.check,
        "candidates": entry.candidates,
        "check_reasons": list(entry.check_reasons),
    }


def _entry_from_json(data: Mapping[str, Any], get: GetBlob) -> TerrariumEntry:
    rows = [list(row) for row in data["rows"]]
    check_rows(rows)
    return TerrariumEntry(
        rows=rows,
        confidence=data.get("confidence"),
        source=str(data.get("source", "manual")),
        photo_sha256=data.get("photo_sha256"),
        thumbnail_jpeg=get(data["thumbnail"]) if data.get("thumbnail") else None,
        overlay_jpeg=get(data["overlay"]) if data.get("overlay") else None,
        corrected={(int(r), int(c)) for r, c in data.get("corrected", [])},
        read_ms=data.get("read_ms"),
        check=data.get("check"),
        candidates=data.get("candidates"),
        check_reasons=[str(r) for r in data.get("check_reasons") or []],
    )


def _pending_json(pending: PendingPhoto, put: PutBlob) -> dict[str, Any]:
    read = pending.read
    return {
        "photo": blob_ref(pending.photo, put),
        "overlay": blob_ref(read.overlay_jpeg, put),
        "thumbnail": blob_ref(read.thumbnail_jpeg, put),
        "image_size": list(read.image_size),
        "photo_sha256": read.photo_sha256,
        "read_ms": read.read_ms,
        "message": read.message,
    }


def _pending_from_json(data: Mapping[str, Any], get: GetBlob) -> PendingPhoto | None:
    photo = get(data["photo"])
    if photo is None:
        return None
    read = PhotoRead(
        grid_found=False,
        rows=None,
        confidence=None,
        overlay_jpeg=get(data["overlay"]) or b"",
        image_size=(int(data["image_size"][0]), int(data["image_size"][1])),
        photo_sha256=str(data["photo_sha256"]),
        thumbnail_jpeg=get(data["thumbnail"]) or b"",
        read_ms=float(data.get("read_ms") or 0.0),
        message=str(data.get("message", "")),
    )
    return PendingPhoto(photo=photo, read=read)


def to_document(game: GameInProgress, put: PutBlob) -> dict[str, Any]:
    """The game as a JSON-ready document; photos go through ``put`` (bytes → digest)."""
    return {
        "format": DOCUMENT_FORMAT,
        "kind": game.kind,
        "players": list(game.players),
        "star_cards_out": bool(game.star_cards_out),
        "objectives": [int(o) for o in game.objectives],
        "notes": game.notes,
        "active_player": game.active_player,
        "entries": {name: _entry_json(e, put) for name, e in game.entries.items()},
        "pending": {name: _pending_json(p, put) for name, p in game.pending.items()},
    }


def from_document(document: Mapping[str, Any], get: GetBlob) -> GameInProgress:
    """A game back from :func:`to_document`'s output; blobs are fetched through ``get``.

    Raises
    ------
    ValueError
        A document of another format or with a malformed board.
    """
    if document.get("format") != DOCUMENT_FORMAT:
        raise ValueError(f"a draft of format {document.get('format')!r} cannot be resumed")
    players = [str(p) for p in document.get("players", [])]
    entries = {
        str(name): _entry_from_json(data, get)
        for name, data in document.get("entries", {}).items()
        if name in players
    }
    pending = {}
    for name, data in document.get("pending", {}).items():
        found = _pending_from_json(data, get)
        if found is not None and name in players:
            pending[str(name)] = found
    active = document.get("active_player")
    return GameInProgress(
        players=players,
        star_cards_out=bool(document.get("star_cards_out", False)),
        objectives=[int(o) for o in document.get("objectives", [])],
        entries=entries,
        pending=pending,
        active_player=active if active in players else (players[0] if players else None),
        notes=str(document.get("notes", "")),
        kind=str(document.get("kind", "reptile_tank")),
    )


def game_from_record(record: Any) -> GameInProgress:
    """A saved game (``GameRecord``) back as a game in progress, to edit it."""
    entries = {}
    for line in record.players:
        rows = [list(row) for row in line.board["rows"]]
        check_rows(rows)
        entries[line.name] = TerrariumEntry(
            rows=rows,
            source="manual",
            photo_sha256=line.photo_sha256,
            thumbnail_jpeg=line.photo_thumbnail,
        )
    players = [line.name for line in record.players]
    return GameInProgress(
        players=players,
        star_cards_out=bool(record.player_count_variant),
        objectives=[int(o) for o in record.objectives],
        entries=entries,
        active_player=players[0] if players else None,
        notes=str(record.extra.get("player_notes", "")),
    )


def digest_of(data: bytes) -> str:
    """The blob key of ``data`` (hex SHA-256)."""
    return hashlib.sha256(data).hexdigest()
