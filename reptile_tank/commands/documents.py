"""``<game id> score DOCUMENT``: the generic command of a game that brings no command group of
its own (a new game gets it from its entry in :mod:`games`, with no CLI code).

``score`` reads a JSON document (a file, or ``-`` for standard input) and prints the game's
result as JSON: a player's document through ``Game.score_document``; with ``--game``, a whole
game document through ``Game.score_game``. A bad document is one ``ValueError`` line (status 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import games
from common import safe_io


def register_game(subparsers: argparse._SubParsersAction, entry: games.Game) -> None:
    """Add ``<entry.id> score DOCUMENT [--game]``."""
    parser = subparsers.add_parser(entry.id, help=f"score {entry.name} documents")
    inner = parser.add_subparsers(dest=f"{entry.id}_command", metavar="SUBCOMMAND")
    inner.required = True
    score = inner.add_parser("score", help=f"score a {entry.name} document (JSON) and print JSON")
    score.add_argument("document", help="JSON file, or - for standard input")
    score.add_argument(
        "--game", action="store_true", help="the document is a whole game (every player)"
    )
    score.set_defaults(func=lambda args: run_score(entry.id, args))


def read_document(path: str) -> Any:
    if path == "-":
        text = sys.stdin.read(safe_io.MAX_DOCUMENT_BYTES + 1)
        if len(text) > safe_io.MAX_DOCUMENT_BYTES:
            raise ValueError("standard input: the document is too large")
        return safe_io.parse_json(text, where="standard input")
    return safe_io.load_json_file(path, what="JSON file")


def run_score(game_id: str, args: argparse.Namespace) -> int:
    entry = games.game(game_id)
    document = read_document(args.document)
    if args.game:
        if entry.score_game is None:
            raise ValueError(f"{entry.name} has no whole-game scorer")
        result = games.resolve(entry.score_game)(document)
    else:
        entry.parse_document(document)  # the codec's check first: one clear line when bad
        result = entry.score_document(document)
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0
