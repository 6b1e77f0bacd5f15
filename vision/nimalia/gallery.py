"""The square gallery of a Nimalia deck: prototypes of every square kind at every quarter
turn (and table), built from one image per card, and deck packs (enrol, load).

Split out of :mod:`vision.nimalia.reader` (no behaviour change).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scoring.nimalia.cards import EMPTY, SQUARE_KINDS, cards, turn
from vision.embedder import CardEmbedder
from vision.models import model_files
from vision.nimalia.squares import SQUARE_MODEL_NAME, square_embedder
from vision.synth.table import table_texture

#: The 15 classes of a cell: the 14 kinds, then empty.
CLASSES: tuple[str, ...] = (*SQUARE_KINDS, EMPTY)
#: The stand-in deck's square gallery. It is built with the embedder pair
#: (:data:`vision.nimalia.squares.PAIR`: the shared card embedder and the square embedder) and
#: tagged with the pair's id; it lives in the square embedder's folder because that is the
#: pair's own model (the card embedder is shared with other games and does not change for it),
#: and retraining the square embedder is what makes the gallery stale.
DEFAULT_GALLERY = model_files(SQUARE_MODEL_NAME).gallery()
CROP = 64
#: Cosine similarities are scaled by this before the linear head.
HEAD_SCALE = 10.0


class NimaliaPackError(ValueError):
    """A Nimalia deck pack is missing, incomplete or was built with another model."""


# ---------------------------------------------------------------------------------------------
# Gallery
# ---------------------------------------------------------------------------------------------


@dataclass
class SquareGallery:
    """Prototype embeddings ``(N, D)`` with class indices into :data:`CLASSES`."""

    embeddings: np.ndarray
    classes: np.ndarray
    model_id: str
    name: str = "custom"
    #: A linear softmax head over the 15 classes, fitted on the prototypes themselves (no
    #: network is retrained): it weighs the embedding's dimensions that tell this deck's kinds
    #: apart (lion from giraffe) where the nearest-prototype cosine does not.
    head_w: np.ndarray | None = None
    head_b: np.ndarray | None = None
    #: the file it was loaded from (for messages)
    source: str = ""

    def __post_init__(self) -> None:
        if self.head_w is None or self.head_b is None:
            self.fit_head()

    def fit_head(self, *, l2: float = 1e-3, steps: int = 400, lr: float = 2.0) -> None:
        """Multinomial logistic regression on ``HEAD_SCALE`` x the prototypes (deterministic)."""
        x = self.embeddings.astype(np.float32) * HEAD_SCALE
        k = len(CLASSES)
        y = np.eye(k, dtype=np.float32)[self.classes]
        w = np.zeros((x.shape[1], k), np.float32)
        b = np.zeros(k, np.float32)
        for _ in range(steps):
            z = x @ w + b
            z -= z.max(1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(1, keepdims=True)
            g = (p - y) / len(x)
            w -= lr * (x.T @ g + l2 * w)
            b -= lr * g.sum(0)
        self.head_w, self.head_b = w, b

    def logits(self, emb: np.ndarray) -> np.ndarray:
        """``(M, 15)`` head logits of embeddings."""
        return (emb.astype(np.float32) * HEAD_SCALE) @ self.head_w + self.head_b

    def scores(self, emb: np.ndarray) -> np.ndarray:
        """``(M, 15)``: best cosine similarity of each embedding to each class's prototypes."""
        sim = emb @ self.embeddings.astype(np.float32).T  # (M, N)
        out = np.full((len(emb), len(CLASSES)), -1.0, np.float32)
        for k in range(len(CLASSES)):
            sel = self.classes == k
            if sel.any():
                out[:, k] = sim[:, sel].max(1)
        return out

    def check_model(self, embedder: CardEmbedder) -> None:
        """Refuse a gallery built with another embedder (its embeddings mean nothing here)."""
        if self.model_id != embedder.model_id:
            where = self.source or self.name
            raise NimaliaPackError(
                f"{where}: made with another square embedder (model {self.model_id}, the reader"
                f" uses {embedder.model_id}); enrol the deck again with"
                " `reptile-tank nimalia enroll --from-dir DIR --out PACK`"
                " (a pack keeps its card images in cards/)"
            )

    def save(self, path: str | Path) -> None:
        np.savez_compressed(
            path,
            embeddings=self.embeddings.astype(np.float16),
            classes=self.classes.astype(np.int8),
            head_w=self.head_w,
            head_b=self.head_b,
            model_id=np.array(self.model_id),
            name=np.array(self.name),
            class_names=np.array(CLASSES),
        )

    @classmethod
    def load(cls, path: str | Path) -> SquareGallery:
        path = Path(path)
        if not path.is_file():
            raise NimaliaPackError(f"gallery not found: {path}")
        with np.load(path) as data:
            if tuple(str(c) for c in data["class_names"]) != CLASSES:
                raise NimaliaPackError(f"{path}: its classes are not the 15 Nimalia classes")
            head = (data["head_w"], data["head_b"]) if "head_w" in data.files else (None, None)
            return cls(
                data["embeddings"].astype(np.float32),
                data["classes"].astype(int),
                str(data["model_id"]),
                str(data["name"]),
                *head,
                source=str(path),
            )


