"""Objective cards (variant): each kind declared in :mod:`scoring.reptile_tank.kinds` maps to one checker here.

A checker takes the flat board, the rules and the objective's parameters and returns a
:class:`Check`: met or not, the cells that show it, and what it found, in words built from the
parameters and the board (so a failed objective says why, and a house value shows everywhere).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from scoring.layout import Layout
from scoring.reptile_tank.board import Board
from scoring.reptile_tank.describe import plural
from scoring.reptile_tank.kinds import OBJECTIVES
from scoring.reptile_tank.pad import FailedObjective, ScoringGroup
from scoring.reptile_tank.rules import Objective, Rules


class ObjectiveError(ValueError):
    """An objective number that the rules do not define."""


Labels = tuple[str, ...]
Cells = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Check:
    """What a checker found: ``met``, the cells that show it, and a sentence."""

    met: bool
    cells: Cells
    detail: str


def parse_objectives(text: str | Iterable[int] | None, rules: Rules) -> tuple[int, ...]:
    """Objective numbers from ``"3,11"`` or an iterable; unknown numbers raise ObjectiveError."""
    if text is None:
        return ()
    if isinstance(text, str):
        parts = [p.strip() for p in text.split(",") if p.strip()]
        if not all(p.isascii() and p.isdigit() for p in parts):
            raise ObjectiveError(f"objectives must be numbers like 3,11, got {text!r}")
        numbers = [int(p) for p in parts]
    else:
        numbers = []
        for value in text:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ObjectiveError(f"objective numbers must be integers, got {value!r}")
            numbers.append(value)
    for number in numbers:
        if number not in rules.objectives:
            known = f"1-{max(rules.objectives)}" if rules.objectives else "none"
            raise ObjectiveError(f"unknown objective {number} (known: {known})")
    if len(set(numbers)) != len(numbers):
        raise ObjectiveError(f"objective listed twice: {numbers}")
    return tuple(numbers)


def _in(rules: Rules, label: str, what: str) -> bool:
    if what == "environment":
        return rules.is_environment(label)
    if what == "animal":
        return rules.is_animal(label)
    return rules.category_of(label) == what


def _what_name(rules: Rules, what: str) -> str:
    """A card group in words: ``Environments``, ``Animals`` or a category's name."""
    if what in ("environment", "animal"):
        return what.capitalize() + "s"
    return rules.category_names.get(what, what)


def _lines(line: str, layout: Layout) -> list[list[int]]:
    rows, cols = layout.rows, layout.cols
    if line == "row":
        return [[r * cols + c for c in range(cols)] for r in range(rows)]
    return [[r * cols + c for r in range(rows)] for c in range(cols)]


def _cells(indices: Iterable[int], layout: Layout) -> Cells:
    return tuple(divmod(i, layout.cols) for i in indices)


def _where(indices: Iterable[int], layout: Layout) -> str:
    return "; ".join(Layout.describe(*divmod(i, layout.cols)) for i in sorted(indices))


