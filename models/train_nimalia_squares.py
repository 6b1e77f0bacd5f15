"""Train the Nimalia square embedder (``models/nimalia_square_embedder/``) on random decks.

The reader names a square by comparing its embedding with a gallery built from one image per
card of the player's deck (``vision/nimalia/reader.py``), so the network must learn to *compare
looks*, not to remember one deck's art. It is trained on randomly drawn decks
(:func:`vision.nimalia.deck.random_style`: random land colours and textures, shuffled or random
pictograms, random animal colours, backing discs, rivers of random colour and width) plus the
stand-in deck in a few batches; the **variant** style (the "never seen" deck of the benchmarks)
is never drawn here.

One batch = one deck: ``classes`` of its 15 classes (the 14 kinds as seen after the card's quarter
turn, so an otter's river direction is part of the look, and table) x ``views`` crops each. A
square crop is cut from a card lying on a random table among other cards of the deck (overlapping
neighbours, the card's edge), through a jittered quad (shift, scale, turn, perspective), then
resolution loss, light, blur, noise and JPEG as in a photo. Loss: supervised contrastive
(SupCon, temperature ``--temp``) on L2-normalised embeddings, identities = (deck, class).

torch is only needed here (the ``train`` extra); the reader runs the exported ONNX on
onnxruntime. ``python models/train_nimalia_squares.py --minutes 20 --out DIR`` writes the model
folder ``DIR`` (default: the shipped one, :func:`vision.models.model_files`): ``model.onnx`` and
``model.json`` (the metadata
:class:`vision.reptile_tank.classifier.CardEmbedder` reads); ``--steps 2 --decks 1`` is a smoke run.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from scoring.nimalia.cards import EMPTY, cards, turn
from vision.models import model_files, model_folder
from vision.nimalia.deck import STAND_IN, random_style, render_card
from vision.nimalia.reader import CLASSES, CROP, _photometric
from vision.nimalia.squares import SQUARE_MODEL_NAME
from vision.synth.table import HARD_TABLE_KINDS, draw_table, table_texture

INPUT = 40  # network input side (the reader's 64 x 64 crops are area-resized to it)
DIM = 64


class SquareNet(nn.Module):
    """5 conv layers (24-48-64-64-96) on a 40 x 40 square crop, 3 x 3 pool, linear 864 -> 64."""

    def __init__(self, dim: int = DIM) -> None:
        super().__init__()

        def block(i: int, o: int) -> list[nn.Module]:
            return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

        self.features = nn.Sequential(
            *block(3, 24),
            nn.MaxPool2d(2),  # 20
            *block(24, 48),
            nn.MaxPool2d(2),  # 10
            *block(48, 64),
            *block(64, 64),
            nn.MaxPool2d(2),  # 5
            *block(64, 96),
            nn.AvgPool2d(3, stride=1),  # 5 -> 3
        )
        self.fc = nn.Linear(96 * 9, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = self.fc(self.features(x).flatten(1))
        return z / torch.sqrt((z * z).sum(1, keepdim=True) + 1e-12)


MEAN, STD, SCALE = 0.5, 0.25, 1 / 255.0


def to_input(crops: np.ndarray) -> np.ndarray:
    """(N, 64, 64, 3) uint8 -> (N, 3, 40, 40) float32, exactly as CardEmbedder.preprocess."""
    small = np.stack([cv2.resize(c, (INPUT, INPUT), interpolation=cv2.INTER_AREA) for c in crops])
    return ((small.astype(np.float32).transpose(0, 3, 1, 2) * SCALE) - MEAN) / STD


# ---------------------------------------------------------------------------------------------
# Data: random decks, crops as the reader cuts them
# ---------------------------------------------------------------------------------------------


class Deck:
    """A deck's 60 cards at 4 turns, and where each class's squares are."""

    def __init__(self, style, px_per_mm: float) -> None:
        self.images = {}
        self.where: dict[int, list[tuple[int, int, int]]] = {k: [] for k in range(len(CLASSES))}
        for cid in cards():
            base = render_card(cid, style=style, px_per_mm=px_per_mm)
            for t in (0, 90, 180, 270):
                self.images[cid, t] = np.ascontiguousarray(np.rot90(base, k=-(t // 90)))
                for q, sq in enumerate(turn(cid, t)):
                    self.where[CLASSES.index(sq.token)].append((cid, t, q))
        self.n = base.shape[0]
        self.mask = (base.sum(-1) > 0)[..., None]  # every card's outline (turn-symmetric)
        self.half = self.n / 2


def _paste(canvas: np.ndarray, img: np.ndarray, mask: np.ndarray, x: int, y: int) -> None:
    """Lay a card (``mask``: inside its rounded corners) on the canvas, clipped to it."""
    h, w = img.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, canvas.shape[1]), min(y + h, canvas.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    sl = (slice(y0 - y, y1 - y), slice(x0 - x, x1 - x))
    np.copyto(canvas[y0:y1, x0:x1], img[sl], where=mask[sl])


def square_crop(
    deck: Deck, key: tuple[int, int, int], rng: np.random.Generator, table: np.ndarray
) -> np.ndarray:
    """One square of ``deck`` as a photo's lattice cell would show it (64 x 64)."""
    cid, t, q = key
    n, half = deck.n, deck.half
    size = 3 * n
    y0, x0 = rng.integers(0, table.shape[0] - size), rng.integers(0, table.shape[1] - size)
    canvas = table[y0 : y0 + size, x0 : x0 + size].copy()
    ox, oy = n, n  # the target card's top-left on the canvas
    r, c = divmod(q, 2)
    tx, ty = ox + c * half, oy + r * half  # the target square's top-left
    keys = list(deck.images)
    others = []
    for _ in range(int(rng.integers(0, 4))):
        # another card on the square grid, not covering the target square (+- a small offset)
        for _try in range(6):
            gx, gy = rng.integers(-2, 3, 2)  # in squares from the target card's corner
            if not (gx <= c <= gx + 1 and gy <= r <= gy + 1):
                jitter = rng.normal(0, 0.03 * half, 2)
                others.append((int(ox + gx * half + jitter[0]), int(oy + gy * half + jitter[1])))
                break
    above = rng.random(len(others)) < 0.5
    for (x, y), up in zip(others, above, strict=True):
        if not up:
            _paste(canvas, deck.images[keys[int(rng.integers(len(keys)))]], deck.mask, x, y)
    _paste(canvas, deck.images[cid, t], deck.mask, ox, oy)
    for (x, y), up in zip(others, above, strict=True):
        if up:
            _paste(canvas, deck.images[keys[int(rng.integers(len(keys)))]], deck.mask, x, y)
    quad = np.float32([[tx, ty], [tx + half, ty], [tx + half, ty + half], [tx, ty + half]])
    centre = quad.mean(0)
    ang = np.radians(rng.uniform(-4, 4))
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]], np.float32)
    quad = (quad - centre) @ rot.T * rng.uniform(0.92, 1.08) + centre
    quad += rng.uniform(-0.1, 0.1, 2).astype(np.float32) * half  # lattice offset
    quad += rng.normal(0, 0.03 * half, (4, 2)).astype(np.float32)  # perspective / lattice error
    dst = np.float32([[0, 0], [CROP, 0], [CROP, CROP], [0, CROP]])
    h = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    crop = cv2.warpPerspective(canvas, h, (CROP, CROP), flags=cv2.INTER_AREA)
    return _degrade(crop, rng)


