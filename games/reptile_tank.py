"""Reptile Tank's entry in the game list: every plug-in of the game, named in one place.

Cells hold whole cards (rows and columns from the ``[grid]`` of
``scoring/reptile_tank/data/default_rules.toml``); a document is a board ``{"rows": [...]}``;
the scorer is :mod:`scoring.reptile_tank.engine`. Reptile Tank's saved games keep their own
record shape (:class:`leaderboard.records.GameRecord`: boards and score pads per seat, solo
games, house-rule fingerprints), so its standings views are its own.
"""

from __future__ import annotations

from typing import Any

from games import Game, LeaderboardView, Page
from scoring.layout import Layout

ID = "reptile_tank"


def _rules() -> Any:
    from scoring.reptile_tank.rules import load_rules

    return load_rules()


def _layout() -> Layout:
    return _rules().layout


def _labels() -> tuple[str, ...]:
    from scoring.reptile_tank.cards import CELL_LABELS

    return CELL_LABELS


def _parse(document: Any) -> Any:
    from scoring.reptile_tank.board import Board

    return Board.from_json(document, _layout())


def _score(document: Any, *, objectives: Any = (), rules: Any = None) -> dict[str, Any]:
    from scoring.reptile_tank.engine import score_board
    from scoring.reptile_tank.objectives import parse_objectives

    rules = rules or _rules()
    board = _parse(document)
    chosen = parse_objectives(objectives, rules) if objectives else ()
    pad = score_board(board, rules, objectives=chosen)
    return {"game": ID, "board": board.to_json(), **pad.to_json()}


_BOARD = "ui.reptile_tank.leaderboard"

GAME = Game(
    id=ID,
    name="Reptile Tank",
    icon="🦎",
    empty_label="empty",
    layout=_layout,
    cell_labels=_labels,
    rules=_rules,
    parse_document=_parse,
    score_document=_score,
    reader="service.reptile_tank.reading:read_photo",
    cli_modules=(
        "reptile_tank.commands.score_grid",  # score-grid, score-game, solo
        "reptile_tank.commands.synth",  # synth, deck export, deck pdf
        "reptile_tank.commands.photo",  # score, enroll
        "reptile_tank.commands.bench",  # bench
        "reptile_tank.commands.train",  # train (needs the `train` extra)
    ),
    pages=(
        Page("reptile_tank/pages/setup.py", "Game setup", "🎲", "setup"),
        Page("reptile_tank/pages/photo.py", "Photograph", "📷", "photo"),
        Page("reptile_tank/pages/check.py", "Check the read", "🔎", "check", wide=True),
        Page("reptile_tank/pages/pad.py", "Score pad", "🧮", "pad"),
        Page("reptile_tank/pages/confirm.py", "Confirm & save", "✅", "confirm"),
        Page(
            "reptile_tank/pages/players.py", "Players & history", "👤", "players", section="Results"
        ),
        Page("reptile_tank/pages/solo.py", "Solo vs the Master", "🧑‍🔬", "solo", section="More"),
        Page("reptile_tank/pages/rules.py", "Rules", "📜", "rules", section="More"),
        Page("reptile_tank/pages/deck.py", "My deck", "🃏", "deck", section="More"),
    ),
    leaderboard=(
        LeaderboardView("multi", "Table games", f"{_BOARD}:table_standings_ui"),
        LeaderboardView("solo", "Solo vs the Master", f"{_BOARD}:solo_standings_ui"),
    ),
    deck_setting="deck",
    import_check="service.reptile_tank.import_check:check_game",
    app_session="ui.reptile_tank.persist:APP_SESSION",
    first_game=True,  # the first release's game: storage's GameRecord rows are its games
)
