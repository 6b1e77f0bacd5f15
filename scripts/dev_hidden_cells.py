"""Development data for the hidden-share check (vision/reptile_tank/coverage.py).

Renders real-table scenes from development seeds of their own (never a benchmark's), reads them
with the shipped reader and prints, per cell read as a face, the hidden share beside what the
truth says: covered by a thumb, washed out by glare, read wrong. ``--deck-seed S`` uses the
look-alike deck ``family_deck(S)`` (another game's art) enrolled from one image per face instead
of the stand-in deck. Usage::

    python scripts/dev_hidden_cells.py --seed 2890 --n 30 [--size 2016x1512] [--deck-seed S]
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402

import numpy as np  # noqa: E402

from scoring.reptile_tank.cards import EMPTY  # noqa: E402
from vision.errors import GridNotFoundError  # noqa: E402
from vision.reptile_tank.coverage import hidden_cells, hidden_on_board  # noqa: E402
from vision.reptile_tank.reader import TerrariumReader  # noqa: E402
from vision.reptile_tank.synth.dataset import parse_size, scene_seed  # noqa: E402
from vision.reptile_tank.synth.deck import stand_in_deck  # noqa: E402
from vision.reptile_tank.synth.scene import encode_jpeg, render_scene  # noqa: E402


def _lookalike(seed: int):
    """The look-alike deck of ``seed`` and a reader with it enrolled from one image per face."""
    import tempfile

    from scoring.reptile_tank.cards import FACE_LABELS
    from vision.reptile_tank.gallery import DeckPack
    from vision.reptile_tank.lookalike import family_deck

    deck = family_deck(np.random.default_rng(seed), px_per_mm=6.0)
    folder = tempfile.mkdtemp(prefix="dev-hidden-")
    reader = TerrariumReader()
    DeckPack.create(
        folder, {lab: deck[lab] for lab in FACE_LABELS}, reader.embedder, np.random.default_rng(0)
    )
    return deck, TerrariumReader(pack=folder)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=2890)
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--size", default="2016x1512")
    parser.add_argument("--partial", type=float, default=0.15)
    parser.add_argument("--out", default=None, help="write the per-cell rows as JSON here")
    parser.add_argument("--deck-seed", type=int, default=None, help="a look-alike deck's seed")
    args = parser.parse_args()
    if args.deck_seed is None:
        deck = stand_in_deck()
        reader = TerrariumReader()
    else:
        deck, reader = _lookalike(args.deck_seed)
    faces = reader.face_colours()
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
        by_board, (foreign, skin, patch) = hidden_on_board(read.crops, read.rows, faces)
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
                        "foreign": round(float(foreign[r, c]), 3),
                        "skin": round(float(skin[r, c]), 3),
                        "patch": round(float(patch[r, c]), 3),
                        "hidden": bool(by_board[r, c]),
                        "wrong": read.rows[r][c] != true_rows[r][c],
                        "flagged": bool(read.check[r, c]),
                        "covered": covered.get((r, c), 0.0),
                        "glared": glared.get((r, c), 0.0),
                    }
                )
    foreign = np.array([row["foreign"] for row in rows])
    skin = np.array([row["skin"] for row in rows])
    patch = np.array([row["patch"] for row in rows])
    covered = np.array([row["covered"] >= 0.15 for row in rows])
    wrong = np.array([row["wrong"] for row in rows])
    clean = ~covered & ~wrong & ~np.array([row["glared"] >= 0.3 for row in rows])
    print(f"{len(rows)} face cells; covered >= 0.15: {covered.sum()}; wrong {wrong.sum()}")
    for name, mask in (("clean right", clean), ("covered", covered), ("wrong", wrong)):
        if mask.any():
            for what, values in (("foreign", foreign), ("skin", skin), ("patch", patch)):
                print(name, what, np.round(np.percentile(values[mask], [5, 25, 50, 75, 95, 99]), 3))
    fixed = hidden_cells(foreign, skin, patch=patch)
    print(
        f"fixed limit: clean flagged {fixed[clean].mean():.2%}, covered flagged by the check "
        f"{fixed[covered].sum()} of {covered.sum()}"
    )
    flagged = np.array([row["hidden"] for row in rows])
    print("board limit:", end=" ")
    already = np.array([row["flagged"] for row in rows])
    print(
        f"hidden: clean flagged {flagged[clean].mean():.2%}, covered flagged "
        f"{(flagged | already)[covered].sum()} of {covered.sum()} "
        f"(by the hidden check {flagged[covered].sum()})"
    )
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(rows, handle)
        np.save(args.out + ".crops.npy", np.stack(crops))


if __name__ == "__main__":
    main()
