"""A game night's settings: which game, house rules, which deck. They belong to the night.

The settings are one small JSON document per game night (stored by
:class:`leaderboard.drafts.DraftStore`)::

    {"game": GAME_ID,
     "house": {"tiers": [["rock", "basic", 3]], "objectives": [[3, 5]]},
     DECK_SETTING: "bundled", ...}

``game`` is one of the game list (:mod:`games`; the first game by default). ``house`` holds only
the values that differ from the default rules (the game's ``service/<game>/house_rules.py``
merges them onto its defaults). Each game with a ``deck_setting`` has one deck choice under that
key: ``"bundled"`` (the stand-in deck) or ``"enrolled"`` (the night's own enrolled pack). The
module is game-blind: games, their names and their deck keys come from the game list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import games

DECKS = ("bundled", "enrolled")
#: Largest VP a house value may take.
MAX_HOUSE_VP = 99

TierKey = tuple[str, str]


@dataclass(frozen=True)
class NightSettings:
    """A game night's settings (defaults when the night never changed them)."""

    game: str = field(default_factory=lambda: games.default_game().id)
    tiers: Mapping[TierKey, int] = field(default_factory=dict)
    objectives: Mapping[int, int] = field(default_factory=dict)
    #: Deck choice per game's ``deck_setting`` key (a game not listed: ``"bundled"``).
    decks: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # one spelling per value: the default deck is not listed
        kept = {k: v for k, v in dict(self.decks).items() if v != "bundled"}
        object.__setattr__(self, "decks", kept)

    @property
    def has_house_rules(self) -> bool:
        return bool(self.tiers or self.objectives)

    def deck_of(self, game_id: str) -> str:
        """``"bundled"`` or ``"enrolled"``: the night's deck for ``game_id``."""
        key = games.game(game_id).deck_setting
        return self.decks.get(key, "bundled") if key else "bundled"

    def with_deck(self, game_id: str, deck: str) -> NightSettings:
        """These settings with ``game_id``'s deck set to ``deck``."""
        key = games.game(game_id).deck_setting
        if key is None:
            raise ValueError(f"{games.game(game_id).name} has no deck to choose")
        if deck not in DECKS:
            raise ValueError(f"a deck is one of {', '.join(DECKS)}, not {str(deck)[:40]!r}")
        return replace(self, decks={**self.decks, key: deck})

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "house": {
                "tiers": [[c, t, int(v)] for (c, t), v in sorted(self.tiers.items())],
                "objectives": [[int(n), int(v)] for n, v in sorted(self.objectives.items())],
            },
            **{key: self.decks.get(key, "bundled") for key in deck_settings()},
        }

    @classmethod
    def from_json(cls, data: Any) -> NightSettings:
        """Settings from a stored document; what cannot be used is left out (never raises:
        :func:`settings_problems` says what was left out, for the page to show)."""
        return _parse(data)[0]


def game_names() -> dict[str, str]:
    """The games a night can play: id -> name, in the game list's order."""
    return {g.id: g.name for g in games.GAMES.values()}


def deck_settings() -> dict[str, str]:
    """The settings keys holding a deck choice -> the name of their game."""
    return {g.deck_setting: g.name for g in games.GAMES.values() if g.deck_setting}


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
    default_game = games.default_game().id
    game = data.get("game", default_game)
    names = game_names()
    checks = [("game", game, names)]
    decks: dict[str, str] = {}
    first_deck = next(iter(deck_settings()), None)
    for key, name in deck_settings().items():
        value = data.get(key, "bundled")
        checks.append(("deck" if key == first_deck else f"{name} deck", value, DECKS))
        decks[key] = value if value in DECKS else "bundled"
    for what, value, allowed in checks:
        if not isinstance(value, str) or value not in allowed:
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
        game=game if isinstance(game, str) and game in names else default_game,
        tiers=tiers,
        objectives=objectives,
        decks=decks,
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
