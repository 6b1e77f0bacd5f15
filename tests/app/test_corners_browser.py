"""Corners by tapping the photo: the geometry and drawing helpers, and a real-browser test that
taps the four corners of a photo in which no grid is found (with one undo and one magnifier tap)
and gets the right board."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from browser_helpers import image_box, tap_on
from PIL import Image

from ui.corners import (
    ZOOM_SIDE,
    ZOOM_WINDOW,
    apply_tap,
    check_corners,
    marked_photo,
    order_corners,
    to_frame,
    zoom_at,
)
from vision.models import DEFAULT_MODEL, model_files

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "reptile_tank" / "samples"
SAMPLE = SAMPLES / "sample_1.jpg"
TRUTH = SAMPLES / "sample_1.json"
MODEL = model_files(DEFAULT_MODEL).onnx


def jpeg_of(image: np.ndarray, quality: int = 90) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue()


def blurred_sample() -> tuple[bytes, list[list[float]], list[list[str]]]:
    """Sample 1 with a 25 px horizontal motion blur (the grid finder finds no terrarium in it,
    the reader still reads it from the true corners), its true corners and board."""
    import cv2

    truth = json.loads(TRUTH.read_text())
    rgb = np.asarray(Image.open(SAMPLE).convert("RGB"))
    kernel = np.zeros((25, 25), np.float32)
    kernel[12, :] = 1 / 25
    return jpeg_of(cv2.filter2D(rgb, -1, kernel)), truth["grid_corners"], truth["board"]["rows"]


def test_taps_in_any_order_become_clockwise_from_top_left():
    square = [(10.0, 10.0), (90.0, 12.0), (88.0, 80.0), (12.0, 78.0)]
    for order in ([2, 0, 3, 1], [3, 2, 1, 0], [1, 3, 0, 2]):
        assert order_corners([square[i] for i in order]) == square
    assert check_corners(order_corners(square[::-1]), 100, 100) == square


def test_a_tap_adds_a_corner_then_moves_the_nearest():
    pts: list = []
    for i, p in enumerate([(10, 10), (90, 10), (90, 80), (10, 80)]):
        pts, index = apply_tap(pts, *p)
        assert index == i and len(pts) == i + 1
    pts, index = apply_tap(pts, 85, 75)
    assert index == 2 and pts[2] == (85.0, 75.0) and len(pts) == 4


def test_a_click_on_the_shown_photo_maps_to_photo_pixels():
    value = {"x": 179, "y": 67, "width": 358, "height": 268.5}
    assert to_frame(value, 1600, 1200) == pytest.approx((800.0, 299.44), abs=0.01)
    assert to_frame({"x": 400, "y": -3, "width": 358, "height": 268}, 1600, 1200) == (1600, 0)
    with pytest.raises(ValueError):
        to_frame({"x": 1, "y": 1, "width": 0, "height": 0}, 1600, 1200)


def test_markers_are_drawn_where_the_corners_are():
    plain = np.full((300, 400, 3), 40, np.uint8)
    drawn = np.asarray(marked_photo(jpeg_of(plain), 800, 600, [(200.0, 300.0)]))
    assert drawn.shape == (300, 400, 3)  # the photo's own size and aspect
    ring = drawn[150 - 9 : 150 + 10, 100 - 9 : 100 + 10]
    far = drawn[250:, 300:]
    assert (ring[..., 0] > 200).any() and (far[..., 0] < 80).all()


def test_a_tap_on_the_magnifier_lands_on_the_photo_point_under_it():
    plain = np.full((600, 800, 3), 40, np.uint8)
    zoom = zoom_at(jpeg_of(plain), 1600, 1200, (30.0, 600.0))
    assert zoom.image.size == (ZOOM_SIDE, ZOOM_SIDE)
    assert zoom.side == pytest.approx(ZOOM_WINDOW * 1600)
    assert zoom.left == 0.0  # kept inside the photo: the point sits left of centre
    shown = {"width": 358, "height": 358}
    assert zoom.to_frame({**shown, "x": 179, "y": 179}) == pytest.approx((100.0, 600.0))
    x0 = 30.0 / zoom.side * 358
    assert zoom.to_frame({**shown, "x": x0, "y": 179}) == pytest.approx((30.0, 600.0))


def test_the_degraded_photo_has_no_grid_but_reads_from_its_corners():
    if not MODEL.exists():
        pytest.skip("the card reader's model is missing")
    from vision.errors import GridNotFoundError
    from vision.reptile_tank.reader import TerrariumReader

    photo, corners, rows = blurred_sample()
    reader = TerrariumReader()
    try:  # refused, or (the second embedder finds blurred cards) read but never silently
        read = reader.read(photo)
    except GridNotFoundError:
        pass
    else:
        assert read.needs_check and read.grid_doubt
        if read.rows != rows:
            assert read.check.all()
    assert reader.read(photo, corners=np.asarray(corners)).rows == rows


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_tapping_four_corners_reads_the_right_board(tmp_path):
    from browser_helpers import (
        NO_SIDEWAYS_SCROLL,
        app_page,
        create_night,
        goto_page,
        require_browser,
        start_game,
        wait_idle,
    )

    require_browser()
    from ui.reptile_tank.labels import SHORT_NAMES

    photo, corners, rows = blurred_sample()
    path = tmp_path / "blurred.jpg"
    path.write_bytes(photo)
    width, height = 1600, 1200
    with app_page(tmp_path) as page:
        create_night(page)
        start_game(page, "Ann\nBen")
        goto_page(page, "Photograph")
        page.locator(".st-key-photo_upload_Ann input[type=file]").set_input_files(str(path))
        wait_idle(page)
        # refused ("No terrarium found"), or read with the grid in doubt: the player then says
        # the grid is in the wrong place; either way the photo waits for its corners
        refused = page.get_by_text("No terrarium found").first
        regrid = page.locator(".st-key-photo_regrid_Ann button")
        refused.or_(regrid).wait_for(timeout=60_000)
        if regrid.is_visible():
            regrid.click()
            wait_idle(page)
            page.get_by_text("tap its four outer corners").first.wait_for(timeout=30_000)
        photo_frame = "corners_Ann_tap"
        box = image_box(page, photo_frame)  # the photo is shown at its true aspect
        assert abs(box["width"] / box["height"] - width / height) < 0.02, box
        tl, tr, br, bl = corners
        tap_on(page, photo_frame, *br, width, height)  # any order
        tap_on(page, photo_frame, *tl, width, height)
        tap_on(page, photo_frame, 800, 700, width, height)  # a slip of the finger...
        page.get_by_text("3 of 4 placed").wait_for()
        page.locator(".st-key-corners_Ann_undo button").click()  # ...undone
        wait_idle(page)
        page.get_by_text("2 of 4 placed").wait_for()
        tap_on(page, photo_frame, *tr, width, height)
        done = page.locator(".st-key-corners_Ann_done button")
        assert done.is_disabled()
        off = (bl[0] + 40, bl[1] - 30)  # the fourth tap misses by 50 px...
        tap_on(page, photo_frame, *off, width, height)
        page.get_by_text("All four corners placed").wait_for()
        page.screenshot(path=str(tmp_path / "corners-placed.png"), full_page=True)
        assert page.evaluate(NO_SIDEWAYS_SCROLL), "the page scrolls sideways at 390 px"
        # ...and the magnifier (on the last corner) puts it exactly on the corner
        side = 1600 / 8
        left = min(max(off[0] - side / 2, 0), width - side)
        top = min(max(off[1] - side / 2, 0), height - side)
        zoom_frame = "corners_Ann_zoom"
        tap_on(page, zoom_frame, bl[0] - left, bl[1] - top, side, side)
        page.screenshot(path=str(tmp_path / "corners-zoomed.png"), full_page=True)
        assert done.is_enabled()
        done.click()
        wait_idle(page)
        page.get_by_text("Read in", exact=False).first.wait_for(timeout=60_000)
        page.screenshot(path=str(tmp_path / "corners-read.png"), full_page=True)
        goto_page(page, "Check the read")
        wrong = []
        for r in range(4):
            for c in range(5):
                cell = page.locator(f".st-key-check_cell_{r}_{c} button").first
                text = cell.inner_text()
                if SHORT_NAMES[rows[r][c]] not in text:
                    wrong.append((r, c, rows[r][c], text))
        assert not wrong, wrong


def test_a_new_photo_starts_with_no_corners(app):
    """Corners tapped on one photo are not carried to the next photo that needs them."""
    from app_helpers import no_errors, start_game

    if not MODEL.exists():
        pytest.skip("the card reader's model is missing")
    table = np.random.default_rng(7).normal((96, 120, 88), 4, (600, 800, 3))
    at = start_game(app)
    at.switch_page("ui/reptile_tank/pages/photo.py").run()
    plain = jpeg_of(np.clip(table, 0, 255).astype(np.uint8))  # an empty table: no terrarium
    at.file_uploader(key="photo_upload_Ann").upload("t.jpg", plain, "image/jpeg")
    at.run()
    no_errors(at)
    at.session_state["corners_Ann_points"] = [(10.0, 10.0), (500.0, 20.0)]
    at.run()
    assert any("2 of 4 placed" in m.value for m in at.markdown)
    other = jpeg_of(np.full((600, 800, 3), (120, 90, 60), np.uint8))
    at.file_uploader(key="photo_upload_Ann").upload("u.jpg", other, "image/jpeg")
    at.run()
    no_errors(at)
    assert at.session_state["corners_Ann_points"] == []
    assert any("0 of 4 placed" in m.value for m in at.markdown)


def test_a_read_grid_can_be_replaced_by_tapped_corners(app):
    """A grid found in the wrong place: one tap turns the read into a corner request for the same
    photo, and the four true corners then read the right board."""
    from app_helpers import no_errors, start_game

    if not MODEL.exists():
        pytest.skip("the card reader's model is missing")
    truth = json.loads(TRUTH.read_text())
    at = start_game(app)
    at.switch_page("ui/reptile_tank/pages/photo.py").run()
    at.file_uploader(key="photo_upload_Ann").upload("s.jpg", SAMPLE.read_bytes(), "image/jpeg")
    at.run()
    no_errors(at)
    assert at.session_state["rt_entries"]["Ann"].rows == truth["board"]["rows"]
    at.button(key="photo_regrid_Ann").click().run()
    no_errors(at)
    assert any("tap its four outer corners" in w.value for w in at.warning)
    pending = at.session_state["rt_pending_corners"]["Ann"]
    assert pending.photo == SAMPLE.read_bytes() and not pending.read.grid_found
    width, height = pending.read.image_size
    scale = width / truth["size"][0]
    at.session_state["corners_Ann_points"] = [
        (x * scale, y * scale) for x, y in truth["grid_corners"]
    ]
    at.run()
    at.button(key="corners_Ann_done").click().run()
    no_errors(at)
    assert "Ann" not in at.session_state["rt_pending_corners"]
    assert at.session_state["rt_entries"]["Ann"].rows == truth["board"]["rows"]
