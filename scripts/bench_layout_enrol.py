"""Does a photo of the 16 faces laid out enrol? (issue 28: "every such photo enrols")

Renders layout photos of the documented layout (three rows of five faces, the 16th alone at the
start of the fourth row) in game-night mode (``render_scene(real_table=True)``: sleeves and
glare, cards laid by hand, a thumb, an arm shadow, barrel lens), up to 4032 × 3024, tilt 0-45°,
for seeds ``START .. START+N-1`` (even seeds the stand-in deck, odd ones a look-alike deck of that
seed), and cuts each with :func:`vision.reptile_tank.enrol.layout_cards` as
``reptile-tank enroll --from-layout`` does. Prints per photo whether it enrols and which places
were taken as holding a card the grid finder could not see well (``LayoutCards.assumed``).

``--holes`` leaves one of the first 15 places empty in every photo (a forgotten card): such a
photo must *not* enrol as the documented layout (a face cut from the table would be a silent
error). Usage::

    python scripts/bench_layout_enrol.py --start 7700 --n 48 [--holes]
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.reptile_tank.enrol import documented_rows  # noqa: E402


def layout_rows(hole: int | None = None) -> list[list[str]]:
    rows = documented_rows()
    if hole is not None:
        rows[hole // 5][hole % 5] = "empty"
    return rows


def main(argv: list[str] | None = None) -> int:
    from bench_enrol import load, upright_scene

    from vision.reptile_tank.enrol import layout_cards
    from vision.reptile_tank.lookalike import family_deck
    from vision.reptile_tank.synth.deck import stand_in_deck

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--start", type=int, default=7700)
    parser.add_argument("--n", type=int, default=48)
    parser.add_argument("--holes", action="store_true", help="one of the first 15 places empty")
    args = parser.parse_args(argv)
    laid_out = {"fill": (0.7, 0.95), "tilt_deg": (0.0, 45.0), "distractors": False}
    enrolled = assumed_photos = 0
    for seed in range(args.start, args.start + args.n):
        if seed % 2:
            deck = family_deck(np.random.default_rng(seed), px_per_mm=6.0)
        else:
            deck = stand_in_deck(px_per_mm=6.0)
        hole = (seed * 7) % 15 if args.holes else None
        photo = load(
            upright_scene(
                seed + 1, deck, layout_rows(hole), max_size=(4032, 3024), real_table=True,
                **laid_out,
            )
        )  # fmt: skip
        try:
            laid = layout_cards(photo)
            ok = laid.documented_layout
            why = "" if ok else f"{len(laid.cards)} card(s) found ({laid.source})"
        except Exception as error:  # noqa: BLE001 - a refusal is a result
            laid, ok, why = None, False, str(error)
        assumed = [k for k, a in enumerate(laid.assumed) if a] if ok and laid else []
        enrolled += int(ok)
        assumed_photos += int(bool(assumed))
        hole_note = f" (place {hole} empty)" if hole is not None else ""
        if ok:
            state = "enrols" + (f", places assumed {assumed}" if assumed else "")
        else:
            state = f"refused: {why}"
        print(f"{seed}{hole_note}: {state}", flush=True)
    what = "with a forgotten card enrolled (should be 0)" if args.holes else "enrolled"
    print(f"{what}: {enrolled} of {args.n}; photos with an assumed place: {assumed_photos}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
