"""Score one terrarium: the rulebook's score pad with a reason for every point.

The engine iterates over the rules data: each card type names a condition kind, and each kind
maps to one group finder in :data:`FINDERS`. Adding a card type never means editing the engine.

Examples
--------
>>> from scoring.board import Board
>>> from scoring.rules import load_rules
>>> board = Board.from_rows([["water"] * 5] + [["empty"] * 5] * 3)
>>> score_board(board, load_rules()).water
8
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from typing import Any

from scoring.board import Board, BoardError
from scoring.cards import WATER
from scoring.layout import Layout
from scoring.packing import Candidate, best_packing
from scoring.rules import CardRule, Rules, Tier

PAD_COLUMNS = ("lizards", "snakes", "turtles", "cockroach", "water", "dry_land", "objectives")
#: conditions whose groups count as "3-card sets" for the tie-break when they use >= 3 cards
THREE_CARD_SET_CONDITIONS = ("shape", "enclosure", "area", "column", "row")
#: a tie-break bonus smaller than 1 VP: among equal-VP partitions prefer more 3-card sets
_SET_BONUS_SCALE = 64

Cell = tuple[int, int]

_EDGE_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))
_DIAGONAL_STEPS = ((-1, -1), (-1, 1), (1, -1), (1, 1))


@dataclass(frozen=True)
class Geometry:
    """A layout's cells as flat indices (row-major) and their neighbours."""

    layout: Layout
    edge: tuple[tuple[int, ...], ...]
    diagonal: tuple[tuple[int, ...], ...]

    @property
    def size(self) -> int:
        return self.layout.cell_count

    def cell(self, index: int) -> Cell:
        return divmod(index, self.layout.cols)

    def index(self, row: int, col: int) -> int:
        return row * self.layout.cols + col

    def where(self, indices: Iterable[int]) -> str:
        """Cells as players say them: ``row 1, column 2; row 2, column 2`` (1-based)."""
        return "; ".join(Layout.describe(*self.cell(i)) for i in sorted(indices))


@lru_cache(maxsize=16)
def geometry(layout: Layout) -> Geometry:
    """The neighbourhoods of ``layout`` (cached per layout value)."""

    def neighbours(index: int, steps: Sequence[Cell]) -> tuple[int, ...]:
        r, c = divmod(index, layout.cols)
        return tuple(
            (r + dr) * layout.cols + c + dc for dr, dc in steps if layout.contains(r + dr, c + dc)
        )

    n = layout.cell_count
    return Geometry(
        layout=layout,
        edge=tuple(neighbours(i, _EDGE_STEPS) for i in range(n)),
        diagonal=tuple(neighbours(i, _DIAGONAL_STEPS) for i in range(n)),
    )


@dataclass(frozen=True)
class Variant:
    """Game options that change what is legal (never global state).

    ``players``: players at the table (``None``: unknown). ``star_cards_removed``: whether the
    star cards were taken out. The rulebook only *recommends* removing them with 2–3 players
    (its own 3-player score pad example uses them), so ``None`` (not stated) never warns.
    """

    players: int | None = None
    star_cards_removed: bool | None = None

    @property
    def stars_removed(self) -> bool:
        return bool(self.star_cards_removed)


@dataclass(frozen=True)
class ScoringGroup:
    """One line of the explanation: a group of cells that scores ``vp`` in pad ``column``."""

    card_type: str
    column: str
    cells: tuple[Cell, ...]
    tier: str
    vp: int
    reason: str
    condition: str = ""
    provenance: str = ""  # of the tier's VP: "rulebook", "derived" or "assumed"

    def to_json(self) -> dict[str, Any]:
        return {
            "card_type": self.card_type,
            "column": self.column,
            "cells": [list(cell) for cell in self.cells],
            "tier": self.tier,
            "vp": self.vp,
            "reason": self.reason,
            "condition": self.condition,
            "provenance": self.provenance,
        }


