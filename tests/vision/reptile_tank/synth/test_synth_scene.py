"""Synthetic scenes: boards from the deck, ground truth that lands on the cards, determinism."""

from __future__ import annotations

import json
import math
from collections import Counter

import cv2
import numpy as np
import pytest

from scoring.reptile_tank.cards import CARD_IDS, EMPTY, FACE_LABELS, WATER
from scoring.reptile_tank.rules import default_layout
from vision.reptile_tank.synth.dataset import parse_size, scene_seed, write_dataset
from vision.reptile_tank.synth.deck import DeckFaces, default_copies
from vision.reptile_tank.synth.scene import encode_jpeg, render_scene, sample_board

SMALL = (480, 360)


def _flat_deck() -> DeckFaces:
    """A deck whose faces are flat, well separated colours (white border kept as a real card)."""
    faces = {}
    rng = np.random.default_rng(0)
    hues = rng.permutation(16) * (180 // 16)
    for k, label in enumerate(FACE_LABELS):
        hsv = np.array([[[hues[k], 230, 150 + 6 * (k % 4)]]], np.uint8)
        colour = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0, 0]
        face = np.full((88, 63, 3), 250, np.uint8)
        face[4:-4, 4:-4] = colour
        faces[label] = face
    return DeckFaces("flat", faces)


def _cell_colour(image: np.ndarray, quad: list) -> np.ndarray:
    centre = np.mean(np.array(quad), axis=0)
    x, y = int(round(centre[0])), int(round(centre[1]))
    return image[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3).mean(0)


def test_boards_follow_the_deck_copy_counts_and_show_every_face():
    ROWS, COLS = default_layout().shape  # noqa: N806
    rng = np.random.default_rng(11)
    copies = default_copies()
    seen: Counter[str] = Counter()
    for _ in range(60):
        rows = sample_board(rng, copies)
        assert len(rows) == ROWS and all(len(r) == COLS for r in rows)
        counts = Counter(x for r in rows for x in r)
        for cid in CARD_IDS:
            assert counts[cid] <= copies[cid]
        assert EMPTY not in counts
        seen.update(counts)
    assert set(seen) == set(FACE_LABELS)  # every card id and the Water back


def test_partial_boards_leave_cells_empty_in_proportion():
    rng = np.random.default_rng(12)
    empties = [
        sum(x == EMPTY for r in sample_board(rng, partial=0.3) for x in r) for _ in range(200)
    ]
    assert 0.25 < np.mean(empties) / 20 < 0.35
    with pytest.raises(ValueError, match="partial"):
        sample_board(rng, partial=1.0)


def test_a_deck_too_small_for_a_board_is_refused():
    with pytest.raises(ValueError, match="copies"):
        sample_board(np.random.default_rng(0), {"rock": 19})


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_ground_truth_lands_on_the_rendered_cards(seed):
    ROWS, COLS = default_layout().shape  # noqa: N806
    deck = _flat_deck()
    image, truth = render_scene(
        seed, deck, size=SMALL, partial=0.25, distractors=False, degrade=False
    )
    w, h = truth["size"]
    assert image.shape == (h, w, 3) and (w, h) == SMALL
    rows = truth["board"]["rows"]
    for r in range(ROWS):
        for c in range(COLS):
            quad = np.array(truth["cells"][r][c])
            assert quad.shape == (4, 2)
            assert (quad >= -0.5).all() and (quad[:, 0] <= w - 0.5).all()
            assert (quad[:, 1] <= h - 0.5).all()
            colour = _cell_colour(image, truth["cells"][r][c])
            if truth["occupied"][r][c]:
                assert rows[r][c] != EMPTY
                expected = deck[rows[r][c]][44, 31].astype(float)
                # per-card tint is at most ~10 %; the nearest face colour must be the right one
                dists = {lab: np.abs(colour - deck[lab][44, 31]).sum() for lab in FACE_LABELS}
                assert min(dists, key=dists.get) == rows[r][c], (r, c, colour, expected)
            else:
                assert rows[r][c] == EMPTY
                dists = [np.abs(colour - deck[lab][44, 31]).sum() for lab in FACE_LABELS]
                assert min(dists) > 25, (r, c, colour)


