"""The service layer is the only door for photos (issue 30): one loader and one list of
accepted types for the CLI and the app, a photo decoded and hashed once per read."""

from __future__ import annotations

import hashlib
import io

import numpy as np
import pytest
from PIL import Image

import service.photos as photos
import vision.loading
from vision.errors import GridNotFoundError, ImageLoadError


def _jpeg(width: int = 640, height: int = 480) -> bytes:
    rng = np.random.default_rng(0)
    buffer = io.BytesIO()
    Image.fromarray(rng.integers(0, 255, (height, width, 3), dtype=np.uint8)).save(
        buffer, format="JPEG"
    )
    return buffer.getvalue()


@pytest.fixture
def decodes(monkeypatch):
    """Count the loader's decodes (vision.loading.load_image, the one loader's backend)."""
    calls: list[int] = []
    real = vision.loading.load_image

    def counted(data, **kwargs):
        calls.append(len(data))
        return real(data, **kwargs)

    monkeypatch.setattr(vision.loading, "load_image", counted)
    return calls


def test_a_photo_is_decoded_and_hashed_once_and_a_bad_one_named(tmp_path, decodes):
    data = _jpeg()
    path = tmp_path / "board.jpg"
    path.write_bytes(data)
    photo = photos.read_photo_file(path, max_side=320)
    assert photo.sha256 == hashlib.sha256(data).hexdigest() and photo.data == data
    assert max(photo.image.rgb.shape[:2]) == 320 and len(decodes) == 1
    (tmp_path / "bad.jpg").write_bytes(b"not a photo at all" * 10)
    with pytest.raises(ImageLoadError, match=r"^\S*bad\.jpg: "):
        photos.read_photo_file(tmp_path / "bad.jpg")
    with pytest.raises(photos.PhotoInputError):
        photos.read_photo_file(tmp_path)  # a folder: refused before a byte is read


def test_no_grid_found_decodes_and_hashes_the_photo_once(monkeypatch, decodes):
    from service.reptile_tank import reading

    hashes: list[int] = []
    real_sha = hashlib.sha256

    def counted_sha(data=b""):
        hashes.append(len(data))
        return real_sha(data)

    class NoGrid:  # a reader that finds no terrarium (the corner request follows)
        max_side = 320

        def read_loaded(self, loaded, **_kwargs):
            raise GridNotFoundError("no terrarium in this photo")

    monkeypatch.setattr(photos.hashlib, "sha256", counted_sha)
    data = _jpeg()
    read = reading.read_photo(data, NoGrid())
    assert not read.grid_found and read.photo_sha256 == real_sha(data).hexdigest()
    assert read.image_size == (320, 240)  # the frame the reader reads in
    assert len(decodes) == 1 and hashes == [len(data)]


def test_the_cli_takes_the_one_list_of_photo_types():
    from reptile_tank.commands import bench, nimalia_photo, photo

    assert photo.IMAGE_SUFFIXES == nimalia_photo.IMAGE_SUFFIXES == bench.IMAGE_SUFFIXES
    assert photo.IMAGE_SUFFIXES == tuple(f".{t}" for t in photos.PHOTO_TYPES)
    assert nimalia_photo.is_photo("reserve.AVIF") and not nimalia_photo.is_photo("game.json")
    assert photo.PhotoInputError is photos.PhotoInputError


def test_the_cli_and_the_app_enrol_through_one_service_function():
    """``reptile-tank enroll`` and the app's deck page build packs with
    service.reptile_tank.deck.create_pack, embedded with the reader's model."""
    import inspect

    from reptile_tank.commands import photo
    from service.reptile_tank import deck
    from ui.reptile_tank import backend

    for caller in (photo.run_enroll, backend.enroll_deck):
        source = inspect.getsource(caller)
        assert "create_pack(" in source and "DeckPack.create" not in source
    assert "READER_MODEL" in inspect.getsource(deck.reader_embedder)
