"""Issue 28 items 1, 2: cards near a face enrolled under a thumb are decided again on what the
thumb left visible (vision/reptile_tank/covered_face.py)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.embedder import CardEmbedder
from vision.reptile_tank.classifier import READER_MODEL, CellRead, CellReads
from vision.reptile_tank.confidence import UNSURE_FACE_MARGIN
from vision.reptile_tank.covered_face import CoveredFaceLook, hand_mask
from vision.reptile_tank.gallery import to_face_size
from vision.reptile_tank.synth.deck import stand_in_deck

THUMB = (205, 140, 115)


@pytest.fixture(scope="module")
def deck():
    return {label: to_face_size(face) for label, face in stand_in_deck(px_per_mm=4.0).items()}


@pytest.fixture(scope="module")
def embedder():
    return CardEmbedder(READER_MODEL)


def _thumbed(face: np.ndarray, centre=(0.12, 0.45), axes=(0.42, 0.17)) -> np.ndarray:
    """A blurred thumb coming in from the face's left edge (by default over about a quarter of
    it); ``centre`` and ``axes`` as shares of the face's width and height."""
    out = face.copy()
    h, w = out.shape[:2]
    thumb = np.zeros((h, w), np.uint8)
    cv2.ellipse(
        thumb,
        (int(centre[0] * w), int(centre[1] * h)),
        (int(axes[0] * w), int(axes[1] * h)),
        0, 0, 360, 1, -1,
    )  # fmt: skip
    soft = cv2.GaussianBlur(thumb.astype(np.float32), (0, 0), 4.0)[..., None]
    return np.clip(out * (1 - soft) + np.array(THUMB, np.float32) * soft, 0, 255).astype(np.uint8)


def test_the_thumb_over_an_enrolled_face_is_found(deck) -> None:
    face = deck["corn_snake"]
    mask = hand_mask(_thumbed(face))
    assert mask is not None
    thumb = np.abs(_thumbed(face).astype(int) - face.astype(int)).sum(axis=2) > 60
    assert mask[thumb].mean() > 0.9  # the thumb is covered
    assert mask.mean() < 0.45  # and not the whole card


@pytest.mark.parametrize("label", ["corn_snake", "rosy_boa", "rock", "water", "golden_pothos"])
def test_a_clean_face_has_no_hand(deck, label: str) -> None:
    assert hand_mask(deck[label]) is None


def _one_cell(label: str, top: tuple[tuple[str, float], ...]) -> CellReads:
    score = dict(top)[label]
    cell = CellRead(label, 0, score - max(s for lab, s in top if lab != label), score, top)
    return CellReads(
        [[cell]],
        tuple(lab for lab, _ in top),
        np.zeros((1, 1, len(top))),
        np.zeros((1, 1, len(top), 4)),
    )


def test_a_card_read_as_a_look_alike_of_its_thumbed_face_is_read_again(deck, embedder) -> None:
    faces = dict(deck)
    faces["corn_snake"] = _thumbed(deck["corn_snake"])
    look = CoveredFaceLook(embedder, faces, ["corn_snake"], UNSURE_FACE_MARGIN)
    assert look
    crop = deck["corn_snake"][None, None]  # the clean card on the board
    reads = _one_cell("rosy_boa", (("rosy_boa", 0.82), ("corn_snake", 0.74), ("empty", 0.2)))
    out, changed = look.relook(reads, crop)
    assert changed == 1 and out.cells[0][0].label == "corn_snake"
    assert out.cells[0][0].top[0][0] == "corn_snake" and out.cells[0][0].confidence < 0


def test_the_look_alike_itself_keeps_its_read(deck, embedder) -> None:
    faces = dict(deck)
    faces["corn_snake"] = _thumbed(deck["corn_snake"])
    look = CoveredFaceLook(embedder, faces, ["corn_snake"], UNSURE_FACE_MARGIN)
    crop = deck["rosy_boa"][None, None]
    reads = _one_cell("rosy_boa", (("rosy_boa", 0.9), ("corn_snake", 0.7), ("empty", 0.2)))
    out, changed = look.relook(reads, crop)
    assert changed == 0 and out.cells[0][0].label == "rosy_boa"


def test_cells_far_from_an_unsure_face_are_not_looked_at(deck, embedder) -> None:
    faces = dict(deck)
    faces["corn_snake"] = _thumbed(deck["corn_snake"])
    look = CoveredFaceLook(embedder, faces, ["corn_snake"], UNSURE_FACE_MARGIN)
    crop = deck["corn_snake"][None, None]
    far = 0.9 - UNSURE_FACE_MARGIN - 0.05
    reads = _one_cell("rosy_boa", (("rosy_boa", 0.9), ("corn_snake", far), ("empty", 0.2)))
    assert look.relook(reads, crop) == (reads, 0)


