"""Nimalia entry in a real browser: taps a card and seconds of waiting, "Lay cards" against
"Tap squares" (the baseline), on the same random cards (``tests/app/nimalia_journey.py``).

One ``streamlit run`` server per run (SQLite in a temporary folder), Debian's Chromium through
Playwright at 390 x 844, touch; 2 players, ``--rounds`` rounds of 3 cards a player.

Usage: ``python scripts/bench_nimalia_entry.py [--mode lay|tap] [--rounds 5] [--n 1]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "app"))  # the browser harness and the journey

from browser_helpers import PHONE, app_page  # noqa: E402
from nimalia_journey import play_night  # noqa: E402
from test_nimalia_browser import set_up_game  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("lay", "tap"), action="append")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--n", type=int, default=1)
    args = parser.parse_args(argv)
    for mode in args.mode or ["lay", "tap"]:
        for run in range(args.n):
            with tempfile.TemporaryDirectory() as tmp, app_page(Path(tmp), device=PHONE) as page:
                set_up_game(page)
                night = play_night(page, mode=mode, rounds=args.rounds)
            print(f"{mode} run {run + 1}, {args.rounds} round(s): {night.line()}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
