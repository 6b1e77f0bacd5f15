"""``score-grid``, ``score-game`` and ``solo``: score labelled boards (no photo).

File formats are those of ``docs/design.md``. User errors (unreadable file, bad JSON, wrong board
shape, unknown card id, unknown objective) raise :class:`InputFileError` or another
``ValueError`` subclass; ``reptile_tank.cli`` prints them as one line and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from reptile_tank import safe_io
from scoring.board import Board, BoardError
from scoring.engine import PAD_COLUMNS, ScorePad, Variant, score_board
from scoring.game import GameResult, score_game
from scoring.objectives import parse_objectives
from scoring.rules import Rules, load_rules
from scoring.solo import SoloResult, score_solo

COLUMN_TITLES = {
    "lizards": "Lizards",
    "snakes": "Snakes",
    "turtles": "Turtles",
    "cockroach": "Cockroach",
    "water": "Water",
    "dry_land": "Dry-land",
    "objectives": "Objectives",
}


class InputFileError(ValueError):
    """A board, game or solo file that cannot be read or has the wrong structure."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``score-grid``, ``score-game`` and ``solo`` sub-commands."""
    grid = subparsers.add_parser(
        "score-grid", help="score one labelled board (JSON {'rows': [...]})"
    )
    grid.add_argument("file", help="board JSON file ('-' for stdin)")
    grid.add_argument("--objectives", default=None, help="objective numbers in play, e.g. 3,11")
    grid.add_argument("--players", type=int, default=None, help="players at the table")
    grid.add_argument(
        "--stars-removed",
        action="store_true",
        help="the star cards (corn snake, brown anole, rock) were removed: warn if present",
    )
    _common(grid)
    grid.set_defaults(func=run_score_grid)

    game = subparsers.add_parser("score-game", help="score every player's board and rank them")
    game.add_argument("file", help='game JSON: {"players": [{"name", "board"}], "objectives"}')
    _common(game)
    game.set_defaults(func=run_score_game)

    solo = subparsers.add_parser("solo", help="score a solo game against the Terrarium Master")
    solo.add_argument("file", help='solo JSON: {"player", "master", "objectives"}')
    _common(solo)
    solo.set_defaults(func=run_solo)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", default=None, help="a rules TOML overriding the defaults")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


# ----------------------------------------------------------------------------- reading


def read_json(path: str) -> Any:
    """Parse a JSON file (``-``: stdin); errors become one-line :class:`InputFileError`.

    Regular files only, size and depth bounded (:mod:`reptile_tank.safe_io`): ``/dev/zero``,
    a FIFO or a 4 GB file is refused before it is read; 100 000 nested brackets, a 5000-digit
    integer and ``NaN`` are refused by the parser.
    """
    try:
        return safe_io.load_json_file(path, what="JSON file")
    except safe_io.SafeFileError as error:
        raise InputFileError(str(error)) from None


def _board(obj: Any, where: str) -> Board:
    try:
        return Board.from_json(obj)
    except BoardError as error:
        raise BoardError(f"{where}: {error}") from None


def _object(obj: Any, where: str) -> dict:
    if not isinstance(obj, dict):
        raise InputFileError(f"{where}: must be a JSON object")
    return obj


def _objectives(value: Any, path: str, rules: Rules) -> tuple[int, ...]:
    """``"objectives"`` of a game or solo file: a list of numbers (or ``"3,11"``), or absent."""
    if value is None:
        return ()
    if not isinstance(value, list | str):
        raise InputFileError(f'{path}: "objectives" must be a list of numbers like [3, 11]')
    return parse_objectives(value, rules)


def _stars_removed(obj: dict, path: str) -> bool:
    value = obj.get("star_cards_removed", False)
    if not isinstance(value, bool):
        raise InputFileError(f'{path}: "star_cards_removed" must be true or false')
    return value


def parse_game(obj: Any, path: str, rules: Rules) -> tuple[list[tuple[str, Board]], tuple]:
    """Players and objectives from a game file's JSON (``star_cards_removed``: see run)."""
    obj = _object(obj, path)
    players = obj.get("players")
    if not isinstance(players, list) or not players:
        raise InputFileError(f'{path}: "players" must be a non-empty list')
    out = []
    for k, entry in enumerate(players):
        entry = _object(entry, f"{path}: players[{k}]")
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise InputFileError(f'{path}: players[{k}]: needs a non-empty "name"')
        out.append((name, _board(entry.get("board"), f"{path}: players[{k}] ({name})")))
    return out, _objectives(obj.get("objectives"), path, rules)


def _master_cards(obj: Any, path: str, rules: Rules) -> dict:
    """The Master's card counts; a count above the deck's copies of that card is refused.

    Without the cap a count like 10**18 made the Master's grouping search recurse, allocate or
    loop without bound (RecursionError, MemoryError or a hang instead of a message).
    """
    cards = _object(obj, f'{path}: "master.cards"')
    for card_id, count in cards.items():
        rule = rules.cards.get(card_id)
        if rule is None or not isinstance(count, int) or isinstance(count, bool):
            continue  # unknown ids and non-integers: score_solo's own message
        if count > rule.copies:
            raise InputFileError(
                f'{path}: "master.cards": {card_id} count {count} is more than the deck\'s '
                f"{rule.copies} copies"
            )
    return cards


