"""No shared module names a game (issue 30): outside a game's own folders and ``games/``, no
module spells a game id as a string or names a game's folder (``scoring.nimalia``,
``ui/reptile_tank/...``). Shared layers find games through the game list only.

A game's own files: ``<layer>/<game id>/`` for every layer, the CLI modules its entry lists
(``Game.cli_modules``) and ``reptile_tank/commands/<game id>_*.py`` (their helpers). The
benchmark, training and data tools (``scripts/``, ``models/``, ``datasets/``) are per-game
tools outside the layers and are not checked. :data:`KNOWN` lists the shared modules that still
name a game, each with why; the test fails when one of them stops (shorten the list) or when a
module not listed starts.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import games

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("common", "leaderboard", "reptile_tank", "scoring", "service", "ui", "vision")
TOP_FILES = ("app.py",)

#: Shared modules that still name a game, and why (each one is work left of issue 30).
KNOWN: dict[str, str] = {}


def _own_files() -> set[str]:
    own = set()
    for entry in games.GAMES.values():
        for name in entry.cli_modules:
            own.add(name.replace(".", "/") + ".py")
        for path in (ROOT / "reptile_tank" / "commands").glob(f"{entry.id}_*.py"):
            own.add(path.relative_to(ROOT).as_posix())
    return own


def _is_game_folder(rel: str) -> bool:
    parts = rel.split("/")
    return parts[0] in LAYERS and any(p in games.GAMES for p in parts[1:-1])


def _pattern() -> re.Pattern[str]:
    ids = "|".join(sorted(map(re.escape, games.GAMES)))
    layers = "|".join(LAYERS)
    return re.compile(rf"""["']({ids})["']|\b({layers})[./]({ids})\b""")


def shared_modules() -> list[str]:
    found = [
        p.relative_to(ROOT).as_posix() for layer in LAYERS for p in (ROOT / layer).rglob("*.py")
    ] + [f for f in TOP_FILES if (ROOT / f).exists()]
    own = _own_files()
    return sorted(f for f in found if f not in own and not _is_game_folder(f))


@functools.cache
def offenders() -> dict[str, list[str]]:
    pattern = _pattern()
    out = {}
    for rel in shared_modules():
        text = (ROOT / rel).read_text(encoding="utf-8")
        hits = sorted({m.group(0) for m in pattern.finditer(text)})
        if hits:
            out[rel] = hits
    return out


def test_no_shared_module_names_a_game():
    found = offenders()
    new = {f: hits for f, hits in found.items() if f not in KNOWN}
    assert not new, f"shared modules naming a game (use the game list, games/): {new}"


def test_the_known_list_is_no_longer_than_it_must_be():
    found = offenders()
    stale = sorted(f for f in KNOWN if f not in found)
    assert not stale, f"these no longer name a game: drop them from KNOWN: {stale}"


def test_the_grep_sees_a_game_named_in_a_shared_module(tmp_path):
    pattern = _pattern()
    assert pattern.search('if kind == "nimalia":')
    assert pattern.search("from scoring.reptile_tank.rules import load_rules")
    assert pattern.search("ui/nimalia/page.py")
    assert not pattern.search("import games  # the one list")


def test_the_shared_modules_built_from_the_list_are_checked():
    shared = shared_modules()
    for module in (
        "app.py",
        "ui/state.py",
        "ui/persist.py",
        "ui/backend.py",
        "ui/kit.py",
        "reptile_tank/cli.py",
        "ui/navigation.py",
        "ui/pages/leaderboard.py",
        "ui/played.py",
        "service/settings.py",
        "service/played.py",
        "leaderboard/played.py",
        "leaderboard/store.py",
        "leaderboard/drafts.py",
    ):
        assert module in shared and module not in KNOWN
