"""Reader benchmark on real-table sets (``reptile-tank synth --real-table``), cell by cell.

For every ``scene_*.jpg`` + truth: bytes -> ``TerrariumReader.read`` (one thread) as the app
reads it, and per photo: found (not refused), fully right (20 labels, upright), wrong cells;
each wrong cell is *flagged* when its cell is ``check``-ed or the read says ``needs_check``
(grid doubt included), *silent* otherwise; right cells flagged are those with ``check``. Cells a
thumb covers (truth ``covered_cells``, share >= 0.15) are counted apart: flagged by their cell,
or only by the read. CPU ms per photo (bytes -> board). Runs with whichever reader is first on
``sys.path``: put another checkout first on ``PYTHONPATH`` to measure it in the same run::

    python scripts/bench_real_table.py --data DIR [--json OUT] [--own-outlines]
    PYTHONPATH=/path/to/main python scripts/bench_real_table.py --data DIR
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

import vision  # noqa: E402
from vision.errors import GridNotFoundError  # noqa: E402
from vision.reptile_tank.reader import TerrariumReader  # noqa: E402

COVERED = 0.15


def run(data: Path, own_outlines: bool = False) -> dict:
    cv2.setNumThreads(1)
    reader = TerrariumReader()
    reader.own_outlines = own_outlines
    truths = sorted(data.glob("scene_*.json"))
    stats = dict.fromkeys(
        ["photos", "found", "fully_right", "cells", "wrong", "wrong_cell_flagged",
         "wrong_read_flagged_only", "silent_wrong", "right", "right_flagged", "reads_to_check",
         "grid_doubt_reads", "covered", "covered_cell_flagged", "covered_read_flagged_only",
         "covered_unflagged", "covered_wrong"],
        0,
    )  # fmt: skip
    cpu, per_photo = [], []
    reader.read((data / json.loads(truths[0].read_text())["image"]).read_bytes())  # warm-up
    for path in truths:
        truth = json.loads(path.read_text())
        rows = truth["board"]["rows"]
        stats["photos"] += 1
        payload = (data / truth["image"]).read_bytes()
        try:
            read = reader.read(payload)
        except GridNotFoundError:
            per_photo.append({"scene": path.stem, "found": False})
            continue
        cpu.append(read.cpu_ms["total"])
        stats["found"] += 1
        needs = bool(read.needs_check)
        stats["reads_to_check"] += needs
        stats["grid_doubt_reads"] += bool(read.grid_doubt)
        check = np.asarray(read.check, bool)
        wrong = [(r, c) for r in range(4) for c in range(5) if read.rows[r][c] != rows[r][c]]
        stats["fully_right"] += not wrong
        stats["cells"] += 20
        stats["wrong"] += len(wrong)
        for r, c in wrong:
            if check[r, c]:
                stats["wrong_cell_flagged"] += 1
            elif needs:
                stats["wrong_read_flagged_only"] += 1
            else:
                stats["silent_wrong"] += 1
        right = [(r, c) for r in range(4) for c in range(5) if (r, c) not in wrong]
        stats["right"] += len(right)
        stats["right_flagged"] += sum(bool(check[r, c]) for r, c in right)
        for r, c, share in truth.get("covered_cells", []):
            if share < COVERED:
                continue
            stats["covered"] += 1
            stats["covered_wrong"] += (r, c) in wrong
            if check[r, c]:
                stats["covered_cell_flagged"] += 1
            elif needs:
                stats["covered_read_flagged_only"] += 1
            else:
                stats["covered_unflagged"] += 1
        per_photo.append(
            {"scene": path.stem, "found": True, "wrong": len(wrong), "needs_check": needs,
             "grid_doubt": read.grid_doubt, "cpu_ms": round(read.cpu_ms["total"], 1)}
        )  # fmt: skip
    found = max(stats["found"], 1)
    summary = {
        "reader": str(Path(vision.__file__).resolve().parents[1]),
        "data": str(data),
        "own_outlines": own_outlines,
        **stats,
        "found_rate": stats["found"] / max(stats["photos"], 1),
        "fully_right_rate": stats["fully_right"] / max(stats["photos"], 1),
        "card_error": stats["wrong"] / max(stats["cells"], 1),
        "silent_wrong_rate": stats["silent_wrong"] / max(stats["cells"], 1),
        "right_flagged_rate": stats["right_flagged"] / max(stats["right"], 1),
        "reads_to_check_rate": stats["reads_to_check"] / found,
        "cpu_ms_median": float(np.median(cpu)) if cpu else None,
        "cpu_ms_p90": float(np.percentile(cpu, 90)) if cpu else None,
        "per_photo": per_photo,
    }
    return summary


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--json", type=Path, default=None, help="write the summary here")
    parser.add_argument(
        "--own-outlines",
        action="store_true",
        help="also cut cards off their cell along their own outline (TerrariumReader."
        "own_outlines, on as shipped only for an enrolled deck), to compare",
    )
    args = parser.parse_args()
    summary = run(args.data, own_outlines=args.own_outlines)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps({k: v for k, v in summary.items() if k != "per_photo"}, indent=1))


if __name__ == "__main__":
    main()
