"""Issue 31's rough edges, one named test each (AppTest unless said): each failed before its
fix. The table flow's check page (every flagged cell of every player, one tap each) too."""

from __future__ import annotations

import io
import tomllib
from pathlib import Path

import pytest
from app_helpers import FULL_BOARD, SECOND_BOARD, enter_by_hand, frame, no_errors, start_game
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "card_embedder.onnx"
PHOTO = "ui/reptile_tank/pages/photo.py"
CHECK = "ui/reptile_tank/pages/check.py"
CONFIRM = "ui/reptile_tank/pages/confirm.py"
SETUP = "ui/reptile_tank/pages/setup.py"

needs_reader = pytest.mark.skipif(not MODEL.exists(), reason="the card reader's model is missing")


def title(at) -> str:
    return at.title[0].value if at.title else ""


def plain_table_photo() -> bytes:
    """A smooth, empty table: no terrarium in it (the reader asks for corners)."""
    import numpy as np

    rng = np.random.default_rng(7)
    image = np.clip(np.full((700, 900, 3), (96, 120, 88)) + rng.normal(0, 4, (700, 900, 3)), 0, 255)
    buffer = io.BytesIO()
    Image.fromarray(image.astype("uint8")).save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


def test_start_the_game_opens_photograph_for_seat_one(app):
    at = start_game(app, "Ann\nBen\nCara")
    assert title(at) == "📷 Photograph", title(at)
    assert at.session_state["rt_active_player"] == "Ann"
    label = at.file_uploader(key="photo_upload_Ann").label.replace("\\", "")
    assert "Ann's terrarium (1 of 3)" in label, label
    assert any("Game started with 3 players" in s.value for s in at.success)


def test_next_photograph_button_opens_photograph_for_that_player(app):
    at = start_game(app)
    enter_by_hand(at, "Ann", FULL_BOARD)
    at.button(key="next_player").click().run()
    no_errors(at)
    assert title(at) == "📷 Photograph", title(at)
    assert at.session_state["rt_active_player"] == "Ben"
    assert at.file_uploader(key="photo_upload_Ben") is not None


def test_photograph_opened_from_the_menu_moves_on_to_the_next_player(app):
    at = start_game(app, "Ann\nBen\nCara")
    enter_by_hand(at, "Ann", FULL_BOARD)
    at.radio(key="check_player").set_value("Ann").run()
    at.switch_page(PHOTO).run()
    no_errors(at)
    assert at.session_state["rt_active_player"] == "Ben"
    at.radio(key="photo_player").set_value("Ann").run()  # a re-take of Ann stays on Ann
    assert at.session_state["rt_active_player"] == "Ann"


@needs_reader
def test_a_refused_photo_clears_the_previous_photo_and_its_corner_taps(app):
    at = start_game(app)
    at.switch_page(PHOTO).run()
    at.file_uploader(key="photo_upload_Ann").upload("t.jpg", plain_table_photo(), "image/jpeg")
    at.run()
    assert any("No terrarium found" in w.value for w in at.warning)
    at.file_uploader(key="photo_upload_Ann").upload("n.jpg", b"not a photo", "image/jpeg")
    at.run()
    assert any("cannot be used" in e.value for e in at.error)
    assert not any("No terrarium found" in w.value for w in at.warning)
    assert "Ann" not in at.session_state["rt_pending_corners"]
    assert not [w for w in at.button if str(w.key).startswith("corners_Ann")]


def test_fit_pixel_cap_reduces_and_turns_a_photo_over_the_cap():
    from service.reptile_tank.reading import fit_pixel_cap

    image = Image.new("RGB", (2000, 1500), (90, 120, 80))
    exif = image.getexif()
    exif[0x0112] = 6  # the phone was held upright: turn 90°
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", exif=exif.tobytes())
    out, note = fit_pixel_cap(buffer.getvalue(), max_pixels=1_000_000)
    width, height = Image.open(io.BytesIO(out)).size
    assert width * height <= 1_000_000 and height > width, (width, height)
    assert "3 MP" in note and "reduced" in note
    small = buffer.getvalue()
    assert fit_pixel_cap(small) == (small, "")  # within the 50 MP cap: untouched
    assert fit_pixel_cap(b"not a photo") == (b"not a photo", "")


@needs_reader
@pytest.mark.slow
def test_a_photo_over_50_mp_is_reduced_instead_of_refused(app):
    big = io.BytesIO()
    Image.new("RGB", (8200, 6200), (96, 120, 88)).save(big, format="JPEG", quality=80)
    at = start_game(app)
    at.switch_page(PHOTO).run()
    at.file_uploader(key="photo_upload_Ann").upload("big.jpg", big.getvalue(), "image/jpeg")
    at.run()
    assert not at.error, [e.value for e in at.error]  # was "over the 50 MP limit"
    assert any("51 MP" in i.value and "reduced" in i.value for i in at.info)
    assert "Ann" in at.session_state["rt_pending_corners"]  # read: a plain table, no grid


def test_the_upload_limit_is_64_mb_everywhere(app):
    from common.safe_io import MAX_PHOTO_BYTES

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] * 2**20 == MAX_PHOTO_BYTES
    assert "64 MB" in (ROOT / "README.md").read_text()
    at = start_game(app)
    assert any("up to 64 MB" in c.value for c in at.caption)
    assert not any("50 MB" in c.value for c in at.caption)


