r"""An independent, naive Nimalia scorer written straight from the reference's wording.

It shares no code with :mod:`scoring.nimalia.engine`: grids are dicts of token strings, rivers are
joined through the lattice corners their diagonals end at, zones by repeated set growth,
goal 10 by trying every window, RANK read literally. Slow on purpose; the tests compare it goal
by goal with the engine on generated reserves and games.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

N = 6
CARDS_FILE = Path(__file__).resolve().parents[3] / "scoring" / "nimalia" / "data" / "cards.toml"

GOAL_COLOUR = {
    1: "yellow", 2: "blue", 3: "blue", 4: "yellow", 5: "blue", 6: "yellow", 7: "yellow",
    8: "green", 9: "blue", 10: "yellow", 11: "blue", 12: "green", 13: "red", 14: "green",
    15: "yellow", 16: "red", 17: "green", 18: "red", 19: "green", 20: "red", 21: "red",
    22: "green",
}  # fmt: skip
ROUND_ORDER = {
    1: ["blue", "green"],
    2: ["green", "yellow"],
    3: ["blue", "red"],
    4: ["green", "yellow", "red"],
    5: ["blue", "red", "yellow"],
}
RELATIVE = {16, 18, 20, 21}


def load_cards() -> dict[int, list[str]]:
    data = tomllib.loads(CARDS_FILE.read_text())
    return {int(k): v for k, v in data["cards"].items()}


def turned(tokens: list[str], degrees: int) -> list[str]:
    """Quarters after a clockwise turn, per the reference's index lists; rivers flip on 90/270."""
    order = {0: (0, 1, 2, 3), 90: (2, 0, 3, 1), 180: (3, 2, 1, 0), 270: (1, 3, 0, 2)}[degrees]
    out = [tokens[i] for i in order]
    if degrees in (90, 270):
        out = [t.replace("/", "#").replace("\\", "/").replace("#", "\\") for t in out]
    return out


def grid_from_placements(placements, cards) -> dict[tuple[int, int], str]:
    grid: dict[tuple[int, int], str] = {}
    for card_id, row, col, degrees in placements:
        tl, tr, bl, br = turned(cards[card_id], degrees)
        grid[(row, col)] = tl
        grid[(row, col + 1)] = tr
        grid[(row + 1, col)] = bl
        grid[(row + 1, col + 1)] = br
    return grid


def grid_from_rows(rows: list[list[str]]) -> dict[tuple[int, int], str]:
    return {(r, c): t for r, row in enumerate(rows) for c, t in enumerate(row) if t != "."}


def land(grid, cell):
    token = grid.get(cell)
    return token.split(":")[0] if token else None


def animal(grid, cell):
    token = grid.get(cell)
    return token.split(":")[1][:3] if token else None


def river(grid, cell):
    token = grid.get(cell)
    if token and token.endswith(("/", "\\")):
        return token[-1]
    return None


def sides(cell):
    r, c = cell
    return [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]


def inside(cell):
    return 0 <= cell[0] < N and 0 <= cell[1] < N


def zones(cells: set) -> list[set]:
    """Side-connected groups of the given cells, by growing each group until it stops."""
    left = set(cells)
    out = []
    while left:
        group = {left.pop()}
        grew = True
        while grew:
            grew = False
            for other in list(left):
                if any(n in group for n in sides(other)):
                    group.add(other)
                    left.discard(other)
                    grew = True
        out.append(group)
    return out


def river_ends(cell, direction):
    """Lattice corners (row, col) where a square's river ends."""
    r, c = cell
    if direction == "/":  # bottom-left to top-right
        return {(r + 1, c), (r, c + 1)}
    return {(r, c), (r + 1, c + 1)}  # top-left to bottom-right


def rivers(grid) -> list[set]:
    squares = {cell: river(grid, cell) for cell in grid if river(grid, cell)}
    left = set(squares)
    out = []
    while left:
        group = {left.pop()}
        grew = True
        while grew:
            grew = False
            for other in list(left):
                ends = river_ends(other, squares[other])
                if any(ends & river_ends(g, squares[g]) for g in group):
                    group.add(other)
                    left.discard(other)
                    grew = True
        out.append(group)
    return out


def longest_river(grid) -> int:
    return max((len(r) for r in rivers(grid)), default=0)


def count(grid, kind) -> int:
    return sum(1 for cell in grid if animal(grid, cell) == kind)


def touches_edge(grid, cell) -> bool:
    return any(n not in grid for n in sides(cell))