def _degrade(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if rng.random() < 0.6:  # a square smaller in the photo than the crop
        s = int(rng.integers(18, CROP))
        crop = cv2.resize(cv2.resize(crop, (s, s), interpolation=cv2.INTER_AREA), (CROP, CROP))
    if rng.random() < 0.3:  # uneven light across the square (glare, shadow)
        g = np.linspace(rng.uniform(0.6, 1.0), rng.uniform(1.0, 1.3), CROP, dtype=np.float32)
        g = g[:, None] if rng.random() < 0.5 else g[None, :]
        crop = np.clip(crop * g[..., None], 0, 255).astype(np.uint8)
    return _photometric(rng, crop)


class Tables:
    """A pool of random table textures (one is redrawn per batch: drawing them is slow): half
    from :func:`vision.synth.table.table_texture`, half from the photo generator's tables (wood,
    cloth, dotted and patterned cloth, checks, stripes, card-like mats)."""

    def __init__(self, rng: np.random.Generator, n: int = 24, side: int = 640) -> None:
        self.rng, self.side = rng, side
        self.pool = [self._draw() for _ in range(n)]

    def _draw(self) -> np.ndarray:
        if self.rng.random() < 0.5:
            return table_texture(self.rng, (self.side, self.side))
        kind = str(self.rng.choice(HARD_TABLE_KINDS))
        ppm = float(self.rng.uniform(1.0, 2.5))
        return draw_table(self.rng, kind, (self.side, self.side), ppm)

    def refresh(self) -> None:
        self.pool[int(self.rng.integers(len(self.pool)))] = self._draw()

    def pick(self, k: int = 3) -> list[np.ndarray]:
        return [self.pool[int(i)] for i in self.rng.choice(len(self.pool), k, replace=False)]


def table_crop(rng: np.random.Generator, table: np.ndarray, cards_: list[np.ndarray]) -> np.ndarray:
    """A cell of bare table (sometimes with a strip of a neighbouring card along one side)."""
    side = int(rng.integers(40, 200))
    y, x = rng.integers(0, table.shape[0] - side, 2)
    crop = cv2.resize(table[y : y + side, x : x + side], (CROP, CROP), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.4:
        src = cards_[int(rng.integers(len(cards_)))]
        strip = int(rng.uniform(0.04, 0.22) * CROP)
        crop = np.ascontiguousarray(np.rot90(crop, int(rng.integers(4))))
        crop[:strip] = cv2.resize(src, (CROP, CROP))[:strip]
        crop = np.ascontiguousarray(np.rot90(crop, int(rng.integers(4))))
    return _degrade(crop, rng)


def make_batch(
    deck: Deck, rng: np.random.Generator, n_classes: int, views: int, tables: Tables
) -> tuple[np.ndarray, np.ndarray]:
    if rng.random() < 0.3:
        tables.refresh()
    picked = tables.pick()
    empty = CLASSES.index(EMPTY)
    chosen = [empty] + list(rng.choice(empty, n_classes - 1, replace=False))
    crops, labels = [], []
    sample = [deck.images[k] for k in list(deck.images)[::17]]
    for k in chosen:
        if k == empty:
            crops += [table_crop(rng, picked[int(rng.integers(3))], sample) for _ in range(views)]
        else:
            opts = deck.where[k]
            for _ in range(views):
                key = opts[int(rng.integers(len(opts)))]
                crops.append(square_crop(deck, key, rng, picked[int(rng.integers(3))]))
        labels += [k] * views
    return np.stack(crops), np.array(labels)


def supcon(z: torch.Tensor, y: torch.Tensor, temp: float) -> torch.Tensor:
    sim = z @ z.T / temp
    n = len(y)
    eye = torch.eye(n, dtype=torch.bool)
    sim = sim.masked_fill(eye, -1e9)
    logp = sim - torch.logsumexp(sim, 1, keepdim=True)
    pos = (y[:, None] == y[None, :]) & ~eye
    return -(logp * pos).sum(1).div(pos.sum(1).clamp(min=1)).mean()


# ---------------------------------------------------------------------------------------------


def export(model: SquareNet, out_dir: Path, info: dict) -> Path:
    model.eval()
    path = model_folder(out_dir).onnx
    x = torch.zeros(2, 3, INPUT, INPUT)
    kw = dict(
        input_names=["crops"],
        output_names=["embedding"],
        dynamic_axes={"crops": {0: "n"}, "embedding": {0: "n"}},
        opset_version=17,
    )
    try:
        torch.onnx.export(model, (x,), str(path), dynamo=False, **kw)
    except TypeError:  # pragma: no cover - older torch
        torch.onnx.export(model, (x,), str(path), **kw)
    meta = {
        "input": {
            "name": "crops",
            "layout": "NCHW",
            "channel_order": "RGB",
            "width": INPUT,
            "height": INPUT,
            "dtype": "float32",
            "scale": SCALE,
            "mean": [MEAN] * 3,
            "std": [STD] * 3,
        },
        "output": {"name": "embedding", "l2_normalised": True},
        "embedding_dim": DIM,
        "opset": 17,
        "architecture": SquareNet.__doc__,
        "parameters": int(sum(p.numel() for p in model.parameters())),
        "training": info,
    }
    model_folder(out_dir).metadata.write_text(json.dumps(meta, indent=2) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(model_files(SQUARE_MODEL_NAME).folder))
    ap.add_argument("--minutes", type=float, default=20.0, help="wall-clock training budget")
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--decks", type=int, default=48, help="random decks in the pool")
    ap.add_argument("--new-deck-every", type=int, default=25, help="steps between fresh decks")
    ap.add_argument("--classes", type=int, default=15)
    ap.add_argument("--views", type=int, default=6)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--temp", type=float, default=0.1)
    ap.add_argument("--stand-in-share", type=float, default=0.1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--init", default=None, help="start from these weights (a .pt state dict)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    deadline = t0 + 60 * args.minutes

    def new_deck(k: int) -> Deck:
        return Deck(random_style(args.seed * 1000 + k), float(rng.uniform(1.4, 2.1)))

    tables = Tables(rng, n=4 if args.steps < 10 else 24)
    pool = [new_deck(k) for k in range(min(args.decks, 8))]
    made = len(pool)
    stand_in = Deck(STAND_IN, 2.0) if args.stand_in_share > 0 else None
    print(f"{len(pool)} decks in {time.time() - t0:.0f}s", flush=True)
    model = SquareNet()
    if args.init:
        model.load_state_dict(torch.load(args.init))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    # time-based cosine schedule (the budget is wall-clock on a shared machine)
    step, losses = 0, []
    while step < args.steps and time.time() < deadline:
        frac = (time.time() - t0) / (60 * args.minutes)
        for g in opt.param_groups:
            g["lr"] = args.lr * (0.02 + 0.98 * 0.5 * (1 + np.cos(np.pi * min(frac, 1.0))))
        if step and step % args.new_deck_every == 0:
            fresh = new_deck(made)
            made += 1
            if len(pool) < args.decks:
                pool.append(fresh)
            else:
                pool[int(rng.integers(len(pool)))] = fresh
        deck = (
            stand_in
            if stand_in is not None and rng.random() < args.stand_in_share
            else pool[int(rng.integers(len(pool)))]
        )
        crops, labels = make_batch(deck, rng, args.classes, args.views, tables)
        x = torch.from_numpy(to_input(crops))
        model.train()
        loss = supcon(model(x), torch.from_numpy(labels), args.temp)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss))
        step += 1
        if step % 50 == 0:
            print(
                f"step {step} loss {np.mean(losses[-50:]):.3f} decks {made} "
                f"{time.time() - t0:.0f}s",
                flush=True,
            )
        if step % 500 == 0:
            torch.save(model.state_dict(), Path(args.out) / "nimalia_square_embedder.pt")
    info = {
        "seed": args.seed,
        "steps": step,
        "batch": args.classes * args.views,
        "random_decks": made,
        "stand_in_share": args.stand_in_share,
        "loss": "SupCon",
        "temperature": args.temp,
        "final_loss": float(np.mean(losses[-50:])) if losses else None,
        "minutes": round((time.time() - t0) / 60, 1),
        "recipe": "models/train_nimalia_squares.py",
        "init": args.init,
    }
    path = export(model, Path(args.out), info)
    print(json.dumps(info), path, flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
