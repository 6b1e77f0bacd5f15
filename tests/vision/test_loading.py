"""Tests for vision.loading: every refusal with a real malformed file, and every normalisation."""

from __future__ import annotations

import io
import struct
import time
import zipfile
import zlib

import numpy as np
import pytest
from PIL import Image

from vision.errors import ImageLoadError
from vision.loading import MIN_SHORT_SIDE, LoadedImage, load_image, load_image_file


def _photo(width: int = 400, height: int = 300, seed: int = 0) -> Image.Image:
    """A smooth random RGB picture (compresses like a photo, not like noise)."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (height // 20 + 1, width // 20 + 1, 3), dtype=np.uint8)
    return Image.fromarray(small).resize((width, height), Image.Resampling.BILINEAR)


def _encode(img: Image.Image, fmt: str, **kwargs) -> bytes:
    buffer = io.BytesIO()
    img.save(buffer, format=fmt, **kwargs)
    return buffer.getvalue()


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    crc = zlib.crc32(kind + payload) & 0xFFFFFFFF
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)


def _png_bomb(side: int = 30000, rows: int = 64) -> bytes:
    """A hand-made grayscale PNG declaring ``side`` x ``side`` pixels of zeros.

    Only the first ``rows`` rows are actually compressed (a full 900 MP stream would take
    seconds to build); the header is what a bomb check must act on.
    """
    ihdr = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    compressor = zlib.compressobj(1)
    row = bytes(side + 1)  # filter byte + pixels
    idat = b"".join(compressor.compress(row) for _ in range(rows)) + compressor.flush()
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", ihdr)
        + _png_chunk(b"IDAT", idat)
        + _png_chunk(b"IEND", b"")
    )


# ----------------------------------------------------------------------------- refusals


def test_empty_bytes_are_refused():
    with pytest.raises(ImageLoadError, match="empty"):
        load_image(b"")


def test_text_renamed_jpg_is_refused(tmp_path):
    path = tmp_path / "board.jpg"
    path.write_text("this is my terrarium, honest\n" * 20)
    with pytest.raises(ImageLoadError, match="not an image") as info:
        load_image_file(path)
    assert "board.jpg" in str(info.value)


def test_zip_is_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("photo.jpg", _encode(_photo(), "JPEG"))
    with pytest.raises(ImageLoadError, match="not an image"):
        load_image(buffer.getvalue())


@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
def test_truncated_file_is_refused(fmt):
    data = _encode(_photo(800, 600), fmt)
    with pytest.raises(ImageLoadError, match="truncated|corrupt|unreadable"):
        load_image(data[: len(data) // 2], max_side=None)


def test_header_only_jpeg_is_refused():
    data = _encode(_photo(800, 600), "JPEG")
    with pytest.raises(ImageLoadError):
        load_image(data[:200])


@pytest.mark.parametrize("size", [(1, 1), (640, 120)])
def test_too_small_is_refused(size):
    with pytest.raises(ImageLoadError, match="too|only"):
        load_image(_encode(Image.new("RGB", size, (10, 200, 10)), "PNG"))


def test_png_bomb_is_refused_fast_from_its_header():
    data = _png_bomb()
    start = time.perf_counter()
    with pytest.raises(ImageLoadError, match="limit"):
        load_image(data)
    assert time.perf_counter() - start < 0.5


def test_pixel_cap_is_a_parameter():
    data = _encode(_photo(1000, 800), "PNG")
    with pytest.raises(ImageLoadError, match="limit"):
        load_image(data, max_pixels=500_000)
    assert load_image(data, max_pixels=800_000).rgb.shape == (800, 1000, 3)


def test_max_side_below_minimum_is_a_parameter_error():
    with pytest.raises(ValueError, match="max_side"):
        load_image(_encode(_photo(), "PNG"), max_side=50)


# ------------------------------------------------------------------------------ formats


def test_jpeg_round_trip_is_rgb_not_bgr():
    img = Image.new("RGB", (400, 300), (220, 30, 30))
    loaded = load_image(_encode(img, "JPEG", quality=95))
    assert isinstance(loaded, LoadedImage)
    assert loaded.format == "JPEG"
    assert loaded.rgb.dtype == np.uint8 and loaded.rgb.shape == (300, 400, 3)
    red, green, blue = loaded.rgb[150, 200].astype(int)
    assert red > 180 and green < 70 and blue < 70
    assert loaded.scale == 1.0 and loaded.original_size == (400, 300)


def test_large_jpeg_is_decoded_reduced_and_scale_reported():
    data = _encode(_photo(4000, 3000), "JPEG", quality=85)
    loaded = load_image(data, max_side=1000)
    assert loaded.rgb.shape == (750, 1000, 3)
    assert loaded.original_size == (4000, 3000)
    assert loaded.scale == pytest.approx(0.25)
    full = load_image(data, max_side=None)
    assert full.rgb.shape == (3000, 4000, 3) and full.scale == 1.0


def test_webp_is_loaded():
    loaded = load_image(_encode(_photo(), "WEBP", quality=90))
    assert loaded.format == "WEBP" and loaded.rgb.shape == (300, 400, 3)


def test_heic_is_loaded():
    pillow_heif = pytest.importorskip("pillow_heif")
    if not pillow_heif.libheif_info().get("HEIF"):
        pytest.skip("libheif built without a HEIF encoder; cannot make a test file")
    heif = pillow_heif.from_pillow(Image.new("RGB", (400, 300), (20, 40, 230)))
    buffer = io.BytesIO()
    heif.save(buffer, quality=90)
    loaded = load_image(buffer.getvalue())
    assert loaded.format == "HEIF" and loaded.rgb.shape == (300, 400, 3)
    assert loaded.rgb[150, 200, 2] > 180 and loaded.rgb[150, 200, 0] < 80


def test_exif_orientation_is_applied():
    img = Image.new("RGB", (400, 300), (0, 0, 255))
    img.paste((255, 0, 0), (0, 0, 200, 300))  # stored: left half red
    exif = Image.Exif()
    exif[0x0112] = 6  # display = stored rotated 90 degrees clockwise
    loaded = load_image(_encode(img, "JPEG", quality=95, exif=exif.tobytes()))
    assert loaded.rgb.shape == (400, 300, 3)  # portrait after rotation
    assert loaded.original_size == (300, 400)
    assert loaded.rgb[50, 150, 0] > 200 and loaded.rgb[50, 150, 2] < 60  # red now on top
    assert loaded.rgb[350, 150, 2] > 200 and loaded.rgb[350, 150, 0] < 60


def test_grayscale_is_expanded_to_rgb():
    loaded = load_image(_encode(_photo().convert("L"), "PNG"))
    assert loaded.rgb.shape == (300, 400, 3)
    assert np.array_equal(loaded.rgb[..., 0], loaded.rgb[..., 2])


def test_cmyk_jpeg_is_converted():
    cmyk = Image.new("CMYK", (400, 300), (0, 255, 255, 0))  # pure red ink
    loaded = load_image(_encode(cmyk, "JPEG", quality=95))
    red, green, blue = loaded.rgb[150, 200].astype(int)
    assert red > 180 and green < 80 and blue < 80


def test_16_bit_png_keeps_its_high_byte():
    values = np.full((300, 400), 50000, dtype=np.uint16)
    values[:, :200] = 1000
    loaded = load_image(_encode(Image.fromarray(values), "PNG"))
    assert loaded.rgb.dtype == np.uint8
    assert loaded.rgb[0, 300, 0] == 50000 >> 8
    assert loaded.rgb[0, 10, 0] == 1000 >> 8


def test_palette_and_alpha_are_normalised():
    palette = _photo().convert("P", palette=Image.Palette.ADAPTIVE, colors=16)
    assert load_image(_encode(palette, "PNG")).rgb.shape == (300, 400, 3)
    rgba = Image.new("RGBA", (400, 300), (255, 0, 0, 0))  # fully transparent red
    loaded = load_image(_encode(rgba, "PNG"))
    assert loaded.rgb.shape == (300, 400, 3)
    assert (loaded.rgb == 255).all()  # composited over white


def test_animated_webp_uses_its_first_frame():
    """Multi-frame files use their first frame (GIF itself is outside the format allow-list)."""
    first = Image.new("RGB", (400, 300), (255, 0, 0))
    second = Image.new("RGB", (400, 300), (0, 0, 255))
    data = _encode(
        first, "WEBP", save_all=True, append_images=[second], duration=100, lossless=True
    )
    loaded = load_image(data)
    assert loaded.format == "WEBP"
    assert loaded.rgb[150, 200, 0] > 200 and loaded.rgb[150, 200, 2] < 50


def test_animated_gif_is_refused_by_name():
    first = Image.new("RGB", (400, 300), (255, 0, 0))
    data = _encode(first, "GIF", save_all=True, append_images=[first.copy()], duration=100)
    with pytest.raises(ImageLoadError, match="GIF"):
        load_image(data)


def test_min_short_side_is_accepted():
    loaded = load_image(_encode(_photo(MIN_SHORT_SIDE, MIN_SHORT_SIDE), "PNG"))
    assert loaded.rgb.shape == (MIN_SHORT_SIDE, MIN_SHORT_SIDE, 3)