def _photometric(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    out = img.astype(np.float32)
    out = out * rng.uniform(0.65, 1.2) * rng.uniform(0.9, 1.1, 3) + rng.uniform(-15, 15)
    out = 255 * (np.clip(out, 0, 255) / 255) ** rng.uniform(0.8, 1.25)
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.3))
    out += rng.normal(0, rng.uniform(0, 6), out.shape)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(45, 95))])
        out = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    return out


def square_views(
    card_img: np.ndarray, rng: np.random.Generator, views: int, shift: float = 0.1
) -> list[list[np.ndarray]]:
    """Crops of a card's 4 squares (reading order) as the reader cuts them: ``views`` each.

    The first view of each square is exact; the others move the cut by up to ``shift`` of a
    square, scale it by +-6 %, turn it by +-3 degrees and change light, blur, noise and JPEG; the
    card lies on a random table, so a cut past the card's edge shows table.
    """
    n = card_img.shape[0]
    half = n / 2
    pad = int(half * 0.5)
    bg = table_texture(rng, (n + 2 * pad, n + 2 * pad))
    canvas = bg.copy()
    inside = np.zeros(canvas.shape[:2], bool)
    inside[pad : pad + n, pad : pad + n] = card_img.sum(-1) > 0
    canvas[inside] = card_img[inside[pad : pad + n, pad : pad + n]]
    out: list[list[np.ndarray]] = []
    for q in range(4):
        r, c = divmod(q, 2)
        cx, cy = pad + (c + 0.5) * half, pad + (r + 0.5) * half
        crops = []
        for v in range(views):
            if v == 0:
                dx = dy = ang = 0.0
                sc = 1.0
            else:
                dx, dy = rng.uniform(-shift, shift, 2) * half
                sc = rng.uniform(0.94, 1.06)
                ang = rng.uniform(-3, 3)
            m = cv2.getRotationMatrix2D((cx + dx, cy + dy), ang, CROP / (half * sc))
            m[:, 2] += np.array([CROP / 2, CROP / 2]) - np.array([cx + dx, cy + dy])
            crop = cv2.warpAffine(
                canvas, m, (CROP, CROP), flags=cv2.INTER_AREA if half > CROP else cv2.INTER_LINEAR
            )
            crops.append(crop if v == 0 else _photometric(rng, crop))
        out.append(crops)
    return out


def empty_views(rng: np.random.Generator, n: int, card_imgs: list[np.ndarray]) -> list[np.ndarray]:
    """Table crops, some with a strip of a neighbouring card along one side."""
    out = []
    for _ in range(n):
        crop = table_texture(rng, (CROP, CROP))
        if card_imgs and rng.random() < 0.5:
            src = card_imgs[int(rng.integers(len(card_imgs)))]
            strip = int(rng.uniform(0.04, 0.22) * CROP)
            piece = cv2.resize(src, (CROP, CROP))[:strip]
            crop = np.ascontiguousarray(np.rot90(crop, int(rng.integers(4))))
            crop[:strip] = piece
            crop = np.ascontiguousarray(np.rot90(crop, int(rng.integers(4))))
        out.append(_photometric(rng, crop))
    return out