def _count(labels: Labels, rules: Rules, params, groups) -> Check:
    mask = rules.masks[params["mask"]] if "mask" in params else None
    cols = rules.layout.cols
    inspected = [i for i in range(len(labels)) if mask is None or mask[i // cols][i % cols]]
    hits = [i for i in inspected if _in(rules, labels[i], params["what"])]
    low, high = params.get("min", 0), params.get("max", len(labels))
    place = f" in the marked cells ({params['mask']})" if "mask" in params else ""
    need = f"{low} to {high}" if "max" in params else f"at least {low}"
    if "max" in params and low == 0:
        need = f"at most {high}"
    found = f"{plural(len(hits), 'card')} of {_what_name(rules, params['what'])}"
    at = f" at {_where(hits, rules.layout)}" if hits else ""
    detail = f"{found}{place}{at}, {need} needed"
    return Check(low <= len(hits) <= high, _cells(hits or inspected, rules.layout), detail)


def _corners_distinct(labels: Labels, rules: Rules, params, groups) -> Check:
    rows, cols = rules.layout.rows, rules.layout.cols
    corners = [0, cols - 1, (rows - 1) * cols, rows * cols - 1]
    kinds = [labels[i] for i in corners]
    met = all(rules.category_of(k) for k in kinds) and len(set(kinds)) == 4
    names = ", ".join(rules.name_of(k) for k in kinds)
    return Check(met, _cells(corners, rules.layout), f"the corners hold {names}")


def _category_groups(labels: Labels, rules: Rules, params, groups) -> Check:
    cells: list[tuple[int, int]] = []
    missing = []
    for category in params["categories"]:
        hit = [g for g in groups if g.vp > 0 and rules.category_of(g.card_type) == category]
        if hit:
            cells += hit[0].cells
        else:
            missing.append(rules.category_names.get(category, category))
    if missing:
        return Check(False, (), f"no scoring group of {', '.join(missing)}")
    names = ", ".join(rules.category_names.get(c, c) for c in params["categories"])
    return Check(True, tuple(cells), f"a scoring group of each of {names}")


def _animal_types_with_count(labels: Labels, rules: Rules, params, groups) -> Check:
    rich = [
        cid
        for cid, rule in rules.cards.items()
        if rule.is_animal and labels.count(cid) >= params["count"]
    ]
    cells = _cells((i for i, label in enumerate(labels) if label in rich), rules.layout)
    names = ", ".join(rules.name_of(cid) for cid in rich) or "none"
    detail = (
        f"{plural(len(rich), 'Animal type')} with at least {params['count']} cards ({names}), "
        f"{params['types']} needed"
    )
    return Check(len(rich) >= params["types"], cells, detail)


def _line_all(labels: Labels, rules: Rules, params, groups) -> Check:
    whats = params["what"] if not isinstance(params["what"], str) else (params["what"],)
    allowed = " or ".join(_what_name(rules, w) for w in whats)
    for k, line in enumerate(_lines(params["line"], rules.layout)):
        if all(any(_in(rules, labels[i], w) for w in whats) for i in line):
            return Check(
                True, _cells(line, rules.layout), f"{params['line']} {k + 1} holds only {allowed}"
            )
    return Check(False, (), f"no {params['line']} holds only {allowed}")


def _environment_kinds(labels: Labels, rules: Rules, params, groups) -> Check:
    first: dict[str, int] = {}
    for i, label in enumerate(labels):
        if rules.is_environment(label):
            first.setdefault(label, i)
    names = ", ".join(sorted(rules.name_of(k) for k in first)) or "none"
    detail = f"{plural(len(first), 'Environment kind')} ({names}), at least {params['min']} needed"
    return Check(len(first) >= params["min"], _cells(first.values(), rules.layout), detail)


def _environment_square(labels: Labels, rules: Rules, params, groups) -> Check:
    rows, cols = rules.layout.rows, rules.layout.cols
    for r in range(rows - 1):
        for c in range(cols - 1):
            block = [r * cols + c, r * cols + c + 1, (r + 1) * cols + c, (r + 1) * cols + c + 1]
            if all(rules.is_environment(labels[i]) for i in block):
                return Check(
                    True,
                    _cells(block, rules.layout),
                    f"Environment cards at {_where(block, rules.layout)}",
                )
    return Check(False, (), "no 2x2 square of Environment cards")


def _environment_diagonal(labels: Labels, rules: Rules, params, groups) -> Check:
    rows, cols = rules.layout.rows, rules.layout.cols
    for c0 in range(cols - rows + 1):
        if params["direction"] == "down_right":
            line = [r * cols + c0 + r for r in range(rows)]
        else:
            line = [(rows - 1 - k) * cols + c0 + k for k in range(rows)]
        if all(rules.is_environment(labels[i]) for i in line):
            return Check(
                True,
                _cells(line, rules.layout),
                f"Environment cards at {_where(line, rules.layout)}",
            )
    way = params["direction"].replace("_", "-")
    return Check(False, (), f"no diagonal running {way} holds only Environment cards")


def _line_distinct_animals(labels: Labels, rules: Rules, params, groups) -> Check:
    for k, line in enumerate(_lines(params["line"], rules.layout)):
        kinds = [labels[i] for i in line]
        if all(rules.is_animal(kind) for kind in kinds) and len(set(kinds)) == len(kinds):
            return Check(
                True,
                _cells(line, rules.layout),
                f"{params['line']} {k + 1} holds {plural(len(kinds), 'different Animal type')}",
            )
    return Check(False, (), f"no {params['line']} of Animal cards all of different types")


CHECKERS: dict[str, Callable[..., Check]] = {
    "count": _count,
    "corners_distinct": _corners_distinct,
    "category_groups": _category_groups,
    "animal_types_with_count": _animal_types_with_count,
    "line_all": _line_all,
    "environment_kinds": _environment_kinds,
    "environment_square": _environment_square,
    "environment_diagonal": _environment_diagonal,
    "line_distinct_animals": _line_distinct_animals,
}
if set(CHECKERS) != set(OBJECTIVES):  # pragma: no cover - a kind declared without a checker
    raise ImportError(f"scoring.reptile_tank.objectives: {sorted(CHECKERS)} != kinds {sorted(OBJECTIVES)}")


def objective_uses(rules: Rules, objective: Objective) -> tuple[tuple[str, str], ...]:
    """The rule values an objective's line rests on: its VP, its condition, its mask."""
    key = f"objectives.{objective.number}"
    uses = [
        (f"{key}.vp", objective.provenance),
        (f"{key}.condition", objective.condition_provenance),
    ]
    mask = objective.params.get("mask")
    if mask is not None:
        uses.append((f"masks.{mask}", rules.mask_rules[mask].provenance))
    return tuple(uses)


def check_objective(
    board: Board, rules: Rules, objective: Objective, groups: Sequence[ScoringGroup] = ()
) -> Check:
    """What ``objective`` finds on ``board``."""
    labels = tuple(label for row in board.rows for label in row)
    return CHECKERS[objective.kind](labels, rules, objective.params, groups)


def check_objectives(
    board: Board, rules: Rules, numbers: Iterable[int], groups: Sequence[ScoringGroup]
) -> tuple[list[ScoringGroup], list[FailedObjective]]:
    """Score the objectives in play: (a group per met objective, why each other one failed)."""
    met, failed = [], []
    for number in parse_objectives(list(numbers), rules):
        objective = rules.objectives[number]
        check = check_objective(board, rules, objective, groups)
        if not check.met:
            failed.append(
                FailedObjective(
                    number=number,
                    vp=objective.vp,
                    reason=(
                        f"Objective {number} ({objective.text}): not met, {check.detail}; "
                        f"{objective.vp} VP not scored"
                    ),
                )
            )
            continue
        met.append(
            ScoringGroup(
                card_type=f"objective_{number}",
                column="objectives",
                cells=tuple(check.cells),
                tier="met",
                vp=objective.vp,
                reason=(
                    f"Objective {number} ({objective.text}): met, {check.detail}: {objective.vp} VP"
                ),
                condition=objective.kind,
                uses=objective_uses(rules, objective),
                objective=number,
            )
        )
    return met, failed
