"""``nimalia score``, ``nimalia score-game``, ``nimalia goals``: score Nimalia reserves.

Documents (``docs/nimalia.md``):

* a reserve: ``{"placements": [{"card": 36, "row": 0, "col": 1, "turn": 90}, ...]}`` in
  placement order, or ``{"squares": [["W:cro", "S:ott/", "."], ...]}``;
* a game: ``{"goals": [b, g, y, r], "players": [{"name": "Ann", "rounds": [RESERVE, ...]}]}``.

Every bad document (unreadable, bad JSON, unknown key, unknown card or square, illegal
placement, illegal goal set) raises ``ValueError`` with one line; ``reptile_tank.cli`` prints it
and exits with status 2. The scoring itself is :mod:`scoring.nimalia.api`.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from common import safe_io
from reptile_tank.terminal import plain
from scoring.nimalia import api
from scoring.nimalia.cards import ANIMAL_PLURALS
from scoring.nimalia.rules import GOAL12_MODES, TIEBREAK_SCOPES, load_rules


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``nimalia`` with its sub-commands ``score``, ``score-game`` and ``goals``."""
    parser = subparsers.add_parser("nimalia", help="score Nimalia reserves and games")
    inner = parser.add_subparsers(dest="nimalia_command", metavar="SUBCOMMAND")
    inner.required = True

    score = inner.add_parser("score", help="score one reserve on the listed goals")
    score.add_argument("reserve", help="reserve JSON file ('-' for stdin)")
    score.add_argument("--goals", required=True, help="goal numbers, e.g. 1,7,12,16")
    _common(score)
    score.set_defaults(func=run_score)

    game = inner.add_parser(
        "score-game", help="score a game: rounds, running totals, ranking with the tie-break"
    )
    game.add_argument("game", help='game JSON: {"goals": [b, g, y, r], "players": [...]}')
    game.add_argument(
        "--tiebreak",
        choices=TIEBREAK_SCOPES,
        default=None,
        help="whose ties the most-animals rule breaks: the adaptation's (default: players "
        "with the best total) or every_place",
    )
    _common(game)
    game.set_defaults(func=run_score_game)

    goals = inner.add_parser("goals", help="draw a legal set of 4 goals")
    goals.add_argument("--level", choices=("easy", "difficult", "random"), default="random")
    goals.add_argument("--seed", type=int, required=True, help="random seed (same seed, same set)")
    goals.add_argument("--json", action="store_true", help="print JSON instead of text")
    goals.set_defaults(func=run_goals)

    from reptile_tank.commands import nimalia_photo  # read, enroll; score takes a photo too

    nimalia_photo.register(inner)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--goal12",
        choices=GOAL12_MODES,
        default=None,
        help="goal 12: the printed rule (default) or the adaptation's frame-column-6 reading",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def _read(path: str) -> Any:
    return safe_io.load_json_file(path, what="JSON file")


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2))


def format_squares(rows: list[list[str]]) -> str:
    """The visible squares as a table with 1-based row and column numbers."""
    width = 7
    lines = [("    " + "".join(f"{c + 1:<{width}}" for c in range(len(rows[0])))).rstrip()]
    for r, row in enumerate(rows):
        lines.append(f"{r + 1:<4}" + "".join(f"{t:<{width}}" for t in row).rstrip())
    return "\n".join(lines)


def format_reserve_result(result: dict[str, Any]) -> str:
    rules = load_rules()
    out = ["Reserve (row, column from 1):", format_squares(result["squares"]), ""]
    for goal in result["goals"]:
        g = rules.goals[goal["goal"]]
        out.append(f"Goal {g.id:>2} ({g.colour}) {g.name}: {goal['points']}")
        shown = [line for line in goal["lines"] if line["points"]]
        for line in shown:
            out.append(f"  {line['points']:+d}  {line['reason']}")
        if not shown:
            out.append(f"   0  {goal['reason']}")
    for pending in result["relative"]:
        g = rules.goals[pending["goal"]]
        values = ", ".join(f"{v['what']} {v['value']}" for v in pending["values"])
        out.append(
            f"Goal {g.id:>2} ({g.colour}) {g.name}: pending, compares players ({values} here)"
        )
    out.append(f"Total of the scored goals: {result['total']}")
    return "\n".join(out)


def format_game_result(result: dict[str, Any]) -> str:
    rules = load_rules()
    players = result["players"]
    names = [plain(p["name"], 40) for p in players]
    width = max(8, *(len(n) + 2 for n in names))
    goals = ", ".join(
        f"{g} {rules.goals[g].name} ({rules.goals[g].colour})" for g in result["goals"]
    )
    out = [f"Goals: {goals}", ""]
    header = f"{'':<30}" + "".join(f"{n:>{width}}" for n in names)
    for index, _ in enumerate(players[0]["rounds"]):
        out.append(f"Round {index + 1}")
        out.append(header)
        for k, goal in enumerate(players[0]["rounds"][index]["goals"]):
            g = rules.goals[goal["goal"]]
            label = f"  {g.id:>2} {g.name}"[:30]
            cells = "".join(f"{p['rounds'][index]['goals'][k]['points']:>{width}}" for p in players)
            out.append(f"{label:<30}{cells}")
        totals = "".join(f"{p['rounds'][index]['total']:>{width}}" for p in players)
        out.append(f"{'  running total (floor 0)':<30}{totals}")
    out.append("")
    out.append("Ranking:")
    for p in sorted(players, key=lambda p: (p["rank"], p["name"])):
        tb = p["tiebreak"]
        note = "" if tb["counted"] else "; not counted"
        out.append(
            f"  {p['rank']}. {plain(p['name'], 100)}: {p['total']} (tie-break: {tb['count']} "
            f"{ANIMAL_PLURALS[tb['animal']]}, the most of one animal{note})"
        )
    return "\n".join(out)


def run_score(args: argparse.Namespace) -> int:
    goals = api.parse_goal_list(args.goals)
    from reptile_tank.commands import nimalia_photo

    checks: list[str] = []
    photo = nimalia_photo.is_photo(args.reserve)
    if photo:
        document, checks = nimalia_photo.reserve_from_photo(
            args.reserve, getattr(args, "pack", None)
        )
    else:
        document = _read(args.reserve)
    result = api.score_reserve(document, goals, goal12=args.goal12)
    if args.json:
        if photo:  # what the read asks to check, as `nimalia read` says it
            result = {**result, "read": {"squares": document["squares"], "check": checks}}
        _print_json(result)
    else:
        for line in checks:  # before the score: a doubtful read is checked before it counts
            print(line)
        print(format_reserve_result(result))
    return 0


def run_score_game(args: argparse.Namespace) -> int:
    result = api.score_game(_read(args.game), goal12=args.goal12, tiebreak=args.tiebreak)
    if args.json:
        _print_json(result)
    else:
        print(format_game_result(result))
    return 0


def run_goals(args: argparse.Namespace) -> int:
    result = api.choose_goals(args.level, args.seed)
    if args.json:
        _print_json(result)
    else:
        print(",".join(str(g["goal"]) for g in result["goals"]))
        for g in result["goals"]:
            print(f"  {g['goal']:>2} {g['colour']:<6} {g['name']}")
    return 0
