"""Render docs/synth_contact_sheet.png: twelve scenes (seeds 100-111), as they are saved.

Scenes 3, 7 and 11 are mid-game (partial 0.3); scenes 5 and 11 use a random deck.
Usage: python datasets/make_contact_sheet.py [OUT.png]
"""

from __future__ import annotations

import sys

import cv2
import numpy as np

from vision.reptile_tank.synth.dataset import contact_sheet
from vision.reptile_tank.synth.deck import random_deck, stand_in_deck
from vision.reptile_tank.synth.scene import encode_jpeg, render_scene


def main(out: str = "docs/synth_contact_sheet.png") -> None:
    deck = stand_in_deck()
    images = []
    for i in range(12):
        seed = 100 + i
        scene_deck = deck if i % 6 != 5 else random_deck(np.random.default_rng(seed), px_per_mm=5)
        image, truth = render_scene(
            seed, scene_deck, max_size=(1600, 1200), partial=0.3 if i % 4 == 3 else 0.0
        )
        jpeg = encode_jpeg(image, truth["params"]["jpeg_quality"])
        bgr = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        images.append(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
    sheet = contact_sheet(images, cols=4, cell=(400, 300))
    if not cv2.imwrite(out, cv2.cvtColor(sheet, cv2.COLOR_RGB2BGR)):
        raise OSError(f"could not write {out}")
    print(f"wrote {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