@dataclass
class ScorePad:
    """The score pad of one terrarium. The columns sum to ``total``; the groups sum to it too."""

    lizards: int = 0
    snakes: int = 0
    turtles: int = 0
    cockroach: int = 0
    water: int = 0
    dry_land: int = 0
    objectives: int = 0
    total: int = 0
    groups: list[ScoringGroup] = field(default_factory=list)
    non_scoring: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    three_card_sets: int = 0
    dry_land_cards: int = 0
    objectives_met: list[int] = field(default_factory=list)
    objectives_failed: list[int] = field(default_factory=list)

    def column_totals(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in PAD_COLUMNS}

    def to_json(self) -> dict[str, Any]:
        """The design.md keys (columns, total, groups, pending) plus the extras."""
        out: dict[str, Any] = self.column_totals()
        out["total"] = self.total
        out["groups"] = [group.to_json() for group in self.groups]
        out["pending"] = list(self.pending)
        out["non_scoring"] = list(self.non_scoring)
        out["warnings"] = list(self.warnings)
        out["three_card_sets"] = self.three_card_sets
        out["dry_land_cards"] = self.dry_land_cards
        out["objectives_met"] = list(self.objectives_met)
        out["objectives_failed"] = list(self.objectives_failed)
        return out


@dataclass
class _Context:
    """What every finder may look at: the flat board, the rules, the game options."""

    labels: tuple[str, ...]
    rules: Rules
    geo: Geometry
    roach_majority: bool | None
    env: tuple[bool, ...]
    animal: tuple[bool, ...]

    @classmethod
    def build(cls, board: Board, rules: Rules, roach_majority: bool | None) -> _Context:
        labels = tuple(label for row in board.rows for label in row)
        return cls(
            labels=labels,
            rules=rules,
            geo=geometry(rules.layout),
            roach_majority=roach_majority,
            env=tuple(rules.is_environment(label) for label in labels),
            animal=tuple(rules.is_animal(label) for label in labels),
        )

    def cells_of(self, card_id: str) -> list[int]:
        return [i for i, label in enumerate(self.labels) if label == card_id]


@dataclass
class _Found:
    groups: list[ScoringGroup] = field(default_factory=list)
    non_scoring: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)


def _best_tier(tiers: Sequence[Tier], value: int, attr: str = "count") -> Tier | None:
    """The highest tier whose requirement (``count`` or ``min``) is met by ``value``."""
    met = [t for t in tiers if getattr(t, attr) is not None and getattr(t, attr) <= value]
    return max(met, key=lambda t: (t.vp, getattr(t, attr))) if met else None


def _group(ctx: _Context, rule: CardRule, cells: Iterable[int], tier: Tier, vp: int, why: str):
    rules = ctx.rules
    return ScoringGroup(
        card_type=rule.id,
        column=rules.column_of(rule.id),
        cells=tuple(ctx.geo.cell(i) for i in sorted(cells)),
        tier=tier.name,
        vp=vp,
        reason=f"{rule.name}: {why}",
        condition=rule.condition,
        provenance=tier.provenance,
    )


def _env_kinds(ctx: _Context, indices: Iterable[int], exclude=()) -> set[str]:
    kinds = set()
    for i in indices:
        for j in ctx.geo.edge[i]:
            if ctx.env[j] and j not in exclude:
                kinds.add(ctx.labels[j])
    return kinds


# ----------------------------------------------------------------------------- shapes


@lru_cache(maxsize=256)
def orientations(shape: tuple[Cell, ...]) -> tuple[tuple[Cell, ...], ...]:
    """Every distinct rotation/reflection of ``shape``, normalised to min row/col 0."""
    seen = []
    cells = list(shape)
    for _ in range(2):
        for _ in range(4):
            cells = [(c, -r) for r, c in cells]  # rotate 90 degrees
            top = min(r for r, _ in cells)
            left = min(c for _, c in cells)
            norm = tuple(sorted((r - top, c - left) for r, c in cells))
            if norm not in seen:
                seen.append(norm)
        cells = [(r, -c) for r, c in cells]  # reflect
    return tuple(seen)


def shape_placements(shape: tuple[Cell, ...], layout: Layout) -> tuple[int, ...]:
    """Bitmasks of every placement of ``shape`` (any orientation) inside ``layout``'s grid."""
    return _placements(shape, layout.rows, layout.cols)


@lru_cache(maxsize=256)
def _placements(shape: tuple[Cell, ...], rows: int, cols: int) -> tuple[int, ...]:
    masks = []
    for form in orientations(shape):
        height = max(r for r, _ in form) + 1
        width = max(c for _, c in form) + 1
        for r0 in range(rows - height + 1):
            for c0 in range(cols - width + 1):
                mask = 0
                for r, c in form:
                    mask |= 1 << ((r0 + r) * cols + c0 + c)
                if mask not in masks:
                    masks.append(mask)
    return tuple(masks)


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def _weight(vp: int, n_cards: int) -> int:
    return vp * _SET_BONUS_SCALE + (1 if n_cards >= 3 else 0)


