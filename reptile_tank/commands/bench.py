"""``bench``: accuracy and speed of photo → board → score pad on a synthetic data set.

For every scene (an image plus its ground-truth JSON, as ``reptile-tank synth`` writes them) the
photo goes through the reader ``score`` reads with
(:func:`service.reptile_tank.reading.make_reader`), on one CPU core, and the board is scored.
Reported: grid found, per-card error, whole board right (20 labels and orientation),
orientation errors, per-stage median timings — and, on the same rectified crops in the same run,
a classical baseline (nearest colour histogram against the same deck faces).

The doubt the reader reports is measured too: *silent wrong cells* (a wrong cell neither flagged
``check`` nor on a read flagged ``needs_check``), *flagged right cells* (right cells flagged
``check``), reads needing a check, refusals and "no terrarium" refusals. ``--reference-model DIR``
reads every photo a second time, in the same run, with another embedder (``DIR`` holds its
``model.onnx``, ``model.json`` and ``stand_in_gallery.npz``: :func:`vision.models.model_folder`)
and today's rule for what to check (a margin to the runner-up under 0.1, the app's highlight
before calibrated flags) — the current reader beside the new one.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from scoring.reptile_tank.cards import EMPTY, FACE_LABELS
from scoring.reptile_tank.rules import load_rules
from service.photos import PHOTO_SUFFIXES as IMAGE_SUFFIXES  # noqa: E402 - the one list


class BenchDataError(ValueError):
    """The data set folder holds no usable scenes."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("bench", help="accuracy and timing on a synthetic data set")
    parser.add_argument("--data", required=True, help="folder of scene images + truth JSON")
    parser.add_argument("--pack", default=None, help="deck pack folder (default: stand-in deck)")
    parser.add_argument("--limit", type=int, default=None, help="use the first N scenes only")
    parser.add_argument("--no-baseline", action="store_true", help="skip the classical baseline")
    parser.add_argument(
        "--oracle",
        action="store_true",
        help="also read every scene from its true grid corners (the classifier alone)",
    )
    parser.add_argument(
        "--reference-model",
        default=None,
        help="folder of another embedder (onnx, json, stand_in_gallery.npz): also read every "
        "photo with it and the margin < 0.1 highlight rule, in the same run",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run_bench)


# ------------------------------------------------------------------------- data set