@pytest.mark.parametrize("seed", [21, 22, 23, 24])
def test_grid_corners_agree_with_the_cell_quads(seed):
    ROWS, COLS = default_layout().shape  # noqa: N806
    _, truth = render_scene(seed, _flat_deck(), size=SMALL, distractors=False)
    corners = np.array(truth["grid_corners"])
    cells = truth["cells"]
    # the outer corner of each corner cell is near the grid corner (jitter <= 3 mm, rotation
    # <= 6 degrees: well under a quarter of a card's width)
    card_w = np.linalg.norm(np.array(cells[0][0][1]) - np.array(cells[0][0][0]))
    for k, (r, c) in enumerate([(0, 0), (0, COLS - 1), (ROWS - 1, COLS - 1), (ROWS - 1, 0)]):
        assert np.linalg.norm(np.array(cells[r][c][k]) - corners[k]) < 0.25 * card_w
    # the grid's top edge runs along row 0 from col 0 to col 4: it is "board up" rotated
    centre = corners.mean(0)
    top_mid = (corners[0] + corners[1]) / 2
    v = top_mid - centre
    expected = math.degrees(math.atan2(-v[0], -v[1])) % 360
    diff = (truth["rotation_deg"] - expected + 180) % 360 - 180
    assert abs(diff) < 3.0
    assert 0.0 <= truth["rotation_deg"] < 360.0
    # corners are in clockwise order in the image (TL, TR, BR, BL of the upright board)
    x, y = corners[:, 0], corners[:, 1]
    area = 0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    assert area > 0  # image y is down: positive shoelace = clockwise on screen


def test_camera_covers_the_whole_rotation_and_fill_ranges():
    rotations, fills, tilts = [], [], []
    for seed in range(40):
        _, truth = render_scene(seed, _flat_deck(), size=(160, 120), distractors=False)
        rotations.append(truth["rotation_deg"])
        tilts.append(truth["params"]["tilt_deg"])
        q = np.array(truth["grid_corners"])
        ext = q.max(0) - q.min(0)
        fills.append(max(ext[0] / 160, ext[1] / 120))
    assert np.histogram(rotations, bins=4, range=(0, 360))[0].min() >= 4
    assert max(tilts) > 40 and min(tilts) < 15
    assert 0.25 < min(fills) and max(fills) < 1.0 and max(fills) - min(fills) > 0.4


def test_ground_truth_is_json_with_the_agreed_schema():
    ROWS, COLS = default_layout().shape  # noqa: N806
    image, truth = render_scene(31, _flat_deck(), size=SMALL)
    text = json.dumps(truth)
    back = json.loads(text)
    assert set(back) == {
        "image",
        "size",
        "board",
        "grid_corners",
        "cells",
        "occupied",
        "rotation_deg",
        "params",
    }
    assert len(back["grid_corners"]) == 4
    assert len(back["cells"]) == ROWS and all(len(r) == COLS for r in back["cells"])
    for key in ("tilt_deg", "table", "jpeg_quality", "deck", "seed"):
        assert key in back["params"]
    assert back["params"]["seed"] == 31
    assert 55 <= back["params"]["jpeg_quality"] <= 95


def test_a_given_board_is_laid_out_as_given():
    rows = [["rock", "water", "corn_snake", "empty", "rock"]] * 4
    _, truth = render_scene(3, _flat_deck(), board={"rows": rows}, size=SMALL)
    assert truth["board"]["rows"] == rows
    assert truth["occupied"][0] == [True, True, True, False, True]
    with pytest.raises(ValueError, match="board"):
        render_scene(3, _flat_deck(), board={"rows": [["dragon"] * 5] * 4}, size=SMALL)
    with pytest.raises(ValueError, match="board"):
        render_scene(3, _flat_deck(), board=[["rock"] * 5] * 3, size=SMALL)


