"""Name every cell of a grid: an ONNX card embedder plus a deck :class:`~vision.reptile_tank.gallery.Gallery`.

:class:`~vision.embedder.CardEmbedder` (the vision core's, shared with Nimalia) embeds the crops.
:func:`classify_cells` embeds all 20 crops as one batch, scores them against the gallery and
applies the facts about the deck (no more copies of a type than the deck holds; star cards absent
when the user says so) as one constrained assignment over the cells' scores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import cv2
import numpy as np

from scoring.reptile_tank.cards import EMPTY, WATER
from scoring.reptile_tank.rules import default_rules
from vision import models
from vision.embedder import (  # noqa: F401 - re-exported: reader, enrolment, tools import them here
    DEFAULT_MODEL,
    CardEmbedder,
    ModelFileError,
)
from vision.models import model_files

#: The reader's embedder (second generation: look-alike faces, quarter turns, small photos);
#: :class:`vision.reptile_tank.reader.TerrariumReader` and enrolment use it.
READER_MODEL = model_files(models.READER_MODEL).onnx

#: How much the grid finder's occupancy evidence moves the ``empty`` score (cosine units): the
#: score gets ``OCCUPANCY_WEIGHT * (0.5 - occupancy)``, so only close calls can change.
OCCUPANCY_WEIGHT = 0.2


@dataclass(frozen=True)
class CellRead:
    """What one cell shows.

    Attributes
    ----------
    label : str
        A face label (card id or ``water``) or ``empty``.
    rotation : int
        The card's rotation in the crop, counter-clockwise degrees (0, 90, 180, 270).
    confidence : float
        The margin between this label's score and the best other label's (cosine units);
        negative when a deck fact overrode the cell's best guess.
    score : float
        The cosine similarity of the cell to the label's nearest prototype.
    top : tuple of (label, score)
        The best labels, best first.
    """

    label: str
    rotation: int
    confidence: float
    score: float
    top: tuple[tuple[str, float], ...]

    @property
    def occupied(self) -> bool:
        return self.label != EMPTY


@dataclass
class CellReads:
    """The cell reads (the grid's rows x cols) plus the raw scores they came from.

    Attributes
    ----------
    cells : list of 4 lists of 5 :class:`CellRead`
    labels : tuple of str
        The gallery's labels, the last axis of ``label_scores``.
    label_scores : (4, 5, L) float32
        Best score per label (over rotations).
    rotation_scores : (4, 5, L, 4) float32
        Score per label and rotation (0, 90, 180, 270); ``-inf`` where the gallery has none.
    """

    cells: list[list[CellRead]]
    labels: tuple[str, ...]
    label_scores: np.ndarray
    rotation_scores: np.ndarray

    def rows(self) -> list[list[str]]:
        """The board as 4 rows of 5 labels."""
        return [[cell.label for cell in row] for row in self.cells]


def hungarian(cost: np.ndarray) -> np.ndarray:
    """Minimum-cost assignment of every row to a distinct column.

    Parameters
    ----------
    cost : (n, m) float array, n ≤ m, finite

    Returns
    -------
    (n,) int
        The column assigned to each row.
    """
    cost = np.asarray(cost, np.float64)
    n, m = cost.shape
    if n > m:
        raise ValueError(f"cost must have no more rows than columns, got {cost.shape}")
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    match = np.zeros(m + 1, dtype=int)  # match[j] = row (1-based) assigned to column j
    way = np.zeros(m + 1, dtype=int)
    for i in range(1, n + 1):
        match[0] = i
        j0 = 0
        minv = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = match[j0]
            cur = cost[i0 - 1] - u[i0] - v[1:]
            free = ~used[1:]
            better = free & (cur < minv[1:])
            minv[1:][better] = cur[better]
            way[1:][better] = j0
            candidates = np.where(free, minv[1:], np.inf)
            j1 = int(np.argmin(candidates)) + 1
            delta = candidates[j1 - 1]
            u[match[used]] += delta
            v[used] -= delta
            minv[1:][free] -= delta
            j0 = j1
            if match[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            match[j0] = match[j1]
            j0 = j1
    result = np.empty(n, dtype=int)
    for j in range(1, m + 1):
        if match[j]:
            result[match[j] - 1] = j - 1
    return result


def constrained_labels(
    scores: np.ndarray, labels: tuple[str, ...], capacity: Mapping[str, int]
) -> np.ndarray:
    """Assign one label per cell maximising the total score under per-label capacities.

    When every cell's best label respects the capacities that is the answer; otherwise the
    least costly changes are made (a minimum-cost assignment over expanded label slots).

    Parameters
    ----------
    scores : (N, L) float
        Score of each label for each cell (higher is better).
    labels : tuple of L str
    capacity : mapping label → int
        How many cells may hold the label; labels not in it are unlimited.

    Returns
    -------
    (N,) int
        The chosen label index per cell.

    Raises
    ------
    ValueError
        When the capacities cannot hold N cells.
    """
    scores = np.asarray(scores, np.float64)
    n_cells, n_labels = scores.shape
    caps = np.array([min(capacity.get(lab, n_cells), n_cells) for lab in labels])
    best = scores.argmax(axis=1)
    if np.all(np.bincount(best, minlength=n_labels) <= caps) and np.all(caps[best] > 0):
        return best
    if caps.sum() < n_cells:
        raise ValueError("the deck's copy counts cannot fill the board")
    slots = np.repeat(np.arange(n_labels), caps)
    allowed = np.isfinite(scores)
    finite = np.where(allowed, scores, scores[allowed].min() - 10.0)
    chosen = hungarian(-finite[:, slots])
    return slots[chosen]


def classify_cells(
    crops: np.ndarray,
    embedder: CardEmbedder,
    gallery,
    *,
    copies: Mapping[str, int] | None = None,
    star_cards_removed: bool = False,
    occupancy: np.ndarray | None = None,
    top_k: int = 3,
) -> CellReads:
    """Name every cell of a rectified board.

    Parameters
    ----------
    crops : (4, 5, H, W, 3) uint8 RGB
        The rectified cells, as ``vision.reptile_tank.grid.rectify_cells`` returns them.
    embedder : CardEmbedder
    gallery : vision.reptile_tank.gallery.Gallery
        Built with the same embedder.
    copies : mapping card id → int, optional
        How many copies of each front the deck holds (from the rules data); no limit when
        omitted. ``water`` and ``empty`` are never limited.
    star_cards_removed : bool
        The star cards (corn snake, brown anole, rock) are out of the game (2–3 players).
    occupancy : (4, 5) float in 0..1, optional
        The grid finder's evidence that a card lies in each cell (``GridFit.occupancy``); it
        nudges the ``empty`` score by :data:`OCCUPANCY_WEIGHT` ``* (0.5 - occupancy)``.
    top_k : int
        How many labels to keep per cell in :attr:`CellRead.top`.

    Returns
    -------
    CellReads
    """
    crops = np.asarray(crops)
    if crops.ndim != 5 or crops.shape[-1] != 3:
        raise ValueError(f"crops must be (rows, cols, H, W, 3) RGB, got {crops.shape}")
    ROWS, COLS = crops.shape[:2]  # noqa: N806
    gallery.check_model(embedder)
    flat = crops.reshape((ROWS * COLS,) + crops.shape[2:])
    embeddings = embedder.embed(flat)
    rotation_scores = gallery.rotation_scores(embeddings)  # (20, L, 4)
    if occupancy is not None and EMPTY in gallery.labels:
        evidence = np.asarray(occupancy, np.float32).reshape(ROWS * COLS)
        rotation_scores[:, gallery.labels.index(EMPTY), :] += (
            OCCUPANCY_WEIGHT * (0.5 - evidence)[:, None]
        )
    label_scores = rotation_scores.max(axis=2)
    labels = gallery.labels
    capacity = dict(copies or {})
    capacity.pop(WATER, None)
    capacity.pop(EMPTY, None)
    if star_cards_removed:
        capacity.update({card: 0 for card in default_rules().star_cards})
    chosen = constrained_labels(label_scores, labels, capacity)
    cells = []
    for index in range(ROWS * COLS):
        row = label_scores[index]
        choice = int(chosen[index])
        others = np.delete(row, choice)
        runner_up = float(others.max()) if len(others) else -1.0
        order = np.argsort(-row)[:top_k]
        rot_index = int(np.argmax(rotation_scores[index, choice]))
        cells.append(
            CellRead(
                label=labels[choice],
                rotation=90 * rot_index,
                confidence=float(row[choice] - runner_up),
                score=float(row[choice]),
                top=tuple((labels[k], float(row[k])) for k in order),
            )
        )
    grid = [cells[r * COLS : (r + 1) * COLS] for r in range(ROWS)]
    return CellReads(
        cells=grid,
        labels=labels,
        label_scores=label_scores.reshape(ROWS, COLS, -1).astype(np.float32),
        rotation_scores=rotation_scores.reshape(ROWS, COLS, len(labels), 4).astype(np.float32),
    )


# ------------------------------------------------------------ local-feature re-ranking

#: Cells whose two best face labels are closer than this (cosine units) are re-ranked.
RERANK_MAX_MARGIN = 0.10
#: The crop is aligned to the best of the embedder's first this many candidate faces.
RERANK_TOP = 3
#: Crops and faces are compared at this size (width, height): 4 px/mm of a card.
RERANK_SIZE = (252, 352)
#: Keypoint matches that must agree on one homography to align a crop to a face.
RERANK_MIN_INLIERS = 12
#: The crop may show the card moved by up to this share of its width (laid off its place).
RERANK_MAX_SHIFT = 0.3
#: Where two candidate faces differ by more than this (Lab units, any channel) the pixel tells
#: them apart; the comparison is made there only.
RERANK_DIFFERENT = 30.0
#: A candidate replaces the embedder's choice when its correlation there is higher by this plus
#: the embedder's own lead of its choice over that candidate (:func:`embedder_lead`)...
RERANK_WIN = 0.10
#: ... and a label is confirmed when it beats every other candidate by this much.
RERANK_CONFIRM = 0.20
#: The print's structure is compared in square blocks of this many pixels (at
#: :data:`RERANK_SIZE`) of lightness less the light varying over more than
#: :data:`STRUCTURE_SIGMA` px: per block, its own contrast and brightness cancel out, so a
#: sheen over part of an enrolled face (light added, contrast taken away, unevenly) leaves its
#: print comparable where colours are not (:meth:`LocalFeatureVerifier.structure`).
STRUCTURE_BLOCK = 24
STRUCTURE_SIGMA = 6.0
#: Two faces differ in structure in a block where their print correlates under this...
STRUCTURE_DIFFERENT = 0.5
#: ... a block is compared where every face and the crop show print (the spread of their
#: detail, L* 0..255, at least this) ...
STRUCTURE_PRINT = 1.5
#: ... and the embedder's choice is in doubt when a rival's structure comes within this of its
#: own (:attr:`LocalCheck.agree`). On a fresh development deck's one-photo pack (9203, stop 57)
#: three silent wrong cells (their face cut under a sheen, the colour comparison agreeing with
#: the embedder's look-alike) had their true face ahead by 0.12-0.16; the two that are close
#: calls are now flagged.
STRUCTURE_MARGIN = 0.05


@dataclass(frozen=True)
class LocalCheck:
    """What the fine comparison says about one cell.

    Attributes
    ----------
    label : str
        The label after re-ranking (the embedder's unless a candidate clearly won).
    embedder_label : str
    scores : dict label -> float
        Correlation (-1..1) of the aligned crop with each candidate face over the pixels where
        the candidates differ; ``-1`` for a candidate it could not be compared with.
    aligned : bool
        Whether the crop could be aligned to the faces (enough keypoint inliers).
    agree : bool
        The best-scoring face is the embedder's choice, and no rival's print structure comes
        within :data:`STRUCTURE_MARGIN` of its (True when nothing could be compared).
    structure : dict label -> float
        Per face of the first :data:`RERANK_TOP` candidates, the mean correlation of the print's
        structure (:meth:`LocalFeatureVerifier.structure`); empty when it could not be made.
    """

    label: str
    embedder_label: str
    scores: dict[str, float]
    aligned: bool
    agree: bool
    structure: dict[str, float] = field(default_factory=dict)

    @property
    def confirmed(self) -> bool:
        """The label's face matches clearly better than every other candidate, and no rival's
        print structure comes close (:attr:`agree`)."""
        if not self.aligned or len(self.scores) < 2 or not self.agree:
            return False
        own = self.scores.get(self.label, -1.0)
        others = [v for k, v in self.scores.items() if k != self.label]
        return own - max(others) >= RERANK_CONFIRM


class LocalFeatureVerifier:
    """Sees the fine differences between look-alike faces.

    The crop is aligned to the enrolled faces by ORB keypoint matches that one RANSAC
    homography close to the identity explains (the frame look-alike faces share aligns them
    well; the homography may move the card by up to :data:`RERANK_MAX_SHIFT` of its width, a
    card laid off its place being cut off-centre). The aligned crop is then compared with each
    candidate face only where the candidates differ (motif, name, numbers: the pixels where
    two of them differ by :data:`RERANK_DIFFERENT` in Lab), by normalised correlation per Lab
    channel: light and colour cast cancel out, the shared frame does not dilute the difference.

    Parameters
    ----------
    faces : mapping label -> (H, W, 3) uint8 RGB
        The enrolled faces (``DeckPack.faces``), upright.
    features : int
        ORB keypoints per image.
    unseen : mapping label -> (H, W) bool, optional
        Where an enrolled face does not show its card (a hand over it in the layout photo it
        was cut from, :func:`vision.reptile_tank.covered_face.hand_mask`): no keypoint is taken
        there, and no comparison involving that face is made there.
    """

    def __init__(
        self,
        faces: Mapping[str, np.ndarray],
        *,
        features: int = 800,
        unseen: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        self._orb = cv2.ORB_create(nfeatures=features, scaleFactor=1.2, nlevels=6,
                                   edgeThreshold=15, patchSize=15)  # fmt: skip
        self._matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
        w, h = RERANK_SIZE
        self._unseen = {
            label: cv2.resize(np.asarray(mask, np.uint8), (w, h), interpolation=cv2.INTER_NEAREST)
            > 0
            for label, mask in (unseen or {}).items()
            if label in faces
        }
        self._faces: dict[str, tuple] = {}
        self._lab: dict[str, np.ndarray] = {}
        self._blocks: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for label, face in faces.items():
            small = cv2.resize(np.asarray(face), RERANK_SIZE, interpolation=cv2.INTER_AREA)
            self._faces[label] = self._describe(small, self._unseen.get(label))
            self._lab[label] = cv2.cvtColor(small, cv2.COLOR_RGB2LAB).astype(np.float32)
            units, spread = print_blocks(self._lab[label][..., 0])
            if label in self._unseen:  # a block a hand lies over shows no print of the card
                spread = np.where(_blocks_of(self._unseen[label].astype(np.float32)).mean(2) > 0.2,
                                  0.0, spread)  # fmt: skip
            self._blocks[label] = (units, spread)
        # per set of faces compared: where they differ, and each face's centred, normalised
        # channels there (every cell compared with every face asks the same set again)
        self._telling: dict[frozenset, tuple[np.ndarray, list[str], np.ndarray]] = {}

    @property
    def labels(self) -> list[str]:
        """The enrolled faces' labels."""
        return list(self._faces)

    def _describe(self, rgb: np.ndarray, unseen: np.ndarray | None = None):
        if rgb.shape[:2] != (RERANK_SIZE[1], RERANK_SIZE[0]):
            rgb = cv2.resize(rgb, RERANK_SIZE, interpolation=cv2.INTER_AREA)
        gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
        gray = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(4, 4)).apply(gray)
        seen = None if unseen is None else np.where(unseen, 0, 255).astype(np.uint8)
        keypoints, descriptors = self._orb.detectAndCompute(gray, seen)
        points = np.array([k.pt for k in keypoints], np.float32).reshape(-1, 2)
        return points, descriptors

    def align(self, described, label: str) -> tuple[np.ndarray | None, int]:
        """``(crop -> face homography or None, inliers)`` from keypoint matches."""
        points, descriptors = described
        face_points, face_descriptors = self._faces[label]
        if (
            descriptors is None
            or face_descriptors is None
            or min(len(points), len(face_points)) < 4
        ):
            return None, 0
        pairs = self._matcher.knnMatch(descriptors, face_descriptors, k=2)
        good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < 0.8 * p[1].distance]
        if len(good) < RERANK_MIN_INLIERS:
            return None, 0
        src = points[[m.queryIdx for m in good]]
        dst = face_points[[m.trainIdx for m in good]]
        near = np.linalg.norm(src - dst, axis=1) < RERANK_MAX_SHIFT * RERANK_SIZE[0]
        if near.sum() < RERANK_MIN_INLIERS:
            return None, 0
        homography, mask = cv2.findHomography(src[near], dst[near], cv2.RANSAC,
                                              0.03 * RERANK_SIZE[0])  # fmt: skip
        if homography is None or mask is None or int(mask.sum()) < RERANK_MIN_INLIERS:
            return None, 0
        w, h = RERANK_SIZE
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32).reshape(-1, 1, 2)
        moved = cv2.perspectiveTransform(corners, homography).reshape(-1, 2)
        if np.abs(moved - corners.reshape(-1, 2)).max() > RERANK_MAX_SHIFT * w:
            return None, 0  # not the same card seen upright
        return homography, int(mask.sum())

    def check(
        self,
        crop_rgb: np.ndarray,
        candidates: list[str] | None,
        embedder_label: str,
        embedder_top: tuple[tuple[str, float], ...] = (),
    ) -> LocalCheck:
        """Re-rank ``candidates`` (face labels, best first; every enrolled face when None) for
        one crop the embedder read as ``embedder_label``: the crop is aligned to the first
        :data:`RERANK_TOP` and compared with all. ``embedder_top``: the cell's best labels and
        their embedder scores (:attr:`CellRead.top`); a rival must beat the embedder's choice
        by :data:`RERANK_WIN` plus the embedder's lead over it (:func:`embedder_lead`)."""
        if candidates is None:
            candidates = self.labels
        candidates = [c for c in dict.fromkeys([embedder_label, *candidates]) if c in self._faces]
        if len(candidates) < 2:
            return LocalCheck(embedder_label, embedder_label, {}, False, True)
        lab = self._aligned_lab(crop_rgb, candidates[:RERANK_TOP])
        if lab is None:
            return LocalCheck(embedder_label, embedder_label, {}, False, True)
        structure = self.structure(lab, candidates[:RERANK_TOP]) or {}
        rivals = [v for k, v in structure.items() if k != embedder_label]
        in_doubt = bool(rivals) and max(rivals) >= structure[embedder_label] - STRUCTURE_MARGIN
        scores = self._correlations(lab, candidates)
        if scores is None:
            return LocalCheck(embedder_label, embedder_label, {}, True, not in_doubt, structure)
        best = max(scores, key=lambda k: scores[k])
        label = embedder_label
        if best != embedder_label:
            # the two settle it where they differ from each other (not where a third does)
            between = self._correlations(lab, [best, embedder_label])
            lead = embedder_lead(embedder_top, embedder_label, best)
            if between is not None and between[best] - between[embedder_label] >= RERANK_WIN + lead:
                label = best
        agree = best == embedder_label and not in_doubt
        return LocalCheck(label, embedder_label, scores, True, agree, structure)

    def compare(self, crop_rgb: np.ndarray, labels: list[str]) -> dict[str, float] | None:
        """Per face of ``labels`` (enrolled), the correlation of ``crop_rgb`` with it where
        those faces differ and every one of them shows its card, the crop aligned to whichever
        of them its keypoints agree with best; None when it aligns to none of them or too few
        pixels are left to compare."""
        labels = [label for label in dict.fromkeys(labels) if label in self._faces]
        lab = self._aligned_lab(crop_rgb, labels) if len(labels) >= 2 else None
        return None if lab is None else self._correlations(lab, labels)

    def structure(self, lab: np.ndarray, labels: list[str]) -> dict[str, float] | None:
        """Per face of ``labels``, the mean over the blocks where those faces' print differs
        (:data:`STRUCTURE_DIFFERENT`) of its structure's correlation with the aligned crop
        ``lab`` (:meth:`_aligned_lab`): blocks of :data:`STRUCTURE_BLOCK` px where each face and
        the crop show print (:data:`STRUCTURE_PRINT`) and every face shows its card (not a
        hand's place); None with fewer than 3 such blocks or under 2 faces."""
        labels = [label for label in dict.fromkeys(labels) if label in self._blocks]
        if len(labels) < 2:
            return None
        units, spread = print_blocks(lab[..., 0])
        usable = spread > 1.0
        for label in labels:
            usable &= self._blocks[label][1] > STRUCTURE_PRINT
        differ = np.zeros(usable.shape, bool)
        for i, a in enumerate(labels):
            for b in labels[i + 1 :]:
                alike = (self._blocks[a][0] * self._blocks[b][0]).sum(axis=2)
                differ |= alike < STRUCTURE_DIFFERENT
        usable &= differ
        if int(usable.sum()) < 3:
            return None
        return {
            label: float((self._blocks[label][0] * units).sum(axis=2)[usable].mean())
            for label in labels
        }

    def _aligned_lab(self, crop_rgb: np.ndarray, align_to: list[str]) -> np.ndarray | None:
        """The crop at :data:`RERANK_SIZE` aligned (Lab, float32) to whichever face of
        ``align_to`` its keypoints agree with best (look-alike faces share the frame that
        aligns them); None when it aligns to none."""
        crop = cv2.resize(np.asarray(crop_rgb), RERANK_SIZE, interpolation=cv2.INTER_AREA)
        described = self._describe(crop)
        best_h, best_n = None, 0
        for label in align_to:
            homography, inliers = self.align(described, label)
            if homography is not None and inliers > best_n:
                best_h, best_n = homography, inliers
        if best_h is None:
            return None
        w, h = RERANK_SIZE
        aligned = cv2.warpPerspective(crop, best_h, (w, h), borderMode=cv2.BORDER_REPLICATE)
        return cv2.cvtColor(aligned, cv2.COLOR_RGB2LAB).astype(np.float32)

    def _correlations(self, lab: np.ndarray, labels: list[str]) -> dict[str, float] | None:
        """Per face of ``labels``, the normalised correlation of the aligned crop (Lab) with it over
        the pixels where those faces differ (:func:`_telling_pixels`) and each shows its card;
        None when fewer than 50 pixels are left. The faces' side is worked out once per set of
        faces."""
        key = frozenset(labels)
        if key not in self._telling:
            order = sorted(key)
            inside = _telling_pixels(np.stack([self._lab[c] for c in order]))
            for label in order:
                if label in self._unseen:
                    inside &= ~self._unseen[label]
            # (3, K, P): per channel, every face's unit vector there (contiguous for the products)
            units = (
                np.ascontiguousarray(
                    np.stack([_unit_channels(self._lab[c][inside]) for c in order], axis=1)
                )
                if inside.sum() >= 50
                else None
            )
            self._telling[key] = (inside, order, units)
        inside, order, units = self._telling[key]
        if units is None:
            return None
        seen = _unit_channels(lab[inside])  # (3, P)
        # per face, the mean over channels of the normalised correlation (a flat channel: 0)
        per_channel = np.stack([units[k] @ seen[k] for k in range(seen.shape[0])], axis=1)
        return dict(zip(order, per_channel.mean(axis=1).tolist(), strict=True))


