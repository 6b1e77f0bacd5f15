"""The stand-in deck and random designs: sizes, distinctness, values from the rules data, packs."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from scoring.reptile_tank.cards import CARD_IDS, FACE_LABELS, WATER
from scoring.reptile_tank.rules import load_rules
from vision.reptile_tank.synth.deck import (
    DeckFaces,
    card_size_px,
    default_copies,
    face_values,
    load_pack_faces,
    random_deck,
    random_design,
    render_design,
    render_face,
    render_random_face,
    stand_in_deck,
    stand_in_design,
)


@pytest.fixture(scope="module")
def small_deck() -> DeckFaces:
    return stand_in_deck(px_per_mm=3.0)


def test_every_face_is_a_63_by_88_mm_rgb_image(small_deck):
    assert list(small_deck) == list(FACE_LABELS)
    for label in FACE_LABELS:
        face = small_deck[label]
        assert face.dtype == np.uint8
        assert face.shape == (round(88 * 3.0), round(63 * 3.0), 3)
    assert card_size_px(8.0) == (504, 704)
    assert render_face("rock").shape == (704, 504, 3)


def test_faces_are_distinct_in_colour_and_in_grey(small_deck):
    """Every pair of faces differs clearly, also once reduced to grey and blurred (a camera)."""

    def signature(img, grey):
        x = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)[..., None] if grey else img
        return cv2.resize(x, (8, 11), interpolation=cv2.INTER_AREA).astype(np.float32)

    for grey in (False, True):
        sigs = {lab: signature(small_deck[lab], grey) for lab in FACE_LABELS}
        for a, b in itertools.combinations(FACE_LABELS, 2):
            diff = float(np.abs(sigs[a] - sigs[b]).mean())
            assert diff > 6.0, (a, b, grey, diff)


def test_printed_values_come_from_the_rules_data():
    rules = load_rules()
    values = face_values(rules)
    for cid in CARD_IDS:
        rule = rules.cards[cid]
        v = values[cid]
        assert v.name == rule.name
        assert v.copies == rule.copies
        assert v.star == rule.star
        assert v.vp_basic.startswith(str(rule.tiers[0].vp))
        design = stand_in_design(cid)
        assert design.vp_basic == v.vp_basic and design.vp_advanced == v.vp_advanced
        assert design.star == rule.star and design.copies == rule.copies
        assert design.frame == ("square" if rule.is_animal else "round")
    assert sum(default_copies().values()) == rules.deck_size == 126
    assert {cid for cid in CARD_IDS if stand_in_design(cid).star} == {
        "corn_snake",
        "brown_anole",
        "rock",
    }
    assert stand_in_design(WATER).back


def test_an_edited_rules_file_prints_its_own_values():
    rules = load_rules(overrides={"cards": {"rock": {"tiers": {"advanced": {"vp": 7}}}}})
    assert face_values(rules)["rock"].vp_advanced == "7"
    design = stand_in_design("rock", values=face_values(rules))
    assert design.vp_advanced == "7"
    a = render_design(design, px_per_mm=3.0)
    b = render_face("rock", px_per_mm=3.0)
    assert np.abs(a.astype(int) - b.astype(int)).sum() > 0


def test_unknown_face_is_refused_with_the_parameter_named():
    with pytest.raises(ValueError, match="card_id"):
        render_face("dragon")
    with pytest.raises(ValueError, match="px_per_mm"):
        render_face("rock", px_per_mm=0.0)


def test_random_designs_are_seeded_and_varied():
    a1, d1 = render_random_face(np.random.default_rng(3), px_per_mm=3.0)
    a2, d2 = render_random_face(np.random.default_rng(3), px_per_mm=3.0)
    assert d1 == d2 and np.array_equal(a1, a2)
    rng = np.random.default_rng(4)
    designs = [random_design(rng) for _ in range(60)]
    assert len({d.frame for d in designs}) >= 5
    assert len({d.motif.kind for d in designs}) >= 8
    assert len({d.pattern for d in designs}) >= 7
    assert len({d.background for d in designs}) == 60


def test_random_deck_has_16_distinct_faces():
    deck = random_deck(np.random.default_rng(5), px_per_mm=2.0)
    assert list(deck) == list(FACE_LABELS)
    flat = [deck[lab].astype(np.int16) for lab in FACE_LABELS]
    for a, b in itertools.combinations(range(16), 2):
        assert np.abs(flat[a] - flat[b]).mean() > 3.0


def test_pack_faces_round_trip(tmp_path, small_deck):
    for label in FACE_LABELS:
        cv2.imwrite(str(tmp_path / f"{label}.png"), small_deck[label][..., ::-1])
    back = load_pack_faces(tmp_path)
    for label in FACE_LABELS:
        assert np.array_equal(back[label], small_deck[label])
    # a DeckPack folder keeps its faces in faces/
    (tmp_path / "pack" / "faces").mkdir(parents=True)
    for label in FACE_LABELS:
        (tmp_path / "pack" / "faces" / f"{label}.png").write_bytes(
            (tmp_path / f"{label}.png").read_bytes()
        )
    assert np.array_equal(load_pack_faces(tmp_path / "pack")["rock"], small_deck["rock"])
    (tmp_path / "rock.png").unlink()
    with pytest.raises(FileNotFoundError, match="rock"):
        load_pack_faces(tmp_path)
    (tmp_path / "rock.png").write_bytes(b"not an image")
    with pytest.raises(ValueError, match="rock"):
        load_pack_faces(tmp_path)
