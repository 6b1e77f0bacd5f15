"""Leaderboard page cost with a long history (issue 16: < 1 s per page at 10 000 games).

Fills a fresh database with N games (2-4 players from a pool of 60 names, realistic pads, a 6 KB
thumbnail per line, like the app saves), then times what one click on the Leaderboard page
costs, each query the median of ``--repeat`` runs:

- ``leaderboard_page`` (standings, first page and a deep page, all time and one session),
- ``list_games_page`` (recent games, newest first, no thumbnails),
- the whole standings list (``leaderboard``), and
- the exports, which the page builds only when asked (``export_csv``, ``export_json``).

Also: how long a save waits while a 2 000-game import runs (batches of 200 vs one batch).

Usage::

    python scripts/bench_leaderboard.py --games 10000            # SQLite file in a temp folder
    python scripts/bench_leaderboard.py --url postgresql+psycopg://postgres@127.0.0.1:5432/db
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from service.store import schema_history

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leaderboard import GamePlayer, GameRecord, Store  # noqa: E402

PAD_KEYS = ("lizards", "snakes", "turtles", "cockroach", "water", "dry_land", "objectives")
CARDS = ("rock", "water", "corn_snake", "dubia_roach", "hollow_log", "rosy_boa", "empty")
THUMB = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 24 + b"\xff\xd9"


def game(session_id: int, rng: random.Random, names: list[str], day: int) -> GameRecord:
    players = rng.sample(names, rng.randint(2, 4))
    pads = []
    for _ in players:
        pad = {key: rng.randint(0, 25) for key in PAD_KEYS}
        pad["total"] = sum(pad.values())
        pad["groups"] = [{"column": "lizards", "vp": pad["lizards"], "cells": [[0, 1], [0, 2]]}]
        pads.append(pad)
    totals = [p["total"] for p in pads]
    lines = tuple(
        GamePlayer(
            name=name,
            board={"rows": [[rng.choice(CARDS) for _ in range(5)] for _ in range(4)]},
            pad=pad,
            rank=1 + sum(t > pad["total"] for t in totals),
            photo_sha256=f"{rng.getrandbits(256):064x}",
            photo_thumbnail=THUMB,
        )
        for name, pad in zip(players, pads, strict=True)
    )
    stamp = f"2026-{1 + day // 28 % 12:02d}-{1 + day % 28:02d}T20:{rng.randint(0, 59):02d}:00"
    return GameRecord(session_id, lines, objectives=[3, 11], rules_hash="bench", played_at=stamp)


def timed(fn, repeat: int) -> tuple[float, object]:
    samples, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), result


def document(n: int, seed: int, names: list[str], prefix: str = "") -> dict:
    """An export document of ``n`` games, 25 per game night."""
    rng = random.Random(seed)
    nights = max(1, n // 25)
    doc = {
        "format": "reptile-tank-leaderboard",
        "format_version": 1,
        "sessions": [
            {"uid": f"{prefix}night-{k}", "name": f"Night {k}", "created_at": "2026-01-01"}
            for k in range(nights)
        ],
        "games": [],
    }
    for k in range(n):
        record = game(0, rng, names, k // 25)
        data = record.to_json()
        data.update(uid=f"{prefix}game-{k}", session_uid=f"{prefix}night-{k // 25 % nights}")
        doc["games"].append(data)
    return doc


def fill(store: Store, n: int, seed: int) -> list[int]:
    """Write ``n`` games through the import path, 1000 per transaction (one fsync per save
    would make filling, not querying, the slow part of the benchmark)."""
    doc = document(n, seed, [f"Player {k:02d}" for k in range(60)])
    start = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if done % 2000 == 0 or done == total:
            print(f"  {done} games written ({time.perf_counter() - start:.0f} s)", flush=True)

    store.import_json(doc, verify=False, batch_size=1000, progress=progress)
    return [s.id for s in store.list_sessions()]


def save_wait_during_import(url: str, batch: int, games: int = 2000) -> dict:
    """Longest wait of saves made every 20 ms while an import of ``games`` games runs."""
    doc = document(games, 7, [f"Importer {k}" for k in range(8)], prefix=f"b{batch}-")
    waits: list[float] = []
    done = threading.Event()
    with (
        Store(url, history=schema_history()) as importer,
        Store(url, history=schema_history()) as saver,
    ):
        own = saver.create_session("saves during import")
        rng = random.Random(8)

        def save_loop() -> None:
            while not done.is_set():
                start = time.perf_counter()
                saver.save_game(game(own.id, rng, ["Ann", "Bo", "Cy", "Di"], 0))
                waits.append(time.perf_counter() - start)
                time.sleep(0.02)

        thread = threading.Thread(target=save_loop)
        thread.start()
        start = time.perf_counter()
        importer.import_json(doc, verify=False, batch_size=batch)
        took = time.perf_counter() - start
        done.set()
        thread.join()
    return {
        "batch_size": batch,
        "import_s": round(took, 2),
        "saves": len(waits),
        "max_save_wait_s": round(max(waits), 3),
        "median_save_wait_s": round(statistics.median(waits), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--url", default=None, help="database URL (default: a temp SQLite file)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", default=None, help="write the numbers to this file")
    args = parser.parse_args()
    folder = tempfile.TemporaryDirectory()
    url = args.url or f"sqlite:///{Path(folder.name) / 'bench.sqlite3'}"
    out: dict = {"games": args.games, "backend": url.split(":")[0]}
    with Store(url, history=schema_history()) as store:
        print(f"filling {args.games} games into {store!r}", flush=True)
        start = time.perf_counter()
        sessions = fill(store, args.games, args.seed)
        out["fill_s"] = round(time.perf_counter() - start, 1)
        lines = sum(len(g.players) for g in store.list_games_page(limit=1000).games)
        out["sample_lines_per_game"] = round(lines / 1000, 2)
        one = sessions[len(sessions) // 2]
        cases = {
            "leaderboard_page all-time, page 1 (50 rows)": lambda: store.leaderboard_page(),
            "leaderboard_page all-time, offset 40": lambda: store.leaderboard_page(offset=40),
            "leaderboard_page one night": lambda: store.leaderboard_page(one),
            "leaderboard_page multi only": lambda: store.leaderboard_page(mode="multi"),
            "list_games_page newest 20": lambda: store.list_games_page(limit=20),
            "list_games_page offset 5000": lambda: store.list_games_page(offset=5000, limit=20),
            "leaderboard (whole list)": lambda: store.leaderboard(),
            "export_csv (on request)": lambda: store.export_csv(),
            "export_json (on request)": lambda: store.export_json(),
        }
        out["queries_s"] = {}
        for name, fn in cases.items():
            repeat = 1 if name.startswith("export") else args.repeat
            seconds, _ = timed(fn, repeat)
            out["queries_s"][name] = round(seconds, 4)
            print(f"  {name:<48} {seconds * 1000:9.1f} ms", flush=True)
        click = sum(
            out["queries_s"][k]
            for k in ("leaderboard_page all-time, page 1 (50 rows)", "list_games_page newest 20")
        )
        out["page_click_s"] = round(click, 4)
        print(f"  one page click (standings page + recent games): {click * 1000:.1f} ms")
    if args.url is None:
        out["save_during_import"] = [save_wait_during_import(url, batch) for batch in (200, 2000)]
        for row in out["save_during_import"]:
            print(f"  import 2000 games, batch {row['batch_size']}: {row}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    folder.cleanup()


if __name__ == "__main__":
    main()
