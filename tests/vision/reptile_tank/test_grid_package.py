"""The grid package's stages share public names only: no module of ``vision.reptile_tank.grid``
(nor ``vision.reptile_tank.enrol``) imports an ``_underscore`` name from a sibling module."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
GRID = ROOT / "vision" / "reptile_tank" / "grid"


def private_imports(source: str) -> list[str]:
    """``module.name`` for every private name imported from the grid package in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "vision.reptile_tank.grid"
        ):
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
    return found


def test_the_check_sees_a_private_import():
    source = "from vision.reptile_tank.grid.model import GridFit, _hidden\n"
    assert private_imports(source) == ["vision.reptile_tank.grid.model._hidden"]


def test_no_stage_imports_a_siblings_private_name():
    modules = [*sorted(GRID.glob("*.py")), ROOT / "vision" / "reptile_tank" / "enrol.py"]
    assert len(modules) >= 8
    offenders = {
        p.relative_to(ROOT).as_posix(): bad
        for p in modules
        if (bad := private_imports(p.read_text(encoding="utf-8")))
    }
    assert not offenders, offenders
