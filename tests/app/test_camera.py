"""The in-page camera: capture sizes judged, a 0-byte file refused, and a shot through the page
with Chromium's fake camera (a y4m clip made from the sample photo) read into a board."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from app_helpers import no_errors, start_game
from PIL import Image

from ui.camera import SMALL_SHORT_SIDE, capture_size, check_capture
from vision.models import DEFAULT_MODEL, model_files

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "reptile_tank" / "samples" / "sample_1.jpg"
MODEL = model_files(DEFAULT_MODEL).onnx


def jpeg(width: int, height: int, orientation: int | None = None) -> bytes:
    image = Image.new("RGB", (width, height), (90, 120, 80))
    buffer = io.BytesIO()
    exif = Image.Exif()
    if orientation is not None:
        exif[0x0112] = orientation
    image.save(buffer, format="JPEG", exif=exif.tobytes())
    return buffer.getvalue()


def test_capture_size_is_the_upright_size():
    assert capture_size(jpeg(640, 480)) == (640, 480)
    assert capture_size(jpeg(640, 480, orientation=6)) == (480, 640)  # a portrait phone shot
    assert capture_size(jpeg(640, 480, orientation=3)) == (640, 480)


@pytest.mark.parametrize("data", [b"", b"not an image at all"])
def test_capture_size_refuses_what_is_not_a_photo(data):
    with pytest.raises(ValueError):
        capture_size(data)


def test_small_captures_are_called_too_small_and_point_to_the_camera_app():
    small = check_capture(640, 480)
    assert small.small
    assert "640 × 480" in small.message and "too small" in small.message
    assert "camera app" in small.message and "Upload" in small.message
    assert check_capture(1280, 720).small  # 720p: short side 720
    full_hd = check_capture(1920, 1080)
    assert not full_hd.small and "1920 × 1080" in full_hd.message
    assert "too small" not in full_hd.message
    assert not check_capture(SMALL_SHORT_SIDE, 4 * SMALL_SHORT_SIDE // 3).small
    assert check_capture(SMALL_SHORT_SIDE - 1, 2000).small


def test_a_zero_byte_upload_says_so(app):
    at = start_game(app)
    at.switch_page("ui/reptile_tank/pages/photo.py").run()
    no_errors(at)
    at.file_uploader(key="photo_upload_Ann").upload("empty.jpg", b"", "image/jpeg")
    at.run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert any("empty (0 bytes)" in e for e in errors), errors
    assert not any("Read in" in s.value for s in at.success)
    assert "Ann" not in at.session_state["rt_entries"]


@pytest.mark.skipif(not (MODEL.exists() and SAMPLE.exists()), reason="model or sample missing")
@pytest.mark.slow
def test_a_zero_byte_upload_replaces_the_previous_read_message(app):
    at = start_game(app)
    at.switch_page("ui/reptile_tank/pages/photo.py").run()
    at.file_uploader(key="photo_upload_Ann").upload("table.jpg", SAMPLE.read_bytes(), "image/jpeg")
    at.run()
    no_errors(at)
    at.radio(key="photo_player").set_value("Ann").run()  # the page had moved on to Ben
    assert any("Ann" in s.value and "read in" in s.value for s in at.success)
    at.file_uploader(key="photo_upload_Ann").upload("empty.jpg", b"", "image/jpeg")
    at.run()
    assert any("empty (0 bytes)" in e.value for e in at.error)
    assert not any("read in" in s.value for s in at.success)
    assert at.session_state["rt_entries"]["Ann"].source == "photo"  # the read itself is kept


def write_y4m(path: Path, rgb: np.ndarray, frames: int = 2) -> None:
    """A YUV4MPEG2 clip (4:2:0, BT.601 full range as Chromium's reader takes it) of ``rgb``."""
    import cv2

    height, width = rgb.shape[:2]
    assert width % 2 == 0 and height % 2 == 0
    i420 = cv2.cvtColor(rgb, cv2.COLOR_RGB2YUV_I420)  # (3 h / 2, w): Y then U then V planes
    header = f"YUV4MPEG2 W{width} H{height} F30:1 Ip A1:1 C420jpeg\n".encode("ascii")
    with open(path, "wb") as handle:
        handle.write(header)
        for _ in range(frames):
            handle.write(b"FRAME\n")
            handle.write(i420.tobytes())


def test_y4m_clip_holds_the_photo(tmp_path):
    import cv2

    rgb = np.asarray(Image.open(SAMPLE).convert("RGB"))
    clip = tmp_path / "cam.y4m"
    write_y4m(clip, rgb, frames=1)
    data = clip.read_bytes()
    header, rest = data.split(b"\n", 1)
    assert header.startswith(b"YUV4MPEG2 W1600 H1200")
    assert rest.startswith(b"FRAME\n")
    planes = np.frombuffer(rest[6:], np.uint8).reshape(1800, 1600)
    back = cv2.cvtColor(planes, cv2.COLOR_YUV2RGB_I420)
    assert np.abs(back.astype(int) - rgb).mean() < 4


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize(("kind", "camera"), [("back", 1600), ("browser", 1600), ("back", 640)])
def test_a_shot_from_the_fake_camera_is_read(tmp_path, kind, camera):
    """Take a photo through the page with Chromium's fake camera showing the sample photo
    (1600 x 1200): our back camera sends the camera's full size, Streamlit's its 1080p. A
    640 x 480 camera's shot is called too small, pointing to the phone's camera app."""
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

    clip = tmp_path / "camera.y4m"
    sample = Image.open(SAMPLE).convert("RGB")
    write_y4m(clip, np.asarray(sample.resize((camera, camera * 3 // 4), Image.Resampling.BOX)))
    args = (
        "--use-fake-device-for-media-stream",
        "--use-fake-ui-for-media-stream",
        f"--use-file-for-fake-video-capture={clip}",
    )
    with app_page(tmp_path, args=args, permissions=["camera"]) as page:
        create_night(page)
        start_game(page, "Ann\nBen")
        goto_page(page, "Photograph")
        page.get_by_role("tab", name="Camera").click()
        if kind == "back":
            page.get_by_role("button", name="Open the back camera").click()
            take = page.get_by_role("button", name="Take photo", exact=True)
            expected = (camera, camera * 3 // 4)  # the fake camera's full size
        else:
            page.get_by_text("Simple camera (1080p)").click()
            wait_idle(page)
            take = page.get_by_role("button", name="Take Photo", exact=True)
            expected = (1440, 1080)  # 1080 px high, the camera's aspect
        take.wait_for(timeout=30_000)
        page.wait_for_function(
            "() => { const v = document.querySelector('video')"
            " || [...document.querySelectorAll('*')].map(e => e.shadowRoot)"
            ".filter(Boolean).map(r => r.querySelector('video')).find(Boolean);"
            " return v && v.videoWidth > 0; }",
            timeout=30_000,
        )
        page.wait_for_function(
            "() => !document.querySelector('[data-testid=\"stCameraInputButton\"]')?.disabled",
            timeout=30_000,
        )
        take.click()
        wait_idle(page)
        size = page.get_by_text("Camera photo:", exact=False).first
        size.wait_for(timeout=90_000)
        assert page.evaluate(NO_SIDEWAYS_SCROLL), "the page scrolls sideways at 390 px"
        if camera < 1000:
            page.screenshot(path=str(tmp_path / f"camera-{kind}-small.png"), full_page=True)
            assert "640 × 480" in size.inner_text() and "too small" in size.inner_text()
            assert "camera app" in size.inner_text()
            return
        # read, and on to the next player: the message keeps the capture's size
        read = page.get_by_text("Ann's terrarium is read", exact=False).first
        read.wait_for(timeout=90_000)
        page.screenshot(path=str(tmp_path / f"camera-{kind}.png"), full_page=True)
        assert f"{expected[0]} × {expected[1]}" in read.inner_text(), read.inner_text()
        assert "too small" not in read.inner_text()
        assert "to check" in read.inner_text()


def test_the_back_camera_photo_arrives_as_a_data_url():
    import base64

    from ui.camera import decode_shot

    photo = jpeg(64, 48)
    url = "data:image/jpeg;base64," + base64.b64encode(photo).decode("ascii")
    assert decode_shot(url) == photo
    for bad in (None, "", "data:text/plain;base64,aGk=", "data:image/jpeg;base64,", "x" * 20):
        with pytest.raises(ValueError):
            decode_shot(bad)
    with pytest.raises(ValueError):
        decode_shot("data:image/jpeg;base64,@@@@")
