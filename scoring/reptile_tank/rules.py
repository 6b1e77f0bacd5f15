"""The rules data: load, merge and validate ``scoring/reptile_tank/data/default_rules.toml``.

Every rule value (VP, tiers, shapes, masks, objectives, solo values, the grid, the pad's columns)
lives in the data file; this module turns it into frozen dataclasses and rejects bad values with
a message that names the key and the line of the file it came from. A user's rules file (or an
``overrides`` dict) is deep-merged onto the defaults, so it only needs the values it changes.

Condition and objective kinds, and the parameters each reads, are declared once in
:mod:`scoring.reptile_tank.kinds`; validation here and scoring in the engine read the same declaration.

Examples
--------
>>> rules = load_rules()
>>> rules.cards["blue_tongued_skink"].tiers[-1].vp
13
>>> rules.star_cards
('corn_snake', 'brown_anole', 'rock')
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from scoring.layout import CELL_HOLDS, Layout
from scoring.reptile_tank.cards import CARD_IDS, WATER
from scoring.reptile_tank.describe import tier_sentence
from scoring.reptile_tank.kinds import (
    ADJACENCY_MEASURES,
    CONDITIONS,
    OBJECTIVE_GROUP_KINDS,
    OBJECTIVE_PARAMS,
    OBJECTIVES,
)

DEFAULT_RULES_PATH = Path(__file__).with_name("data") / "default_rules.toml"

PROVENANCES = ("rulebook", "derived", "assumed")
CARD_KINDS = ("animal", "environment")
#: condition kind -> extra card-level keys it needs (from :data:`scoring.reptile_tank.kinds.CONDITIONS`).
CONDITION_KINDS = {name: kind.card_keys for name, kind in CONDITIONS.items()}
OBJECTIVE_KINDS = tuple(OBJECTIVES)
SOLO_LEVELS = ("normal", "hard", "very_hard")
#: Solo: which Environment kinds the Master's anoles count (see ``[solo.adjacency]``).
SOLO_ENV_KINDS = ("dry_land_held", "with_water")

#: Bounds of a rules file: its size, its nesting, the copies of one card (the deck is 126; a
#: Master holds at most 20 cards), a VP value, a tier's count.
MAX_RULES_BYTES = 1024 * 1024
MAX_RULES_DEPTH = 16
MAX_COPIES = 99
MAX_VP = 10_000
MAX_COUNT = 99


class RulesError(ValueError):
    """A rules file that cannot be used; the message names the key and its line."""


@dataclass(frozen=True)
class Tier:
    """One tier of a card's condition (``basic``, ``advanced``, or a water-area size).

    ``count`` is the number of cards of the type the tier needs (exact for shapes, "at least"
    otherwise); ``min`` is the threshold of an adjacency measure; ``shape`` holds
    ``(row, col)`` offsets; ``max_units`` caps a per-unit tier (the anole). ``provenance`` is
    the VP's, ``condition_provenance`` that of the condition (count, shape, min, …). ``text``
    is built from these fields when the rules are loaded (never stored prose).
    """

    name: str
    vp: int
    count: int | None = None
    min: int | None = None
    shape: tuple[tuple[int, int], ...] | None = None
    min_env_kinds: int = 0
    max_units: int | None = None
    provenance: str = "assumed"
    condition_provenance: str = "assumed"
    text: str = ""

    @property
    def requirement(self) -> int:
        """The number that orders tiers from easiest to hardest."""
        return self.count if self.count is not None else (self.min or 0)


@dataclass(frozen=True)
class CardRule:
    """The rule of one card type (or of ``water``), tiers sorted easiest first.

    ``provenance`` is that of the condition kind (and its measure, categories); each tier has
    its own for its VP and its condition.
    """

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
    """One objective card: a checker kind, its parameters, VP and the card's sentence."""

    number: int
    kind: str
    vp: int
    params: Mapping[str, Any]
    provenance: str  # of the VP
    text: str
    condition_provenance: str = "rulebook"


