"""Time to score a full 6x6 Nimalia reserve on all 22 goals: the engine against the naive oracle.

Each reserve is random legal placements (random cards and turns, each card covering a square
already there) until all 36 squares are covered, then up to 3 more cards on top. "All 22
goals" = the 18 own-reserve goals with their reasons, plus the 4 relative goals (16, 18, 20,
21) scored for this reserve alone (their values measured, ranked among one player). The oracle
(``tests/nimalia/nimalia_oracle.py``, written naively from the reference) scores the same
reserves in the same run, and the two must agree goal by goal.

Usage::

    python scripts/bench_nimalia.py [--reserves 200] [--repeat 5] [--seed 1]
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "nimalia"))

import nimalia_oracle as oracle  # noqa: E402

from scoring.nimalia.engine import score_goals, score_relative  # noqa: E402
from scoring.nimalia.reserve import Placement, reserve_from_document, reserve_from_placements  # noqa: E402
from scoring.nimalia.rules import load_rules  # noqa: E402


def full_reserve(rng: random.Random):
    """Random legal placements (each card covers a square already there) until all 36 squares
    are covered, then a few more cards on top."""
    deck = rng.sample(range(1, 61), 60)
    turns = [0, 90, 180, 270]
    placements = [Placement(deck.pop(), rng.randint(0, 4), rng.randint(0, 4), rng.choice(turns))]
    covered = set()

    def footprint(r, c):
        return {(r, c), (r + 1, c), (r, c + 1), (r + 1, c + 1)}

    covered |= footprint(placements[0].row, placements[0].col)
    while len(covered) < 36:
        spots = [
            (r, c)
            for r in range(5)
            for c in range(5)
            if footprint(r, c) & covered and footprint(r, c) - covered
        ]
        r, c = rng.choice(spots)
        placements.append(Placement(deck.pop(), r, c, rng.choice(turns)))
        covered |= footprint(r, c)
    for _ in range(rng.randint(0, 3)):
        placements.append(
            Placement(deck.pop(), rng.randint(0, 4), rng.randint(0, 4), rng.choice(turns))
        )
    return reserve_from_placements(placements)


def engine_all(reserve, rules) -> list[int]:
    own = [g for g in rules.goals if not rules.goals[g].relative]
    scores, pending = score_goals(reserve, list(rules.goals), rules)
    points = dict(zip(own, (s.points for s in scores), strict=True))
    for goal in pending:
        points[goal] = score_relative([reserve], goal, rules)[0].points
    return [points[g] for g in sorted(points)]


def oracle_all(grid) -> list[int]:
    return [
        oracle.relative_goal([grid], g)[0] if g in oracle.RELATIVE else oracle.own_goal(grid, g)
        for g in range(1, 23)
    ]


def per_reserve_ms(fn, items, repeat: int) -> tuple[list[float], float]:
    """CPU time per item (``time.thread_time``, GC paused as in timeit; best of ``repeat``)
    and the slowest wall-clock call (which includes time the shared machine gave elsewhere)."""
    cpu, worst_wall = [], 0.0
    gc.disable()
    try:
        for item in items:
            best = float("inf")
            for _ in range(repeat):
                wall = time.perf_counter()
                start = time.thread_time()
                fn(item)
                best = min(best, time.thread_time() - start)
                worst_wall = max(worst_wall, time.perf_counter() - wall)
            cpu.append(best * 1000)
    finally:
        gc.enable()
    return cpu, worst_wall * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reserves", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5, help="best of N per reserve")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rules = load_rules()
    rng = random.Random(args.seed)
    reserves = [full_reserve(rng) for _ in range(args.reserves)]
    assert all(r.occupied == 36 for r in reserves)
    grids = [oracle.grid_from_rows(r.token_rows()) for r in reserves]
    docs = [r.to_squares_document() for r in reserves]
    for reserve, grid in zip(reserves, grids, strict=True):
        assert engine_all(reserve, rules) == oracle_all(grid), "engine and oracle disagree"

    engine_ms = per_reserve_ms(lambda r: engine_all(r, rules), reserves, args.repeat)
    oracle_ms = per_reserve_ms(oracle_all, grids, args.repeat)
    parse_ms = per_reserve_ms(reserve_from_document, docs, args.repeat)

    def row(name, measured):
        ms, wall = measured
        q = statistics.quantiles(ms, n=20)
        return (
            f"| {name} | {statistics.median(ms):.3f} | {q[18]:.3f} | {max(ms):.3f} | {wall:.3f} |"
        )

    print(
        f"{len(reserves)} full 6x6 reserves, all 22 goals, best of {args.repeat} per reserve; "
        f"Python {platform.python_version()} on {platform.machine()}; engine == oracle on all"
    )
    print("| what | CPU median ms | p95 ms | max ms | max wall ms |")
    print("|---|---:|---:|---:|---:|")
    print(row("engine: 22 goals with reasons", engine_ms))
    print(row("naive oracle: 22 goals", oracle_ms))
    print(row("squares document -> reserve", parse_ms))
    ratio = statistics.median(oracle_ms[0]) / statistics.median(engine_ms[0])
    print(f"oracle / engine (median): {ratio:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
