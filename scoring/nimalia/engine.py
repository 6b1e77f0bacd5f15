"""Nimalia's scoring engine: the 22 goals, relative goals, rounds, running totals, the tie-break.

Pure Python over a :class:`scoring.nimalia.reserve.Reserve`; every value comes from the rules data
(:mod:`scoring.nimalia.rules`). Each goal kind has one finder here (``_FINDERS``); a finder returns the
goal's points as :class:`ScoreLine` records -- points, a reason naming the squares, zones or
rivers with 1-based positions ("row 2, column 3"), and the 0-based ``(row, col)`` squares the
reason is about -- which sum to the goal's points. Relative goals (kinds ``rank`` and
``all_tied_at``) compare players and are scored by :func:`score_relative` / :func:`score_game`.

Definitions (``../shared/docs/nimalia-reference.md`` section 4): neighbours share a side; a
zone is a maximal side-connected set of squares of one land (or one animal); two river squares
connect when they share a corner that ends both rivers; a square touches the edge when one of
its 4 sides is not against another reserve square.

Examples
--------
>>> from scoring.nimalia.reserve import reserve_from_squares
>>> reserve = reserve_from_squares([["I:bea", "I:bea"], ["I:bea", "."]])
>>> score_goal(reserve, 8).points
6
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from scoring.nimalia.cards import ANIMAL_NAMES, ANIMAL_PLURALS, ANIMALS, LAND_NAMES, LANDS
from scoring.nimalia.reserve import Reserve
from scoring.nimalia.rules import Goal, RankPart, Rules, load_rules

Cell = tuple[int, int]


@dataclass(frozen=True)
class ScoreLine:
    """One line of a goal's score: points, why, and the squares (0-based row, col) it is about."""

    points: int
    reason: str
    squares: tuple[Cell, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "points": self.points,
            "reason": self.reason,
            "squares": [list(cell) for cell in self.squares],
        }


@dataclass(frozen=True)
class GoalScore:
    """A goal's points for one reserve (or one player of a game) and the lines that make them."""

    goal: int
    points: int
    lines: tuple[ScoreLine, ...]
    summary: str = ""

    @property
    def reason(self) -> str:
        """The lines' reasons in one string (the summary when nothing scored)."""
        scoring = [f"{line.reason}: {line.points:+d}" for line in self.lines if line.points]
        if self.summary:
            scoring.insert(0, self.summary)
        return "; ".join(scoring) if scoring else "nothing scores"

    def as_dict(self) -> dict[str, Any]:
        return {
            "goal": self.goal,
            "points": self.points,
            "reason": self.reason,
            "lines": [line.as_dict() for line in self.lines],
        }


# ------------------------------------------------------------------------------ positions


def at(cell: Cell) -> str:
    """A 0-based square as players say it, 1-based: ``row 2, column 3``."""
    return f"row {cell[0] + 1}, column {cell[1] + 1}"


def at_many(cells: Sequence[Cell]) -> str:
    """Several squares as players say them, as :func:`at` does one (one wording in every
    reason): ``squares row 1, column 2; row 1, column 3``."""
    if len(cells) == 1:
        return at(cells[0])
    return "squares " + "; ".join(at(cell) for cell in sorted(cells))


# ------------------------------------------------------------------------------ board view


