"""Hostile and odd photo files, generated from the committed sample photos (nothing large on disk).

Every builder is a pure function: bytes in (or nothing), bytes out. The :data:`KINDS` table says,
per file kind, what the pipeline must do with it: ``"refuse"`` (a one-line message naming the
problem), ``"read"`` (a valid photo in an odd encoding: decoded to the reference's pixels and read
like the reference) or ``"either"`` (a photo whose right answer is a read or a clear refusal,
e.g. two terrariums in one frame).

Arrays here are RGB uint8, ``(H, W, 3)``, like everywhere else in the project.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

SAMPLES = Path(__file__).resolve().parents[2] / "reptile_tank" / "samples"


@dataclass(frozen=True)
class Kind:
    """One kind of hostile file.

    Attributes
    ----------
    name : str
        File stem; also the pytest id.
    suffix : str
        The file's suffix (the name a user would upload it under, not its real format).
    expect : str
        ``"refuse"``, ``"read"`` or ``"either"``.
    message : str
        A fragment the one-line refusal must hold (``""``: any clear message).
    """

    name: str
    suffix: str
    expect: str
    message: str = ""


def sample_rgb(name: str = "sample_1") -> np.ndarray:
    """A committed sample photo as ``(H, W, 3)`` uint8 RGB."""
    with Image.open(SAMPLES / f"{name}.jpg") as img:
        return np.asarray(img.convert("RGB"))


def sample_truth(name: str = "sample_1") -> dict:
    """The sample's ground truth (board, grid corners in image pixels, ...)."""
    return json.loads((SAMPLES / f"{name}.json").read_text())


def encode(rgb: np.ndarray, fmt: str, **params) -> bytes:
    """Encode an ``(H, W, 3)`` uint8 RGB array with Pillow."""
    buffer = io.BytesIO()
    Image.fromarray(rgb).save(buffer, format=fmt, **params)
    return buffer.getvalue()


# ----------------------------------------------------------------------------- broken files


def truncated(data: bytes, keep: float = 0.5) -> bytes:
    """The first ``keep`` share of a file, as an interrupted upload leaves it."""
    return data[: max(1, int(len(data) * keep))]