def find_scenes(directory: str | Path) -> list[tuple[Path, dict]]:
    """(image path, truth) for every ground-truth JSON in ``directory`` (sorted by name)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise BenchDataError(f"{directory}: not a folder")
    scenes = []
    for path in sorted(directory.rglob("*.json")):
        try:
            truth = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if not isinstance(truth, dict) or "board" not in truth or "grid_corners" not in truth:
            continue
        image = None
        if truth.get("image"):
            candidate = path.parent / truth["image"]
            image = candidate if candidate.is_file() else None
        if image is None:
            image = next(
                (path.with_suffix(s) for s in IMAGE_SUFFIXES if path.with_suffix(s).is_file()),
                None,
            )
        if image is not None:
            scenes.append((image, truth))
    if not scenes:
        raise BenchDataError(f"{directory}: no scenes (image + ground-truth JSON) found")
    return scenes


# ------------------------------------------------------------------------- baseline


class HistogramBaseline:
    """Nearest HSV colour histogram (Bhattacharyya distance) against the deck's faces.

    Prototypes: each face's clean crop upright and turned 180°, plus table crops for ``empty``
    (the same generator the galleries use). Rotation-blind, so it names labels only.
    """

    def __init__(self, faces: dict[str, np.ndarray], crop_size: tuple[int, int], seed: int = 0):
        from vision.reptile_tank.augment import card_view, empty_view

        rng = np.random.default_rng(seed)
        self.labels: list[str] = []
        self.hists: list[np.ndarray] = []
        small = {
            k: cv2.resize(v, (126, 176), interpolation=cv2.INTER_AREA) for k, v in faces.items()
        }
        for label, face in small.items():
            for rotation in (0, 180):
                crop = card_view(face, rng, out_size=crop_size, rotation=rotation, strength=0.0)
                self.labels.append(label)
                self.hists.append(self.histogram(crop))
        for _ in range(40):
            self.labels.append(EMPTY)
            self.hists.append(self.histogram(empty_view(rng, out_size=crop_size)))

    @staticmethod
    def histogram(crop: np.ndarray) -> np.ndarray:
        """(H, W, 3) uint8 RGB → normalised 16×4×4 HSV histogram."""
        hsv = cv2.cvtColor(crop, cv2.COLOR_RGB2HSV)
        hist = cv2.calcHist([hsv], [0, 1, 2], None, [16, 4, 4], [0, 180, 0, 256, 0, 256])
        return cv2.normalize(hist, None).flatten()

    def classify(self, crops: np.ndarray) -> list[list[str]]:
        """(4, 5, H, W, 3) uint8 RGB → 4 rows of 5 labels."""
        out = []
        for row in crops:
            labels = []
            for crop in row:
                h = self.histogram(crop)
                d = [cv2.compareHist(h, p, cv2.HISTCMP_BHATTACHARYYA) for p in self.hists]
                labels.append(self.labels[int(np.argmin(d))])
            out.append(labels)
        return out


# ------------------------------------------------------------------------- metrics


def _turned(rows: list[list[str]]) -> list[list[str]]:
    return [list(reversed(row)) for row in reversed(rows)]


def _errors(predicted: list[list[str]], truth: list[list[str]]) -> int:
    return sum(
        p != t for pr, tr in zip(predicted, truth, strict=True) for p, t in zip(pr, tr, strict=True)
    )


def _corner_error(fit_corners: np.ndarray, truth_corners, scale: float) -> float:
    """Largest corner distance (original pixels) between the fit and the truth, best of 0/180."""
    fit = np.asarray(fit_corners) / scale
    truth = np.asarray(truth_corners, float)
    return float(min(np.linalg.norm(np.roll(fit, k, axis=0) - truth, axis=1).max() for k in (0, 2)))


def run_bench(args: argparse.Namespace) -> int:
    from service.reptile_tank.reading import deck_copies, make_reader
    from service.reptile_tank.scoring import score_rows
    from vision.reptile_tank.synth.truth import corner_error

    cv2.setNumThreads(1)
    scenes = find_scenes(args.data)[: args.limit]
    rules = load_rules()
    reader = make_reader(args.pack, rules)  # the reader ``score`` and the app read with (1 thread)
    reference = None
    reference_model = getattr(args, "reference_model", None)
    if reference_model is not None:
        reference = _reference_reader(reference_model, args.pack, deck_copies(rules))
    doubt = _new_doubt()
    reference_doubt = _new_doubt()
    margin_doubt = _new_doubt()  # the same reads judged by today's highlight rule
    baseline = None
    if not args.no_baseline:
        baseline = HistogramBaseline(_deck_faces(reader), reader.cell_size)
    stats = {
        "scenes": len(scenes),
        "grid_found": 0,
        "cells": 0,
        "card_errors": 0,
        "card_errors_any_orientation": 0,
        "boards_right": 0,
        "orientation_wrong": 0,
        "orientation_ambiguous": 0,
        "baseline_card_errors_any_orientation": 0,
        "confusions": {},
        "failures": [],
        "scenes_with_errors": [],
    }
    timings: dict[str, list[float]] = {}
    cpu_timings: dict[str, list[float]] = {}
    corner_errors = []
    sizes = []
    oracle = {"cells": 0, "errors": 0, "boards_right": 0, "baseline_errors": 0, "confusions": {}}
    grid = {"to_crops_ms": [], "to_crops_12mp_ms": [], "errors": []}
    grid_baseline = {"to_crops_ms": [], "errors": [], "found": 0}
    for image_path, truth in scenes:
        data = image_path.read_bytes()
        rows_true = truth["board"]["rows"]
        lattice = _visible_lattice(truth)
        if not args.no_baseline:
            _baseline_grid(reader, data, lattice, grid_baseline)
        if args.oracle:
            _oracle_read(reader, baseline, data, truth, oracle)
        if reference is not None:
            try:
                _read_with_doubt(reference, data, rows_true, reference_doubt, margin_rule=True)
            except ValueError:
                pass  # counted as a refusal of the reference reader
        try:
            read = _read_with_doubt(reader, data, rows_true, doubt, margin_rule=False)
        except ValueError as error:
            stats["failures"].append(f"{image_path.name}: {error}")
            margin_doubt["refused"] += 1
            margin_doubt["no_terrarium"] += int("no terrarium" in str(error).lower())
            continue
        _count_doubt(read, rows_true, margin_doubt, margin_rule=True)
        stats["grid_found"] += 1
        to_crops = sum(read.cpu_ms[stage] for stage in ("load", "grid", "rectify"))
        grid["to_crops_ms"].append(to_crops)
        if np.prod(truth.get("size", [0, 0])) >= TWELVE_MP:
            grid["to_crops_12mp_ms"].append(to_crops)
        if lattice is not None:
            grid["errors"].append(corner_error(read.fit.corners / read.scale, lattice))
        start, cpu_start = time.perf_counter(), time.process_time()
        score_rows(read.rows, rules)
        wall = {**read.timings_ms, "score": 1000 * (time.perf_counter() - start)}
        cpu = {**read.cpu_ms, "score": 1000 * (time.process_time() - cpu_start)}
        wall["total"] = wall.pop("total") + wall["score"]
        cpu["total"] = cpu.pop("total") + cpu["score"]
        for key, value in wall.items():
            timings.setdefault(key, []).append(value)
        for key, value in cpu.items():
            cpu_timings.setdefault(key, []).append(value)
        sizes.append(int(np.prod(truth.get("size", [0, 0]))))
        corner_errors.append(_corner_error(read.fit.corners, truth["grid_corners"], read.scale))
        errors = _errors(read.rows, rows_true)
        errors_any = min(errors, _errors(_turned(read.rows), rows_true))
        if errors:
            stats["scenes_with_errors"].append(
                {
                    "image": image_path.name,
                    "errors": errors,
                    "corner_error_px": round(corner_errors[-1], 1),
                    "grid": read.fit.method,
                    "grid_quality": round(float(read.fit.quality), 3),
                }
            )
        stats["cells"] += sum(len(row) for row in rows_true)
        stats["card_errors"] += errors
        stats["card_errors_any_orientation"] += errors_any
        stats["boards_right"] += int(errors == 0)
        stats["orientation_wrong"] += int(errors > errors_any)
        stats["orientation_ambiguous"] += int(read.orientation.ambiguous)
        best = rows_true if errors == errors_any else _turned(rows_true)
        _count_confusions(stats["confusions"], read.rows, best)
        if baseline is not None:
            stats["baseline_card_errors_any_orientation"] += _baseline_errors(
                baseline, read.crops, rows_true
            )
    report = _summarise(
        stats, timings, cpu_timings, corner_errors, sizes, baseline is not None, args
    )
    report["grid"] = _grid_summary(grid, None if args.no_baseline else grid_baseline, len(scenes))
    report["doubt"] = _doubt_summary(doubt, len(scenes))
    report["margin_rule"] = {
        "check_rule": "the same reads, margin to the runner-up < 0.1 (today's highlight)",
        **_doubt_summary(margin_doubt, len(scenes)),
    }
    if reference is not None:
        report["reference"] = {
            "model": str(reference_model),
            "check_rule": "margin to the runner-up < 0.1 (BoardRead.low_confidence)",
            **_doubt_summary(reference_doubt, len(scenes)),
        }
    if args.oracle:
        cells = max(oracle["cells"], 1)
        report["true_corners"] = {
            "per_card_error_pct": round(100 * oracle["errors"] / cells, 3),
            "whole_board_right_pct": round(100 * oracle["boards_right"] / max(len(scenes), 1), 2),
            "confusions": oracle["confusions"],
        }
        if baseline is not None:
            report["true_corners"]["baseline_per_card_error_pct"] = round(
                100 * oracle["baseline_errors"] / cells, 3
            )
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(format_report(report))
    return 0


#: Photos of at least this many pixels count as "12 MP" phone photos (4000 x 3000 = 12.0 MP).
TWELVE_MP = 11_500_000
#: A grid fit whose corners are off by more than this many card widths is a miss.
GRID_MISS_CARD_WIDTHS = 0.25


def _visible_lattice(truth: dict) -> np.ndarray | None:
    """The truth's visible lattice (original pixels), or None when the JSON lacks the cards."""
    from vision.reptile_tank.synth.truth import visible_lattice

    if "cells" not in truth or "occupied" not in truth:
        return None
    occupied = np.asarray(truth["occupied"], bool)
    if occupied.sum() < 2:
        return None
    return visible_lattice(np.asarray(truth["cells"], float), occupied)


