"""Time the scoring engine on typical and adversarial boards, next to naive baselines.

Usage::

    python scripts/bench_scoring.py [--repeats 200] [--random 300] [--write BENCHMARKS.md]

For each board: median, p95 and max of ``score_board`` over ``--repeats`` calls (after a
warm-up), then the same board scored with the partition search replaced by (a) a brute-force
enumeration of every family of disjoint sets (stopped after ``--brute-limit`` seconds) and (b) a
greedy pick of the heaviest sets first — with the VP the greedy pick loses. ``--random`` seeded
random boards (dense in shape and enclosure animals) add a worst case over many boards.
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import scoring.reptile_tank.engine as engine
from scoring.reptile_tank.board import Board
from scoring.reptile_tank.cards import FACE_LABELS
from scoring.reptile_tank.packing import Candidate
from scoring.reptile_tank.rules import load_rules

S, T, C, G = "blue_tongued_skink", "three_toed_box_turtle", "corn_snake", "neon_day_gecko"
R, W, P, L = "rock", "water", "golden_pothos", "hollow_log"

TYPICAL = {
    "michael (rulebook pad, 72)": [
        [S, S, S, W, "common_box_turtle"],
        [L, "red_footed_tortoise", "scarlet_star", C, "common_box_turtle"],
        ["common_box_turtle", "red_footed_tortoise", "red_footed_tortoise", C, "common_box_turtle"],
        ["common_box_turtle", W, W, "dubia_roach", "dubia_roach"],
    ],
    "barbara (rulebook pad, 59)": [
        [W, W, W, C, "brown_anole"],
        [W, "dubia_roach", C, C, W],
        [S, S, S, L, W],
        [W, "brown_anole", "scarlet_star", "red_footed_tortoise", "red_footed_tortoise"],
    ],
    "half-built (8 empty)": [
        [S, S, "empty", R, "empty"],
        [P, "empty", T, T, "empty"],
        ["empty", W, W, "empty", "dubia_roach"],
        ["empty", "empty", C, C, "empty"],
    ],
}


def _ring(animal: str, envs: Sequence[str]) -> list[list[str]]:
    """16 animals around 4 Environment cards at (1,1) (1,3) (3,1) (3,3)."""
    rows = [[animal] * 5 for _ in range(4)]
    for (r, c), env in zip(((1, 1), (1, 3), (3, 1), (3, 3)), envs, strict=True):
        rows[r][c] = env
    return rows


ADVERSARIAL = {
    "20 skinks, no Environment": [[S] * 5 for _ in range(4)],
    "16 skinks around 4 Environments": _ring(S, (R, W, P, L)),
    "16 three-toed turtles around 4 Environments": _ring(T, (R, W, P, L)),
    "16 corn snakes (L shapes) around 4 Environments": _ring(C, (R, W, P, L)),
    "16 geckos (diagonals) around 4 Environments": _ring(G, (R, W, P, L)),
    "15 skinks, 5 Environments in a diagonal": [
        [R, S, S, S, S],
        [S, W, S, S, S],
        [S, S, P, S, S],
        [S, S, S, L, S],
    ],
    "12 turtles, 8 Environments checkerboard": [
        [T, R, T, W, T],
        [P, T, L, T, R],
        [T, W, T, P, T],
        [L, T, R, T, W],
    ],
    # found by a seeded hill-climb that maximised the engine's CPU time per board
    "hill-climbed worst, corn snakes": [
        [C, P, C, C, L],
        [R, C, C, C, C],
        [R, C, C, C, C],
        [C, C, L, C, P],
    ],
    "hill-climbed worst, three-toed turtles": [
        [P, T, T, L, T],
        [T, T, R, T, P],
        [T, P, T, P, T],
        [T, T, T, T, P],
    ],
}


def _random_boards(n: int, seed: int) -> list[list[list[str]]]:
    rng = random.Random(seed)
    heavy = [S, S, S, T, T, T, C, C, G, G]
    envs = [R, W, P, L, "scarlet_star", "silver_inch_plant"]
    boards = []
    for _ in range(n):
        pool = heavy + envs + list(FACE_LABELS) + ["empty"]
        boards.append([[rng.choice(pool) for _ in range(5)] for _ in range(4)])
    return boards


class _Timeout(Exception):
    pass


def brute_force_with_choice(candidates: Sequence[Candidate], deadline: float):
    """Every family of disjoint candidates; raises _Timeout after ``deadline``."""
    items = [c for c in candidates if c.weight > 0]
    calls = 0

    def go(index: int, used: int) -> tuple[int, list[Candidate]]:
        nonlocal calls
        calls += 1
        if calls % 4096 == 0 and time.perf_counter() > deadline:
            raise _Timeout
        if index == len(items):
            return 0, []
        best = go(index + 1, used)
        cand = items[index]
        if not cand.mask & used:
            weight, chosen = go(index + 1, used | cand.mask)
            if weight + cand.weight > best[0]:
                best = (weight + cand.weight, [cand, *chosen])
        return best

    return go(0, 0)


def greedy_packing(candidates: Sequence[Candidate]):
    used, chosen = 0, []
    for cand in sorted(candidates, key=lambda c: -c.weight):
        if cand.weight > 0 and not cand.mask & used:
            chosen.append(cand)
            used |= cand.mask
    return sum(c.weight for c in chosen), chosen


def _with_packing(packing: Callable, fn: Callable):
    """Run ``fn`` with the engine's partition search replaced by ``packing``."""
    original = engine.best_packing
    engine.best_packing = packing
    try:
        return fn()
    finally:
        engine.best_packing = original