@dataclass(frozen=True)
class Mask:
    name: str
    cells: tuple[tuple[bool, ...], ...]
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
class SoloAdjacency:
    """The Master's adjacency animals (the Brown Anole): VP per Environment kind he holds."""

    vp_per_env_kind: int
    max_env_kinds: int
    env_kinds: str  # one of SOLO_ENV_KINDS
    provenance: str
    env_kinds_provenance: str
    note: str


@dataclass(frozen=True)
class SoloQuantity:
    """The Master's quantity animals (the Dubia Roach)."""

    vp_per_card: int
    more_than_player_vp: int
    provenance: str
    text: str


@dataclass(frozen=True)
class SoloRules:
    adjacency: SoloAdjacency
    quantity: SoloQuantity
    water_max_vp: int
    water_provenance: str
    levels: Mapping[str, SoloLevel]
    provenance: str
    text: str

    @property
    def anole_note(self) -> str:
        return self.adjacency.note


@dataclass(frozen=True)
class Rules:
    """Everything the engine needs; built by :func:`load_rules`."""

    layout: Layout  # the terrarium's rows, columns and card size, from ``[grid]``
    deck_size: int
    categories: Mapping[str, str]  # category -> score pad column
    category_names: Mapping[str, str]  # category -> its name ("Lizards")
    pad_columns: tuple[tuple[str, str], ...]  # (column key, heading), pad order
    masks: Mapping[str, tuple[tuple[bool, ...], ...]]  # layout.rows x layout.cols booleans
    mask_rules: Mapping[str, Mask]
    cards: Mapping[str, CardRule]  # card id (and "water") -> rule
    objectives: Mapping[int, Objective]
    solo: SoloRules
    source: str
    edition: Mapping[str, str]

    @property
    def rows(self) -> int:
        return self.layout.rows

    @property
    def cols(self) -> int:
        return self.layout.cols

    @property
    def column_keys(self) -> tuple[str, ...]:
        return tuple(key for key, _ in self.pad_columns)

    @property
    def star_cards(self) -> tuple[str, ...]:
        """Card ids with a star (removed in 2-3 player games), from the data's ``star`` flags."""
        return tuple(cid for cid, rule in self.cards.items() if rule.star)

    @property
    def majority_card(self) -> str | None:
        """The card type scored by "the most of all players" (the ``quantity`` condition)."""
        return next((cid for cid, r in self.cards.items() if r.condition == "quantity"), None)

    def copies(self, card_id: str) -> int:
        """How many cards of this type the deck holds (``water``: 0, it is every card's back)."""
        return self.cards[card_id].copies

    def name_of(self, card_id: str) -> str:
        """A card's printed name (``"Blue-Tongued Skink"``); unknown labels as given."""
        rule = self.cards.get(card_id)
        return rule.name if rule else card_id

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
        """Dotted keys of every value whose provenance is ``assumed`` (for the app)."""
        keys = []
        for cid, rule in self.cards.items():
            if rule.provenance == "assumed":
                keys.append(f"cards.{cid}")
            for t in rule.tiers:
                if t.provenance == "assumed":
                    keys.append(f"cards.{cid}.tiers.{t.name}")
                elif t.condition_provenance == "assumed":
                    keys.append(f"cards.{cid}.tiers.{t.name}.condition")
        keys += [
            f"masks.{m}" for m, mask in self.mask_rules.items() if mask.provenance == "assumed"
        ]
        keys += [f"objectives.{n}" for n, o in self.objectives.items() if o.provenance == "assumed"]
        if self.solo.adjacency.env_kinds_provenance == "assumed":
            keys.append("solo.adjacency.env_kinds")
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