def embedder_lead(top: tuple[tuple[str, float], ...], label: str, rival: str) -> float:
    """How far the embedder put ``label`` ahead of ``rival`` (cosine units, never below 0) by a
    cell's best labels ``top``: a rival not among them scored at most the last one listed.

    Two judges of one card: the fine comparison replaces the embedder's choice only when its own
    margin outweighs the embedder's. On a pack enrolled from a photo its faces carry the photo's
    glare and blur, and a rival the embedder put well behind won the fine comparison wrongly
    (development one-photo packs, BENCHMARKS.md stop 47)."""
    scores = dict(top)
    if label not in scores or not scores:
        return 0.0
    rival_score = scores.get(rival, min(scores.values()))
    return max(0.0, float(scores[label] - rival_score))


def _telling_pixels(faces: np.ndarray) -> np.ndarray:
    """``(h, w)`` bool: where the Lab faces ``(K, h, w, 3)`` differ by over
    :data:`RERANK_DIFFERENT` in some channel (eroded by one pixel: alignment is not exact)."""
    spread = (faces.max(axis=0) - faces.min(axis=0)).max(axis=2)
    mask = cv2.erode((spread > RERANK_DIFFERENT).astype(np.uint8), np.ones((3, 3), np.uint8))
    return mask.astype(bool)


