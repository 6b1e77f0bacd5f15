"""Opening the leaderboard store with the game list's facts (game-blind: the games are the list).

Storage (:mod:`leaderboard`) names no game, so its schema's history is handed to it here: which
game the rows written before schema version 5 belong to (the entry with ``first_game``) and which
tables an earlier release kept for one game (``legacy_tables``). Whoever opens a store opens it
through :func:`open_store` (or passes :func:`schema_history` to ``Store`` itself); a store opened
without them refuses to create or migrate a database rather than guess.
"""

from __future__ import annotations

import os
from typing import Any

import games
from leaderboard.schema import LegacyGameTables, SchemaHistory
from leaderboard.store import Store


def schema_history(entries: Any = None) -> SchemaHistory:
    """The schema's history facts from the game list (``entries``: ``games.GAMES`` by default).

    Raises
    ------
    ValueError
        When not exactly one entry is the first game.
    """
    listed = list((games.GAMES if entries is None else entries).values())
    first = [entry.id for entry in listed if entry.first_game]
    if len(first) != 1:
        raise ValueError(
            f"the game list must have exactly one first game (Game.first_game), has {first}"
        )
    legacy = tuple(
        LegacyGameTables(entry.id, *entry.legacy_tables)
        for entry in listed
        if entry.legacy_tables is not None
    )
    return SchemaHistory(first_game=first[0], legacy_tables=legacy)


def open_store(url: str | os.PathLike[str] | None = None, **options: Any) -> Store:
    """``Store(url, **options)`` told the game list's :func:`schema_history`."""
    options.setdefault("history", schema_history())
    return Store(url, **options)
