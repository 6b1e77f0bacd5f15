"""Enrolling a Nimalia deck from photos of its cards, not only from tight scans (issue 15)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scoring.nimalia.cards import cards
from vision.nimalia.deck import VARIANT, render_card
from vision.nimalia.reader import NimaliaPackError, card_face, gallery_crops
from vision.nimalia.scene import one_card_photo, square_corners


@pytest.fixture(scope="module")
def face():
    return render_card(17, style=VARIANT, px_per_mm=3.0)


def mean_error(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a.astype(np.float32) - b.astype(np.float32)).mean())


def test_a_square_image_is_taken_as_the_card(face):
    assert np.array_equal(
        card_face(face), cv2.resize(face, (256, 256), interpolation=cv2.INTER_AREA)
    )
    # within a tenth of square (a scan cut a little loose on one side) it is still the card
    loose = cv2.resize(face, (face.shape[1], int(face.shape[0] * 1.08)))
    assert card_face(loose).shape == (256, 256, 3)


@pytest.mark.parametrize(
    "background, corners",
    [
        # a scanner's white bed, the card put down 2 degrees askew
        (np.full((900, 1200, 3), 246, np.uint8), square_corners((600, 450), 700, 2.0)),
        # a dark cloth, the card photographed from the seat: far edge 15 % shorter, turned 8 deg
        (
            np.full((900, 1200, 3), (40, 52, 70), np.uint8),
            square_corners((630, 470), 620, -8, 0.15),
        ),
    ],
)
def test_a_photo_of_one_card_is_cut_to_the_card(face, background, corners):
    photo = one_card_photo(face, background, corners)
    cut = card_face(photo)
    truth = cv2.resize(face, (256, 256), interpolation=cv2.INTER_AREA)
    stretched = cv2.resize(photo, (256, 256), interpolation=cv2.INTER_AREA)
    assert cut is not None and cut.shape == truth.shape
    # the card cut out matches the card far better than the photo squeezed square would
    assert mean_error(cut, truth) < 0.25 * mean_error(stretched, truth)
    assert mean_error(cut, truth) < 20  # a few pixels off at the rounded corners


def test_a_photo_with_no_card_in_it_is_refused_naming_the_cards(face):
    images = {cid: render_card(cid, style=VARIANT, px_per_mm=1.5) for cid in cards()}
    noise = np.random.default_rng(4).integers(0, 256, (600, 900, 3), dtype=np.uint8)
    images[5] = images[41] = cv2.GaussianBlur(noise, (0, 0), 6)
    with pytest.raises(NimaliaPackError) as err:
        gallery_crops(images, views=1, empties=2)
    msg = str(err.value)
    assert "[5, 41]" in msg and "crop each image to its card" in msg and "\n" not in msg
