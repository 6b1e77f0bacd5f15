"""Nimalia's entry in the game list: every plug-in of the game, named in one place.

Cells hold squares of 2x2-square cards (rows and columns from
``scoring/nimalia/data/rules.toml``); a player's document is a reserve (placements or
squares), a game document every player's reserve after every round (``docs/nimalia.md``); the
scorer is :mod:`scoring.nimalia.api` (relative goals come back as pending for one reserve).
Saved games live in the one games table and the game in progress in ``game_drafts``
(:mod:`leaderboard.played`) under this id.
"""

from __future__ import annotations

from typing import Any

from games import Game, Page
from scoring.layout import Layout

ID = "nimalia"


def _rules() -> Any:
    from scoring.nimalia.rules import load_rules

    return load_rules()


def _layout() -> Layout:
    from scoring.nimalia.cards import layout

    return layout()


def _labels() -> tuple[str, ...]:
    from scoring.nimalia.cards import EMPTY, SQUARE_KINDS

    return (*SQUARE_KINDS, EMPTY)


def _parse(document: Any) -> Any:
    from scoring.nimalia.reserve import reserve_from_document

    return reserve_from_document(document, grid=_layout())


def _score(document: Any, *, goals: Any = None, goal12: str | None = None) -> dict[str, Any]:
    from scoring.nimalia import api

    chosen = list(goals) if goals else list(_rules().goals)
    return {"game": ID, **api.score_reserve(document, chosen, goal12=goal12)}


def _describe(document: Any) -> dict[str, str]:
    goals = document.get("goals") if isinstance(document, dict) else None
    return {"Goals": ", ".join(str(g) for g in goals)} if isinstance(goals, list) else {}


GAME = Game(
    id=ID,
    name="Nimalia",
    icon="🦦",
    empty_label=".",
    layout=_layout,
    cell_labels=_labels,
    rules=_rules,
    parse_document=_parse,
    score_document=_score,
    score_game="service.nimalia.game:score",  # the app's game document, as stored
    reader="vision.nimalia.reader:read_reserve",
    cli_modules=("reptile_tank.commands.nimalia",),  # nimalia score, score-game, goals, read
    pages=(Page("nimalia/page.py", "Nimalia", "🦦", "nimalia"),),
    describe_game=_describe,
    deck_setting="nimalia_deck",
    # an earlier release kept Nimalia's games apart in these (schema version 4 folds them in)
    legacy_tables=("nimalia_games", "nimalia_game_players", "nimalia_drafts"),
)