def _explain_leftovers(
    ctx: _Context, rule: CardRule, own: list[int], used: int, possible: int
) -> list[str]:
    basic = rule.tiers[0]
    out = []
    for i in own:
        if used >> i & 1:
            continue
        if possible >> i & 1:
            why = "its possible sets overlap sets that score more"
        else:
            why = f"in no qualifying set ({basic.text})"
        out.append(f"{rule.id} at {ctx.geo.where([i])}: {why}")
    return out


def _offer(best: dict[int, Candidate], cand: Candidate) -> None:
    """Keep the heaviest candidate per set of cells."""
    if cand.mask not in best or best[cand.mask].weight < cand.weight:
        best[cand.mask] = cand


def _pack_best(ctx: _Context, rule: CardRule, own, best: dict[int, Candidate], describe) -> _Found:
    """Choose the VP-maximising disjoint family of candidate sets and explain every card.

    Each candidate's payload is ``(tier, cells, extra)``; ``describe(tier, cells, extra)`` gives
    the group's reason sentence.
    """
    found = _Found()
    _, chosen = best_packing(list(best.values()))
    used = 0
    for cand in chosen:
        tier, cells, extra = cand.payload
        used |= cand.mask
        found.groups.append(
            _group(ctx, rule, cells, tier, tier.vp, describe(tier, cells, extra))
        )
    possible = 0
    for mask in best:
        possible |= mask
    found.non_scoring += _explain_leftovers(ctx, rule, own, used, possible)
    return found


def find_shape_sets(ctx: _Context, rule: CardRule) -> _Found:
    """Shape + environment condition: the VP-maximising partition into sets."""
    own = ctx.cells_of(rule.id)
    found = _Found()
    if not own:
        return found
    own_mask = sum(1 << i for i in own)
    best: dict[int, Candidate] = {}
    for tier in rule.tiers:
        if tier.shape is None:
            continue
        for mask in _placements(tier.shape, ctx.geo.layout.rows, ctx.geo.layout.cols):
            if mask & own_mask != mask:
                continue
            cells = _bits(mask)
            kinds = _env_kinds(ctx, cells)
            if len(kinds) < tier.min_env_kinds:
                continue
            _offer(best, Candidate(mask, _weight(tier.vp, len(cells)), (tier, cells, kinds)))
    return _pack_best(
        ctx,
        rule,
        own,
        best,
        lambda tier, cells, kinds: (
            f"{tier.text} Cells {ctx.geo.where(cells)}; Environments adjacent: {', '.join(sorted(kinds))}."
        ),
    )


def find_enclosures(ctx: _Context, rule: CardRule) -> _Found:
    """Enclosure condition: turtles around one Environment card, each turtle once; maximised."""
    found = _Found()
    own = ctx.cells_of(rule.id)
    if not own:
        return found
    smallest = min(t.count for t in rule.tiers)
    best: dict[int, Candidate] = {}
    for e in range(len(ctx.labels)):
        if not ctx.env[e]:
            continue
        around = [j for j in ctx.geo.edge[e] if ctx.labels[j] == rule.id]
        for size in range(smallest, len(around) + 1):
            for subset in combinations(around, size):
                tier = _best_tier(rule.tiers, size)
                if tier is None:
                    continue
                mask = sum(1 << j for j in subset)
                _offer(best, Candidate(mask, _weight(tier.vp, size), (tier, list(subset), e)))
    return _pack_best(
        ctx,
        rule,
        own,
        best,
        lambda tier, cells, e: (
            f"{tier.text} Turtles {ctx.geo.where(cells)} around {ctx.labels[e]} at {ctx.geo.where([e])}."
        ),
    )


