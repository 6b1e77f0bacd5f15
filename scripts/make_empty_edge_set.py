"""A real-table set of mid-game boards with one outer row or column empty (issue 28 item 4).

Each scene's board is drawn from the stand-in deck (mid-game: each cell empty with probability
``--partial``), then one outer line, chosen at random, is emptied: the layout where the lattice
could sit one line either way. Written like ``reptile-tank synth`` (``scene_%05d.jpg`` + truth)::

    python scripts/make_empty_edge_set.py --out DIR --n 20 --seed 2813 [--size 4032x3024]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from scoring.reptile_tank.cards import EMPTY
from vision.reptile_tank.synth.dataset import parse_size, scene_seed
from vision.reptile_tank.synth.deck import stand_in_deck
from vision.reptile_tank.synth.scene import encode_jpeg, render_scene, sample_board


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--size", default="4032x3024")
    parser.add_argument("--partial", type=float, default=0.15)
    args = parser.parse_args()
    deck = stand_in_deck()
    args.out.mkdir(parents=True, exist_ok=True)
    for i in range(args.n):
        rng = np.random.default_rng(scene_seed(args.seed, i))
        board = sample_board(rng, deck.copies, partial=args.partial)
        line = int(rng.integers(4))
        for r in range(4):
            for c in range(5):
                if (line == 0 and r == 0) or (line == 1 and r == 3):
                    board[r][c] = EMPTY
                if (line == 2 and c == 0) or (line == 3 and c == 4):
                    board[r][c] = EMPTY
        image, truth = render_scene(
            rng, deck, board=board, size=parse_size(args.size), real_table=True
        )
        name = f"scene_{i:05d}"
        truth["image"] = f"{name}.jpg"
        truth["params"]["emptied_line"] = ["row 0", "row 3", "column 0", "column 4"][line]
        (args.out / f"{name}.jpg").write_bytes(encode_jpeg(image, truth["params"]["jpeg_quality"]))
        (args.out / f"{name}.json").write_text(json.dumps(truth, indent=1) + "\n")
    print(f"wrote {args.n} scenes to {args.out}")


if __name__ == "__main__":
    main()
