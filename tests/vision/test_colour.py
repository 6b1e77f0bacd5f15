"""vision.colour: the light of one photo taken out of the cards cut from it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.colour import MAX_GAIN, balance_cards, white_gains
from vision.reptile_tank.synth.deck import stand_in_deck


@pytest.fixture(scope="module")
def faces() -> list[np.ndarray]:
    deck = stand_in_deck(px_per_mm=2.0)
    return [deck[label] for label in sorted(deck)[:8]]


def _lab_error(a: list[np.ndarray], b: list[np.ndarray]) -> float:
    lab = [cv2.cvtColor(x, cv2.COLOR_RGB2LAB).astype(np.float32) for x in (*a, *b)]
    n = len(a)
    return float(np.mean([np.abs(lab[k] - lab[n + k]).mean() for k in range(n)]))


def _lit(face: np.ndarray, cast, exposure: float) -> np.ndarray:
    return np.clip(face.astype(np.float32) * np.asarray(cast) * exposure, 0, 255).astype(np.uint8)


def test_a_warm_dim_light_is_taken_out(faces):
    photo = [_lit(f, (1.0, 0.85, 0.65), 0.75) for f in faces]
    balanced = balance_cards(photo)
    assert [b.shape for b in balanced] == [f.shape for f in faces]
    assert all(b.dtype == np.uint8 for b in balanced)
    assert _lab_error(balanced, faces) < 0.5 * _lab_error(photo, faces)


def test_one_card_in_shadow_gets_its_own_exposure(faces):
    photo = [_lit(f, (1, 1, 1), 0.45 if k == 0 else 1.0) for k, f in enumerate(faces)]
    balanced = balance_cards(photo)
    assert _lab_error(balanced[:1], faces[:1]) < 0.5 * _lab_error(photo[:1], faces[:1])


def test_the_gain_of_a_dark_card_is_bounded():
    dark = np.full((40, 30, 3), 20, np.uint8)
    light = np.full((40, 30, 3), 200, np.uint8)
    out = balance_cards([dark, light])
    assert out[0].max() <= int(20 * white_gains([dark, light])[0] * MAX_GAIN) + 1


def test_too_few_unclipped_pixels_leave_the_colours_alone():
    blown = np.full((20, 20, 3), 255, np.uint8)
    assert np.allclose(white_gains([blown]), 1.0)
    assert np.allclose(white_gains([]), 1.0)