@cache
def _neighbours(rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    """Side neighbours of each square index inside a rows x cols frame."""
    result = []
    for r in range(rows):
        for c in range(cols):
            nb = []
            for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < rows and 0 <= cc < cols:
                    nb.append(rr * cols + cc)
            result.append(tuple(nb))
    return tuple(result)


#: River square connections (reference section 1): for a square's river, each (dr, dc) offset
#: to a square whose river must be the given one for the two to connect.
_RIVER_LINKS: dict[str, tuple[tuple[int, int, str], ...]] = {
    "/": ((-1, 0, "\\"), (1, 0, "\\"), (0, -1, "\\"), (0, 1, "\\"), (-1, 1, "/"), (1, -1, "/")),
    "\\": ((-1, 0, "/"), (1, 0, "/"), (0, -1, "/"), (0, 1, "/"), (-1, -1, "\\"), (1, 1, "\\")),
}
#: The diagonal squares a river points to (goal 2): beyond its two end corners.
_RIVER_ENDS: dict[str, tuple[tuple[int, int], ...]] = {
    "/": ((-1, 1), (1, -1)),
    "\\": ((-1, -1), (1, 1)),
}


class _Board:
    """Flat per-square arrays of one reserve, for the finders."""

    __slots__ = ("rows", "cols", "n", "land", "animal", "river", "nbrs")

    def __init__(self, reserve: Reserve):
        grid = reserve.layout
        self.rows, self.cols = grid.rows, grid.cols
        self.n = grid.cell_count
        self.land = [s.land if s else None for s in reserve.squares]
        self.animal = [s.animal if s else None for s in reserve.squares]
        self.river = [s.river if s else None for s in reserve.squares]
        self.nbrs = _neighbours(self.rows, self.cols)

    def cell(self, i: int) -> Cell:
        return divmod(i, self.cols)

    def cells(self, indices: Sequence[int]) -> tuple[Cell, ...]:
        """0-based squares of the indices, in the given order (a line's subject first)."""
        return tuple(divmod(i, self.cols) for i in indices)

    def zones(self, values: list[Any], value: Any) -> list[list[int]]:
        """Side-connected zones of squares whose ``values`` entry is ``value``."""
        seen = [False] * self.n
        zones = []
        nbrs = self.nbrs
        for start in range(self.n):
            if values[start] != value or seen[start]:
                continue
            seen[start] = True
            zone = [start]
            stack = [start]
            while stack:
                i = stack.pop()
                for j in nbrs[i]:
                    if not seen[j] and values[j] == value:
                        seen[j] = True
                        zone.append(j)
                        stack.append(j)
            zones.append(sorted(zone))
        return zones

    def rivers(self) -> list[list[int]]:
        """River networks: connected components of otter squares (corner rule)."""
        seen = [False] * self.n
        rivers = []
        rows, cols, river = self.rows, self.cols, self.river
        for start in range(self.n):
            if river[start] is None or seen[start]:
                continue
            seen[start] = True
            component = [start]
            stack = [start]
            while stack:
                i = stack.pop()
                r, c = divmod(i, cols)
                for dr, dc, other in _RIVER_LINKS[river[i]]:
                    rr, cc = r + dr, c + dc
                    if 0 <= rr < rows and 0 <= cc < cols:
                        j = rr * cols + cc
                        if not seen[j] and river[j] == other:
                            seen[j] = True
                            component.append(j)
                            stack.append(j)
            rivers.append(sorted(component))
        return rivers

    def longest_river(self) -> list[int]:
        """The largest river network (the first in reading order on a tie); [] without one."""
        best: list[int] = []
        for component in self.rivers():
            if len(component) > len(best):
                best = component
        return best

    def count(self, animal: str) -> int:
        return self.animal.count(animal)


# ------------------------------------------------------------------------------ finders

Finder = Callable[[_Board, Goal, Rules], tuple[list[ScoreLine], str]]


def _otter_neighbour_groups(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    lines = []
    min_group = goal.params["min_group"]
    for i in range(b.n):
        if b.animal[i] != "ott":
            continue
        groups: dict[str, list[int]] = {}
        for j in b.nbrs[i]:
            if b.animal[j] is not None:
                groups.setdefault(b.animal[j], []).append(j)
        for animal in ANIMALS:
            group = groups.get(animal, [])
            if len(group) >= min_group:
                lines.append(
                    ScoreLine(
                        len(group),
                        f"otter at {at(b.cell(i))} has {len(group)} {ANIMAL_PLURALS[animal]} "
                        f"beside it ({at_many(b.cells(group))})",
                        b.cells([i, *group]),
                    )
                )
    return lines, "" if lines else f"no otter has {min_group} or more of one animal beside it"


def _river_mouth(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    land, each = goal.params["land"], goal.params["points_each"]
    lines = []
    otters = 0
    for i in range(b.n):
        river = b.river[i]
        if river is None:
            continue
        otters += 1
        r, c = b.cell(i)
        touching = [j for j in b.nbrs[i] if b.land[j] == land]
        for dr, dc in _RIVER_ENDS[river]:
            rr, cc = r + dr, c + dc
            if 0 <= rr < b.rows and 0 <= cc < b.cols and b.land[rr * b.cols + cc] == land:
                touching.append(rr * b.cols + cc)
        if touching:
            lines.append(
                ScoreLine(
                    each,
                    f"otter at {at((r, c))} (river {river}) meets {LAND_NAMES[land]} at "
                    f"{at_many(b.cells(touching))}",
                    b.cells([i, *touching]),
                )
            )
    if lines:
        return lines, ""
    return lines, "no otter" if not otters else f"no otter's river meets {LAND_NAMES[land]}"


def _zone_count(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    land, each = goal.params["land"], goal.params["points_each"]
    lines = [
        ScoreLine(
            each,
            f"{LAND_NAMES[land]} zone of {len(z)} at {at_many(b.cells(z))}",
            b.cells(z),
        )
        for z in b.zones(b.land, land)
    ]
    return lines, "" if lines else f"no {LAND_NAMES[land]}"


def _animals_beside(
    b: _Board, animal: str, each: int, touches: Callable[[int], bool], what: str
) -> tuple[list[ScoreLine], str]:
    """``each`` points for every ``animal`` with a neighbour square where ``touches`` holds
    (``what`` names such a square in the lines)."""
    lines = []
    for i in range(b.n):
        if b.animal[i] != animal:
            continue
        touching = [j for j in b.nbrs[i] if touches(j)]
        if touching:
            lines.append(
                ScoreLine(
                    each,
                    f"{ANIMAL_NAMES[animal]} at {at(b.cell(i))} beside {what} at "
                    f"{at_many(b.cells(touching))}",
                    b.cells([i, *touching]),
                )
            )
    return lines, "" if lines else f"no {ANIMAL_NAMES[animal]} beside {what}"


def _animal_next_to_land(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    animal, land, each = goal.params["animal"], goal.params["land"], goal.params["points_each"]
    return _animals_beside(b, animal, each, lambda j: b.land[j] == land, LAND_NAMES[land])


def _largest_zone(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    land, per = goal.params["land"], goal.params["points_per_square"]
    zones = b.zones(b.land, land)
    if not zones:
        return [], f"no {LAND_NAMES[land]}"
    best = max(zones, key=len)  # first largest in reading order
    line = ScoreLine(
        per * len(best),
        f"largest {LAND_NAMES[land]} zone, {len(best)} squares at {at_many(b.cells(best))}",
        b.cells(best),
    )
    return [line], ""


def _zones_of_size(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    land, size, each = goal.params["land"], goal.params["size"], goal.params["points_each"]
    lines = [
        ScoreLine(each, f"{LAND_NAMES[land]} zone of {size} at {at_many(b.cells(z))}", b.cells(z))
        for z in b.zones(b.land, land)
        if len(z) == size
    ]
    return lines, "" if lines else f"no {LAND_NAMES[land]} zone of exactly {size} squares"


def _land_blocks(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    land, size, each = goal.params["land"], goal.params["size"], goal.params["points_each"]
    lines = []
    for r in range(b.rows - size + 1):
        for c in range(b.cols - size + 1):
            block = [(r + dr) * b.cols + c + dc for dr in range(size) for dc in range(size)]
            if all(b.land[i] == land for i in block):
                lines.append(
                    ScoreLine(
                        each,
                        f"{size}x{size} {LAND_NAMES[land]} block from {at((r, c))}",
                        b.cells(block),
                    )
                )
    return lines, "" if lines else f"no {size}x{size} block of {LAND_NAMES[land]}"


def _animal_zones(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    animal = goal.params["animal"]
    single, per = goal.params["single"], goal.params["per_square"]
    lines = []
    for z in b.zones(b.animal, animal):
        if len(z) == 1:
            lines.append(
                ScoreLine(single, f"lone {ANIMAL_NAMES[animal]} at {at(b.cell(z[0]))}", b.cells(z))
            )
        else:
            lines.append(
                ScoreLine(
                    per * len(z),
                    f"group of {len(z)} {ANIMAL_PLURALS[animal]} at {at_many(b.cells(z))}",
                    b.cells(z),
                )
            )
    return lines, "" if lines else f"no {ANIMAL_NAMES[animal]}"


def _fewest_land(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    per = goal.params["points_per_square"]
    counts = {land: b.land.count(land) for land in LANDS}
    fewest = min(LANDS, key=lambda land: counts[land])
    listing = ", ".join(f"{LAND_NAMES[land]} {counts[land]}" for land in LANDS)
    if counts[fewest] == 0:
        return [], f"no {LAND_NAMES[fewest]} square ({listing})"
    squares = b.cells([i for i in range(b.n) if b.land[i] == fewest])
    line = ScoreLine(
        per * counts[fewest],
        f"fewest squares of one land: {LAND_NAMES[fewest]} {counts[fewest]} ({listing}) at "
        f"{at_many(squares)}",
        squares,
    )
    return [line], ""


def _largest_filled_square(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    points = goal.params["points"]
    # side[i] = side of the largest all-occupied square whose bottom-right square is i.
    side = [0] * b.n
    best, best_end = 0, -1
    cols = b.cols
    for i in range(b.n):
        if b.land[i] is None:
            continue
        r, c = divmod(i, cols)
        if r == 0 or c == 0:
            side[i] = 1
        else:
            side[i] = 1 + min(side[i - cols], side[i - 1], side[i - cols - 1])
        if side[i] > best:
            best, best_end = side[i], i
    if best == 0:
        return [], "no square in the reserve"
    value = points[min(best, len(points)) - 1]
    r1, c1 = divmod(best_end, cols)
    block = [(r1 - dr, c1 - dc) for dr in range(best) for dc in range(best)]
    line = ScoreLine(
        value,
        f"largest complete square {best}x{best} from {at((r1 - best + 1, c1 - best + 1))}",
        tuple(sorted(block)),
    )
    return [line], ""


def _rows_with_all_lands(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    each = goal.params["points_each"]
    lines = []
    needed = set(LANDS)
    for r in range(b.rows):
        row = range(r * b.cols, (r + 1) * b.cols)
        if needed <= {b.land[i] for i in row}:
            lines.append(
                ScoreLine(
                    each,
                    f"row {r + 1} shows water, savannah, jungle and snow",
                    b.cells([i for i in row if b.land[i] is not None]),
                )
            )
    return lines, "" if lines else "no row shows all 4 lands"


def _horizontal_runs(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    length, each = goal.params["length"], goal.params["points_each"]
    quirk = rules.goal12 == "adaptation"
    lines = []
    for r in range(b.rows):
        c = 0
        while c < b.cols:
            animal = b.animal[r * b.cols + c]
            end = c
            while (
                end + 1 < b.cols and animal is not None and b.animal[r * b.cols + end + 1] == animal
            ):
                end += 1
            run = end - c + 1
            if animal is not None and run >= length:
                cells = tuple((r, cc) for cc in range(c, end + 1))
                if run == length:
                    lines.append(
                        ScoreLine(
                            each,
                            f"{length} {ANIMAL_PLURALS[animal]} side by side at {at_many(cells)}",
                            cells,
                        )
                    )
                elif quirk and end == b.cols - 1:
                    lines.append(
                        ScoreLine(
                            each,
                            f"{run} {ANIMAL_PLURALS[animal]} in a row ending in the frame's last "
                            f"column at {at_many(cells)} (adaptation's reading)",
                            cells,
                        )
                    )
                else:
                    lines.append(
                        ScoreLine(
                            0,
                            f"{run} {ANIMAL_PLURALS[animal]} in a row at {at_many(cells)} "
                            f"(more than {length})",
                            cells,
                        )
                    )
            c = end + 1
    if any(line.points for line in lines):
        return lines, ""
    return lines, f"no run of exactly {length} identical animals in a row"


def _count_table(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    animal, points = goal.params["animal"], goal.params["points"]
    found = [i for i in range(b.n) if b.animal[i] == animal]
    value = points[min(len(found), len(points) - 1)]
    where = f" at {at_many(b.cells(found))}" if found else ""
    noun = ANIMAL_NAMES[animal] if len(found) == 1 else ANIMAL_PLURALS[animal]
    return [ScoreLine(value, f"{len(found)} {noun}{where}", b.cells(found))], ""


def _animal_edge(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    animal, touching, each = (
        goal.params["animal"],
        goal.params["touching"],
        goal.params["points_each"],
    )
    lines = []
    for i in range(b.n):
        if b.animal[i] != animal:
            continue
        nbrs = b.nbrs[i]
        open_sides = 4 - len(nbrs) + sum(1 for j in nbrs if b.land[j] is None)
        on_edge = open_sides > 0
        if on_edge == touching:
            if touching:
                sides = "side" if open_sides == 1 else "sides"
                why = (
                    f"{ANIMAL_NAMES[animal]} at {at(b.cell(i))} touches the edge "
                    f"({open_sides} open {sides})"
                )
            else:
                why = (
                    f"{ANIMAL_NAMES[animal]} at {at(b.cell(i))} has reserve squares on all 4 sides"
                )
            lines.append(ScoreLine(each, why, b.cells([i])))
    if lines:
        return lines, ""
    return lines, (
        f"no {ANIMAL_NAMES[animal]} touches the edge"
        if touching
        else f"no {ANIMAL_NAMES[animal]} has reserve squares on all 4 sides"
    )


def _longest_river_table(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    points = goal.params["points"]
    river = b.longest_river()
    value = points[min(len(river), len(points) - 1)]
    if not river:
        return [ScoreLine(value, "no river")], ""
    return [
        ScoreLine(
            value,
            f"longest river, {len(river)} squares at {at_many(b.cells(river))}",
            b.cells(river),
        )
    ], ""


def _animal_next_to_animal(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    animal, other, each = goal.params["animal"], goal.params["other"], goal.params["points_each"]
    return _animals_beside(
        b, animal, each, lambda j: b.animal[j] == other, f"a {ANIMAL_NAMES[other]}"
    )


def _columns_with_count(b: _Board, goal: Goal, rules: Rules) -> tuple[list[ScoreLine], str]:
    animal, count, each = goal.params["animal"], goal.params["count"], goal.params["points_each"]
    lines = []
    for c in range(b.cols):
        found = [r * b.cols + c for r in range(b.rows) if b.animal[r * b.cols + c] == animal]
        if len(found) == count:
            noun = ANIMAL_NAMES[animal] if count == 1 else ANIMAL_PLURALS[animal]
            lines.append(
                ScoreLine(
                    each,
                    f"column {c + 1} has exactly {count} {noun} ({at_many(b.cells(found))})",
                    b.cells(found),
                )
            )
    noun = ANIMAL_NAMES[animal] if count == 1 else ANIMAL_PLURALS[animal]
    return lines, "" if lines else f"no column with exactly {count} {noun}"


_FINDERS: dict[str, Finder] = {
    "otter_neighbour_groups": _otter_neighbour_groups,
    "river_mouth": _river_mouth,
    "zone_count": _zone_count,
    "animal_next_to_land": _animal_next_to_land,
    "largest_zone": _largest_zone,
    "zones_of_size": _zones_of_size,
    "land_blocks": _land_blocks,
    "animal_zones": _animal_zones,
    "fewest_land": _fewest_land,
    "largest_filled_square": _largest_filled_square,
    "rows_with_all_lands": _rows_with_all_lands,
    "horizontal_runs": _horizontal_runs,
    "count_table": _count_table,
    "animal_edge": _animal_edge,
    "longest_river_table": _longest_river_table,
    "animal_next_to_animal": _animal_next_to_animal,
    "columns_with_count": _columns_with_count,
}


# ------------------------------------------------------------------------------ one reserve


def _goal_of(goal: int | Goal, rules: Rules) -> Goal:
    if isinstance(goal, Goal):
        return goal
    if isinstance(goal, bool) or not isinstance(goal, int) or goal not in rules.goals:
        raise ValueError(f"unknown goal {goal!r}: Nimalia goals are 1-{len(rules.goals)}")
    return rules.goals[goal]


def _score_on(board: _Board, goal: Goal, rules: Rules) -> GoalScore:
    if goal.relative:
        raise ValueError(f"goal {goal.id} compares players: score it with score_relative")
    lines, summary = _FINDERS[goal.kind](board, goal, rules)
    return GoalScore(goal.id, sum(line.points for line in lines), tuple(lines), summary)


def score_goal(reserve: Reserve, goal: int | Goal, rules: Rules | None = None) -> GoalScore:
    """One goal that does not compare players, on one reserve."""
    rules = rules or load_rules()
    return _score_on(_Board(reserve), _goal_of(goal, rules), rules)


def score_goals(
    reserve: Reserve, goals: Sequence[int], rules: Rules | None = None
) -> tuple[list[GoalScore], list[int]]:
    """Every listed goal on one reserve: (scores of the own-reserve goals, relative goal ids).

    Relative goals (16, 18, 20, 21) need every player's reserve; they come back as pending.
    """
    rules = rules or load_rules()
    board = _Board(reserve)
    scores, pending = [], []
    for gid in goals:
        goal = _goal_of(gid, rules)
        if goal.relative:
            pending.append(goal.id)
        else:
            scores.append(_score_on(board, goal, rules))
    return scores, pending


# ------------------------------------------------------------------------------ relative goals


def _measure(board: _Board, part: RankPart) -> tuple[int, tuple[Cell, ...], str]:
    """A relative goal's value for one reserve, the squares it counts, and what it is."""
    if part.measure == "longest_river":
        river = board.longest_river()
        return len(river), board.cells(river), "longest river"
    assert part.animal is not None
    found = [i for i in range(board.n) if board.animal[i] == part.animal]
    return len(found), board.cells(found), ANIMAL_PLURALS[part.animal]


def relative_values(reserve: Reserve, goal: int | Goal, rules: Rules | None = None) -> list[dict]:
    """What a relative goal compares, measured on one reserve (for a "pending" goal):
    ``[{"what", "value", "squares": [[row, col], ...]}]``, one entry per compared value."""
    rules = rules or load_rules()
    goal = _goal_of(goal, rules)
    if not goal.relative:
        raise ValueError(f"goal {goal.id} does not compare players")
    board = _Board(reserve)
    parts = goal.parts or (
        RankPart(
            "count",
            goal.params["direction"],
            goal.params["tied"],
            goal.params["others"],
            goal.params["animal"],
        ),
    )
    values = []
    for part in parts:
        value, cells, what = _measure(board, part)
        values.append({"what": what, "value": value, "squares": [list(c) for c in cells]})
    return values


def rank_places(
    values: Sequence[int], direction: str, *, second_place_counts: Sequence[int] = (3, 4)
) -> list[int]:
    """RANK's places (reference section 4): 1 for every player at the best value; 2 for every
    player at the runner-up value (the 2nd entry of the values sorted best first), only when
    exactly one player is best and the player count is in ``second_place_counts``; else 0."""
    ordered = sorted(values, reverse=(direction == "most"))
    best = ordered[0]
    winners = sum(1 for v in values if v == best)
    give_second = winners == 1 and len(values) in second_place_counts and len(ordered) > 1
    return [1 if v == best else 2 if give_second and v == ordered[1] else 0 for v in values]


def score_relative(
    reserves: Sequence[Reserve],
    goal: int | Goal,
    rules: Rules | None = None,
    *,
    names: Sequence[str] | None = None,
) -> list[GoalScore]:
    """A goal for every player at once (any goal; relative ones compare the reserves)."""
    rules = rules or load_rules()
    goal = _goal_of(goal, rules)
    boards = [_Board(r) for r in reserves]
    names = list(names) if names else [f"player {i + 1}" for i in range(len(boards))]
    if not goal.relative:
        return [_score_on(b, goal, rules) for b in boards]
    if not boards:
        return []
    per_player: list[list[ScoreLine]] = [[] for _ in boards]
    if goal.kind == "rank":
        for part in goal.parts:
            measured = [_measure(b, part) for b in boards]
            values = [m[0] for m in measured]
            places = rank_places(
                values, part.direction, second_place_counts=rules.second_place_player_counts
            )
            listing = ", ".join(f"{n} {v}" for n, v in zip(names, values, strict=True))
            for i, (value, cells, what) in enumerate(measured):
                place = {1: "1st", 2: "2nd"}.get(places[i], "not placed")
                points = part.first if places[i] == 1 else part.second if places[i] == 2 else 0
                per_player[i].append(
                    ScoreLine(
                        points, f"{part.direction} {what}: {value} ({place}; {listing})", cells
                    )
                )
    else:  # all_tied_at
        part = RankPart(
            "count",
            goal.params["direction"],
            goal.params["tied"],
            goal.params["others"],
            goal.params["animal"],
        )
        measured = [_measure(b, part) for b in boards]
        values = [m[0] for m in measured]
        best = min(values) if part.direction == "fewest" else max(values)
        listing = ", ".join(f"{n} {v}" for n, v in zip(names, values, strict=True))
        for i, (value, cells, what) in enumerate(measured):
            tied = value == best
            per_player[i].append(
                ScoreLine(
                    part.first if tied else part.second,
                    f"{part.direction} {what}: {value} "
                    f"({'at' if tied else 'not at'} the {part.direction} {best}; {listing})",
                    cells,
                )
            )
    return [
        GoalScore(goal.id, sum(line.points for line in lines), tuple(lines)) for lines in per_player
    ]


# ------------------------------------------------------------------------------ goal sets


def check_goal_set(goals: Sequence[int], rules: Rules | None = None) -> tuple[int, ...]:
    """A game's 4 goals, one of each colour, never both sides of a card; returned in colour
    order (blue, green, yellow, red). ``ValueError`` naming the problem otherwise."""
    rules = rules or load_rules()
    chosen = [_goal_of(g, rules) for g in goals]
    if len(chosen) != len(rules.colour_order):
        raise ValueError(f"a game has {len(rules.colour_order)} goals, one of each colour")
    by_colour: dict[str, Goal] = {}
    for goal in chosen:
        if goal.colour in by_colour:
            raise ValueError(
                f"goals {by_colour[goal.colour].id} and {goal.id} are both {goal.colour}: "
                "a game has one goal of each colour"
            )
        by_colour[goal.colour] = goal
    ids = {g.id for g in chosen}
    for goal in chosen:
        if goal.back in ids:
            raise ValueError(
                f"goals {min(goal.id, goal.back)} and {max(goal.id, goal.back)} are the two "
                "sides of one card"
            )
    return tuple(by_colour[c].id for c in rules.colour_order)


def choose_goals(level: str, rng: Any, rules: Rules | None = None) -> tuple[int, ...]:
    """A legal goal set as the adaptation picks it: blue, green, yellow, red in turn, each
    uniformly among the goals of that colour and level whose card is not already used.

    ``level`` is ``easy``, ``difficult`` or ``random``; ``rng`` a :class:`random.Random`.
    """
    rules = rules or load_rules()
    if level not in rules.levels:
        raise ValueError(f"level must be one of {', '.join(rules.levels)}, got {level!r}")
    allowed_levels = rules.levels[level]
    picked: list[int] = []
    for colour in rules.colour_order:
        options = [
            g.id
            for g in rules.goals_of(colour)
            if g.level in allowed_levels and g.back not in picked
        ]
        if not options:  # pragma: no cover - the data never leads here (tested)
            raise ValueError(f"no {colour} goal left at level {level}")
        picked.append(options[rng.randrange(len(options))])
    return tuple(picked)


# ------------------------------------------------------------------------------ a game


@dataclass(frozen=True)
class RoundGoal:
    """One goal in one round for one player: raw points, the running total after it (floored)."""

    goal: int
    points: int
    total_after: int
    score: GoalScore


@dataclass(frozen=True)
class PlayerRound:
    round: int
    goals: tuple[RoundGoal, ...]
    total: int  # running total at the end of the round


@dataclass(frozen=True)
class PlayerResult:
    name: str
    rounds: tuple[PlayerRound, ...]
    total: int
    tiebreak: int  # most animals of one type in the last reserve
    tiebreak_animal: str
    rank: int = 0
    tiebreak_counted: bool = True  # whether the tie-break counts for this player's rank


@dataclass(frozen=True)
class GameResult:
    goals: tuple[int, ...]
    players: tuple[PlayerResult, ...]


def most_of_one_animal(reserve: Reserve, *, otters_count: bool = True) -> tuple[int, str]:
    """The tie-break value: the largest count of one animal type, and that animal."""
    counts = {a: 0 for a in ANIMALS if otters_count or a != "ott"}
    for square in reserve.squares:
        if square is not None and square.animal in counts:
            counts[square.animal] += 1
    animal = max(counts, key=lambda a: counts[a])
    return counts[animal], animal


def score_game(
    goals: Sequence[int],
    players: Sequence[tuple[str, Sequence[Reserve]]],
    rules: Rules | None = None,
) -> GameResult:
    """Score a game: per round (1..n, n the rounds played), the round's goals in scoring order
    for every player, running totals floored at 0 after each goal, then the ranking: by total,
    then the tie-break (most animals of one type, for the players :func:`tiebreak_contenders`
    names); still equal: a shared place (ranks 1, 1, 3). With fewer than 5 rounds the last
    round played stands for round 5."""
    rules = rules or load_rules()
    goal_set = check_goal_set(goals, rules)
    count = len(players)
    if not rules.min_players <= count <= rules.max_players:
        raise ValueError(f"a game has {rules.min_players}-{rules.max_players} players, got {count}")
    names = [name for name, _ in players]
    if len(set(names)) != len(names):
        raise ValueError("two players have the same name")
    n_rounds = {len(reserves) for _, reserves in players}
    if len(n_rounds) != 1:
        raise ValueError("every player needs the same number of rounds")
    played = n_rounds.pop()
    if not 1 <= played <= len(rules.rounds):
        raise ValueError(f"a game has 1-{len(rules.rounds)} rounds, got {played}")
    by_colour = {rules.goals[g].colour: g for g in goal_set}
    totals = [0] * count
    rounds: list[list[PlayerRound]] = [[] for _ in players]
    for number in range(1, played + 1):
        reserves = [reserves[number - 1] for _, reserves in players]
        per_player: list[list[RoundGoal]] = [[] for _ in players]
        for colour in rules.rounds[number].colours:
            gid = by_colour[colour]
            scores = score_relative(reserves, gid, rules, names=names)
            for i, score in enumerate(scores):
                totals[i] += score.points
                if rules.floor_at_zero and totals[i] < 0:
                    totals[i] = 0
                per_player[i].append(RoundGoal(gid, score.points, totals[i], score))
        for i in range(count):
            rounds[i].append(PlayerRound(number, tuple(per_player[i]), totals[i]))
    last = [reserves[-1] for _, reserves in players]
    ties = [most_of_one_animal(r, otters_count=rules.tiebreak_otters_count) for r in last]
    contenders = tiebreak_contenders(rounds, rules)
    aux = [ties[i][0] if contenders[i] else 0 for i in range(count)]
    results = []
    for i, (name, _) in enumerate(players):
        rank = 1 + sum(
            1
            for j in range(count)
            if totals[j] > totals[i] or (totals[j] == totals[i] and aux[j] > aux[i])
        )
        results.append(
            PlayerResult(
                name, tuple(rounds[i]), totals[i], ties[i][0], ties[i][1], rank, contenders[i]
            )
        )
    return GameResult(goal_set, tuple(results))


def tiebreak_contenders(rounds: Sequence[Sequence[PlayerRound]], rules: Rules) -> list[bool]:
    """Which players the tie-break is counted for (``rules.tiebreak_scope``).

    ``every_place``: everybody (players tied on the final total at any place are ordered by it).
    ``adaptation``: the players with the highest total after the last round computed as the
    adaptation does, without that round's floors: total after the round before plus the last
    round's raw points. Everybody else counts 0, so their ties stay shared.
    """
    if rules.tiebreak_scope == "every_place":
        return [True] * len(rounds)
    unfloored = []
    for player_rounds in rounds:
        before = player_rounds[-2].total if len(player_rounds) > 1 else 0
        unfloored.append(before + sum(g.points for g in player_rounds[-1].goals))
    best = max(unfloored)
    return [value == best for value in unfloored]