def _baseline_grid(reader, data: bytes, lattice: np.ndarray | None, out: dict) -> None:
    """Photo bytes -> largest-contour grid -> 20 crops, timed on one core; its corner error."""
    from vision.reptile_tank.grid import rectify_cells
    from vision.reptile_tank.grid_baseline import largest_contour_fit
    from vision.reptile_tank.synth.truth import corner_error

    start = time.process_time()
    loaded = reader.load(data)
    try:
        fit = largest_contour_fit(loaded.rgb)
    except ValueError:
        out["to_crops_ms"].append(1000 * (time.process_time() - start))
        return
    rectify_cells(loaded.rgb, fit, cell_size=reader.cell_size)
    out["to_crops_ms"].append(1000 * (time.process_time() - start))
    if lattice is not None:
        error = corner_error(fit.corners / loaded.scale, lattice)
        if error < GRID_MISS_CARD_WIDTHS:
            out["found"] += 1
            out["errors"].append(error)


def _grid_summary(grid: dict, baseline: dict | None, scenes: int) -> dict:
    """Grid finding alone: photo -> 20 crops time and corner error, beside the baseline's."""

    def median(values: list[float]) -> float | None:
        return round(float(np.median(values)), 1) if values else None

    found = [e for e in grid["errors"] if e < GRID_MISS_CARD_WIDTHS]
    summary = {
        "median_cpu_ms_photo_to_crops": median(grid["to_crops_ms"]),
        "median_cpu_ms_photo_to_crops_12mp": median(grid["to_crops_12mp_ms"]),
        "scenes_12mp": len(grid["to_crops_12mp_ms"]),
        "found_within_quarter_card_pct": round(100 * len(found) / max(scenes, 1), 2),
        "corner_error_mean_pct_card_width": round(100 * float(np.mean(found)), 2)
        if found
        else None,
    }
    if baseline is not None:
        summary["baseline"] = {
            "method": "largest Otsu contour -> quad -> lattice from its corners",
            "median_cpu_ms_photo_to_crops": median(baseline["to_crops_ms"]),
            "found_within_quarter_card_pct": round(100 * baseline["found"] / max(scenes, 1), 2),
            "corner_error_mean_pct_card_width": round(100 * float(np.mean(baseline["errors"])), 2)
            if baseline["errors"]
            else None,
        }
    return summary