def zip_bytes() -> bytes:
    """A small, valid ZIP archive (someone uploads the wrong file)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("terrarium.txt", "not a photo\n" * 100)
    return buffer.getvalue()


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    return (
        struct.pack(">I", len(payload))
        + kind
        + payload
        + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)
    )


def png_bomb(width: int = 30_000, height: int = 30_000) -> bytes:
    """A valid 1-bit grayscale PNG of ``width`` x ``height`` zero pixels, built by hand.

    900 MP in ~110 KB: the rows are deflated as a stream, never held in memory, and decoding
    it to RGB would need ~2.7 GB. Bit depth 1 keeps building it under a second.
    """
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    row = b"\x00" * (1 + (width + 7) // 8)  # filter byte 0 + packed zero bits
    compressor = zlib.compressobj(9)
    idat = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", idat)
        + _png_chunk(b"IEND", b"")
    )


def jpeg_with_size(data: bytes, width: int, height: int) -> bytes:
    """A JPEG whose frame header (SOF0/1/2) claims ``width`` x ``height``; data unchanged."""
    out = bytearray(data)
    i = 2
    while i + 9 < len(out):
        if out[i] != 0xFF:
            raise ValueError("not a JPEG marker sequence")
        marker = out[i + 1]
        length = struct.unpack(">H", bytes(out[i + 2 : i + 4]))[0]
        if marker in (0xC0, 0xC1, 0xC2):
            out[i + 5 : i + 9] = struct.pack(">HH", height, width)
            return bytes(out)
        i += 2 + length
    raise ValueError("no SOF marker found")


# ----------------------------------------------------------------------------- odd encodings


def exif_rotated_jpeg(rgb: np.ndarray, orientation: int) -> tuple[bytes, np.ndarray]:
    """A JPEG stored sideways with an EXIF orientation tag that turns it back upright.

    Parameters
    ----------
    rgb : (H, W, 3) uint8 RGB
        The upright image (what the viewer must see).
    orientation : {6, 8}
        6: the stored pixels are the upright image turned 90° counter-clockwise (the viewer turns
        them clockwise); 8: the other way.

    Returns
    -------
    data : bytes
    upright : (H, W, 3) uint8 RGB
        ``rgb`` itself: what a correct loader returns (up to JPEG loss).
    """
    stored = np.rot90(rgb, k=1 if orientation == 6 else -1)
    exif = Image.Exif()
    exif[0x0112] = orientation
    return encode(np.ascontiguousarray(stored), "JPEG", quality=92, exif=exif.tobytes()), rgb


def cmyk_jpeg(rgb: np.ndarray) -> bytes:
    """A CMYK JPEG (print workflows and some scanners write these)."""
    buffer = io.BytesIO()
    Image.fromarray(rgb).convert("CMYK").save(buffer, format="JPEG", quality=92)
    return buffer.getvalue()


def png16_gray(rgb: np.ndarray) -> tuple[bytes, np.ndarray]:
    """A 16-bit grayscale PNG whose high byte is the image's luminance.

    Returns
    -------
    data : bytes
    expected : (H, W, 3) uint8 RGB
        The gray image a correct loader returns (high byte, replicated to 3 channels).
    """
    gray = np.asarray(Image.fromarray(rgb).convert("L"), dtype=np.uint16)
    wide = (gray << 8) | 0x5A  # a low byte that must be dropped, not wrapped
    buffer = io.BytesIO()
    Image.fromarray(wide.astype(np.uint16)).save(buffer, format="PNG")
    return buffer.getvalue(), np.repeat(gray.astype(np.uint8)[:, :, None], 3, axis=2)


def png16_rgb(rgb: np.ndarray) -> bytes:
    """A 48-bit (16 bits per channel) RGB PNG of ``rgb`` (value * 257, as editors export)."""
    import cv2

    wide = rgb.astype(np.uint16) * 257
    ok, data = cv2.imencode(".png", np.ascontiguousarray(wide[:, :, ::-1]))  # OpenCV wants BGR
    assert ok
    return data.tobytes()


def gray_jpeg(rgb: np.ndarray) -> tuple[bytes, np.ndarray]:
    """A grayscale JPEG and the gray RGB image a correct loader returns (up to JPEG loss)."""
    gray = np.asarray(Image.fromarray(rgb).convert("L"))
    buffer = io.BytesIO()
    Image.fromarray(gray).save(buffer, format="JPEG", quality=92)
    return buffer.getvalue(), np.repeat(gray[:, :, None], 3, axis=2)


def heic(rgb: np.ndarray) -> bytes:
    """An HEIC photo written by pillow-heif (the iPhone default)."""
    import pillow_heif

    pillow_heif.register_heif_opener()
    return encode(rgb, "HEIF", quality=90)


def animated_gif(rgb: np.ndarray) -> bytes:
    """A 3-frame GIF whose first frame is ``rgb`` (quantised), then two flat gray frames."""
    frames = [Image.fromarray(rgb).quantize(256)]
    for value in (40, 200):
        frames.append(Image.fromarray(np.full_like(rgb, value)).quantize(4))
    buffer = io.BytesIO()
    frames[0].save(buffer, format="GIF", save_all=True, append_images=frames[1:], duration=200)
    return buffer.getvalue()


# ----------------------------------------------------------------------------- odd scenes


def no_cards_photo(seed: int = 11) -> bytes:
    """A synthetic tabletop with dice and a score pad but no cards (all 20 cells empty)."""
    from vision.reptile_tank.synth.deck import stand_in_deck
    from vision.reptile_tank.synth.scene import encode_jpeg, render_scene

    board = {"rows": [["empty"] * 5 for _ in range(4)]}
    image, _ = render_scene(seed, stand_in_deck(px_per_mm=4.0), board=board, size=(1200, 900))
    return encode_jpeg(image, 88)


def two_terrariums(left: str = "sample_1", right: str = "sample_3") -> tuple[bytes, int]:
    """Two sample photos side by side in one frame; returns the JPEG and the seam's x."""
    a, b = sample_rgb(left), sample_rgb(right)
    height = min(a.shape[0], b.shape[0])
    both = np.concatenate([a[:height], b[:height]], axis=1)
    return encode(both, "JPEG", quality=90), a.shape[1]


