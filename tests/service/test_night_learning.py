"""Learning during the night (service.reptile_tank.learning): confirmed reads teach only that
night's gallery; the deck's gallery is never written; files are whole and conflict-free."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from scoring.reptile_tank.cards import EMPTY, FACE_LABELS
from service.reptile_tank import learning
from service.reptile_tank.learning import NightExamples, cells_to_learn
from vision.reptile_tank.gallery import Gallery


class TinyEmbedder:
    """A deterministic stand-in for the ONNX embedder: a crop's 4 x 4 colour thumbnail."""

    model_id = "tiny-test"

    def embed(self, crops: np.ndarray) -> np.ndarray:
        import cv2

        out = np.stack([cv2.resize(c, (4, 4), interpolation=cv2.INTER_AREA) for c in crops])
        flat = out.reshape(len(crops), -1).astype(np.float32) + 1.0
        return flat / np.linalg.norm(flat, axis=1, keepdims=True)


def board(rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, 255, (4, 5, 64, 48, 3), dtype=np.uint8)


def base_gallery(embedder: TinyEmbedder, rng: np.random.Generator) -> Gallery:
    labels = list(FACE_LABELS) + [EMPTY]
    crops = rng.integers(0, 255, (len(labels), 64, 48, 3), dtype=np.uint8)
    return Gallery(embedder.embed(crops), np.array(labels), np.zeros(len(labels), int), "tiny-test")


ROWS = [list(FACE_LABELS[r * 5 : r * 5 + 5]) if r < 3 else ["water"] + [EMPTY] * 4
        for r in range(4)]  # fmt: skip


def test_cells_to_learn_are_the_corrected_and_the_narrow_ones():
    read = [row[:] for row in ROWS]
    read[0][1] = "rock"  # corrected by the players
    margins = np.full((4, 5), 0.5)
    margins[2][3] = 0.02  # right, but by a hair
    assert cells_to_learn(read, ROWS, margins) == [(0, 1), (2, 3)]
    assert cells_to_learn(read, ROWS, None) == [(0, 1)]


def test_a_night_learns_alone_and_the_decks_gallery_is_never_written(tmp_path):
    rng = np.random.default_rng(1)
    embedder = TinyEmbedder()
    base = base_gallery(embedder, rng)
    before = base.embeddings.copy()
    tonight, other = NightExamples(tmp_path / "night-a"), NightExamples(tmp_path / "night-b")
    read = [row[:] for row in ROWS]
    read[1][0] = "rock"
    read[3][1] = "corn_snake"  # an empty place read as a card
    crops = board(rng)
    learnt = tonight.learn(crops, read, ROWS, np.full((4, 5), 0.5), embedder)
    assert learnt.added == 2 and learnt.labels == {ROWS[1][0]: 1, EMPTY: 1}
    assert len(list((tmp_path / "night-a").glob("ex-*.npz"))) == 1
    assert not list((tmp_path / "night-a").glob(".*"))  # no temporary left behind
    night = tonight.gallery(base, embedder)
    # the card is added upright and turned, the empty place once
    assert len(night.embeddings) == len(base.embeddings) + 3
    assert np.array_equal(base.embeddings, before)  # the deck's own gallery: untouched
    assert other.gallery(base, embedder) is base  # another night: nothing learnt
    # the corrected crop now reads as what the players confirmed
    vector = embedder.embed(crops[1, 0][None])
    scores = night.rotation_scores(vector).max(axis=2)[0]
    assert night.labels[int(np.argmax(scores))] == ROWS[1][0]


def test_examples_per_label_are_capped(tmp_path, monkeypatch):
    monkeypatch.setattr(learning, "MAX_PER_LABEL", 3)
    rng = np.random.default_rng(2)
    embedder, night = TinyEmbedder(), NightExamples(tmp_path / "n")
    everything_wrong = [["rock"] * 5 for _ in range(4)]
    confirmed = [[FACE_LABELS[0]] * 5 for _ in range(4)]
    assert night.learn(board(rng), everything_wrong, confirmed, None, embedder).added == 3
    assert night.learn(board(rng), everything_wrong, confirmed, None, embedder).added == 0
    assert night.counts() == {FACE_LABELS[0]: 3}


def test_bad_input_is_one_clear_error_and_a_damaged_file_is_skipped(tmp_path):
    rng = np.random.default_rng(3)
    embedder, night = TinyEmbedder(), NightExamples(tmp_path / "n")
    with pytest.raises(ValueError, match="unknown label 'dragon'"):
        night.learn(board(rng), ROWS, [["dragon"] * 5] * 4, None, embedder)
    with pytest.raises(ValueError, match="crops must be"):
        night.learn(np.zeros((4, 5, 3)), ROWS, ROWS, None, embedder)
    read = [row[:] for row in ROWS]
    read[0][0] = "rock"
    night.learn(board(rng), read, ROWS, None, embedder)
    (tmp_path / "n" / "ex-broken.npz").write_bytes(b"not a zip")
    assert night.counts() == {ROWS[0][0]: 1}


def test_two_phones_confirming_at_once_lose_nothing(tmp_path):
    embedder, night = TinyEmbedder(), NightExamples(tmp_path / "n")
    read = [row[:] for row in ROWS]
    read[0][0] = "rock"
    rngs = [np.random.default_rng(10 + k) for k in range(6)]
    threads = [threading.Thread(target=night.learn, args=(board(r), read, ROWS, None, embedder))
               for r in rngs]  # fmt: skip
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert night.counts() == {ROWS[0][0]: 6}