def test_objectives_draw_two_at_random_and_show_in_this_game(app):
    from app_helpers import create_night

    from scoring.reptile_tank.rules import load_rules

    rules = load_rules()
    at = create_night(app)
    at.text_area(key="setup_players").input("Ann\nBen")
    at.toggle(key="setup_use_objectives").set_value(True).run()
    assert not at.multiselect  # no "Select all" on a pick-2 list
    texts = [b.label for b in at.button if str(b.key).startswith("setup_objective_")]
    for n, card in rules.objectives.items():  # every card's whole text and VP, nothing cut
        assert f"{n}: {card.text} ({card.vp} VP)" in texts
    drawn = set()
    for _ in range(4):
        at.button(key="setup_draw_objectives").click().run()
        chosen = at.session_state["setup_objectives"]
        assert len(chosen) == 2 and len(set(chosen)) == 2
        drawn.add(tuple(chosen))
    assert len(drawn) > 1  # at random
    at.button(key="setup_start").click().run()
    no_errors(at)
    assert at.session_state["rt_objectives"] == sorted(chosen)
    at.switch_page(SETUP).run()
    shown = [t.value for t in at.text]
    for n in chosen:
        assert f"{n}: {rules.objectives[n].text} ({rules.objectives[n].vp} VP)" in shown


def test_a_third_objective_tap_replaces_the_older_choice(app):
    from app_helpers import create_night

    at = create_night(app)
    at.toggle(key="setup_use_objectives").set_value(True).run()
    for n in (3, 11, 5):
        at.button(key=f"setup_objective_{n}").click().run()
    assert at.session_state["setup_objectives"] == [5, 11]
    at.button(key="setup_objective_5").click().run()  # a tap on a chosen one takes it back
    assert at.session_state["setup_objectives"] == [11]


def test_confirm_table_shows_every_pad_line(app):
    at = start_game(app)
    enter_by_hand(at, "Ann", FULL_BOARD)
    enter_by_hand(at, "Ben", SECOND_BOARD)
    at.switch_page(CONFIRM).run()
    table = frame(at, "Rank", "Player", "Total")
    assert {"Lizards", "Snakes", "Turtles", "Cockroach", "Water", "Dry-land", "Objectives"} <= set(
        table.columns
    )
    at.button(key="confirm_save").click().run()
    no_errors(at)
    assert any("saved to the leaderboard" in s.value for s in at.success)
    frame(at, "Rank", "Lizards")  # still shown once saved


def test_a_too_long_name_error_names_the_player(app):
    from app_helpers import create_night

    at = create_night(app)
    at.text_area(key="setup_players").input("Ann\n" + "Bartholomew" * 4)
    at.button(key="setup_start").click().run()
    (error,) = at.error
    assert "line 2" in error.value and "Bartholomew" in error.value and "44 characters" in (
        error.value
    ), error.value


def test_nimalia_played_is_in_local_time():
    from types import SimpleNamespace

    from ui.played import game_rows

    game = SimpleNamespace(id=1, played_at="2026-07-01T21:30:00+00:00", goals=[1], players=[])
    assert game_rows([game], "Europe/Paris")[0]["Played"] == "2026-07-01 23:30"
    assert game_rows([game], None)[0]["Played"] == "2026-07-01 21:30"


@needs_reader
def test_the_check_page_lists_only_the_flagged_cells_of_the_whole_table(app, tmp_path):
    from table_photos import table_photos

    photos = table_photos(tmp_path)
    at = start_game(app, "Ann\nBen\nCara\nDan")
    for name, (photo, _rows) in zip(["Ann", "Ben", "Cara", "Dan"], photos, strict=True):
        assert title(at) == "📷 Photograph"
        at.file_uploader(key=f"photo_upload_{name}").upload("p.jpg", photo.read_bytes(), "image/jpeg")
        at.run()
        no_errors(at)
    assert title(at) == "🔎 Check the table"  # the last photo opens the check by itself
    flags = sorted(
        str(b.key) for b in at.button if str(b.key).startswith("check_flag_") and "other" not in str(b.key)
    )
    # two flagged cells (seat 0 and seat 1, row 2, column 3), two guesses each
    assert len(flags) == 4 and {k.split("_")[2] for k in flags} == {"0", "1"}, flags
    truth = photos[1][1][1][2]
    at.button(key=f"check_flag_1_1_2_{truth}").click().run()
    assert at.session_state["rt_entries"]["Ben"].rows[1][2] == truth
    assert not any(str(b.key).startswith("check_flag_1_") for b in at.button)
    totals = [t.value for t in at.text if t.value.startswith("Totals:")]
    assert totals and all(name in totals[0] for name in ("Ann", "Ben", "Cara", "Dan")), totals
    at.button(key=f"check_flag_0_1_2_{photos[0][1][1][2]}").click().run()  # as read: checked
    assert not any(str(b.key).startswith("check_flag_") for b in at.button)
    at.button(key="check_save").click().run()
    no_errors(at)
    assert title(at) == "✅ Confirm & save"
    assert any("saved to the leaderboard" in s.value for s in at.success)