def time_board(board: Board, rules, repeats: int) -> tuple[list[float], list[float]]:
    """(CPU ms, wall ms) of each call. CPU time (``thread_time``) leaves out the time the
    shared machine gave to other processes; wall time includes it. GC is paused, as in timeit.
    """
    engine.score_board(board, rules)  # warm-up (shape placements are cached)
    cpu, wall = [], []
    gc.disable()
    try:
        for _ in range(repeats):
            start_wall, start_cpu = time.perf_counter(), time.thread_time()
            engine.score_board(board, rules)
            cpu.append((time.thread_time() - start_cpu) * 1e3)
            wall.append((time.perf_counter() - start_wall) * 1e3)
    finally:
        gc.enable()
    return cpu, wall


def stats(times: Sequence[float]) -> tuple[float, float, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return statistics.median(ordered), p95, ordered[-1]


def bench(args: argparse.Namespace) -> list[str]:
    rules = load_rules()
    lines = [
        "| board | exact: median ms | p95 ms | max ms | max wall ms | brute force ms "
        "| greedy ms | greedy VP lost |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    worst = worst_wall = 0.0
    for group, boards in (("typical", TYPICAL), ("adversarial", ADVERSARIAL)):
        for name, rows in boards.items():
            board = Board.from_rows(rows)
            exact_pad = engine.score_board(board, rules)
            cpu, wall = time_board(board, rules, args.repeats)
            median, p95, top = stats(cpu)
            worst, worst_wall = max(worst, top), max(worst_wall, max(wall))

            start = time.perf_counter()
            try:
                deadline = time.perf_counter() + args.brute_limit
                brute_pad = _with_packing(
                    lambda cands, d=deadline: brute_force_with_choice(cands, d),
                    lambda board=board: engine.score_board(board, rules),
                )
                brute_ms = f"{(time.perf_counter() - start) * 1e3:.1f}"
                assert brute_pad.total == exact_pad.total, name
            except _Timeout:
                brute_ms = f"> {args.brute_limit * 1e3:.0f} (stopped)"
            start = time.perf_counter()
            greedy_pad = _with_packing(
                greedy_packing, lambda board=board: engine.score_board(board, rules)
            )
            greedy_ms = (time.perf_counter() - start) * 1e3
            lost = exact_pad.total - greedy_pad.total
            lines.append(
                f"| {group}: {name} | {median:.3f} | {p95:.3f} | {top:.3f} | {max(wall):.3f} "
                f"| {brute_ms} "
                f"| {greedy_ms:.3f} | {lost} |"
            )
    randoms = [Board.from_rows(rows) for rows in _random_boards(args.random, args.seed)]
    times, walls, lost_boards, lost_vp = [], [], 0, 0
    for board in randoms:
        cpu, wall = time_board(board, rules, 5)
        times += cpu
        walls += wall
        exact = engine.score_board(board, rules).total
        greedy = _with_packing(greedy_packing, lambda board=board: engine.score_board(board, rules))
        if greedy.total != exact:
            lost_boards += 1
            lost_vp = max(lost_vp, exact - greedy.total)
    median, p95, top = stats(times)
    worst, worst_wall = max(worst, top), max(worst_wall, max(walls))
    lines.append(
        f"| random: {args.random} dense boards (seed {args.seed}), 5 calls each | {median:.3f} "
        f"| {p95:.3f} | {top:.3f} | {max(walls):.3f} | — | — "
        f"| greedy wrong on {lost_boards} boards "
        f"(up to {lost_vp} VP) |"
    )
    lines.append("")
    lines.append(
        f"Worst single call over everything: **{worst:.2f} ms CPU** (target ≤ 5 ms); "
        f"worst wall-clock {worst_wall:.2f} ms (includes time the shared machine spent elsewhere)."
    )
    return lines


def write_section(path: Path, body: list[str], command: str) -> None:
    """Replace (or append) the ``## Scoring`` section of ``path``; other sections stay."""
    machine = (
        f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}"
    )
    section = [
        "## Scoring",
        "",
        "Scoring one 4x5 board (`scoring.reptile_tank.engine.score_board`, default rules, no objectives) "
        f"on a shared 2-core CPU machine ({machine}). The exact columns are CPU time per call "
        "(`time.thread_time`, GC paused as in timeit); 'max wall' is the slowest wall-clock "
        "call, which includes time the busy machine gave to other processes. Exact = the "
        "memoised set-packing search the engine uses; brute force = every family of disjoint "
        "sets (one wall-clock call); greedy = heaviest set first (one call; fast but wrong: "
        "'greedy VP lost' is what it would cost the player).",
        "",
        f"Command: `{command}`",
        "",
        *body,
        "",
    ]
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n\n"
    start = text.find("## Scoring")
    if start == -1:
        text = text.rstrip("\n") + "\n\n" + "\n".join(section)
    else:
        end = text.find("\n## ", start + 1)
        rest = text[end + 1 :] if end != -1 else ""
        text = text[:start] + "\n".join(section) + ("\n" + rest if rest else "")
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--random", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--brute-limit", type=float, default=2.0, help="seconds per board")
    parser.add_argument("--write", type=Path, default=None, help="update this BENCHMARKS.md")
    args = parser.parse_args(argv)
    lines = bench(args)
    print("\n".join(lines))
    if args.write:
        command = "python scripts/bench_scoring.py " + " ".join(argv or sys.argv[1:])
        write_section(args.write, lines, command.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
