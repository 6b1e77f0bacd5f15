"""Does a cell show the face it was named? What of it does not (issue 28 item 4).

A thumb over a card, a sleeve's glare over most of it, a curled corner showing the table: the
embedder may still name such a card, or name another (a covered roach read as rock), with a
confident margin. For every cell read as a face, the rectified crop is compared with that
face's own image by colour alone (no alignment: a card laid a little off its cell, or turned a
few degrees, compares the same): the crop's colours are matched to the face's (per channel,
its 20th..80th percentile range onto the face's: exposure, colour cast, a sleeve's haze), and
each crop pixel is *foreign* when its colour lies in no colour-cube bin the face uses (or a
neighbouring one). Three shares per cell:

- ``foreign``: the share of foreign pixels (something that is not this card lies on it, or the
  read named the wrong card);
- ``skin``: the largest share, over the card's :data:`TILES` patches, of pixels with a skin tone
  in the photo's own colours that are foreign to that *part* of the face (its colours within
  half a patch around it): a finger or thumb over an edge. Patches whose own print is warm (a
  brown log, a pink snake, a red field a sleeve's haze turns pink) are left out of it, and a
  thumb over a quarter of the card fills one or two patches however little of the whole card
  it covers;
- ``patch``: the largest share, over the patches, of pixels foreign to that part of the face
  (a thumb in shade, a neighbour's card, whatever its tone).

A cell is *hidden* when ``skin >= SKIN_LIMIT``, ``foreign`` reaches the board's foreign limit
(:func:`foreign_limit`), ``patch`` exceeds the board's typical card's by :data:`PATCH_MARGIN`, or
when most of it is washed out (:func:`washed_out_cells`, whatever it was read as); the reader then
flags it for a check whatever the recogniser's confidence. The patches are compared with the face
upright and turned a half turn (a card laid the other way round), the better kept.

The foreign limit is the board's own: :data:`FOREIGN_LIMIT` on a board whose cards are as alike
their faces as the stand-in deck's usually are, raised where the board's typical card (the
median over its face cells) is less so. The photo's light, the sleeves and the deck's printing
act on every card of a board; a thumb or a neighbour's card acts on one. A deck of flat,
saturated colours (another game's art: one green field, one purple frame) leaves 13-20 % of a
clean card's pixels outside its face's bins under a sleeve's haze, against 3 % for the stand-in
deck, and a fixed limit flagged 6-10 % of the clean cards of such a deck (development scenes
``scripts/dev_hidden_cells.py --deck-seed``, BENCHMARKS.md issue 28).

The limits were chosen on real-table development scenes of their own seeds
(``scripts/dev_hidden_cells.py``, ``scripts/bench_real_table.py`` and ``scripts/bench_enrol.py``
data), never on a benchmark set or a hard photo. A thumb in shade over brown or pink art matches
that art's colours, so this check does not catch every covered card (see BENCHMARKS.md, issue
28).

The patch shares (stop 39) replaced a whole-card skin share (limit 0.1), which flagged clean
cards of faces printed in skin tones: on development boards of three look-alike decks (seeds
5511, 6601, 2811, enrolled from files) and two stand-in sets (4417, 4418), 26 of 1,398 clean
right cells, while it caught 11 of 25 covered cards; the limits below were chosen on those
development boards (BENCHMARKS.md, issue 28, stop 39).

Cost: about 0.5 ms per cell (two resizes, a percentile, table look-ups).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

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
#: The patches: a card is cut into TILES = (rows, columns) of them, compared at PATCH_SIZE
#: (width, height) against the face's colours within PATCH_REACH of a patch around each.
TILES = (4, 3)
PATCH_SIZE = (48, 64)
PATCH_REACH = 0.5
#: Saturation from which a warm pixel has a skin tone (a thumb in shade is greyish), and the
#: share of a face's own patch in warm colours from which the skin share leaves that patch out
#: (a red field, a brown log: the patch share still sees a thumb there).
SKIN_MIN_SATURATION = 0.08
FACE_SKIN_MAX = 0.2
#: The hidden-cell limits (see the module docstring).
SKIN_LIMIT = 0.35
PATCH_MARGIN = 0.6
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
    #: per patch (row-major over TILES), the dilated bins around it: upright, then a half turn
    patches: tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]
    patch_low: np.ndarray  # (3,) RGB at RANGE[0] at PATCH_SIZE
    patch_high: np.ndarray
    #: per patch, as ``patches``: whether the face's own print there is warm (no skin test)
    warm_patches: tuple[np.ndarray, np.ndarray]


class Shares(NamedTuple):
    """One crop against the face it was read as (see the module docstring)."""

    foreign: float
    skin: float
    patch: float


def _small(image: np.ndarray, inset: float, size: tuple[int, int] = SIZE) -> np.ndarray:
    s = cv2.resize(np.asarray(image), size, interpolation=cv2.INTER_AREA).astype(np.float32)
    h, w = s.shape[:2]
    a, b = int(round(inset * h)), int(round(inset * w))
    return s[a : h - a, b : w - b]


def _bins(rgb: np.ndarray) -> np.ndarray:
    return np.clip((rgb * (BINS / 256.0)).astype(np.int64), 0, BINS - 1)


def _used_bins(pixels: np.ndarray) -> np.ndarray:
    """(BINS, BINS, BINS) bool: the bins of (N, 3) RGB pixels, grown by DILATE bins."""
    q = _bins(pixels.reshape(-1, 3))
    used = np.zeros((BINS,) * 3, bool)
    used[q[:, 0], q[:, 1], q[:, 2]] = True
    for _ in range(DILATE):
        grown = used.copy()
        for axis in range(3):
            grown |= np.roll(used, 1, axis) | np.roll(used, -1, axis)
        used = grown
    return used


def _patch_spans(length: int, parts: int, reach: float) -> list[tuple[int, int]]:
    spans = []
    for k in range(parts):
        a = max(0, int((k - reach) * length / parts))
        b = min(length, int(np.ceil((k + 1 + reach) * length / parts)))
        spans.append((a, b))
    return spans


def _face_patches(face: np.ndarray) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """Per patch of an upright face at PATCH_SIZE (inset as a crop is), with its reach: the
    bins it uses, and whether its own print is at least :data:`FACE_SKIN_MAX` warm (a skin
    tone, or a saturated red or orange that a sleeve's haze turns into one: a skin tone there
    is no sign of a thumb)."""
    h, w = face.shape[:2]
    parts = [
        face[a:b, c:d].reshape(-1, 3)
        for a, b in _patch_spans(h, TILES[0], PATCH_REACH)
        for c, d in _patch_spans(w, TILES[1], PATCH_REACH)
    ]
    warm = [skin_tone(part, SKIN_MIN_SATURATION, 1.0).mean() >= FACE_SKIN_MAX for part in parts]
    return tuple(_used_bins(part) for part in parts), np.array(warm)


def face_colours(face: np.ndarray) -> FaceColours:
    """Prepare one upright face image (H, W, 3) uint8 RGB for :func:`hidden_shares`."""
    pixels = _small(face, 0.0).reshape(-1, 3)
    # the percentiles of the face as a crop is measured (inset: the crop's border is left
    # out); those of the whole face hold its outer frame, and a crop's colours matched onto
    # them were shifted off the face's own (a clean card's pixels 80 % foreign, stop 44)
    low, high = np.percentile(_small(face, INSET).reshape(-1, 3), RANGE, axis=0)
    patched = _small(face, INSET, PATCH_SIZE)
    patch_low, patch_high = np.percentile(patched.reshape(-1, 3), RANGE, axis=0)
    (upright, upright_warm), (turned, turned_warm) = (
        _face_patches(patched),
        _face_patches(patched[::-1, ::-1]),
    )
    return FaceColours(
        used=_used_bins(pixels),
        low=low,
        high=high,
        patches=(upright, turned),
        patch_low=patch_low,
        patch_high=patch_high,
        warm_patches=(upright_warm, turned_warm),
    )


def _matched(pixels: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """(…, 3) pixels with their RANGE percentiles mapped onto ``low``..``high`` per channel."""
    own_low, own_high = np.percentile(pixels.reshape(-1, 3), RANGE, axis=0)
    gain = np.clip((high - low) / np.maximum(own_high - own_low, 1.0), 0.6, 2.0)
    return np.clip((pixels - own_low) * gain + low, 0, 255)


def skin_tone(
    pixels: np.ndarray,
    min_saturation: float,
    max_saturation: float = 0.7,
    hue_from: float = 340.0,
) -> np.ndarray:
    """(N,) bool: which of (N, 3) RGB pixels have a skin tone (warm hue: from ``hue_from``
    degrees round to 40; some saturation)."""
    hsv = cv2.cvtColor(pixels.astype(np.uint8)[None], cv2.COLOR_RGB2HSV)[0].astype(np.float32)
    hue, sat, val = hsv[:, 0] * 2.0, hsv[:, 1] / 255.0, hsv[:, 2] / 255.0
    warm = (hue < 40) | (hue > hue_from)
    return warm & (sat > min_saturation) & (sat <= max_saturation) & (val > 0.25)


def _patch_shares(crop: np.ndarray, face: FaceColours, inset: float = INSET) -> tuple[float, float]:
    """``(skin, patch)``: the largest per-patch shares of foreign skin-toned and of foreign
    pixels, the face's orientation (upright or a half turn) the one the crop fits better;
    ``inset``: the border share of the crop left out."""
    pixels = _small(crop, inset, PATCH_SIZE)
    h, w = pixels.shape[:2]
    q = _bins(_matched(pixels, face.patch_low, face.patch_high))
    skin = skin_tone(pixels.reshape(-1, 3), SKIN_MIN_SATURATION).reshape(h, w)
    cells = [
        (rows, cols)
        for rows in _patch_spans(h, TILES[0], 0.0)
        for cols in _patch_spans(w, TILES[1], 0.0)
    ]
    best = None
    for bins, warm in zip(face.patches, face.warm_patches, strict=True):
        foreign, foreign_skin = [], []
        for k, ((a, b), (c, d)) in enumerate(cells):
            part = q[a:b, c:d].reshape(-1, 3)
            outside = ~bins[k][part[:, 0], part[:, 1], part[:, 2]]
            foreign.append(float(outside.mean()))
            if not warm[k]:
                foreign_skin.append(float((outside & skin[a:b, c:d].reshape(-1)).mean()))
        # the orientation judged by its second-worst patch (one patch may hold the cover)
        fit = sorted(foreign)[-2]
        if best is None or fit < best[0]:
            best = (fit, max(foreign_skin, default=0.0), max(foreign))
    return best[1], best[2]


def foreign_share(crop: np.ndarray, face: FaceColours) -> float:
    """The share of a crop's pixels outside the face's colours (any rotation: colours do not
    turn)."""
    pixels = _small(crop, INSET).reshape(-1, 3)
    q = _bins(_matched(pixels, face.low, face.high))
    return float((~face.used[q[:, 0], q[:, 1], q[:, 2]]).mean())


def cell_shares(crop: np.ndarray, face: FaceColours) -> Shares:
    """The :class:`Shares` of one crop against the face it was read as: :func:`foreign_share`
    and the patch shares (the face upright or a half turn). Skin is judged on the photo's own
    colours (matching them to a blue face would turn a thumb's red to anything)."""
    return Shares(foreign_share(crop, face), *_patch_shares(crop, face))


def hidden_shares(
    crops: np.ndarray, labels: list[list[str]], faces: Mapping[str, FaceColours]
) -> Shares:
    """The :class:`Shares` as (rows, cols) float32 arrays, for every cell read as a face (0 for
    empty cells and for labels without a face)."""
    rows, cols = len(labels), len(labels[0])
    shares = np.zeros((3, rows, cols), np.float32)
    for r in range(rows):
        for c in range(cols):
            label = labels[r][c]
            if label == EMPTY or label not in faces:
                continue
            shares[:, r, c] = cell_shares(crops[r, c], faces[label])
    return Shares(*shares)


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


def patch_limit(patch: np.ndarray, faces: np.ndarray | None = None) -> float:
    """The patch share above which a cell of this board is hidden: the board's typical card's
    (the median over the cells read as a face) plus :data:`PATCH_MARGIN`; without ``faces``, or
    with fewer than :data:`BOARD_MIN_FACES` of them, :data:`PATCH_MARGIN` over none."""
    typical = 0.0
    if faces is not None:
        shares = np.asarray(patch, np.float64)[np.asarray(faces, bool)]
        if len(shares) >= BOARD_MIN_FACES:
            typical = float(np.median(shares))
    return typical + PATCH_MARGIN


def _beyond_limits(shares: Shares, foreign: float, patch: float) -> np.ndarray | bool:
    """Whether shares (arrays or one cell's) reach the skin limit or the given foreign and patch
    limits."""
    return (
        (np.asarray(shares.skin) >= SKIN_LIMIT)
        | (np.asarray(shares.foreign) >= foreign)
        | (np.asarray(shares.patch) >= patch)
    )


def hidden_cells(
    foreign: np.ndarray,
    skin: np.ndarray,
    faces: np.ndarray | None = None,
    patch: np.ndarray | None = None,
) -> np.ndarray:
    """(rows, cols) bool: the cells to flag as hidden; ``faces`` (the cells read as a face)
    makes the foreign and patch limits the board's own (:func:`foreign_limit`,
    :func:`patch_limit`)."""
    if patch is None:
        patch_at, patch = np.inf, np.zeros_like(np.asarray(foreign))
    else:
        patch_at = patch_limit(patch, faces)
    return _beyond_limits(Shares(foreign, skin, patch), foreign_limit(foreign, faces), patch_at)


#: The moves (shares of a card's width and height) at which a cell found hidden is compared
#: again: a card laid by hand a few millimetres off its cell (see :func:`hidden_on_board`).
NEAR_MOVE = 0.08
NEAR_MOVES = tuple(
    (dx, dy)
    for dy in (-NEAR_MOVE, 0.0, NEAR_MOVE)
    for dx in (-NEAR_MOVE, 0.0, NEAR_MOVE)
    if (dx, dy) != (0, 0)
)
#: The border share left out of a crop for its interior (:func:`hidden_on_board`).
INNER_INSET = INSET + NEAR_MOVE


def hidden_on_board(
    crops: np.ndarray,
    labels: list[list[str]],
    faces: Mapping[str, FaceColours],
    moved: Callable[[int, int, tuple[tuple[float, float], ...]], np.ndarray] | None = None,
) -> tuple[np.ndarray, Shares]:
    """``(hidden, shares)`` for a board read as ``labels``: :func:`hidden_shares` of its crops
    and the cells :func:`hidden_cells` flags, with the board's own limits taken over the cells
    read as a face.

    ``moved(row, col, moves)`` gives a cell's crops moved in the board's plane by each
    ``(dx, dy)`` (shares of the card's width and height;
    :func:`vision.reptile_tank.grid.shifted_cell_crops`). With it, a cell found hidden is
    compared again: a card laid by hand off its cell shows a strip of table or of its neighbour
    along the lattice crop's border, foreign to the face, and the crop moved onto the card shows
    none. The cell is not hidden when the lattice crop's interior (the border a move of
    :data:`NEAR_MOVE` can push out of it left out as well) is within the board's limits and the
    crop at one of :data:`NEAR_MOVES` is too. The interior is what keeps a thumb flagged: moved,
    the crop splits a thumb over brown or warm art between other patches, whose colours it can
    match (a stand-in card under a thumb over 22 %, development set 4437, was cleared so).

    On the look-alike decks' boards enrolled from files (``scripts/bench_enrol.py`` data, seeds
    2811, 4001, 5511, 6601, 7301; 50 boards), of the cells the shares found hidden, this clears
    7 of 23 clean cards read right and none of 19 partly covered ones (the moves alone: 17 and
    7, a covered card among them read wrong). The shares returned are the lattice crops'
    (``crops``: for a card the reader cut again along its own outline, that cut; its moved
    crops are still its cell's, moved).
    """
    shares = hidden_shares(crops, labels, faces)
    read_as_face = np.array([[label != EMPTY for label in row] for row in labels])
    limits = (
        foreign_limit(shares.foreign, read_as_face),
        patch_limit(shares.patch, read_as_face),
    )
    hidden = _beyond_limits(shares, *limits)  # hidden_cells with the board's own limits
    if moved is None:
        return hidden, shares
    for r, c in np.argwhere(hidden):
        face = faces[labels[r][c]]
        inside = Shares(shares.foreign[r, c], *_patch_shares(crops[r, c], face, INNER_INSET))
        if _beyond_limits(inside, *limits):
            continue
        nearby = moved(int(r), int(c), NEAR_MOVES)
        if any(not _beyond_limits(cell_shares(crop, face), *limits) for crop in nearby):
            hidden[r, c] = False
    return hidden, shares


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
