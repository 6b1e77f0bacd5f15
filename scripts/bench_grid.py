"""Grid-finding benchmark on a synthetic data set (scene_*.jpg + scene_*.json ground truth).

Reports, beside a largest-contour baseline measured in the same run: grid found %, corner
error as % of a card's width (modulo the 180-degree turn), empty/occupied accuracy, and the
median time from JPEG bytes to 20 crops on one core. Missed scenes are drawn with the attempted
fit into ``--gallery``.

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
from vision.geometry import order_quad_clockwise  # noqa: E402
from vision.grid import COLS, draw_overlay, find_grid, fit_from_corners, rectify_cells  # noqa: E402
from vision.loading import load_image  # noqa: E402


def corner_error(corners: np.ndarray, truth: np.ndarray) -> float:
    """Mean corner distance / card width, best of the two 180-degree orderings."""
    card_px = np.linalg.norm(truth[1] - truth[0]) / COLS
    errors = [
        float(np.linalg.norm(np.roll(corners, k, axis=0) - truth, axis=1).mean()) for k in (0, 2)
    ]
    return min(errors) / card_px


def _mean_distance(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b, axis=1).mean())


def baseline(image_rgb: np.ndarray):
    """Largest external contour -> minimum-area quad -> lattice from the corners."""
    gray = cv2.cvtColor(image_rgb, cv2.COLOR_RGB2GRAY)
    _, mask = cv2.threshold(cv2.GaussianBlur(gray, (5, 5), 0), 0, 255, cv2.THRESH_OTSU)
    best = None
    for m in (mask, 255 - mask):
        contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if contours:
            c = max(contours, key=cv2.contourArea)
            if best is None or cv2.contourArea(c) > cv2.contourArea(best):
                best = c
    if best is None:
        raise GridNotFoundError("no contour")
    hull = cv2.convexHull(best)
    approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
    quad = approx.reshape(-1, 2) if len(approx) == 4 else cv2.boxPoints(cv2.minAreaRect(best))
    return fit_from_corners(image_rgb.shape, order_quad_clockwise(quad))


def run(data: Path, gallery: Path | None, limit: int | None) -> dict:
    cv2.setNumThreads(1)
    truths = sorted(data.glob("scene_*.json"))[:limit]
    stats = {
        name: {
            "found": 0,
            "errors": [],
            "cells": 0,
            "cells_ok": 0,
            "mid_cells": 0,
            "mid_cells_ok": 0,
            "times": [],
            "cpu_times": [],
        }
        for name in ("find_grid", "baseline")
    }
    for path in truths:
        truth = json.loads(path.read_text())
        data_bytes = path.with_suffix(".jpg").read_bytes()
        for name, finder in (("find_grid", find_grid), ("baseline", baseline)):
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
            gt = np.asarray(truth["grid_corners"], float) * loaded.scale
            err = corner_error(fit.corners, gt) if fit is not None and not missed else math.inf
            if not missed and err < 0.25:
                stats[name]["found"] += 1
                stats[name]["errors"].append(err)
                occ = np.asarray(truth["occupied"], bool)
                turned = fit.rotated_180()
                upright = (
                    fit
                    if _mean_distance(fit.corners, gt) <= _mean_distance(turned.corners, gt)
                    else turned
                )
                stats[name]["cells"] += occ.size
                stats[name]["cells_ok"] += int((upright.occupied == occ).sum())
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
        n = max(1, len(truths))
        report[name] = {
            "found_pct": 100.0 * s["found"] / n,
            "corner_error_mean_pct": 100.0 * float(np.mean(s["errors"])) if s["errors"] else None,
            "corner_error_median_pct": 100.0 * float(np.median(s["errors"]))
            if s["errors"]
            else None,
            "within_1_5_pct": 100.0 * sum(e <= 0.015 for e in s["errors"]) / n,
            "within_5_pct": 100.0 * sum(e <= 0.05 for e in s["errors"]) / n,
            "occupancy_pct": 100.0 * s["cells_ok"] / s["cells"] if s["cells"] else None,
            "occupancy_mid_game_pct": 100.0 * s["mid_cells_ok"] / s["mid_cells"]
            if s["mid_cells"]
            else None,
            "median_ms": 1000.0 * float(np.median(s["times"])) if s["times"] else None,
            "median_cpu_ms": 1000.0 * float(np.median(s["cpu_times"])) if s["cpu_times"] else None,
        }
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--gallery", type=Path, default=None)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = run(args.data, args.gallery, args.limit)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"scenes: {report['scenes']}")
        for name in ("find_grid", "baseline"):
            print(name, json.dumps(report[name]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
