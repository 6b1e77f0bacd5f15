"""A game night's settings: which game, house rules, which deck. They belong to the night.

The settings are one small JSON document per game night (stored by
:class:`leaderboard.drafts.DraftStore`)::

    {"game": GAME_ID,
     "house": {"tiers": [["rock", "basic", 3]], "objectives": [[3, 5]],
               "masks": [["ringneck_snake", ["X.X.X", ".....", ".....", "X.X.X"]]]},
     DECK_SETTING: "bundled", ...}

``game`` is one of the game list (:mod:`games`; the first game by default). ``house`` holds only
the values that differ from the default rules (the game's ``service/<game>/house_rules.py``
merges them onto its defaults); ``masks`` are marked-cell areas as rows of ``X`` (marked) and
``.`` (the grid's size is checked when the rules are built, which ignores a misfit). Each
game with a ``deck_setting`` has one deck choice under that key: ``"bundled"`` (the stand-in
deck) or ``"enrolled"`` (the night's own enrolled pack). The module is
game-blind: games, their names and their deck keys come from the game list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import games

DECKS = ("bundled", "enrolled")
#: Largest VP a house value may take.
MAX_HOUSE_VP = 99
#: Most rows (and squares a row) a stored house mask may have (the rules check the exact size).
MAX_MASK_SIDE = 12

TierKey = tuple[str, str]


@dataclass(frozen=True)
class NightSettings:
    """A game night's settings (defaults when the night never changed them)."""

    game: str = field(default_factory=lambda: games.default_game().id)
    tiers: Mapping[TierKey, int] = field(default_factory=dict)
    objectives: Mapping[int, int] = field(default_factory=dict)
    #: House marked-cell areas: mask name -> rows of ``X``/``.`` (row 1 farthest first).
    masks: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Deck choice per game's ``deck_setting`` key (a game not listed: ``"bundled"``).
    decks: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # one spelling per value: the default deck is not listed
        kept = {k: v for k, v in dict(self.decks).items() if v != "bundled"}
        object.__setattr__(self, "decks", kept)
        object.__setattr__(self, "masks", {str(k): tuple(v) for k, v in dict(self.masks).items()})

    @property
    def has_house_rules(self) -> bool:
        return bool(self.tiers or self.objectives or self.masks)

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
                "masks": [[name, list(rows)] for name, rows in sorted(self.masks.items())],
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
    masks: dict[str, tuple[str, ...]] = {}
    found = house.get("masks", [])
    if not isinstance(found, list):
        problems.append("the stored house masks are not a list: ignored")
        found = []
    for entry in found:
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)):
            problems.append(f"a stored house mask {str(entry)[:60]} is malformed: ignored")
            continue
        name, rows = entry
        if not (
            isinstance(rows, list)
            and 0 < len(rows) <= MAX_MASK_SIDE
            and all(isinstance(r, str) and 0 < len(r) <= MAX_MASK_SIDE for r in rows)
            and all(ch in "X." for r in rows for ch in r)
        ):
            problems.append(
                f"a stored house mask {name[:40]!r} is not rows of 'X' and '.': ignored"
            )
            continue
        masks[name] = tuple(rows)
    settings = NightSettings(
        game=game if isinstance(game, str) and game in names else default_game,
        tiers=tiers,
        objectives=objectives,
        masks=masks,
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


def mask_rows(cells: Any) -> tuple[str, ...]:
    """Marked cells (rows of booleans) as rows of ``X`` (marked) and ``.``."""
    return tuple("".join("X" if marked else "." for marked in row) for row in cells)


def mask_values(rules: Any) -> dict[str, tuple[str, ...]]:
    """Every marked-cell area of the rules: ``{mask name: rows of X/.}``."""
    return {name: mask_rows(m.cells) for name, m in getattr(rules, "mask_rules", {}).items()}


def changed_masks(
    defaults: Mapping[str, tuple[str, ...]], edited: Mapping[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    """The edited areas that differ from the defaults.

    Raises
    ------
    ValueError
        An unknown mask, or rows not the default's shape or not of ``X``/``.``.
    """
    out = {}
    for name, rows in edited.items():
        if name not in defaults:
            raise ValueError(f"unknown marked-cell area {name!r}")
        rows = tuple(rows)
        shape = [len(r) for r in defaults[name]]
        if [len(r) for r in rows] != shape or any(ch not in "X." for r in rows for ch in r):
            raise ValueError(f"{name!r}: marked cells must be {len(shape)} rows of X and .")
        if rows != tuple(defaults[name]):
            out[name] = rows
    return out
