"""Write synthetic data sets: ``scene_%05d.jpg`` + ``scene_%05d.json`` + ``manifest.json``.

Scene ``i`` of a data set with seed ``S`` is rendered from ``numpy.random.default_rng(
scene_seed(S, i))`` alone, so the same (seed, index, options) always gives the same bytes, and
data sets with different seeds never share a scene as long as ``S * 1_000_003`` ranges do not
overlap (seeds below 1000 with fewer than 1_000_003 scenes never do).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from vision.reptile_tank.synth.deck import DeckFaces, load_pack_faces, random_deck, stand_in_deck
from vision.reptile_tank.synth.scene import HARD_TABLE_KINDS, encode_jpeg, render_scene

SEED_STRIDE = 1_000_003
GENERATOR_VERSION = 1


def scene_seed(seed: int, index: int) -> int:
    """The seed of scene ``index`` in the data set of seed ``seed``."""
    return int(seed) * SEED_STRIDE + int(index)


def resolve_deck(deck: str | Path | DeckFaces, rng: np.random.Generator | None = None) -> DeckFaces:
    """``"stand-in"``, ``"random"`` (needs ``rng``), a pack directory, or a :class:`DeckFaces`."""
    if isinstance(deck, DeckFaces):
        return deck
    if str(deck) == "stand-in":
        return stand_in_deck()
    if str(deck) == "random":
        if rng is None:
            raise ValueError("deck: 'random' needs a random generator")
        return random_deck(rng, px_per_mm=5.0)
    return load_pack_faces(deck)


def parse_size(text: str) -> tuple[int, int]:
    """``"WxH"`` -> ``(W, H)``; raises ``ValueError`` with a clear message."""
    parts = str(text).lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"size: expected WxH such as 1024x768, got {text!r}")
    w, h = int(parts[0]), int(parts[1])
    if w < 64 or h < 64 or w > 8192 or h > 8192:
        raise ValueError(f"size: each side must be in [64, 8192], got {text!r}")
    return w, h


def write_dataset(
    out_dir: str | Path,
    n: int,
    seed: int,
    *,
    deck: str | Path | DeckFaces = "stand-in",
    partial: float = 0.0,
    max_size: tuple[int, int] = (4032, 3024),
    start: int = 0,
    **scene_options: Any,
) -> dict[str, Any]:
    """Render ``n`` scenes into ``out_dir`` and return the manifest (also written there).

    Parameters
    ----------
    out_dir : path
        Created if missing. Files: ``scene_%05d.jpg``, ``scene_%05d.json`` (the ground truth of
        :func:`vision.reptile_tank.synth.scene.render_scene`, with ``image`` set), ``manifest.json``.
    n, seed : int
        Number of scenes and the data set's seed (``n >= 1``, ``0 <= seed < 2**31``).
    deck : ``"stand-in"``, ``"random"`` or a deck pack directory (``<label>.png`` files)
        ``"random"`` draws a new random deck for every scene (from that scene's seed).
    partial : float
        Probability that a cell is empty (mid-game scenes).
    max_size : (int, int)
        Largest photo size (long x short side).
    start : int
        Index of the first scene (to extend a data set or write it in shards).
    """
    if int(n) < 1:
        raise ValueError(f"n: must be at least 1, got {n}")
    if not 0 <= int(seed) < 2**31:
        raise ValueError(f"seed: must be in [0, 2**31), got {seed}")
    if not 0.0 <= float(partial) < 1.0:
        raise ValueError(f"partial: must be in [0, 1), got {partial}")
    out = Path(out_dir)
    fixed_deck = None if str(deck) == "random" else resolve_deck(deck)
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for i in range(int(start), int(start) + int(n)):
        s = scene_seed(seed, i)
        rng = np.random.default_rng(s)
        scene_deck = fixed_deck if fixed_deck is not None else resolve_deck("random", rng)
        image, truth = render_scene(
            rng, scene_deck, partial=partial, max_size=max_size, **scene_options
        )
        name = f"scene_{i:05d}"
        truth["image"] = f"{name}.jpg"
        truth["params"]["seed"] = s
        truth["params"]["dataset_seed"] = int(seed)
        truth["params"]["index"] = i
        (out / f"{name}.jpg").write_bytes(encode_jpeg(image, truth["params"]["jpeg_quality"]))
        (out / f"{name}.json").write_text(json.dumps(truth, indent=1) + "\n")
        entries.append({"image": f"{name}.jpg", "truth": f"{name}.json"})
    manifest = {
        "generator": "vision.reptile_tank.synth",
        "generator_version": GENERATOR_VERSION,
        "seed": int(seed),
        "n": int(n),
        "start": int(start),
        "deck": str(deck) if not isinstance(deck, DeckFaces) else deck.name,
        "partial": float(partial),
        "max_size": [int(max_size[0]), int(max_size[1])],
        "options": {k: v for k, v in scene_options.items()},
        "scenes": entries,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


_BARE_BOARD = [["empty"] * 5 for _ in range(4)]

#: Frozen evaluation sets defined here (the CLI-made ones are in ``datasets/make_eval.sh``):
#: ``write_dataset`` arguments, regenerated byte for byte by :func:`write_frozen`. Seeds
#: 9005-9008 (9000-9999 are reserved for frozen sets, see ``datasets/README.md``).
FROZEN_SETS: dict[str, dict[str, Any]] = {
    # strong tilt, small and large grids, crisp checks / stripes / card-coloured playmats,
    # sharp-edged shadows and strong glare, 10 % empty cells
    "hard": {
        "n": 100,
        "seed": 9005,
        "partial": 0.1,
        "max_size": (4032, 3024),
        "tilt_deg": (20.0, 65.0),
        "fill": (0.25, 0.95),
        "tables": HARD_TABLE_KINDS,
        "hard_light": True,
    },
    # what an in-page camera gives (issue 17): full boards at 1280 x 960 and 640 x 480
    "small_1280": {"n": 100, "seed": 9006, "size": (1280, 960), "fill": (0.4, 0.95)},
    "small_640": {"n": 100, "seed": 9007, "size": (640, 480), "fill": (0.45, 0.95)},
    # no terrarium: bare tables of every kind (the truth board is all ``empty``)
    "bare": {
        "n": 45,
        "seed": 9008,
        "max_size": (4032, 3024),
        "board": _BARE_BOARD,
        "distractors": False,
        "tables": HARD_TABLE_KINDS,
    },
}


def write_frozen(name: str, out_dir: str | Path, n: int | None = None) -> dict[str, Any]:
    """Write the frozen evaluation set ``name`` of :data:`FROZEN_SETS` (its first ``n`` scenes)."""
    if name not in FROZEN_SETS:
        raise ValueError(f"frozen set: expected one of {sorted(FROZEN_SETS)}, got {name!r}")
    options = dict(FROZEN_SETS[name])
    count = options.pop("n") if n is None else int(n)
    options.pop("n", None)
    seed = options.pop("seed")
    return write_dataset(out_dir, count, seed, **options)


def contact_sheet(
    images: list[np.ndarray], *, cols: int = 4, cell: tuple[int, int] = (480, 360)
) -> np.ndarray:
    """Tile scenes (each letterboxed into ``cell`` = (w, h)) into one ``(H, W, 3) uint8 RGB``."""
    import cv2

    if not images:
        raise ValueError("images: need at least one scene")
    cw, ch = cell
    rows = -(-len(images) // cols)
    pad = 6
    sheet = np.full((rows * (ch + pad) + pad, cols * (cw + pad) + pad, 3), 30, np.uint8)
    for k, img in enumerate(images):
        h, w = img.shape[:2]
        s = min(cw / w, ch / h)
        nw, nh = max(1, round(w * s)), max(1, round(h * s))
        small = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA)
        r, c = divmod(k, cols)
        y = pad + r * (ch + pad) + (ch - nh) // 2
        x = pad + c * (cw + pad) + (cw - nw) // 2
        sheet[y : y + nh, x : x + nw] = small
    return sheet


__all__ = [
    "FROZEN_SETS",
    "contact_sheet",
    "parse_size",
    "resolve_deck",
    "scene_seed",
    "write_dataset",
    "write_frozen",
]
