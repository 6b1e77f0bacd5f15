"""Reptile Tank's house rules at a game night: the night's house values (the ``house`` of its
settings, :class:`service.settings.NightSettings`) merged onto the default rules, and the
fingerprint stored with a saved game."""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any

from service.settings import NightSettings


def overrides_of(settings: NightSettings) -> dict[str, Any]:
    """The house values as the nested overrides :func:`scoring.reptile_tank.rules.load_rules`
    takes."""
    cards: dict[str, Any] = {}
    for (card, tier), vp in settings.tiers.items():
        cards.setdefault(card, {"tiers": {}})["tiers"][tier] = {"vp": int(vp)}
    out: dict[str, Any] = {}
    if cards:
        out["cards"] = cards
    if settings.objectives:
        out["objectives"] = {str(n): {"vp": int(v)} for n, v in settings.objectives.items()}
    return out


@functools.lru_cache(maxsize=64)
def _rules_cached(overrides_json: str) -> Any:
    from scoring.reptile_tank.rules import load_rules

    overrides = json.loads(overrides_json)
    return load_rules(overrides=overrides) if overrides else load_rules()


def rules_for(settings: NightSettings) -> Any:
    """The rules in force at a game night: the defaults with its house values merged on.

    Rules are frozen values, so one cached object per distinct set of house values is shared.
    """
    return _rules_cached(json.dumps(overrides_of(settings), sort_keys=True))


def rules_fingerprint(settings: NightSettings) -> tuple[str, str]:
    """``(rules_version, rules_hash)`` stored with a saved game.

    The version names the package and whether house values were in force; the hash is the
    SHA-256 of the default rules file followed by the house values' canonical JSON.
    """
    from importlib.metadata import PackageNotFoundError, version

    from scoring.reptile_tank.rules import DEFAULT_RULES_PATH

    try:
        package = version("reptile-tank")
    except PackageNotFoundError:  # pragma: no cover - the project is installed in practice
        package = "0"
    digest = hashlib.sha256(DEFAULT_RULES_PATH.read_bytes())
    if settings.has_house_rules:
        digest.update(b"\0")
        digest.update(json.dumps(overrides_of(settings), sort_keys=True).encode())
    kind = "house rules" if settings.has_house_rules else "default rules"
    return f"reptile-tank {package} ({kind})", digest.hexdigest()