def _depth(value: Any) -> int:
    """Nesting depth of tables and arrays (a scalar is 0), computed without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, Mapping):
            children = list(item.values())
        elif isinstance(item, list | tuple):
            children = list(item)
        else:
            continue
        deepest = max(deepest, level + 1)
        stack.extend((child, level + 1) for child in children)
    return deepest


def _check_depth(data: Any, label: str) -> Any:
    if _depth(data) > MAX_RULES_DEPTH:
        raise RulesError(f"rules: {label}: nested more than {MAX_RULES_DEPTH} deep")
    return data


def _parse_toml(text: str, label: str) -> dict[str, Any]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"rules: {label}: invalid TOML: {error}") from None
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        raise RulesError(f"rules: {label}: nested more than {MAX_RULES_DEPTH} deep") from None
    return _check_depth(data, label)


def _read_rules_file(path: str | Path) -> str:
    """A rules file's text: a regular file of at most :data:`MAX_RULES_BYTES`, UTF-8 (BOM ok).

    A FIFO, a device (``/dev/zero``) or a folder is refused before reading
    (:mod:`common.safe_io`), so reading never blocks or runs without end.
    """
    from common import safe_io  # standard library only; shared by every reader

    try:
        return safe_io.read_text(path, max_bytes=MAX_RULES_BYTES, what="rules file")
    except safe_io.SafeFileError as error:
        raise RulesError(f"rules: {error}") from None


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
        Unreadable, not a regular file, too large or too deep; invalid TOML, unknown ids or
        keys, masks not the grid's size, negative or huge values, missing tiers, wrong types;
        the message names the dotted key and the file and line.
    """
    default_text = DEFAULT_RULES_PATH.read_text(encoding="utf-8")
    layers: list[tuple[str, str | None, dict]] = [
        (DEFAULT_RULES_PATH.name, default_text, _parse_toml(default_text, DEFAULT_RULES_PATH.name))
    ]
    source = str(DEFAULT_RULES_PATH)
    if path is not None:
        user_text = _read_rules_file(path)
        layers.append((str(path), user_text, _parse_toml(user_text, str(path))))
        source = str(path)
    if overrides:
        layers.append(("overrides", None, _check_depth(_plain(overrides), "overrides")))
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
def default_rules() -> Rules:
    """The default rules data, parsed once (callers must not rely on identity across reloads)."""
    return load_rules()


def default_layout() -> Layout:
    """Reptile Tank's layout, from the default rules data's ``[grid]`` (boards without rules)."""
    return default_rules().layout


