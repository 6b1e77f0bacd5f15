"""A night's own Nimalia deck (issue 15): the 60 card images enrolled into a pack in the night's
folder (atomically, refusals in one message), the page's folded section, and both photo reads
(automatic and from one card's corners) passing the night's pack; back to the stand-in deck in
one tap."""

from __future__ import annotations

import io

import numpy as np
import pytest
from app_helpers import no_errors
from PIL import Image
from test_nimalia_app import start

from service.nimalia import deck as D


def _png(rgb: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(rgb).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture(scope="module")
def variant_files() -> list[tuple[str, bytes]]:
    pytest.importorskip("cv2")
    from vision.nimalia.deck import STYLES, render_deck

    deck = render_deck(STYLES["variant"], px_per_mm=3.0)
    return [(f"{cid}.png", _png(rgb)) for cid, rgb in sorted(deck.items())]


def test_refusals_list_everything_wrong_at_once(variant_files, tmp_path):
    files = [f for f in variant_files if f[0] not in ("7.png", "8.png")]
    files += [("3.jpg", variant_files[2][1]), ("61.png", b"x"), ("notes.txt", b"hi")]
    files += [("9.png", b"not an image")]
    files = [f for f in files if f[0] != "9.png" or f[1] == b"not an image"]
    with pytest.raises(ValueError) as caught:
        D.enroll(files, tmp_path / "pack")
    message = str(caught.value)
    assert message.startswith("Cannot enrol this deck:")
    assert "61.png, notes.txt" in message  # unknown ids and names
    assert "more than one image for card 3" in message
    assert "not an image the app can open: 9.png" in message
    assert "3 of 60 cards missing: 7, 8, 9" in message
    assert not (tmp_path / "pack").exists()  # nothing written on a refusal


def test_a_photo_with_no_card_in_it_is_refused_naming_the_card(variant_files, tmp_path):
    """A 4:3 photo is searched for its card; with none found the deck is refused, the card
    named, nothing written (squeezing the photo square would cut every square wrong)."""
    blur = np.random.default_rng(2).integers(0, 256, (480, 640, 3), dtype=np.uint8)
    blurred = np.asarray(Image.fromarray(blur).resize((64, 48)).resize((640, 480)))
    files = [f if f[0] != "12.png" else ("12.png", _png(blurred)) for f in variant_files]
    with pytest.raises(ValueError) as caught:
        D.enroll(files, tmp_path / "pack")
    message = str(caught.value)
    assert message.startswith("Cannot enrol this deck: no card found in the photos of cards [12]")
    assert "\n" not in message
    assert not (tmp_path / "pack").exists()


def test_no_card_image_at_all(tmp_path):
    with pytest.raises(ValueError, match="no card image among them: all 60 are needed"):
        D.card_images([("photo.png", b"")])
    with pytest.raises(ValueError, match="no card image among them"):
        D.card_images([])


def test_ids_may_be_zero_padded_and_jpeg(variant_files):
    files = [(name.replace(".png", ".jpg").zfill(6), data) for name, data in variant_files]
    images = D.card_images(files)
    assert sorted(images) == list(range(1, 61))
    assert images[1].dtype == np.uint8 and images[1].shape[2] == 3


def test_pack_to_read_follows_the_choice_and_the_pack(tmp_path):
    assert not D.has_pack(None) and not D.has_pack(tmp_path)
    with pytest.raises(ValueError, match="not on this server"):  # never the stand-in instead
        D.pack_to_read(tmp_path, "enrolled")
    assert D.pack_to_read(tmp_path, "bundled") is None
    (tmp_path / "pack.json").write_text("{}")
    (tmp_path / "gallery.npz").write_bytes(b"")
    assert D.has_pack(tmp_path)
    assert D.pack_to_read(tmp_path, "enrolled") == str(tmp_path)
    assert D.pack_to_read(tmp_path, "bundled") is None


@pytest.mark.slow
def test_an_enrolled_pack_reads_a_variant_reserve(variant_files, tmp_path):
    """A real pack from the 60 rendered variant cards, built into the night's folder (twice:
    the second replaces the first whole), read with by the reader."""
    from vision.nimalia.deck import STYLES
    from vision.nimalia.reader import read_reserve
    from vision.nimalia.scene import render_reserve
    from vision.reptile_tank.classifier import DEFAULT_MODEL

    if not DEFAULT_MODEL.exists():
        pytest.skip("the Nimalia reader's model is missing")
    folder = tmp_path / "nimalia-decks" / "night-x"
    out, seconds = D.enroll(variant_files, folder)
    print(f"enrolment: {seconds:.1f} s")
    assert out == folder and D.has_pack(folder) and seconds > 0
    assert sorted(p.name for p in folder.iterdir()) == ["cards", "gallery.npz", "pack.json"]
    assert len(list((folder / "cards").glob("*.png"))) == 60
    D.enroll(variant_files, folder)  # enrolled again: replaced, no leftovers beside it
    assert sorted(p.name for p in folder.parent.iterdir()) == ["night-x"]
    image, truth = render_reserve(
        0, style=STYLES["variant"], n_cards=6, size=(1600, 1200), distractors=False
    )
    read = read_reserve(image, D.pack_to_read(folder, "enrolled"))
    assert read.found
    want = truth["squares"]
    got = read.squares
    right = sum(
        r < len(got) and c < len(got[r]) and got[r][c] == token
        for r, row in enumerate(want)
        for c, token in enumerate(row)
    )
    print("variant reserve read with its enrolled pack:", right, "of", len(want) * len(want[0]))
    assert right >= 0.9 * len(want) * len(want[0])


def _fake_read(calls):
    from vision.nimalia.reader import ReserveRead, SquareRead

    def read(image, *rest):
        calls.append(rest[-1] if rest else None)
        cells = [[SquareRead("I:bea", 0.9, False, (("I:bea", 0.9),))]]
        return ReserveRead([["I:bea"]], cells, True, ["read"], object())

    return read


def test_the_page_reads_with_the_nights_pack(app, monkeypatch):
    """The section enrols (service stubbed: the real build is the slow test above), both reads
    get the night's pack, one tap goes back to the stand-in deck (reads get ``None``)."""
    import vision.nimalia.manual as manual
    import vision.nimalia.reader as reader_module
    from ui.nimalia import backend

    calls: list = []
    monkeypatch.setattr(reader_module, "read_reserve", _fake_read(calls))
    monkeypatch.setattr(manual, "read_reserve_from_card", _fake_read(calls))

    def fake_enroll(files, folder, name=None):
        assert [n for n, _ in files] == ["1.png"]
        folder.mkdir(parents=True)
        (folder / "pack.json").write_text("{}")
        (folder / "gallery.npz").write_bytes(b"")
        return folder, 9.0

    monkeypatch.setattr(D, "enroll", fake_enroll)
    at = start(app)
    at.segmented_control(key="nim_mode").set_value("Photo").run()
    no_errors(at)
    assert any("stand-in deck" in m.value for m in at.markdown)
    assert at.button(key="nim_deck_enrol").disabled
    assert not [b for b in at.button if b.key == "nim_deck_enrolled"]
    at.file_uploader(key="nim_deck_files").upload("1.png", b"\x89PNG", "image/png")
    at.run()
    at.button(key="nim_deck_enrol").click().run()
    no_errors(at)
    folder = backend.nimalia_pack_path(at.session_state["rt_night_uid"])
    assert any("your enrolled Nimalia deck" in m.value for m in at.markdown)
    photo = _png(np.full((600, 800, 3), 150, np.uint8))
    at.file_uploader(key="nim_photo_0_1").upload("reserve.png", photo, "image/png")
    at.run()
    no_errors(at)
    assert calls == [str(folder)]
    at.button(key="nim_tap_card_0_1").click().run()
    at.session_state["nim_corners_0_1_points"] = [(100.0, 100.0), (300.0, 100.0)]
    at.session_state["nim_corners_0_1_points"] += [(300.0, 300.0), (100.0, 300.0)]
    at.run()
    at.button(key="nim_corners_0_1_done").click().run()
    no_errors(at)
    assert calls == [str(folder), str(folder)]
    # one tap back to the stand-in deck; the pack is kept and one tap brings it back
    at.button(key="nim_deck_bundled").click().run()
    no_errors(at)
    assert any("stand-in deck" in m.value for m in at.markdown)
    assert folder.is_dir()
    at.button(key="nim_deck_enrolled").click().run()
    assert any("your enrolled Nimalia deck" in m.value for m in at.markdown)


def test_the_page_shows_a_refusal_as_one_message(app):
    at = start(app)
    at.segmented_control(key="nim_mode").set_value("Photo").run()
    at.file_uploader(key="nim_deck_files").upload("1.png", b"not an image", "image/png")
    at.run()
    at.button(key="nim_deck_enrol").click().run()
    assert len(at.error) == 1
    message = at.error[0].value.replace("\\", "")  # shown escaped (plain text)
    assert message.startswith("Cannot enrol this deck: not an image the app can open: 1.png")
    assert "no card image among them" in message
    assert any("stand-in deck" in m.value for m in at.markdown)


@pytest.mark.slow
def test_a_reader_cached_for_a_pack_is_replaced_when_the_pack_is_enrolled_again(
    variant_files, tmp_path
):
    """Another server (or this one) enrols the night's deck again in the same folder: the next
    read loads the new gallery instead of the cached reader of the replaced one."""
    pytest.importorskip("cv2")
    from vision.nimalia.reader import cached_reader

    folder = tmp_path / "night-x"
    D.enroll(variant_files, folder)
    first = cached_reader(folder)
    assert cached_reader(folder) is first
    D.enroll(variant_files, folder)
    assert cached_reader(folder) is not first
