"""Training recipe of the card embedder (needs the ``train`` extra: torch, onnx, onnxscript).

Run it as ``reptile-tank train --out models`` (or ``python -m models.train_embedder``). It

1. draws ``--designs`` random card designs (``vision.synth.deck.random_design``) plus the 16
   stand-in faces; each design upright and turned 180° is its own identity, and one more identity
   is ``empty`` (table crops, sometimes with neighbouring card edges);
2. streams freshly augmented cell crops of them (``vision.augment.card_view`` / ``empty_view``:
   the same augmentation the galleries use) from one worker process;
3. trains a small CNN with a CosFace head (the head is dropped; the L2-normalised embedding is
   what ships);
4. exports the embedder to ONNX (opset 17, dynamic batch) with its preprocessing metadata
   (``card_embedder.json``), builds the stand-in gallery (``stand_in_gallery.npz``) with the
   exported model, and measures held-out accuracy on clean and augmented crops of the stand-in
   deck and of an unseen random deck (written into the metadata for the model card).

Everything is seeded; the default run (3600 steps, one torch thread plus one crop worker) took
22 minutes on the shared 2-core development machine.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, IterableDataset

from vision.augment import card_view, empty_view

#: Network input (width, height): portrait like the card. Recorded in card_embedder.json.
INPUT_SIZE = (48, 64)
EMBEDDING_DIM = 64
MEAN = (0.5, 0.5, 0.5)
STD = (0.25, 0.25, 0.25)
#: The unseen deck used to report one-shot accuracy: never part of training.
UNSEEN_DECK_SEED = 9001


def conv_block(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class CardNet(nn.Module):
    """Small CNN: (N, 3, 64, 48) normalised RGB → (N, D) unit-length embedding.

    The last feature map is pooled to a 4 × 3 grid and flattened (not globally averaged) so the
    embedding keeps the card's layout: a card turned 180° embeds differently, which the
    orientation vote needs.
    """

    def __init__(self, embedding_dim: int = EMBEDDING_DIM) -> None:
        super().__init__()
        self.features = nn.Sequential(
            conv_block(3, 16, stride=2),  # 32 x 24
            conv_block(16, 32),
            nn.MaxPool2d(2),  # 16 x 12
            conv_block(32, 64),
            nn.MaxPool2d(2),  # 8 x 6
            conv_block(64, 96),
            conv_block(96, 128),
            nn.AdaptiveAvgPool2d((4, 3)),
        )
        self.embed = nn.Sequential(
            nn.Flatten(), nn.Dropout(0.1), nn.Linear(128 * 12, embedding_dim)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.normalize(self.embed(self.features(x)), dim=1)


class CosFaceHead(nn.Module):
    """Large-margin cosine classifier over the training identities (dropped after training)."""

    def __init__(self, dim: int, classes: int, scale: float = 30.0, margin: float = 0.3) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(classes, dim) * 0.01)
        self.scale, self.margin = scale, margin

    def forward(self, emb: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        cos = emb @ F.normalize(self.weight, dim=1).T
        onehot = F.one_hot(target, cos.shape[1]).to(cos.dtype)
        return self.scale * (cos - self.margin * onehot)


def make_faces(designs: int, seed: int) -> tuple[list[np.ndarray], list[str]]:
    """The training faces at 2 px/mm: ``designs`` random ones, then the 16 stand-ins."""
    from scoring.cards import FACE_LABELS
    from vision.synth.deck import render_face, render_random_face

    rng = np.random.default_rng(seed)
    faces, names = [], []
    for k in range(designs):
        faces.append(render_random_face(rng, px_per_mm=2.0)[0])
        names.append(f"random_{k}")
    for label in FACE_LABELS:
        faces.append(render_face(label, px_per_mm=2.0))
        names.append(label)
    return faces, names


class CropStream(IterableDataset):
    """Endless augmented crops: (uint8 (H, W, 3) RGB, identity index).

    Identity ``2 k`` is face ``k`` upright, ``2 k + 1`` turned 180°; the last is ``empty``.
    The stand-in faces (the last 16) are drawn with probability ``stand_in_share``.
    """

    def __init__(self, faces, seed: int, stand_in_share: float = 0.15, empty_share: float = 0.06):
        self.faces, self.seed = faces, seed
        self.stand_in_share, self.empty_share = stand_in_share, empty_share

    def __iter__(self):
        cv2_threads(1)
        info = torch.utils.data.get_worker_info()
        worker = info.id if info is not None else 0
        rng = np.random.default_rng([self.seed, worker])
        n = len(self.faces)
        empty_id = 2 * n
        while True:
            u = rng.random()
            if u < self.empty_share:
                others = [self.faces[i] for i in rng.integers(0, n, size=4)]
                yield empty_view(rng, out_size=INPUT_SIZE, others=others), empty_id
                continue
            if u < self.empty_share + self.stand_in_share:
                k = int(rng.integers(n - 16, n))
            else:
                k = int(rng.integers(0, n - 16))
            turned = int(rng.random() < 0.5)
            strength = float(rng.uniform(0.2, 1.2))
            others = [self.faces[i] for i in rng.integers(0, n, size=4)]
            crop = card_view(
                self.faces[k],
                rng,
                out_size=INPUT_SIZE,
                rotation=180 * turned,
                strength=strength,
                others=others,
            )
            yield crop, 2 * k + turned


def to_tensor(crops: np.ndarray) -> torch.Tensor:
    """(N, H, W, 3) uint8 RGB → normalised (N, 3, H, W) float32, exactly as the metadata says."""
    x = torch.from_numpy(np.ascontiguousarray(crops)).permute(0, 3, 1, 2).float() / 255.0
    mean = torch.tensor(MEAN).view(1, 3, 1, 1)
    std = torch.tensor(STD).view(1, 3, 1, 1)
    return (x - mean) / std


def _collate(batch):
    crops = np.stack([b[0] for b in batch])
    return to_tensor(crops), torch.tensor([b[1] for b in batch], dtype=torch.long)


def export_onnx(model: CardNet, out_dir: Path, extra: dict) -> Path:
    """Write ``card_embedder.onnx`` (opset 17, dynamic batch) and ``card_embedder.json``."""
    model = model.eval()
    width, height = INPUT_SIZE
    dummy = torch.zeros(1, 3, height, width)
    onnx_path = out_dir / "card_embedder.onnx"
    torch.onnx.export(
        model,
        (dummy,),
        str(onnx_path),
        input_names=["crops"],
        output_names=["embedding"],
        dynamic_axes={"crops": {0: "batch"}, "embedding": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    meta = {
        "input": {
            "name": "crops",
            "layout": "NCHW",
            "channel_order": "RGB",
            "width": width,
            "height": height,
            "dtype": "float32",
            "scale": 1 / 255,
            "mean": list(MEAN),
            "std": list(STD),
        },
        "output": {"name": "embedding", "l2_normalised": True},
        "embedding_dim": EMBEDDING_DIM,
        "opset": 17,
        **extra,
    }
    (out_dir / "card_embedder.json").write_text(json.dumps(meta, indent=2) + "\n")
    return onnx_path


def evaluate(out_dir: Path, seed: int, views: int = 30) -> dict:
    """Held-out accuracy of the exported model with galleries built from one image per face.

    Crops are fresh augmented views (new seeds) of the stand-in deck and of an unseen random
    deck (``random_deck`` seeded with :data:`UNSEEN_DECK_SEED`), upright and turned 180°.
    """
    from vision.classifier import CardEmbedder
    from vision.gallery import Gallery
    from vision.synth.deck import random_deck, stand_in_deck

    embedder = CardEmbedder(out_dir / "card_embedder.onnx", threads=2)
    results = {}
    decks = {
        "stand_in": stand_in_deck(px_per_mm=4.0),
        "unseen": random_deck(np.random.default_rng(UNSEEN_DECK_SEED), px_per_mm=4.0),
    }
    for name, deck in decks.items():
        rng = np.random.default_rng([seed, 7])
        if name == "stand_in":
            gallery = Gallery.load(out_dir / "stand_in_gallery.npz")
        else:
            gallery = Gallery.build(embedder, dict(deck), rng)
        faces = {k: np.asarray(v) for k, v in deck.items()}
        others = list(faces.values())
        crops, truth, rots = [], [], []
        for label, face in faces.items():
            small = _small(face)
            for k in range(views):
                rot = 180 * (k % 2)
                crops.append(card_view(small, rng, out_size=INPUT_SIZE, rotation=rot,
                                       strength=1.0, others=others))  # fmt: skip
                truth.append(label)
                rots.append(rot)
        for _ in range(views * 2):
            crops.append(empty_view(rng, out_size=INPUT_SIZE, others=others))
            truth.append("empty")
            rots.append(None)
        emb = embedder.embed(np.stack(crops))
        scores = gallery.rotation_scores(emb)
        label_idx = scores.max(axis=2).argmax(axis=1)
        predicted = [gallery.labels[i] for i in label_idx]
        rot_pred = [90 * int(scores[i, label_idx[i]].argmax()) for i in range(len(crops))]
        wrong = sum(p != t for p, t in zip(predicted, truth, strict=True))
        rot_wrong = sum(
            1 for p, t, rp, rt in zip(predicted, truth, rot_pred, rots, strict=True)
            if rt is not None and p == t and t != "water" and rp != rt
        )  # fmt: skip
        results[name] = {
            "crops": len(crops),
            "label_error": wrong / len(crops),
            "rotation_error_fronts": rot_wrong / max(sum(1 for r in rots if r is not None), 1),
        }
    return results


def cv2_threads(n: int) -> None:
    """OpenCV's own thread pool: one thread, so the crop worker does not oversubscribe."""
    import cv2

    cv2.setNumThreads(n)


