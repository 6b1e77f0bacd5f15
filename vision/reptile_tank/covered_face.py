"""A second look past a hand: at the cards near a face enrolled under a hand, and at a board's
cards a hand lies over (issue 28 items 1, 2, 4).

A layout photo with a thumb over a card enrols that card's face with the thumb in it
(:attr:`vision.reptile_tank.gallery.DeckPack.unsure`). On the boards, the clean card then
matches its own face badly -- a third of it is a thumb -- and a look-alike sharing its frame
better: every copy of it on every board is misread (flagged, but wrong) until the deck is
photographed again. On 10 development one-photo packs (stop 44) these reads were half of all
wrong cells.

The second look compares like with like: the part of the face the hand covers
(:func:`hand_mask`) is blanked in the cell's crop and in every enrolled face alike, and the cell
is embedded again. Two kinds of cells are looked at again. A cell read as the unsure face, or
with it close to its read (:data:`vision.reptile_tank.confidence.UNSURE_FACE_MARGIN`): of the
unsure face and the read's rival, the one the blanked crop is nearer to is taken. A cell that
matches its read weakly (the reader's weak match) however far the unsure face scores (a thumb
over a third of the enrolled face can leave its own card matching it at 0.2-0.3, read as any
face at 0.5): the unsure face is taken only when it is the nearest of every blanked face. The
reader looks so at every card, not only weak matches (:data:`EVERY_CARD`): a thumb over the
middle of an enrolled face left its own card reading as a look-alike at 0.83-0.88, sure, and
the thumbed face 0.4-0.5 below (a fresh development deck, 3131, stop 58: 4 silent wrong cells
on 9 boards, 1 after).
Their reads stay flagged (the face is still unsure, or the match weak), but are right more
often. Where the crop aligns to both faces, the fine comparison decides instead
(:meth:`vision.reptile_tank.classifier.LocalFeatureVerifier.compare`: the print where the two
faces differ, the hand's place on the unsure face left out, :data:`FINE_GAP`): an embedding
of a card with a third of it grey still weighs the frame look-alikes share; the print where
they differ tells the motif, name and numbers apart. The reader's re-ranking and
confirmation leave the hand's place out the same way.

The hand is found in the enrolled face alone (there is no clean image of it): a region of skin
tone (:func:`vision.reptile_tank.coverage.skin_tone`, with more saturation than a light card's
cream or pink border has), smooth (a thumb near the lens is out of focus), reaching the face's
edge (a hand comes in from outside the card), at least :data:`MIN_SHARE` of the face.

The same blanking serves a board's own card under a thumb (:class:`PastTheHand`, stop 46): a
card the hidden-card checks flagged, with a hand found in its crop, is compared with every face
blanked where the hand lies, and read as the nearest. It stays flagged (a hand is over it); it is
read right more often. On the stand-in real-table development sets (100 photos), of 38 flagged
cards a hand was found on, 36 were read right before and 38 after.

Cost: one embedding per unsure face and enrolled face when the reader is built, one per cell
looked at again (none on a board without an unsure face's candidates); past a board's hand, one
embedding per face and one for the card, per card a hand is found on.
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
#: The fine comparison (the print where the two faces differ, the hand's place left out)
#: decides between an unsure face and its rival when their correlations differ by this much;
#: closer, the blanked crop's embedding decides. On the development one-photo packs (stop 56,
#: five look-alike decks, the cells the second look took up) it was right on 145 of the 149
#: it could be made on (the embedding: 131): three misses at gaps of 0.24-0.46 on one face
#: cut badly from its layout photo (cosine 0.61 to its own image), one at 0.03.
FINE_GAP = 0.05


#: ``weak_below`` for a look at every card a board holds, however well it matches its read.
EVERY_CARD = float("inf")


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
    weak_below : float
        A card matching its read by less than this is looked at again too, however far the
        unsure face scores (a card under a thumb's worth of difference may match no face well:
        the reader's weak match); :data:`EVERY_CARD`: every card.
    """

    def __init__(
        self,
        embedder,
        faces: Mapping[str, np.ndarray],
        unsure: Iterable[str],
        margin: float,
        weak_below: float = -1.0,
    ) -> None:
        self.embedder = embedder
        self.margin = float(margin)
        self.weak_below = float(weak_below)
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

    def _candidates(self, cell, scores: Mapping[str, float]) -> tuple[str, str, bool] | None:
        """``(unsure face, its rival, weak only)`` for a cell to look at again, or None.
        ``scores``: the cell's best score per label. *Weak only*: the unsure face is not close to
        the read, but the read matches its face weakly."""
        if cell.label == EMPTY:
            return None
        near = [
            label
            for label in self.covered
            if label == cell.label or scores.get(label, -np.inf) >= cell.score - self.margin
        ]
        if not near and cell.score < self.weak_below:
            return max(self.covered, key=lambda label: scores.get(label, -np.inf)), cell.label, True
        if not near:
            return None
        unsure = max(near, key=lambda label: (label == cell.label, scores.get(label, -np.inf)))
        if unsure != cell.label:
            return unsure, cell.label, False
        rivals = sorted(
            (label for label in scores if label not in (EMPTY, unsure)),
            key=lambda label: -scores[label],
        )
        return (unsure, rivals[0], False) if rivals else None

    def relook(self, reads, crops: np.ndarray, compare=None):
        """``(reads, changed)``: ``reads`` (:class:`CellReads`) with the cells near an unsure
        face decided again (``crops``: (rows, cols, H, W, 3) uint8, the read's own), and how many
        labels changed. ``compare(row, col, labels)``: the fine comparison of that cell with
        ``labels`` where they differ and show their card (the hand's place left out,
        :meth:`vision.reptile_tank.classifier.LocalFeatureVerifier.compare`), or None where it
        cannot be made; where it is made and tells the two faces apart by
        :data:`FINE_GAP`, it decides, otherwise the blanked crop's embedding does."""
        todo = []
        for r, row in enumerate(reads.cells):
            for c, cell in enumerate(row):
                if cell.label == EMPTY:
                    continue
                scores = _cell_scores(reads, r, c)
                pair = self._candidates(cell, scores)
                if pair is not None:
                    todo.append((r, c, *pair, scores))
        if not todo:
            return reads, 0
        cells = [row[:] for row in reads.cells]
        changed = 0
        for unsure in dict.fromkeys(item[2] for item in todo):
            covered = self.covered[unsure]
            mine = [item for item in todo if item[2] == unsure]
            batch = np.stack([to_face_size(crops[r, c]) for r, c, *_ in mine])
            vectors = self.embedder.embed(blanked(batch, covered.mask))
            for (r, c, _, rival, weak_only, scores), vector in zip(mine, vectors, strict=True):
                if rival not in covered.embeddings:
                    continue
                similarity = {
                    label: float(face @ vector) for label, face in covered.embeddings.items()
                }
                fine = None if compare is None else compare(r, c, [unsure, rival])
                if fine is not None and abs(fine[unsure] - fine[rival]) >= FINE_GAP:
                    wins = fine[unsure] > fine[rival]
                elif weak_only:
                    # far from the read: the unsure face must be the nearest of every face
                    wins = max(similarity, key=similarity.get) == unsure
                else:
                    wins = similarity[unsure] > similarity[rival]
                pick = unsure if wins else rival
                if pick != cells[r][c].label:
                    cells[r][c] = _relabelled(cells[r][c], pick, scores)
                    changed += 1
        return replace(reads, cells=cells), changed


