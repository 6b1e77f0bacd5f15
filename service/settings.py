"""A game night's settings: which game, house rules, which deck. They belong to the night.

The settings are one small JSON document per game night (stored by
:class:`leaderboard.drafts.DraftStore`)::

    {"game": "reptile_tank",
     "house": {"tiers": [["rock", "basic", 3]], "objectives": [[3, 5]]},
     "deck": "bundled", "nimalia_deck": "bundled"}

``house`` holds only the values that differ from the default rules; :func:`rules_for` merges
them onto the defaults. ``deck`` is ``"bundled"`` (the stand-in deck's gallery) or
``"enrolled"`` (the night's own enrolled pack); ``nimalia_deck`` is the same choice for
Nimalia's reader (the stand-in deck, or the night's enrolled Nimalia pack).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: Games a night can play.
GAMES = {"reptile_tank": "Reptile Tank", "nimalia": "Nimalia"}
DECKS = ("bundled", "enrolled")
#: Largest VP a house value may take.
MAX_HOUSE_VP = 99

TierKey = tuple[str, str]


@dataclass(frozen=True)
class NightSettings:
    """A game night's settings (defaults when the night never changed them)."""

    game: str = "reptile_tank"
    tiers: Mapping[TierKey, int] = field(default_factory=dict)
    objectives: Mapping[int, int] = field(default_factory=dict)
    deck: str = "bundled"
    nimalia_deck: str = "bundled"

    @property
    def has_house_rules(self) -> bool:
        return bool(self.tiers or self.objectives)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "house": {
                "tiers": [[c, t, int(v)] for (c, t), v in sorted(self.tiers.items())],
                "objectives": [[int(n), int(v)] for n, v in sorted(self.objectives.items())],
            },
            "deck": self.deck,
            "nimalia_deck": self.nimalia_deck,
        }

    @classmethod
    def from_json(cls, data: Any) -> NightSettings:
        """Settings from a stored document; what cannot be used is left out (never raises:
        :func:`settings_problems` says what was left out, for the page to show)."""
        return _parse(data)[0]


def settings_problems(data: Any) -> list[str]:
    """What :meth:`NightSettings.from_json` left out of a stored settings document, one plain
    sentence each (malformed parts, unknown names, victory points outside 0-99)."""
    return _parse(data)[1]


def _parse(data: Any) -> tuple[NightSettings, list[str]]:
    problems: list[str] = []
    if not isinstance(data, Mapping):
        return NightSettings(), ["the stored settings are not an object: the defaults apply"]
    house = data.get("house") or {}
    if not isinstance(house, Mapping):
        problems.append("the stored house rules are not an object: none apply")
        house = {}
    game = data.get("game", "reptile_tank")
    deck = data.get("deck", "bundled")
    nimalia_deck = data.get("nimalia_deck", "bundled")
    for what, value, allowed in (
        ("game", game, GAMES),
        ("deck", deck, DECKS),
        ("Nimalia deck", nimalia_deck, DECKS),
    ):
        if value not in allowed:
            shown = str(value)[:40]
            problems.append(f"the stored {what} {shown!r} is unknown: the default applies")

    def entries(name: str, width: int) -> list[list[Any]]:
        found = house.get(name, [])
        if not isinstance(found, list):
            problems.append(f"the stored house {name} are not a list: ignored")
            return []
        good = []
        for entry in found:
            vp = entry[-1] if isinstance(entry, list) and len(entry) == width else None
            if isinstance(vp, bool) or not isinstance(vp, int):
                problems.append(f"a stored house value {str(entry)[:60]} is malformed: ignored")
            elif not 0 <= vp <= MAX_HOUSE_VP:
                problems.append(
                    f"a stored house value {str(entry)[:60]} is outside 0-{MAX_HOUSE_VP} "
                    "victory points: ignored (the default applies)"
                )
            else:
                good.append(entry)
        return good

    tiers: dict[TierKey, int] = {}
    for c, t, v in entries("tiers", 3):
        tiers[(str(c), str(t))] = int(v)
    objectives: dict[int, int] = {}
    for n, v in entries("objectives", 2):
        if isinstance(n, bool) or not isinstance(n, int):
            problems.append(f"a stored house objective {str(n)[:20]!r} is not a number: ignored")
            continue
        objectives[n] = int(v)
    settings = NightSettings(
        game=game if game in GAMES else "reptile_tank",
        tiers=tiers,
        objectives=objectives,
        deck=deck if deck in DECKS else "bundled",
        nimalia_deck=nimalia_deck if nimalia_deck in DECKS else "bundled",
    )
    return settings, problems


def tier_values(rules: Any) -> dict[TierKey, int]:
    """Every tier's VP: ``{(card id, tier name): vp}`` (``water`` included)."""
    return {(cid, t.name): int(t.vp) for cid, rule in rules.cards.items() for t in rule.tiers}


def objective_values(rules: Any) -> dict[int, int]:
    """Every objective card's VP: ``{number: vp}``."""
    return {int(n): int(o.vp) for n, o in rules.objectives.items()}


def changed_values(defaults: Mapping[Any, int], edited: Mapping[Any, int]) -> dict[Any, int]:
    """The edited values that differ from the defaults.

    Raises
    ------
    ValueError
        An unknown key, or a VP outside 0-99.
    """
    out = {}
    for key, value in edited.items():
        if key not in defaults:
            raise ValueError(f"unknown rules value {key!r}")
        if not 0 <= int(value) <= MAX_HOUSE_VP:
            raise ValueError(f"{key!r}: victory points must be 0 to {MAX_HOUSE_VP}")
        if int(value) != int(defaults[key]):
            out[key] = int(value)
    return out


def overrides_of(settings: NightSettings) -> dict[str, Any]:
    """The house values as the nested overrides :func:`scoring.reptile_tank.rules.load_rules` takes."""
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
