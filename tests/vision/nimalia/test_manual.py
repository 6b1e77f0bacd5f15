"""The tap-one-card fallback: a reserve read from the 4 corners of one fully visible card."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from vision.loading import load_image
from vision.nimalia.manual import CARD_NOT_READ, check_card_corners, read_reserve_from_card
from vision.nimalia.reader import read_reserve
from vision.nimalia.scene import encode_jpeg, render_reserve

#: Fresh seeds 740016 and 1120047: the automatic reader takes a wrong lattice (740016: half the
#: pitch, off the squares; 1120047: a close-up of 2 x 3 squares, its lattice at about three
#: quarters of the pitch across); seed 0: it reads the reserve right. (600053, missed until the
#: reader learnt the orthogonal partner of a vanishing point, 620032, 6 x 2 squares for a
#: 2 x 3 reserve until the harmonics took a third of the pitch, and 1010033, a close-up of one
#: card's worth cut at a third of the pitch until a square the head and the nearest prototype
#: name differently was checked, are now read right.)
MISSED = (740016, 1120047)


@cache
def _photo(seed: int):
    """A scene as the app gets it (JPEG at its quality, the app's loader) and its truth."""
    image, truth = render_reserve(seed, max_size=(1600, 1200))
    rgb = load_image(encode_jpeg(image, truth["params"]["jpeg_quality"])).rgb
    return rgb, truth


def last_card_corners(truth) -> list[list[float]]:
    """Image corners TL, TR, BR, BL of the last card laid (always fully visible)."""
    p = truth["placements"][-1]
    r0, c0 = truth["bbox"][:2]
    q = truth["square_quads"]
    r, c = p["row"] - r0, p["col"] - c0
    return [q[r][c][0], q[r][c + 1][1], q[r + 1][c + 1][2], q[r + 1][c][3]]


def _shape(grid):
    return len(grid), len(grid[0]) if grid else 0


@pytest.mark.parametrize("seed", MISSED)
def test_reads_a_reserve_the_automatic_reader_gets_wrong(seed):
    rgb, truth = _photo(seed)
    auto = read_reserve(rgb)
    assert auto.squares != truth["squares"]  # the case the fallback is for
    read = read_reserve_from_card(rgb, last_card_corners(truth))
    assert read.found
    assert read.squares == truth["squares"]
    assert len(read.lattice_quads) == len(truth["squares"])
    assert CARD_NOT_READ not in read.reasons


def test_any_card_any_corner_order_gives_the_same_read():
    rgb, truth = _photo(0)
    corners = last_card_corners(truth)
    first = read_reserve_from_card(rgb, corners)
    assert first.squares == truth["squares"]
    for order in ((2, 0, 3, 1), (3, 2, 1, 0)):
        again = read_reserve_from_card(rgb, [corners[i] for i in order])
        assert again.squares == first.squares
        assert again.needs_check == first.needs_check


def test_a_photo_turned_a_quarter_reads_turned():
    """Up is the image's up: a quarter-turned photo gives the grid seen from that side."""
    rgb, truth = _photo(0)
    h = rgb.shape[0]
    turned = np.ascontiguousarray(np.rot90(rgb, k=-1))  # clockwise: (x, y) -> (h - 1 - y, x)
    corners = [(h - 1 - y, x) for x, y in last_card_corners(truth)]
    read = read_reserve_from_card(turned, corners)
    direct = read_reserve_from_card(rgb, last_card_corners(truth))
    assert _shape(read.squares) == _shape(direct.squares)[::-1]


def test_a_table_tapped_as_a_card_asks_for_a_check():
    rgb, truth = _photo(0)
    quads = [q for row in truth["square_quads"] for q in row if q is not None]
    xs = [x for q in quads for x, _ in q]
    ys = [y for q in quads for _, y in q]
    # a card-sized patch of table to the left of the reserve
    side = (max(xs) - min(xs)) / len(truth["squares"][0]) * 2
    x1 = min(xs) - 0.3 * side
    x0, y0 = max(x1 - side, 1.0), min(ys)
    patch = [(x0, y0), (x1, y0), (x1, y0 + side), (x0, y0 + side)]
    read = read_reserve_from_card(rgb, patch)
    assert read.needs_check
    assert CARD_NOT_READ in read.reasons


@pytest.mark.parametrize(
    ("corners", "message"),
    [
        ([(10, 10), (60, 10), (60, 60)], "exactly 4 corners"),
        ([(10, 10), (60, 10), (60, 60), (10, 60), (5, 5)], "exactly 4 corners"),
        ([(10, 10), (60, 10), (60, 60), (10, 900)], "outside the photo"),
        ([(-40, 10), (60, 10), (60, 60), (10, 60)], "outside the photo"),
        ([(10, 10), (50, 10), (100, 10), (150, 10)], "do not outline a card"),  # a line
        ([(10, 10), (12, 10), (12, 12), (10, 12)], "do not outline a card"),  # too small
        ([(10, 10), (60, 60), (60, 10), (50, 20)], "do not outline a card"),  # not convex
        ([(10, "a"), (60, 10), (60, 60), (10, 60)], r"4 \(x, y\) points"),
    ],
)
def test_corners_that_are_not_a_card_are_refused(corners, message):
    with pytest.raises(ValueError, match=message):
        check_card_corners(corners, 400, 300)
    with pytest.raises(ValueError, match=message):
        read_reserve_from_card(np.zeros((300, 400, 3), np.uint8), corners)


def test_corners_at_the_edge_are_kept_and_ordered():
    quad = check_card_corners([(401, 300), (0, -2), (400, 0), (0, 300)], 400, 300)
    assert quad.tolist() == [[0, -2], [400, 0], [401, 300], [0, 300]]


def test_taps_a_few_pixels_off_are_snapped_to_the_squares(monkeypatch):
    """Fresh seed 600006: each corner tapped ~8 px off (a 1600 px photo). The lines 4 cells
    from the card drift by a good part of a square; snapped to the squares' edges they read the
    reserve right (the unsnapped window does not)."""
    from vision.nimalia import manual

    rgb, truth = _photo(600006)
    off = np.array([[6.0, -5.0], [-6.0, 5.0], [5.0, 6.0], [-5.0, -6.0]])
    corners = (np.array(last_card_corners(truth)) + off).tolist()
    assert read_reserve_from_card(rgb, corners).squares == truth["squares"]
    monkeypatch.setattr(manual, "_snapped", lambda rgb, lat, inside: lat)
    assert read_reserve_from_card(rgb, corners).squares != truth["squares"]
