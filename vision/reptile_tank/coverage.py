"""Does a cell show the face it was named? What of it does not (issue 28 item 4).

A thumb over a card, a sleeve's glare over most of it, a curled corner showing the table: the
embedder may still name such a card, or name another (a covered roach read as rock), with a
confident margin. For every cell read as a face, the rectified crop is compared with that
face's own image by colour alone (no alignment: a card laid a little off its cell, or turned a
few degrees, compares the same): the crop's colours are matched to the face's (per channel,
its 20th..80th percentile range onto the face's: exposure, colour cast, a sleeve's haze), and
each crop pixel is *foreign* when its colour lies in no colour-cube bin the face uses (or a
neighbouring one). Two shares per cell:

- ``foreign``: the share of foreign pixels (something that is not this card lies on it, or the
  read named the wrong card);
- ``skin``: the share of foreign pixels with a skin tone in the photo's own colours (a finger or
  thumb).

A cell is *hidden* when ``skin >= SKIN_LIMIT`` or ``foreign`` reaches the board's foreign limit
(:func:`foreign_limit`), or when most of it is washed out (:func:`washed_out_cells`, whatever it
was read as); the reader then flags it for a check whatever the recogniser's confidence.

The foreign limit is the board's own: :data:`FOREIGN_LIMIT` on a board whose cards are as alike
their faces as the stand-in deck's usually are, raised where the board's typical card (the
median over its face cells) is less so. The photo's light, the sleeves and the deck's printing
act on every card of a board; a thumb or a neighbour's card acts on one. A deck of flat,
saturated colours (another game's art: one green field, one purple frame) leaves 13-20 % of a
clean card's pixels outside its face's bins under a sleeve's haze, against 3 % for the stand-in
deck, and a fixed limit flagged 6-10 % of the clean cards of such a deck (development scenes
``scripts/dev_hidden_cells.py --deck-seed``, BENCHMARKS.md issue 28).

The limits were chosen on real-table development scenes of their own seeds
(``scripts/dev_hidden_cells.py``), never on a benchmark set or a hard photo: with ``--seed 2893
--n 40 --size 1600x1200`` 0.45 % of the clean right cells are flagged and 8 of 16 cells a thumb
covers by >= 15 % (with ``--seed 2890 --n 25``: 0 % and 4 of 8). A thumb in shade over brown or
pink art matches that art's colours, so this check does not catch every covered card (see
BENCHMARKS.md, issue 28).

Cost: about 0.2 ms per cell (a resize, a percentile, a table look-up).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from scoring.reptile_tank.cards import EMPTY

#: Comparison size (width, height) of a card, and the border share left out of a crop (the
#: table shows at the edge of a card laid off its cell).
SIZE = (32, 44)
INSET = 0.06
#: Colour-cube bins per channel, and how many bins around a face colour still match it.
BINS = 12
DILATE = 1
#: Percentiles matched between crop and face, per channel.
RANGE = (20, 80)
#: The hidden-cell limits (see the module docstring).
SKIN_LIMIT = 0.1
FOREIGN_LIMIT = 0.45
#: The board-relative part of the foreign limit: the limit rises by ``BOARD_FOREIGN_GAIN`` times
#: what the board's median foreign share exceeds ``BOARD_FOREIGN_TYPICAL`` by (the stand-in
#: deck's clean cards: median 0.03), up to ``MAX_FOREIGN_LIMIT``; only on a board with at least
#: ``BOARD_MIN_FACES`` cells read as faces (fewer make no median to trust).
BOARD_FOREIGN_TYPICAL = 0.03
BOARD_FOREIGN_GAIN = 2.0
MAX_FOREIGN_LIMIT = 0.8
BOARD_MIN_FACES = 6


@dataclass(frozen=True)
class FaceColours:
    """A face in the form the comparison needs: its colour-cube bins and percentile range."""

    used: np.ndarray  # (BINS, BINS, BINS) bool, dilated
    low: np.ndarray  # (3,) RGB at RANGE[0]
    high: np.ndarray  # (3,) RGB at RANGE[1]


def _small(image: np.ndarray, inset: float) -> np.ndarray:
    s = cv2.resize(np.asarray(image), SIZE, interpolation=cv2.INTER_AREA).astype(np.float32)
    h, w = s.shape[:2]
    a, b = int(round(inset * h)), int(round(inset * w))
    return s[a : h - a, b : w - b]


def _bins(rgb: np.ndarray) -> np.ndarray:
    return np.clip((rgb * (BINS / 256.0)).astype(np.int64), 0, BINS - 1)


def face_colours(face: np.ndarray) -> FaceColours:
    """Prepare one upright face image (H, W, 3) uint8 RGB for :func:`hidden_shares`."""
    pixels = _small(face, 0.0).reshape(-1, 3)
    q = _bins(pixels)
    used = np.zeros((BINS,) * 3, bool)
    used[q[:, 0], q[:, 1], q[:, 2]] = True
    for _ in range(DILATE):
        grown = used.copy()
        for axis in range(3):
            grown |= np.roll(used, 1, axis) | np.roll(used, -1, axis)
        used = grown
    low, high = np.percentile(pixels, RANGE, axis=0)
    return FaceColours(used=used, low=low, high=high)


def cell_shares(crop: np.ndarray, face: FaceColours) -> tuple[float, float]:
    """``(foreign, skin)`` shares of one crop against the face it was read as (any rotation:
    colours do not turn)."""
    pixels = _small(crop, INSET).reshape(-1, 3)
    low, high = np.percentile(pixels, RANGE, axis=0)
    gain = np.clip((face.high - face.low) / np.maximum(high - low, 1.0), 0.6, 2.0)
    matched = np.clip((pixels - low) * gain + face.low, 0, 255)
    q = _bins(matched)
    foreign = ~face.used[q[:, 0], q[:, 1], q[:, 2]]
    # skin is judged on the photo's own colours (matching them to a blue face would turn a
    # thumb's red to anything)
    hsv = cv2.cvtColor(pixels.astype(np.uint8)[None], cv2.COLOR_RGB2HSV)[0].astype(np.float32)
    hue, sat, val = hsv[:, 0] * 2.0, hsv[:, 1] / 255.0, hsv[:, 2] / 255.0
    skin = ((hue < 40) | (hue > 340)) & (sat > 0.15) & (sat < 0.7) & (val > 0.25)
    return float(foreign.mean()), float((foreign & skin).mean())


def hidden_shares(
    crops: np.ndarray, labels: list[list[str]], faces: Mapping[str, FaceColours]
) -> tuple[np.ndarray, np.ndarray]:
    """``(foreign, skin)``, each (rows, cols) float32, for every cell read as a face (0 for empty
    cells and for labels without a face)."""
    rows, cols = len(labels), len(labels[0])
    foreign = np.zeros((rows, cols), np.float32)
    skin = np.zeros((rows, cols), np.float32)
    for r in range(rows):
        for c in range(cols):
            label = labels[r][c]
            if label == EMPTY or label not in faces:
                continue
            foreign[r, c], skin[r, c] = cell_shares(crops[r, c], faces[label])
    return foreign, skin


def foreign_limit(foreign: np.ndarray, faces: np.ndarray | None = None) -> float:
    """The foreign share at which a cell of this board is hidden (see the module docstring).

    ``faces`` marks the cells read as a face (``foreign`` is 0 elsewhere); without it, or with
    fewer than :data:`BOARD_MIN_FACES` of them, the fixed :data:`FOREIGN_LIMIT`.
    """
    if faces is None:
        return FOREIGN_LIMIT
    shares = np.asarray(foreign, np.float64)[np.asarray(faces, bool)]
    if len(shares) < BOARD_MIN_FACES:
        return FOREIGN_LIMIT
    typical = float(np.median(shares))
    raised = FOREIGN_LIMIT + BOARD_FOREIGN_GAIN * max(0.0, typical - BOARD_FOREIGN_TYPICAL)
    return min(raised, MAX_FOREIGN_LIMIT)


def hidden_cells(
    foreign: np.ndarray, skin: np.ndarray, faces: np.ndarray | None = None
) -> np.ndarray:
    """(rows, cols) bool: the cells to flag as hidden; ``faces`` (the cells read as a face)
    makes the foreign limit the board's own (:func:`foreign_limit`)."""
    limit = foreign_limit(foreign, faces)
    return (np.asarray(skin) >= SKIN_LIMIT) | (np.asarray(foreign) >= limit)


