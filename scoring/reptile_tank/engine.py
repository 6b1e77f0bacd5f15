"""Score one terrarium: the rulebook's score pad with a reason for every point.

The engine iterates over the rules data: each card type names a condition kind (declared in
:mod:`scoring.reptile_tank.kinds`), and each kind maps to one group finder in :data:`FINDERS`. Adding a card
type never means editing the engine. Every line says which rule values it used (``uses``), and
its reason is built from those values and the cells found, with card names and 1-based
positions ("row 1, column 2"). Every card on the board is in exactly one scoring line or one
not-scoring line.

Examples
--------
>>> from scoring.reptile_tank.board import Board
>>> from scoring.reptile_tank.rules import load_rules
>>> board = Board.from_rows([["water"] * 5] + [["empty"] * 5] * 3)
>>> score_board(board, load_rules()).water
8
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations

from scoring.layout import Layout
from scoring.reptile_tank.board import Board, BoardError
from scoring.reptile_tank.cards import WATER
from scoring.reptile_tank.describe import measure_noun, plural, shape_phrase, singular
from scoring.reptile_tank.kinds import CONDITIONS
from scoring.reptile_tank.objectives import check_objectives
from scoring.reptile_tank.packing import Candidate, best_packing
from scoring.reptile_tank.pad import NotScoring, ScorePad, ScoringGroup
from scoring.reptile_tank.rules import CardRule, Rules, Tier

__all__ = ["ScorePad", "ScoringGroup", "NotScoring", "Variant", "score_board", "FINDERS"]

#: conditions whose groups count as "3-card sets" for the tie-break when they use >= 3 cards
THREE_CARD_SET_CONDITIONS = tuple(name for name, kind in CONDITIONS.items() if kind.sets)
#: a tie-break bonus smaller than 1 VP: among equal-VP partitions prefer more 3-card sets, then
#: groups holding more cards (the fourth turtle of an enclosure belongs to it)
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
    non_scoring: list[NotScoring] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)


def _best_tier(tiers: Sequence[Tier], value: int, attr: str = "count") -> Tier | None:
    """The highest tier whose requirement (``count`` or ``min``) is met by ``value``."""
    met = [t for t in tiers if getattr(t, attr) is not None and getattr(t, attr) <= value]
    return max(met, key=lambda t: (t.vp, getattr(t, attr))) if met else None


def rule_uses(rules: Rules, rule: CardRule, tier: Tier) -> tuple[tuple[str, str], ...]:
    """Every rule value a line of ``rule`` scored at ``tier`` rests on, with its provenance."""
    base = f"cards.{rule.id}"
    uses = [
        (base, rule.provenance),
        (f"{base}.tiers.{tier.name}.vp", tier.provenance),
        (f"{base}.tiers.{tier.name}.condition", tier.condition_provenance),
    ]
    if rule.mask is not None:
        uses.append((f"masks.{rule.mask}", rules.mask_rules[rule.mask].provenance))
    return tuple(uses)


def _group(ctx: _Context, rule: CardRule, cells: Iterable[int], tier: Tier, vp: int, why: str):
    """A scoring line: ``"<Name> (<tier>): <what was found>: <vp> VP"``."""
    return ScoringGroup(
        card_type=rule.id,
        column=ctx.rules.column_of(rule.id),
        cells=tuple(ctx.geo.cell(i) for i in sorted(cells)),
        tier=tier.name,
        vp=vp,
        reason=f"{rule.name} ({tier.name}): {why}: {vp} VP",
        condition=rule.condition,
        uses=rule_uses(ctx.rules, rule, tier),
    )


def _not_scoring(ctx: _Context, rule: CardRule, cells: Iterable[int], why: str) -> NotScoring:
    cells = sorted(cells)
    return NotScoring(
        card_type=rule.id,
        cells=tuple(ctx.geo.cell(i) for i in cells),
        reason=f"{rule.name} at {ctx.geo.where(cells)}: {why}",
    )


def _names(ctx: _Context, labels: Iterable[str]) -> str:
    return ", ".join(sorted(ctx.rules.name_of(label) for label in set(labels)))


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
    """VP first, then a 3-card set, then more cards (sums of the last two never reach 1 VP)."""
    return (vp * _SET_BONUS_SCALE + (1 if n_cards >= 3 else 0)) * _SET_BONUS_SCALE + n_cards


def _explain_leftovers(
    ctx: _Context, rule: CardRule, own: list[int], used: int, possible: int, never: str
) -> list[NotScoring]:
    out = []
    for i in own:
        if used >> i & 1:
            continue
        if possible >> i & 1:
            why = "each of its possible groups overlaps groups that score more"
        else:
            why = never
        out.append(_not_scoring(ctx, rule, [i], why))
    return out


def _offer(best: dict[int, Candidate], cand: Candidate) -> None:
    """Keep the heaviest candidate per set of cells."""
    if cand.mask not in best or best[cand.mask].weight < cand.weight:
        best[cand.mask] = cand


def _pack_best(
    ctx: _Context, rule: CardRule, own, best: dict[int, Candidate], describe, never: str
) -> _Found:
    """Choose the VP-maximising disjoint family of candidate sets and explain every card.

    Each candidate's payload is ``(tier, cells, extra)``; ``describe(tier, cells, extra)`` says
    what was found; ``never`` why a card in no candidate scores nothing.
    """
    found = _Found()
    _, chosen = best_packing(list(best.values()))
    used = 0
    for cand in sorted(chosen, key=lambda c: min(c.payload[1])):
        tier, cells, extra = cand.payload
        used |= cand.mask
        found.groups.append(_group(ctx, rule, cells, tier, tier.vp, describe(tier, cells, extra)))
    possible = 0
    for mask in best:
        possible |= mask
    found.non_scoring += _explain_leftovers(ctx, rule, own, used, possible, never)
    return found


def _shape_missed(ctx: _Context, rule: CardRule, tier: Tier, cells: list[int], own_mask: int):
    """Why a set scored ``tier`` and not a higher one its cards were part of, or ``""``."""
    notes = []
    for higher in rule.tiers:
        if higher.shape is None or higher.vp <= tier.vp:
            continue
        layout = ctx.geo.layout
        for mask in _placements(higher.shape, layout.rows, layout.cols):
            if mask & own_mask != mask or not any(mask >> i & 1 for i in cells):
                continue
            kinds = _env_kinds(ctx, _bits(mask))
            if len(kinds) < higher.min_env_kinds:
                had = f"{plural(len(kinds), 'kind')}: {_names(ctx, kinds)}" if kinds else "none"
                notes.append(
                    f"not {higher.name} ({higher.vp} VP): {ctx.geo.where(_bits(mask))} has "
                    f"{plural(higher.min_env_kinds, 'different Environment kind')} needed "
                    f"adjacent, had {had}"
                )
                break
    return "; ".join(notes)


def find_shape_sets(ctx: _Context, rule: CardRule) -> _Found:
    """Shape + environment condition: the VP-maximising partition into sets."""
    own = ctx.cells_of(rule.id)
    if not own:
        return _Found()
    own_mask = sum(1 << i for i in own)
    best: dict[int, Candidate] = {}
    layout = ctx.geo.layout
    for tier in rule.tiers:
        for mask in _placements(tier.shape, layout.rows, layout.cols):
            if mask & own_mask != mask:
                continue
            cells = _bits(mask)
            kinds = _env_kinds(ctx, cells)
            if len(kinds) < tier.min_env_kinds:
                continue
            _offer(best, Candidate(mask, _weight(tier.vp, len(cells)), (tier, cells, kinds)))

    def describe(tier: Tier, cells: list[int], kinds: set[str]) -> str:
        why = (
            f"{len(cells)} {shape_phrase(tier.shape)} at {ctx.geo.where(cells)} with "
            f"{plural(len(kinds), 'different Environment kind')} adjacent ({_names(ctx, kinds)}; "
            f"needs {tier.min_env_kinds})"
        )
        missed = _shape_missed(ctx, rule, tier, cells, own_mask)
        return f"{why}; {missed}" if missed else why

    basic = rule.tiers[0]
    never = (
        f"in no {shape_phrase(basic.shape)} group of {basic.count} with "
        f"{plural(basic.min_env_kinds, 'different Environment kind')} adjacent"
    )
    return _pack_best(ctx, rule, own, best, describe, never)


def find_enclosures(ctx: _Context, rule: CardRule) -> _Found:
    """Enclosure condition: turtles around one Environment card, each turtle once; maximised."""
    own = ctx.cells_of(rule.id)
    if not own:
        return _Found()
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

    def describe(tier: Tier, cells: list[int], e: int) -> str:
        return (
            f"{len(cells)} at {ctx.geo.where(cells)} around the "
            f"{ctx.rules.name_of(ctx.labels[e])} at {ctx.geo.where([e])} (needs at least "
            f"{tier.count})"
        )

    never = f"not one of {smallest} or more adjacent to the same Environment card"
    return _pack_best(ctx, rule, own, best, describe, never)


def find_area_group(ctx: _Context, rule: CardRule) -> _Found:
    """Area condition: cards of the type in the marked cells; fulfilled once."""
    found = _Found()
    own = ctx.cells_of(rule.id)
    if not own:
        return found
    mask = ctx.rules.masks[rule.mask]
    cols = ctx.geo.layout.cols
    inside = [i for i in own if mask[i // cols][i % cols]]
    tier = _best_tier(rule.tiers, len(inside))
    if tier is not None:
        counted = inside
        # Fulfilled once: cards beyond the highest tier's count add nothing.
        why = (
            f"{len(inside)} in the marked cells ({rule.mask}) at {ctx.geo.where(counted)} "
            f"(needs at least {tier.count})"
        )
        found.groups.append(_group(ctx, rule, inside, tier, tier.vp, why))
    elif inside:
        need = rule.tiers[0].count
        found.non_scoring.append(
            _not_scoring(
                ctx,
                rule,
                inside,
                f"{len(inside)} in the marked cells ({rule.mask}), at least {need} needed",
            )
        )
    outside = [i for i in own if i not in inside]
    if outside:
        found.non_scoring.append(
            _not_scoring(ctx, rule, outside, f"outside the marked cells ({rule.mask})")
        )
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
            why = (
                f"{len(cells)} in {axis} {index + 1} at {ctx.geo.where(cells)} "
                f"(needs at least {tier.count})"
            )
            found.groups.append(_group(ctx, rule, cells, tier, tier.vp, why))
        else:
            need = rule.tiers[0].count
            found.non_scoring.append(
                _not_scoring(
                    ctx, rule, cells, f"only {len(cells)} in {axis} {index + 1}, {need} needed"
                )
            )
    return found


def find_column_groups(ctx: _Context, rule: CardRule) -> _Found:
    """Column condition: once per column."""
    return _find_line_groups(ctx, rule, "column")


def find_row_groups(ctx: _Context, rule: CardRule) -> _Found:
    """Row condition: once per row."""
    return _find_line_groups(ctx, rule, "row")


def _measure(ctx: _Context, rule: CardRule, i: int) -> tuple[int, str]:
    """The adjacency measure of the card at ``i``: (value, which ones)."""
    if rule.measure == "env_kinds_edge":
        kinds = _env_kinds(ctx, [i])
        return len(kinds), _names(ctx, kinds)
    if rule.measure == "env_diagonal":
        envs = [j for j in ctx.geo.diagonal[i] if ctx.env[j]]
        return len(envs), ctx.geo.where(envs)
    if rule.measure == "animals_edge":
        animals = [j for j in ctx.geo.edge[i] if ctx.animal[j]]
        return len(animals), ctx.geo.where(animals)
    if rule.measure == "animal_categories_edge":
        cats = {
            ctx.rules.category_of(ctx.labels[j])
            for j in ctx.geo.edge[i]
            if ctx.animal[j] and ctx.rules.category_of(ctx.labels[j]) in rule.categories
        }
        return len(cats), ", ".join(sorted(ctx.rules.category_names[c] for c in cats))
    raise ValueError(f"unknown adjacency measure {rule.measure!r}")


def find_adjacency_groups(ctx: _Context, rule: CardRule) -> _Found:
    """Adjacency condition, per card (rock, hollow log, scarlet star, brown anole)."""
    found = _Found()
    noun = measure_noun(rule.measure, (), ctx.rules.category_names)
    for i in ctx.cells_of(rule.id):
        value, which = _measure(ctx, rule, i)
        counted = f"{value} {singular(noun) if value == 1 else noun}"
        if rule.per_unit:
            tier = rule.tiers[0]
            units = min(value, tier.max_units) if tier.max_units is not None else value
            vp = units * tier.vp if value >= (tier.min or 0) else 0
            detail = f"{units} x {tier.vp} VP" + (
                f" (at most {tier.max_units})" if units < value else ""
            )
        else:
            tier = _best_tier(rule.tiers, value, "min")
            vp = tier.vp if tier else 0
            detail = f"needs at least {tier.min}" if tier else ""
        if tier is not None and vp > 0:
            why = f"at {ctx.geo.where([i])}, {counted} ({which}); {detail}"
            found.groups.append(_group(ctx, rule, [i], tier, vp, why))
        elif value == 0:
            found.non_scoring.append(_not_scoring(ctx, rule, [i], f"no {noun}"))
        else:
            need = rule.tiers[0].min
            found.non_scoring.append(
                _not_scoring(ctx, rule, [i], f"{counted} ({which}), at least {need} needed")
            )
    return found


def find_quantity_group(ctx: _Context, rule: CardRule) -> _Found:
    """Quantity condition (dubia roach): exactly one, or the most of all players; not both."""
    found = _Found()
    own = ctx.cells_of(rule.id)
    n = len(own)
    if n == 0:
        return found
    exactly, most = rule.tier("basic"), rule.tier("advanced")
    majority = ctx.roach_majority
    if majority and n >= most.count:
        why = f"{n} in the terrarium ({ctx.geo.where(own)}), the most of all players"
        found.groups.append(_group(ctx, rule, own, most, most.vp, why))
        return found
    if n == exactly.count:
        why = f"exactly {n} in the terrarium, at {ctx.geo.where(own)}"
        found.groups.append(_group(ctx, rule, own, exactly, exactly.vp, why))
    else:
        state = "not the most of all players" if majority is False else "the majority is pending"
        found.non_scoring.append(
            _not_scoring(
                ctx, rule, own, f"{n} in the terrarium, not exactly {exactly.count}; {state}"
            )
        )
    if majority is None:
        instead = f"instead of {exactly.vp} " if n == exactly.count else ""
        found.pending.append(
            f"{rule.name}: {most.vp} VP {instead}if no other player has more than {n} "
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
            why = f"an area of {plural(len(area), 'card')} at {ctx.geo.where(area)}"
            found.groups.append(_group(ctx, rule, area, tier, tier.vp, why))
        else:
            found.non_scoring.append(
                _not_scoring(
                    ctx, rule, area, f"an area of {plural(len(area), 'card')} scores no tier"
                )
            )
    return found


#: condition kind (declared in scoring.reptile_tank.kinds) -> group finder
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
if set(FINDERS) != set(CONDITIONS):  # pragma: no cover - a kind declared without a finder
    raise ImportError(f"scoring.reptile_tank.engine: finders {sorted(FINDERS)} != kinds {sorted(CONDITIONS)}")


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
                f"{n} {rule.name} cards on the board, but the deck holds only {rule.copies}"
            )
        if n and rule.star and variant.stars_removed:
            who = f"{variant.players}-player game" if variant.players else "this game"
            warnings.append(f"{rule.name} is a star card, removed in {who}, yet {n} on the board")
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
        The terrarium, in the rules' layout (``empty`` cells allowed: a partial board scores as
        it stands).
    rules : Rules
        From :func:`scoring.reptile_tank.rules.load_rules`.
    objectives : iterable of int
        Objective card numbers in play (variant).
    roach_majority : bool or None
        Whether this player has the most roaches of all players (ties included). ``None`` when
        the other boards are unknown: the majority is then reported in ``pending``.
    variant : Variant, optional
        Player count / star-card options, for warnings.

    Returns
    -------
    ScorePad
        Columns, total, the explaining groups (each with the rule values it used), why cards
        score nothing, and why objectives failed.

    Raises
    ------
    BoardError
        The board's layout is not the rules' layout.
    """
    if board.layout != rules.layout:
        raise BoardError(
            f"the board is {board.layout.rows}x{board.layout.cols} ({board.layout.name}), "
            f"the rules' grid is {rules.layout.rows}x{rules.layout.cols} ({rules.layout.name})"
        )
    ctx = _Context.build(board, rules, roach_majority)
    pad = ScorePad(rules.pad_columns, edition=rules.edition)
    groups: list[ScoringGroup] = []
    for rule in rules.cards.values():
        found = FINDERS[rule.condition](ctx, rule)
        groups += found.groups
        pad.non_scoring += found.non_scoring
        pad.pending += found.pending
    order = rules.column_keys
    groups.sort(key=lambda g: order.index(g.column))  # pad order, stable
    for group in groups:
        pad.add(group)
        if group.condition in THREE_CARD_SET_CONDITIONS and len(group.cells) >= 3:
            pad.three_card_sets += 1
    pad.dry_land_cards = sum(1 for label in ctx.labels if rules.category_of(label) == "dry_land")
    met, failed = check_objectives(board, rules, objectives, pad.groups)
    for group in met:
        pad.add(group)
    pad.failed = failed
    pad.warnings = board_warnings(board, rules, variant)
    return pad


def card_lines(pad: ScorePad) -> dict[Cell, int]:
    """How many scoring or not-scoring card lines hold each cell (objectives not counted).

    Every card of a scored board is in exactly one (a property the tests check).
    """
    seen: dict[Cell, int] = {}
    for group in pad.groups:
        if group.objective is None and group.condition != "solo":
            for cell in group.cells:
                seen[cell] = seen.get(cell, 0) + 1
    for line in pad.non_scoring:
        for cell in line.cells:
            seen[cell] = seen.get(cell, 0) + 1
    return seen
