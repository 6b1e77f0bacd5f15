"""Enrolment benchmark: a deck enrolled from files or from photos of its faces, boards read.

A deck the project never trained on (:func:`vision.reptile_tank.lookalike.family_deck`, every
category's cards sharing one frame: look-alike art) is enrolled four ways in one run:

- ``files``: one clean image per face (``DeckPack.create`` on the faces);
- ``grid-cells``: one photo of the 16 faces in the documented grid, cut by the grid's nominal
  cells (the reader's code before issue 28 item 1: ``find_grid`` + ``rectify_cells``);
- ``grid-outlines``: the same photo cut by each card's own outline (``layout_cards``);
- ``loose``: two photos of 8 cards each on a sparse lattice (no full grid to find), every card
  by its own outline, named by the truth card lying there (the app's taps; anything else
  skipped), the cards not found or marked covered photographed again (up to :data:`RETAKES`
  more photos per 8; ``layout_photos``, ``first_photos_found`` of 16, ``skipped``,
  ``never_clean``);
- ``grid-outlines all`` (with ``--layouts`` >= 2): every layout photo at once, the first one's
  cuts the faces and the others' views of them (``enroll --from-layout A B``);
- ``grid-outlines K retaken``: where enrolment names a face of layout photo K unsure (a thumb
  over a card's edge, a place not seen; ``enroll`` prints it), the player's way: the layout
  photographed again (a new scene, up to :data:`RETAKES` times) until no face is named unsure.
  Each ``grid-outlines K`` row says which faces the photo's truth has under a thumb
  (``covered_in_truth``) and which enrolment named unsure (``named_unsure``).

Then the same boards (photos rendered by :func:`vision.reptile_tank.synth.scene.render_scene`
with that deck) are read with each pack. Per pack: photos found, boards fully right, per-card
error on found boards, SILENT wrong cells (wrong and not flagged) apart from flagged wrong
cells, right cells flagged. A cell is flagged when the read asks to check it
(``BoardRead.check``) or the grid is in doubt.

``--real DIR`` also enrols ``DIR/real_deck_layout.jpg`` (grid-cells and grid-outlines) and reads
``DIR/real_*.jpg`` with their truth.

Usage::

    python scripts/bench_enrol.py [--boards N] [--layouts N] [--size WxH] [--seed S]
        [--real DIR] [--rerank] [--night] [--json]

``--rerank`` also reads every board with issue 28 item 2's local-feature re-ranker; ``--night``
measures item 6 (the first half of the boards is game 1, confirmed and learnt; the second
half is game 2, read before and after).
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
from service.reptile_tank.deck import with_washed_out  # noqa: E402

#: Whether boards are read with each card cut along its own outline (``--no-own-outlines``).
OWN_OUTLINES = True
#: Whether a pack keeps the faces enrolment named unsure (``--no-unsure``: as before stop 42).
KEEP_UNSURE = True


def jpeg(image: np.ndarray) -> bytes:
    from vision.reptile_tank.synth.scene import encode_jpeg

    return encode_jpeg(image, 90)


def upright_scene(seed: int, deck, rows, **kw) -> bytes:
    return upright_scene_truth(seed, deck, rows, **kw)[0]


def upright_scene_truth(seed: int, deck, rows, **kw) -> tuple[bytes, dict]:
    from vision.reptile_tank.synth.scene import render_scene

    for attempt in range(30):
        image, truth = render_scene(
            np.random.default_rng([seed, attempt]), deck, board={"rows": rows}, **kw
        )
        if truth["rotation_deg"] < 30 or truth["rotation_deg"] > 330:
            return jpeg(image), truth
    raise RuntimeError("no upright render")


#: A face counts as covered in a layout photo's truth from this share of it under a thumb.
COVERED_FACE = 0.1
#: How many times the player photographs the layout again when enrolment names a face unsure.
RETAKES = 3


def covered_faces(truth: dict) -> list[str]:
    """The faces of a documented layout photo that its truth has under a thumb."""
    cols = len(truth["board"]["rows"][0])
    return [
        FACE_LABELS[r * cols + c]
        for r, c, share in truth.get("covered_cells", [])
        if share >= COVERED_FACE and r * cols + c < len(FACE_LABELS)
    ]


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


def read_boards(
    pack: Path | None,
    photos: list[tuple[bytes, list[list[str]]]],
    post=None,
    reader=None,
    shipped: bool = False,
) -> dict:
    """Read every photo with ``pack`` (the bundled stand-in gallery when None) or ``reader``;
    ``post(read, reader)`` may change a read before it is scored (a re-ranker). The reader's
    own re-ranking is off (it is measured as ``post``) unless ``shipped``: the reader exactly as
    the app and the CLI run it."""
    from vision.errors import GridNotFoundError
    from vision.reptile_tank.reader import TerrariumReader

    if reader is None:
        reader = TerrariumReader(pack=None if pack is None else str(pack))
        reader.rerank = reader.rerank and shipped
        reader.own_outlines = reader.own_outlines and OWN_OUTLINES
    found = right_boards = cells = wrong = silent = flagged_wrong = right_flagged = 0
    right_cells = doubt_boards = 0
    ms, post_ms = [], []
    for data, truth in photos:
        start = time.process_time()
        try:
            read = reader.read(data)
        except GridNotFoundError:
            continue
        ms.append(1000 * (time.process_time() - start))
        if post is not None:
            start = time.process_time()
            read = post(read, reader)
            post_ms.append(1000 * (time.process_time() - start))
        found += 1
        doubt = bool(read.grid_doubt)
        doubt_boards += int(doubt)
        check = np.asarray(read.check, bool)
        board_wrong = 0
        for r, row in enumerate(truth):
            for c, label in enumerate(row):
                cells += 1
                if read.rows[r][c] != label:
                    wrong += 1
                    board_wrong += 1
                    if check[r, c] or doubt:
                        flagged_wrong += 1
                    else:
                        silent += 1
                else:
                    right_cells += 1
                    right_flagged += int(check[r, c])
        right_boards += int(board_wrong == 0)
    out = {
        "photos": len(photos),
        "found": found,
        "fully_right": right_boards,
        "cells_read": cells,
        "wrong_cells": wrong,
        "card_error": round(wrong / max(cells, 1), 4),
        "silent_wrong": silent,
        "flagged_wrong": flagged_wrong,
        "right_flagged": round(right_flagged / max(right_cells, 1), 4),
        "grid_doubt_boards": doubt_boards,
        "median_cpu_ms": round(float(np.median(ms)), 1) if ms else None,
    }
    if post_ms:
        out["post_median_cpu_ms"] = round(float(np.median(post_ms)), 1)
    return out


RERANK_STATS: dict[str, int] = {}
#: Whether a re-ranked cell whose face local features confirm clearly loses its check flag.
UNFLAG_CONFIRMED = False


def rerank(read, reader, unflag: bool | None = None):
    """Issue 28 item 2: close calls between faces re-ranked by local features
    (:func:`vision.reptile_tank.classifier.rerank_read`); a disagreement flags the cell.
    Counts what it did in :data:`RERANK_STATS`."""
    from vision.reptile_tank.classifier import LocalFeatureVerifier, rerank_read

    verifier = getattr(reader, "_bench_verifier", None)
    if verifier is None:
        faces = reader.pack.faces if reader.pack is not None else bundled_faces()
        verifier = LocalFeatureVerifier(faces)
        reader._bench_verifier = verifier
    out, summary = rerank_read(
        read, verifier, unflag=UNFLAG_CONFIRMED if unflag is None else unflag
    )
    for key in ("cells", "changed", "disagree", "unflagged"):
        RERANK_STATS[key] = RERANK_STATS.get(key, 0) + getattr(summary, key)
    return out


def rerank_unflag(read, reader):
    """:func:`rerank`, and a cell whose face the fine comparison confirms is not flagged."""
    return rerank(read, reader, unflag=True)


def bundled_faces() -> dict[str, np.ndarray]:
    from vision.reptile_tank.synth.deck import render_face

    return {label: render_face(label, px_per_mm=4.0) for label in FACE_LABELS}


def night_gain(pack: Path, game1, game2, folder: Path) -> dict:
    """Issue 28 item 6: game 2 read before and after game 1's confirmed reads taught the night's
    gallery (:class:`service.reptile_tank.learning.NightExamples`); game 1 is confirmed with
    its truth (the players' corrections)."""
    from service.reptile_tank.learning import NightExamples
    from vision.errors import GridNotFoundError
    from vision.reptile_tank.reader import TerrariumReader

    reader = TerrariumReader(pack=str(pack))
    reader.rerank = False  # learning measured alone
    base = reader.gallery
    before = read_boards(None, game2, reader=reader)
    night = NightExamples(folder)
    learnt = 0
    for data, truth in game1:
        try:
            read = reader.read(data)
        except GridNotFoundError:
            continue
        margins = np.array([[cell.confidence for cell in row] for row in read.cells])
        learnt += night.learn(read.crops, read.rows, truth, margins, reader.embedder).added
    reader.gallery = night.gallery(base, reader.embedder)
    after = read_boards(None, game2, reader=reader)
    other = NightExamples(folder.with_name(folder.name + "-other")).gallery(base, reader.embedder)
    return {"learnt": learnt, "game2_before": before, "game2_after": after,
            "other_night_untouched": other is base}  # fmt: skip


def retaken(folder: Path, seed: int, deck, rows, size, laid_out: dict, boards) -> dict:
    """The player's way with a layout photo whose enrolment names a face unsure (a thumb over a
    card's edge, a place not seen): photograph the layout again (a new scene, up to
    :data:`RETAKES` times) until no face is named unsure, and read the boards with that pack."""
    from vision.reptile_tank.enrol import layout_cards, unsure_faces

    for take in range(1, RETAKES + 1):
        data, truth = upright_scene_truth(seed + 1000 * take, deck, rows, max_size=size, **laid_out)
        try:
            laid = layout_cards(load(data))
            faces = laid.in_enrolment_order()
        except Exception:  # noqa: BLE001 - a refused retake: take another
            continue
        unsure = with_washed_out(unsure_faces([laid]), faces)
        if unsure and take < RETAKES:
            continue
        out = read_boards(build(folder, faces, unsure=unsure), boards)
        out.update({"retakes": take, "named_unsure": unsure,
                    "covered_in_truth": covered_faces(truth)})  # fmt: skip
        return out
    return {"refused": f"no usable layout photo in {RETAKES} retakes"}


def tapped_names(laid, truth: dict, shape: tuple[int, ...]) -> list[str]:
    """The app's taps on a layout photo's cards: each card found named by the truth card lying
    there, ``skip`` for anything else (a neighbour's card, an empty place)."""
    scale = shape[1] / truth["size"][0]
    cells = np.array(truth["cells"], float).reshape(-1, 4, 2) * scale
    labels = [label for row in truth["board"]["rows"] for label in row]
    names = []
    for quad in laid.corners:
        gaps = np.linalg.norm(cells.mean(axis=1) - np.asarray(quad).mean(axis=0), axis=1)
        j = int(np.argmin(gaps))
        near = gaps[j] < 0.25 * np.linalg.norm(cells[j][0] - cells[j][2])
        names.append(labels[j] if near and labels[j] != "empty" else "skip")
    return names


def loose_enrolment(seed: int, deck, halves, size, laid_out: dict):
    """Faces from loose layouts as a player enrols them in the app: the 16 faces laid out
    sparsely in two photos of 8, every card found named by a tap (:func:`tapped_names`), and
    the cards not found or marked covered (``LayoutCards.crossed``) photographed again (up to
    :data:`RETAKES` more photos per half). Returns ``(faces, views, note)``."""
    from vision.reptile_tank.enrol import layout_cards, named_faces, unsure_faces

    layouts, names, note = [], [], {"layout_photos": 0, "first_photos_found": 0, "skipped": 0}
    for i, half in enumerate(halves):
        wanted = list(half)
        for take in range(RETAKES + 1):
            if not wanted:
                break
            rows = sparse_rows(wanted + ["empty"] * (len(half) - len(wanted)))
            try:
                data, truth = upright_scene_truth(
                    seed + 2 + i + 1000 * take, deck, rows, max_size=size, **laid_out
                )
            except RuntimeError:  # the scene never came out upright: photograph again
                continue
            photo = load(data)
            note["layout_photos"] += 1
            start = time.process_time()
            try:
                laid = layout_cards(photo)
            except Exception:  # noqa: BLE001 - no card found: photograph again
                continue
            finally:
                note["cut_cpu_s"] = round(note.get("cut_cpu_s", 0) + time.process_time() - start, 2)
            tapped = tapped_names(laid, truth, photo.shape)
            clean = {n for n, crossed in zip(tapped, laid.crossed, strict=True) if not crossed}
            if take == 0:
                note["first_photos_found"] += sum(n != "skip" for n in tapped)
            note["skipped"] += tapped.count("skip")
            layouts.append(laid)
            names.extend(tapped)
            wanted = [label for label in wanted if label not in clean]
        if wanted:
            note.setdefault("never_clean", []).extend(wanted)
    faces, views = named_faces(layouts, names)
    missing = [label for label in FACE_LABELS if label not in faces]
    if missing:
        raise ValueError(f"faces never found: {', '.join(missing)}")
    note["named_unsure"] = with_washed_out(unsure_faces(layouts, names, faces), faces)
    return faces, views, note


def build(path: Path, faces: dict, views: dict | None = None, unsure=()) -> Path:
    """A deck pack as ``enroll`` writes it (``unsure``: the faces enrolment named unsure, whose
    reads the reader flags; none with ``--no-unsure``)."""
    from vision.embedder import CardEmbedder
    from vision.reptile_tank.classifier import READER_MODEL
    from vision.reptile_tank.gallery import DeckPack, to_face_size

    embedder = CardEmbedder(READER_MODEL)
    unsure = unsure if KEEP_UNSURE else ()
    pack = DeckPack.create(path, faces, embedder, np.random.default_rng(0), unsure=unsure)
    for label, crops in (views or {}).items():
        pack.add_examples(label, np.stack([to_face_size(c) for c in crops]), embedder)
    return path


def board_photos(
    deck, seed: int, n: int, size: tuple[int, int], real_table: bool = False
) -> list[tuple[bytes, list]]:
    """``n`` boards of ``deck`` under the frozen ``hard`` set's conditions (strong tilt, hard
    tables and light, 10 % empty cells), at most ``size``; ``real_table``: a game night too
    (sleeves and glare, cards laid by hand, arm shadow, thumb, neighbours' cards)."""
    from vision.reptile_tank.synth.dataset import FROZEN_SETS
    from vision.reptile_tank.synth.scene import render_scene

    options = {k: v for k, v in FROZEN_SETS["hard"].items() if k not in ("n", "seed")}
    options["max_size"] = size
    partial = options.pop("partial")
    out = []
    for k in range(n):
        image, truth = render_scene(
            np.random.default_rng([seed, 1000 + k]), deck, partial=partial,
            real_table=real_table, **options
        )  # fmt: skip
        out.append((jpeg(image), truth["board"]["rows"]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=20, help="boards read per pack")
    parser.add_argument("--layouts", type=int, default=3, help="layout photos per method")
    parser.add_argument("--seed", type=int, default=2811, help="deck and scene seed")
    parser.add_argument("--size", default="4032x3024", help="layout photo size bound WxH")
    parser.add_argument("--board-size", default=None, help="board photo size bound (--size)")
    parser.add_argument(
        "--real-table", action="store_true", help="boards and layouts on a game night's table"
    )
    parser.add_argument("--only-real", action="store_true", help="skip the synthetic deck")
    parser.add_argument(
        "--as-shipped",
        action="store_true",
        help="also read each enrolled pack with the reader as the app runs it (its re-ranking on)",
    )
    parser.add_argument("--real", default=None, help="folder with real_deck_layout.jpg, real_*")
    parser.add_argument("--rerank", action="store_true", help="also read with item 2's re-ranker")
    parser.add_argument("--night", action="store_true", help="item 6: the second-game gain")
    parser.add_argument(
        "--unflag", action="store_true", help="with --rerank: clear the flag of confirmed cells"
    )
    parser.add_argument(
        "--no-own-outlines",
        action="store_true",
        help="read boards with the lattice's cuts only (TerrariumReader.own_outlines off)",
    )
    parser.add_argument(
        "--no-unsure",
        action="store_true",
        help="packs keep no unsure faces (reads of them not flagged; before stop 42)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    global UNFLAG_CONFIRMED, OWN_OUTLINES, KEEP_UNSURE
    OWN_OUTLINES = not args.no_own_outlines
    KEEP_UNSURE = not args.no_unsure
    UNFLAG_CONFIRMED = bool(args.unflag)

    from vision.reptile_tank.enrol import (
        documented_rows,
        layout_cards,
        named_faces,
        unsure_faces,
    )
    from vision.reptile_tank.lookalike import family_deck

    size = tuple(int(v) for v in args.size.lower().split("x"))
    deck = family_deck(np.random.default_rng(args.seed), px_per_mm=6.0)
    faces = {label: deck[label] for label in FACE_LABELS}
    results: dict[str, dict] = {}
    laid_out = {"fill": (0.7, 0.95), "tilt_deg": (0.0, 45.0), "distractors": False}
    if args.real_table:
        laid_out["real_table"] = True
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        board_size = (
            size
            if args.board_size is None
            else tuple(int(v) for v in args.board_size.lower().split("x"))
        )
        if args.only_real:
            args.boards = args.layouts = 0
        boards = board_photos(deck, args.seed, args.boards, board_size, args.real_table)
        files_pack = build(tmp / "files", faces) if boards else None
        if boards:
            results["files"] = read_boards(files_pack, boards)
        if args.rerank and boards:
            RERANK_STATS.clear()
            results["files +rerank"] = read_boards(files_pack, boards, post=rerank)
            results["files +rerank"].update(RERANK_STATS)
            RERANK_STATS.clear()
            results["files +rerank+unflag"] = read_boards(files_pack, boards, post=rerank_unflag)
            results["files +rerank+unflag"].update(RERANK_STATS)
        grid_rows = documented_rows()
        halves = [list(FACE_LABELS[:8]), list(FACE_LABELS[8:])]
        grid_layouts = []  # every layout photo's cards, for the pack enrolled from all of them
        for k in range(args.layouts):
            seed = args.seed + 10 * k
            data, truth = upright_scene_truth(seed + 1, deck, grid_rows, max_size=size, **laid_out)
            photo = load(data)
            layout_note = {"covered_in_truth": covered_faces(truth)}
            try:
                grid_layouts.append(layout_cards(photo))
            except Exception:  # noqa: BLE001 - refused below, in its own row
                pass
            else:
                if grid_layouts[-1].documented_layout:
                    layout_note["named_unsure"] = unsure_faces([grid_layouts[-1]])
            ways = {
                f"grid-cells {k}": lambda photo=photo: nominal_cells(photo),
                f"grid-outlines {k}": lambda photo=photo: layout_cards(photo).in_enrolment_order(),
                f"loose {k}": lambda seed=seed: loose_enrolment(seed, deck, halves, size, laid_out),
            }
            for name, cut in ways.items():
                start = time.process_time()
                try:
                    cut_faces = cut()
                except Exception as error:  # noqa: BLE001 - a refusal is a result
                    results[name] = {"refused": str(error)}
                    continue
                seconds = time.process_time() - start
                views, note = None, {}
                if isinstance(cut_faces, tuple):  # loose: faces, views and the photos taken
                    cut_faces, views, note = cut_faces
                unsure = {  # main's nominal cells before item 1 name nothing
                    "grid-cells": (),
                    "grid-outlines": layout_note.get("named_unsure", ()),
                    "loose": note.get("named_unsure", ()),
                }[name.split()[0]]
                pack = build(tmp / name.replace(" ", "_"), cut_faces, views, unsure)
                results[name] = read_boards(pack, boards)
                results[name]["cut_cpu_s"] = round(seconds, 2)
                results[name].update(note)
                if name.startswith("grid-outlines"):
                    results[name].update(layout_note)
                    if layout_note.get("named_unsure"):
                        results[name + " retaken"] = retaken(
                            tmp / f"retaken-{k}", seed + 1, deck, grid_rows, size, laid_out, boards
                        )
                if args.as_shipped:
                    results[name + " as shipped"] = read_boards(pack, boards, shipped=True)
                if args.rerank:
                    RERANK_STATS.clear()
                    results[name + " +rerank"] = read_boards(pack, boards, post=rerank)
                    results[name + " +rerank"].update(RERANK_STATS)
                    RERANK_STATS.clear()
                    results[name + " +rerank+unflag"] = read_boards(
                        pack, boards, post=rerank_unflag
                    )
                    results[name + " +rerank+unflag"].update(RERANK_STATS)
                if args.night and name.startswith("grid-outlines"):
                    half = len(boards) // 2
                    results[name + " night"] = night_gain(
                        pack, boards[:half], boards[half:], tmp / f"night-{k}"
                    )
        if len(grid_layouts) >= 2:
            # all layout photos at once, as `enroll --from-layout A B` takes them: the first
            # photo's cut is each face, the others' cuts are views of it
            try:
                faces_all, views_all = named_faces(grid_layouts)
            except ValueError as error:
                results["grid-outlines all"] = {"refused": str(error)}
            else:
                unsure_all = with_washed_out(unsure_faces(grid_layouts, None, faces_all), faces_all)
                pack = build(tmp / "grid-outlines_all", faces_all, views_all, unsure_all)
                results["grid-outlines all"] = read_boards(pack, boards)
                if args.as_shipped:
                    shipped = read_boards(pack, boards, shipped=True)
                    results["grid-outlines all as shipped"] = shipped
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
                if args.as_shipped:
                    results[name + " as shipped"] = read_boards(pack, reads, shipped=True)
                if args.rerank:
                    RERANK_STATS.clear()
                    results[name + " +rerank"] = read_boards(pack, reads, post=rerank)
                    results[name + " +rerank"].update(RERANK_STATS)
                    RERANK_STATS.clear()
                    results[name + " +rerank+unflag"] = read_boards(pack, reads, post=rerank_unflag)
                    results[name + " +rerank+unflag"].update(RERANK_STATS)
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
