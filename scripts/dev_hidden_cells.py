"""Development data for the hidden-share check (vision/reptile_tank/coverage.py).

Renders real-table scenes from development seeds of their own (never a benchmark's), reads them
with the shipped reader and prints, per cell read as a face, the hidden share beside what the
truth says: covered by a thumb, washed out by glare, read wrong. Usage::

    python scripts/dev_hidden_cells.py --seed 2890 --n 30 [--size 2016x1512]
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402

import numpy as np  # noqa: E402

from scoring.reptile_tank.cards import EMPTY  # noqa: E402
from vision.errors import GridNotFoundError  # noqa: E402
from vision.reptile_tank.coverage import hidden_shares  # noqa: E402
from vision.reptile_tank.reader import TerrariumReader  # noqa: E402
from vision.reptile_tank.synth.dataset import parse_size, scene_seed  # noqa: E402
from vision.reptile_tank.synth.deck import stand_in_deck  # noqa: E402
from vision.reptile_tank.synth.scene import encode_jpeg, render_scene  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=2890)
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--size", default="2016x1512")
    parser.add_argument("--partial", type=float, default=0.15)
    parser.add_argument("--out", default=None, help="write the per-cell rows as JSON here")
    args = parser.parse_args()
    deck = stand_in_deck()
    reader = TerrariumReader()
    faces = reader.face_images()
    rows = []
    crops = []
    for i in range(args.n):
        image, truth = render_scene(
            scene_seed(args.seed, i), deck, size=parse_size(args.size), real_table=True,
            partial=args.partial,
        )  # fmt: skip
        try:
            read = reader.read(encode_jpeg(image, 90))
        except GridNotFoundError:
            continue
        true_rows = truth["board"]["rows"]
        shares = hidden_shares(
            read.crops, read.rows, [[c.rotation for c in row] for row in read.cells], faces
        )
        covered = {(r, c): s for r, c, s in truth["covered_cells"]}
        glared = {(r, c): s for r, c, s in truth["glared_cells"]}
        for r in range(4):
            for c in range(5):
                if read.rows[r][c] == EMPTY:
                    continue
                crops.append(read.crops[r, c])
                rows.append(
                    {
                        "label": read.rows[r][c],
                        "rotation": read.cells[r][c].rotation,
                        "scene": i,
                        "cell": [r, c],
                        "share": round(float(shares[r, c]), 3),
                        "wrong": read.rows[r][c] != true_rows[r][c],
                        "flagged": bool(read.check[r, c]),
                        "covered": covered.get((r, c), 0.0),
                        "glared": glared.get((r, c), 0.0),
                    }
                )
    share = np.array([row["share"] for row in rows])
    hidden = np.array([max(row["covered"], row["glared"]) >= 0.15 for row in rows])
    wrong = np.array([row["wrong"] for row in rows])
    clean = ~hidden & ~wrong
    print(
        f"{len(rows)} face cells; hidden (truth share >= 0.15): {hidden.sum()}; wrong {wrong.sum()}"
    )
    for name, mask in (("clean right", clean), ("hidden", hidden), ("wrong", wrong)):
        if mask.any():
            print(name, np.round(np.percentile(share[mask], [5, 25, 50, 75, 95, 99]), 3))
    for limit in (0.2, 0.25, 0.3, 0.35, 0.4, 0.5):
        flagged = share >= limit
        print(
            f"limit {limit}: clean flagged {flagged[clean].mean():.3%}, hidden caught "
            f"{flagged[hidden].mean() if hidden.any() else float('nan'):.1%}, wrong caught "
            f"{flagged[wrong].mean() if wrong.any() else float('nan'):.1%}"
        )
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(rows, handle)
        np.save(args.out + ".crops.npy", np.stack(crops))


if __name__ == "__main__":
    main()
