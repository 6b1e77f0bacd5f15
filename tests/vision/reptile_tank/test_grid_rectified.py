"""Tests for vision.reptile_tank.grid.rectified: the table's plane, top-down views, candidates mapped back."""

from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

from tests.vision.reptile_tank.test_grid import corner_error, render_scene
from vision.geometry import apply_homography
from vision.reptile_tank.grid import find_grid_candidates, find_rectified_candidates
from vision.reptile_tank.grid.model import focal_prior
from vision.reptile_tank.grid.rectified import (
    distinct_normals,
    level_normal,
    plane_normal,
    quads_normal,
    rectifying_homography,
    tilt_deg,
    top_down_view,
    warped,
)

SHAPE = (900, 1200, 3)


def _camera_homography(tilt: float, roll: float = 0.0, shape=SHAPE) -> np.ndarray:
    """``plane mm -> image px`` of the focal prior's camera looking at the table ``tilt``
    degrees from above (``roll``: the camera turned about its axis)."""
    h, w = shape[:2]
    f = focal_prior(shape)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    t = -math.radians(tilt)  # the far side of the table up in the image
    rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    r = math.radians(roll)
    rz = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
    rotation = rz @ rx
    # plane point (x, y, 0) -> camera: rotation @ (x, y, 0) + (0, 0, 900 mm)
    m = np.c_[rotation[:, 0], rotation[:, 1], [0.0, 0.0, 900.0]]
    return k @ m


@pytest.mark.parametrize(("tilt", "roll"), [(0.0, 0.0), (40.0, 0.0), (62.0, 0.0), (55.0, 20.0)])
def test_plane_normal_recovers_the_camera_tilt(tilt, roll):
    to_image = _camera_homography(tilt, roll)
    normal = plane_normal(np.linalg.inv(to_image), SHAPE)
    assert normal is not None and normal[2] > 0
    assert tilt_deg(normal) == pytest.approx(tilt, abs=0.01)
    # any in-plane stretch (a lattice of square checks fitted as cards) keeps the horizon
    stretch = np.diag([63 / 88, 1.3, 1.0])
    other = plane_normal(stretch @ np.linalg.inv(to_image), SHAPE)
    assert float(other @ normal) == pytest.approx(1.0, abs=1e-9)


def test_rectifying_homography_shows_the_table_head_on():
    to_image = _camera_homography(60.0, 10.0)
    normal = plane_normal(np.linalg.inv(to_image), SHAPE)
    to_view = rectifying_homography(normal, SHAPE)
    rect = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], float) + (40, -120)
    seen = apply_homography(to_view @ to_image, rect)
    sides = np.roll(seen, -1, axis=0) - seen
    lengths = np.linalg.norm(sides, axis=1)
    # a similarity of the plane: right angles and the card's 63 x 88 aspect
    for i in range(4):
        a, b = sides[i], sides[(i + 1) % 4]
        assert abs(float(a @ b)) / (np.linalg.norm(a) * np.linalg.norm(b)) < 1e-6
    assert lengths[1] / lengths[0] == pytest.approx(88 / 63, rel=1e-6)


def test_level_normal_is_a_level_camera():
    normal = level_normal(60.0)
    assert tilt_deg(normal) == pytest.approx(60.0)
    expected = plane_normal(np.linalg.inv(_camera_homography(60.0)), SHAPE)
    assert float(normal @ expected) == pytest.approx(1.0, abs=1e-9)


def test_quads_normal_takes_what_most_quads_agree_on():
    rng = np.random.default_rng(3)
    to_image = _camera_homography(58.0, 5.0)
    truth = plane_normal(np.linalg.inv(to_image), SHAPE)
    card = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], float)
    quads = []
    for k in range(8):  # cards on the table, corners found to a quarter of a pixel
        quad = apply_homography(to_image, card + (70.0 * (k - 4), 20.0 * (k % 3)))
        quads.append(quad + rng.normal(0, 0.25, quad.shape))
    for _ in range(3):  # outlines that are no rectangle on the table
        quads.append(rng.uniform(200, 700, (4, 2)))
    normal = quads_normal(quads, SHAPE)
    assert normal is not None
    # one small quad's plane is noisy (a few degrees per quarter pixel); a view tolerates ~10
    assert math.degrees(math.acos(min(1.0, float(normal @ truth)))) < 8.0
    assert quads_normal(quads[:2], SHAPE) is None


