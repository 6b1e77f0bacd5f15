"""``score-grid``, ``score-game`` and ``solo``: score labelled boards (no photo).

File formats are those of ``docs/design.md``. User errors (unreadable file, bad JSON, wrong board
shape, unknown card id, unknown objective) raise :class:`InputFileError` or another
``ValueError`` subclass; ``reptile_tank.cli`` prints them as one line and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from common import safe_io
from scoring.reptile_tank.board import Board, BoardError
from scoring.reptile_tank.documents import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    SCHEMAS,
    check_name,
    check_player_count,
)
from scoring.reptile_tank.engine import ScorePad, Variant, score_board
from scoring.reptile_tank.game import GameResult, score_game
from scoring.reptile_tank.objectives import parse_objectives
from scoring.reptile_tank.rules import Rules, load_rules
from scoring.reptile_tank.solo import SoloResult, score_solo

#: The mark of a line that rests on an assumed value, and its legend.
ASSUMED_MARK = "\u2020"
ASSUMED_LEGEND = "assumed value \u2014 see Rules (docs/rules.md; change it with --rules FILE)"


class InputFileError(ValueError):
    """A board, game or solo file that cannot be read or has the wrong structure."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``score-grid``, ``score-game`` and ``solo`` sub-commands."""
    grid = subparsers.add_parser(
        "score-grid", help="score one labelled board (JSON {'rows': [...]})"
    )
    grid.add_argument("file", help="board JSON file ('-' for stdin)")
    grid.add_argument("--objectives", default=None, help="objective numbers in play, e.g. 3,11")
    grid.add_argument(
        "--players",
        type=int,
        default=None,
        help=f"players at the table ({MIN_PLAYERS}-{MAX_PLAYERS})",
    )
    grid.add_argument(
        "--stars-removed",
        action="store_true",
        help="the star cards (the rules data's star flags) were removed: warn if present",
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

    Regular files only, size and depth bounded (:mod:`common.safe_io`): ``/dev/zero``,
    a FIFO or a 4 GB file is refused before it is read; 100 000 nested brackets, a 5000-digit
    integer and ``NaN`` are refused by the parser. A UTF-8 byte order mark is accepted.
    """
    try:
        return safe_io.load_json_file(path, what="JSON file")
    except safe_io.SafeFileError as error:
        raise InputFileError(str(error)) from None


def _board(obj: Any, where: str, rules: Rules | None = None) -> Board:
    """A board document (``{"rows": [...]}``, no other key) in the rules' layout."""
    try:
        SCHEMAS["board"].check(obj, where)
        return Board.from_json(obj, rules.layout if rules is not None else None)
    except BoardError as error:
        raise BoardError(f"{where}: {error}") from None


def _objectives(value: Any, path: str, rules: Rules) -> tuple[int, ...]:
    """``"objectives"`` of a game or solo file: a list of numbers (or ``"3,11"``), or absent."""
    if value is None:
        return ()
    if not isinstance(value, list | str):
        raise InputFileError(f'{path}: "objectives" must be a list of numbers like [3, 11]')
    return parse_objectives(value, rules)


def _stars_removed(obj: dict, path: str) -> bool:
    value = obj.get("star_cards_removed", False) if isinstance(obj, dict) else False
    if not isinstance(value, bool):
        raise InputFileError(f'{path}: "star_cards_removed" must be true or false')
    return value


def parse_game(obj: Any, path: str, rules: Rules) -> tuple[list[tuple[str, Board]], tuple]:
    """Players and objectives from a game file's JSON (``star_cards_removed``: see run)."""
    obj = SCHEMAS["game"].check(obj, path)
    players = obj["players"]
    check_player_count(len(players), path)
    out = []
    for k, entry in enumerate(players):
        where = f"{path}: players[{k}]"
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            where += f" ({check_name(entry['name'], where)})"
        entry = SCHEMAS["player"].check(entry, where)
        name = check_name(entry["name"], where)
        out.append((name, _board(entry["board"], where, rules)))
    return out, _objectives(obj.get("objectives"), path, rules)


def parse_solo(obj: Any, path: str, rules: Rules) -> dict[str, Any]:
    """Keyword arguments of :func:`scoring.reptile_tank.solo.score_solo` from a solo file's JSON."""
    obj = SCHEMAS["solo"].check(obj, path)
    player = SCHEMAS["solo player"].check(obj["player"], f'{path}: "player"')
    master = SCHEMAS["master"].check(obj["master"], f'{path}: "master"')
    name = check_name(player.get("name", "player"), f'{path}: "player"')
    return {
        "board": _board(player["board"], f"{path}: player", rules),
        # counts are bounded by score_solo (the deck's copies, 20 cards in all) before any search
        "master_cards": master["cards"],
        "pairs": master.get("pairs"),
        "level": master.get("level", "normal"),
        "objectives": _objectives(obj.get("objectives"), path, rules),
        "player_name": name,
        "variant": Variant(players=1, star_cards_removed=_stars_removed(obj, path)),
    }


# ----------------------------------------------------------------------------- rendering


def _plain_text(text: Any, width: int | None = None) -> str:
    """User text for a terminal: control characters (escapes, line breaks) shown escaped; the
    zero-width (non-)joiners of Persian and Indic names and emoji families kept."""
    text = "".join(
        ch if ch.isprintable() or ch in "\u200c\u200d" else repr(ch)[1:-1] for ch in str(text)
    )
    return text if width is None or len(text) <= width else text[: width - 1] + "\u2026"


def edition_line(pad: ScorePad) -> str:
    """Which printing the rules describe (``[edition]`` of the rules data), or ``""``."""
    edition = pad.edition
    if not edition:
        return ""
    parts = [edition.get("name", "")]
    if edition.get("version"):
        parts.append(f"({edition['version']})")
    line = "Rules: " + " ".join(p for p in parts if p)
    if edition.get("source"):
        line += f"; source: {edition['source']}"
    return _plain_text(line, 200)


def format_pad(pad: ScorePad, title: str = "Score pad") -> str:
    """A readable score pad: columns, total, then every scoring line and every reason.

    Lines resting on an assumed value are marked with a dagger and the totals say how many VP
    rest on assumptions.
    """
    lines = [_plain_text(title, 100)]
    edition = edition_line(pad)
    if edition:
        lines.append(f"  {edition}")
    for name, heading in pad.headings.items():
        assumed = sum(g.vp for g in pad.groups if g.column == name and g.assumed)
        mark = f"  ({assumed} VP {ASSUMED_MARK})" if assumed else ""
        lines.append(f"  {heading:<11}{pad.columns[name]:>4}{mark}")
    lines.append(f"  {'Total':<11}{pad.total:>4}")
    if pad.assumed_vp:
        lines.append(
            f"  {pad.assumed_vp} of {pad.total} VP rest on assumed values "
            f"({ASSUMED_MARK} {ASSUMED_LEGEND})"
        )
    if pad.groups:
        lines.append("Scoring lines")
        for g in pad.groups:
            mark = ASSUMED_MARK if g.assumed else " "
            lines.append(
                f"  +{g.vp:<3}{mark} {pad.headings.get(g.column, g.column):<11} {g.reason}"
            )
            if g.assumed:
                keys = ", ".join(key for key, prov in g.uses if prov == "assumed")
                lines.append(f"        {ASSUMED_MARK} assumed: {keys}")
    for heading, items in (
        ("Not scoring", [line.reason for line in pad.non_scoring]),
        ("Objectives not met", [f.reason for f in pad.failed]),
        ("Pending", pad.pending),
        ("Warnings", pad.warnings),
    ):
        if items:
            lines.append(heading)
            lines += [f"  - {item}" for item in items]
    lines.append(f"3-card sets: {pad.three_card_sets}   dry-land cards: {pad.dry_land_cards}")
    return "\n".join(lines)


#: Widest player name in the side-by-side table (longer names are cut there, never elsewhere).
NAME_COLUMN_CHARS = 24


def format_game(result: GameResult) -> str:
    """All pads side by side, the ranking, then each player's explanation."""
    names = [_plain_text(p.name, NAME_COLUMN_CHARS) for p in result.players]
    width = max(8, *(len(n) + 1 for n in names))
    first = result.players[0].pad
    lines = []
    edition = edition_line(first)
    if edition:
        lines.append(edition)
    lines.append(" " * 12 + "".join(f"{n:>{width}}" for n in names))
    for column, heading in first.headings.items():
        values = "".join(f"{p.pad.columns[column]:>{width}}" for p in result.players)
        lines.append(f"{heading:<12}{values}")
    lines.append(f"{'Total':<12}" + "".join(f"{p.pad.total:>{width}}" for p in result.players))
    assumed = "".join(
        f"{(str(p.pad.assumed_vp) + ASSUMED_MARK) if p.pad.assumed_vp else '0':>{width}}"
        for p in result.players
    )
    lines.append(f"{'assumed VP':<12}{assumed}")
    lines.append("Ranking")
    for p in result.ranking:
        lines.append(
            f"  {p.rank}. {_plain_text(p.name, 100)} {p.pad.total} VP ({p.decided_by}; "
            f"3-card sets {p.pad.three_card_sets}, dry-land cards {p.pad.dry_land_cards}; "
            f"{p.pad.assumed_vp} VP on assumed values)"
        )
    for p in result.players:
        lines += ["", format_pad(p.pad, title=p.name)]
    return "\n".join(lines)


def format_solo(result: SoloResult) -> str:
    lines = [
        format_pad(result.player, title=result.player_name),
        "",
        format_pad(result.master, title=f"Terrarium Master ({result.level})"),
    ]
    if result.master_pairs:
        names = result.card_names
        pairs = ", ".join(f"{names.get(a, a)} + {names.get(b, b)}" for a, b in result.master_pairs)
        proposed = " (proposed)" if result.pairs_proposed else ""
        lines.append(f"Master pairs{proposed}: {pairs}")
    winner = {
        "player": _plain_text(result.player_name, 100),
        "master": "the Terrarium Master",
        "tie": "nobody",
    }
    lines.append(
        f"Winner: {winner[result.winner]} ({result.player.total} vs {result.master.total}; "
        f"assumed VP {result.player.assumed_vp} vs {result.master.assumed_vp})"
    )
    return "\n".join(lines)


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2))


# ----------------------------------------------------------------------------- commands


def run_score_grid(args: argparse.Namespace) -> int:
    rules = load_rules(args.rules)
    board = _board(read_json(args.file), args.file, rules)
    objectives = parse_objectives(args.objectives, rules)
    if args.players is not None and not MIN_PLAYERS <= args.players <= MAX_PLAYERS:
        raise InputFileError(
            f"--players {args.players}: a game has {MIN_PLAYERS} to {MAX_PLAYERS} players"
        )
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
