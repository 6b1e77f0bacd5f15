"""Objective cards (variant): each kind of the rules data maps to one checker here.

A checker takes the flat board and the objective's parameters and returns the cells that
fulfil it (a non-empty tuple) or ``None``; objectives that need no particular cells (counts of
zero, "no water in ...") return the cells they inspected.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from scoring.board import Board
from scoring.engine import ScoringGroup
from scoring.layout import Layout
from scoring.rules import Objective, Rules


class ObjectiveError(ValueError):
    """An objective number that the rules do not define."""


Labels = tuple[str, ...]
Cells = tuple[tuple[int, int], ...]


def parse_objectives(text: str | Iterable[int] | None, rules: Rules) -> tuple[int, ...]:
    """Objective numbers from ``"3,11"`` or an iterable; unknown numbers raise ObjectiveError."""
    if text is None:
        return ()
    if isinstance(text, str):
        parts = [p.strip() for p in text.split(",") if p.strip()]
        try:
            numbers = [int(p) for p in parts]
        except ValueError:
            raise ObjectiveError(f"objectives must be numbers like 3,11, got {text!r}") from None
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


def _lines(line: str, layout: Layout) -> list[list[int]]:
    rows, cols = layout.rows, layout.cols
    if line == "row":
        return [[r * cols + c for c in range(cols)] for r in range(rows)]
    return [[r * cols + c for r in range(rows)] for c in range(cols)]


def _cells(indices: Iterable[int], layout: Layout) -> Cells:
    return tuple(divmod(i, layout.cols) for i in indices)


def _count(labels: Labels, rules: Rules, params, groups) -> Cells | None:
    mask = rules.masks[params["mask"]] if "mask" in params else None
    cols = rules.layout.cols
    inspected = [i for i in range(len(labels)) if mask is None or mask[i // cols][i % cols]]
    hits = [i for i in inspected if _in(rules, labels[i], params["what"])]
    low, high = params.get("min", 0), params.get("max", len(labels))
    if low <= len(hits) <= high:
        return _cells(hits or inspected, rules.layout)
    return None


def _corners_distinct(labels: Labels, rules: Rules, params, groups) -> Cells | None:
    rows, cols = rules.layout.rows, rules.layout.cols
    corners = [0, cols - 1, (rows - 1) * cols, rows * cols - 1]
    kinds = [labels[i] for i in corners]
    if all(rules.category_of(k) for k in kinds) and len(set(kinds)) == 4:
        return _cells(corners, rules.layout)
    return None


def _category_groups(labels: Labels, rules: Rules, params, groups) -> Cells | None:
    cells: list[tuple[int, int]] = []
    for category in params["categories"]:
        hit = [g for g in groups if g.vp > 0 and rules.category_of(g.card_type) == category]
        if not hit:
            return None
        cells += hit[0].cells
    return tuple(cells)


def _animal_types_with_count(labels: Labels, rules: Rules, params, groups) -> Cells | None:
    rich = [
        cid
        for cid, rule in rules.cards.items()
        if rule.is_animal and labels.count(cid) >= params["count"]
    ]
    if len(rich) >= params["types"]:
        return _cells((i for i, label in enumerate(labels) if label in rich), rules.layout)
    return None


def _line_all(labels: Labels, rules: Rules, params, groups) -> Cells | None:
    for line in _lines(params["line"], rules.layout):
        if all(any(_in(rules, labels[i], w) for w in params["what"]) for i in line):
            return _cells(line, rules.layout)
    return None


def _environment_kinds(labels: Labels, rules: Rules, params, groups) -> Cells | None:
    first: dict[str, int] = {}
    for i, label in enumerate(labels):
        if rules.is_environment(label):
            first.setdefault(label, i)
    return _cells(first.values(), rules.layout) if len(first) >= params["min"] else None


def _environment_square(labels: Labels, rules: Rules, params, groups) -> Cells | None:
    rows, cols = rules.layout.rows, rules.layout.cols
    for r in range(rows - 1):
        for c in range(cols - 1):
            block = [r * cols + c, r * cols + c + 1, (r + 1) * cols + c, (r + 1) * cols + c + 1]
            if all(rules.is_environment(labels[i]) for i in block):
                return _cells(block, rules.layout)
    return None


def _environment_diagonal(labels: Labels, rules: Rules, params, groups) -> Cells | None:
    rows, cols = rules.layout.rows, rules.layout.cols
    for c0 in range(cols - rows + 1):
        if params["direction"] == "down_right":
            line = [r * cols + c0 + r for r in range(rows)]
        else:
            line = [(rows - 1 - k) * cols + c0 + k for k in range(rows)]
        if all(rules.is_environment(labels[i]) for i in line):
            return _cells(line, rules.layout)
    return None


def _line_distinct_animals(labels: Labels, rules: Rules, params, groups) -> Cells | None:
    for line in _lines(params["line"], rules.layout):
        kinds = [labels[i] for i in line]
        if all(rules.is_animal(k) for k in kinds) and len(set(kinds)) == len(kinds):
            return _cells(line, rules.layout)
    return None


CHECKERS: dict[str, Callable[..., Cells | None]] = {
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


def check_objective(
    board: Board, rules: Rules, objective: Objective, groups: Sequence[ScoringGroup] = ()
) -> Cells | None:
    """The cells that fulfil ``objective`` on ``board``, or ``None`` when it is not met."""
    labels = tuple(label for row in board.rows for label in row)
    return CHECKERS[objective.kind](labels, rules, objective.params, groups)


def check_objectives(
    board: Board, rules: Rules, numbers: Iterable[int], groups: Sequence[ScoringGroup]
) -> tuple[list[ScoringGroup], list[int]]:
    """Score the objectives in play: (a group per met objective, numbers of failed ones)."""
    met, failed = [], []
    for number in parse_objectives(list(numbers), rules):
        objective = rules.objectives[number]
        cells = check_objective(board, rules, objective, groups)
        if cells is None:
            failed.append(number)
            continue
        met.append(
            ScoringGroup(
                card_type=f"objective_{number}",
                column="objectives",
                cells=tuple(cells),
                tier="met",
                vp=objective.vp,
                reason=f"Objective {number}: {objective.text}",
                condition=objective.kind,
                provenance=objective.provenance,
            )
        )
    return met, failed
