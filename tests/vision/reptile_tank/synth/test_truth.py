"""Tests for vision.reptile_tank.synth.truth: the visible-lattice ground truth and the corner error."""

from __future__ import annotations

import numpy as np
import pytest

from vision.geometry import apply_homography, rect_corners
from vision.reptile_tank.grid import reptile_tank_layout
from vision.reptile_tank.synth.truth import (
    corner_error,
    extent_determined,
    lattice_points,
    visible_lattice,
)

# the tests draw Reptile Tank boards: its layout, from the rules data
_LAYOUT = reptile_tank_layout()
ROWS, COLS = _LAYOUT.rows, _LAYOUT.cols
CARD_W_MM, CARD_H_MM = _LAYOUT.cell_w_mm, _LAYOUT.cell_h_mm

BOARD_TO_IMAGE = np.array([[2.1, 0.35, 400.0], [-0.2, 1.6, 250.0], [0.0004, 0.0009, 1.0]])


def _cells(gap: tuple[float, float]) -> np.ndarray:
    rows, cols = np.nonzero(np.ones((ROWS, COLS), bool))
    pts = apply_homography(BOARD_TO_IMAGE, lattice_points(np.asarray(gap), rows, cols))
    return pts.reshape(ROWS, COLS, 4, 2)


def _outer(gap: tuple[float, float]) -> np.ndarray:
    width = COLS * CARD_W_MM + (COLS - 1) * gap[0]
    height = ROWS * CARD_H_MM + (ROWS - 1) * gap[1]
    return apply_homography(BOARD_TO_IMAGE, rect_corners(width, height))


@pytest.mark.parametrize("gap", [(0.0, 0.0), (2.5, 4.0), (6.0, 1.0)])
def test_visible_lattice_recovers_an_exact_lattice(gap):
    occupied = np.ones((ROWS, COLS), bool)
    assert np.allclose(visible_lattice(_cells(gap), occupied), _outer(gap), atol=1e-3)


def test_visible_lattice_uses_only_the_cards_present():
    """Empty cells' (garbage) corners must not move the fit."""
    gap = (3.0, 2.0)
    cells = _cells(gap)
    occupied = np.ones((ROWS, COLS), bool)
    occupied[1, 2] = occupied[3, 0] = False
    cells[1, 2] += 500.0
    cells[3, 0] -= 300.0
    assert np.allclose(visible_lattice(cells, occupied), _outer(gap), atol=1e-3)


def test_visible_lattice_averages_card_jitter():
    """Cards shifted at random: the fit stays much closer to the true lattice than one card."""
    rng = np.random.default_rng(0)
    gap = (2.0, 2.0)
    cells = _cells(gap) + rng.normal(0.0, 2.0, (ROWS, COLS, 1, 2))  # whole-card shifts, px
    error = corner_error(visible_lattice(cells, np.ones((ROWS, COLS), bool)), _outer(gap))
    card_px = np.linalg.norm(_outer(gap)[1] - _outer(gap)[0]) / COLS
    assert error * card_px < 2.0


def test_corner_error_is_in_card_widths_and_ignores_the_half_turn():
    truth = _outer((1.0, 1.0))
    card_px = np.linalg.norm(truth[1] - truth[0]) / COLS
    assert corner_error(truth, truth) == 0.0
    assert corner_error(np.roll(truth, 2, axis=0), truth) == 0.0
    assert corner_error(truth + (0.1 * card_px, 0.0), truth) == pytest.approx(0.1)


def test_extent_is_determined_only_when_cards_reach_all_four_sides():
    occupied = np.ones((ROWS, COLS), bool)
    assert extent_determined(occupied)
    occupied[:, 0] = False
    assert not extent_determined(occupied)