def _count_confusions(confusions: dict, predicted, truth) -> None:
    """Add one ``"true->read"`` count per wrong cell of ``predicted`` into ``confusions``."""
    for pr, tr in zip(predicted, truth, strict=True):
        for p, t in zip(pr, tr, strict=True):
            if p != t:
                key = f"{t}->{p}"
                confusions[key] = confusions.get(key, 0) + 1


def _baseline_errors(baseline, crops, rows_true) -> int:
    """Wrong cells of the rotation-blind baseline on the same crops, in its better orientation."""
    base = baseline.classify(crops)
    return min(_errors(base, rows_true), _errors(_turned(base), rows_true))


def _oracle_read(reader, baseline, data: bytes, truth: dict, oracle: dict) -> None:
    """Read a scene from its true outer corners; count errors (any orientation) into ``oracle``."""
    scale = reader.load(data).scale
    corners = np.asarray(truth["grid_corners"], float) * scale
    read = reader.read(data, corners=corners)
    rows_true = truth["board"]["rows"]
    errors = _errors(read.rows, rows_true)
    oracle["cells"] += sum(len(row) for row in rows_true)
    oracle["errors"] += errors
    oracle["boards_right"] += int(errors == 0)
    _count_confusions(oracle["confusions"], read.rows, rows_true)
    if baseline is not None:
        oracle["baseline_errors"] += _baseline_errors(baseline, read.crops, rows_true)