def _small(face: np.ndarray) -> np.ndarray:
    import cv2

    return cv2.resize(face, (126, 176), interpolation=cv2.INTER_AREA)


def train(
    out_dir: str | Path = "models",
    *,
    seed: int = 20261129,
    designs: int = 2500,
    steps: int = 3600,
    batch: int = 128,
    lr: float = 3e-3,
    threads: int = 1,
    workers: int = 1,
    log=print,
) -> dict:
    """Train, export, build the stand-in gallery and evaluate. Returns the metadata dict."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    cv2_threads(1)
    started = time.time()
    faces, _names = make_faces(designs, seed)
    log(f"rendered {len(faces)} faces in {time.time() - started:.0f} s")
    classes = 2 * len(faces) + 1
    model = CardNet()
    head = CosFaceHead(EMBEDDING_DIM, classes)
    params = sum(p.numel() for p in model.parameters())
    log(f"embedder parameters: {params}; identities: {classes}")
    optimiser = torch.optim.AdamW(
        list(model.parameters()) + list(head.parameters()), lr=lr, weight_decay=1e-4
    )
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=lr, total_steps=steps, pct_start=0.15
    )
    loader = DataLoader(
        CropStream(faces, seed),
        batch_size=batch,
        num_workers=workers,
        collate_fn=_collate,
        persistent_workers=workers > 0,
        prefetch_factor=4 if workers > 0 else None,
    )
    model.train()
    running_loss, running_acc = 0.0, 0.0
    for step, (x, y) in enumerate(loader, start=1):
        logits = head(model(x), y)
        loss = F.cross_entropy(logits, y)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        schedule.step()
        running_loss = 0.98 * running_loss + 0.02 * loss.item()
        running_acc = 0.98 * running_acc + 0.02 * (logits.argmax(1) == y).float().mean().item()
        if step % 100 == 0 or step == steps:
            log(
                f"step {step}/{steps} loss {running_loss:.3f} train-acc {running_acc:.3f} "
                f"({time.time() - started:.0f} s)"
            )
        if step >= steps:
            break
    train_seconds = time.time() - started
    extra = {
        "architecture": "CardNet: 5 conv blocks (16-32-64-96-128), 4x3 pool, linear 1536->64",
        "parameters": params,
        "training": {
            "seed": seed,
            "random_designs": designs,
            "stand_in_faces": 16,
            "identities": classes,
            "steps": steps,
            "batch": batch,
            "lr": lr,
            "loss": "CosFace (s=30, m=0.3) over identities (design x {0, 180}) + empty",
            "threads": threads,
            "seconds": round(train_seconds),
            "torch": torch.__version__,
        },
    }
    export_onnx(model, out_dir, extra)
    build_default_gallery(out_dir, seed)
    extra["evaluation"] = evaluate(out_dir, seed)
    export_onnx(model, out_dir, extra)  # the same weights; metadata now holds the evaluation
    build_default_gallery(out_dir, seed)
    log(json.dumps(extra["evaluation"]))
    return extra


def build_default_gallery(out_dir: Path, seed: int) -> Path:
    """Build ``stand_in_gallery.npz`` with the exported model."""
    from vision.classifier import CardEmbedder
    from vision.gallery import Gallery
    from vision.synth.deck import stand_in_deck

    embedder = CardEmbedder(out_dir / "card_embedder.onnx", threads=2)
    gallery = Gallery.build(embedder, dict(stand_in_deck(px_per_mm=4.0)),
                            np.random.default_rng([seed, 1]))  # fmt: skip
    path = out_dir / "stand_in_gallery.npz"
    gallery.save(path)
    return path


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="models", help="output folder (default: models)")
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--designs", type=int, default=2500, help="random designs to train on")
    parser.add_argument("--steps", type=int, default=3600)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--workers", type=int, default=1, help="crop-rendering processes")
    return parser


def run(args: argparse.Namespace) -> int:
    train(
        args.out,
        seed=args.seed,
        designs=args.designs,
        steps=args.steps,
        batch=args.batch,
        lr=args.lr,
        threads=args.threads,
        workers=args.workers,
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(run(build_parser().parse_args()))
