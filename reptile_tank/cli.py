"""The ``reptile-tank`` console script: the same pipeline as the app, for scripts and benchmarks.

The commands come from the game list (:mod:`games`): each game names the modules of its
commands (``Game.cli_modules``), each exposing ``register(subparsers)``; the module adds its
parser and sets ``func`` (a callable taking the parsed ``argparse.Namespace`` and returning an
exit code).

User errors (bad files, unknown card ids, unreadable photos, no grid found) are ``ValueError``
or ``OSError`` subclasses raised by the layers; they are printed as one line on stderr and the
process exits with status 2, never with a traceback. Set ``REPTILE_TANK_DEBUG=1`` to see the
traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys


def command_modules() -> list[str]:
    """Every registered game's CLI modules (:mod:`games`), in registration order."""
    import games

    return [name for entry in games.GAMES.values() for name in entry.cli_modules]


def build_parser() -> argparse.ArgumentParser:
    """The parser of every game's commands, built from the game list: each game's
    ``cli_modules`` add theirs; a game that brings no commands gets the generic
    ``<game id> score DOCUMENT`` (:mod:`reptile_tank.commands.documents`)."""
    import games
    from reptile_tank.commands import documents

    parser = argparse.ArgumentParser(
        prog="reptile-tank",
        description="Score card-game tables from photos or documents: "
        + ", ".join(g.name for g in games.GAMES.values())
        + ".",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for entry in games.GAMES.values():
        for name in entry.cli_modules:
            importlib.import_module(name).register(subparsers)
        if not entry.cli_modules and entry.id not in subparsers.choices:
            documents.register_game(subparsers, entry)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe (``| head``) surfaces here, inside the try
        return code
    except BrokenPipeError:
        # The reader went away (``reptile-tank ... | head``): quiet, like other Unix tools.
        # Point stdout at /dev/null so the interpreter's final flush does not complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141  # 128 + SIGPIPE, what a shell reports for a tool killed by the signal
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError, KeyError) as error:
        if os.environ.get("REPTILE_TANK_DEBUG"):
            raise
        message = str(error) if not isinstance(error, KeyError) else f"unknown key {error}"
        print(error_line(message), file=sys.stderr)
        return 2


def error_line(message: str) -> str:
    """The one stderr line of a refusal: control characters escaped, length bounded.

    Messages quote file names and document values; a newline or an ESC sequence in one must
    neither forge a second line nor reach the terminal (see :mod:`reptile_tank.terminal`).
    """
    from reptile_tank.terminal import MAX_ERROR_CHARS, plain

    prefix = "reptile-tank: error: "
    return prefix + plain(message, MAX_ERROR_CHARS - len(prefix))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