def test_phone_sizes_respect_max_size():
    for seed in range(12):
        image, truth = render_scene(seed, _flat_deck(), max_size=(640, 480))
        w, h = truth["size"]
        assert max(w, h) <= 640 and min(w, h) <= 480
        assert image.shape[:2] == (h, w)


def test_same_seed_same_bytes(tmp_path):
    a = write_dataset(tmp_path / "a", 2, 9, max_size=(400, 300), partial=0.2)
    b = write_dataset(tmp_path / "b", 2, 9, max_size=(400, 300), partial=0.2)
    assert a == b
    for entry in a["scenes"]:
        for key in ("image", "truth"):
            assert (tmp_path / "a" / entry[key]).read_bytes() == (
                tmp_path / "b" / entry[key]
            ).read_bytes()
    truth = json.loads((tmp_path / "a" / "scene_00001.json").read_text())
    assert truth["image"] == "scene_00001.jpg"
    assert truth["params"]["seed"] == scene_seed(9, 1)
    decoded = cv2.imread(str(tmp_path / "a" / "scene_00001.jpg"))
    assert decoded.shape[1::-1] == tuple(truth["size"])
    other = write_dataset(tmp_path / "c", 1, 10, max_size=(400, 300))
    assert (tmp_path / "c" / "scene_00000.jpg").read_bytes() != (
        tmp_path / "a" / "scene_00000.jpg"
    ).read_bytes()
    assert other["seed"] == 10


def test_random_deck_scenes(tmp_path):
    manifest = write_dataset(tmp_path, 1, 4, deck="random", max_size=(320, 240))
    assert manifest["deck"] == "random"
    truth = json.loads((tmp_path / "scene_00000.json").read_text())
    assert truth["params"]["deck"] == "random"


def test_bad_arguments_are_refused_with_the_parameter_named(tmp_path):
    deck = _flat_deck()
    with pytest.raises(ValueError, match="n:"):
        write_dataset(tmp_path, 0, 1)
    with pytest.raises(ValueError, match="seed"):
        write_dataset(tmp_path, 1, -1)
    with pytest.raises(ValueError, match="size"):
        parse_size("big")
    with pytest.raises(ValueError, match="tilt_deg"):
        render_scene(1, deck, tilt_deg=(10, 80))
    with pytest.raises(ValueError, match="deck"):
        render_scene(1, {"rock": deck["rock"]})
    with pytest.raises(ValueError, match="quality"):
        encode_jpeg(np.zeros((8, 8, 3), np.uint8), 0)
    with pytest.raises(FileNotFoundError):
        write_dataset(tmp_path, 1, 1, deck=tmp_path / "no-such-pack")


def test_water_and_every_front_appear_in_rendered_scenes():
    seen = set()
    for seed in range(12):
        _, truth = render_scene(seed, _flat_deck(), size=(160, 120), distractors=False)
        seen.update(x for r in truth["board"]["rows"] for x in r)
    assert {WATER, *CARD_IDS} <= seen


@pytest.mark.slow
def test_a_12_megapixel_scene_keeps_its_ground_truth_on_the_cards():
    ROWS, COLS = default_layout().shape  # noqa: N806
    deck = _flat_deck()
    image, truth = render_scene(77, deck, size=(4032, 3024), degrade=False, distractors=False)
    assert image.shape == (3024, 4032, 3)
    rows = truth["board"]["rows"]
    for r in range(ROWS):
        for c in range(COLS):
            colour = _cell_colour(image, truth["cells"][r][c])
            dists = {lab: np.abs(colour - deck[lab][44, 31]).sum() for lab in FACE_LABELS}
            assert min(dists, key=dists.get) == rows[r][c]
