"""Re-create the bundled sample photos: ``python -m vision.reptile_tank.synth.samples``.

They are written to ``reptile_tank/samples/`` (shipped with the CLI package, read by the app).
Three synthetic phone photos of stand-in terrariums (:func:`.scene.render_scene`), each a
JPEG under 1 MB with its ground truth beside it: ``sample_1`` seen from the owner's side,
``sample_2`` from the opposite side (the board appears upside down), ``sample_3`` mid-game with
empty cells. They are the app's bundled sample and the tests' fixtures.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vision.reptile_tank.synth.deck import stand_in_deck
from vision.reptile_tank.synth.scene import encode_jpeg, render_scene

#: Where the bundled samples live (package data of the CLI, ``reptile_tank/samples/``).
SAMPLES_DIR = Path(__file__).resolve().parents[3] / "reptile_tank" / "samples"
#: (name, seed, partial, wanted board rotation range in degrees)
SAMPLES = (
    ("sample_1", 101, 0.0, (345.0, 375.0)),
    ("sample_2", 202, 0.0, (160.0, 200.0)),
    ("sample_3", 303, 0.3, (20.0, 70.0)),
)


def main(folder: Path = SAMPLES_DIR) -> None:
    deck = stand_in_deck(px_per_mm=8.0)
    for name, seed, partial, (lo, hi) in SAMPLES:
        for attempt in range(200):
            rng = np.random.default_rng([seed, attempt])
            image, truth = render_scene(
                rng, deck, partial=partial, max_size=(1600, 1200), fill=(0.6, 0.9)
            )
            rotation = truth["rotation_deg"]
            if lo <= rotation <= hi or lo <= rotation + 360 <= hi:
                break
        truth["image"] = f"{name}.jpg"
        truth["params"]["sample_seed"] = [seed, attempt]
        (folder / f"{name}.jpg").write_bytes(encode_jpeg(image, 88))
        (folder / f"{name}.json").write_text(json.dumps(truth, indent=1) + "\n")
        print(name, attempt, rotation, truth["board"]["rows"])


if __name__ == "__main__":
    main()
