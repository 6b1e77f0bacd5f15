"""Every hostile or odd photo through ``reptile-tank score`` (a bounded child) and the app's upload
path (:func:`ui.reptile_tank.backend.read_photo`): a correct read or one clear line, never a
traceback, within seconds of CPU and a 3 GB address space.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.hostile import corpus as C
from tests.hostile.conftest import CPU_LIMIT_S, assert_clean_refusal, run_cli
from vision.errors import ImageLoadError
from vision.loading import load_image

KINDS = {kind.name: kind for kind in C.KINDS}
REFUSED = [k.name for k in C.KINDS if k.expect == "refuse"]
READ = [k.name for k in C.KINDS if k.expect == "read"]
#: Kinds that keep the photo's colours (the trained model must read them like the JPEG).
COLOUR_KEPT = ["cmyk_jpeg", "png_16bit_rgb", "exif_6", "exif_8", "heic", "webp"]
#: Refusals that come from the loader (before any grid finding).
LOADER_REFUSED = [k.name for k in C.KINDS if k.expect == "refuse" and "terrarium" not in k.message]


def grid_matches(found, truth, tolerance: float) -> bool:
    """Each true outer corner has a found corner within ``tolerance`` pixels (any order)."""
    found = np.asarray(found, float).reshape(4, 2)
    truth = np.asarray(truth, float).reshape(4, 2)
    distances = np.linalg.norm(truth[:, None, :] - found[None, :, :], axis=2)
    return bool(np.all(distances.min(axis=1) <= tolerance))


def corner_tolerance(truth_corners) -> float:
    """3 % of the true grid's diagonal, in photo pixels."""
    q = np.asarray(truth_corners, float)
    return 0.03 * float(np.linalg.norm(q[0] - q[2]))


@pytest.fixture(scope="module")
def reference_rows(reader) -> list[list[str]]:
    """The board the pipeline reads from the committed sample_1.jpg itself."""
    return reader.read((C.SAMPLES / "sample_1.jpg").read_bytes()).rows


@pytest.fixture(scope="module")
def model_reads_samples(reference_rows) -> bool:
    """True when the embedder in use reads sample_1.jpg exactly (then variants must too)."""
    return reference_rows == C.sample_truth("sample_1")["board"]["rows"]


def check_board(name: str, rows, reference_rows, model_reads_samples: bool) -> None:
    """A 4x5 board; the reference's own board where the pixels are identical; the truth where
    the colours are kept and the model reads the reference right."""
    assert len(rows) == 4 and all(len(row) == 5 for row in rows)
    if name == "png_16bit_rgb":  # the very pixels of the JPEG's decode
        assert rows == reference_rows
    if name in COLOUR_KEPT and model_reads_samples:
        assert rows == C.sample_truth("sample_1")["board"]["rows"]


# ----------------------------------------------------------------------------- the CLI


@pytest.mark.parametrize("name", REFUSED)
def test_cli_refuses_in_one_line(name, corpus, embedder):
    run = run_cli("score", str(corpus[name]), "--json", embedder=embedder)
    assert_clean_refusal(run, KINDS[name].message)
    assert run.stdout == ""
    assert run.cpu_s < CPU_LIMIT_S, run


@pytest.mark.parametrize("name", READ)
def test_cli_reads_odd_encodings_like_the_jpeg(
    name, corpus, embedder, reference_rows, model_reads_samples
):
    run = run_cli("score", str(corpus[name]), "--json", embedder=embedder)
    assert "Traceback" not in run.stderr
    assert run.returncode == 0, run.stderr
    assert run.cpu_s < CPU_LIMIT_S, run
    result = json.loads(run.stdout)
    truth = C.sample_truth("sample_1")
    check_board(name, result["board"]["rows"], reference_rows, model_reads_samples)
    # The grid is found where it is, in the photo's own (upright) pixels: grid finding does not
    # depend on the embedder, so this holds on the stand-in model too.
    assert grid_matches(
        result["grid"]["corners"], truth["grid_corners"], corner_tolerance(truth["grid_corners"])
    ), (result["grid"]["corners"], truth["grid_corners"])


def test_cli_two_terrariums_reads_one_of_them_whole(corpus, embedder, model_reads_samples):
    """Two terrariums in one frame: a clear refusal, or a grid that lies on one of them."""
    run = run_cli("score", str(corpus["two_terrariums"]), "--json", embedder=embedder)
    assert "Traceback" not in run.stderr
    if run.returncode == 2:
        assert_clean_refusal(run)
        return
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    _, seam = C.two_terrariums()
    left = C.sample_truth("sample_1")["grid_corners"]
    right = (np.asarray(C.sample_truth("sample_3")["grid_corners"]) + [seam, 0]).tolist()
    found = result["grid"]["corners"]
    on_left = grid_matches(found, left, corner_tolerance(left))
    on_right = grid_matches(found, right, corner_tolerance(right))
    assert on_left or on_right, found
    if model_reads_samples and on_left:
        assert result["board"] == C.sample_truth("sample_1")["board"]


