"""TerrariumReader's closer look: a photo refused at the reader's size is looked at again on a
larger decode of its bytes, and its grid read at the reader's size from the corners found."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
import pytest

from vision.errors import GridNotFoundError
from vision.reptile_tank import reader as reader_module
from vision.reptile_tank.reader import TerrariumReader


@dataclass
class _Fit:
    corners: np.ndarray
    method: str = "corners"


@dataclass
class _Read:
    fit: _Fit
    grid_doubt: str = ""
    given: np.ndarray | None = None
    size: int = 0


@dataclass
class _Finder:
    """Stands in for the pipeline: finds the grid only on an image at least ``needs`` px long
    (at 10 % of its size in from the top-left corner), reads given corners on any image."""

    needs: int
    doubt: str = ""
    calls: list = field(default_factory=list)

    def read(self, rgb, scale, clock, corners, star_cards_removed):
        """The reader's ``_read_loaded``."""
        if corners is not None:
            side = max(rgb.shape[:2])
            self.calls.append((side, True))
            return _Read(_Fit(np.asarray(corners)), given=np.asarray(corners), size=side)
        fit, _, _, doubt, _ = self.find(rgb, None)
        return _Read(fit, grid_doubt=doubt, size=max(rgb.shape[:2]))

    def find(self, rgb, classify):
        """The reader's ``_find_grid``."""
        side = max(rgb.shape[:2])
        self.calls.append((side, False))
        if side < self.needs:
            raise GridNotFoundError("no terrarium found")
        h, w = rgb.shape[:2]
        box = np.array(
            [[0.1 * w, 0.1 * h], [0.3 * w, 0.1 * h], [0.3 * w, 0.3 * h], [0.1 * w, 0.3 * h]]
        )
        return _Fit(box, method="lattice"), None, None, self.doubt, []

    def install(self, reader, monkeypatch) -> None:
        monkeypatch.setattr(reader, "_read_loaded", self.read)
        monkeypatch.setattr(reader, "_find_grid", self.find)


@pytest.fixture(scope="module")
def photo_12mp() -> bytes:
    rng = np.random.default_rng(0)
    image = rng.integers(0, 255, (3024 // 8, 4032 // 8, 3), np.uint8)
    image = cv2.resize(image, (4032, 3024), interpolation=cv2.INTER_NEAREST)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return data.tobytes()


@pytest.fixture(scope="module")
def reader() -> TerrariumReader:
    return TerrariumReader()


def test_a_refused_photo_is_found_on_a_larger_decode_and_read_at_the_readers_size(
    reader, photo_12mp, monkeypatch
):
    finder = _Finder(needs=2500, doubt="another fit")
    finder.install(reader, monkeypatch)
    loaded = reader.load(photo_12mp)
    read = reader.read(photo_12mp)
    long_side = max(loaded.rgb.shape[:2])
    closer = [side for side, given in finder.calls if not given and side > long_side]
    assert closer and max(closer) <= round(reader_module.CLOSER_LOOK * long_side)
    assert read.size == long_side  # the final read is on the reader's own image ...
    h, w = loaded.rgb.shape[:2]  # ... from the corners found, in its pixels
    assert np.allclose(read.given[0], [0.1 * w, 0.1 * h], atol=2.0)
    assert np.allclose(read.given[2], [0.3 * w, 0.3 * h], atol=2.0)
    assert read.grid_doubt == "another fit"  # the closer read's doubt is kept
    assert read.fit.method == "lattice, on a closer look"  # and how its grid was found


def test_the_refusal_stands_when_the_closer_look_finds_nothing(reader, photo_12mp, monkeypatch):
    finder = _Finder(needs=10**6)
    finder.install(reader, monkeypatch)
    with pytest.raises(GridNotFoundError):
        reader.read(photo_12mp)
    assert len(finder.calls) == 2  # the reader's size, then one closer look


def test_no_closer_look_without_the_bytes_or_more_pixels(reader, photo_12mp, monkeypatch):
    finder = _Finder(needs=10**6)
    finder.install(reader, monkeypatch)
    loaded = reader.load(photo_12mp)
    with pytest.raises(GridNotFoundError):
        reader.read_loaded(loaded)  # no bytes to decode again
    assert len(finder.calls) == 1
    small = cv2.imencode(".jpg", loaded.rgb[:900, :1200])[1].tobytes()  # already at full size
    finder.calls.clear()
    with pytest.raises(GridNotFoundError):
        reader.read(small)
    assert len(finder.calls) == 1