def _blocks_of(image: np.ndarray) -> np.ndarray:
    """(rows, cols, B * B): ``image`` (h, w) float cut in :data:`STRUCTURE_BLOCK` px blocks."""
    b = STRUCTURE_BLOCK
    rows, cols = image.shape[0] // b, image.shape[1] // b
    cut = image[: rows * b, : cols * b].reshape(rows, b, cols, b)
    return cut.transpose(0, 2, 1, 3).reshape(rows, cols, b * b)


def print_blocks(lightness: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(units, spread)`` of a lightness image (h, w) at :data:`RERANK_SIZE`: per block
    (:func:`_blocks_of`), its detail (less the light varying over :data:`STRUCTURE_SIGMA` px)
    centred and scaled to unit length (rows, cols, B * B), and that detail's spread, its
    standard deviation (rows, cols). Also how much print an enrolled face shows
    (:func:`vision.reptile_tank.washed_out.print_contrast`)."""
    lightness = np.asarray(lightness, np.float32)
    detail = _blocks_of(lightness - cv2.GaussianBlur(lightness, (0, 0), STRUCTURE_SIGMA))
    detail = detail - detail.mean(axis=2, keepdims=True)
    length = np.sqrt((detail * detail).sum(axis=2, keepdims=True))
    return detail / np.maximum(length, 1e-6), length[..., 0] / STRUCTURE_BLOCK


def _unit_channels(pixels: np.ndarray) -> np.ndarray:
    """(C, P): a ``(P, C)`` pixel set's channels centred and scaled to unit length (a flat
    channel, no variation: all zero)."""
    centred = (pixels - pixels.mean(axis=0)).T.astype(np.float64)
    length = np.sqrt((centred * centred).sum(axis=1, keepdims=True))
    return np.where(length > 1e-3, centred / np.maximum(length, 1e-12), 0.0)


def close_face_calls(
    cells: list[list[CellRead]], max_margin: float = RERANK_MAX_MARGIN, top: int = RERANK_TOP
) -> dict[tuple[int, int], list[str]]:
    """The cells whose best labels include two faces within ``max_margin``: cell -> the face
    candidates (best first, the cell's label first among them)."""
    out = {}
    for r, row in enumerate(cells):
        for c, cell in enumerate(row):
            if cell.label == EMPTY:
                continue
            faces = [(label, score) for label, score in cell.top[:top] if label != EMPTY]
            rivals = [label for label, score in faces
                      if label != cell.label and cell.score - score < max_margin]  # fmt: skip
            if rivals:
                out[(r, c)] = [cell.label, *rivals]
    return out


class FineCells:
    """A board's cells cut again from ``image`` by ``fit`` at :data:`RERANK_SIZE`, for the fine
    comparison: all at once, at the first cell asked for, and once for every step of one read
    that compares (the second look past a hand, the confirmation, the re-ranking)."""

    def __init__(self, image: np.ndarray, fit) -> None:
        self._image, self._fit = image, fit
        self._cells: np.ndarray | None = None

    def __getitem__(self, cell: tuple[int, int]) -> np.ndarray:
        if self._cells is None:
            from vision.reptile_tank.grid import rectify_cells

            self._cells = rectify_cells(self._image, self._fit, cell_size=RERANK_SIZE)
        return self._cells[cell]


def confirmed_cells(
    image: np.ndarray,
    fit,
    cells: list[list[CellRead]],
    looked_at: np.ndarray,
    verifier,
    fine: FineCells | None = None,
) -> tuple[np.ndarray, dict[tuple[int, int], LocalCheck]]:
    """Which of the ``looked_at`` cells (rows, cols bool) the fine comparison confirms.

    Each is cut again from ``image`` by ``fit`` at :data:`RERANK_SIZE` and compared with every
    enrolled face (its close-call candidates of :func:`close_face_calls` first, else the faces
    among its best labels): a cell is *confirmed* when its own face matches better than every
    other face by :data:`RERANK_CONFIRM` where the faces differ (:attr:`LocalCheck.confirmed`).
    Empty cells are never looked at. ``fine``: the read's cells already at that size
    (:class:`FineCells` of ``image`` and ``fit``), shared with the read's other fine steps.
    Returns ``(confirmed, checks)``: the (rows, cols) bool mask and every comparison made, to
    pass to :func:`rerank_read`.
    """
    looked_at = np.asarray(looked_at, bool)
    confirmed = np.zeros(looked_at.shape, bool)
    checks: dict[tuple[int, int], LocalCheck] = {}
    places = [(r, c) for r, c in zip(*np.nonzero(looked_at), strict=True)
              if cells[r][c].label != EMPTY]  # fmt: skip
    if not places:
        return confirmed, checks
    calls = close_face_calls(cells)
    big = fine if fine is not None else FineCells(image, fit)
    for r, c in places:
        cell = cells[r][c]
        first = calls.get((int(r), int(c))) or [cell.label] + [
            label for label, _ in cell.top[:RERANK_TOP] if label not in (EMPTY, cell.label)
        ]
        rest = [label for label in verifier.labels if label not in first]
        result = verifier.check(big[r, c], first + rest, cell.label, cell.top)
        checks[(int(r), int(c))] = result
        confirmed[r, c] = result.label == cell.label and result.confirmed
    return confirmed, checks


@dataclass(frozen=True)
class RerankSummary:
    """What :func:`rerank_read` did: close calls looked at, labels changed, disagreements
    (flagged), confirmed cells unflagged."""

    cells: int = 0
    changed: int = 0
    disagree: int = 0
    unflagged: int = 0


def rerank_read(
    read,
    verifier: LocalFeatureVerifier,
    *,
    unflag: bool = False,
    checks: Mapping[tuple[int, int], LocalCheck] | None = None,
    fine: FineCells | None = None,
):
    """A board read with its close calls between faces re-ranked by ``verifier``.

    Every cell of :func:`close_face_calls` is cut again from the photo at :data:`RERANK_SIZE`
    (the read's own grid) and compared with every enrolled face (the embedder's candidates
    first); a clear winner replaces the label, a disagreement flags the cell for a check, and
    with ``unflag`` a cell whose face the comparison confirms clearly is no longer flagged.

    Parameters
    ----------
    read : vision.reptile_tank.reader.BoardRead
    verifier : LocalFeatureVerifier
    checks : mapping (row, col) -> LocalCheck, optional
        Cells already compared (:func:`confirmed_cells`), with the candidates of
        :func:`close_face_calls` first; they are not compared again.
    fine : FineCells, optional
        The read's cells already cut at :data:`RERANK_SIZE` (of ``read.image`` by
        ``read.fit``), shared with the read's other fine steps.

    Returns
    -------
    (BoardRead, RerankSummary)
        A new read (``read`` is left as it was).
    """
    from dataclasses import replace

    calls = close_face_calls(read.cells)
    if not calls:
        return read, RerankSummary()
    big = fine if fine is not None else FineCells(read.image, read.fit)  # cut only if needed
    rows = [row[:] for row in read.rows]
    check = np.asarray(read.check, bool).copy()
    disagreed = np.zeros(check.shape, bool)
    changed = disagree = unflagged = 0
    for (r, c), candidates in calls.items():
        result = (checks or {}).get((r, c))
        if result is None:
            rest = [label for label in verifier.labels if label not in candidates]
            result = verifier.check(big[r, c], candidates + rest, rows[r][c], read.cells[r][c].top)
        changed += int(result.label != rows[r][c])
        rows[r][c] = result.label
        if not result.agree:
            disagree += 1
            check[r, c] = disagreed[r, c] = True
        elif unflag and result.confirmed and check[r, c]:
            unflagged += 1
            check[r, c] = False
    confidence = read.confidence
    if confidence is not None:
        needs = bool(check.any()) or (bool(confidence.needs_check) and not unflag)
        own = confidence.flagged_by_own_checks() | disagreed
        confidence = replace(confidence, check=check, needs_check=needs, own_checks=own)
    cells = [
        [
            cell if cell.label == rows[r][c]
            else replace(cell, label=rows[r][c],
                         top=tuple(sorted(cell.top, key=lambda t: t[0] != rows[r][c])))
            for c, cell in enumerate(row)
        ]
        for r, row in enumerate(read.cells)
    ]  # fmt: skip
    summary = RerankSummary(len(calls), changed, disagree, unflagged)
    return replace(read, rows=rows, cells=cells, confidence=confidence), summary