class PastTheHand:
    """The second look at a board's cards a hand lies over (see the module docstring).

    Parameters
    ----------
    embedder : vision.embedder.CardEmbedder
    faces : mapping label -> (H, W, 3) uint8 RGB
        The deck's faces (an enrolled pack's, or the stand-in deck's).
    """

    def __init__(self, embedder, faces: Mapping[str, np.ndarray]) -> None:
        self.embedder = embedder
        self.labels = sorted(faces)
        self.stack = np.stack(
            [to_face_size(np.asarray(faces[label])[..., :3]) for label in self.labels]
        )

    def relook(self, reads, crops: np.ndarray, hidden: np.ndarray):
        """``(reads, changed)``: ``reads`` (:class:`CellReads`) with every ``hidden`` cell read as
        a face whose crop (``crops``: (rows, cols, H, W, 3) uint8, the read's own) shows a hand
        (:func:`hand_mask`) read again as the face nearest to it with the hand's place blanked
        in both; and how many reads changed. A card read upright or a half turn is looked at
        that way; one read a quarter turn round (a portrait cell holds no such card) both ways,
        and read the way its nearest face is nearer."""
        cells = [row[:] for row in reads.cells]
        changed = 0
        for r, c in zip(*np.nonzero(np.asarray(hidden, bool)), strict=True):
            cell = cells[r][c]
            if cell.label == EMPTY:
                continue
            crop = to_face_size(np.ascontiguousarray(crops[r, c]))
            # a card read a quarter turn round in its portrait cell is the embedder's guess
            # under the hand: both ways the card can lie in the cell are looked at
            turns = (cell.rotation,) if cell.rotation in (0, 180) else (0, 180)
            seen = hand_mask(crop)  # the hand is found alike in the crop and its half turn
            if seen is None:
                continue
            best = None  # (similarity, label, rotation)
            for turn in turns:
                upright, mask = (
                    (crop[::-1, ::-1], seen[::-1, ::-1]) if turn == 180 else (crop, seen)
                )
                card = self.embedder.embed(blanked(upright[None], mask))[0]
                similarity = self.embedder.embed(blanked(self.stack, mask)) @ card
                k = int(np.argmax(similarity))
                if best is None or similarity[k] > best[0]:
                    best = (float(similarity[k]), self.labels[k], turn)
            _, nearest, turn = best
            if nearest != cell.label or turn != cell.rotation:
                cells[r][c] = replace(
                    _relabelled(cell, nearest, _cell_scores(reads, r, c)), rotation=turn
                )
                changed += 1
        if not changed:
            return reads, 0
        return replace(reads, cells=cells), changed


def _cell_scores(reads, r: int, c: int) -> dict[str, float]:
    """One cell's best score per label: its ``top`` completed by ``reads.label_scores``."""
    scores = dict(reads.cells[r][c].top)
    table = np.asarray(reads.label_scores)
    if table.ndim == 3 and table.shape[2] == len(reads.labels):
        for label, score in zip(reads.labels, table[r, c], strict=True):
            if np.isfinite(score):
                scores.setdefault(label, float(score))
    return scores


def _relabelled(cell, label: str, scores: Mapping[str, float]):
    """``cell`` read as ``label`` instead: its score that label's, its margin over the best
    other label (negative when the second look overrode the best guess), ``label`` first in
    ``top``."""
    score = float(scores.get(label, cell.score))
    best_other = max((s for lab, s in scores.items() if lab != label), default=-1.0)
    top = tuple(sorted(cell.top, key=lambda item: item[0] != label))
    if label not in dict(top):
        top = ((label, score), *top[:-1]) if top else ((label, score),)
    return replace(cell, label=label, score=score, confidence=score - best_other, top=top)