def _level(level: Any, path: str) -> Any:
    if not isinstance(level, str):
        raise InputFileError(f'{path}: "master.level" must be a string like "normal"')
    return level


def parse_solo(obj: Any, path: str, rules: Rules) -> dict[str, Any]:
    """Keyword arguments of :func:`scoring.solo.score_solo` from a solo file's JSON."""
    obj = _object(obj, path)
    player = _object(obj.get("player"), f'{path}: "player"')
    master = _object(obj.get("master"), f'{path}: "master"')
    name = player.get("name", "player")
    if not isinstance(name, str) or not name.strip():
        raise InputFileError(f'{path}: "player": needs a non-empty "name"')
    return {
        "board": _board(player.get("board"), f"{path}: player"),
        "master_cards": _master_cards(master.get("cards"), path, rules),
        "pairs": master.get("pairs"),
        "level": _level(master.get("level", "normal"), path),
        "objectives": _objectives(obj.get("objectives"), path, rules),
        "player_name": name,
        "variant": Variant(players=1, star_cards_removed=_stars_removed(obj, path)),
    }


# ----------------------------------------------------------------------------- rendering


def format_pad(pad: ScorePad, title: str = "Score pad") -> str:
    """A readable score pad: columns, total, then every scoring line and every reason."""
    lines = [title]
    for name in PAD_COLUMNS:
        lines.append(f"  {COLUMN_TITLES[name]:<11}{getattr(pad, name):>4}")
    lines.append(f"  {'Total':<11}{pad.total:>4}")
    if pad.groups:
        lines.append("Scoring groups")
        for g in pad.groups:
            cells = " ".join(f"({r},{c})" for r, c in g.cells)
            lines.append(f"  +{g.vp:<3} {g.column:<10} {g.card_type} [{g.tier}] {cells}")
            lines.append(f"        {g.reason}")
    for heading, items in (
        ("Not scoring", pad.non_scoring),
        ("Pending", pad.pending),
        ("Warnings", pad.warnings),
    ):
        if items:
            lines.append(heading)
            lines += [f"  - {item}" for item in items]
    lines.append(f"3-card sets: {pad.three_card_sets}   dry-land cards: {pad.dry_land_cards}")
    return "\n".join(lines)


def format_game(result: GameResult) -> str:
    """All pads side by side, the ranking, then each player's explanation."""
    names = [p.name for p in result.players]
    width = max(8, *(len(n) + 1 for n in names))
    lines = [" " * 12 + "".join(f"{n:>{width}}" for n in names)]
    for column in PAD_COLUMNS:
        values = "".join(f"{getattr(p.pad, column):>{width}}" for p in result.players)
        lines.append(f"{COLUMN_TITLES[column]:<12}{values}")
    lines.append(f"{'Total':<12}" + "".join(f"{p.pad.total:>{width}}" for p in result.players))
    lines.append("Ranking")
    for p in result.ranking:
        lines.append(
            f"  {p.rank}. {p.name} {p.pad.total} VP ({p.decided_by}; "
            f"3-card sets {p.pad.three_card_sets}, dry-land cards {p.pad.dry_land_cards})"
        )
    for p in result.players:
        lines += ["", format_pad(p.pad, title=f"{p.name}")]
    return "\n".join(lines)


def format_solo(result: SoloResult) -> str:
    lines = [
        format_pad(result.player, title=f"{result.player_name}"),
        "",
        format_pad(result.master, title=f"Terrarium Master ({result.level})"),
    ]
    if result.master_pairs:
        pairs = ", ".join(f"{a} + {b}" for a, b in result.master_pairs)
        proposed = " (proposed)" if result.pairs_proposed else ""
        lines.append(f"Master pairs{proposed}: {pairs}")
    winner = {"player": result.player_name, "master": "the Terrarium Master", "tie": "nobody"}
    lines.append(
        f"Winner: {winner[result.winner]} ({result.player.total} vs {result.master.total})"
    )
    return "\n".join(lines)


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2))


# ----------------------------------------------------------------------------- commands


def run_score_grid(args: argparse.Namespace) -> int:
    rules = load_rules(args.rules)
    board = _board(read_json(args.file), args.file)
    objectives = parse_objectives(args.objectives, rules)
    variant = Variant(players=args.players, star_cards_removed=args.stars_removed)
    pad = score_board(board, rules, objectives=objectives, variant=variant)
    if args.json:
        _print_json({"board": board.to_json(), **pad.to_json()})
    else:
        print(format_pad(pad))
    return 0


def run_score_game(args: argparse.Namespace) -> int:
    rules = load_rules(args.rules)
    data = read_json(args.file)
    players, objectives = parse_game(data, args.file, rules)
    variant = Variant(players=len(players), star_cards_removed=_stars_removed(data, args.file))
    result = score_game(players, rules, objectives=objectives, variant=variant)
    if args.json:
        _print_json(result.to_json())
    else:
        print(format_game(result))
    return 0


def run_solo(args: argparse.Namespace) -> int:
    rules = load_rules(args.rules)
    kwargs = parse_solo(read_json(args.file), args.file, rules)
    result = score_solo(rules=rules, **kwargs)
    if args.json:
        out = result.to_json()
        out["player"]["board"] = kwargs["board"].to_json()
        _print_json(out)
    else:
        print(format_solo(result))
    return 0