#: Today's highlight rule, the reference for the calibrated flags: a margin under this.
MARGIN_RULE = 0.1


def _new_doubt() -> dict:
    return {"found": 0, "refused": 0, "no_terrarium": 0, "cells": 0, "wrong": 0, "boards_right": 0,
            "silent_wrong": 0, "flagged_right": 0, "flagged_wrong": 0, "needs_check": 0,
            "wrong_boards_flagged": 0, "wrong_boards": 0, "cpu_ms": []}  # fmt: skip


def _read_with_doubt(reader, data: bytes, rows_true, out: dict, *, margin_rule: bool):
    """Read a photo; count found / right / flagged / silent cells into ``out``; return the read.

    ``margin_rule`` judges the read by today's highlight (margin < :data:`MARGIN_RULE`; a read
    needs a check when a cell is highlighted) instead of the calibrated ``check`` flags.
    Refusals are re-raised after counting.
    """
    start = time.process_time()
    try:
        read = reader.read(data)
    except ValueError as error:
        out["refused"] += 1
        out["no_terrarium"] += int("no terrarium" in str(error).lower())
        raise
    finally:
        out["cpu_ms"].append(1000 * (time.process_time() - start))
    _count_doubt(read, rows_true, out, margin_rule=margin_rule)
    return read


def _count_doubt(read, rows_true, out: dict, *, margin_rule: bool) -> None:
    """Count one read's right, wrong, flagged and silent cells into ``out``."""
    if margin_rule:
        check = np.zeros((len(read.cells), len(read.cells[0])), bool)
        for r, c in read.low_confidence(MARGIN_RULE):
            check[r, c] = True
        needs_check = bool(check.any())
    else:
        check = np.asarray(read.check, bool)
        needs_check = bool(read.needs_check)
    wrong = np.array(
        [[p != t for p, t in zip(pr, tr, strict=True)] for pr, tr in zip(read.rows, rows_true,
                                                                          strict=True)]
    )  # fmt: skip
    out["found"] += 1
    out["cells"] += wrong.size
    out["wrong"] += int(wrong.sum())
    out["boards_right"] += int(not wrong.any())
    out["needs_check"] += int(needs_check)
    out["flagged_right"] += int((check & ~wrong).sum())
    out["flagged_wrong"] += int((check & wrong).sum())
    if not needs_check:
        out["silent_wrong"] += int((wrong & ~check).sum())
    if wrong.any():
        out["wrong_boards"] += 1
        out["wrong_boards_flagged"] += int(needs_check)


