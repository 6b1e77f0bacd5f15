"""The rules data: load, merge and validate ``scoring/data/default_rules.toml``.

Every rule value (VP, tiers, shapes, masks, objectives, solo values) lives in the data file;
this module turns it into frozen dataclasses and rejects bad values with a message that names
the key and the line of the file it came from. A user's rules file (or an ``overrides`` dict)
is deep-merged onto the defaults, so it only needs the values it changes.

Examples
--------
>>> rules = load_rules()
>>> rules.cards["blue_tongued_skink"].tiers[-1].vp
13
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from scoring.cards import CARD_IDS, WATER
from scoring.layout import CELL_HOLDS, Layout

DEFAULT_RULES_PATH = Path(__file__).with_name("data") / "default_rules.toml"

PROVENANCES = ("rulebook", "derived", "assumed")
CARD_KINDS = ("animal", "environment")
#: condition kind -> extra card-level keys it needs (the engine maps each kind to a finder).
CONDITION_KINDS = {
    "shape": (),
    "enclosure": (),
    "area": ("mask",),
    "column": (),
    "row": (),
    "adjacency": ("measure",),
    "quantity": (),
    "water_area": (),
}
ADJACENCY_MEASURES = ("env_kinds_edge", "env_diagonal", "animals_edge", "animal_categories_edge")
OBJECTIVE_KINDS = (
    "count",
    "corners_distinct",
    "category_groups",
    "animal_types_with_count",
    "line_all",
    "environment_kinds",
    "environment_square",
    "environment_diagonal",
    "line_distinct_animals",
)
SOLO_LEVELS = ("normal", "hard", "very_hard")


class RulesError(ValueError):
    """A rules file that cannot be used; the message names the key and its line."""


@dataclass(frozen=True)
class Tier:
    """One tier of a card's condition (``basic``, ``advanced``, or a water-area size).

    ``count`` is the number of cards of the type the tier needs (exact for shapes, "at least"
    otherwise); ``min`` is the threshold of an adjacency measure; ``shape`` holds
    ``(row, col)`` offsets; ``max_units`` caps a per-unit tier (the anole).
    """

    name: str
    vp: int
    count: int | None = None
    min: int | None = None
    shape: tuple[tuple[int, int], ...] | None = None
    min_env_kinds: int = 0
    max_units: int | None = None
    provenance: str = "assumed"
    text: str = ""

    @property
    def requirement(self) -> int:
        """The number that orders tiers from easiest to hardest."""
        return self.count if self.count is not None else (self.min or 0)


@dataclass(frozen=True)
class CardRule:
    """The rule of one card type (or of ``water``), tiers sorted easiest first."""

    id: str
    name: str
    kind: str
    category: str
    copies: int
    star: bool
    condition: str
    tiers: tuple[Tier, ...]
    provenance: str
    text: str
    mask: str | None = None
    measure: str | None = None
    per_unit: bool = False
    categories: tuple[str, ...] = ()

    @property
    def is_animal(self) -> bool:
        return self.kind == "animal"

    def tier(self, name: str) -> Tier:
        """The tier called ``name``; raises ``KeyError`` when there is none."""
        for tier in self.tiers:
            if tier.name == name:
                return tier
        raise KeyError(name)

    def printed_vps(self) -> tuple[int, ...]:
        """Every VP value printed on the card (its tiers' VP)."""
        return tuple(tier.vp for tier in self.tiers)


@dataclass(frozen=True)
class Objective:
    """One objective card: a checker kind, its parameters, VP and rule text."""

    number: int
    kind: str
    vp: int
    params: Mapping[str, Any]
    provenance: str
    text: str


@dataclass(frozen=True)
class SoloLevel:
    name: str
    animal_leftovers: str  # "water" or "pairs"
    mixed_pair_vp: str  # "lowest" or "highest"
    provenance: str
    text: str


@dataclass(frozen=True)
class SoloRules:
    anole_vp_per_env_kind: int
    anole_max_env_kinds: int
    roach_vp_per_card: int
    roach_more_than_player_vp: int
    water_max_vp: int
    levels: Mapping[str, SoloLevel]
    provenance: str
    text: str
    anole_note: str


@dataclass(frozen=True)
class Rules:
    """Everything the engine needs; built by :func:`load_rules`."""

    layout: Layout  # the terrarium's rows, columns and card size, from ``[grid]``
    deck_size: int
    categories: Mapping[str, str]  # category -> score pad column
    masks: Mapping[str, tuple[tuple[bool, ...], ...]]  # layout.rows x layout.cols booleans
    cards: Mapping[str, CardRule]  # card id (and "water") -> rule
    objectives: Mapping[int, Objective]
    solo: SoloRules
    source: str

    @property
    def rows(self) -> int:
        return self.layout.rows

    @property
    def cols(self) -> int:
        return self.layout.cols

    def column_of(self, card_id: str) -> str:
        """The score pad column a card type scores in."""
        return self.categories[self.cards[card_id].category]

    def category_of(self, card_id: str) -> str | None:
        rule = self.cards.get(card_id)
        return rule.category if rule else None

    def is_environment(self, card_id: str) -> bool:
        rule = self.cards.get(card_id)
        return rule is not None and rule.kind == "environment"

    def is_animal(self, card_id: str) -> bool:
        rule = self.cards.get(card_id)
        return rule is not None and rule.kind == "animal"

    def assumed_values(self) -> list[str]:
        """Dotted keys of every tier/objective whose provenance is ``assumed`` (for the app)."""
        keys = [
            f"cards.{cid}.tiers.{t.name}"
            for cid, rule in self.cards.items()
            for t in rule.tiers
            if t.provenance == "assumed"
        ]
        keys += [f"objectives.{n}" for n, o in self.objectives.items() if o.provenance == "assumed"]
        return keys


# ----------------------------------------------------------------------------- line lookup


def _split_dotted(key: str) -> tuple[str, ...]:
    parts = re.findall(r'"([^"]*)"|\'([^\']*)\'|([^.\s]+)', key)
    return tuple(a or b or c for a, b, c in parts)


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Map every dotted key path of a TOML text to its 1-based line number.

    A light scanner, not a parser: table headers set the prefix, ``key = …`` lines add keys,
    and lines inside multi-line strings are skipped. Enough to point a user at a bad value.
    """
    lines: dict[tuple[str, ...], int] = {}
    prefix: tuple[str, ...] = ()
    in_multiline = False
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if in_multiline:
            if stripped.count('"""') % 2 == 1:
                in_multiline = False
            continue
        if not stripped or stripped.startswith("#"):
            continue
        header = re.match(r"^\[\[?\s*([^\]]+?)\s*\]\]?", stripped)
        if header:
            prefix = _split_dotted(header.group(1))
            lines.setdefault(prefix, number)
            continue
        assignment = re.match(r"^([A-Za-z0-9_\-.\"' ]+?)\s*=", stripped)
        if assignment:
            lines[prefix + _split_dotted(assignment.group(1))] = number
            if stripped.count('"""') % 2 == 1:
                in_multiline = True
    return lines


class _Sources:
    """Where each key came from: the user's file (if it sets the key) else the defaults."""

    def __init__(self, layers: list[tuple[str, str | None, dict]]):
        # each layer: (label, text or None, data); later layers win
        self.layers = [
            (label, key_lines(text) if text else {}, data) for label, text, data in layers
        ]

    def where(self, path: tuple[str, ...]) -> str:
        for label, lines, data in reversed(self.layers):
            if _has_path(data, path):
                for i in range(len(path), 0, -1):
                    if path[:i] in lines:
                        return f"{label}, line {lines[path[:i]]}"
                return label
        # the key is missing everywhere: point at the closest table that exists
        for i in range(len(path) - 1, 0, -1):
            for label, lines, data in reversed(self.layers):
                if path[:i] in lines and _has_path(data, path[:i]):
                    return f"{label}, line {lines[path[:i]]}"
        return self.layers[-1][0]

    def error(self, path: tuple[str, ...], message: str) -> RulesError:
        dotted = ".".join(path)
        # A quoted TOML key may hold "\n" or other control characters: keep the message one line.
        dotted = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in dotted)
        message = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in message)
        return RulesError(f"rules: {dotted}: {message} ({self.where(path)})")