def hidden_on_board(
    crops: np.ndarray, labels: list[list[str]], faces: Mapping[str, FaceColours]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(hidden, foreign, skin)`` for a board read as ``labels``: :func:`hidden_shares` of its
    crops and the cells :func:`hidden_cells` flags, with the board's own foreign limit taken over
    the cells read as a face."""
    foreign, skin = hidden_shares(crops, labels, faces)
    read_as_face = np.array([[label != EMPTY for label in row] for row in labels])
    return hidden_cells(foreign, skin, read_as_face), foreign, skin


#: A pixel is washed out when every channel is at least this (of 255).
WASHED_LEVEL = 245
#: A cell is washed out when at least this share of it is: glare or a blown exposure over most
#: of the card leaves nothing to name it by, whatever the recogniser says (an ``empty`` read of
#: a white glare included). On development scenes of their own (``scripts/bench_real_table.py``
#: data, seeds 4417 and 4418, 50 game-night photos, 1,000 cells) no cell without glare went
#: above 0.46.
WASHED_LIMIT = 0.6


def washed_out_cells(crops: np.ndarray) -> np.ndarray:
    """(rows, cols) bool: the cells (of (rows, cols, H, W, 3) uint8 crops) mostly washed out."""
    rows, cols = crops.shape[:2]
    out = np.zeros((rows, cols), bool)
    for r in range(rows):
        for c in range(cols):
            darkest = _small(crops[r, c], INSET).min(axis=2)
            out[r, c] = float((darkest >= WASHED_LEVEL).mean()) >= WASHED_LIMIT
    return out
