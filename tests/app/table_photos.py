"""Four terrarium photos for a table of four, from the project's own synthetic photos, with
their true boards: two of them have one card blurred (as by a hand's motion or a crease) so
the reader flags exactly that cell, the other two read with no flag."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]

#: (photo, its truth JSON, the cell blurred as (row, col) in the photo's cell list, sigma).
PHOTOS = (
    ("reptile_tank/samples/sample_1.jpg", "reptile_tank/samples/sample_1.json", (1, 2), 16.0),
    ("reptile_tank/samples/sample_2.jpg", "reptile_tank/samples/sample_2.json", (1, 2), 10.0),
    ("datasets/samples/full/scene_00000.jpg", "datasets/samples/full/scene_00000.json", None, 0),
    ("datasets/samples/full/scene_00001.jpg", "datasets/samples/full/scene_00001.json", None, 0),
)


def blur_cell(image: np.ndarray, polygon, sigma: float) -> np.ndarray:
    """``image`` with the card inside ``polygon`` (4 photo points) blurred by ``sigma`` px."""
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.asarray(polygon, np.float32).astype(np.int32), 255)
    blurred = cv2.GaussianBlur(image, (0, 0), sigma)
    keep = (mask > 0)[..., None]
    return np.where(keep, blurred, image)


def table_photos(folder: Path) -> list[tuple[Path, list[list[str]]]]:
    """Write the four photos into ``folder``; return ``(path, true rows)`` in seat order."""
    out = []
    for i, (photo, truth_path, cell, sigma) in enumerate(PHOTOS):
        truth = json.loads((ROOT / truth_path).read_text())
        path = Path(folder) / f"terrarium_{i + 1}.jpg"
        if cell is None:
            path.write_bytes((ROOT / photo).read_bytes())
        else:
            image = cv2.imread(str(ROOT / photo))
            image = blur_cell(image, truth["cells"][cell[0]][cell[1]], sigma)
            ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 88])
            assert ok
            path.write_bytes(data.tobytes())
        out.append((path, truth["board"]["rows"]))
    return out
