"""A second look at the cards near a face enrolled under a hand (issue 28 items 1, 2).

A layout photo with a thumb over a card enrols that card's face with the thumb in it
(:attr:`vision.reptile_tank.gallery.DeckPack.unsure`). On the boards, the clean card then
matches its own face badly -- a third of it is a thumb -- and a look-alike sharing its frame
better: every copy of it on every board is misread (flagged, but wrong) until the deck is
photographed again. On 10 development one-photo packs (stop 44) these reads were half of all
wrong cells.

The second look compares like with like: the part of the face the hand covers
(:func:`hand_mask`) is blanked in the cell's crop and in every enrolled face alike, and the cell
is embedded again. Between the face enrolled under the hand and the read's other candidate, the
one the blanked crop is nearer to is taken. Only cells where the unsure face is the read or
close to it are looked at again (:data:`vision.reptile_tank.confidence.UNSURE_FACE_MARGIN`);
their reads stay flagged (the face is still unsure), but are right more often.

The hand is found in the enrolled face alone (there is no clean image of it): a region of skin
tone (:func:`vision.reptile_tank.coverage.skin_tone`, with more saturation than a light card's
cream or pink border has), smooth (a thumb near the lens is out of focus), reaching the face's
edge (a hand comes in from outside the card), at least :data:`MIN_SHARE` of the face.

Cost: one embedding per unsure face and enrolled face when the reader is built, one per cell
looked at again (none on a board without an unsure face's candidates).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

import cv2
import numpy as np

from scoring.reptile_tank.cards import EMPTY
from vision.reptile_tank.coverage import skin_tone
from vision.reptile_tank.gallery import to_face_size

#: The least saturation of a hand's skin in an enrolled face (a light card's cream or pink
#: border has 0.1-0.15; development thumbs 0.25-0.4).
HAND_SATURATION = 0.2
#: A hand's hue starts here (degrees, round to 40): under a magenta light cast a development
#: layout's thumb read 334 (the coverage check's 340 missed it).
HAND_HUE_FROM = 325.0
#: A hand is out of focus: the mean absolute Laplacian (after a 1 px blur) over
#: :data:`SMOOTH_WINDOW` px stays under this (grey levels, at the face size).
SMOOTH_LIMIT = 2.0
SMOOTH_WINDOW = 9
#: Skin regions smaller than this share of the face are not a hand; a mask over more than
#: :data:`MAX_SHARE` leaves too little to compare.
MIN_SHARE = 0.02
MAX_SHARE = 0.6
#: The mask grows by this many pixels (at the face size) over the hand's soft edge.
GROW_PX = 7
#: The grey the covered part is blanked with, in crop and faces alike.
BLANK = 128


def hand_mask(face: np.ndarray) -> np.ndarray | None:
    """(H, W) bool at the face size (:func:`to_face_size`): where a hand lies over an enrolled
    ``face`` (H, W, 3 uint8 RGB, upright), or None when no hand is seen (or one covering more
    than :data:`MAX_SHARE`)."""
    image = to_face_size(np.asarray(face)[..., :3])
    h, w = image.shape[:2]
    skin = skin_tone(image.reshape(-1, 3), HAND_SATURATION, hue_from=HAND_HUE_FROM).reshape(h, w)
    grey = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY).astype(np.float32)
    detail = np.abs(cv2.Laplacian(cv2.GaussianBlur(grey, (0, 0), 1.0), cv2.CV_32F))
    smooth = cv2.blur(detail, (SMOOTH_WINDOW, SMOOTH_WINDOW)) < SMOOTH_LIMIT
    candidate = cv2.morphologyEx(
        (skin & smooth).astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8)
    )
    count, labels, stats, _ = cv2.connectedComponentsWithStats(candidate)
    mask = np.zeros((h, w), bool)
    for k in range(1, count):
        x, y, width, height, area = stats[k]
        at_edge = x == 0 or y == 0 or x + width >= w or y + height >= h
        if at_edge and area >= MIN_SHARE * h * w:
            # the hull: a thumb's nail, lighter and less saturated, lies inside its skin
            points = cv2.findNonZero((labels == k).astype(np.uint8))
            hull = np.zeros((h, w), np.uint8)
            cv2.fillConvexPoly(hull, cv2.convexHull(points), 1)
            mask |= hull > 0
    if not mask.any():
        return None
    grow = 2 * GROW_PX + 1
    mask = cv2.dilate(mask.astype(np.uint8), np.ones((grow, grow), np.uint8)) > 0
    return mask if mask.mean() <= MAX_SHARE else None


def blanked(images: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """(N, H, W, 3) images at the face size with ``mask`` set to :data:`BLANK`."""
    out = np.array(images, np.uint8, copy=True)
    out[:, mask] = BLANK
    return out


@dataclass(frozen=True)
class _Covered:
    mask: np.ndarray  # (H, W) bool at FACE_SIZE
    embeddings: dict[str, np.ndarray]  # every enrolled face, blanked the same way


class CoveredFaceLook:
    """The second look for one deck: its faces enrolled under a hand, each with its mask and
    the enrolled faces blanked by it (see the module docstring).

    Parameters
    ----------
    embedder : vision.embedder.CardEmbedder
    faces : mapping label -> (H, W, 3) uint8 RGB
        The deck's enrolled faces (:attr:`DeckPack.faces`).
    unsure : iterable of str
        The faces enrolled unsure; those without a hand seen in them are left alone.
    margin : float
        How close (cosine units) an unsure face must score to a cell's read for the cell to be
        looked at again.
    """

    def __init__(
        self, embedder, faces: Mapping[str, np.ndarray], unsure: Iterable[str], margin: float
    ) -> None:
        self.embedder = embedder
        self.margin = float(margin)
        labels = sorted(faces)
        stack = np.stack([to_face_size(np.asarray(faces[label])[..., :3]) for label in labels])
        self.covered: dict[str, _Covered] = {}
        for label in unsure:
            if label not in faces:
                continue
            mask = hand_mask(faces[label])
            if mask is None:
                continue
            vectors = embedder.embed(blanked(stack, mask))
            self.covered[label] = _Covered(mask, dict(zip(labels, vectors, strict=True)))

    def __bool__(self) -> bool:
        return bool(self.covered)

    def _candidates(self, cell) -> tuple[str, str] | None:
        """``(unsure face, its rival)`` for a cell to look at again, or None."""
        if cell.label == EMPTY:
            return None
        scores = dict(cell.top)
        near = [
            label
            for label in self.covered
            if label == cell.label or scores.get(label, -np.inf) >= cell.score - self.margin
        ]
        if not near:
            return None
        unsure = max(near, key=lambda label: (label == cell.label, scores.get(label, -np.inf)))
        if unsure != cell.label:
            return unsure, cell.label
        rivals = [label for label, _ in cell.top if label not in (EMPTY, unsure)]
        return (unsure, rivals[0]) if rivals else None

    def relook(self, reads, crops: np.ndarray):
        """``(reads, changed)``: ``reads`` (:class:`CellReads`) with the cells near an unsure
        face decided again on their blanked crops (``crops``: (rows, cols, H, W, 3) uint8, the
        read's own), and how many labels changed."""
        todo = []
        for r, row in enumerate(reads.cells):
            for c, cell in enumerate(row):
                pair = self._candidates(cell)
                if pair is not None:
                    todo.append((r, c, *pair))
        if not todo:
            return reads, 0
        cells = [row[:] for row in reads.cells]
        changed = 0
        for unsure in {item[2] for item in todo}:
            covered = self.covered[unsure]
            mine = [item for item in todo if item[2] == unsure]
            batch = np.stack([to_face_size(crops[r, c]) for r, c, _, _ in mine])
            vectors = self.embedder.embed(blanked(batch, covered.mask))
            for (r, c, _, rival), vector in zip(mine, vectors, strict=True):
                if rival not in covered.embeddings:
                    continue
                pick = (
                    unsure
                    if float(covered.embeddings[unsure] @ vector)
                    > float(covered.embeddings[rival] @ vector)
                    else rival
                )
                if pick != cells[r][c].label:
                    cells[r][c] = _relabelled(cells[r][c], pick)
                    changed += 1
        return replace(reads, cells=cells), changed


def _relabelled(cell, label: str):
    """``cell`` read as ``label`` instead: its score that label's, its margin over the best
    other label (negative when the second look overrode the best guess)."""
    scores = dict(cell.top)
    score = float(scores.get(label, cell.score))
    best_other = max((s for lab, s in cell.top if lab != label), default=-1.0)
    top = tuple(sorted(cell.top, key=lambda item: item[0] != label))
    return replace(cell, label=label, score=score, confidence=score - best_other, top=top)
