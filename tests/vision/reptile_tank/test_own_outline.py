"""vision.reptile_tank.own_outline: a card laid off its cell is cut again along its own outline,
kept only where recognition prefers the new cut."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from vision.reptile_tank import own_outline
from vision.reptile_tank.enrol import cut_card
from vision.reptile_tank.synth.deck import stand_in_deck

W, H = 180, 252  # a card in the photo, px
GAP = 30
CROP = (64, 90)


def _quad(cx: float, cy: float, angle_deg: float) -> np.ndarray:
    box = cv2.boxPoints(((cx, cy), (W, H), angle_deg))
    # TL, TR, BR, BL of the upright card turned by angle_deg
    centre = np.array([cx, cy])
    order = sorted(box, key=lambda p: np.arctan2(p[1] - cy, p[0] - cx))
    quad = np.array(order, np.float64)
    start = int(np.argmin([(p - centre) @ np.array([1.0, 1.0]) for p in quad]))
    return np.roll(quad, -start, axis=0)


def _paste(photo: np.ndarray, face: np.ndarray, quad: np.ndarray) -> None:
    h, w = face.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    warped = cv2.warpPerspective(face, m, photo.shape[1::-1])
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, photo.shape[1::-1]) > 0
    photo[mask] = warped[mask]


@pytest.fixture(scope="module")
def scene():
    deck = stand_in_deck(px_per_mm=3.0)
    labels = ["corn_snake", "rosy_boa", "water"]
    photo = np.full((H + 2 * GAP + 40, 3 * (W + GAP) + GAP + 40, 3), (40, 110, 60), np.uint8)
    cells, laid = [], []
    for k, label in enumerate(labels):
        cx, cy = 20 + GAP + W / 2 + k * (W + GAP), 20 + GAP + H / 2
        cells.append(_quad(cx, cy, 0.0))
        # the middle card laid by hand: 7 degrees turned and 12 px off its place
        laid.append(_quad(cx + 12, cy + 8, 7.0) if k == 1 else cells[-1])
        _paste(photo, deck[label], laid[-1])
    faces = {label: cv2.resize(deck[label], CROP, interpolation=cv2.INTER_AREA) for label in labels}
    return photo, np.array([cells]), labels, faces


def _classify(faces, labels):
    """A stand-in recogniser: each crop's score for a label is the correlation with its face."""

    def name(crops: np.ndarray):
        rows, cols = crops.shape[:2]
        scores = np.zeros((rows, cols, len(labels)), np.float32)
        for r in range(rows):
            for c in range(cols):
                a = crops[r, c].astype(np.float32).ravel()
                for k, label in enumerate(labels):
                    b = faces[label].astype(np.float32).ravel()
                    scores[r, c, k] = np.corrcoef(a, b)[0, 1]
        cells = [[SimpleNamespace(label=labels[int(np.argmax(scores[r, c]))]) for c in range(cols)]
                 for r in range(rows)]  # fmt: skip
        return SimpleNamespace(cells=cells, label_scores=scores)

    return name


def test_the_card_laid_off_its_cell_is_cut_along_its_outline(scene):
    photo, cells, labels, faces = scene
    name = _classify(faces, labels)
    crops = np.stack([[cut_card(photo, q, CROP) for q in cells[0]]])
    reads = name(crops)
    new_crops, new_reads, recut = own_outline.recut_by_own_outline(photo, cells, crops, reads, name)
    assert recut.tried.tolist() == [[False, True, False]]
    assert recut.kept.tolist() == [[False, True, False]]
    assert new_reads.label_scores[0, 1].max() > reads.label_scores[0, 1].max() + 0.05
    assert np.array_equal(new_crops[0, 0], crops[0, 0]) and np.array_equal(new_crops[0, 2], crops[0, 2])


def test_a_new_cut_recognition_does_not_prefer_is_dropped(scene):
    photo, cells, labels, faces = scene
    real = _classify(faces, labels)
    crops = np.stack([[cut_card(photo, q, CROP) for q in cells[0]]])
    reads = real(crops)

    def worse(trial: np.ndarray):  # every new cut scores lower than the lattice's
        out = real(trial)
        out.label_scores = reads.label_scores - 0.1
        return out

    new_crops, new_reads, recut = own_outline.recut_by_own_outline(photo, cells, crops, reads, worse)
    assert recut.tried.any() and not recut.kept.any()
    assert new_reads is reads and np.array_equal(new_crops, crops)


def test_cards_on_their_places_are_left_alone(scene):
    photo, cells, labels, faces = scene
    name = _classify(faces, labels)
    cells = cells.copy()
    cells[0, 1] = _quad(cells[0, 1].mean(axis=0)[0] + 12, cells[0, 1].mean(axis=0)[1] + 8, 7.0)
    crops = np.stack([[cut_card(photo, q, CROP) for q in cells[0]]])
    _, _, recut = own_outline.recut_by_own_outline(photo, cells, crops, name(crops), name)
    assert not recut.tried.any()
