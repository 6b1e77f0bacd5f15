"""The user's rules file: house values for their printing, as a small TOML override file.

Only values that differ from the defaults are written; :func:`scoring.rules.load_rules`
deep-merges the file onto the defaults. Writing goes through a temporary file and a rename, so
a crash never leaves half a file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: A tier's VP is addressed as (card id, tier name); an objective's as its number.
TierKey = tuple[str, str]


def tier_values(rules: Any) -> dict[TierKey, int]:
    """Every tier's VP: ``{(card id, tier name): vp}`` (``water`` included)."""
    return {(cid, t.name): int(t.vp) for cid, rule in rules.cards.items() for t in rule.tiers}


def objective_values(rules: Any) -> dict[int, int]:
    """Every objective card's VP: ``{number: vp}``."""
    return {int(n): int(o.vp) for n, o in rules.objectives.items()}


def changed_values(defaults: Mapping[Any, int], edited: Mapping[Any, int]) -> dict[Any, int]:
    """The edited values that differ from the defaults (keys missing from ``defaults`` refused).

    Raises
    ------
    ValueError
        An unknown key or a negative VP.
    """
    out = {}
    for key, value in edited.items():
        if key not in defaults:
            raise ValueError(f"unknown rules value {key!r}")
        if int(value) < 0:
            raise ValueError(f"{key!r}: victory points cannot be negative")
        if int(value) != int(defaults[key]):
            out[key] = int(value)
    return out


def overrides_toml(tiers: Mapping[TierKey, int], objectives: Mapping[int, int]) -> str:
    """TOML text overriding the given tier and objective VP (and nothing else)."""
    lines = ["# House values for this printing, written by the Reptile Tank app.", ""]
    for (card, tier), vp in sorted(tiers.items()):
        lines += [f"[cards.{card}.tiers.{tier}]", f"vp = {int(vp)}", ""]
    for number, vp in sorted(objectives.items()):
        lines += [f"[objectives.{int(number)}]", f"vp = {int(vp)}", ""]
    return "\n".join(lines)


def save_overrides(path: Path, tiers: Mapping[TierKey, int], objectives: Mapping[int, int]) -> None:
    """Write the user's rules file atomically (removing it when nothing differs)."""
    if not tiers and not objectives:
        reset(path)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".rules-", suffix=".toml")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(overrides_toml(tiers, objectives))
    os.replace(tmp, path)


def reset(path: Path) -> None:
    """Back to the default rules: delete the user's rules file if there is one."""
    path.unlink(missing_ok=True)