def own_goal(grid, goal: int, goal12: str = "printed") -> int:
    cells = list(grid)
    if goal == 1:
        total = 0
        for o in cells:
            if animal(grid, o) != "ott":
                continue
            kinds: dict[str, int] = {}
            for n in sides(o):
                if n in grid:
                    kinds[animal(grid, n)] = kinds.get(animal(grid, n), 0) + 1
            total += sum(k for k in kinds.values() if k >= 2)
        return total
    if goal == 2:
        total = 0
        for o in cells:
            d = river(grid, o)
            if not d:
                continue
            touching = set()
            for corner in river_ends(o, d):
                cr, cc = corner  # the 4 squares having this corner
                touching |= {(cr - 1, cc - 1), (cr - 1, cc), (cr, cc - 1), (cr, cc)}
            touching.discard(o)
            if any(land(grid, t) == "W" for t in touching):
                total += 2
        return total
    if goal == 3:
        return 2 * len(zones({c for c in cells if land(grid, c) == "J"}))
    if goal == 4:
        return 2 * sum(
            1
            for c in cells
            if animal(grid, c) == "gor" and any(land(grid, n) == "W" for n in sides(c))
        )
    if goal == 5:
        return 2 * max(
            (len(z) for z in zones({c for c in cells if land(grid, c) == "S"})), default=0
        )
    if goal == 6:
        return 6 * sum(1 for z in zones({c for c in cells if land(grid, c) == "S"}) if len(z) == 4)
    if goal == 7:
        return 4 * sum(
            1
            for r in range(N - 1)
            for c in range(N - 1)
            if all(land(grid, (r + a, c + b)) == "I" for a in (0, 1) for b in (0, 1))
        )
    if goal == 8:
        total = 0
        for z in zones({c for c in cells if animal(grid, c) == "bea"}):
            total += -1 if len(z) == 1 else 2 * len(z)
        return total
    if goal == 9:
        return 2 * min(sum(1 for c in cells if land(grid, c) == x) for x in "WSJI")
    if goal == 10:
        k = 0
        for size in range(1, N + 1):
            for r in range(N - size + 1):
                for c in range(N - size + 1):
                    if all((r + a, c + b) in grid for a in range(size) for b in range(size)):
                        k = max(k, size)
        return [0, 0, 3, 5, 8, 13, 21][k]
    if goal == 11:
        return 3 * sum(
            1 for r in range(N) if {land(grid, (r, c)) for c in range(N)} >= {"W", "S", "J", "I"}
        )
    if goal == 12:
        total = 0
        for r in range(N):
            names = [animal(grid, (r, c)) for c in range(N)]
            c = 0
            while c < N:
                e = c
                while e + 1 < N and names[c] is not None and names[e + 1] == names[c]:
                    e += 1
                length = e - c + 1
                if names[c] is not None:
                    if length == 2:
                        total += 3
                    elif goal12 == "adaptation" and length >= 2 and e == N - 1:
                        total += 3
                c = e + 1
        return total
    if goal == 13:
        return {0: 8, 1: 5, 2: 3}.get(count(grid, "gir"), 0)
    if goal == 14:
        return 3 * sum(1 for c in cells if animal(grid, c) == "fla" and not touches_edge(grid, c))
    if goal == 15:
        length = longest_river(grid)
        return min(15, length * (length - 1) // 2)
    if goal == 17:
        return 3 * sum(1 for c in cells if animal(grid, c) == "pan" and touches_edge(grid, c))
    if goal == 19:
        return 3 * sum(
            1 for c in range(N) if sum(animal(grid, (r, c)) == "pen" for r in range(N)) == 1
        )
    if goal == 22:
        return 2 * sum(
            1
            for c in cells
            if animal(grid, c) == "cro" and any(animal(grid, n) == "gir" for n in sides(c))
        )
    raise ValueError(goal)


def rank(values: list[int], most: bool, p1: int, p2: int) -> list[int]:
    """RANK as the reference words it."""
    best = max(values) if most else min(values)
    ordered = sorted(values, reverse=most)
    out = []
    exactly_one_best = values.count(best) == 1
    for v in values:
        if v == best:
            out.append(p1)
        elif len(values) in (3, 4) and exactly_one_best and v == ordered[1]:
            out.append(p2)
        else:
            out.append(0)
    return out


def relative_goal(grids: list[dict], goal: int) -> list[int]:
    if goal == 16:
        return rank([longest_river(g) for g in grids], True, 5, 2)
    if goal == 18:
        a = rank([count(g, "gor") for g in grids], True, 5, 2)
        b = rank([count(g, "pan") for g in grids], True, -5, -2)
        return [x + y for x, y in zip(a, b, strict=True)]
    if goal == 20:
        lions = [count(g, "lio") for g in grids]
        return [3 if v == min(lions) else -2 for v in lions]
    if goal == 21:
        a = rank([count(g, "cro") for g in grids], True, 5, 2)
        b = rank([count(g, "fla") for g in grids], False, 5, 2)
        return [x + y for x, y in zip(a, b, strict=True)]
    return [own_goal(g, goal) for g in grids]


def game(goals: list[int], players: list[list[dict]], tiebreak: str = "adaptation") -> dict:
    """Per (round, goal) the raw points of each player, final totals (floor after every goal),
    and ranks with the tie-break.

    The tie-break (most animals of one type, otters included) decides between players tied on
    the final total. ``adaptation``: it is counted only for the players whose last-round total
    computed without that round's floors (total before the round + the round's raw points) is
    the highest; for everybody else it counts 0. ``every_place``: counted for everybody.
    """
    by_colour = {GOAL_COLOUR[g]: g for g in goals}
    totals = [0] * len(players)
    before_last = [0] * len(players)
    raw_last = [0] * len(players)
    raw = {}
    n_rounds = len(players[0])
    for rnd in range(1, n_rounds + 1):
        grids = [p[rnd - 1] for p in players]
        if rnd == n_rounds:
            before_last = list(totals)
        for colour in ROUND_ORDER[rnd]:
            goal = by_colour[colour]
            pts = relative_goal(grids, goal)
            raw[(rnd, goal)] = pts
            for i, p in enumerate(pts):
                totals[i] = max(0, totals[i] + p)
                if rnd == n_rounds:
                    raw_last[i] += p
    most = [
        max(
            count(p[-1], a) for a in ("cro", "fla", "lio", "gir", "pan", "gor", "bea", "pen", "ott")
        )
        for p in players
    ]
    if tiebreak == "adaptation":
        unfloored = [b + r for b, r in zip(before_last, raw_last, strict=True)]
        aux = [m if u == max(unfloored) else 0 for m, u in zip(most, unfloored, strict=True)]
    else:
        aux = most
    ranks = []
    for i in range(len(players)):
        better = 0
        for j in range(len(players)):
            if totals[j] > totals[i] or (totals[j] == totals[i] and aux[j] > aux[i]):
                better += 1
        ranks.append(better + 1)
    return {"raw": raw, "totals": totals, "ranks": ranks}
