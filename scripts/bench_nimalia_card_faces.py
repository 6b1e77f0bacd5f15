"""How well Nimalia enrolment cuts a card out of a photo of one card (``card_outline``).

Each photo is one card (stand-in, variant and three random decks in turn) laid with a known
homography on a background: a white or a black margin (3-20 % of the side, turned up to 3
degrees: a scanner's bed, a transparent margin flattened), or a random table from the synthetic
photos (the card 55-85 % of the short side, turned up to 15 degrees, its far edge up to 25 %
shorter: photographed from the seat). The error is the largest corner distance over the card's
side. Baseline, same photos: the whole image taken as the card (what enrolment did before).
And on tight faces (every card of the five decks, trimmed to 85 % of their width so the outline
search runs) how often a false outline is found.

Usage::

    python scripts/bench_nimalia_card_faces.py [--photos 60] [--seed 1]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.nimalia.deck import STYLES, random_style, render_deck  # noqa: E402
from vision.nimalia.reader import card_outline
from vision.nimalia.scene import one_card_photo, square_corners  # noqa: E402
from vision.reptile_tank.augment import table_texture  # noqa: E402


def photo(kind: str, card: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    if kind in ("white", "black"):
        s = card.shape[0]
        pad = s * rng.uniform(0.03, 0.2)
        w, h = int(s + 2 * pad + rng.integers(0, 2) * pad), int(s + 2 * pad)
        canvas = np.full((h, w, 3), 250 if kind == "white" else 5, np.uint8)
        corners = square_corners(np.array([pad + s / 2, h / 2]), s, rng.uniform(-3, 3))
    else:
        h, w = 900, 1200
        canvas = table_texture(rng, (w, h))  # (width, height)
        centre = np.array([w / 2 + rng.uniform(-100, 100), h / 2 + rng.uniform(-60, 60)])
        corners = square_corners(
            centre, rng.uniform(0.55, 0.85) * h, rng.uniform(-15, 15), rng.uniform(0, 0.25)
        )
    return one_card_photo(card, canvas, corners), corners


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    return float(np.linalg.norm(found - truth, axis=1).max() / np.linalg.norm(truth[1] - truth[0]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--photos", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    decks = [render_deck(STYLES[n], px_per_mm=3.0) for n in sorted(STYLES)]
    decks += [render_deck(random_style(9000 + k), px_per_mm=3.0) for k in range(3)]
    rng = np.random.default_rng(args.seed)
    print("| background | cut within 3 % | 3-10 % | worse | refused | median error | "
          "baseline (whole image) within 3 % |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for kind in ("white", "black", "table"):
        errors, baseline, refused = [], [], 0
        for i in range(args.photos):
            card = decks[i % len(decks)][1 + i % 60]
            image, truth = photo(kind, card, rng)
            h, w = image.shape[:2]
            whole = np.array([[0, 0], [w, 0], [w, h], [0, h]], float)
            baseline.append(corner_error(whole, truth))
            found = card_outline(image)
            if found is None:
                refused += 1
            else:
                errors.append(corner_error(found, truth))
        e, n = np.array(errors), args.photos
        print(
            f"| {kind} | {(e <= 0.03).sum()}/{n} | {((e > 0.03) & (e <= 0.1)).sum()} | "
            f"{(e > 0.1).sum()} | {refused} | {100 * np.median(e):.1f} % | "
            f"{(np.array(baseline) <= 0.03).sum()}/{n} |"
        )
    false, total = 0, 0
    for deck in decks:
        for card in deck.values():
            trimmed = np.ascontiguousarray(card[:, : int(card.shape[1] * 0.85)])
            false += card_outline(trimmed) is not None
            total += 1
    print(f"\ntight faces trimmed to 85 % width: a false outline in {false} of {total}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
