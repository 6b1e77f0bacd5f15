"""Exact maximum-weight set packing over the cells of a terrarium (any layout).

Shape sets and enclosures are *candidates*: a bitmask of the animal cards they use and a
weight. Each animal card may be in at most one set, so the best partition is the heaviest
family of pairwise disjoint candidates. Cells are bits ``row * layout.cols + col``.

The search branches on the lowest free cell that some candidate still covers: either that cell
stays out of every set, or exactly one candidate whose lowest cell it is takes it. States
(the set of still-free cells) are memoised; because every candidate spans at most a few rows,
the free cells above the branching cell are fixed and the state space stays small (a profile
dynamic programme in disguise). Exact, and well under a millisecond on full boards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Candidate:
    """A possible set: ``mask`` of the cells it uses, its ``weight``, and any ``payload``."""

    mask: int
    weight: int
    payload: Any = None


def best_packing(candidates: Sequence[Candidate]) -> tuple[int, list[Candidate]]:
    """The heaviest family of pairwise disjoint candidates.

    Parameters
    ----------
    candidates : sequence of Candidate
        Non-negative weights; masks must be non-zero.

    Returns
    -------
    weight : int
        The maximum total weight (0 when nothing fits).
    chosen : list of Candidate
        One optimal family, in order of their lowest cell.
    """
    useful = [c for c in candidates if c.weight > 0]
    if not useful:
        return 0, []
    by_low: dict[int, list[Candidate]] = {}
    universe = 0
    for cand in useful:
        low = cand.mask & -cand.mask
        by_low.setdefault(low, []).append(cand)
        universe |= cand.mask
    memo: dict[int, tuple[int, Candidate | None]] = {}

    def solve(free: int) -> int:
        # drop free cells that start no candidate: they can only be covered by sets that
        # start at a lower cell, which have all been decided already
        while free and (free & -free) not in by_low:
            free &= free - 1
        if not free:
            return 0
        hit = memo.get(free)
        if hit is not None:
            return hit[0]
        low = free & -free
        best = solve(free & ~low)
        best_cand = None
        for cand in by_low[low]:
            if cand.mask & free == cand.mask:
                value = cand.weight + solve(free & ~cand.mask)
                if value > best:
                    best, best_cand = value, cand
        memo[free] = (best, best_cand)
        return best

    total = solve(universe)
    chosen: list[Candidate] = []
    free = universe
    while True:
        while free and (free & -free) not in by_low:
            free &= free - 1
        if not free:
            break
        _, cand = memo[free]
        if cand is None:
            free &= ~(free & -free)
        else:
            chosen.append(cand)
            free &= ~cand.mask
    return total, chosen


def brute_force_packing(candidates: Sequence[Candidate]) -> int:
    """Reference oracle: try every family of disjoint candidates (exponential; tests only)."""
    items = [c for c in candidates if c.weight > 0]

    def go(index: int, used: int) -> int:
        if index == len(items):
            return 0
        best = go(index + 1, used)
        cand = items[index]
        if not cand.mask & used:
            best = max(best, cand.weight + go(index + 1, used | cand.mask))
        return best

    return go(0, 0)