def test_distinct_normals_skips_flat_and_repeated_views():
    box = (np.array([0.0, 0.0]), np.array([100.0, 100.0]))
    other_box = (np.array([500.0, 500.0]), np.array([600.0, 600.0]))
    normals = [level_normal(10.0), level_normal(50.0), level_normal(52.0), level_normal(52.0)]
    regions = [box, box, box, other_box]
    assert distinct_normals(normals, regions) == [1, 3]
    assert distinct_normals([None, level_normal(60.0)], [box, box]) == [1]
    assert distinct_normals([level_normal(45.0), level_normal(60.0)], [box, box], limit=1) == [0]


def test_a_fit_found_in_a_view_maps_back_to_the_photo():
    image, truth = render_scene(11, tilt_deg=58.0, fill=0.5, rotation_deg=5.0)
    fits = find_grid_candidates(image)
    assert corner_error(fits[0], truth) < 0.3
    normal = plane_normal(fits[0].homography, image.shape)
    made = top_down_view(image, normal, (truth.min(axis=0), truth.max(axis=0)))
    assert made is not None
    view, to_view = made
    assert max(view.shape[:2]) <= 1001
    moved = warped(warped(fits[0], np.linalg.inv(to_view)), to_view)
    assert np.allclose(moved.corners, fits[0].corners, atol=1e-6)
    # the grid lies inside the view
    seen = apply_homography(to_view, truth)
    assert np.all(seen >= -1) and np.all(seen <= (view.shape[1] + 1, view.shape[0] + 1))


def test_rectified_candidates_find_a_strongly_tilted_grid():
    image, truth = render_scene(12, tilt_deg=62.0, fill=0.45, rotation_deg=3.0, busy=True)
    memo: dict = {}
    first = find_grid_candidates(image, memo=memo)
    views = list(find_rectified_candidates(image, first, memo=memo))
    assert 1 <= len(views) <= 3
    found = [fit for view in views for fit in view]
    assert found, "no view gave a candidate"
    assert min(corner_error(fit, truth) for fit in found) < 0.3
    for fit in found:
        # every candidate is in the photo's pixels: its homography maps its corners to the board
        board = apply_homography(fit.homography, fit.corners)
        width, height = fit.board_size_mm
        assert np.allclose(board, [[0, 0], [width, 0], [width, height], [0, height]], atol=1e-3)


def test_a_flat_photo_needs_no_view():
    image, _ = render_scene(13, tilt_deg=10.0, fill=0.6)
    memo: dict = {}
    first = find_grid_candidates(image, memo=memo)
    # a level camera's views are the only ones left: the photo's own planes are too flat
    views = list(find_rectified_candidates(image, first[:1], memo=memo))
    assert len(views) <= 2


@pytest.mark.slow
def test_reader_finds_a_small_grid_at_a_65_degree_tilt(tmp_path):
    """A fresh scene (not an evaluation seed) the first search refused: a small grid at a
    65-degree tilt on a pale table, the cards' outlines foreshortened to landscape."""
    from vision.reptile_tank.reader import TerrariumReader
    from vision.reptile_tank.synth.dataset import FROZEN_SETS, write_dataset

    options = dict(FROZEN_SETS["hard"])
    for key in ("n", "seed"):
        options.pop(key)
    options.update(tilt_deg=(56.0, 65.0), fill=(0.25, 0.55))
    write_dataset(tmp_path, 1, 9106, start=7, **options)
    truth = json.loads((tmp_path / "scene_00007.json").read_text())
    assert truth["params"]["tilt_deg"] > 60
    read = TerrariumReader().read((tmp_path / "scene_00007.jpg").read_bytes())
    assert read.rows == truth["board"]["rows"]


def test_view_keeps_the_photo_when_the_region_is_tiny():
    image = np.zeros((200, 300, 3), np.uint8)
    assert (
        top_down_view(image, level_normal(50.0), (np.array([10.0, 10]), np.array([15.0, 12])))
        is None
    )
    cv2.rectangle(image, (100, 80), (160, 150), (255, 255, 255), -1)
    made = top_down_view(image, level_normal(50.0), (np.array([90.0, 70]), np.array([170.0, 160])))
    assert made is not None and made[0].dtype == np.uint8