def _has_path(data: Any, path: tuple[str, ...]) -> bool:
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return False
        data = data[key]
    return True


# ----------------------------------------------------------------------------- merging


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """A new dict: ``override`` merged onto ``base`` (tables merge, other values replace)."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _parse_toml(text: str, label: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"rules: {label}: invalid TOML: {error}") from None


def load_rules(path: str | Path | None = None, *, overrides: Mapping | None = None) -> Rules:
    """Load the default rules, merge a user's rules file and/or ``overrides`` onto them.

    Parameters
    ----------
    path : str or Path, optional
        A user rules file (TOML) holding only the values it changes; ``None`` for defaults.
    overrides : mapping, optional
        The same, as a nested dict (applied after ``path``).

    Returns
    -------
    Rules
        Frozen, validated rules.

    Raises
    ------
    RulesError
        Invalid TOML, unknown ids or keys, masks not 4x5, negative VP, missing tiers,
        wrong types; the message names the dotted key and the file and line.
    OSError
        ``path`` cannot be read.
    """
    default_text = DEFAULT_RULES_PATH.read_text(encoding="utf-8")
    layers: list[tuple[str, str | None, dict]] = [
        (DEFAULT_RULES_PATH.name, default_text, _parse_toml(default_text, DEFAULT_RULES_PATH.name))
    ]
    source = str(DEFAULT_RULES_PATH)
    if path is not None:
        try:
            user_text = Path(path).read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            raise RulesError(f"rules: {path}: not a UTF-8 text file (byte {error.start})") from None
        layers.append((str(path), user_text, _parse_toml(user_text, str(path))))
        source = str(path)
    if overrides:
        layers.append(("overrides", None, _plain(overrides)))
    merged: dict[str, Any] = {}
    for _, _, data in layers:
        merged = deep_merge(merged, data)
    sources = _Sources(layers)
    _check_grid_kept(layers, sources)
    return _build(merged, sources, source)


def _check_grid_kept(layers: list[tuple[str, str | None, dict]], sources: _Sources) -> None:
    """A house rules file may not resize the game's grid: masks, objectives and the photo reader
    are all drawn for it (a different grid is a different game, with its own rules data)."""
    default_grid = layers[0][2].get("grid", {})
    for _, _, data in layers[1:]:
        grid = data.get("grid")
        if not isinstance(grid, dict):
            continue
        for key in ("rows", "cols", "name"):
            if key in grid and grid[key] != default_grid.get(key):
                shape = f"{default_grid.get('rows')}x{default_grid.get('cols')}"
                raise sources.error(
                    ("grid", key),
                    f"the {default_grid.get('name')} terrarium is {shape}; a rules file cannot "
                    f"change grid.{key} (got {grid[key]!r})",
                )


@lru_cache(maxsize=1)
def default_layout() -> Layout:
    """Reptile Tank's layout, from the default rules data's ``[grid]`` (boards built without rules)."""
    return load_rules().layout


def _plain(value: Any) -> Any:
    """Overrides with int keys (objective numbers) become string-keyed like TOML tables."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


