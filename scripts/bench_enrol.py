"""Enrolment benchmark: a deck enrolled from files or from photos of its faces, boards read.

A deck the project never trained on (:func:`vision.reptile_tank.lookalike.family_deck`, every
category's cards sharing one frame: look-alike art) is enrolled four ways in one run:

- ``files``: one clean image per face (``DeckPack.create`` on the faces);
- ``grid-cells``: one photo of the 16 faces in the documented grid, cut by the grid's nominal
  cells (the reader's code before issue 28 item 1: ``find_grid`` + ``rectify_cells``);
- ``grid-outlines``: the same photo cut by each card's own outline (``layout_cards``);
- ``loose``: two photos of 8 cards each on a sparse lattice (no full grid to find), every card
  by its own outline, named by the truth (as ``--names`` or the app's taps do).

Then the same boards (photos rendered by :func:`vision.reptile_tank.synth.scene.render_scene`
with that deck) are read with each pack. Per pack: photos found, boards fully right, per-card
error on found boards, SILENT wrong cells (wrong and not flagged) apart from flagged wrong
cells, right cells flagged. A cell is flagged when the read asks to check it
(``BoardRead.check``) or the grid is in doubt.

``--real DIR`` also enrols ``DIR/real_deck_layout.jpg`` (grid-cells and grid-outlines) and reads
``DIR/real_*.jpg`` with their truth.

Usage::

    python scripts/bench_enrol.py [--boards N] [--seed S] [--real DIR] [--json]
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scoring.reptile_tank.cards import FACE_LABELS  # noqa: E402


def jpeg(image: np.ndarray) -> bytes:
    from vision.reptile_tank.synth.scene import encode_jpeg

    return encode_jpeg(image, 90)


def upright_scene(seed: int, deck, rows, **kw) -> bytes:
    from vision.reptile_tank.synth.scene import render_scene

    for attempt in range(30):
        image, truth = render_scene(
            np.random.default_rng([seed, attempt]), deck, board={"rows": rows}, **kw
        )
        if truth["rotation_deg"] < 30 or truth["rotation_deg"] > 330:
            return jpeg(image)
    raise RuntimeError("no upright render")


def load(data: bytes) -> np.ndarray:
    from vision.loading import load_image

    return load_image(data, max_side=2400).rgb


def nominal_cells(rgb: np.ndarray) -> dict[str, np.ndarray]:
    """Main's ``faces_from_layout`` before item 1: the first 16 nominal grid cells."""
    from vision.reptile_tank.grid import find_grid, rectify_cells

    fit = find_grid(rgb)
    flat = rectify_cells(rgb, fit, cell_size=(252, 352)).reshape(-1, 352, 252, 3)
    return {label: np.ascontiguousarray(flat[k]) for k, label in enumerate(FACE_LABELS)}


def sparse_rows(labels: list[str]) -> list[list[str]]:
    """8 cards on a 4 x 5 lattice with no two neighbours in a row (a checkerboard-ish spread;
    the grid finder cannot take it for the full grid: the corner places are not all filled)."""
    places = [(0, 0), (0, 2), (1, 1), (1, 3), (2, 0), (2, 2), (3, 1), (3, 3)]
    rows = [["empty"] * 5 for _ in range(4)]
    for (r, c), label in zip(places, labels, strict=True):
        rows[r][c] = label
    return rows


def read_boards(pack: Path | None, photos: list[tuple[bytes, list[list[str]]]]) -> dict:
    from vision.errors import GridNotFoundError
    from vision.reptile_tank.reader import TerrariumReader

    reader = TerrariumReader(pack=None if pack is None else str(pack))
    found = right_boards = cells = wrong = silent = flagged_wrong = right_flagged = 0
    right_cells = 0
    ms = []
    for data, truth in photos:
        start = time.process_time()
        try:
            read = reader.read(data)
        except GridNotFoundError:
            continue
        ms.append(1000 * (time.process_time() - start))
        found += 1
        check = np.asarray(read.check, bool) | bool(read.grid_doubt)
        board_wrong = 0
        for r, row in enumerate(truth):
            for c, label in enumerate(row):
                cells += 1
                if read.rows[r][c] != label:
                    wrong += 1
                    board_wrong += 1
                    if check[r, c]:
                        flagged_wrong += 1
                    else:
                        silent += 1
                else:
                    right_cells += 1
                    right_flagged += int(check[r, c])
        right_boards += int(board_wrong == 0)
    n = len(photos)
    return {
        "photos": n,
        "found": found,
        "fully_right": right_boards,
        "cells_read": cells,
        "card_error": wrong / max(cells, 1),
        "silent_wrong": silent,
        "flagged_wrong": flagged_wrong,
        "right_flagged": right_flagged / max(right_cells, 1),
        "median_cpu_ms": float(np.median(ms)) if ms else None,
    }


