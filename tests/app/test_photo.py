"""AppTest drives of the photo path: upload, read with the shipped model, check and fix,
the "no grid found" corner fallback, and unusable files."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from app_helpers import no_errors, start_game
from PIL import Image

from service.store import schema_history
from vision.models import DEFAULT_MODEL, model_files

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "reptile_tank" / "samples" / "sample_1.jpg"
MODEL = model_files(DEFAULT_MODEL).onnx

needs_reader = pytest.mark.skipif(
    not (MODEL.exists() and SAMPLE.exists()),
    reason="the card reader's model or the sample photo is not built yet",
)


def plain_table_photo() -> bytes:
    """A 900x700 JPEG of a smooth, empty table (seeded): no terrarium in it."""
    rng = np.random.default_rng(7)
    base = np.full((700, 900, 3), (96, 120, 88), np.uint8)
    noise = rng.normal(0, 4, base.shape)
    image = np.clip(base + noise, 0, 255).astype(np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


@needs_reader
@pytest.mark.slow
def test_upload_reads_the_board_and_a_fix_sticks(app):
    at = start_game(app)
    at.switch_page("ui/reptile_tank/pages/photo.py").run()
    no_errors(at)
    at.file_uploader(key="photo_upload_Ann").upload("table.jpg", SAMPLE.read_bytes(), "image/jpeg")
    at.run()
    no_errors(at)
    entry = at.session_state["rt_entries"]["Ann"]
    assert entry.source == "photo"
    assert len(entry.rows) == 4 and all(len(r) == 5 for r in entry.rows)
    assert entry.overlay_jpeg.startswith(b"\xff\xd8") and entry.thumbnail_jpeg.startswith(
        b"\xff\xd8"
    )
    assert len(entry.photo_sha256) == 64
    # the table moves on: the next player's photo comes up, the read is summed up
    assert any("Ann's terrarium is read" in s.value for s in at.success)
    assert at.session_state["rt_active_player"] == "Ben"
    assert at.file_uploader(key="photo_upload_Ben") is not None
    # a rerun (any widget) never reads the photo again nor undoes a fix
    at.switch_page("ui/reptile_tank/pages/check.py").run()
    at.radio(key="check_player").set_value("Ann").run()
    at.button(key="check_cell_3_4").click().run()
    at.button(key="check_pick_water").click().run()
    no_errors(at)
    assert at.session_state["rt_entries"]["Ann"].rows[3][4] == "water"
    assert (3, 4) in at.session_state["rt_entries"]["Ann"].corrected
    at.switch_page("ui/reptile_tank/pages/photo.py").run()
    assert at.session_state["rt_entries"]["Ann"].rows[3][4] == "water"


@needs_reader
@pytest.mark.slow
def test_camera_photo_is_saved_with_its_hash_and_thumbnail(app, app_env):
    import hashlib

    from app_helpers import SECOND_BOARD, enter_by_hand

    from leaderboard.store import Store

    at = start_game(app)
    at.switch_page("ui/reptile_tank/pages/photo.py").run()
    at.radio(key="photo_camera_kind").set_value("browser").run()  # Streamlit's camera widget
    at.camera_input(key="photo_camera_Ann").upload("shot.jpg", SAMPLE.read_bytes(), "image/jpeg")
    at.run()
    no_errors(at)
    read = [row[:] for row in at.session_state["rt_entries"]["Ann"].rows]
    finished = [["water" if label == "empty" else label for label in row] for row in read]
    enter_by_hand(at, "Ann", finished)
    enter_by_hand(at, "Ben", SECOND_BOARD)
    at.switch_page("ui/reptile_tank/pages/confirm.py").run()
    at.button(key="confirm_save").click().run()
    no_errors(at)
    game = Store(app_env, history=schema_history()).get_game(at.session_state["rt_last_saved_game"])
    ann = game.players[0]
    assert ann.board == {"rows": finished}
    assert ann.photo_sha256 == hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
    assert ann.photo_thumbnail.startswith(b"\xff\xd8") and len(ann.photo_thumbnail) < 32 * 1024
    assert game.players[1].photo_sha256 is None  # typed by hand


@needs_reader
@pytest.mark.slow
def test_no_grid_asks_for_the_four_corners(app):
    at = start_game(app)
    at.switch_page("ui/reptile_tank/pages/photo.py").run()
    at.file_uploader(key="photo_upload_Ann").upload("table.jpg", plain_table_photo(), "image/jpeg")
    at.run()
    no_errors(at)
    assert any("No terrarium found" in w.value for w in at.warning)
    assert "Ann" not in at.session_state["rt_entries"]
    # corners that do not go clockwise are refused with a message
    at.number_input(key="corners_Ann_x0").set_value(810.0)  # left and right swapped
    at.number_input(key="corners_Ann_x1").set_value(90.0)
    at.button(key="corners_Ann_go").click().run()
    assert any("clockwise" in e.value for e in at.error)
    for i, (x, y) in enumerate([(150, 100), (750, 100), (750, 600), (150, 600)]):
        at.number_input(key=f"corners_Ann_x{i}").set_value(float(x))
        at.number_input(key=f"corners_Ann_y{i}").set_value(float(y))
    at.button(key="corners_Ann_go").click().run()
    no_errors(at)
    entry = at.session_state["rt_entries"]["Ann"]
    assert entry.source == "photo" and len(entry.rows) == 4


def test_unusable_file_is_refused_with_a_message(app):
    at = start_game(app)
    at.switch_page("ui/reptile_tank/pages/photo.py").run()
    at.file_uploader(key="photo_upload_Ann").upload(
        "notes.jpg", b"not a photo at all", "image/jpeg"
    )
    at.run()
    assert not at.exception
    assert any("cannot be used" in e.value for e in at.error)
    assert "Ann" not in at.session_state["rt_entries"]


@needs_reader
@pytest.mark.slow
def test_enrolled_deck_learns_confirmed_fixes(app, tmp_path, monkeypatch):
    from app_helpers import SECOND_BOARD, enter_by_hand

    from scoring.reptile_tank.cards import FACE_LABELS
    from ui.reptile_tank.backend import enroll_deck
    from vision.reptile_tank.synth.deck import render_face

    pack = tmp_path / "deck"
    monkeypatch.setenv("REPTILE_TANK_PACK", str(pack))
    enroll_deck({label: render_face(label, px_per_mm=4.0) for label in FACE_LABELS}, pack)
    assert (pack / "pack.json").is_file() and (pack / "gallery.npz").is_file()
    at = start_game(app)
    # a deck belongs to a game night: this night switches to its enrolled deck (one tap)
    at.switch_page("ui/reptile_tank/pages/deck.py").run()
    at.button(key="deck_use_enrolled").click().run()
    no_errors(at)
    at.switch_page("ui/reptile_tank/pages/photo.py").run()
    at.file_uploader(key="photo_upload_Ann").upload("t.jpg", SAMPLE.read_bytes(), "image/jpeg")
    at.run()
    no_errors(at)
    at.switch_page("ui/reptile_tank/pages/check.py").run()
    at.radio(key="check_player").set_value("Ann").run()
    before = at.session_state["rt_entries"]["Ann"].rows[1][2]
    fix = "neon_day_gecko" if before != "neon_day_gecko" else "rosy_boa"
    at.button(key="check_cell_1_2").click().run()
    at.button(key=f"check_pick_{fix}").click().run()
    rows = at.session_state["rt_entries"]["Ann"].rows
    for r, row in enumerate(rows):
        for c, label in enumerate(row):
            if label == "empty":
                at.button(key=f"check_cell_{r}_{c}").click().run()
                at.button(key="check_pick_water").click().run()
    corrected = len(at.session_state["rt_entries"]["Ann"].corrected)
    enter_by_hand(at, "Ben", SECOND_BOARD)
    at.switch_page("ui/reptile_tank/pages/confirm.py").run()
    at.button(key="confirm_save").click().run()
    no_errors(at)
    assert len(list((pack / "examples" / fix).glob("*.png"))) == 1
    assert sum(1 for _ in (pack / "examples").rglob("*.png")) == corrected
    assert any(f"learned {corrected}" in s.value for s in at.success)


@needs_reader
@pytest.mark.slow
def test_my_deck_page_enrols_one_image_per_face(app, tmp_path, monkeypatch):
    from app_helpers import create_night

    from scoring.reptile_tank.cards import FACE_LABELS
    from ui.reptile_tank.backend import png_bytes
    from vision.reptile_tank.synth.deck import render_face

    pack = tmp_path / "my-deck"
    monkeypatch.setenv("REPTILE_TANK_PACK", str(pack))
    at = create_night(app)  # a deck belongs to a game night
    at.switch_page("ui/reptile_tank/pages/deck.py").run()
    no_errors(at)
    faces = [
        (f"{label}.png", png_bytes(render_face(label, px_per_mm=4.0)), "image/png")
        for label in FACE_LABELS
    ]
    at.file_uploader(key="deck_files").set_value(faces[:-1]).run()
    assert at.button(key="deck_build").disabled  # one face missing
    other = png_bytes(render_face(FACE_LABELS[0], px_per_mm=5.0))  # a card without a name
    at.file_uploader(key="deck_files").set_value([*faces, ("notes.png", other, "image/png")])
    at.run()
    assert any("not named after a card id" in w.value for w in at.warning)
    assert not at.button(key="deck_build").disabled
    at.button(key="deck_build").click().run()
    no_errors(at)
    assert (pack / "pack.json").is_file()
    assert sorted(p.stem for p in (pack / "faces").glob("*.png")) == sorted(FACE_LABELS)


@needs_reader
@pytest.mark.slow
def test_sample_photo_is_not_overridden_by_a_kept_upload(app):
    at = start_game(app)
    at.switch_page("ui/reptile_tank/pages/photo.py").run()
    at.file_uploader(key="photo_upload_Ann").upload("table.jpg", plain_table_photo(), "image/jpeg")
    at.run()
    assert waits_for_corners(at)
    at.button(key="photo_sample").click().run()
    no_errors(at)
    assert at.session_state["rt_entries"]["Ann"].source == "photo"
    at.run()  # the upload is still in its widget: it must not replace the sample's read
    assert at.session_state["rt_entries"]["Ann"].source == "photo"
    assert not waits_for_corners(at)


def waits_for_corners(at) -> bool:
    return "Ann" in at.session_state["rt_pending_corners"]


@needs_reader
@pytest.mark.slow
def test_a_night_learns_its_confirmed_fixes_and_only_that_night(app, tmp_path):
    """Issue 28 item 6: on the bundled deck a confirmed fix teaches this night's own examples
    (never the shared stand-in gallery); the night's next read uses them, another night not."""
    from app_helpers import SECOND_BOARD, enter_by_hand

    from service.reptile_tank.learning import NightExamples
    from ui.reptile_tank.backend import night_learning_path
    from vision.reptile_tank.gallery import stand_in_gallery_path
    from vision.reptile_tank.reader import TerrariumReader

    reader = TerrariumReader()
    shared_path = stand_in_gallery_path(reader.embedder)
    shared = shared_path.read_bytes()
    at = start_game(app)
    at.switch_page("ui/reptile_tank/pages/photo.py").run()
    at.file_uploader(key="photo_upload_Ann").upload("t.jpg", SAMPLE.read_bytes(), "image/jpeg")
    at.run()
    no_errors(at)
    at.switch_page("ui/reptile_tank/pages/check.py").run()
    at.radio(key="check_player").set_value("Ann").run()
    before = at.session_state["rt_entries"]["Ann"].rows[1][2]
    fix = "neon_day_gecko" if before != "neon_day_gecko" else "rosy_boa"
    at.button(key="check_cell_1_2").click().run()
    at.button(key=f"check_pick_{fix}").click().run()
    enter_by_hand(at, "Ben", SECOND_BOARD)
    at.switch_page("ui/reptile_tank/pages/confirm.py").run()
    at.button(key="confirm_save").click().run()
    no_errors(at)
    uid = at.session_state["rt_night_uid"]
    night = NightExamples(night_learning_path(uid))
    assert night.counts().get(fix, 0) == 1  # the fix (and any confirmed flagged cell)
    other = NightExamples(night_learning_path("another-night"))
    assert other.version() == ()
    assert shared_path.read_bytes() == shared  # the stand-in gallery: never written
    # the next read of this night is made with the stand-in gallery plus these examples
    tonight = night.gallery(reader.gallery, reader.embedder)
    assert len(tonight.embeddings) > len(reader.gallery.embeddings)
    assert other.gallery(reader.gallery, reader.embedder) is reader.gallery
    # and the app reads the night's next photo with its own reader (no error, the board read)
    at.switch_page("ui/reptile_tank/pages/photo.py").run()
    at.file_uploader(key="photo_upload_Ben").upload("u.jpg", SAMPLE.read_bytes(), "image/jpeg")
    at.run()
    no_errors(at)
    assert at.session_state["rt_entries"]["Ben"].source == "photo"
