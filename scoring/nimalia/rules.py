"""Nimalia's rules data: load and check ``scoring/nimalia/data/rules.toml``.

Every rule value (the 22 goals and their points, the round schedule, the floor at 0, the tie
rules, the goal-selection levels, the goal-12 reading) lives in the data file with its
provenance: ``help`` (the official game help), ``adaptation`` (the Board Game Arena
adaptation's code, as restated in the reference) or ``assumed`` (our reading, see
``docs/nimalia.md``). This module turns it into frozen dataclasses and rejects a bad value with
a message naming its key. The engine (:mod:`scoring.nimalia.engine`) maps each goal's ``kind`` to a
finder; adding a goal of a known kind is a data change only.

Examples
--------
>>> rules = load_rules()
>>> rules.goals[7].colour, rules.goals[7].params["points_each"]
('yellow', 4)
>>> [g for g in rules.rounds[4].colours]
['green', 'yellow', 'red']
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from scoring.layout import Layout
from scoring.nimalia.cards import ANIMALS, LANDS, RULES_PATH, layout

PROVENANCES = ("help", "adaptation", "assumed")
COLOURS = ("blue", "green", "yellow", "red")
DIRECTIONS = ("most", "fewest")
MEASURES = ("count", "longest_river")
GOAL12_MODES = ("printed", "adaptation")
TIEBREAK_SCOPES = ("adaptation", "every_place")

#: goal kind -> its required parameters and their types ("land", "animal", int, bool, list).
GOAL_KINDS: dict[str, dict[str, Any]] = {
    "otter_neighbour_groups": {"min_group": int},
    "river_mouth": {"land": "land", "points_each": int},
    "zone_count": {"land": "land", "points_each": int},
    "animal_next_to_land": {"animal": "animal", "land": "land", "points_each": int},
    "largest_zone": {"land": "land", "points_per_square": int},
    "zones_of_size": {"land": "land", "size": int, "points_each": int},
    "land_blocks": {"land": "land", "size": int, "points_each": int},
    "animal_zones": {"animal": "animal", "single": int, "per_square": int},
    "fewest_land": {"points_per_square": int},
    "largest_filled_square": {"points": list},
    "rows_with_all_lands": {"points_each": int},
    "horizontal_runs": {"length": int, "points_each": int},
    "count_table": {"animal": "animal", "points": list},
    "animal_edge": {"animal": "animal", "touching": bool, "points_each": int},
    "longest_river_table": {"points": list},
    "animal_next_to_animal": {"animal": "animal", "other": "animal", "points_each": int},
    "columns_with_count": {"animal": "animal", "count": int, "points_each": int},
    "rank": {"parts": list},
    "all_tied_at": {"animal": "animal", "direction": "direction", "tied": int, "others": int},
}
#: Kinds that compare all players' reserves (scored per game, "pending" for one reserve).
RELATIVE_KINDS = ("rank", "all_tied_at")
_GOAL_KEYS = {"colour", "level", "back", "kind", "name", "text", "provenance"}


class RulesError(ValueError):
    """Rules data that cannot be used; the message names the key."""


@dataclass(frozen=True)
class RankPart:
    """One RANK(value, direction, first, second) of a relative goal."""

    measure: str  # "count" or "longest_river"
    direction: str  # "most" or "fewest"
    first: int
    second: int
    animal: str | None = None


@dataclass(frozen=True)
class Goal:
    """One of the 22 goals: colour, level, the goal on the card's back, finder kind, values."""

    id: int
    colour: str
    level: int
    back: int
    kind: str
    name: str
    text: str
    provenance: str
    params: Mapping[str, Any]
    parts: tuple[RankPart, ...] = ()

    @property
    def relative(self) -> bool:
        """Whether the goal compares players (scored per game, not per reserve)."""
        return self.kind in RELATIVE_KINDS


@dataclass(frozen=True)
class Round:
    number: int
    colours: tuple[str, ...]  # in scoring order
    passing: str


@dataclass(frozen=True)
class Rules:
    """Everything the engine needs; built by :func:`load_rules`."""

    layout: Layout
    goals: Mapping[int, Goal]
    rounds: Mapping[int, Round]
    min_players: int
    max_players: int
    floor_at_zero: bool
    second_place_player_counts: tuple[int, ...]
    tiebreak_otters_count: bool
    tiebreak_scope: str  # "adaptation" or "every_place" (see rules.toml [tiebreak])
    colour_order: tuple[str, ...]
    levels: Mapping[str, tuple[int, ...]]
    goal12: str
    provenance: Mapping[str, str] = field(default_factory=dict)

    def goals_of(self, colour: str) -> tuple[Goal, ...]:
        return tuple(g for g in self.goals.values() if g.colour == colour)

    def with_options(self, *, goal12: str | None = None, tiebreak: str | None = None) -> Rules:
        """A copy with the given options (``goal12``: ``printed`` or ``adaptation``;
        ``tiebreak``: ``adaptation`` or ``every_place``)."""
        rules = self
        if goal12 is not None:
            if goal12 not in GOAL12_MODES:
                raise RulesError(f"goal12 must be one of {', '.join(GOAL12_MODES)}, got {goal12!r}")
            rules = replace(rules, goal12=goal12)
        if tiebreak is not None:
            if tiebreak not in TIEBREAK_SCOPES:
                raise RulesError(
                    f"tiebreak must be one of {', '.join(TIEBREAK_SCOPES)}, got {tiebreak!r}"
                )
            rules = replace(rules, tiebreak_scope=tiebreak)
        return rules

    def assumed_values(self) -> list[str]:
        """Keys whose provenance is ``assumed`` (for the app and the docs)."""
        keys = [f"goals.{g.id}" for g in self.goals.values() if g.provenance == "assumed"]
        keys += [k for k, p in self.provenance.items() if p == "assumed"]
        return keys


