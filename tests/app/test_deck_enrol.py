"""Enrol a deck from the phone: the cards found in layout photos (any order, a few at a time),
a name tapped under each, the pack built and used; back to the bundled deck in one tap."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from app_helpers import create_night, no_errors
from PIL import Image

from scoring.reptile_tank.cards import FACE_LABELS
from service.reptile_tank.deck import (
    PhotoCards,
    cards_in_photo,
    faces_from_names,
    label_from_file_name,
    unsure_named,
)
from vision.models import DEFAULT_MODEL, model_files
from vision.reptile_tank.enrol import documented_rows

ROOT = Path(__file__).resolve().parents[2]
MODEL = model_files(DEFAULT_MODEL).onnx
SAMPLES = ROOT / "reptile_tank" / "samples"

needs_model = pytest.mark.skipif(not MODEL.exists(), reason="the card reader's model is missing")

#: Two photos of a few cards each: every face once, the grid's four corner places filled.
FIRST = [
    ["rock", "empty", "water", "empty", "corn_snake"],
    ["empty", "empty", "empty", "empty", "empty"],
    ["golden_pothos", "empty", "empty", "empty", "dubia_roach"],
    ["brown_anole", "scarlet_star", "empty", "hollow_log", "rosy_boa"],
]


def second_layout() -> list[list[str]]:
    used = {label for row in FIRST for label in row}
    rest = [label for label in FACE_LABELS if label not in used]  # 7 faces
    assert len(rest) == 7
    return [
        [rest[0], "empty", "empty", "empty", rest[1]],
        ["empty", rest[2], "empty", rest[3], "empty"],
        ["empty", "empty", rest[4], "empty", "empty"],
        [rest[5], "empty", "empty", "empty", rest[6]],
    ]


def jpeg(image: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


def layout_photo(rows: list[list[str]], seed: int = 7) -> bytes:
    """A photo of ``rows`` laid out on a table, seen from the owner's side (top up)."""
    from vision.reptile_tank.synth.deck import stand_in_deck
    from vision.reptile_tank.synth.scene import render_scene

    deck = stand_in_deck(px_per_mm=6.0)
    for attempt in range(20):
        image, truth = render_scene(
            np.random.default_rng([seed, attempt]), deck, board={"rows": rows},
            max_size=(1600, 1200), fill=(0.7, 0.9), distractors=False,
        )  # fmt: skip
        if truth["rotation_deg"] < 30 or truth["rotation_deg"] > 330:
            return jpeg(image)
    raise AssertionError("no upright render")


def laid(rows: list[list[str]]) -> list[str]:
    return [label for row in rows for label in row if label != "empty"]


def test_a_full_layout_in_enrolment_order_comes_named():
    rows = documented_rows()
    found = cards_in_photo("table.jpg", layout_photo(rows))
    assert not found.problem
    assert len(found.cards) == 16 and found.suggested == list(FACE_LABELS)
    assert all(card.shape == (352, 252, 3) for card in found.cards)


