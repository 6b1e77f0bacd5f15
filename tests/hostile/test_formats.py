"""The photo loader's format allow-list (issue 16).

Only JPEG (baseline, progressive and arithmetic-coded), PNG, WebP, HEIC/HEIF, AVIF and TIFF are
decoded, judged from the file's first bytes before any decoder runs: an EPS renamed ``.jpg``
never reaches Ghostscript, a GIF, BMP or PDF is named and refused. Arithmetic-coded JPEGs
(valid; Pillow's libjpeg refuses them) are decoded with OpenCV's libjpeg.

``data/sample_1_arithmetic.jpg`` (69 KB) is ``samples/sample_1.jpg`` resized to 800 x 600,
saved at quality 75 by Pillow and transcoded losslessly by ``jpegtran -arithmetic -copy none``.
"""

from __future__ import annotations

import io
import struct
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.hostile import corpus as C
from tests.hostile.conftest import CPU_LIMIT_S, assert_clean_refusal, run_cli
from tests.hostile.test_photo_corpus import corner_tolerance, grid_matches, mean_abs_diff
from vision.errors import ImageLoadError
from vision.loading import load_image, load_image_file

ARITHMETIC = Path(__file__).parent / "data" / "sample_1_arithmetic.jpg"


@pytest.fixture(scope="module")
def reference_800() -> np.ndarray:
    """sample_1 resized exactly as the arithmetic fixture was made (before JPEG loss)."""
    with Image.open(C.SAMPLES / "sample_1.jpg") as img:
        return np.asarray(img.convert("RGB").resize((800, 600), Image.LANCZOS))


