"""vision.reptile_tank.grid.find_completed_candidates: a board corner pulled off by a hand
touching the board is found again from the other three corners and the board's own sides."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.reptile_tank.test_grid import corner_error, render_scene
from vision.reptile_tank.grid import find_completed_candidates, fit_from_corners


def _with_hand(image: np.ndarray, corners: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The photo with a hand's blob over the board's corner ``k`` reaching out of it (a thumb
    on the corner card, the hand beyond), and the blob's far tip."""
    out = image.copy()
    centre = corners.mean(axis=0)
    outward = corners[k] - centre
    outward /= np.linalg.norm(outward)
    card = float(np.linalg.norm(corners[1] - corners[0])) / 5
    tip = corners[k] + 1.4 * card * outward
    middle = corners[k] + 0.5 * card * outward
    angle = float(np.degrees(np.arctan2(outward[1], outward[0])))
    axes = (int(1.1 * card), int(0.35 * card))
    centre_px = (int(middle[0]), int(middle[1]))
    cv2.ellipse(out, centre_px, axes, angle, 0, 360, (196, 140, 112), -1)
    return out, tip


@pytest.mark.parametrize(
    ("seed", "rotation", "tilt", "k"), [(3, 38.0, 10.0, 0), (5, -20.0, 30.0, 2), (8, 62.0, 20.0, 1)]
)
def test_a_corner_pulled_onto_a_hand_is_found_again_from_the_other_three(seed, rotation, tilt, k):
    image, truth = render_scene(seed, gap_mm=0.0, rotation_deg=rotation, tilt_deg=tilt, fill=0.35)
    photo, tip = _with_hand(image, truth, k)
    pulled = truth.copy()
    pulled[k] = tip  # the blob's quad took the hand in: its corner sits at the hand's far end
    fit = fit_from_corners(photo.shape, pulled, image_rgb=photo)
    assert corner_error(fit, truth) > 0.8  # the hypothesis the reader had
    completed = find_completed_candidates(photo, [fit])
    assert len(completed) == 4  # one per corner taken as the pulled one
    assert min(corner_error(candidate, truth) for candidate in completed) < 0.15


def test_only_the_first_fits_are_completed():
    image, truth = render_scene(3, gap_mm=0.0, rotation_deg=10.0, tilt_deg=5.0, fill=0.35)
    fit = fit_from_corners(image.shape, truth, image_rgb=image)
    assert len(find_completed_candidates(image, [fit] * 5)) == 8
    assert find_completed_candidates(image, []) == []