def build(path: Path, faces: dict, views: dict | None = None) -> Path:
    from vision.reptile_tank.classifier import READER_MODEL, CardEmbedder
    from vision.reptile_tank.gallery import DeckPack, to_face_size

    embedder = CardEmbedder(READER_MODEL)
    pack = DeckPack.create(path, faces, embedder, np.random.default_rng(0))
    for label, crops in (views or {}).items():
        pack.add_examples(label, np.stack([to_face_size(c) for c in crops]), embedder)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=12, help="boards read per pack")
    parser.add_argument("--seed", type=int, default=2811, help="deck and scene seed")
    parser.add_argument("--size", default="2016x1512", help="board photo size bound WxH")
    parser.add_argument("--real", default=None, help="folder with real_deck_layout.jpg, real_*")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from vision.reptile_tank.enrol import layout_cards, named_faces
    from vision.reptile_tank.lookalike import family_deck
    from vision.reptile_tank.synth.scene import render_scene

    w, h = (int(v) for v in args.size.lower().split("x"))
    deck = family_deck(np.random.default_rng(args.seed), px_per_mm=6.0)
    faces = {label: deck[label] for label in FACE_LABELS}
    results: dict[str, dict] = {}
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        boards = []
        for k in range(args.boards):
            image, truth = render_scene(
                np.random.default_rng([args.seed, 1000 + k]), deck, max_size=(w, h)
            )
            boards.append((jpeg(image), truth["board"]["rows"]))
        grid_rows = [list(FACE_LABELS[r * 5 : r * 5 + 5]) for r in range(3)]
        grid_rows.append([FACE_LABELS[15], "empty", "empty", "empty", "empty"])
        grid_photo = load(upright_scene(args.seed + 1, deck, grid_rows,
                                        max_size=(w, h), fill=(0.6, 0.9), distractors=False))  # fmt: skip
        halves = [list(FACE_LABELS[:8]), list(FACE_LABELS[8:])]
        loose_photos = [
            load(
                upright_scene(
                    args.seed + 2 + i,
                    deck,
                    sparse_rows(half),
                    max_size=(w, h),
                    fill=(0.6, 0.9),
                    distractors=False,
                )
            )  # fmt: skip
            for i, half in enumerate(halves)
        ]
        packs: dict[str, Path] = {"files": build(tmp / "files", faces)}
        try:
            start = time.process_time()
            cut = nominal_cells(grid_photo)
            timings["grid-cells"] = time.process_time() - start
            packs["grid-cells"] = build(tmp / "grid-cells", cut)
        except Exception as error:  # noqa: BLE001 - a refusal is a result
            results["grid-cells"] = {"refused": str(error)}
        try:
            start = time.process_time()
            laid = layout_cards(grid_photo)
            timings["grid-outlines"] = time.process_time() - start
            packs["grid-outlines"] = build(tmp / "grid-outlines", laid.in_enrolment_order())
        except Exception as error:  # noqa: BLE001
            results["grid-outlines"] = {"refused": str(error)}
        try:
            start = time.process_time()
            layouts = [layout_cards(photo) for photo in loose_photos]
            timings["loose"] = time.process_time() - start
            counts = [len(lc.cards) for lc in layouts]
            if counts != [8, 8]:
                raise ValueError(f"cards found {counts}, not [8, 8]")
            names = [lab for half in halves for lab in half]
            loose_faces, _ = named_faces(layouts, names)
            packs["loose"] = build(tmp / "loose", loose_faces)
        except Exception as error:  # noqa: BLE001
            results["loose"] = {"refused": str(error)}
        for name, pack in packs.items():
            results[name] = read_boards(pack, boards)
            if name in timings:
                results[name]["cut_cpu_s"] = round(timings[name], 2)
        if args.real:
            real = Path(args.real)
            truth = json.loads((real / "real_deck_layout.json").read_text())
            order = [lab for row in truth["layout_rows"] for lab in row if lab != "empty"]
            assert order == list(FACE_LABELS), "real_deck_layout is not in the enrolment order"
            photo = load((real / "real_deck_layout.jpg").read_bytes())
            reads = [
                (p.read_bytes(), json.loads(p.with_suffix(".json").read_text())["rows"])
                for p in sorted(real.glob("real_*.jpg"))
                if p.stem != "real_deck_layout"
            ]
            for name, cut in (("real grid-cells", nominal_cells),
                              ("real grid-outlines",
                               lambda rgb: layout_cards(rgb).in_enrolment_order())):  # fmt: skip
                try:
                    pack = build(tmp / name.replace(" ", "_"), cut(photo))
                except Exception as error:  # noqa: BLE001
                    results[name] = {"refused": str(error)}
                    continue
                results[name] = read_boards(pack, reads)
            # the same photos with the bundled stand-in gallery (the deck they show)
            results["real bundled gallery"] = read_boards(None, reads)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for name, r in results.items():
            print(name, json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