def _plain(value: Any) -> Any:
    """Overrides with int keys (objective numbers) become string-keyed like TOML tables."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


# ----------------------------------------------------------------------------- validation


def did_you_mean(key: str, allowed) -> str:
    """`` (did you mean 'x'?)`` when ``key`` is close to one of ``allowed``, else ``""``."""
    close = difflib.get_close_matches(str(key), [str(a) for a in allowed], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


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

    def non_negative(
        self, table: dict, key: str, path: tuple[str, ...], default=..., most: int = MAX_VP
    ) -> int:
        value = self.get(table, key, int, path, default)
        if value is not None and value < 0:
            raise self.sources.error(path + (key,), f"must not be negative, got {value}")
        if value is not None and value > most:
            raise self.sources.error(path + (key,), f"must be at most {most}, got {value}")
        return value

    def choice(self, table: dict, key: str, choices, path: tuple[str, ...], default=...) -> str:
        value = self.get(table, key, str, path, default)
        if value is not None and value not in choices:
            raise self.sources.error(
                path + (key,),
                f"unknown value {value!r}{did_you_mean(value, choices)} "
                f"(expected one of {', '.join(choices)})",
            )
        return value

    def no_unknown_keys(self, table: dict, allowed, path: tuple[str, ...]) -> None:
        for key in table:
            if key not in allowed:
                raise self.sources.error(path + (key,), f"unknown key{did_you_mean(key, allowed)}")

    def text(self, table: dict, path: tuple[str, ...], key: str = "text", default=...) -> str:
        return self.get(table, key, str, path, default)


def _type_name(value: Any) -> str:
    return {dict: "a table", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


_TIER_BASE_KEYS = ("vp", "provenance", "condition_provenance")
_CARD_BASE_KEYS = (
    "name",
    "kind",
    "category",
    "copies",
    "star",
    "condition",
    "provenance",
    "text",
    "tiers",
)
_CARD_KEYS = _CARD_BASE_KEYS + tuple(
    dict.fromkeys(
        k for kind in CONDITIONS.values() for k in kind.card_keys + kind.optional_card_keys
    )
)
_TIER_KEYS = _TIER_BASE_KEYS + tuple(
    dict.fromkeys(
        k for kind in CONDITIONS.values() for k in kind.tier_keys + kind.optional_tier_keys
    )
)
_TOP_KEYS = (
    "edition",
    "grid",
    "pad",
    "deck",
    "categories",
    "masks",
    "cards",
    "objectives",
    "solo",
)


def _build(data: dict, sources: _Sources, source: str) -> Rules:
    read = _Reader(sources)
    read.no_unknown_keys(data, _TOP_KEYS, ())
    layout = _build_layout(read, data.get("grid", {}))
    edition = _build_edition(read, data.get("edition", {}))
    deck = read.table(data.get("deck", {}), ("deck",))
    read.no_unknown_keys(deck, ("size", "provenance", "text"), ("deck",))
    deck_size = read.non_negative(deck, "size", ("deck",), most=MAX_COPIES * len(CARD_IDS))
    _provenance(read, deck, ("deck",))

    pad = read.table(data.get("pad", {}), ("pad",))
    read.no_unknown_keys(pad, ("columns",), ("pad",))
    columns_table = read.table(pad.get("columns", {}), ("pad", "columns"))
    pad_columns = []
    for key, heading in columns_table.items():
        if not isinstance(heading, str):
            raise sources.error(("pad", "columns", key), "a column's heading must be a string")
        pad_columns.append((key, heading))
    if "objectives" not in columns_table:
        raise sources.error(("pad", "columns", "objectives"), "missing column")

    categories_table = read.table(data.get("categories", {}), ("categories",))
    categories, category_names = {}, {}
    for name, entry in categories_table.items():
        cpath = ("categories", name)
        entry = read.table(entry, cpath)
        read.no_unknown_keys(entry, ("column", "name"), cpath)
        categories[name] = read.choice(entry, "column", tuple(columns_table), cpath)
        category_names[name] = read.text(entry, cpath, "name")

    mask_rules = _build_masks(read, data.get("masks", {}), layout)
    masks = {name: mask.cells for name, mask in mask_rules.items()}
    cards = _build_cards(read, data.get("cards", {}), categories, category_names, masks)
    objectives = _build_objectives(read, data.get("objectives", {}), masks, categories)
    solo = _build_solo(read, data.get("solo", {}))
    return Rules(
        layout=layout,
        deck_size=deck_size,
        categories=MappingProxyType(categories),
        category_names=MappingProxyType(category_names),
        pad_columns=tuple(pad_columns),
        masks=MappingProxyType(masks),
        mask_rules=MappingProxyType(mask_rules),
        cards=MappingProxyType(cards),
        objectives=MappingProxyType(objectives),
        solo=solo,
        source=source,
        edition=MappingProxyType(edition),
    )


def _provenance(read: _Reader, table: dict, path: tuple[str, ...], key="provenance") -> str:
    return read.choice(table, key, PROVENANCES, path)


def _build_edition(read: _Reader, table: Any) -> dict[str, str]:
    """``[edition]``: which printing the rules describe (name, version, source); shown on pads."""
    path = ("edition",)
    table = read.table(table, path)
    read.no_unknown_keys(table, ("name", "version", "source"), path)
    edition = {}
    for key in ("name", "version", "source"):
        value = read.text(table, path, key, "")
        if len(value) > 200 or not value.isprintable():
            raise read.sources.error(path + (key,), "must be one printable line of 200 characters")
        if value:
            edition[key] = value
    return edition


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


def _build_masks(read: _Reader, table: Any, layout: Layout) -> dict[str, Mask]:
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
        masks[name] = Mask(
            name=name,
            cells=tuple(tuple(ch == "X" for ch in r) for r in rows),
            provenance=_provenance(read, entry, path),
            text=read.text(entry, path),
        )
    return masks


def _build_tier(read: _Reader, name: str, entry: Any, condition: str, path) -> Tier:
    entry = read.table(entry, path)
    kind = CONDITIONS[condition]
    read.no_unknown_keys(entry, _TIER_KEYS, path)  # every kind's (see _CARD_KEYS)
    vp = read.non_negative(entry, "vp", path)

    def param(key: str):
        if key not in kind.tier_keys and key not in kind.optional_tier_keys:
            return None
        default = ... if key in kind.tier_keys else None
        return read.non_negative(entry, key, path, default, most=MAX_COUNT)

    count, minimum = param("count"), param("min")
    shape = None
    min_env_kinds = param("min_env_kinds") or 0
    if "shape" in kind.tier_keys:
        raw = read.get(entry, "shape", list, path)
        cells = []
        for cell in raw:
            if (
                not isinstance(cell, list)
                or len(cell) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in cell)
                or not all(-MAX_GRID_SIDE <= v <= MAX_GRID_SIDE for v in cell)
            ):
                raise read.sources.error(path + ("shape",), "cells must be [row, col] integers")
            cells.append((cell[0], cell[1]))
        if len(set(cells)) != len(cells) or len(cells) != count:
            raise read.sources.error(
                path + ("shape",), f"the shape must hold {count} distinct cells (its count)"
            )
        shape = tuple(cells)
    if count is not None and count < 1:
        raise read.sources.error(path + ("count",), "must be at least 1")
    return Tier(
        name=name,
        vp=vp,
        count=count,
        min=minimum,
        shape=shape,
        min_env_kinds=min_env_kinds,
        max_units=param("max_units"),
        provenance=_provenance(read, entry, path),
        condition_provenance=_provenance(read, entry, path, "condition_provenance"),
    )


def _build_cards(
    read: _Reader, table: Any, categories: dict, category_names: dict, masks: dict
) -> dict[str, CardRule]:
    table = read.table(table, ("cards",))
    known = CARD_IDS + (WATER,)
    for card_id in table:
        if card_id not in known:
            raise read.sources.error(
                ("cards", card_id), f"unknown card id{did_you_mean(card_id, known)}"
            )
    cards = {}
    for card_id in known:
        path = ("cards", card_id)
        if card_id not in table:
            raise read.sources.error(path, "missing card")
        entry = read.table(table[card_id], path)
        condition = read.choice(entry, "condition", tuple(CONDITIONS), path)
        kind = CONDITIONS[condition]
        # Keys of every kind are known (a house file that changes a card's condition cannot
        # remove the default's ``measure``); only this kind's are read.
        read.no_unknown_keys(entry, _CARD_KEYS, path)
        card_kind = read.choice(entry, "kind", CARD_KINDS, path)
        category = read.choice(entry, "category", tuple(categories), path)
        tiers_table = read.table(entry.get("tiers"), path + ("tiers",)) if "tiers" in entry else {}
        if not tiers_table:
            raise read.sources.error(path + ("tiers",), "missing tiers (at least one is needed)")
        tiers = [
            _build_tier(read, name, value, condition, path + ("tiers", name))
            for name, value in tiers_table.items()
        ]
        for needed in kind.tiers:
            if needed not in tiers_table:
                raise read.sources.error(path + ("tiers", needed), "missing tier")
        if kind.exact_tiers and set(tiers_table) != set(kind.tiers):
            extra = sorted(set(tiers_table) - set(kind.tiers))
            raise read.sources.error(
                path + ("tiers", extra[0]) if extra else path + ("tiers",),
                f"a {condition} condition has exactly the tiers {', '.join(kind.tiers)}",
            )
        mask = None
        if "mask" in kind.card_keys:
            mask = read.get(entry, "mask", str, path)
            if mask not in masks:
                raise read.sources.error(
                    path + ("mask",), f"unknown mask {mask!r}{did_you_mean(mask, masks)}"
                )
        measure = None
        if "measure" in kind.card_keys:
            measure = read.choice(entry, "measure", ADJACENCY_MEASURES, path)
        cats = tuple(read.get(entry, "categories", list, path, []))
        for cat in cats:
            if not isinstance(cat, str) or cat not in categories:
                raise read.sources.error(path + ("categories",), f"unknown category {cat!r}")
        per_unit = read.get(entry, "per_unit", bool, path, False)
        if per_unit and len(tiers) != 1:
            raise read.sources.error(path + ("tiers",), "a per-unit condition has one tier")
        copies = read.non_negative(entry, "copies", path, most=MAX_COPIES)
        rule = CardRule(
            id=card_id,
            name=read.text(entry, path, "name"),
            kind=card_kind,
            category=category,
            copies=copies,
            star=read.get(entry, "star", bool, path),
            condition=condition,
            tiers=tuple(sorted(tiers, key=lambda t: (t.requirement, t.min_env_kinds, t.vp))),
            provenance=_provenance(read, entry, path),
            text=read.text(entry, path),
            mask=mask,
            measure=measure,
            per_unit=per_unit,
            categories=cats,
        )
        last = rule.tiers[-1]
        described = tuple(
            replace(
                t,
                text=tier_sentence(rule, t, largest=t is last, category_names=category_names),
            )
            for t in rule.tiers
        )
        cards[card_id] = replace(rule, tiers=described)
    return cards


OBJECTIVE_WHATS = ("water", "environment", "dry_land", "animal", "lizard", "snake", "turtle")
OBJECTIVE_WHATS += ("cockroach",)
_OBJECTIVE_NUMBER = re.compile(r"[1-9][0-9]{0,3}")


def _build_objectives(read: _Reader, table: Any, masks, categories) -> dict:
    objectives = {}
    whats = tuple(categories) + OBJECTIVE_GROUP_KINDS
    for key, entry in read.table(table, ("objectives",)).items():
        path = ("objectives", key)
        # ASCII digits only: "٣" (Arabic-Indic three) is a digit to str.isdigit and int().
        if not _OBJECTIVE_NUMBER.fullmatch(key):
            raise read.sources.error(path, "objective keys are card numbers 1, 2, … (ASCII digits)")
        entry = read.table(entry, path)
        kind_name = read.choice(entry, "kind", OBJECTIVE_KINDS, path)
        kind = OBJECTIVES[kind_name]
        allowed = ("kind", "vp", "provenance", "condition_provenance", "text") + kind.params
        read.no_unknown_keys(entry, allowed, path)
        params: dict[str, Any] = {}
        for name in kind.params:
            if name not in entry:
                if name in kind.required:
                    raise read.sources.error(path + (name,), "missing")
                continue
            params[name] = _objective_param(read, entry, name, path, masks, whats)
        objectives[int(key)] = Objective(
            number=int(key),
            kind=kind_name,
            vp=read.non_negative(entry, "vp", path),
            params=MappingProxyType(params),
            provenance=_provenance(read, entry, path),
            text=read.text(entry, path),
            condition_provenance=_provenance(read, entry, path, "condition_provenance"),
        )
    return dict(sorted(objectives.items()))


def _objective_param(read: _Reader, entry: dict, name: str, path, masks, whats) -> Any:
    """One objective parameter, checked against its type in ``scoring.reptile_tank.kinds.OBJECTIVE_PARAMS``."""
    kind = OBJECTIVE_PARAMS[name]
    value = entry[name]
    if isinstance(kind, tuple):
        return read.choice(entry, name, kind, path)
    if kind == "count":
        return read.non_negative(entry, name, path, most=MAX_COUNT)
    if kind == "mask":
        if not isinstance(value, str) or value not in masks:
            raise read.sources.error(
                path + (name,), f"unknown mask {value!r}{did_you_mean(value, masks)}"
            )
        return value
    if kind == "what":
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not items:
            raise read.sources.error(path + (name,), "must be a string or an array of strings")
        for what in items:
            if not isinstance(what, str) or what not in whats:
                raise read.sources.error(
                    path + (name,), f"unknown card group {what!r}{did_you_mean(what, whats)}"
                )
        return value if isinstance(value, str) else tuple(items)
    # categories
    items = read.get(entry, name, list, path)
    for cat in items:
        if not isinstance(cat, str) or cat not in whats[: len(whats) - 2]:
            raise read.sources.error(path + (name,), f"unknown category {cat!r}")
    return tuple(items)


def _build_solo(read: _Reader, table: Any) -> SoloRules:
    path = ("solo",)
    table = read.table(table, path)
    read.no_unknown_keys(
        table, ("provenance", "text", "adjacency", "quantity", "water", "level_rules"), path
    )
    level_path = path + ("level_rules",)
    level_table = read.table(table.get("level_rules", {}), level_path)
    read.no_unknown_keys(level_table, SOLO_LEVELS, level_path)
    levels = {}
    for name in SOLO_LEVELS:
        lpath = level_path + (name,)
        if name not in level_table:
            raise read.sources.error(lpath, "missing level")
        entry = read.table(level_table[name], lpath)
        read.no_unknown_keys(
            entry, ("animal_leftovers", "mixed_pair_vp", "provenance", "text"), lpath
        )
        levels[name] = SoloLevel(
            name=name,
            animal_leftovers=read.choice(entry, "animal_leftovers", ("water", "pairs"), lpath),
            mixed_pair_vp=read.choice(entry, "mixed_pair_vp", ("lowest", "highest"), lpath),
            provenance=_provenance(read, entry, lpath),
            text=read.text(entry, lpath),
        )
    apath = path + ("adjacency",)
    adj = read.table(table.get("adjacency", {}), apath)
    read.no_unknown_keys(
        adj,
        (
            "vp_per_env_kind",
            "max_env_kinds",
            "env_kinds",
            "provenance",
            "env_kinds_provenance",
            "note",
        ),
        apath,
    )
    qpath = path + ("quantity",)
    qty = read.table(table.get("quantity", {}), qpath)
    read.no_unknown_keys(qty, ("vp_per_card", "more_than_player_vp", "provenance", "text"), qpath)
    wpath = path + ("water",)
    water = read.table(table.get("water", {}), wpath)
    read.no_unknown_keys(water, ("max_vp", "provenance", "text"), wpath)
    return SoloRules(
        adjacency=SoloAdjacency(
            vp_per_env_kind=read.non_negative(adj, "vp_per_env_kind", apath),
            max_env_kinds=read.non_negative(adj, "max_env_kinds", apath, most=MAX_COUNT),
            env_kinds=read.choice(adj, "env_kinds", SOLO_ENV_KINDS, apath),
            provenance=_provenance(read, adj, apath),
            env_kinds_provenance=_provenance(read, adj, apath, "env_kinds_provenance"),
            note=read.text(adj, apath, "note", ""),
        ),
        quantity=SoloQuantity(
            vp_per_card=read.non_negative(qty, "vp_per_card", qpath),
            more_than_player_vp=read.non_negative(qty, "more_than_player_vp", qpath),
            provenance=_provenance(read, qty, qpath),
            text=read.text(qty, qpath, "text", ""),
        ),
        water_max_vp=read.non_negative(water, "max_vp", wpath),
        water_provenance=_provenance(read, water, wpath),
        levels=MappingProxyType(levels),
        provenance=_provenance(read, table, path),
        text=read.text(table, path),
    )