def find_area_group(ctx: _Context, rule: CardRule) -> _Found:
    """Area condition: cards of the type in the marked cells; fulfilled once."""
    found = _Found()
    own = ctx.cells_of(rule.id)
    if not own:
        return found
    mask = ctx.rules.masks[rule.mask]
    inside = [i for i in own if mask[i // ctx.geo.layout.cols][i % ctx.geo.layout.cols]]
    tier = _best_tier(rule.tiers, len(inside))
    if tier is not None:
        why = f"{tier.text} {len(inside)} in the marked cells {ctx.geo.where(inside)}."
        found.groups.append(_group(ctx, rule, inside, tier, tier.vp, why))
    else:
        need = rule.tiers[0].count
        for i in inside:
            found.non_scoring.append(
                f"{rule.id} at {ctx.geo.where([i])}: {len(inside)} in the marked cells, needs {need}"
            )
    for i in own:
        if i not in inside:
            found.non_scoring.append(f"{rule.id} at {ctx.geo.where([i])}: outside the marked cells")
    return found


def _find_line_groups(ctx: _Context, rule: CardRule, axis: str) -> _Found:
    found = _Found()
    own = ctx.cells_of(rule.id)
    if not own:
        return found
    lines: dict[int, list[int]] = {}
    for i in own:
        r, c = ctx.geo.cell(i)
        lines.setdefault(c if axis == "column" else r, []).append(i)
    for index, cells in sorted(lines.items()):
        tier = _best_tier(rule.tiers, len(cells))
        if tier is not None:
            why = f"{tier.text} {len(cells)} in {axis} {index}: {ctx.geo.where(cells)}."
            found.groups.append(_group(ctx, rule, cells, tier, tier.vp, why))
        else:
            need = rule.tiers[0].count
            for i in cells:
                found.non_scoring.append(
                    f"{rule.id} at {ctx.geo.where([i])}: only {len(cells)} in {axis} {index}, needs {need}"
                )
    return found


def find_column_groups(ctx: _Context, rule: CardRule) -> _Found:
    """Column condition: once per column."""
    return _find_line_groups(ctx, rule, "column")


def find_row_groups(ctx: _Context, rule: CardRule) -> _Found:
    """Row condition: once per row."""
    return _find_line_groups(ctx, rule, "row")


def _measure(ctx: _Context, rule: CardRule, i: int) -> tuple[int, str, str]:
    """The adjacency measure of the card at ``i``: (value, what is counted, which ones)."""
    if rule.measure == "env_kinds_edge":
        kinds = sorted(_env_kinds(ctx, [i]))
        return len(kinds), "different Environment kinds adjacent", ", ".join(kinds)
    if rule.measure == "env_diagonal":
        envs = [j for j in ctx.geo.diagonal[i] if ctx.env[j]]
        return len(envs), "Environment cards diagonally adjacent", ctx.geo.where(envs)
    if rule.measure == "animals_edge":
        animals = [j for j in ctx.geo.edge[i] if ctx.animal[j]]
        return len(animals), "Animal cards adjacent", ctx.geo.where(animals)
    if rule.measure == "animal_categories_edge":
        cats = {
            ctx.rules.category_of(ctx.labels[j])
            for j in ctx.geo.edge[i]
            if ctx.animal[j] and ctx.rules.category_of(ctx.labels[j]) in rule.categories
        }
        return len(cats), "Animal categories adjacent", ", ".join(sorted(cats))
    raise ValueError(f"unknown adjacency measure {rule.measure!r}")


def find_adjacency_groups(ctx: _Context, rule: CardRule) -> _Found:
    """Adjacency condition, per card (rock, hollow log, scarlet star, brown anole)."""
    found = _Found()
    for i in ctx.cells_of(rule.id):
        value, noun, which = _measure(ctx, rule, i)
        if rule.per_unit:
            tier = rule.tiers[0]
            units = min(value, tier.max_units) if tier.max_units is not None else value
            vp = units * tier.vp if value >= (tier.min or 0) else 0
        else:
            tier = _best_tier(rule.tiers, value, "min")
            vp = tier.vp if tier else 0
        if tier is not None and vp > 0:
            why = f"{tier.text} At {ctx.geo.where([i])}: {value} {noun}: {which}."
            found.groups.append(_group(ctx, rule, [i], tier, vp, why))
        elif value == 0:
            found.non_scoring.append(f"{rule.id} at {ctx.geo.where([i])}: no {noun}")
        else:
            need = rule.tiers[0].min
            found.non_scoring.append(
                f"{rule.id} at {ctx.geo.where([i])}: {value} {noun} ({which}), needs {need}"
            )
    return found


def find_quantity_group(ctx: _Context, rule: CardRule) -> _Found:
    """Quantity condition (dubia roach): exactly one, or the most of all players; not both."""
    found = _Found()
    own = ctx.cells_of(rule.id)
    n = len(own)
    if n == 0:
        return found
    exactly_one, most = rule.tier("basic"), rule.tier("advanced")
    majority = ctx.roach_majority
    if majority:
        why = f"{most.text} {n} in the terrarium."
        found.groups.append(_group(ctx, rule, own, most, most.vp, why))
        return found
    if n == 1:
        why = f"{exactly_one.text} At {ctx.geo.where(own)}."
        found.groups.append(_group(ctx, rule, own, exactly_one, exactly_one.vp, why))
    else:
        state = "not the most" if majority is False else "the majority is pending"
        found.non_scoring.append(
            f"{rule.id}: {n} in the terrarium, not exactly one; {state} ({ctx.geo.where(own)})"
        )
    if majority is None:
        instead = f"instead of {exactly_one.vp} " if n == 1 else ""
        found.pending.append(
            f"{rule.id}: {most.vp} VP {instead}if no other player has more than {n} "
            "(needs the other players' boards)"
        )
    return found


def find_water_areas(ctx: _Context, rule: CardRule) -> _Found:
    """Connected water areas: each edge-connected area scores by its size."""
    found = _Found()
    seen: set[int] = set()
    for start, label in enumerate(ctx.labels):
        if label != rule.id or start in seen:
            continue
        area, stack = [], [start]
        seen.add(start)
        while stack:
            i = stack.pop()
            area.append(i)
            for j in ctx.geo.edge[i]:
                if ctx.labels[j] == rule.id and j not in seen:
                    seen.add(j)
                    stack.append(j)
        tier = _best_tier(rule.tiers, len(area))
        if tier is not None:
            why = f"{tier.text} A {len(area)}-card area {ctx.geo.where(area)}."
            found.groups.append(_group(ctx, rule, area, tier, tier.vp, why))
    return found


#: condition kind (from the rules data) -> group finder
FINDERS: dict[str, Callable[[_Context, CardRule], _Found]] = {
    "shape": find_shape_sets,
    "enclosure": find_enclosures,
    "area": find_area_group,
    "column": find_column_groups,
    "row": find_row_groups,
    "adjacency": find_adjacency_groups,
    "quantity": find_quantity_group,
    "water_area": find_water_areas,
}


def board_warnings(board: Board, rules: Rules, variant: Variant | None = None) -> list[str]:
    """Why a board cannot exist: more copies than the deck holds, removed star cards."""
    variant = variant or Variant()
    warnings = []
    for card_id, rule in rules.cards.items():
        if card_id == WATER:
            continue
        n = board.count(card_id)
        if n > rule.copies:
            warnings.append(
                f"{n} {card_id} cards on the board, but the deck holds only {rule.copies}"
            )
        if n and rule.star and variant.stars_removed:
            who = f"{variant.players}-player game" if variant.players else "this game"
            warnings.append(f"{card_id} is a star card, removed in {who}, yet {n} on the board")
    return warnings


def score_board(
    board: Board,
    rules: Rules,
    *,
    objectives: Iterable[int] = (),
    roach_majority: bool | None = None,
    variant: Variant | None = None,
) -> ScorePad:
    """Score one terrarium.

    Parameters
    ----------
    board : Board
        The 4x5 terrarium (``empty`` cells allowed: a partial board scores as it stands).
    rules : Rules
        From :func:`scoring.rules.load_rules`.
    objectives : iterable of int
        Objective card numbers in play (variant).
    roach_majority : bool or None
        Whether this player has the most roaches of all players (ties included). ``None`` when
        the other boards are unknown: the 12 VP majority is then reported in ``pending``.
    variant : Variant, optional
        Player count / star-card options, for warnings.

    Returns
    -------
    ScorePad
        Columns, total, the explaining groups, and why cards score nothing.
    """
    from scoring.objectives import check_objectives  # objectives need the groups

    if board.layout != rules.layout:
        raise BoardError(
            f"the board is {board.layout.rows}x{board.layout.cols} ({board.layout.name}), "
            f"the rules' grid is {rules.layout.rows}x{rules.layout.cols} ({rules.layout.name})"
        )
    ctx = _Context.build(board, rules, roach_majority)
    pad = ScorePad()
    for rule in rules.cards.values():
        found = FINDERS[rule.condition](ctx, rule)
        pad.groups += found.groups
        pad.non_scoring += found.non_scoring
        pad.pending += found.pending
    for group in pad.groups:
        if group.condition in THREE_CARD_SET_CONDITIONS and len(group.cells) >= 3:
            pad.three_card_sets += 1
    pad.dry_land_cards = sum(1 for label in ctx.labels if rules.category_of(label) == "dry_land")
    pad.groups.sort(key=lambda g: PAD_COLUMNS.index(g.column))  # pad order, stable
    met, failed = check_objectives(board, rules, objectives, pad.groups)
    pad.groups += met
    pad.objectives_met = [int(g.card_type.split("_")[1]) for g in met]
    pad.objectives_failed = failed
    for group in pad.groups:
        setattr(pad, group.column, getattr(pad, group.column) + group.vp)
    pad.total = sum(pad.column_totals().values())
    pad.warnings = board_warnings(board, rules, variant)
    return pad
