"""Nimalia's photo reads and deck enrolment through the service layer
(:mod:`service.nimalia.reading`, :func:`service.nimalia.deck.enroll_folder`): the app's upload
and the command line's file are decoded and hashed once and read by the one reader."""

from __future__ import annotations

import hashlib
import io

import numpy as np
import pytest
from PIL import Image

from service.nimalia import reading
from service.nimalia.deck import enroll_folder
from service.photos import Photo


def jpeg(shape=(480, 640)) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(np.full((*shape, 3), 200, np.uint8)).save(buffer, "JPEG")
    return buffer.getvalue()


@pytest.fixture
def fake_reader(monkeypatch):
    """The reader stubbed: records the images it is given, returns a marker."""
    import vision.nimalia.reader as reader_module

    calls = []

    def fake_read(image, pack=None):
        calls.append((image.shape, pack))
        return "the read"

    monkeypatch.setattr(reader_module, "read_reserve", fake_read)
    return calls


def test_the_reader_is_installed_here():
    assert reading.reader_available()


def test_an_upload_is_decoded_full_size_and_keeps_the_digest_given():
    data = jpeg()
    photo = reading.load_reserve_photo(data)
    assert photo.sha256 == hashlib.sha256(data).hexdigest() and photo.data is data
    assert photo.image.rgb.shape == (480, 640, 3)  # full size: the reader scales it itself
    given = reading.load_reserve_photo(data, sha256="d" * 64)
    assert given.sha256 == "d" * 64  # the caller hashed it already: not hashed again


def test_an_upload_that_is_not_a_photo_is_one_value_error():
    with pytest.raises(ValueError):
        reading.load_reserve_photo(b"not a photo")


def test_the_app_and_the_cli_read_with_the_one_reader(tmp_path, fake_reader):
    data = jpeg()
    upload = reading.load_reserve_photo(data)
    read, photo = reading.read_reserve_photo(upload, "pack-dir")
    assert read == "the read" and photo is upload
    path = tmp_path / "reserve.jpg"
    path.write_bytes(data)
    read, photo = reading.read_reserve_photo(str(path))
    assert read == "the read" and isinstance(photo, Photo)
    assert photo.sha256 == hashlib.sha256(data).hexdigest()
    assert fake_reader == [((480, 640, 3), "pack-dir"), ((480, 640, 3), None)]


def test_a_file_the_reader_chokes_on_is_one_line_naming_it(tmp_path, monkeypatch):
    import cv2

    import vision.nimalia.reader as reader_module

    def broken(image, pack=None):
        raise cv2.error("OpenCV(4) error: (-215) something\nbad input")

    monkeypatch.setattr(reader_module, "read_reserve", broken)
    path = tmp_path / "reserve.jpg"
    path.write_bytes(jpeg())
    with pytest.raises(ValueError, match=r"reserve\.jpg: the photo could not be read \(bad input"):
        reading.read_reserve_photo(path)
    with pytest.raises(ValueError, match=r"missing\.jpg: cannot read the photo"):
        reading.read_reserve_photo(tmp_path / "missing.jpg")


def test_enroll_folder_refuses_in_one_line(tmp_path):
    with pytest.raises(ValueError, match="not a folder"):
        enroll_folder(tmp_path / "nowhere", tmp_path / "pack")
    with pytest.raises(ValueError, match=r"no <card id>\.png images"):
        enroll_folder(tmp_path, tmp_path / "pack")
    (tmp_path / "1.png").write_bytes(jpeg((88, 63)))
    with pytest.raises(ValueError, match=r"missing card images 2, 3, .* \.\.\."):
        enroll_folder(tmp_path, tmp_path / "pack")
    assert not (tmp_path / "pack").exists()
