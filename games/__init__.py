"""The one registry of games: a game = layout + cell vocabulary + rules data + scorer.

Nothing here reads a file at import: each :class:`Game` holds loaders, called when a caller
asks. The app, the command line and the photo reader look a game up by id and use only this
interface, so adding a game is one entry in :data:`GAMES`.

* ``reptile_tank`` -- cells hold whole cards (rows and columns from the ``[grid]`` of
  ``scoring/reptile_tank/data/default_rules.toml``); a document is a board ``{"rows": [...]}``; the scorer
  is :mod:`scoring`.
* ``nimalia`` -- cells hold squares of 2x2-square cards (rows and columns from
  ``scoring/nimalia/data/rules.toml``); a document is a reserve (placements or squares); the scorer is
  :mod:`nimalia` (relative goals come back as pending for a single reserve).

Examples
--------
>>> game("nimalia").layout().shape
(6, 6)
>>> sorted(GAMES)
['nimalia', 'reptile_tank']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from scoring.layout import Layout


@dataclass(frozen=True)
class Game:
    """One game the companion scores.

    ``cell_labels()`` is the cell vocabulary (what a reader may put in a cell, the empty label
    included); ``score_document(document, **options)`` scores one player's table document and
    returns a JSON-able dict; ``parse_document`` checks a document and returns the game's own
    board object (``ValueError`` with one line when it is bad).
    """

    id: str
    name: str
    empty_label: str
    layout: Callable[[], Layout]
    cell_labels: Callable[[], tuple[str, ...]]
    rules: Callable[[], Any]
    parse_document: Callable[[Any], Any]
    score_document: Callable[..., dict[str, Any]]


# ------------------------------------------------------------------------------ Reptile Tank


def _rt_rules() -> Any:
    from scoring.reptile_tank.rules import load_rules

    return load_rules()


def _rt_layout() -> Layout:
    return _rt_rules().layout


def _rt_labels() -> tuple[str, ...]:
    from scoring.reptile_tank.cards import CELL_LABELS

    return CELL_LABELS


def _rt_parse(document: Any) -> Any:
    from scoring.reptile_tank.board import Board

    return Board.from_json(document, _rt_layout())


def _rt_score(document: Any, *, objectives: Any = (), rules: Any = None) -> dict[str, Any]:
    from scoring.reptile_tank.engine import score_board
    from scoring.reptile_tank.objectives import parse_objectives

    rules = rules or _rt_rules()
    board = _rt_parse(document)
    chosen = parse_objectives(objectives, rules) if objectives else ()
    pad = score_board(board, rules, objectives=chosen)
    return {"game": "reptile_tank", "board": board.to_json(), **pad.to_json()}


# ------------------------------------------------------------------------------ Nimalia


def _nim_rules() -> Any:
    from scoring.nimalia.rules import load_rules

    return load_rules()


def _nim_layout() -> Layout:
    from scoring.nimalia.cards import layout

    return layout()


def _nim_labels() -> tuple[str, ...]:
    from scoring.nimalia.cards import EMPTY, SQUARE_KINDS

    return (*SQUARE_KINDS, EMPTY)


def _nim_parse(document: Any) -> Any:
    from scoring.nimalia.reserve import reserve_from_document

    return reserve_from_document(document, grid=_nim_layout())


def _nim_score(document: Any, *, goals: Any = None, goal12: str | None = None) -> dict[str, Any]:
    from scoring.nimalia import api

    chosen = list(goals) if goals else list(_nim_rules().goals)
    return {"game": "nimalia", **api.score_reserve(document, chosen, goal12=goal12)}


GAMES: Mapping[str, Game] = MappingProxyType(
    {
        "reptile_tank": Game(
            id="reptile_tank",
            name="Reptile Tank",
            empty_label="empty",
            layout=_rt_layout,
            cell_labels=_rt_labels,
            rules=_rt_rules,
            parse_document=_rt_parse,
            score_document=_rt_score,
        ),
        "nimalia": Game(
            id="nimalia",
            name="Nimalia",
            empty_label=".",
            layout=_nim_layout,
            cell_labels=_nim_labels,
            rules=_nim_rules,
            parse_document=_nim_parse,
            score_document=_nim_score,
        ),
    }
)


def game(game_id: str) -> Game:
    """The game registered as ``game_id``; ``ValueError`` naming the known games otherwise."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise ValueError(f"unknown game {game_id!r}: one of {', '.join(sorted(GAMES))}") from None
