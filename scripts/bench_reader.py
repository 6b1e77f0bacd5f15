"""Whole-reader benchmark: photo -> board through ``TerrariumReader``, as the app reads it.

For a folder of photos with truth (synthetic ``scene_*.jpg`` + ``scene_*.json`` with
``board.rows``, or ``hard_*.jpg`` + ``hard_*.json`` with ``rows``; a truth of ``"rows": null``
or of only ``empty`` cells is a photo with no terrarium, which must be refused), reports:

- ``found``: reads returned (not refused) over photos with a terrarium;
- ``boards_right``: all 20 labels right (upright board) over photos with a terrarium;
- ``card_error``: wrong cells over cells of found boards;
- ``flagged``: found boards whose grid is in doubt (``BoardRead.grid_doubt``), or that say
  ``needs_check`` where the reader has that flag;
- ``grid_doubt_boards``: found boards whose grid alone is in doubt;
- ``silent_wrong_boards``: found, some cell wrong and not flagged;
- ``no_terrarium_refused``: refusals over photos without a terrarium;
- median / p90 CPU ms per photo (bytes -> board), one thread; the median over the >= 11 MP
  photos (12 MP phone photos) alone.

Run it with another checkout first on ``PYTHONPATH`` to measure an older reader in the same
run (the baseline). Usage::

    python scripts/bench_reader.py --data DIR [--limit N] [--scale S] [--json] [--per-photo]

``--scale`` resizes each photo (area) before reading, as a smaller camera would give it.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.errors import GridNotFoundError  # noqa: E402
from vision.reptile_tank.reader import TerrariumReader  # noqa: E402


def _truth(path: Path) -> list[list[str]] | None:
    data = json.loads(path.read_text())
    rows = data["board"]["rows"] if data.get("board") else data.get("rows")
    if rows is None or all(label == "empty" for row in rows for label in row):
        return None  # no terrarium in the photo
    return rows


def _resized(photo: Path, size: tuple[int, int] | None) -> bytes:
    if size is None:
        return photo.read_bytes()
    from PIL import Image

    image = Image.open(photo).convert("RGB")
    rgb = np.asarray(image)
    w, h = size
    if rgb.shape[0] > rgb.shape[1]:
        w, h = h, w
    small = cv2.resize(rgb, (w, h), interpolation=cv2.INTER_AREA)
    out = io.BytesIO()
    Image.fromarray(small).save(out, format="JPEG", quality=90)
    return out.getvalue()


def _megapixels(payload: bytes) -> float:
    from PIL import Image

    with Image.open(io.BytesIO(payload)) as image:
        return image.width * image.height / 1e6


def run(data: Path, limit: int | None, size: tuple[int, int] | None) -> dict:
    cv2.setNumThreads(1)
    reader = TerrariumReader()
    truths = sorted([*data.glob("scene_*.json"), *data.glob("hard_*.json")])[:limit]
    photos = cells = wrong_cells = found = right = flagged = silent = grid_doubts = 0
    bare = bare_refused = 0
    cpu, cpu_12mp, per_photo, refusals = [], [], [], {}
    for truth_path in truths:
        rows = _truth(truth_path)
        photo = truth_path.with_suffix(".jpg")
        payload = _resized(photo, size)
        megapixels = _megapixels(payload)
        start = time.process_time()
        try:
            read = reader.read(payload)
        except GridNotFoundError as error:
            cpu.append(1000 * (time.process_time() - start))
            if megapixels >= 11.0:
                cpu_12mp.append(cpu[-1])
            reason = str(error).split(":", 1)[-1].strip().split(";")[0][:70]
            if rows is None:
                bare += 1
                bare_refused += 1
            else:
                photos += 1
                refusals[reason] = refusals.get(reason, 0) + 1
            per_photo.append((photo.name, "refused", reason))
            continue
        cpu.append(1000 * (time.process_time() - start))
        if megapixels >= 11.0:
            cpu_12mp.append(cpu[-1])
        if rows is None:
            bare += 1
            per_photo.append((photo.name, "bare table read as a board", ""))
            continue
        photos += 1
        found += 1
        wrong = sum(
            a != b
            for ra, rb in zip(read.rows, rows, strict=True)
            for a, b in zip(ra, rb, strict=True)
        )
        doubt = getattr(read, "grid_doubt", "")
        needs = bool(getattr(read, "needs_check", False)) or bool(doubt)
        cells += 20
        wrong_cells += wrong
        right += wrong == 0
        flagged += needs
        grid_doubts += bool(doubt)
        silent += wrong > 0 and not needs
        per_photo.append((photo.name, f"{wrong} wrong", doubt[:60]))
    pct = lambda a, b: round(100.0 * a / b, 2) if b else None  # noqa: E731
    return {
        "data": str(data),
        "size": None if size is None else f"{size[0]}x{size[1]}",
        "photos": photos,
        "found_pct": pct(found, photos),
        "boards_right_pct": pct(right, photos),
        "card_error_pct": pct(wrong_cells, cells),
        "flagged_boards": flagged,
        "grid_doubt_boards": grid_doubts,
        "silent_wrong_boards": silent,
        "no_terrarium_photos": bare,
        "no_terrarium_refused": bare_refused,
        "refusals": refusals,
        "median_cpu_ms": round(float(np.median(cpu)), 1) if cpu else None,
        "p90_cpu_ms": round(float(np.percentile(cpu, 90)), 1) if cpu else None,
        "photos_12mp": len(cpu_12mp),
        "median_cpu_ms_12mp": round(float(np.median(cpu_12mp)), 1) if cpu_12mp else None,
        "per_photo": per_photo,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--size", default=None, help="WxH: resize each photo first")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--per-photo", action="store_true")
    args = parser.parse_args()
    size = None
    if args.size:
        w, h = (int(v) for v in args.size.lower().split("x"))
        size = (w, h)
    result = run(args.data, args.limit, size)
    if not args.per_photo:
        result.pop("per_photo")
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
