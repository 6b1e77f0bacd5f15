"""A toy third game, defined only here: a 3x3 grid of suns, moons and stars.

It is registered by the tests that use it (:func:`registered`) and then works through the
CLI, the app, storage and the leaderboard with no change to any file outside ``tests/``.

* a player's document: ``{"rows": [[cell, cell, cell], ...]}`` (3 rows of 3; cells ``sun``,
  ``moon``, ``star`` or ``.``);
* score: sun 3, moon 2, star 1, plus 5 for a full row of one kind;
* a game document: ``{"uid": "...", "players": [{"name": "Ann", "rows": [...]}, ...]}``; its
  result ranks the players (competition ranks: ties share).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import games
from scoring.layout import Layout

ID = "toy_grid"
CELLS = ("sun", "moon", "star", ".")
POINTS = {"sun": 3, "moon": 2, "star": 1, ".": 0}
PAGE = str(Path(__file__).resolve().parent / "toy_page.py")


def layout() -> Layout:
    return Layout(name=ID, rows=3, cols=3, cell_w_mm=40.0, cell_h_mm=40.0, cell_holds="square")


def parse(document: Any) -> list[list[str]]:
    """The codec: a checked 3x3 grid (``ValueError`` with one line naming what is wrong)."""
    rows = document.get("rows") if isinstance(document, dict) else None
    if not isinstance(rows, list) or len(rows) != 3:
        raise ValueError("a toy grid document is {'rows': [3 rows of 3 cells]}")
    for r, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != 3:
            raise ValueError(f"row {r + 1}: 3 cells")
        for c, cell in enumerate(row):
            if cell not in CELLS:
                raise ValueError(f"row {r + 1}, column {c + 1}: {str(cell)[:20]!r} is not a cell")
    return [list(row) for row in rows]


def score(document: Any) -> dict[str, Any]:
    rows = parse(document)
    cells = sum(POINTS[cell] for row in rows for cell in row)
    lines = sum(5 for row in rows if row[0] != "." and len(set(row)) == 1)
    return {"game": ID, "cells": cells, "lines": lines, "total": cells + lines}


def score_game(document: Any) -> dict[str, Any]:
    players = document.get("players") if isinstance(document, dict) else None
    if not isinstance(players, list) or not 1 <= len(players) <= 4:
        raise ValueError("a toy game has 1 to 4 players")
    totals = [score(p)["total"] for p in players]
    return {
        "players": [
            {"name": str(p.get("name")), "total": t, "rank": 1 + sum(o > t for o in totals)}
            for p, t in zip(players, totals, strict=True)
        ]
    }


GAME = games.Game(
    id=ID,
    name="Toy grid",
    icon="🔲",
    empty_label=".",
    layout=layout,
    cell_labels=lambda: CELLS,
    rules=lambda: POINTS,
    parse_document=parse,
    score_document=score,
    score_game=score_game,
    pages=(games.Page(PAGE, "Toy grid", "🔲", "toy_grid"),),
)


@contextlib.contextmanager
def registered() -> Iterator[games.Game]:
    """The toy game in the game list for the duration of the block."""
    games.register(GAME)
    try:
        yield GAME
    finally:
        games.unregister(ID)
