"""Deck galleries: embeddings of every face in 4 rotations plus ``empty``, and deck packs.

A :class:`Gallery` turns the embedder's vectors into labels. It is built from one image per face:
each face is rendered through :func:`vision.reptile_tank.augment.card_view` many times (so one image is enough)
in each of the four rotations, and table crops give the ``empty`` prototypes. A cell's score for a
(label, rotation) is its cosine similarity to the nearest such prototype.

A :class:`DeckPack` is a folder: ``faces/<card id>.png`` (one image per face, ``water.png`` for
the back), ``gallery.npz`` (built with the shipped embedder), ``pack.json`` (name, model id,
counts) and, once the user confirms corrections, ``examples/<label>/*.png``. The stand-in deck's
gallery ships in each embedder's folder, ``models/<name>/stand_in_gallery.npz``.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from scoring.reptile_tank.cards import EMPTY, FACE_LABELS
from vision import models
from vision.models import model_files, model_folder
from vision.reptile_tank.augment import card_view, empty_view, rotate_crop

ROTATIONS = (0, 90, 180, 270)
#: The stand-in deck's gallery of :data:`vision.models.DEFAULT_MODEL` (the fallback of
#: :func:`stand_in_gallery_path`).
DEFAULT_GALLERY = model_files(models.DEFAULT_MODEL).gallery()
#: Faces are stored and augmented at this size (width, height): 4 px/mm of a 63 × 88 mm card.
FACE_SIZE = (252, 352)


class PackError(ValueError):
    """A deck pack or gallery is missing, incomplete or was built with another model."""


@dataclass
class Gallery:
    """Prototype embeddings with their labels and rotations.

    Attributes
    ----------
    embeddings : (P, D) float32
        Unit-length prototype vectors.
    prototype_labels : (P,) str
        The label of each prototype (a face label or ``empty``).
    prototype_rotations : (P,) int
        The rotation of each prototype (0, 90, 180, 270; 0 for ``empty``).
    model_id : str
        The id of the embedder that made the vectors (:attr:`CardEmbedder.model_id`).
    """

    embeddings: np.ndarray
    prototype_labels: np.ndarray
    prototype_rotations: np.ndarray
    model_id: str
    _label_index: np.ndarray = field(init=False, repr=False)
    _order: np.ndarray = field(init=False, repr=False)
    _starts: np.ndarray = field(init=False, repr=False)
    _groups: np.ndarray = field(init=False, repr=False)
    labels: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.embeddings = np.asarray(self.embeddings, np.float32)
        self.prototype_labels = np.asarray(self.prototype_labels).astype(str)
        self.prototype_rotations = np.asarray(self.prototype_rotations, np.int64)
        present = set(self.prototype_labels.tolist())
        ordered = [lab for lab in (*FACE_LABELS, EMPTY) if lab in present]
        ordered += sorted(present - set(ordered))
        self.labels = tuple(ordered)
        lookup = {lab: i for i, lab in enumerate(self.labels)}
        self._label_index = np.array([lookup[lab] for lab in self.prototype_labels], np.int64)
        # prototypes sorted by class (label, rotation) so that scoring is one reduceat
        klass = self._label_index * 4 + (self.prototype_rotations // 90) % 4
        self._order = np.argsort(klass, kind="stable")
        sorted_klass = klass[self._order]
        self._starts = np.flatnonzero(np.r_[True, sorted_klass[1:] != sorted_klass[:-1]])
        self._groups = sorted_klass[self._starts]

    @classmethod
    def build(
        cls,
        embedder,
        faces: dict[str, np.ndarray],
        rng: np.random.Generator,
        *,
        views: int = 12,
        empties: int = 160,
        rotations: tuple[int, ...] = ROTATIONS,
    ) -> Gallery:
        """Embed augmented renders of every face in every rotation, plus empty cells.

        Parameters
        ----------
        embedder : vision.reptile_tank.classifier.CardEmbedder
        faces : dict label → (H, W, 3) uint8 RGB
            One upright image per face.
        rng : numpy.random.Generator
        views : int
            Augmented views per face and rotation (the first one is clean).
        empties : int
            ``empty`` prototypes (table crops, some with neighbouring card edges).
        """
        size = embedder.input_size
        others = [_small(face) for face in faces.values()]
        crops, labels, rots = [], [], []
        for label, face in faces.items():
            face = _small(face)
            for rotation in rotations:
                for k in range(views):
                    strength = 0.0 if k == 0 else float(rng.uniform(0.3, 1.0))
                    crops.append(
                        card_view(
                            face,
                            rng,
                            out_size=size,
                            rotation=rotation,
                            strength=strength,
                            others=others,
                        )
                    )
                    labels.append(label)
                    rots.append(rotation)
        for _ in range(empties):
            crops.append(empty_view(rng, out_size=size, others=others))
            labels.append(EMPTY)
            rots.append(0)
        embeddings = _embed_in_batches(embedder, np.stack(crops))
        return cls(embeddings, np.array(labels), np.array(rots), embedder.model_id)

    def check_model(self, embedder) -> None:
        """Raise :class:`PackError` unless the gallery was built with ``embedder``."""
        if self.model_id != embedder.model_id:
            raise PackError(
                f"the gallery was built with embedder {self.model_id}, not {embedder.model_id}; "
                "rebuild it with `reptile-tank enroll`"
            )

    def rotation_scores(self, embeddings: np.ndarray) -> np.ndarray:
        """Best cosine similarity per (label, rotation).

        Parameters
        ----------
        embeddings : (N, D) float32, unit rows

        Returns
        -------
        (N, L, 4) float32
            Indexed by :attr:`labels` and rotation // 90; ``-inf`` where no prototype exists
            (``empty`` has only rotation 0 prototypes: its score is copied to all four).
        """
        # einsum, not BLAS: a threaded BLAS spins on a busy machine for this tiny product
        sims = np.einsum("nd,pd->np", embeddings, self.embeddings)  # (N, P)
        out = np.full((len(embeddings), len(self.labels) * 4), -np.inf, np.float32)
        if sims.shape[1]:
            grouped = np.maximum.reduceat(sims[:, self._order], self._starts, axis=1)
            out[:, self._groups] = grouped
        out = out.reshape(len(embeddings), len(self.labels), 4)
        if EMPTY in self.labels:
            e = self.labels.index(EMPTY)
            out[:, e, :] = out[:, e, :].max(axis=1, keepdims=True)
        return out

    def add_examples(self, label: str, crops: np.ndarray, embedder, *, rotation: int = 0) -> None:
        """Add confirmed cell crops (a user's corrections) as prototypes.

        Each crop is added at ``rotation`` and, for cards, also turned 180° at ``rotation + 180``
        so the orientation vote keeps working.

        Parameters
        ----------
        label : str
            A face label or ``empty``.
        crops : (N, H, W, 3) uint8 RGB
            Rectified cell crops (any size; resized to the model's input).
        embedder : vision.reptile_tank.classifier.CardEmbedder
        rotation : int
            The card's rotation in the crops (0 when the board was read upright).
        """
        if label not in (*FACE_LABELS, EMPTY) and label not in self.labels:
            raise PackError(f"unknown label {label!r}")
        self.check_model(embedder)
        crops = np.asarray(crops)
        if crops.ndim == 3:
            crops = crops[None]
        batches = [(crops, rotation % 360)]
        if label != EMPTY:
            turned = np.stack([rotate_crop(c, 180) for c in crops])
            batches.append((turned, (rotation + 180) % 360))
        for batch, rot in batches:
            vectors = embedder.embed(batch)
            self.embeddings = np.concatenate([self.embeddings, vectors])
            self.prototype_labels = np.concatenate(
                [self.prototype_labels, np.full(len(batch), label)]
            )
            self.prototype_rotations = np.concatenate(
                [self.prototype_rotations, np.full(len(batch), rot, np.int64)]
            )
        self.__post_init__()

    def save(self, path: str | Path) -> None:
        """Write the gallery as a compressed ``.npz``, whole or not at all (a temporary file
        renamed over the old one: a full disk never leaves a truncated gallery)."""
        path = Path(path)
        temporary = path.with_name(f".{path.name}.tmp")
        try:
            with open(temporary, "wb") as handle:
                np.savez_compressed(
                    handle,
                    embeddings=self.embeddings.astype(np.float16),
                    labels=self.prototype_labels,
                    rotations=self.prototype_rotations.astype(np.int16),
                    model_id=np.array(self.model_id),
                )
            os.replace(temporary, path)
        finally:
            temporary.unlink(missing_ok=True)

    @classmethod
    def load(cls, path: str | Path) -> Gallery:
        """Read a gallery written by :meth:`save`."""
        path = Path(path)
        if not path.is_file():
            raise PackError(f"gallery not found: {path}")
        with np.load(path, allow_pickle=False) as data:
            vectors = data["embeddings"].astype(np.float32)
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-8)
            return cls(vectors, data["labels"], data["rotations"], str(data["model_id"]))


@dataclass
class DeckPack:
    """A deck: its faces, its gallery and the user's confirmed examples, in one folder.

    Attributes
    ----------
    path : Path
    name : str
    faces : dict label → (H, W, 3) uint8 RGB
    gallery : Gallery
    unsure : tuple of str
        Faces enrolled from a cut the player was told to look at (a thumb over the card's
        edge, a place the grid finder could not see well:
        :func:`vision.reptile_tank.enrol.unsure_faces`): a read of such a face, or one it
        nearly is, is flagged (``pack.json``'s ``unsure_faces``).
    """

    path: Path
    name: str
    faces: dict[str, np.ndarray]
    gallery: Gallery
    unsure: tuple[str, ...] = ()

    @classmethod
    def create(
        cls,
        path: str | Path,
        faces: dict[str, np.ndarray],
        embedder,
        rng: np.random.Generator,
        *,
        name: str | None = None,
        unsure: Iterable[str] = (),
    ) -> DeckPack:
        """Build a pack from one upright image per face and write it to ``path`` (``unsure``:
        the faces to flag reads of, :attr:`unsure`)."""
        missing = [lab for lab in FACE_LABELS if lab not in faces]
        if missing:
            raise PackError(f"a deck needs one image per face; missing: {', '.join(missing)}")
        unsure = tuple(dict.fromkeys(unsure))
        unknown = sorted((set(faces) | set(unsure)) - set(FACE_LABELS))
        if unknown:
            raise PackError(f"unknown card ids: {', '.join(unknown)}")
        path = Path(path)
        (path / "faces").mkdir(parents=True, exist_ok=True)
        standard = {lab: to_face_size(faces[lab]) for lab in FACE_LABELS}
        for label, face in standard.items():
            if not cv2.imwrite(str(path / "faces" / f"{label}.png"), face[..., ::-1]):
                raise OSError(errno.EIO, f"faces/{label}.png could not be written")
        gallery = Gallery.build(embedder, standard, rng)
        pack = cls(path, name or path.name, standard, gallery, unsure)
        pack.save()
        return pack

    @classmethod
    def load(cls, path: str | Path, embedder=None) -> DeckPack:
        """Read a pack; rebuild its gallery (faces + examples) if another embedder made it."""
        path = Path(path)
        meta_path = path / "pack.json"
        if not meta_path.is_file():
            raise PackError(f"not a deck pack (no pack.json): {path}")
        meta = json.loads(meta_path.read_text())
        faces = {}
        for label in FACE_LABELS:
            image = cv2.imread(str(path / "faces" / f"{label}.png"), cv2.IMREAD_COLOR)
            if image is None:
                raise PackError(f"deck pack {path} lacks faces/{label}.png")
            faces[label] = np.ascontiguousarray(image[..., ::-1])
        gallery_path = path / "gallery.npz"
        gallery = Gallery.load(gallery_path) if gallery_path.is_file() else None
        unsure = meta.get("unsure_faces", [])
        unsure = tuple(lab for lab in unsure if lab in faces) if isinstance(unsure, list) else ()
        pack = cls(path, meta.get("name", path.name), faces, gallery, unsure)
        if embedder is not None and (gallery is None or gallery.model_id != embedder.model_id):
            pack.rebuild(embedder, np.random.default_rng(int(meta.get("seed", 0))))
        if pack.gallery is None:
            raise PackError(f"deck pack {path} has no gallery.npz")
        return pack

    def rebuild(self, embedder, rng: np.random.Generator) -> None:
        """Rebuild the gallery from the faces and the stored examples (new embedder)."""
        self.gallery = Gallery.build(embedder, self.faces, rng)
        for label_dir in sorted((self.path / "examples").glob("*")):
            crops = [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in sorted(label_dir.glob("*.png"))]
            crops = [c[..., ::-1] for c in crops if c is not None]
            if crops:
                size = embedder.input_size
                crops = [cv2.resize(c, size, interpolation=cv2.INTER_AREA) for c in crops]
                self.gallery.add_examples(label_dir.name, np.stack(crops), embedder)
        try:
            self.save()
        except OSError:
            pass  # a read-only pack still works with the rebuilt gallery in memory

    def add_examples(self, label: str, crops: np.ndarray, embedder) -> None:
        """Store confirmed crops under ``examples/<label>/`` and add them to the gallery."""
        crops = np.asarray(crops)
        if crops.ndim == 3:
            crops = crops[None]
        self.gallery.add_examples(label, crops, embedder)
        folder = self.path / "examples" / label
        folder.mkdir(parents=True, exist_ok=True)
        start = len(list(folder.glob("*.png")))
        for k, crop in enumerate(crops):
            cv2.imwrite(str(folder / f"{start + k:04d}.png"), np.ascontiguousarray(crop[..., ::-1]))
        self.save()

    def save(self) -> None:
        """Write ``gallery.npz`` and ``pack.json``."""
        self.path.mkdir(parents=True, exist_ok=True)
        self.gallery.save(self.path / "gallery.npz")
        meta = {
            "name": self.name,
            "model_id": self.gallery.model_id,
            "faces": list(FACE_LABELS),
            "prototypes": int(len(self.gallery.embeddings)),
            "seed": 0,
            "unsure_faces": list(self.unsure),
        }
        temporary = self.path / ".pack.json.tmp"
        try:
            temporary.write_text(json.dumps(meta, indent=2) + "\n")
            os.replace(temporary, self.path / "pack.json")
        finally:
            temporary.unlink(missing_ok=True)


def load_gallery(pack: str | Path | None, embedder) -> Gallery:
    """The gallery for ``pack`` (a deck pack folder), or the stand-in deck's when ``None``.

    The stand-in gallery is the one beside the embedder's ``.onnx`` file when there is one
    (another model's folder, as ``models/train_embedder.py`` writes it), else the shipped one.
    """
    if pack is None:
        gallery = Gallery.load(stand_in_gallery_path(embedder))
        gallery.check_model(embedder)
        return gallery
    return DeckPack.load(pack, embedder).gallery


def stand_in_gallery_path(embedder) -> Path:
    """The stand-in deck's gallery for ``embedder``: ``stand_in_gallery.npz`` in its model folder
    (:meth:`vision.models.ModelFiles.gallery`) when it was built by that embedder (model id),
    else the shipped :data:`DEFAULT_GALLERY`."""
    model = getattr(embedder, "path", None)
    if model is not None:
        model = Path(model)
        candidate = model_folder(model.parent).gallery()
        if candidate.is_file():
            with np.load(candidate, allow_pickle=False) as data:
                if str(data["model_id"]) == embedder.model_id:
                    return candidate
    return DEFAULT_GALLERY


def to_face_size(image: np.ndarray) -> np.ndarray:
    """Resize an upright card image (H, W, 3) uint8 RGB to :data:`FACE_SIZE`; portrait only."""
    image = np.asarray(image)
    if image.ndim != 3 or image.shape[2] != 3:
        raise PackError(f"a face must be (H, W, 3) RGB, got {image.shape}")
    interpolation = cv2.INTER_AREA if image.shape[0] > FACE_SIZE[1] else cv2.INTER_CUBIC
    return cv2.resize(image, FACE_SIZE, interpolation=interpolation)


def _small(face: np.ndarray) -> np.ndarray:
    """Faces are augmented from a 2 px/mm copy (fast; the crops are much smaller)."""
    return cv2.resize(face, (126, 176), interpolation=cv2.INTER_AREA)


def _embed_in_batches(embedder, crops: np.ndarray, batch: int = 256) -> np.ndarray:
    return np.concatenate(
        [embedder.embed(crops[i : i + batch]) for i in range(0, len(crops), batch)]
    )
