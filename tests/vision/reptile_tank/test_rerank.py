"""Issue 28 item 2: local features (ORB + a RANSAC homography near the identity) tell
look-alike faces apart where the embedder's scores are a close call."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from scoring.reptile_tank.cards import EMPTY
from vision.models import READER_MODEL, model_files
from vision.reptile_tank.classifier import (
    CellRead,
    LocalFeatureVerifier,
    close_face_calls,
    embedder_lead,
)


@pytest.fixture(scope="module")
def family() -> dict[str, np.ndarray]:
    """Four faces sharing one frame, layout and banner (another game's look-alike art)."""
    from dataclasses import replace

    from vision.reptile_tank.lookalike import family_variant
    from vision.reptile_tank.synth.deck import random_design, render_design

    rng = np.random.default_rng(2811)
    base = random_design(rng)
    names = ["a", "b", "c", "d"]
    return {
        n: render_design(replace(family_variant(base, rng, fine=True), back=False), px_per_mm=4.0)
        for n in names
    }


def photographed(face: np.ndarray, seed: int) -> np.ndarray:
    """The face as a photo's cell shows it: cut off-centre and turned a little, blurred, in
    another light."""
    rng = np.random.default_rng(seed)
    h, w = face.shape[:2]
    shift = rng.uniform(-0.08, 0.08, 2) * w
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.uniform(-3, 3)), 1.0)
    turn[:, 2] += shift
    out = cv2.warpAffine(face, turn, (w, h), borderMode=cv2.BORDER_REPLICATE)
    out = cv2.GaussianBlur(out, (3, 3), 0).astype(np.float32)
    out = out * rng.uniform(0.8, 1.1, 3) + rng.normal(0, 4, out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def test_the_right_look_alike_face_wins_and_disagreement_is_reported(family):
    verifier = LocalFeatureVerifier(family)
    for k, truth in enumerate(family):
        crop = photographed(family[truth], seed=k)
        wrong = next(n for n in family if n != truth)
        fixed = verifier.check(crop, None, wrong)  # the embedder said a sibling
        assert fixed.label == truth and not fixed.agree, fixed.scores
        kept = verifier.check(crop, None, truth)
        assert kept.label == truth and kept.agree, kept.scores


def test_the_embedders_own_lead_must_be_outweighed(family):
    """A rival replaces the embedder's choice only when the fine comparison's margin beats the
    win plus the embedder's lead: the same crop, the embedder said a sibling; far behind the
    sibling the true face is not taken, a close call it is."""
    verifier = LocalFeatureVerifier(family)
    truth, wrong = "a", "b"
    crop = photographed(family[truth], seed=0)
    close = verifier.check(crop, None, wrong, ((wrong, 0.80), (truth, 0.78)))
    assert close.label == truth, close.scores
    # correlations differ by at most 2: a lead of 2 (cosine 1 against -1) is never outweighed
    far = verifier.check(crop, None, wrong, ((wrong, 1.0), (truth, -1.0)))
    assert far.label == wrong and not far.agree, far.scores  # kept, flagged as a disagreement
    # a rival not among the listed labels scored at most the last one listed
    assert embedder_lead(((wrong, 0.9), ("c", 0.7)), wrong, truth) == pytest.approx(0.2)
    assert embedder_lead(((truth, 0.9), (wrong, 0.7)), wrong, truth) == 0.0  # never below 0
    assert embedder_lead((), wrong, truth) == 0.0


def test_a_crop_of_no_enrolled_face_changes_nothing(family):
    verifier = LocalFeatureVerifier(family)
    table = np.random.default_rng(5).integers(90, 110, (352, 252, 3), dtype=np.uint8)
    result = verifier.check(table, None, "a")
    assert result.label == "a" and not result.confirmed


def test_close_calls_are_cells_whose_two_best_faces_are_near():
    def cell(label, top):
        return CellRead(label, 0, top[0][1] - top[1][1], top[0][1], tuple(top))

    cells = [[
        cell("a", [("a", 0.80), ("b", 0.75), (EMPTY, 0.2)]),  # a close call: re-ranked
        cell("a", [("a", 0.80), ("b", 0.50), ("c", 0.4)]),  # clear
        cell(EMPTY, [(EMPTY, 0.9), ("a", 0.88), ("b", 0.1)]),  # empty: not a face call
        cell("c", [("c", 0.60), (EMPTY, 0.59), ("d", 0.55)]),  # face rival within 0.1
    ]]  # fmt: skip
    assert close_face_calls(cells) == {(0, 0): ["a", "b"], (0, 3): ["c", "d"]}


MODEL = model_files(READER_MODEL).onnx
SAMPLE = Path(__file__).resolve().parents[3] / "reptile_tank" / "samples" / "sample_1"


def _sample_read():
    """``(truth, read)``: the sample board read by the stand-in reader on its given corners."""
    import json

    from vision.reptile_tank.reader import TerrariumReader

    truth = json.loads(SAMPLE.with_suffix(".json").read_text())
    read = TerrariumReader().read(SAMPLE.with_suffix(".jpg").read_bytes(),
                                  corners=np.array(truth["grid_corners"]))  # fmt: skip
    assert read.rows[0][0] == "three_toed_box_turtle"
    return truth, read


def _turtle_misnamed(read):
    """``read`` with its first turtle called the other turtle by a hair."""
    from dataclasses import replace

    wrong = CellRead("common_box_turtle", 0, 0.01, 0.80,
                     (("common_box_turtle", 0.80), ("three_toed_box_turtle", 0.79)))  # fmt: skip
    cells = [row[:] for row in read.cells]
    cells[0][0] = wrong
    rows = [row[:] for row in read.rows]
    rows[0][0] = "common_box_turtle"
    return replace(read, cells=cells, rows=rows)


@pytest.mark.skipif(not MODEL.exists(), reason="the reader's model is missing")
def test_a_board_read_has_a_wrong_look_alike_call_put_right_and_flagged():
    """A read whose turtle was called the other turtle by a hair: re-ranking cuts the cell
    again from the photo, names it right and flags it; the read given is left as it was."""
    from vision.reptile_tank.classifier import rerank_read
    from vision.reptile_tank.synth.deck import render_face

    truth, read = _sample_read()
    assert read.rows == truth["board"]["rows"]
    doubtful = _turtle_misnamed(read)
    faces = {label: render_face(label, px_per_mm=4.0) for label in truth["board"]["rows"][0]}
    fixed, summary = rerank_read(doubtful, LocalFeatureVerifier(faces))
    assert fixed.rows[0][0] == "three_toed_box_turtle" and bool(fixed.check[0, 0])
    assert summary.changed == 1 and summary.disagree == 1
    assert doubtful.rows[0][0] == "common_box_turtle"  # the read given: untouched


@pytest.mark.skipif(not MODEL.exists(), reason="the reader's model is missing")
def test_cards_showing_their_own_face_are_confirmed_and_a_wrong_name_is_not():
    """``confirmed_cells``: a card whose print matches its own face clearly better than every
    other face is confirmed; the same card named as its look-alike is not; an empty cell is
    never looked at. Its comparisons serve ``rerank_read`` as they are."""
    from scoring.reptile_tank.cards import FACE_LABELS
    from vision.reptile_tank.classifier import confirmed_cells, rerank_read
    from vision.reptile_tank.synth.deck import render_face

    _truth, read = _sample_read()
    verifier = LocalFeatureVerifier({label: render_face(label, px_per_mm=4.0)
                                     for label in FACE_LABELS})  # fmt: skip
    every = np.ones((4, 5), bool)
    confirmed, checks = confirmed_cells(read.image, read.fit, read.cells, every, verifier)
    cards = np.array([[label != EMPTY for label in row] for row in read.rows])
    assert not (confirmed & ~cards).any() and set(checks) == set(
        zip(*np.nonzero(cards), strict=True)
    )
    assert confirmed.sum() >= cards.sum() // 2, confirmed  # a clean photo: most cards
    misnamed = _turtle_misnamed(read)
    only = np.zeros((4, 5), bool)
    only[0, 0] = True
    not_confirmed, checked = confirmed_cells(read.image, read.fit, misnamed.cells, only, verifier)
    assert not not_confirmed.any()
    # the comparison made is the one the re-ranker would make: the same outcome from it
    fixed, summary = rerank_read(misnamed, verifier, checks=checked)
    again, summary_again = rerank_read(misnamed, verifier)
    assert fixed.rows == again.rows and summary == summary_again
    assert fixed.rows[0][0] == "three_toed_box_turtle"


@pytest.mark.skipif(not MODEL.exists(), reason="the reader's model is missing")
def test_the_stand_in_reader_compares_with_the_stand_in_faces():
    """Without a pack the fine comparison is made against the bundled stand-in deck's faces
    (so its close calls are re-ranked and its confirmed cards lose the model's flags)."""
    from scoring.reptile_tank.cards import FACE_LABELS
    from vision.reptile_tank.classifier import rerank_read
    from vision.reptile_tank.reader import TerrariumReader

    reader = TerrariumReader()
    assert reader.rerank and reader.confirm_by_print
    assert sorted(reader._local_verifier().labels) == sorted(FACE_LABELS)
    _truth, read = _sample_read()
    fixed, summary = rerank_read(_turtle_misnamed(read), reader._local_verifier())
    assert fixed.rows[0][0] == "three_toed_box_turtle" and summary.changed == 1


def test_the_print_structure_sees_a_card_through_the_sheen_its_face_was_enrolled_under(family):
    """A face enrolled under a sheen: its own card's structure still matches it best, and an
    embedder's call of a look-alike is in doubt (not agreed), whatever the colours say."""
    from vision.reptile_tank.synth.real_table import broad_sheen

    truth = "a"
    enrolled = {**family, truth: broad_sheen(family[truth], level=0.85, turn=20.0)}
    verifier = LocalFeatureVerifier(enrolled)
    for k in range(3):
        crop = photographed(family[truth], seed=10 + k)
        look_alike = next(n for n in family if n != truth)
        check = verifier.check(crop, [look_alike, truth], look_alike)
        assert check.structure, "the crop aligns to the family's frame"
        assert check.structure[truth] > check.structure[look_alike] + 0.05, check.structure
        assert not check.agree and not check.confirmed


def test_the_print_structure_agrees_with_a_clean_right_call(family):
    verifier = LocalFeatureVerifier(family)
    for k, truth in enumerate(family):
        crop = photographed(family[truth], seed=20 + k)
        others = [n for n in family if n != truth]
        check = verifier.check(crop, [truth, *others], truth)
        assert check.structure[truth] == max(check.structure.values()), check.structure
        assert check.agree


def test_no_structure_without_two_faces_or_print_to_compare(family):
    verifier = LocalFeatureVerifier(family)
    lab = cv2.cvtColor(cv2.resize(family["a"], (252, 352)), cv2.COLOR_RGB2LAB).astype(np.float32)
    assert verifier.structure(lab, ["a"]) is None
    flat = np.full_like(lab, 128.0)
    assert verifier.structure(flat, ["a", "b"]) is None
