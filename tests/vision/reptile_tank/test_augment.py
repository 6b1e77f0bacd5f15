"""The game-night light and hand-laid cards of the crop augmentation (issue 28 item 3)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reptile_tank import augment
from vision.reptile_tank.augment import card_view, empty_view

SIZE = (48, 64)


@pytest.fixture(scope="module")
def face() -> np.ndarray:
    """A portrait face: dark frame, mid-grey picture, a black bar (something to haze and shade)."""
    image = np.full((176, 126, 3), 40, np.uint8)
    image[20:150, 12:114] = 128
    image[90:100, 20:106] = 0
    return image


def test_no_table_light_and_no_hand_is_the_plain_profile(face):
    """The new options default off and then draw nothing: galleries built before are unchanged."""
    plain = card_view(face, np.random.default_rng(5), out_size=SIZE, strong=True)
    off = card_view(face, np.random.default_rng(5), out_size=SIZE, strong=True, table=0, hand=0)
    assert np.array_equal(plain, off)
    plain_empty = empty_view(np.random.default_rng(6), out_size=SIZE)
    assert np.array_equal(plain_empty, empty_view(np.random.default_rng(6), out_size=SIZE, table=0))


def test_table_light_is_seeded_and_keeps_the_crop_contract(face):
    for seed in range(20):
        a = card_view(face, np.random.default_rng(seed), out_size=SIZE, table=1.0, hand=1.0)
        b = card_view(face, np.random.default_rng(seed), out_size=SIZE, table=1.0, hand=1.0)
        assert a.shape == (64, 48, 3) and a.dtype == np.uint8
        assert np.array_equal(a, b)
        e = empty_view(np.random.default_rng(seed), out_size=SIZE, table=1.0)
        assert e.shape == (64, 48, 3) and e.dtype == np.uint8


def test_sleeve_haze_lifts_the_dark_parts_of_a_card():
    """Over many draws the haze lifts black toward white; on empty cells there is no haze."""
    black = np.zeros((64, 48, 3), np.uint8)

    def lit(seed: int, card: bool) -> np.ndarray:
        return augment._table_light(np.random.default_rng(seed), black, card=card)[0]

    lifted = [lit(s, True) for s in range(60)]
    table = [lit(s, False) for s in range(60)]
    # the haze reaches every pixel of about half the cards; streaks and curls only some pixels
    hazed = sum(int(crop.min() > 0) for crop in lifted)
    assert 15 <= hazed <= 45
    assert all(crop.min() == 0 for crop in table)


def test_a_forearm_shadow_darkens_but_never_brightens_a_table():
    grey = np.full((64, 48, 3), 200, np.uint8)
    darker = 0
    for s in range(80):
        out = augment._table_light(np.random.default_rng(s), grey, card=False)[0].astype(int)
        # a streak may brighten; where nothing brightened, nothing is lighter than it was
        if out.max() <= 200:
            darker += int(out.min() < 150)
    assert darker >= 10


def test_hand_laid_turns_and_shifts_within_a_few_per_cent():
    box = (100, 100, 163, 188)
    x0, y0, x1, y1 = box
    quad = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    for s in range(50):
        out = augment._hand_laid(np.random.default_rng(s), quad, box)
        top = out[1] - out[0]
        angle = np.degrees(np.arctan2(top[1], top[0]))
        assert abs(angle) <= 6.0 + 1e-4
        shift = out.mean(axis=0) - quad.mean(axis=0)
        assert abs(shift[0]) <= 0.05 * 63 + 1e-3 and abs(shift[1]) <= 0.05 * 88 + 1e-3
        # a rigid motion: the card keeps its size
        assert np.linalg.norm(top) == pytest.approx(63.0, rel=1e-4)