def gallery_crops(
    card_images: dict[int, np.ndarray], *, views: int = 4, empties: int = 200, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """The gallery's crops ``(N, CROP, CROP, 3)`` and class indices ``(N,)`` (deterministic).

    Each card is turned 0/90/180/270 degrees; each of its squares then shows the kind
    :func:`scoring.nimalia.cards.turn` says, in ``views`` augmented cuts; ``empties`` table crops follow.
    """
    missing = sorted(set(cards()) - set(card_images))
    if missing:
        more = "..." if len(missing) > 10 else ""
        raise NimaliaPackError(f"no image for cards {missing[:10]}{more}")
    faces = card_faces(card_images)
    rng = np.random.default_rng(seed)
    crops, labels = [], []
    for cid in sorted(cards()):
        img = faces[cid]
        for t in (0, 90, 180, 270):
            turned = np.ascontiguousarray(np.rot90(img, k=-(t // 90)))
            tokens = [s.token for s in turn(cid, t)]
            for q, views_q in enumerate(square_views(turned, rng, views)):
                crops += views_q
                labels += [CLASSES.index(tokens[q])] * len(views_q)
    sample = [faces[c] for c in sorted(faces)[:20]]
    crops += empty_views(rng, empties, sample)
    labels += [CLASSES.index(EMPTY)] * empties
    return np.stack(crops), np.array(labels)


def build_gallery(
    card_images: dict[int, np.ndarray],
    embedder: CardEmbedder,
    *,
    views: int = 4,
    empties: int = 200,
    seed: int = 0,
    name: str = "custom",
) -> SquareGallery:
    """A square gallery from one upright, unturned image per card (ids as the reference)."""
    crops, labels = gallery_crops(card_images, views=views, empties=empties, seed=seed)
    return SquareGallery(_embed(embedder, crops), labels, embedder.model_id, name)


#: A card image whose sides differ by at most this share is taken as the card itself (a scan
#: or an exported face, resized to square); a wider or taller one is a photo of the card, which
#: is cut out of it (:func:`card_face`).
FACE_ASPECT_SLACK = 0.1
#: Share of a photo a card must cover to be cut out of it, at least and at most.
FACE_SHARE = (0.2, 0.95)


def card_outline(img: np.ndarray) -> np.ndarray | None:
    """The image corners ``(4, 2)`` (top-left first, clockwise) of the card in a photo of one
    card, as :func:`card_face` cuts it; ``None`` when no card-like outline is found."""
    from vision.card_outline import largest_card_quad
    from vision.geometry import order_quad_clockwise

    quad = largest_card_quad(img, (0.8, 1.0), FACE_SHARE, max_opposite_ratio=1.5, fit_sides=True)
    return None if quad is None else order_quad_clockwise(quad)


def card_face(img: np.ndarray, size: int = 256) -> np.ndarray | None:
    """A card image as the upright square face ``(size, size, 3)`` its squares are cut from.

    Nimalia cards are square. An image within :data:`FACE_ASPECT_SLACK` of square is taken as
    the card (resized). Any other is a photo of one card: the largest convex four-sided outline
    covering :data:`FACE_SHARE` of it, with sides of nearly one length (shorter over longer
    0.8-1; opposite sides within 1.5 x: perspective) is taken as the card and warped square,
    its top-left corner the one nearest the image's top-left (the card photographed upright).
    ``None`` when no such outline is found: the image must then be cropped to its card.
    A square photo with a margin round the card is taken as the card (the outline search
    finds quarters of a tight face as readily as a card on a table).
    """
    img = np.asarray(img)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2RGB)
    img = np.ascontiguousarray(img[..., :3])
    h, w = img.shape[:2]
    if min(h, w) / max(h, w) >= 1 - FACE_ASPECT_SLACK:
        return cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)
    corners = card_outline(img)
    if corners is None:
        return None
    target = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    matrix = cv2.getPerspectiveTransform(corners.astype(np.float32), target)
    return cv2.warpPerspective(img, matrix, (size, size), flags=cv2.INTER_AREA)


def card_faces(card_images: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """:func:`card_face` of every card image; one :class:`NimaliaPackError` naming every card
    whose image is a photo with no card found in it."""
    faces = {cid: card_face(img) for cid, img in card_images.items()}
    lost = sorted(cid for cid, face in faces.items() if face is None)
    if lost:
        more = "..." if len(lost) > 10 else ""
        raise NimaliaPackError(
            f"no card found in the photos of cards {lost[:10]}{more}: crop each image to its "
            "card (a square image is taken as the card)"
        )
    return {cid: face for cid, face in faces.items() if face is not None}


def _embed(embedder: CardEmbedder, crops: np.ndarray, batch: int = 256) -> np.ndarray:
    return np.concatenate(
        [embedder.embed(crops[i : i + batch]) for i in range(0, len(crops), batch)]
    )


# ---------------------------------------------------------------------------------------------
# Packs
# ---------------------------------------------------------------------------------------------


def enroll_pack(
    src_dir: str | Path,
    out_dir: str | Path,
    embedder: CardEmbedder | None = None,
    *,
    name: str | None = None,
    views: int = 4,
) -> Path:
    """Enrol a deck from ``src_dir/<card id>.png`` (1-60): writes ``out_dir`` as a pack.

    The pack holds ``cards/<id>.png`` (the faces the squares were cut from: each image as
    :func:`card_face` takes it), ``gallery.npz`` and ``pack.json``.
    """
    src, out = Path(src_dir), Path(out_dir)
    if not src.is_dir():
        raise NimaliaPackError(f"not a folder: {src}")
    images = {}
    for cid in cards():
        path = src / f"{cid}.png"
        if not path.is_file():
            continue
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            raise NimaliaPackError(f"cannot read {path}")
        images[cid] = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    faces = card_faces(images)
    embedder = embedder or square_embedder()
    gallery = build_gallery(faces, embedder, views=views, name=name or src.name)
    (out / "cards").mkdir(parents=True, exist_ok=True)
    for cid, img in faces.items():
        cv2.imwrite(str(out / "cards" / f"{cid}.png"), cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
    gallery.save(out / "gallery.npz")
    (out / "pack.json").write_text(
        json.dumps(
            {
                "game": "nimalia",
                "name": gallery.name,
                "model_id": gallery.model_id,
                "cards": len(images),
                "prototypes": int(len(gallery.classes)),
            },
            indent=2,
        )
        + "\n"
    )
    return out


def load_gallery(pack: str | Path | None) -> SquareGallery:
    """The stand-in gallery (``None``), a pack folder's ``gallery.npz``, or a gallery file."""
    if pack is None:
        return SquareGallery.load(DEFAULT_GALLERY)
    p = Path(pack)
    if p.is_dir():
        return SquareGallery.load(p / "gallery.npz")