# ----------------------------------------------------------------------------- validation


class _Reader:
    def __init__(self, sources: _Sources):
        self.sources = sources

    def table(self, data: Any, path: tuple[str, ...]) -> dict:
        if not isinstance(data, dict):
            raise self.sources.error(path, f"must be a table, got {_type_name(data)}")
        return data

    def get(self, table: dict, key: str, kind: type | tuple, path: tuple[str, ...], default=...):
        full = path + (key,)
        if key not in table:
            if default is ...:
                raise self.sources.error(full, "missing")
            return default
        value = table[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if not ok:
            wanted = " or ".join(k.__name__ for k in kinds)
            raise self.sources.error(full, f"must be {wanted}, got {_type_name(value)}")
        return value

    def non_negative(self, table: dict, key: str, path: tuple[str, ...], default=...) -> int:
        value = self.get(table, key, int, path, default)
        if value is not None and value < 0:
            raise self.sources.error(path + (key,), f"must not be negative, got {value}")
        return value

    def choice(self, table: dict, key: str, choices, path: tuple[str, ...], default=...) -> str:
        value = self.get(table, key, str, path, default)
        if value is not None and value not in choices:
            raise self.sources.error(
                path + (key,), f"unknown value {value!r} (expected one of {', '.join(choices)})"
            )
        return value

    def no_unknown_keys(self, table: dict, allowed, path: tuple[str, ...]) -> None:
        for key in table:
            if key not in allowed:
                raise self.sources.error(path + (key,), "unknown key")


def _type_name(value: Any) -> str:
    return {dict: "a table", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


_TIER_KEYS = ("count", "min", "shape", "min_env_kinds", "max_units", "vp", "provenance", "text")
_CARD_KEYS = (
    "name",
    "kind",
    "category",
    "copies",
    "star",
    "condition",
    "provenance",
    "text",
    "tiers",
    "mask",
    "measure",
    "per_unit",
    "categories",
)


def _build(data: dict, sources: _Sources, source: str) -> Rules:
    read = _Reader(sources)
    read.no_unknown_keys(
        data, ("grid", "deck", "categories", "masks", "cards", "objectives", "solo"), ()
    )
    layout = _build_layout(read, data.get("grid", {}))
    deck = read.table(data.get("deck", {}), ("deck",))
    deck_size = read.non_negative(deck, "size", ("deck",))

    categories_table = read.table(data.get("categories", {}), ("categories",))
    categories = {}
    for name, entry in categories_table.items():
        entry = read.table(entry, ("categories", name))
        categories[name] = read.get(entry, "column", str, ("categories", name))

    masks = _build_masks(read, data.get("masks", {}), layout)
    cards = _build_cards(read, data.get("cards", {}), categories, masks)
    objectives = _build_objectives(read, data.get("objectives", {}), masks, categories, cards)
    solo = _build_solo(read, data.get("solo", {}))
    return Rules(
        layout=layout,
        deck_size=deck_size,
        categories=MappingProxyType(categories),
        masks=MappingProxyType(masks),
        cards=MappingProxyType(cards),
        objectives=MappingProxyType(objectives),
        solo=solo,
        source=source,
    )


def _provenance(read: _Reader, table: dict, path: tuple[str, ...]) -> str:
    return read.choice(table, "provenance", PROVENANCES, path)


#: Most rows or columns a layout may declare (a bound, not a game: Nimalia's reserve is 6x6).
MAX_GRID_SIDE = 12


def _build_layout(read: _Reader, table: Any) -> Layout:
    """The ``[grid]`` section as a :class:`~scoring.layout.Layout` value."""
    path = ("grid",)
    table = read.table(table, path)
    read.no_unknown_keys(
        table, ("name", "rows", "cols", "cell_holds", "cell_size", "provenance", "text"), path
    )
    sides = {}
    for key in ("rows", "cols"):
        value = read.non_negative(table, key, path)
        if not 1 <= value <= MAX_GRID_SIDE:
            raise read.sources.error(path + (key,), f"must be 1 to {MAX_GRID_SIDE}, got {value}")
        sides[key] = value
    size_path = path + ("cell_size",)
    size = read.table(table.get("cell_size", {}), size_path)
    read.no_unknown_keys(size, ("width_mm", "height_mm", "gap_mm", "provenance", "text"), size_path)
    mm = {}
    for key in ("width_mm", "height_mm", "gap_mm"):
        value = read.get(size, key, (int, float), size_path)
        if not 0 <= value <= 1000 or (value == 0 and key != "gap_mm"):
            raise read.sources.error(size_path + (key,), f"must be a size in mm, got {value}")
        mm[key] = float(value)
    _provenance(read, size, size_path)
    _provenance(read, table, path)
    return Layout(
        name=read.get(table, "name", str, path),
        rows=sides["rows"],
        cols=sides["cols"],
        cell_w_mm=mm["width_mm"],
        cell_h_mm=mm["height_mm"],
        cell_holds=read.choice(table, "cell_holds", CELL_HOLDS, path),
        gap_mm=mm["gap_mm"],
    )


def _build_masks(
    read: _Reader, table: Any, layout: Layout
) -> dict[str, tuple[tuple[bool, ...], ...]]:
    rows_n, cols_n = layout.rows, layout.cols
    masks = {}
    for name, entry in read.table(table, ("masks",)).items():
        path = ("masks", name)
        entry = read.table(entry, path)
        read.no_unknown_keys(entry, ("rows", "provenance", "text"), path)
        rows = read.get(entry, "rows", list, path)
        if len(rows) != rows_n or any(not isinstance(r, str) or len(r) != cols_n for r in rows):
            raise read.sources.error(
                path + ("rows",), f"a mask must be {rows_n} strings of {cols_n} characters"
            )
        if any(ch not in "X." for r in rows for ch in r):
            raise read.sources.error(path + ("rows",), "mask characters must be 'X' or '.'")
        _provenance(read, entry, path)
        masks[name] = tuple(tuple(ch == "X" for ch in r) for r in rows)
    return masks


def _build_tier(read: _Reader, name: str, entry: Any, condition: str, path) -> Tier:
    entry = read.table(entry, path)
    read.no_unknown_keys(entry, _TIER_KEYS, path)
    vp = read.non_negative(entry, "vp", path)
    needs_count = condition in ("shape", "enclosure", "area", "column", "row", "quantity")
    needs_count = needs_count or condition == "water_area"
    count = read.non_negative(entry, "count", path, ... if needs_count else None)
    minimum = read.non_negative(entry, "min", path, ... if condition == "adjacency" else None)
    shape = None
    min_env_kinds = 0
    if condition == "shape":
        raw = read.get(entry, "shape", list, path)
        cells = []
        for cell in raw:
            if (
                not isinstance(cell, list)
                or len(cell) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in cell)
            ):
                raise read.sources.error(path + ("shape",), "cells must be [row, col] integers")
            cells.append((cell[0], cell[1]))
        if len(set(cells)) != len(cells) or len(cells) != count:
            raise read.sources.error(
                path + ("shape",), f"the shape must hold {count} distinct cells (its count)"
            )
        shape = tuple(cells)
        min_env_kinds = read.non_negative(entry, "min_env_kinds", path)
    if count is not None and count < 1:
        raise read.sources.error(path + ("count",), "must be at least 1")
    max_units = read.non_negative(entry, "max_units", path, None)
    return Tier(
        name=name,
        vp=vp,
        count=count,
        min=minimum,
        shape=shape,
        min_env_kinds=min_env_kinds,
        max_units=max_units,
        provenance=_provenance(read, entry, path),
        text=read.get(entry, "text", str, path),
    )


def _build_cards(read: _Reader, table: Any, categories: dict, masks: dict) -> dict[str, CardRule]:
    table = read.table(table, ("cards",))
    known = CARD_IDS + (WATER,)
    for card_id in table:
        if card_id not in known:
            raise read.sources.error(("cards", card_id), "unknown card id")
    cards = {}
    for card_id in known:
        path = ("cards", card_id)
        if card_id not in table:
            raise read.sources.error(path, "missing card")
        entry = read.table(table[card_id], path)
        read.no_unknown_keys(entry, _CARD_KEYS, path)
        kind = read.choice(entry, "kind", CARD_KINDS, path)
        category = read.choice(entry, "category", tuple(categories), path)
        condition = read.choice(entry, "condition", tuple(CONDITION_KINDS), path)
        tiers_table = read.table(entry.get("tiers"), path + ("tiers",)) if "tiers" in entry else {}
        if not tiers_table:
            raise read.sources.error(path + ("tiers",), "missing tiers (at least one is needed)")
        tiers = tuple(
            _build_tier(read, name, value, condition, path + ("tiers", name))
            for name, value in tiers_table.items()
        )
        if condition in ("shape", "enclosure", "area", "column", "row"):
            if "basic" not in tiers_table:
                raise read.sources.error(path + ("tiers", "basic"), "missing tier")
        if condition == "quantity" and set(tiers_table) != {"basic", "advanced"}:
            raise read.sources.error(
                path + ("tiers",), "a quantity condition needs tiers basic and advanced"
            )
        mask = None
        if condition == "area":
            mask = read.get(entry, "mask", str, path)
            if mask not in masks:
                raise read.sources.error(path + ("mask",), f"unknown mask {mask!r}")
        measure = None
        if condition == "adjacency":
            measure = read.choice(entry, "measure", ADJACENCY_MEASURES, path)
        cats = tuple(read.get(entry, "categories", list, path, []))
        for cat in cats:
            if not isinstance(cat, str) or cat not in categories:
                raise read.sources.error(path + ("categories",), f"unknown category {cat!r}")
        per_unit = read.get(entry, "per_unit", bool, path, False)
        if per_unit and len(tiers) != 1:
            raise read.sources.error(path + ("tiers",), "a per-unit condition has one tier")
        cards[card_id] = CardRule(
            id=card_id,
            name=read.get(entry, "name", str, path),
            kind=kind,
            category=category,
            copies=read.non_negative(entry, "copies", path),
            star=read.get(entry, "star", bool, path),
            condition=condition,
            tiers=tuple(sorted(tiers, key=lambda t: (t.requirement, t.min_env_kinds, t.vp))),
            provenance=_provenance(read, entry, path),
            text=read.get(entry, "text", str, path),
            mask=mask,
            measure=measure,
            per_unit=per_unit,
            categories=cats,
        )
    return cards


_OBJECTIVE_PARAMS = {
    "count": ("what", "mask", "min", "max"),
    "corners_distinct": (),
    "category_groups": ("categories",),
    "animal_types_with_count": ("types", "count"),
    "line_all": ("line", "what"),
    "environment_kinds": ("min",),
    "environment_square": (),
    "environment_diagonal": ("direction",),
    "line_distinct_animals": ("line",),
}
OBJECTIVE_WHATS = ("water", "environment", "dry_land", "animal", "lizard", "snake", "turtle")
OBJECTIVE_WHATS += ("cockroach",)


def _build_objectives(read: _Reader, table: Any, masks, categories, cards) -> dict:
    objectives = {}
    for key, entry in read.table(table, ("objectives",)).items():
        path = ("objectives", key)
        if not key.isdigit() or int(key) < 1:
            raise read.sources.error(path, "objective keys are card numbers (1, 2, …)")
        entry = read.table(entry, path)
        kind = read.choice(entry, "kind", OBJECTIVE_KINDS, path)
        allowed = ("kind", "vp", "provenance", "text") + _OBJECTIVE_PARAMS[kind]
        read.no_unknown_keys(entry, allowed, path)
        params = {k: entry[k] for k in _OBJECTIVE_PARAMS[kind] if k in entry}
        if "mask" in params and (
            not isinstance(params["mask"], str) or params["mask"] not in masks
        ):
            raise read.sources.error(path + ("mask",), f"unknown mask {params['mask']!r}")
        whats = params.get("what")
        if whats is not None and not isinstance(whats, str | list):
            raise read.sources.error(path + ("what",), "must be a string or an array of strings")
        for what in [whats] if isinstance(whats, str) else whats or []:
            if not isinstance(what, str) or what not in OBJECTIVE_WHATS:
                raise read.sources.error(path + ("what",), f"unknown card group {what!r}")
        for name in ("min", "max", "types", "count"):
            if name in params:
                read.non_negative(entry, name, path)
        if "line" in params:
            read.choice(entry, "line", ("row", "column"), path)
        if "direction" in params:
            read.choice(entry, "direction", ("down_right", "up_right"), path)
        if "categories" in params:
            read.get(entry, "categories", list, path)
        for cat in params.get("categories", []):
            if not isinstance(cat, str) or cat not in categories:
                raise read.sources.error(path + ("categories",), f"unknown category {cat!r}")
        objectives[int(key)] = Objective(
            number=int(key),
            kind=kind,
            vp=read.non_negative(entry, "vp", path),
            params=MappingProxyType(
                {k: tuple(v) if isinstance(v, list) else v for k, v in params.items()}
            ),
            provenance=_provenance(read, entry, path),
            text=read.get(entry, "text", str, path),
        )
    return dict(sorted(objectives.items()))


def _build_solo(read: _Reader, table: Any) -> SoloRules:
    path = ("solo",)
    table = read.table(table, path)
    level_table = read.table(table.get("level_rules", {}), path + ("level_rules",))
    levels = {}
    for name in SOLO_LEVELS:
        lpath = path + ("level_rules", name)
        if name not in level_table:
            raise read.sources.error(lpath, "missing level")
        entry = read.table(level_table[name], lpath)
        levels[name] = SoloLevel(
            name=name,
            animal_leftovers=read.choice(entry, "animal_leftovers", ("water", "pairs"), lpath),
            mixed_pair_vp=read.choice(entry, "mixed_pair_vp", ("lowest", "highest"), lpath),
            provenance=_provenance(read, entry, lpath),
            text=read.get(entry, "text", str, lpath),
        )
    return SoloRules(
        anole_vp_per_env_kind=read.non_negative(table, "anole_vp_per_env_kind", path),
        anole_max_env_kinds=read.non_negative(table, "anole_max_env_kinds", path),
        roach_vp_per_card=read.non_negative(table, "roach_vp_per_card", path),
        roach_more_than_player_vp=read.non_negative(table, "roach_more_than_player_vp", path),
        water_max_vp=read.non_negative(table, "water_max_vp", path),
        levels=MappingProxyType(levels),
        provenance=_provenance(read, table, path),
        text=read.get(table, "text", str, path),
        anole_note=read.get(table, "anole_note", str, path, ""),
    )
