"""Learning during the night: confirmed reads teach that night's gallery, and no other.

When the players confirm a board read from a photo, the cells the reader found hard teach the
night's gallery: every cell they corrected, and every cell read right by a narrow margin
(:data:`LEARN_MARGIN`, the confidence of :class:`vision.reptile_tank.classifier.CellRead`).
The night's second game is read with the deck's gallery plus these views of its own cards,
on its own table, in its own light (see BENCHMARKS.md, "Enrolment from photos", for the
measured gain).

Each night keeps its examples in its own folder (:class:`NightExamples`); the deck's gallery
(the bundled stand-in gallery shared by every night of the server, or a night's enrolled
pack) is never written: :meth:`NightExamples.gallery` returns a new gallery, the deck's plus
the night's examples. Every confirmation is one new file (``ex-<random>.npz``, written under a
temporary name and renamed): two phones confirming at once add two files and lose nothing,
and no half-written file is ever read.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scoring.reptile_tank.cards import EMPTY, FACE_LABELS

#: Cells read right by less than this margin (cosine units) are learnt as well as corrections.
LEARN_MARGIN = 0.10
#: At most this many examples per label per night (a long night does not bloat the gallery;
#: two confirmations at the same instant may each add up to the cap: a soft bound).
MAX_PER_LABEL = 24
#: Crops are stored at this size (width, height) so that another embedder can re-embed them.
STORED_SIZE = (96, 128)


@dataclass
class Learnt:
    """What one confirmation taught: ``added`` examples, per label."""

    added: int
    labels: dict[str, int]


def cells_to_learn(
    read_rows: list[list[str]],
    confirmed_rows: list[list[str]],
    confidences: np.ndarray | None,
    margin: float = LEARN_MARGIN,
) -> list[tuple[int, int]]:
    """The cells a confirmed board teaches: corrected ones, and right ones read by a margin
    below ``margin`` (``confidences`` ``(rows, cols)``; None learns corrections only)."""
    cells = []
    for r, row in enumerate(confirmed_rows):
        for c, label in enumerate(row):
            corrected = read_rows[r][c] != label
            narrow = confidences is not None and float(confidences[r][c]) < margin
            if corrected or narrow:
                cells.append((r, c))
    return cells


class NightExamples:
    """One night's learnt examples: a folder of ``ex-*.npz`` files.

    Parameters
    ----------
    folder : path
        The night's own folder for them (created on the first example).
    """

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def _files(self) -> list[Path]:
        if not self.folder.is_dir():
            return []
        return sorted(p for p in self.folder.glob("ex-*.npz") if p.is_file())

    def _read(self) -> list[dict]:
        """Every example file, as a dict of its arrays (damaged or vanishing files skipped)."""
        out = []
        for path in self._files():
            try:
                with np.load(path, allow_pickle=False) as data:
                    out.append({key: data[key] for key in data.files})
            except (OSError, ValueError, KeyError):
                continue  # a damaged file is skipped, never fatal
        return out

    def load(self) -> tuple[np.ndarray, np.ndarray]:
        """``(crops (N, h, w, 3) uint8, labels (N,))`` of every example of the night."""
        files = self._read()
        if not files:
            w, h = STORED_SIZE
            return np.zeros((0, h, w, 3), np.uint8), np.zeros(0, str)
        return (
            np.concatenate([f["crops"] for f in files]),
            np.concatenate([f["labels"].astype(str) for f in files]),
        )

    def version(self) -> tuple[str, ...]:
        """The names of the night's example files: changes whenever the night learns."""
        return tuple(p.name for p in self._files())

    def counts(self) -> dict[str, int]:
        """Examples held per label."""
        _, labels = self.load()
        values, numbers = np.unique(labels, return_counts=True)
        return {str(v): int(n) for v, n in zip(values, numbers, strict=True)}

    def learn(
        self,
        crops: np.ndarray,
        read_rows: list[list[str]],
        confirmed_rows: list[list[str]],
        confidences: np.ndarray | None,
        embedder,
        *,
        margin: float = LEARN_MARGIN,
        cells: list[tuple[int, int]] | None = None,
    ) -> Learnt:
        """Add the cells a confirmed board teaches (:func:`cells_to_learn`).

        Parameters
        ----------
        crops : (rows, cols, H, W, 3) uint8 RGB
            The upright board's rectified cells (``BoardRead.crops``).
        read_rows, confirmed_rows : rows of labels
            What the reader said and what the players confirmed.
        confidences : (rows, cols) float or None
            Each cell's margin (``CellRead.confidence``).
        embedder : vision.reptile_tank.classifier.CardEmbedder
            Names the model the examples are for (its id is stored with them).
        cells : list of (row, col), optional
            The cells to learn, instead of :func:`cells_to_learn`'s (the caller's choice).

        Raises
        ------
        ValueError
            A confirmed label that is no face or ``empty``, or crops of the wrong shape.
        """
        import cv2

        crops = np.asarray(crops)
        if crops.ndim != 5 or crops.shape[-1] != 3:
            raise ValueError(f"crops must be (rows, cols, H, W, 3) RGB, got {crops.shape}")
        known = (*FACE_LABELS, EMPTY)
        for row in confirmed_rows:
            for label in row:
                if label not in known:
                    raise ValueError(f"unknown label {label!r}")
        have = self.counts()
        picked, labels = [], []
        if cells is None:
            cells = cells_to_learn(read_rows, confirmed_rows, confidences, margin)
        for r, c in cells:
            label = confirmed_rows[r][c]
            if have.get(label, 0) >= MAX_PER_LABEL:
                continue
            have[label] = have.get(label, 0) + 1
            picked.append(cv2.resize(crops[r, c], STORED_SIZE, interpolation=cv2.INTER_AREA))
            labels.append(label)
        taught: dict[str, int] = {}
        for label in labels:
            taught[label] = taught.get(label, 0) + 1
        if not picked:
            return Learnt(0, taught)
        from vision.reptile_tank.augment import rotate_crop

        stack = np.stack(picked).astype(np.uint8)
        upright = embedder.embed(stack)
        turned = embedder.embed(np.stack([rotate_crop(crop, 180) for crop in stack]))
        self.folder.mkdir(parents=True, exist_ok=True)
        name = f"ex-{secrets.token_hex(8)}.npz"
        temporary = self.folder / f".{name}.tmp"
        try:
            with open(temporary, "wb") as handle:
                np.savez_compressed(
                    handle,
                    crops=stack,
                    labels=np.array(labels),
                    upright=upright.astype(np.float16),
                    turned=turned.astype(np.float16),
                    model_id=np.array(embedder.model_id),
                )
            os.replace(temporary, self.folder / name)
        finally:
            temporary.unlink(missing_ok=True)
        return Learnt(len(labels), taught)

    def gallery(self, base, embedder):
        """A new gallery: ``base`` plus this night's examples (``base`` is left as it was).

        Each example is a prototype upright and turned 180° (as
        :meth:`vision.reptile_tank.gallery.Gallery.add_examples` adds them), with the vectors
        stored when ``embedder`` made them and embedded anew otherwise; ``base`` itself when the
        night has learnt nothing.
        """
        from vision.reptile_tank.augment import rotate_crop
        from vision.reptile_tank.gallery import Gallery

        files = self._read()
        if not files:
            return base
        base.check_model(embedder)
        vectors, labels, rotations = (
            [base.embeddings],
            [base.prototype_labels],
            [base.prototype_rotations],
        )
        for f in files:
            names = f["labels"].astype(str)
            if str(f["model_id"]) == embedder.model_id:
                upright = f["upright"].astype(np.float32)
                turned = f["turned"].astype(np.float32)
            else:
                upright = embedder.embed(f["crops"])
                turned = embedder.embed(np.stack([rotate_crop(c, 180) for c in f["crops"]]))
            for block, rotation, keep in ((upright, 0, np.ones(len(names), bool)),
                                          (turned, 180, names != EMPTY)):  # fmt: skip
                block = block[keep]
                block /= np.maximum(np.linalg.norm(block, axis=1, keepdims=True), 1e-8)
                vectors.append(block)
                labels.append(names[keep])
                rotations.append(np.full(int(keep.sum()), rotation, np.int64))
        return Gallery(
            np.concatenate(vectors),
            np.concatenate(labels),
            np.concatenate(rotations),
            base.model_id,
        )