def _doubt_summary(d: dict, scenes: int) -> dict:
    cells = max(d["cells"], 1)
    right = max(d["cells"] - d["wrong"], 1)
    return {
        "grid_found_pct": round(100 * d["found"] / max(scenes, 1), 2),
        "refused": d["refused"],
        "refused_no_terrarium": d["no_terrarium"],
        "per_card_error_pct": round(100 * d["wrong"] / cells, 3),
        "boards_right_pct": round(100 * d["boards_right"] / max(scenes, 1), 2),
        "wrong_cells": d["wrong"],
        "wrong_cells_flagged": d["flagged_wrong"],
        "silent_wrong_cells": d["silent_wrong"],
        "silent_wrong_cells_pct": round(100 * d["silent_wrong"] / cells, 3),
        "flagged_right_cells_pct": round(100 * d["flagged_right"] / right, 2),
        "reads_needing_check_pct": round(100 * d["needs_check"] / max(d["found"], 1), 2),
        "wrong_boards_flagged": f"{d['wrong_boards_flagged']}/{d['wrong_boards']}",
        "median_cpu_ms_photo_to_read": round(float(np.median(d["cpu_ms"])), 1)
        if d["cpu_ms"]
        else None,
    }


def _reference_reader(folder: str, pack: str | None, copies: dict):
    """A reader with the embedder in ``folder``; a pack is read through a copy of it, enrolled
    anew for that embedder (the player's pack and its gallery are untouched), so its faces serve
    the reference's hidden-card checks, fine comparison and look past a hand as they serve the
    shipped reader's."""
    import shutil
    import tempfile

    from vision.models import model_folder
    from vision.reptile_tank.reader import TerrariumReader

    model = model_folder(folder).onnx
    if pack is None:
        return TerrariumReader(None, copies=copies, model_path=model, threads=1)
    with tempfile.TemporaryDirectory(prefix="reference-pack-") as scratch:
        copy = Path(scratch) / "pack"
        shutil.copytree(pack, copy)
        # the reader keeps the copy's faces and gallery in memory; the bench adds no examples
        return TerrariumReader(copy, copies=copies, model_path=model, threads=1)


def _deck_faces(reader) -> dict[str, np.ndarray]:
    if reader.pack is not None:
        return dict(reader.pack.faces)
    from vision.reptile_tank.synth.deck import stand_in_deck

    return dict(stand_in_deck(px_per_mm=4.0))


def _summarise(stats, timings, cpu_timings, corner_errors, sizes, with_baseline, args) -> dict:
    n = stats["scenes"]
    cells = max(stats["cells"], 1)
    report = {
        "data": str(args.data),
        "pack": args.pack or "stand-in (default)",
        "scenes": n,
        "median_image_megapixels": round(float(np.median(sizes)) / 1e6, 2) if sizes else None,
        "grid_found_pct": round(100 * stats["grid_found"] / max(n, 1), 2),
        "median_corner_error_px": round(float(np.median(corner_errors)), 2)
        if corner_errors
        else None,
        "per_card_error_pct": round(100 * stats["card_errors"] / cells, 3),
        "per_card_error_any_orientation_pct": round(
            100 * stats["card_errors_any_orientation"] / cells, 3
        ),
        "whole_board_right_pct": round(100 * stats["boards_right"] / max(n, 1), 2),
        "orientation_wrong": stats["orientation_wrong"],
        "orientation_ambiguous": stats["orientation_ambiguous"],
        "confusions": dict(sorted(stats["confusions"].items(), key=lambda kv: -kv[1])),
        "median_cpu_ms": {k: round(float(np.median(v)), 2) for k, v in cpu_timings.items()},
        "p90_cpu_ms": {k: round(float(np.percentile(v, 90)), 2) for k, v in cpu_timings.items()},
        "median_wall_ms": {k: round(float(np.median(v)), 2) for k, v in timings.items()},
        "failures": stats["failures"],
        "scenes_with_errors": stats["scenes_with_errors"],
        "threads": 1,
    }
    if with_baseline:
        report["baseline"] = {
            "method": "nearest HSV histogram (16x4x4, Bhattacharyya) vs the same deck faces",
            "per_card_error_any_orientation_pct": round(
                100 * stats["baseline_card_errors_any_orientation"] / cells, 3
            ),
        }
    return report