def _need(table: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in table:
        raise RulesError(f"{where}: missing key {key!r}")
    return table[key]


def _provenance(value: Any, where: str) -> str:
    if value not in PROVENANCES:
        raise RulesError(f"{where}: provenance must be one of {', '.join(PROVENANCES)}")
    return value


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{where}: must be a whole number, got {value!r}")
    return value


def _int_list(value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise RulesError(f"{where}: must be a non-empty list of whole numbers")
    return tuple(_int(v, where) for v in value)


def _param(kind: Any, value: Any, where: str) -> Any:
    if kind == "land":
        if value not in LANDS:
            raise RulesError(f"{where}: land must be one of {', '.join(LANDS)}, got {value!r}")
        return value
    if kind == "animal":
        if value not in ANIMALS:
            raise RulesError(f"{where}: animal must be one of {', '.join(ANIMALS)}, got {value!r}")
        return value
    if kind == "direction":
        if value not in DIRECTIONS:
            raise RulesError(f"{where}: direction must be most or fewest, got {value!r}")
        return value
    if kind is int:
        return _int(value, where)
    if kind is bool:
        if not isinstance(value, bool):
            raise RulesError(f"{where}: must be true or false, got {value!r}")
        return value
    return value


def _rank_part(raw: Any, where: str) -> RankPart:
    if not isinstance(raw, Mapping):
        raise RulesError(f"{where}: a part is a table")
    unknown = set(raw) - {"measure", "direction", "first", "second", "animal"}
    if unknown:
        raise RulesError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    measure = _need(raw, "measure", where)
    if measure not in MEASURES:
        raise RulesError(f"{where}.measure: one of {', '.join(MEASURES)}, got {measure!r}")
    animal = None
    if measure == "count":
        animal = _param("animal", _need(raw, "animal", where), f"{where}.animal")
    return RankPart(
        measure=measure,
        direction=_param("direction", _need(raw, "direction", where), f"{where}.direction"),
        first=_int(_need(raw, "first", where), f"{where}.first"),
        second=_int(_need(raw, "second", where), f"{where}.second"),
        animal=animal,
    )


def _goal(key: str, raw: Any) -> Goal:
    where = f"goals.{key}"
    try:
        gid = int(key)
    except ValueError:
        raise RulesError(f"{where}: a goal id is a number") from None
    if not isinstance(raw, Mapping):
        raise RulesError(f"{where}: a goal is a table")
    kind = _need(raw, "kind", where)
    if kind not in GOAL_KINDS:
        raise RulesError(f"{where}.kind: unknown goal kind {kind!r}")
    spec = GOAL_KINDS[kind]
    unknown = set(raw) - _GOAL_KEYS - set(spec)
    if unknown:
        raise RulesError(f"{where}: unknown key {sorted(unknown)[0]!r} for kind {kind!r}")
    colour = _need(raw, "colour", where)
    if colour not in COLOURS:
        raise RulesError(f"{where}.colour: one of {', '.join(COLOURS)}, got {colour!r}")
    level = _int(_need(raw, "level", where), f"{where}.level")
    if level not in (1, 2, 3):
        raise RulesError(f"{where}.level: 1, 2 or 3, got {level}")
    params: dict[str, Any] = {}
    parts: tuple[RankPart, ...] = ()
    for name, ptype in spec.items():
        value = _need(raw, name, where)
        if name == "parts":
            if not isinstance(value, list) or not value:
                raise RulesError(f"{where}.parts: a non-empty list of parts")
            parts = tuple(_rank_part(p, f"{where}.parts[{i}]") for i, p in enumerate(value))
        elif name == "points":
            params[name] = _int_list(value, f"{where}.points")
        else:
            params[name] = _param(ptype, value, f"{where}.{name}")
    return Goal(
        id=gid,
        colour=colour,
        level=level,
        back=_int(_need(raw, "back", where), f"{where}.back"),
        kind=kind,
        name=str(_need(raw, "name", where)),
        text=str(_need(raw, "text", where)),
        provenance=_provenance(_need(raw, "provenance", where), where),
        params=MappingProxyType(params),
        parts=parts,
    )


def rules_from_data(data: Mapping[str, Any]) -> Rules:
    """Build and check :class:`Rules` from parsed rules data (the TOML file's tables)."""
    goals_raw = _need(data, "goals", "rules")
    if not isinstance(goals_raw, Mapping) or not goals_raw:
        raise RulesError("goals: a table of goals")
    goals = {g.id: g for g in (_goal(k, v) for k, v in goals_raw.items())}
    for goal in goals.values():
        back = goals.get(goal.back)
        if back is None or back.back != goal.id or back.id == goal.id:
            raise RulesError(f"goals.{goal.id}.back: goal {goal.back} must have back {goal.id}")
    rounds: dict[int, Round] = {}
    for i, raw in enumerate(_need(data, "rounds", "rules")):
        where = f"rounds[{i}]"
        number = _int(_need(raw, "round", where), f"{where}.round")
        colours = tuple(_need(raw, "colours", where))
        if (
            not colours
            or any(c not in COLOURS for c in colours)
            or len(set(colours)) != len(colours)
        ):
            raise RulesError(f"{where}.colours: distinct colours among {', '.join(COLOURS)}")
        _provenance(_need(raw, "provenance", where), where)
        rounds[number] = Round(number, colours, str(raw.get("passing", "")))
    if sorted(rounds) != list(range(1, len(rounds) + 1)):
        raise RulesError("rounds: numbered 1, 2, ... without gaps")
    players = _need(data, "players", "rules")
    totals = _need(data, "totals", "rules")
    relative = _need(data, "relative", "rules")
    tiebreak = _need(data, "tiebreak", "rules")
    selection = _need(data, "goal_selection", "rules")
    options = _need(data, "options", "rules")
    goal12 = _need(options, "goal12", "options")
    if goal12 not in GOAL12_MODES:
        raise RulesError(f"options.goal12: one of {', '.join(GOAL12_MODES)}, got {goal12!r}")
    if not isinstance(totals.get("floor_at_zero"), bool):
        raise RulesError("totals.floor_at_zero: must be true or false")
    colour_order = tuple(_need(selection, "colour_order", "goal_selection"))
    if sorted(colour_order) != sorted(COLOURS):
        raise RulesError("goal_selection.colour_order: each colour once")
    levels = {
        name: _int_list(_need(selection, name, "goal_selection"), f"goal_selection.{name}")
        for name in ("easy", "difficult", "random")
    }
    provenance = {
        "totals.floor_at_zero": _provenance(totals.get("provenance"), "totals"),
        "relative": _provenance(relative.get("provenance"), "relative"),
        "relative.second_place": _provenance(
            relative.get("second_place_provenance"), "relative.second_place_provenance"
        ),
        "relative.zero_can_place": _provenance(
            relative.get("zero_provenance"), "relative.zero_provenance"
        ),
        "tiebreak": _provenance(tiebreak.get("provenance"), "tiebreak"),
        "tiebreak.detail": _provenance(
            tiebreak.get("detail_provenance"), "tiebreak.detail_provenance"
        ),
        "goal_selection": _provenance(selection.get("provenance"), "goal_selection"),
        "options.goal12": _provenance(options.get("provenance"), "options"),
    }
    if relative.get("zero_can_place") is not True:
        raise RulesError("relative.zero_can_place: only true is implemented")
    scope = tiebreak.get("scope")
    if scope not in TIEBREAK_SCOPES:
        raise RulesError(f"tiebreak.scope: one of {', '.join(TIEBREAK_SCOPES)}, got {scope!r}")
    if tiebreak.get("kind") != "most_of_one_animal":
        raise RulesError("tiebreak.kind: only most_of_one_animal is implemented")
    return Rules(
        layout=layout(),
        goals=MappingProxyType(dict(sorted(goals.items()))),
        rounds=MappingProxyType(rounds),
        min_players=_int(_need(players, "min", "players"), "players.min"),
        max_players=_int(_need(players, "max", "players"), "players.max"),
        floor_at_zero=totals["floor_at_zero"],
        second_place_player_counts=_int_list(
            _need(relative, "second_place_player_counts", "relative"),
            "relative.second_place_player_counts",
        ),
        tiebreak_otters_count=bool(tiebreak.get("otters_count", True)),
        tiebreak_scope=scope,
        colour_order=colour_order,
        levels=MappingProxyType(levels),
        goal12=goal12,
        provenance=MappingProxyType(provenance),
    )


@cache
def _default_rules() -> Rules:
    with Path(RULES_PATH).open("rb") as handle:
        data = tomllib.load(handle)
    try:
        return rules_from_data(data)
    except RulesError as error:
        raise RulesError(f"{RULES_PATH}: {error}") from None


def load_rules(*, goal12: str | None = None, tiebreak: str | None = None) -> Rules:
    """The default rules (cached), with the given options (see :meth:`Rules.with_options`)."""
    return _default_rules().with_options(goal12=goal12, tiebreak=tiebreak)