def single_card_photo(
    name: str = "sample_1", cell: tuple[int, int] = (1, 2), *, close_up: bool = True
) -> bytes:
    """A phone photo of one card on the table, taken from one cell of a sample.

    With ``close_up=False`` the frame is the sample's whole frame (the card is small in it).

    The cell's card is kept inside its quadrilateral (from the ground truth); the rest of a crop
    three card-heights wide is the table colour, and the crop is enlarged to 900 x 1200 so the
    card fills about a third of the frame.
    """
    import cv2

    rgb = sample_rgb(name)
    truth = sample_truth(name)
    quad = np.asarray(truth["cells"][cell[0]][cell[1]], np.float32).reshape(4, 2)
    table = np.median(rgb[:20, :20].reshape(-1, 3), axis=0).astype(np.uint8)
    mask = np.zeros(rgb.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 255)
    out = np.where(mask[:, :, None] > 0, rgb, table[None, None, :]).astype(np.uint8)
    if not close_up:
        return encode(out, "JPEG", quality=90)
    centre = quad.mean(axis=0)
    half_h = 1.5 * float(np.ptp(quad[:, 1]))
    half_w = 0.75 * half_h
    x0, x1 = int(centre[0] - half_w), int(centre[0] + half_w)
    y0, y1 = int(centre[1] - half_h), int(centre[1] + half_h)
    padded = cv2.copyMakeBorder(out, 400, 400, 400, 400, cv2.BORDER_CONSTANT, value=table.tolist())
    crop = padded[y0 + 400 : y1 + 400, x0 + 400 : x1 + 400]
    close_up = cv2.resize(crop, (900, 1200), interpolation=cv2.INTER_CUBIC)
    return encode(close_up, "JPEG", quality=90)


KINDS: tuple[Kind, ...] = (
    Kind("empty", ".jpg", "refuse", "empty"),
    Kind("truncated_jpeg", ".jpg", "refuse", "truncated"),
    Kind("truncated_png", ".png", "refuse", "truncated"),
    Kind("header_only_png", ".png", "refuse", ""),
    Kind("truncated_heic", ".heic", "refuse", "truncated"),
    Kind("text_as_jpg", ".jpg", "refuse", "not an image"),
    Kind("zip_as_jpg", ".jpg", "refuse", "not an image"),
    Kind("one_pixel", ".png", "refuse", "1x1"),
    Kind("png_bomb_30000", ".png", "refuse", "limit"),
    Kind("jpeg_claims_60000", ".jpg", "refuse", "limit"),
    Kind("animated_gif", ".gif", "refuse", "a GIF image, not an accepted photo format"),
    Kind("cmyk_jpeg", ".jpg", "read"),
    Kind("png_16bit_rgb", ".png", "read"),
    Kind("png_16bit_gray", ".png", "read"),
    Kind("gray_jpeg", ".jpg", "read"),
    Kind("exif_6", ".jpg", "read"),
    Kind("exif_8", ".jpg", "read"),
    Kind("heic", ".heic", "read"),
    Kind("webp", ".webp", "read"),
    Kind("no_cards", ".jpg", "refuse", "no terrarium found"),
    Kind("two_terrariums", ".jpg", "either"),
    Kind("single_card_far", ".jpg", "refuse", "no terrarium found"),
    Kind("single_card_close", ".jpg", "refuse", "no terrarium found"),
)


def build_corpus(out_dir: Path) -> dict[str, Path]:
    """Write one file per :data:`KINDS` entry into ``out_dir``; returns name → path."""
    rgb = sample_rgb("sample_1")
    jpeg = (SAMPLES / "sample_1.jpg").read_bytes()
    png = encode(rgb, "PNG")
    heic_bytes = heic(rgb)
    data = {
        "empty": b"",
        "truncated_heic": heic_bytes[:430],
        "truncated_jpeg": truncated(jpeg, 0.5),
        "truncated_png": truncated(png, 0.5),
        "header_only_png": png[:64],
        "text_as_jpg": b"Ann 42\nBen 37\n" * 20,
        "zip_as_jpg": zip_bytes(),
        "one_pixel": encode(np.full((1, 1, 3), 128, np.uint8), "PNG"),
        "png_bomb_30000": png_bomb(),
        "jpeg_claims_60000": jpeg_with_size(jpeg, 60_000, 60_000),
        "animated_gif": animated_gif(rgb),
        "cmyk_jpeg": cmyk_jpeg(rgb),
        "png_16bit_rgb": png16_rgb(rgb),
        "png_16bit_gray": png16_gray(rgb)[0],
        "gray_jpeg": gray_jpeg(rgb)[0],
        "exif_6": exif_rotated_jpeg(rgb, 6)[0],
        "exif_8": exif_rotated_jpeg(rgb, 8)[0],
        "heic": heic_bytes,
        "webp": encode(rgb, "WEBP", quality=90),
        "no_cards": no_cards_photo(),
        "two_terrariums": two_terrariums()[0],
        "single_card_far": single_card_photo(close_up=False),
        "single_card_close": single_card_photo(close_up=True),
    }
    paths = {}
    for kind in KINDS:
        path = out_dir / f"{kind.name}{kind.suffix}"
        path.write_bytes(data[kind.name])
        paths[kind.name] = path
    return paths