def format_report(report: dict) -> str:
    lines = [
        f"Data: {report['data']}  pack: {report['pack']}  scenes: {report['scenes']} "
        f"(median {report['median_image_megapixels']} MP)",
        f"Grid found:                 {report['grid_found_pct']:.2f} %  "
        f"(median corner error {report['median_corner_error_px']} px)",
        f"Per-card error:             {report['per_card_error_pct']:.3f} %  "
        f"(ignoring orientation {report['per_card_error_any_orientation_pct']:.3f} %)",
        f"Whole board right:          {report['whole_board_right_pct']:.2f} %  "
        f"(orientation wrong {report['orientation_wrong']}, "
        f"ambiguous {report['orientation_ambiguous']})",
    ]
    if "baseline" in report:
        lines.append(
            "Baseline per-card error:    "
            f"{report['baseline']['per_card_error_any_orientation_pct']:.3f} %  "
            f"({report['baseline']['method']}; ignoring orientation)"
        )
    grid = report.get("grid")
    if grid:
        line = (
            f"Grid, photo -> 20 crops:    median {grid['median_cpu_ms_photo_to_crops']} ms CPU "
            f"({grid['median_cpu_ms_photo_to_crops_12mp']} ms on {grid['scenes_12mp']} 12 MP "
            f"photos); corner error {grid['corner_error_mean_pct_card_width']} % of a card width "
            f"(found {grid['found_within_quarter_card_pct']} %)"
        )
        lines.append(line)
        if "baseline" in grid:
            b = grid["baseline"]
            lines.append(
                f"Grid baseline ({b['method']}): median {b['median_cpu_ms_photo_to_crops']} ms, "
                f"found {b['found_within_quarter_card_pct']} %, corner error "
                f"{b['corner_error_mean_pct_card_width']} %"
            )
    for key, title in (
        ("doubt", "This reader"),
        ("margin_rule", "Same reads, margin < 0.1"),
        ("reference", "Reference reader"),
    ):
        d = report.get(key)
        if not d:
            continue
        lines.append(
            f"{title + ':':27} found {d['grid_found_pct']} %, per-card error "
            f"{d['per_card_error_pct']} %, boards right {d['boards_right_pct']} %, silent wrong "
            f"cells {d['silent_wrong_cells']} ({d['silent_wrong_cells_pct']} %), flagged right "
            f"cells {d['flagged_right_cells_pct']} %, reads to check "
            f"{d['reads_needing_check_pct']} %, refused {d['refused']} (no terrarium "
            f"{d['refused_no_terrarium']}), median {d['median_cpu_ms_photo_to_read']} ms CPU"
        )
    cpu = ", ".join(f"{k} {v}" for k, v in report["median_cpu_ms"].items())
    wall = ", ".join(f"{k} {v}" for k, v in report["median_wall_ms"].items())
    lines.append(f"Median CPU ms (one thread): {cpu}")
    lines.append(f"Median wall ms (shared machine): {wall}")
    if report["confusions"]:
        top = list(report["confusions"].items())[:8]
        lines.append("Confusions (truth->read): " + ", ".join(f"{k} x{v}" for k, v in top))
    if "true_corners" in report:
        tc = report["true_corners"]
        line = (
            f"From true corners:          per-card error {tc['per_card_error_pct']:.3f} %, "
            f"whole board right {tc['whole_board_right_pct']:.2f} %"
        )
        if "baseline_per_card_error_pct" in tc:
            line += f" (baseline {tc['baseline_per_card_error_pct']:.3f} %)"
        lines.append(line)
    for failure in report["failures"][:10]:
        lines.append(f"  grid not found: {failure}")
    return "\n".join(lines)


__all__ = ["FACE_LABELS", "HistogramBaseline", "find_scenes", "register", "run_bench"]
