"""Issue 28 items 1, 4: a face enrolled from a card under a sleeve's sheen is named unsure
(vision/reptile_tank/washed_out.py)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.embedder import CardEmbedder
from vision.reptile_tank.classifier import READER_MODEL
from vision.reptile_tank.gallery import to_face_size
from vision.reptile_tank.lookalike import family_deck
from vision.reptile_tank.synth.real_table import broad_sheen
from vision.reptile_tank.washed_out import print_contrast, washed_out_faces


@pytest.fixture(scope="module")
def deck():
    faces = family_deck(np.random.default_rng(5707), px_per_mm=4.0)
    return {label: to_face_size(faces[label]) for label in faces}


@pytest.fixture(scope="module")
def embedder():
    return CardEmbedder(READER_MODEL)


def _faded(face: np.ndarray, contrast: float) -> np.ndarray:
    """The face in flat, dull light: its contrast scaled about mid-grey."""
    return np.clip(128 + (face.astype(np.float32) - 128) * contrast, 0, 255).astype(np.uint8)


def test_a_clean_deck_has_no_washed_out_face(deck, embedder):
    assert washed_out_faces(deck, embedder) == []


def test_a_face_under_a_broad_sheen_is_washed_out_and_its_look_alikes_are_not(deck, embedder):
    label = "common_box_turtle"
    faces = {**deck, label: broad_sheen(deck[label])}
    assert washed_out_faces(faces, embedder) == [label]


def test_a_whole_photo_in_dull_light_washes_out_no_face(deck, embedder):
    """Contrast is judged against the look-alikes cut from the same photo, not absolutely."""
    faces = {label: _faded(face, 0.3) for label, face in deck.items()}
    assert washed_out_faces(faces, embedder) == []


def test_print_contrast_scales_with_the_print_and_ignores_slow_light(deck):
    face = deck["rock"]
    base = print_contrast(face)
    assert base > 5
    assert print_contrast(_faded(face, 0.5)) == pytest.approx(0.5 * base, rel=0.1)
    h, w = face.shape[:2]
    ramp = np.linspace(-30, 30, w, dtype=np.float32)[None, :, None]
    lit = np.clip(face.astype(np.float32) + ramp, 0, 255).astype(np.uint8)
    assert print_contrast(lit) == pytest.approx(base, rel=0.15)
    assert print_contrast(broad_sheen(face)) < 0.4 * base


def test_too_few_faces_to_compare_name_none(deck, embedder):
    assert washed_out_faces({"rock": broad_sheen(deck["rock"])}, embedder) == []


def test_lookalikes_are_the_nearest_faces_alike_enough():
    from vision.reptile_tank.washed_out import LOOKALIKE_FLOOR, lookalikes

    def unit(*v):
        v = np.asarray(v, float)
        return v / np.linalg.norm(v)

    vectors = {"a": unit(1, 0.1, 0), "b": unit(1, 0, 0), "c": unit(1, 0.5, 0), "d": unit(0, 0, 1)}
    near = lookalikes(vectors)
    assert near["a"] == ["b", "c"] and near["b"] == ["a", "c"]
    assert near["d"] == []  # like none of them: the floor keeps it alone
    assert float(vectors["d"] @ vectors["a"]) < LOOKALIKE_FLOOR
    assert lookalikes({"a": vectors["a"]}) == {"a": []}