def test_a_deck_without_a_hand_in_its_unsure_faces_looks_at_nothing(deck, embedder) -> None:
    assert not CoveredFaceLook(embedder, deck, ["corn_snake"], UNSURE_FACE_MARGIN)


def test_a_weak_match_far_from_the_thumbed_face_is_read_again_when_it_is_nearest(
    deck, embedder
) -> None:
    faces = dict(deck)
    faces["corn_snake"] = _thumbed(deck["corn_snake"])
    look = CoveredFaceLook(embedder, faces, ["corn_snake"], UNSURE_FACE_MARGIN, weak_below=0.75)
    weak = (("hollow_log", 0.55), ("rock", 0.5), ("corn_snake", 0.15))
    out, changed = look.relook(_one_cell("hollow_log", weak), deck["corn_snake"][None, None])
    assert changed == 1 and out.cells[0][0].label == "corn_snake"
    # a weak match that is not the thumbed card keeps its read
    out, changed = look.relook(_one_cell("hollow_log", weak), deck["hollow_log"][None, None])
    assert changed == 0
    # and without the weak-match rule neither is looked at
    strict = CoveredFaceLook(embedder, faces, ["corn_snake"], UNSURE_FACE_MARGIN)
    assert strict.relook(_one_cell("hollow_log", weak), deck["corn_snake"][None, None])[1] == 0


def test_a_sure_read_far_from_the_thumbed_face_is_read_again_when_every_card_is_looked_at(
    deck, embedder
) -> None:
    from vision.reptile_tank.covered_face import EVERY_CARD

    # a thumb over much of the enrolled face: its own clean card reads as a look-alike,
    # sure, with the thumbed face far below
    faces = dict(deck)
    faces["corn_snake"] = _thumbed(deck["corn_snake"], centre=(0.2, 0.45), axes=(0.5, 0.2))
    look = CoveredFaceLook(embedder, faces, ["corn_snake"], UNSURE_FACE_MARGIN, EVERY_CARD)
    sure = (("rosy_boa", 0.88), ("hollow_log", 0.6), ("corn_snake", 0.42))
    out, changed = look.relook(_one_cell("rosy_boa", sure), deck["corn_snake"][None, None])
    assert changed == 1 and out.cells[0][0].label == "corn_snake"
    # the look-alike's own card keeps its read
    out, changed = look.relook(_one_cell("rosy_boa", sure), deck["rosy_boa"][None, None])
    assert changed == 0
    # looking at weak matches only, the sure read is not looked at
    weak_only = CoveredFaceLook(embedder, faces, ["corn_snake"], UNSURE_FACE_MARGIN, 0.75)
    assert weak_only.relook(_one_cell("rosy_boa", sure), deck["corn_snake"][None, None])[1] == 0


def _half_turned(reads: CellReads) -> CellReads:
    from dataclasses import replace

    return replace(reads, cells=[[replace(reads.cells[0][0], rotation=180)]])


@pytest.mark.parametrize("turned", [False, True])
def test_a_board_card_under_a_thumb_read_as_a_look_alike_is_read_past_the_hand(
    deck, embedder, turned: bool
) -> None:
    """A board's corn snake under a thumb, read as its look-alike the rosy boa and flagged as
    hidden: compared with every face blanked where the thumb lies, it is the corn snake
    (upright, or laid the other way round)."""
    from vision.reptile_tank.covered_face import PastTheHand

    look = PastTheHand(embedder, deck)
    card = _thumbed(deck["corn_snake"])
    crop = (card[::-1, ::-1] if turned else card)[None, None]
    reads = _one_cell("rosy_boa", (("rosy_boa", 0.72), ("corn_snake", 0.70), ("empty", 0.2)))
    reads = _half_turned(reads) if turned else reads
    out, changed = look.relook(reads, crop, np.array([[True]]))
    assert changed == 1 and out.cells[0][0].label == "corn_snake"
    assert out.rows() == [["corn_snake"]]


