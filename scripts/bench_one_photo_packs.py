"""One-photo packs on many decks: each deck enrolled from one layout photo, its boards read.

For every deck seed and layout photo: the documented layout photographed at a game night (as
``scripts/bench_enrol.py`` renders it: real table, tilt 0-45 degrees, up to 4032 x 3024), cut by
:func:`vision.reptile_tank.enrol.layout_cards` and enrolled as ``reptile-tank enroll
--from-layout`` does (the faces it names unsure kept in the pack); then the deck's game-night
boards (``bench_enrol.board_photos``, the frozen hard set's conditions) read with that pack,
the re-ranker off (as ``bench_enrol.py``'s plain rows). ``--files`` also reads the boards with
each deck's files pack (one clean image per face). Per pack and in total: boards found, fully
right, wrong cells, SILENT wrong cells (wrong and neither checked nor under grid doubt), boards
whose grid is in doubt, right cells checked.

Usage::

    python scripts/bench_one_photo_packs.py [--decks 2811,4001,5511,6601,7301] [--layouts 2]
        [--boards 10] [--files] [--no-confirm] [--shipped] [--silent] [--wrong] [--cut-quality]
        [--json]

``--no-confirm`` reads with the reader's confirmation by the print
(``TerrariumReader.confirm_by_print``) off: the baseline of that step in the same code.
``--shipped`` reads with the reader exactly as the app and the CLI run it (the re-ranker on).
``--silent`` lists every silent wrong cell (its pack, board, cell, truth, read, margin, the
calibrated P(wrong) and the best three labels). ``--wrong`` lists every wrong cell so,
flagged or not (``"flagged"``). ``--cut-quality`` says, per layout photo, how
close each face cut from it is to the deck's own image of that face (the shipped embedder's
cosine): mean, 10th percentile, and the faces under 0.8 (beside the pack's ``unsure`` faces).

Development seeds only: the acceptance decks are not in the project.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import functools  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_enrol as be  # noqa: E402

from scoring.reptile_tank.cards import FACE_LABELS  # noqa: E402
from service.reptile_tank.deck import with_washed_out  # noqa: E402

LAID_OUT = {"fill": (0.7, 0.95), "tilt_deg": (0.0, 45.0), "distractors": False, "real_table": True}


def read_pack(pack: Path, boards, confirm: bool = True, shipped: bool = False) -> dict:
    """Boards read with ``pack`` (the re-ranker off unless ``shipped``; ``confirm``: the
    reader's confirmation by the print on, as shipped): the per-pack counts, under
    ``"wrong_cells"`` each wrong cell and under ``"silent_cells"`` those not flagged."""
    from vision.errors import GridNotFoundError
    from vision.reptile_tank.reader import TerrariumReader

    reader = TerrariumReader(pack=str(pack))
    reader.rerank = reader.rerank and shipped
    reader.confirm_by_print = confirm
    confirm_ms = []
    out = dict.fromkeys(("found", "fully_right", "wrong", "silent", "doubt"), 0)
    right = right_checked = 0
    wrong_cells = []
    for board, (data, rows) in enumerate(boards):
        try:
            read = reader.read(data)
        except GridNotFoundError:
            continue
        out["found"] += 1
        confirm_ms.append(read.cpu_ms.get("confirm", 0.0))
        check = np.asarray(read.check, bool)
        doubt = bool(read.grid_doubt)
        out["doubt"] += int(doubt)
        board_wrong = 0
        for r, row in enumerate(rows):
            for c, label in enumerate(row):
                if read.rows[r][c] != label:
                    board_wrong += 1
                    flagged = bool(check[r, c] or doubt)
                    out["silent"] += int(not flagged)
                    wrong_cells.append(
                        {**_wrong_cell(read, board, r, c, label), "flagged": flagged}
                    )
                else:
                    right += 1
                    right_checked += int(check[r, c])
        out["wrong"] += board_wrong
        out["fully_right"] += int(board_wrong == 0)
    out["right_checked"] = round(right_checked / max(right, 1), 4)
    out["confirm_cpu_ms_median"] = round(float(np.median(confirm_ms)), 1) if confirm_ms else 0.0
    out["silent_cells"] = [cell for cell in wrong_cells if not cell["flagged"]]
    out["wrong_cells"] = wrong_cells
    return out


def _wrong_cell(read, board: int, r: int, c: int, truth: str) -> dict:
    """One wrong cell, as ``--wrong`` and ``--silent`` list it."""
    cell = read.cells[r][c]
    p_wrong = None if read.confidence is None else float(read.confidence.p_wrong[r, c])
    return {
        "board": board,
        "cell": [r, c],
        "truth": truth,
        "read": cell.label,
        "margin": round(float(cell.confidence), 3),
        "p_wrong": None if p_wrong is None else round(p_wrong, 3),
        "top": [[label, round(float(score), 3)] for label, score in cell.top[:3]],
    }


@functools.cache
def _reader_embedder():
    """The shipped embedder, loaded once for every layout photo."""
    from vision.embedder import CardEmbedder
    from vision.reptile_tank.classifier import READER_MODEL

    return CardEmbedder(READER_MODEL)


def cut_quality(faces: dict, deck) -> dict:
    """How close each face cut from a layout photo is to the deck's own image of it: the
    shipped embedder's cosine, mean, 10th percentile, and the faces under 0.8."""
    from vision.reptile_tank.gallery import to_face_size

    embedder = _reader_embedder()
    labels = list(faces)
    cut = embedder.embed(np.stack([to_face_size(faces[label]) for label in labels]))
    own = embedder.embed(np.stack([to_face_size(deck[label]) for label in labels]))
    cosine = (cut * own).sum(axis=1)
    return {
        "mean": round(float(cosine.mean()), 3),
        "p10": round(float(np.percentile(cosine, 10)), 3),
        "under_0.8": {
            label: round(float(v), 3) for label, v in zip(labels, cosine, strict=True) if v < 0.8
        },
        "faces": {label: round(float(v), 3) for label, v in zip(labels, cosine, strict=True)},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--decks", default="2811,4001,5511,6601,7301", help="deck seeds")
    parser.add_argument("--layouts", type=int, default=2, help="layout photos per deck")
    parser.add_argument("--boards", type=int, default=10, help="boards per deck")
    parser.add_argument("--files", action="store_true", help="also each deck's files pack")
    parser.add_argument(
        "--no-confirm", action="store_true", help="the reader's confirmation by the print off"
    )
    parser.add_argument(
        "--shipped", action="store_true", help="the reader as shipped (the re-ranker on)"
    )
    parser.add_argument("--silent", action="store_true", help="list every silent wrong cell")
    parser.add_argument(
        "--wrong", action="store_true", help="list every wrong cell, flagged or not"
    )
    parser.add_argument(
        "--cut-quality", action="store_true", help="each layout face's cosine to its own image"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    confirm = not args.no_confirm

    from vision.reptile_tank.enrol import documented_rows, layout_cards, unsure_faces
    from vision.reptile_tank.lookalike import family_deck

    size = (4032, 3024)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for seed in (int(s) for s in args.decks.split(",")):
            deck = family_deck(np.random.default_rng(seed), px_per_mm=6.0)
            boards = be.board_photos(deck, seed, args.boards, size, True)
            if args.files:
                faces = {label: deck[label] for label in FACE_LABELS}
                pack = be.build(tmp / f"files-{seed}", faces)
                rows.append(
                    {
                        "deck": seed,
                        "pack": "files",
                        **read_pack(pack, boards, confirm, args.shipped),
                    }
                )
            for k in range(args.layouts):
                data, truth = be.upright_scene_truth(
                    seed + 10 * k + 1, deck, documented_rows(), max_size=size, **LAID_OUT
                )
                row = {"deck": seed, "pack": f"layout {k}", "covered": be.covered_faces(truth)}
                try:
                    laid = layout_cards(be.load(data))
                    faces = laid.in_enrolment_order()
                except Exception as error:  # noqa: BLE001 - a refusal is a result
                    rows.append({**row, "refused": str(error)})
                    continue
                named = unsure_faces([laid]) if laid.documented_layout else []
                unsure = with_washed_out(named, faces)
                pack = be.build(tmp / f"layout-{seed}-{k}", faces, unsure=unsure)
                if args.cut_quality:
                    row["cut_quality"] = cut_quality(faces, deck)
                rows.append(
                    {**row, "unsure": unsure, **read_pack(pack, boards, confirm, args.shipped)}
                )
    totals = {}
    for kind in ("layout", "files"):
        mine = [r for r in rows if r["pack"].startswith(kind) and "refused" not in r]
        if mine:
            totals[kind] = {
                key: sum(r[key] for r in mine)
                for key in ("found", "fully_right", "wrong", "silent", "doubt")
            }
            totals[kind]["right_checked_mean"] = round(
                float(np.mean([r["right_checked"] for r in mine])), 4
            )
            totals[kind]["packs"] = len(mine)
    for row in rows:
        if not args.silent:
            row.pop("silent_cells", None)
        if not args.wrong:
            row.pop("wrong_cells", None)
    if args.json:
        print(json.dumps({"packs": rows, "totals": totals}, indent=2))
    else:
        for row in rows:
            print(json.dumps(row))
        for kind, total in totals.items():
            print(kind, json.dumps(total))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
