"""No import runs from a lower layer to a higher one (issue 30): common <- scoring, leaderboard
<- games <- vision <- service <- the CLI (``reptile_tank``) and the app (``ui``, ``app.py``).
Every ``import`` statement counts, at module level or inside a function (a lazy import is
still a dependency); a ``"module:attribute"`` string in the game list is not an import.
:data:`KNOWN` lists the upward imports that remain, each with why."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Rank of each top-level package: a module may import only its own rank or lower ranks.
RANK = {
    "common": 0,
    "scoring": 1,
    "leaderboard": 1,
    "games": 2,
    "vision": 3,
    "service": 4,
    "reptile_tank": 5,  # the CLI
    "ui": 5,  # the app
    "app": 6,
}
#: Peers kept apart: the CLI and the app never import each other; storage keeps documents
#: opaque and never imports the scorers.
PEERS_APART = {("reptile_tank", "ui"), ("ui", "reptile_tank"), ("leaderboard", "scoring")}

#: ``(importer, imported)`` edges still running the wrong way, and why.
KNOWN: dict[tuple[str, str], str] = {}


def _layer(module: str) -> str:
    return module.split(".", 1)[0]


@functools.cache
def edges() -> list[tuple[str, str]]:
    found = []
    files = [p for pkg in RANK if (ROOT / pkg).is_dir() for p in (ROOT / pkg).rglob("*.py")]
    files.append(ROOT / "app.py")
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [(rel, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.append((rel, node.module))
    return found


def is_upward(rel: str, module: str) -> bool:
    here = "app" if rel == "app.py" else rel.split("/", 1)[0]
    there = _layer(module)
    if there not in RANK:
        return False  # the standard library or a third-party package
    return RANK[there] > RANK[here] or (here, there) in PEERS_APART


def upward() -> list[tuple[str, str]]:
    return sorted({(rel, module) for rel, module in edges() if is_upward(rel, module)})


def test_no_import_runs_upward():
    new = [edge for edge in upward() if edge not in KNOWN]
    assert not new, f"imports from a lower layer to a higher one: {new}"


def test_the_known_list_is_no_longer_than_it_must_be():
    stale = sorted(set(KNOWN) - set(upward()))
    assert not stale, f"drop from KNOWN: {stale}"


#: Imports from one game's folders into another game's, and why.
KNOWN_SIDEWAYS: dict[tuple[str, str], str] = {}


def _game_of(path_or_module: str) -> str | None:
    import games

    parts = path_or_module.removesuffix(".py").replace("/", ".").split(".")
    for part in parts[1:]:
        if part in games.GAMES:
            return part
    return None


def sideways() -> list[tuple[str, str]]:
    """Imports from a game's folders into another game's folders."""
    out = set()
    for rel, module in edges():
        if rel.startswith("reptile_tank/") or _layer(module) == "reptile_tank":
            continue  # the CLI package shares its name with a game; its modules are per game
        mine, theirs = _game_of(rel), _game_of(module)
        if mine and theirs and mine != theirs:
            out.add((rel, module))
    return sorted(out)


def test_no_game_imports_another_games_folders():
    new = [edge for edge in sideways() if edge not in KNOWN_SIDEWAYS]
    assert not new, f"a game's module imports another game's: {new}"
    stale = sorted(set(KNOWN_SIDEWAYS) - set(sideways()))
    assert not stale, f"drop from KNOWN_SIDEWAYS: {stale}"


def test_the_check_sees_an_upward_import():
    assert is_upward("vision/loading.py", "reptile_tank.terminal")
    assert is_upward("scoring/nimalia/rules.py", "vision.geometry")
    assert is_upward("games/__init__.py", "ui.played")
    assert is_upward("ui/x.py", "reptile_tank.cli")
    assert not is_upward("ui/x.py", "service.played")
    assert not is_upward("service/played.py", "games")
    assert not is_upward("vision/x.py", "numpy")
    assert ("reptile_tank/cli.py", "games") in edges()  # lazy imports are seen