@pytest.mark.parametrize("turned", [False, True])
def test_a_card_under_a_thumb_read_a_quarter_turn_round_is_looked_at_both_ways(
    deck, embedder, turned: bool
) -> None:
    """Under a thumb the embedder may name a portrait cell's card as a face turned a quarter
    round (development set 4439: a water card read as a brown anole at 90 degrees); the second
    look takes both ways the card can lie in its cell."""
    from dataclasses import replace

    from vision.reptile_tank.covered_face import PastTheHand

    look = PastTheHand(embedder, deck)
    card = _thumbed(deck["corn_snake"])
    crop = (card[::-1, ::-1] if turned else card)[None, None]
    reads = _one_cell("rosy_boa", (("rosy_boa", 0.72), ("corn_snake", 0.70), ("empty", 0.2)))
    reads = replace(reads, cells=[[replace(reads.cells[0][0], rotation=90)]])
    out, changed = look.relook(reads, crop, np.array([[True]]))
    assert changed == 1 and out.rows() == [["corn_snake"]]
    assert out.cells[0][0].rotation == (180 if turned else 0)


def test_past_the_hand_looks_only_at_hidden_cards_with_a_hand(deck, embedder) -> None:
    from vision.reptile_tank.covered_face import PastTheHand

    look = PastTheHand(embedder, deck)
    reads = _one_cell("rosy_boa", (("rosy_boa", 0.72), ("corn_snake", 0.70), ("empty", 0.2)))
    thumbed = _thumbed(deck["corn_snake"])[None, None]
    # not flagged as hidden: left alone, thumb or not
    assert look.relook(reads, thumbed, np.array([[False]])) == (reads, 0)
    # flagged, but no hand in it (glare, a curled corner): nothing to blank, left alone
    clean = deck["rosy_boa"][None, None]
    assert look.relook(reads, clean, np.array([[True]])) == (reads, 0)
    # the table is never read past a hand
    empty = _one_cell("empty", (("empty", 0.9), ("corn_snake", 0.3)))
    assert look.relook(empty, thumbed, np.array([[True]])) == (empty, 0)


def test_the_fine_comparison_leaves_out_where_an_enrolled_face_shows_a_hand(deck) -> None:
    """A face enrolled under a thumb: compared with the clean card, its thumb's pixels are left
    out, so the card's own face leads its look-alike by more than when they count."""
    from vision.reptile_tank.classifier import LocalFeatureVerifier

    faces = dict(deck)
    # a thumb over the face's picture, about 40 % of the face
    faces["corn_snake"] = _thumbed(deck["corn_snake"], centre=(0.2, 0.45), axes=(0.6, 0.25))
    mask = hand_mask(faces["corn_snake"])
    assert mask is not None
    card = cv2.GaussianBlur(deck["corn_snake"], (0, 0), 1.0)  # the card on a board
    pair = ["corn_snake", "rosy_boa"]
    blind = LocalFeatureVerifier(faces).compare(card, pair)
    seeing = LocalFeatureVerifier(faces, unseen={"corn_snake": mask}).compare(card, pair)
    assert blind is not None and seeing is not None
    assert seeing["corn_snake"] - seeing["rosy_boa"] > 0.3
    assert seeing["corn_snake"] - seeing["rosy_boa"] > blind["corn_snake"] - blind["rosy_boa"] + 0.1


def test_the_fine_comparison_decides_the_second_look_when_it_tells_the_faces_apart(
    deck, embedder
) -> None:
    """Where the fine comparison (the hand's place left out) tells the unsure face from the
    read's rival by FINE_GAP or more, it decides; closer, the blanked embedding does."""
    from vision.reptile_tank.covered_face import FINE_GAP

    faces = dict(deck)
    faces["corn_snake"] = _thumbed(deck["corn_snake"])
    look = CoveredFaceLook(embedder, faces, ["corn_snake"], UNSURE_FACE_MARGIN)
    crop = deck["rosy_boa"][None, None]  # the embedding keeps this one's read (test above)
    reads = _one_cell("rosy_boa", (("rosy_boa", 0.9), ("corn_snake", 0.7), ("empty", 0.2)))
    asked = []

    def says(corn: float, rosy: float):
        def compare(r, c, labels):
            asked.append((r, c, tuple(labels)))
            return {"corn_snake": corn, "rosy_boa": rosy}

        return compare

    out, changed = look.relook(reads, crop, says(0.6, 0.6 - FINE_GAP - 0.01))
    assert asked == [(0, 0, ("corn_snake", "rosy_boa"))]
    assert changed == 1 and out.cells[0][0].label == "corn_snake"
    assert look.relook(reads, crop, says(0.6, 0.6 - FINE_GAP / 2)) == (reads, 0)
    assert look.relook(reads, crop, lambda r, c, labels: None) == (reads, 0)