def test_a_documented_layout_with_a_place_nobody_could_see_well_says_which_face_to_look_at(
    monkeypatch,
):
    import vision.reptile_tank.enrol as enrol

    first = [(k // 5, k % 5) for k in range(16)]
    faces = [np.full((352, 252, 3), 40 + 10 * k, np.uint8) for k in range(16)]
    laid = enrol.LayoutCards(
        faces, [], "grid", cells=first, grid_shape=(4, 5), own_outline=[True] * 16,
        assumed=[k in (8, 14) for k in range(16)],
    )  # fmt: skip
    monkeypatch.setattr(enrol, "layout_cards", lambda *args, **kwargs: laid)
    found = cards_in_photo("IMG_5.jpg", layout_photo(FIRST))
    assert found.suggested == list(FACE_LABELS)
    assert found.how.endswith(
        "no card could be seen well at row 2, card 4 and row 3, card 5 (glare, a thumb?): "
        "look at those faces"
    )


def test_a_few_cards_in_the_grid_are_found_unnamed_in_reading_order():
    from vision.reptile_tank.synth.deck import render_face

    found = cards_in_photo("IMG_2041.jpg", layout_photo(FIRST))
    assert len(found.cards) == len(laid(FIRST)) and found.suggested == [None] * 9
    # each card cut is its face, row by row: the shipped embedder's nearest stand-in face
    if not MODEL.exists():
        return
    from vision.embedder import CardEmbedder

    def size(image):
        return np.asarray(Image.fromarray(image).resize((252, 352), Image.Resampling.BOX))

    embedder = CardEmbedder()
    gallery = embedder.embed(np.stack([size(render_face(k, px_per_mm=4.0)) for k in FACE_LABELS]))
    cut = embedder.embed(np.stack([size(card) for card in found.cards]))
    nearest = [FACE_LABELS[int(i)] for i in np.argmax(cut @ gallery.T, axis=1)]
    assert nearest == laid(FIRST)


HARD_PHOTOS = ROOT / "tests" / "vision" / "reptile_tank" / "data" / "hard_photos"


@needs_model
@pytest.mark.slow
@pytest.mark.parametrize("name", ["hard_01", "hard_03"])
def test_my_deck_finds_the_cards_of_photos_photograph_reads(name):
    """Two hard photos in which the grid finder alone finds no grid (a strong tilt; a small
    grid far away): with the reader's grid every card is found, none taken as the layout."""
    from vision.reptile_tank.reader import TerrariumReader

    path = HARD_PHOTOS / f"{name}.jpg"
    if not path.is_file():
        pytest.skip(f"no {path}")
    rows = json.loads(path.with_suffix(".json").read_text())["rows"]
    found = cards_in_photo(path.name, path.read_bytes(), reader=TerrariumReader())
    assert len(found.cards) == len(laid(rows)) == 20, found.how
    assert found.suggested == [None] * 20  # a full board is not the enrolment layout


def test_a_file_named_after_a_card_is_one_named_card_and_bad_files_say_why():
    from vision.reptile_tank.synth.deck import render_face

    face = render_face("rosy_boa", px_per_mm=4.0)
    found = cards_in_photo("Rosy_Boa.PNG", jpeg(face))
    assert found.suggested == ["rosy_boa"] and found.cards[0].shape == face.shape
    assert label_from_file_name("IMG_1.jpg") is None
    assert "empty (0 bytes)" in cards_in_photo("a.jpg", b"").problem
    junk = cards_in_photo("b.jpg", b"not a photo")
    assert junk.problem and not junk.cards


def test_a_small_scan_of_one_card_is_one_card_to_name_not_a_table_refused():
    from vision.reptile_tank.synth.deck import render_face

    face = render_face("rosy_boa", px_per_mm=2.0)  # 126 x 176 px: under a table photo's 200
    assert min(face.shape[:2]) < 200
    found = cards_in_photo("IMG_2.jpg", jpeg(face))
    assert not found.problem and len(found.cards) == 1 and found.suggested == [None]
    assert "small image (126 × 176 px), taken as one card" in found.how
    tiny = cards_in_photo("IMG_3.jpg", jpeg(face[:20, :20]))  # under a face's 32 px
    assert "at least 32 px" in tiny.problem and not tiny.cards


def test_names_make_faces_first_card_is_the_face_later_ones_views_unnamed_counted():
    a = PhotoCards("a", "da", cards=[np.zeros((2, 2, 3), np.uint8) + i for i in range(3)])
    b = PhotoCards("b", "db", cards=[np.full((2, 2, 3), 9, np.uint8)])
    names = {("da", 0): "rock", ("da", 1): None, ("da", 2): "water", ("db", 0): "rock"}
    faces, views, unnamed = faces_from_names([a, b], names)
    assert sorted(faces) == ["rock", "water"] and faces["rock"][0, 0, 0] == 0
    assert list(views) == ["rock"] and [v[0, 0, 0] for v in views["rock"]] == [9]
    assert unnamed == 1


def test_a_face_kept_from_a_card_under_a_thumb_is_named_unsure_a_clean_one_is_not():
    cards = [np.zeros((2, 2, 3), np.uint8) + i for i in range(3)]
    a = PhotoCards("a", "da", cards=cards, crossed=[True, False, True])
    names = {("da", 0): "rock", ("da", 1): "water", ("da", 2): "corn_snake"}
    faces, _, _ = faces_from_names([a], names)
    assert unsure_named([a], faces) == ["rock", "corn_snake"]
    # a second photo's clean rock is kept as the face: rock is sure again
    b = PhotoCards("b", "db", cards=[np.full((2, 2, 3), 9, np.uint8)], crossed=[False])
    faces, _, _ = faces_from_names([a, b], {**names, ("db", 0): "rock"})
    assert unsure_named([a, b], faces) == ["corn_snake"]


@needs_model
@pytest.mark.slow
def test_enrol_two_photos_by_tapping_names_then_back_to_bundled(app, tmp_path):
    import json

    from vision.reptile_tank.reader import TerrariumReader

    at = create_night(app)
    at.switch_page("ui/reptile_tank/pages/deck.py").run()
    no_errors(at)
    second = second_layout()
    photos = [("IMG_1.jpg", layout_photo(FIRST)), ("IMG_2.jpg", layout_photo(second, seed=9))]
    at.file_uploader(key="deck_files").set_value(
        [(name, data, "image/jpeg") for name, data in photos]
    )
    at.run()
    no_errors(at)
    assert any("9 card(s) found" in c.value for c in at.caption)
    assert any("7 card(s) found" in c.value for c in at.caption)
    assert at.button(key="deck_build").disabled
    found = [cards_in_photo(name, data) for name, data in photos]
    for photo, rows in zip(found, [FIRST, second], strict=True):
        for i, label in enumerate(laid(rows)):
            at.selectbox(key=f"deck_name_{photo.digest[:16]}_{i}").select(label)
    at.run()
    no_errors(at)
    assert not at.button(key="deck_build").disabled
    at.button(key="deck_build").click().run()
    no_errors(at)
    assert any("Deck enrolled" in s.value for s in at.success)
    from ui.reptile_tank.backend import night_pack_path

    pack = night_pack_path(at.session_state["rt_night_uid"])
    assert (pack / "pack.json").is_file()
    assert sorted(p.stem for p in (pack / "faces").glob("*.png")) == sorted(FACE_LABELS)
    # the enrolled pack reads the sample photo right
    truth = json.loads((SAMPLES / "sample_1.json").read_text())
    read = TerrariumReader(pack=str(pack)).read((SAMPLES / "sample_1.jpg").read_bytes())
    assert read.rows == truth["board"]["rows"]
    # one tap back to the bundled deck, one tap to the enrolled one again
    assert any("your enrolled deck" in m.value for m in at.markdown)
    at.button(key="deck_use_bundled").click().run()
    no_errors(at)
    assert any("bundled stand-in deck" in m.value for m in at.markdown)
    at.button(key="deck_use_enrolled").click().run()
    no_errors(at)
    assert any("your enrolled deck" in m.value for m in at.markdown)


@needs_model
@pytest.mark.slow
def test_a_name_tapped_twice_adds_another_view_of_that_face(app):
    at = create_night(app)
    at.switch_page("ui/reptile_tank/pages/deck.py").run()
    second = second_layout()
    photos = [
        ("IMG_1.jpg", layout_photo(FIRST)),
        ("IMG_2.jpg", layout_photo(second, seed=9)),
        ("IMG_3.jpg", layout_photo(FIRST, seed=11)),  # the first photo's cards again
    ]
    at.file_uploader(key="deck_files").set_value(
        [(name, data, "image/jpeg") for name, data in photos]
    )
    at.run()
    no_errors(at)
    found = [cards_in_photo(name, data) for name, data in photos]
    for photo, rows in zip(found, [FIRST, second, FIRST], strict=True):
        assert len(photo.cards) == len(laid(rows))
        for i, label in enumerate(laid(rows)):
            at.selectbox(key=f"deck_name_{photo.digest[:16]}_{i}").select(label)
    at.run()
    no_errors(at)
    assert any(
        "Rock is chosen for 2 cards" in c.value and "another view" in c.value for c in at.caption
    ), [c.value for c in at.caption]
    at.button(key="deck_build").click().run()
    no_errors(at)
    from ui.reptile_tank.backend import night_pack_path

    pack = night_pack_path(at.session_state["rt_night_uid"])
    views = sorted(p.name for p in (pack / "examples").iterdir())
    assert views == sorted(laid(FIRST))  # each of the first photo's faces has its second view


@needs_model
@pytest.mark.slow
def test_files_named_after_the_cards_need_no_tapping(app):
    from ui.reptile_tank.backend import png_bytes
    from vision.reptile_tank.synth.deck import render_face

    at = create_night(app)
    at.switch_page("ui/reptile_tank/pages/deck.py").run()
    faces = [
        (f"{label}.png", png_bytes(render_face(label, px_per_mm=4.0)), "image/png")
        for label in FACE_LABELS
    ]
    at.file_uploader(key="deck_files").set_value(faces[:-1]).run()
    no_errors(at)
    assert at.button(key="deck_build").disabled  # one face missing
    assert any("Water" in i.value and "Still to name" in i.value for i in at.info)
    notes = ("notes.png", png_bytes(render_face("rock", px_per_mm=5.0)), "image/png")
    at.file_uploader(key="deck_files").set_value([*faces, notes]).run()
    assert any("not named after a card id" in w.value for w in at.warning)  # left out
    assert not at.button(key="deck_build").disabled


def test_without_a_game_night_the_page_says_to_pick_one(app):
    at = app
    at.switch_page("ui/reptile_tank/pages/deck.py").run()
    no_errors(at)
    assert any("game night" in i.value for i in at.info)


@needs_model
@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(400)
def test_enrol_on_a_phone_by_tapping_names(tmp_path):
    """The same enrolment in a real browser at 390 x 844 (touch): the name pickers open
    without a keyboard, every card is named by two taps, the deck is built."""
    from browser_helpers import (
        NO_SIDEWAYS_SCROLL,
        app_page,
        create_night,
        goto_page,
        require_browser,
        wait_idle,
    )

    require_browser()
    from ui.reptile_tank.labels import full_name

    second = second_layout()
    paths = []
    for name, rows, seed in (("IMG_1.jpg", FIRST, 7), ("IMG_2.jpg", second, 9)):
        path = tmp_path / name
        path.write_bytes(layout_photo(rows, seed=seed))
        paths.append(str(path))
    names = laid(FIRST) + laid(second)
    with app_page(tmp_path) as page:
        create_night(page)
        goto_page(page, "My deck")
        page.locator(".st-key-deck_files input[type=file]").set_input_files(paths)
        wait_idle(page)
        pickers = page.locator("[class*='st-key-deck_name_'] input[role='combobox']")
        pickers.first.wait_for(timeout=60_000)
        assert pickers.count() == 16
        assert pickers.first.get_attribute("inputmode") == "none"  # no phone keyboard
        tops = page.evaluate(
            "() => [...document.querySelectorAll(\"[class*='st-key-deck_name_']\")]"
            ".slice(0, 3).map(e => Math.round(e.getBoundingClientRect().top))"
        )
        assert len(set(tops)) == 1, tops  # three cards a row on a phone
        for i, label in enumerate(names):
            pickers.nth(i).scroll_into_view_if_needed()
            pickers.nth(i).tap()
            page.get_by_role("option", name=full_name(label), exact=True).tap()
            wait_idle(page)
        assert page.evaluate(NO_SIDEWAYS_SCROLL)
        build = page.locator(".st-key-deck_build button")
        assert build.is_enabled()
        build.click()
        page.get_by_text("Deck enrolled").wait_for(timeout=120_000)
        page.get_by_text("your enrolled deck").first.wait_for()
        page.screenshot(path=str(tmp_path / "deck-enrolled.png"), full_page=True)
        page.locator(".st-key-deck_use_bundled button").click()
        wait_idle(page)
        page.get_by_text("Back to the bundled deck").first.wait_for()


@needs_model
def test_a_face_washed_out_by_glare_is_flagged_when_the_deck_is_built(tmp_path):
    """The app's build adds the faces washed out by a sheen to those the player is told to
    photograph again, and the pack flags their reads (``unsure_faces``)."""
    from ui.reptile_tank.backend import enroll_deck
    from vision.reptile_tank.gallery import DeckPack, to_face_size
    from vision.reptile_tank.lookalike import family_deck
    from vision.reptile_tank.synth.real_table import broad_sheen

    deck = family_deck(np.random.default_rng(5707), px_per_mm=4.0)
    faces = {label: to_face_size(deck[label]) for label in FACE_LABELS}
    faces["common_box_turtle"] = broad_sheen(faces["common_box_turtle"])
    unsure = enroll_deck(faces, tmp_path / "deck", unsure=["rock"])
    assert unsure == ["rock", "common_box_turtle"]
    assert DeckPack.load(tmp_path / "deck").unsure == ("rock", "common_box_turtle")
