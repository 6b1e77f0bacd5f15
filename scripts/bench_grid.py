"""Grid-finding benchmark on a synthetic data set (scene_*.jpg + scene_*.json ground truth).

Reports, beside a largest-contour baseline measured in the same run: grid found %, corner
error as % of a card's width (modulo the 180-degree turn), empty/occupied accuracy, and the
median time from JPEG bytes to 20 crops on one core. Missed scenes are drawn with the attempted
fit into ``--gallery``.

Corner truth is the *visible lattice* (:func:`vision.reptile_tank.synth.truth.visible_lattice`): the 4x5
lattice model that ``find_grid`` fits, least-squares fitted to the true corners of the cards
actually lying in the photo; the error against the generator's nominal, un-jittered
``grid_corners`` is reported beside it (``nominal_error_*``), since it cannot fall below the
cards' position jitter.

Usage: ``python scripts/bench_grid.py --data DIR [--gallery OUT] [--limit N] [--json]``
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.errors import GridNotFoundError  # noqa: E402
from vision.loading import load_image  # noqa: E402
from vision.reptile_tank.grid import draw_overlay, find_grid, rectify_cells  # noqa: E402
from vision.reptile_tank.grid_baseline import largest_contour_fit as baseline  # noqa: E402
from vision.reptile_tank.synth.truth import corner_error, extent_determined, visible_lattice  # noqa: E402


def _mean_distance(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b, axis=1).mean())


def run(data: Path, gallery: Path | None, limit: int | None, *, with_baseline: bool = True) -> dict:
    cv2.setNumThreads(1)
    truths = sorted(data.glob("scene_*.json"))[:limit]
    stats = {
        name: {
            "found": 0,
            "determined": 0,
            "determined_found": 0,
            "errors": [],
            "nominal_errors": [],
            "cells": 0,
            "cells_ok": 0,
            "mid_cells": 0,
            "mid_cells_ok": 0,
            "times": [],
            "cpu_times": [],
            "scenes": [],
        }
        for name in ("find_grid", "baseline")
    }
    visible = {}
    for path in truths:
        truth = json.loads(path.read_text())
        visible[path] = visible_lattice(
            np.asarray(truth["cells"], float), np.asarray(truth["occupied"], bool)
        )
        data_bytes = path.with_suffix(".jpg").read_bytes()
        finders = [("find_grid", find_grid)] + ([("baseline", baseline)] if with_baseline else [])
        for name, finder in finders:
            start = time.perf_counter()
            cpu_start = time.process_time()
            loaded = load_image(data_bytes)
            try:
                fit = finder(loaded.rgb)
                rectify_cells(loaded.rgb, fit)
            except GridNotFoundError as error:
                fit, missed = error.attempted_fit, str(error)
            else:
                missed = ""
            stats[name]["times"].append(time.perf_counter() - start)
            stats[name]["cpu_times"].append(time.process_time() - cpu_start)
            occ = np.asarray(truth["occupied"], bool)
            nominal = np.asarray(truth["grid_corners"], float) * loaded.scale
            gt = visible[path] * loaded.scale
            err = corner_error(fit.corners, gt) if fit is not None and not missed else math.inf
            scene = {"scene": path.stem, "error_pct": round(100 * err, 2), "missed": missed}
            stats[name]["scenes"].append(scene)
            if extent_determined(occ):
                stats[name]["determined"] += 1
                stats[name]["determined_found"] += int(not missed and err < 0.25)
            if not missed and err < 0.25:
                stats[name]["found"] += 1
                stats[name]["errors"].append(err)
                stats[name]["nominal_errors"].append(corner_error(fit.corners, nominal))
                turned = fit.rotated_180()
                upright = (
                    fit
                    if _mean_distance(fit.corners, gt) <= _mean_distance(turned.corners, gt)
                    else turned
                )
                stats[name]["cells"] += occ.size
                stats[name]["cells_ok"] += int((upright.occupied == occ).sum())
                scene["cells_wrong"] = int((upright.occupied != occ).sum())
                if not occ.all():
                    stats[name]["mid_cells"] += occ.size
                    stats[name]["mid_cells_ok"] += int((upright.occupied == occ).sum())
            elif gallery is not None and name == "find_grid":
                gallery.mkdir(parents=True, exist_ok=True)
                shown = draw_overlay(loaded.rgb, fit) if fit is not None else loaded.rgb.copy()
                for p in gt:
                    cv2.circle(shown, (int(p[0]), int(p[1])), 8, (255, 0, 255), -1)
                note = missed or f"corner error {err:.0%} of a card width"
                cv2.putText(
                    shown, note[:90], (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 0, 0), 2
                )
                out = gallery / f"{path.stem}.png"
                cv2.imwrite(str(out), cv2.cvtColor(shown, cv2.COLOR_RGB2BGR))
    report = {"scenes": len(truths), "load_average": os.getloadavg()}
    for name, s in stats.items():
        if not s["times"]:
            continue
        n = max(1, len(truths))
        report[name] = {
            "found_pct": 100.0 * s["found"] / n,
            "determined_scenes": s["determined"],
            "found_determined_pct": 100.0 * s["determined_found"] / s["determined"]
            if s["determined"]
            else None,
            "corner_error_mean_pct": 100.0 * float(np.mean(s["errors"])) if s["errors"] else None,
            "corner_error_median_pct": 100.0 * float(np.median(s["errors"]))
            if s["errors"]
            else None,
            "nominal_error_mean_pct": 100.0 * float(np.mean(s["nominal_errors"]))
            if s["nominal_errors"]
            else None,
            "nominal_error_median_pct": 100.0 * float(np.median(s["nominal_errors"]))
            if s["nominal_errors"]
            else None,
            "within_1_5_pct": 100.0 * sum(e <= 0.015 for e in s["errors"]) / n,
            "within_5_pct": 100.0 * sum(e <= 0.05 for e in s["errors"]) / n,
            "occupancy_pct": 100.0 * s["cells_ok"] / s["cells"] if s["cells"] else None,
            "occupancy_mid_game_pct": 100.0 * s["mid_cells_ok"] / s["mid_cells"]
            if s["mid_cells"]
            else None,
            "median_ms": 1000.0 * float(np.median(s["times"])) if s["times"] else None,
            "median_cpu_ms": 1000.0 * float(np.median(s["cpu_times"])) if s["cpu_times"] else None,
            "per_scene": s["scenes"],
        }
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--gallery", type=Path, default=None)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-baseline", action="store_true", help="time find_grid only")
    parser.add_argument("--per-scene", action="store_true", help="list every scene's error")
    args = parser.parse_args()
    report = run(args.data, args.gallery, args.limit, with_baseline=not args.no_baseline)
    if not args.per_scene:
        for name in ("find_grid", "baseline"):
            report.get(name, {}).pop("per_scene", None)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"scenes: {report['scenes']}")
        for name in ("find_grid", "baseline"):
            if name in report:
                print(name, json.dumps(report[name]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