def test_cli_bomb_is_refused_before_decoding(corpus, embedder):
    """The 30000 x 30000 PNG (2.7 GB as RGB) is refused from its header: little CPU, little RSS."""
    run = run_cli("score", str(corpus["png_bomb_30000"]), embedder=embedder)
    assert_clean_refusal(run, "30000" if "30000" in run.stderr else "limit")
    assert run.cpu_s < 3.0
    assert run.max_rss_mb < 600


# ----------------------------------------------------------------------------- the app


@pytest.mark.parametrize("name", LOADER_REFUSED)
def test_app_upload_refuses_with_a_load_error(name, corpus, reader):
    from ui.reptile_tank.backend import read_photo

    with pytest.raises(ImageLoadError) as caught:
        read_photo(corpus[name].read_bytes(), reader=reader)
    message = str(caught.value)
    assert KINDS[name].message in message
    assert "\n" not in message and len(message) < 300


@pytest.mark.parametrize(
    "name",
    ["no_cards", "single_card_far", "single_card_close"],
)
def test_app_upload_without_a_terrarium_asks_for_corners(name, corpus, reader):
    from ui.reptile_tank.backend import read_photo

    read = read_photo(corpus[name].read_bytes(), reader=reader)
    assert read.grid_found is False
    assert read.rows is None
    assert "no terrarium found" in read.message
    # The photo to tap the corners on (a JPEG or PNG, whichever the app shows) decodes.
    shown = getattr(read, "overlay_jpeg", None) or getattr(read, "overlay_png", None)
    assert min(load_image(shown, max_side=None).original_size) >= 200
    width, height = read.image_size
    assert min(width, height) >= 200


@pytest.mark.parametrize("name", [*READ, "two_terrariums"])
def test_app_upload_reads_valid_photos(name, corpus, reader, reference_rows, model_reads_samples):
    from ui.reptile_tank.backend import read_photo

    read = read_photo(corpus[name].read_bytes(), reader=reader)
    assert read.grid_found, read.message
    assert read.thumbnail_jpeg.startswith(b"\xff\xd8")
    if name != "two_terrariums":
        check_board(name, read.rows, reference_rows, model_reads_samples)


# ----------------------------------------------------------------------------- decoding


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    """sample_1 as decoded from its committed JPEG, (H, W, 3) uint8 RGB."""
    return C.sample_rgb("sample_1")


def mean_abs_diff(a: np.ndarray, b: np.ndarray) -> float:
    assert a.shape == b.shape, (a.shape, b.shape)
    return float(np.abs(a.astype(np.int16) - b.astype(np.int16)).mean())


@pytest.mark.parametrize("orientation", [6, 8])
def test_exif_rotated_photo_decodes_upright(reference, orientation):
    data, upright = C.exif_rotated_jpeg(reference, orientation)
    loaded = load_image(data, max_side=None)
    assert loaded.original_size == (reference.shape[1], reference.shape[0])
    assert mean_abs_diff(loaded.rgb, upright) < 3.0
    # The wrong turn (180 degrees off) would be far away: the check can fail.
    assert mean_abs_diff(loaded.rgb, np.ascontiguousarray(upright[::-1, ::-1])) > 20.0


@pytest.mark.parametrize(
    "make, tolerance",
    [
        (C.cmyk_jpeg, 4.0),
        (C.png16_rgb, 0.0),
        (lambda rgb: C.encode(rgb, "WEBP", quality=90), 4.0),
    ],
    ids=["cmyk", "png16_rgb", "webp"],
)
def test_odd_colour_encodings_decode_to_the_reference_pixels(reference, make, tolerance):
    loaded = load_image(make(reference), max_side=None)
    assert loaded.rgb.dtype == np.uint8 and loaded.rgb.shape == reference.shape
    assert mean_abs_diff(loaded.rgb, reference) <= tolerance


def test_heic_decodes_to_the_reference_pixels(reference, corpus):
    loaded = load_image(corpus["heic"].read_bytes(), max_side=None)
    assert loaded.format == "HEIF" and loaded.rgb.shape == reference.shape
    assert mean_abs_diff(loaded.rgb, reference) <= 4.0


@pytest.mark.parametrize("make", [C.png16_gray, C.gray_jpeg], ids=["png16_gray", "gray_jpeg"])
def test_gray_encodings_decode_to_their_luminance(reference, make):
    data, expected = make(reference)
    loaded = load_image(data, max_side=None)
    assert loaded.rgb.shape == reference.shape
    assert mean_abs_diff(loaded.rgb, expected) < 2.0


def test_jpeg_claiming_a_huge_frame_is_refused_from_its_header(reference):
    data = C.jpeg_with_size(C.encode(reference, "JPEG"), 60_000, 60_000)
    with pytest.raises(ImageLoadError, match="limit"):
        load_image(data)