def with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """``jpeg`` with an EXIF APP1 segment holding ``orientation`` right after SOI."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    payload = b"Exif\x00\x00" + exif.tobytes()
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload + jpeg[2:]


# ----------------------------------------------------------------------------- arithmetic JPEG


def test_arithmetic_jpeg_decodes(reference_800):
    loaded = load_image(ARITHMETIC.read_bytes(), max_side=None)
    assert loaded.format == "JPEG"
    assert loaded.original_size == (800, 600) and loaded.scale == 1.0
    assert loaded.rgb.dtype == np.uint8 and loaded.rgb.flags.c_contiguous
    assert mean_abs_diff(loaded.rgb, reference_800) <= 4.0


def test_arithmetic_jpeg_is_downscaled_to_max_side(reference_800):
    loaded = load_image(ARITHMETIC.read_bytes(), max_side=400)
    assert max(loaded.rgb.shape[:2]) <= 400 * 1.3
    assert loaded.original_size == (800, 600)
    assert loaded.scale == pytest.approx(loaded.rgb.shape[1] / 800)


@pytest.mark.parametrize("orientation, turns", [(6, -1), (8, 1), (3, 2)])
def test_arithmetic_jpeg_applies_exif_orientation(reference_800, orientation, turns):
    data = with_exif_orientation(ARITHMETIC.read_bytes(), orientation)
    loaded = load_image(data, max_side=None)
    expected = np.ascontiguousarray(np.rot90(reference_800, k=turns))
    assert loaded.original_size == (expected.shape[1], expected.shape[0])
    assert mean_abs_diff(loaded.rgb, expected) <= 4.0


def test_truncated_arithmetic_jpeg_is_one_line():
    data = ARITHMETIC.read_bytes()[:2000]
    with pytest.raises(ImageLoadError) as caught:
        load_image(data)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("start", [600, 3000, 30_000, 60_000])
def test_corrupt_arithmetic_jpeg_is_quiet(capfd, start):
    """libjpeg reports corrupt data as a warning on stderr and returns pixels anyway: the
    loader captures it and refuses the file (as Pillow does for baseline JPEGs); corruption
    libjpeg does not notice decodes to wrong pixels, as with any JPEG. Nothing reaches stderr."""
    data = bytearray(ARITHMETIC.read_bytes())
    for k in range(start, start + 50):
        data[k] ^= 0x55
    try:
        loaded = load_image(bytes(data))
    except ImageLoadError as error:
        assert "corrupt" in str(error) and "\n" not in str(error)
    else:
        assert loaded.rgb.shape == (600, 800, 3)
    assert capfd.readouterr().err == ""


def test_arithmetic_jpeg_with_libjpeg_warning_is_refused(capfd):
    data = bytearray(ARITHMETIC.read_bytes())
    for k in range(3000, 3050):
        data[k] ^= 0x55
    with pytest.raises(ImageLoadError, match="Corrupt JPEG data"):
        load_image(bytes(data))
    assert capfd.readouterr().err == ""


def test_cli_reads_an_arithmetic_jpeg(embedder):
    run = run_cli("score", str(ARITHMETIC), "--json", embedder=embedder)
    assert "Traceback" not in run.stderr
    assert run.returncode == 0, run.stderr
    assert run.cpu_s < CPU_LIMIT_S, run
    import json

    found = json.loads(run.stdout)["grid"]["corners"]
    truth = (np.asarray(C.sample_truth("sample_1")["grid_corners"]) * 0.5).tolist()
    assert grid_matches(found, truth, corner_tolerance(truth)), (found, truth)


# ----------------------------------------------------------------------------- the allow-list


def eps_bytes() -> bytes:
    return (
        b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 1000 1000\n"
        b"newpath 0 0 moveto 1000 1000 lineto stroke showpage\n%%EOF\n"
    )


def test_eps_renamed_jpg_never_reaches_ghostscript(monkeypatch, tmp_path):
    from PIL import EpsImagePlugin

    calls = []

    def no_ghostscript(*args, **kwargs):
        calls.append(args)
        raise AssertionError("Ghostscript was launched")

    monkeypatch.setattr(EpsImagePlugin, "Ghostscript", no_ghostscript)
    monkeypatch.setattr(EpsImagePlugin, "gs_binary", "/bin/false", raising=False)
    with pytest.raises(ImageLoadError, match="EPS") as caught:
        load_image(eps_bytes())
    assert "not an accepted photo format" in str(caught.value)
    path = tmp_path / "photo.jpg"
    path.write_bytes(eps_bytes())
    with pytest.raises(ImageLoadError, match="EPS"):
        load_image_file(path)
    assert calls == []


def _encoded(fmt: str, **params) -> bytes:
    buffer = io.BytesIO()
    rgb = C.sample_rgb("sample_1")
    Image.fromarray(rgb).save(buffer, format=fmt, **params)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "name, make, fragment",
    [
        ("gif", lambda: _encoded("GIF"), "GIF"),
        ("bmp", lambda: _encoded("BMP"), "BMP"),
        ("pdf", lambda: b"%PDF-1.7\n" + b"0" * 300, "PDF"),
        ("eps_binary_header", lambda: b"\xc5\xd0\xd3\xc6" + b"\x00" * 300, "EPS"),
        ("tga", lambda: _encoded("TGA"), "not an image"),
        (
            "mp4_not_heif",
            lambda: b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2" + b"\0" * 64,
            "not an image",
        ),
        ("svg", lambda: b'<svg xmlns="http://www.w3.org/2000/svg"/>', "not an image"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_formats_off_the_list_are_refused_by_name(name, make, fragment):
    with pytest.raises(ImageLoadError) as caught:
        load_image(make())
    message = str(caught.value)
    assert fragment in message and "\n" not in message
    assert "JPEG, PNG, WebP, HEIC/HEIF, AVIF or TIFF" in message


@pytest.mark.parametrize(
    "fmt, params, tolerance",
    [("TIFF", {}, 0.0), ("AVIF", {"quality": 90}, 6.0), ("PNG", {}, 0.0)],
)
def test_formats_on_the_list_decode(fmt, params, tolerance):
    reference = C.sample_rgb("sample_1")
    loaded = load_image(_encoded(fmt, **params), max_side=None)
    assert loaded.rgb.shape == reference.shape
    assert mean_abs_diff(loaded.rgb, reference) <= tolerance


def test_photo_over_the_byte_limit_is_refused_before_decoding():
    from vision import loading

    data = C.encode(C.sample_rgb("sample_1"), "JPEG") + b"\0" * 64
    with pytest.raises(ImageLoadError, match="limit"):
        loading.load_image(data, max_bytes=len(data) - 1)


def test_cli_refuses_eps_renamed_jpg(tmp_path, embedder):
    path = tmp_path / "photo.jpg"
    path.write_bytes(eps_bytes())
    run = run_cli("score", str(path), embedder=embedder)
    assert_clean_refusal(run, "EPS", str(path))


# ----------------------------------------------------------------------------- enroll faces


@pytest.mark.parametrize("kind", ["fifo", "eps"])
def test_enroll_face_files_are_opened_safely(tmp_path, kind, monkeypatch):
    """``enroll --from-dir`` opened each face with ``Image.open(path)``: a FIFO named
    ``rock.png`` hung it, an EPS named ``rock.png`` reached Ghostscript."""
    from PIL import EpsImagePlugin

    from service.photos import PhotoInputError
    from service.reptile_tank.deck import read_face_file as read_face_image

    path = tmp_path / "rock.png"
    if kind == "fifo":
        import os

        os.mkfifo(path)
    else:
        path.write_bytes(eps_bytes())
    monkeypatch.setattr(EpsImagePlugin, "Ghostscript", lambda *a, **k: pytest.fail("gs ran"))
    import signal

    def too_slow(*_args):
        raise TimeoutError("read_face_image blocked")

    old = signal.signal(signal.SIGALRM, too_slow)
    signal.alarm(5)
    try:
        with pytest.raises(PhotoInputError) as caught:
            read_face_image(path)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert ("FIFO" if kind == "fifo" else "EPS") in str(caught.value)
