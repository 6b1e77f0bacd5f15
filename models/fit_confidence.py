"""Fit the per-cell confidence model (``confidence.json`` of the reader's embedder,
``models/card_embedder_v2/``) on held-out synthetic photos.

Run ``python -m models.fit_confidence`` (about 10 minutes on one core). It

1. renders two disjoint sets of photos with the project's generator
   (``vision.reptile_tank.synth``), from seeds of their own: :data:`FIT_SETS` to fit,
   :data:`TEST_SETS` to measure. Neither is a training seed of the embedder (which trains on
   isolated card crops, seed 2026113x) nor an evaluation seed (9000-9999). Each photo mixes
   what makes reads hard: the stand-in deck, random decks and look-alike decks (cards of one
   category sharing frame and layout, enrolled from one image per face), small photos
   (640 x 480 and 1280 x 720 / 960, as an in-page camera gives) next to 1600 and 2016 px ones,
   full and mid-game boards;
2. reads every photo with the same :class:`vision.reptile_tank.reader.TerrariumReader` the app
   uses (an enrolled deck through its deck pack, as ``enroll`` writes it) and keeps each cell's
   features (:data:`vision.reptile_tank.confidence.FEATURES`) and whether its label is right;
3. fits a logistic regression (L2, Newton's method) to the fit set's cells and picks the
   threshold so that the flagged cells hold :data:`TARGET_RECALL` of the fit set's wrong cells;
4. measures on the test set: the share of wrong cells flagged, of right cells flagged, silent
   wrong cells (neither the cell nor its read flagged), and a reliability table and plot
   (``docs/confidence_reliability.png``).

``--collect-only`` writes the cells to an ``.npz`` for inspection; ``--cells`` fits from one.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from vision.models import READER_MODEL, model_files
from vision.reptile_tank.confidence import CELL_FEATURES, FEATURES, ConfidenceModel, board_features

#: Seeds of the calibration photo sets (their own range, see the module docstring) and their
#: sizes: fit on the first two, measure on the third.
FIT_SETS = ((7101, 200), (7102, 150))
TEST_SETS = ((7201, 150),)
#: Share of the fit set's wrong cells the threshold must flag (the target is 95 %; a little
#: more on the fit set leaves room for the test set).
TARGET_RECALL = 0.97
#: Photo sizes (landscape; a third of the photos are turned portrait).
SIZES = ((640, 480), (1280, 720), (1280, 960), (1600, 1200), (2016, 1512))
#: Decks per kind and set: each is enrolled once from one image per face.
DECKS_PER_KIND = 4


def _decks(seed: int) -> list[tuple[str, object]]:
    from vision.reptile_tank.lookalike import family_deck
    from vision.reptile_tank.synth.deck import random_deck, stand_in_deck

    decks: list[tuple[str, object]] = [("stand_in", stand_in_deck(px_per_mm=5.0))]
    for k in range(DECKS_PER_KIND):
        decks.append(("random", random_deck(np.random.default_rng([seed, 1, k]), px_per_mm=5.0)))
        decks.append(("families", family_deck(np.random.default_rng([seed, 2, k]), px_per_mm=5.0)))
    return decks


def _copies() -> dict[str, int]:
    """Copies per front from the default rules data's ``[cards.<id>] copies`` (plain TOML)."""
    import tomllib

    from scoring.reptile_tank.rules import DEFAULT_RULES_PATH

    with open(DEFAULT_RULES_PATH, "rb") as handle:
        cards = tomllib.load(handle).get("cards", {})
    return {
        card: int(entry["copies"])
        for card, entry in cards.items()
        if isinstance(entry, dict) and "copies" in entry and card != "water"
    }


def collect(seed: int, n: int, *, model_path: str | None = None, log=print) -> dict:
    """Render ``n`` photos from ``seed``, read them, return per-cell features and truth."""
    from vision.reptile_tank.gallery import DeckPack
    from vision.reptile_tank.reader import TerrariumReader

    decks = _decks(seed)
    with tempfile.TemporaryDirectory() as tmp:
        # each enrolled deck is read as the product reads it: through a deck pack (its faces
        # serve the hidden-card checks and the look past a hand, its settings an enrolled deck's)
        readers = [TerrariumReader(copies=_copies(), model_path=model_path)]
        for k, (_, deck) in enumerate(decks[1:]):
            DeckPack.create(Path(tmp) / f"deck-{k}", dict(deck), readers[0].embedder,
                            np.random.default_rng([seed, 3, k]))  # fmt: skip
            readers.append(TerrariumReader(Path(tmp) / f"deck-{k}", copies=_copies(),
                                           model_path=model_path))  # fmt: skip
        for reader in readers:
            reader.rerank = reader.confirm_by_print = False  # the calibrated model alone
        return _collect_reads(seed, n, decks, readers, log)


def _collect_reads(seed: int, n: int, decks, readers, log) -> dict:
    from vision.errors import GridNotFoundError
    from vision.reptile_tank.synth.scene import encode_jpeg, render_scene

    feats, right, labels, scene_of, flagged_read, checked = [], [], [], [], [], []
    scenes = []
    started = time.time()
    for i in range(n):
        rng = np.random.default_rng([seed, 100, i])
        d = int(rng.integers(len(decks))) if rng.random() < 0.7 else 0
        kind, deck = decks[d]
        w, h = SIZES[int(rng.integers(len(SIZES)))]
        if rng.random() < 1 / 3:
            w, h = h, w
        partial = float(rng.choice([0.0, 0.0, 0.15, 0.3]))
        image, truth = render_scene(rng, deck, partial=partial, size=(w, h))
        data = encode_jpeg(image, truth["params"]["jpeg_quality"])
        reader = readers[d]
        info = {"index": i, "deck": kind, "size": [w, h], "partial": partial}
        try:
            read = reader.read(data)
        except GridNotFoundError as error:
            info.update(found=False, reason=str(error))
            scenes.append(info)
            continue
        true_rows = truth["board"]["rows"]
        ok = np.array(
            [
                [read.rows[r][c] == true_rows[r][c] for c in range(len(true_rows[0]))]
                for r in range(len(true_rows))
            ]  # fmt: skip
        )
        conf = read.confidence
        feats.append(conf.features.reshape(-1, len(FEATURES)))
        right.append(ok.reshape(-1))
        labels.extend(label for row in read.rows for label in row)
        scene_of.extend([i] * ok.size)
        flagged_read.extend([bool(read.grid_doubt) or _orientation_doubt(conf)] * ok.size)
        checked.append(read_checks(read).reshape(-1))
        info.update(found=True, wrong=int((~ok).sum()), needs_check=bool(read.needs_check))
        scenes.append(info)
        if (i + 1) % 25 == 0:
            log(f"seed {seed}: {i + 1}/{n} photos ({time.time() - started:.0f} s)")
    return {
        "features": np.concatenate(feats).astype(np.float32),
        "right": np.concatenate(right),
        "labels": np.array(labels),
        "scene": np.array(scene_of),
        "read_flag_other": np.array(flagged_read),
        "cell_checks": np.concatenate(checked),
        "scenes": scenes,
        "model_id": readers[0].embedder.model_id,
    }


def read_checks(read) -> np.ndarray:
    """(rows, cols) bool: the cells a read flags by its own checks, whatever the calibrated
    model says (:attr:`vision.reptile_tank.confidence.ReadConfidence.own_checks`: a hand or
    glare, a close call, a weak match or table read, a face enrolled unsure, a card found
    beside its place, cells that match no face well, a fine comparison that disagrees) --
    the reader's own record, so what is measured is what the product shows."""
    return read.confidence.flagged_by_own_checks()


def _orientation_doubt(conf) -> bool:
    return any("up is unclear" in reason for reason in conf.reasons)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, iters: int = 50):
    """Logistic regression by Newton's method: returns (weights, bias) on standardised x."""
    n, f = x.shape
    design = np.hstack([x, np.ones((n, 1))])
    beta = np.zeros(f + 1)
    penalty = np.full(f + 1, l2 * n)
    penalty[-1] = 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-np.clip(design @ beta, -40, 40)))
        grad = design.T @ (p - y) + penalty * beta
        hess = (design * (p * (1 - p))[:, None]).T @ design + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return beta[:-1], float(beta[-1])


def fit(cells: dict, target_recall: float = TARGET_RECALL) -> ConfidenceModel:
    """The confidence model for the fit set's cells."""
    x = cells["features"].astype(np.float64)
    y = (~cells["right"]).astype(np.float64)
    mean, std = x.mean(axis=0), np.maximum(x.std(axis=0), 1e-6)
    weights, bias = fit_logistic((x - mean) / std, y)
    model = ConfidenceModel(weights, bias, mean, std, 0.5, cells["model_id"])
    p = model.probability(x)
    wrong_p = np.sort(p[y == 1])
    if len(wrong_p):
        k = int(np.floor((1 - target_recall) * len(wrong_p)))
        threshold = float(wrong_p[k])
    else:
        threshold = 0.5
    # a read needs a check when it holds a wrong cell of the fit set that no cell flag caught:
    # the read threshold is the lowest "most doubtful cell" of such reads
    read_threshold = threshold
    for scene in np.unique(cells["scene"]):
        members = cells["scene"] == scene
        if (y[members] == 1).any() and not (p[members] >= threshold).any():
            read_threshold = min(read_threshold, float(p[members].max()))
    return ConfidenceModel(
        weights, bias, mean, std, threshold, cells["model_id"], read_threshold=read_threshold
    )


def measure(model: ConfidenceModel, cells: dict) -> dict:
    """Flag rates, silent wrong cells and a reliability table on a set of cells."""
    x = cells["features"].astype(np.float64)
    wrong = ~cells["right"]
    p = model.probability(x)
    flag = p >= model.threshold
    # a read needs a check when a cell reaches the read threshold (or its grid / orientation
    # is in doubt)
    read_flag = cells["read_flag_other"].copy()
    for scene in np.unique(cells["scene"]):
        members = cells["scene"] == scene
        if (p[members] >= model.read_limit).any():
            read_flag[members] = True
    silent = wrong & ~flag & ~read_flag
    # the product's flags: the model's and the read's own checks; a read with either needs a
    # check
    checks = cells["cell_checks"]
    flag_all = flag | checks
    read_all = read_flag.copy()
    for scene in np.unique(cells["scene"]):
        members = cells["scene"] == scene
        if checks[members].any():
            read_all[members] = True
    silent_all = wrong & ~flag_all & ~read_all
    edges = np.array([0, 0.01, 0.03, 0.1, 0.2, 0.4, 0.7, 1.0])
    bins = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        members = (p >= lo) & ((p < hi) if hi < 1 else (p <= hi))
        if members.any():
            bins.append({"p_from": float(lo), "p_to": float(hi), "cells": int(members.sum()),
                         "mean_p": float(p[members].mean()),
                         "wrong_rate": float(wrong[members].mean())})  # fmt: skip
    scenes = cells["scenes"]
    found = [s for s in scenes if s["found"]]
    return {
        "photos": len(scenes),
        "found": len(found),
        "cells": int(len(p)),
        "wrong_cells": int(wrong.sum()),
        "wrong_flagged": float(flag[wrong].mean()) if wrong.any() else None,
        "right_flagged": float(flag[~wrong].mean()) if (~wrong).any() else None,
        "silent_wrong_cells": int(silent.sum()),
        "silent_wrong_share_of_cells": float(silent.mean()),
        "with_read_checks": {
            "wrong_flagged": float(flag_all[wrong].mean()) if wrong.any() else None,
            "right_flagged": float(flag_all[~wrong].mean()) if (~wrong).any() else None,
            "silent_wrong_cells": int(silent_all.sum()),
            "reads_needing_check": float(
                np.mean([read_all[cells["scene"] == k].any() for k in np.unique(cells["scene"])])
            )
            if len(p)
            else None,
        },
        "reads_needing_check": float(
            np.mean([read_flag[cells["scene"] == k].any() for k in np.unique(cells["scene"])])
        )
        if len(p)
        else None,
        "boards_right": sum(1 for s in found if s["wrong"] == 0),
        "reliability": bins,
        "by_deck": {
            kind: {
                "photos": sum(1 for s in scenes if s["deck"] == kind),
                "found": sum(1 for s in found if s["deck"] == kind),
                "wrong_cells": sum(s["wrong"] for s in found if s["deck"] == kind),
            }
            for kind in ("stand_in", "random", "families")
        },
        "by_size": {
            f"{w}x{h}": {
                "found": sum(1 for s in found if sorted(s["size"]) == sorted([w, h])),
                "photos": sum(1 for s in scenes if sorted(s["size"]) == sorted([w, h])),
                "wrong_cells": sum(
                    s["wrong"] for s in found if sorted(s["size"]) == sorted([w, h])
                ),
            }
            for w, h in SIZES
        },
    }


def reliability_plot(report: dict, path: Path, title: str) -> None:
    """Predicted P(wrong) against the observed wrong rate per bin, log-log, drawn with OpenCV."""
    size, pad = 520, 70
    img = np.full((size + 2 * pad, size + 2 * pad, 3), 255, np.uint8)
    lo = 1e-3

    def xy(px: float, py: float) -> tuple[int, int]:
        u = (np.log10(max(px, lo)) - np.log10(lo)) / -np.log10(lo)
        v = (np.log10(max(py, lo)) - np.log10(lo)) / -np.log10(lo)
        return int(pad + u * size), int(pad + (1 - v) * size)

    black, grey = (0, 0, 0), (200, 200, 200)
    for tick in (1e-3, 1e-2, 1e-1, 1.0):
        x0, _ = xy(tick, lo)
        _, y0 = xy(lo, tick)
        cv2.line(img, (x0, pad), (x0, pad + size), grey, 1)
        cv2.line(img, (pad, y0), (pad + size, y0), grey, 1)
        cv2.putText(img, f"{tick:g}", (x0 - 14, pad + size + 22), 0, 0.45, black, 1, cv2.LINE_AA)
        cv2.putText(img, f"{tick:g}", (8, y0 + 5), 0, 0.45, black, 1, cv2.LINE_AA)
    cv2.rectangle(img, (pad, pad), (pad + size, pad + size), black, 1)
    cv2.line(img, xy(lo, lo), xy(1, 1), (160, 160, 160), 1, cv2.LINE_AA)
    points = []
    for b in report["reliability"]:
        centre = xy(b["mean_p"], b["wrong_rate"])
        radius = int(4 + 3 * np.log10(b["cells"] + 1))
        filled = -1 if b["wrong_rate"] > 0 else 2  # hollow: no wrong cell in the bin
        cv2.circle(img, centre, radius, (40, 90, 200), filled, cv2.LINE_AA)
        cv2.putText(img, str(b["cells"]), (centre[0] + radius + 2, centre[1] + 4), 0, 0.4,
                    (40, 90, 200), 1, cv2.LINE_AA)  # fmt: skip
        points.append(centre)
    for a, b in zip(points, points[1:], strict=False):
        cv2.line(img, a, b, (40, 90, 200), 1, cv2.LINE_AA)
    tx, _ = xy(report["threshold"], lo)
    cv2.line(img, (tx, pad), (tx, pad + size), (30, 160, 60), 2)
    cv2.putText(img, "check", (tx + 4, pad + 16), 0, 0.5, (30, 160, 60), 1, cv2.LINE_AA)
    cv2.putText(img, title, (pad, 30), 0, 0.55, black, 1, cv2.LINE_AA)
    note = "dot = bin of cells (count); hollow = no wrong cell in the bin (drawn at 0.001)"
    cv2.putText(img, note, (pad, 52), 0, 0.42, (90, 90, 90), 1, cv2.LINE_AA)
    cv2.putText(img, "predicted P(wrong) per bin (log)", (pad + 120, pad + size + 50), 0, 0.5,
                black, 1, cv2.LINE_AA)  # fmt: skip
    label = np.full((24, 300, 3), 255, np.uint8)
    cv2.putText(label, "observed wrong rate (log)", (4, 17), 0, 0.5, black, 1, cv2.LINE_AA)
    label = np.rot90(label).copy()
    img[pad + 100 : pad + 400, 30:54] = label
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), img[..., ::-1])


def _save_cells(cells: dict, path: Path) -> None:
    np.savez_compressed(path, **{k: v for k, v in cells.items() if k != "scenes"},
                        scenes=json.dumps(cells["scenes"]))  # fmt: skip


def _load_cells(path: Path) -> dict:
    """Cells cached by an earlier run; the board features are derived again from the cell ones
    (so a cache made before a board feature was added still serves)."""
    with np.load(path, allow_pickle=False) as data:
        out = {k: data[k] for k in data.files}
    out["scenes"] = json.loads(str(out["scenes"]))
    out["model_id"] = str(out["model_id"])
    if "cell_checks" not in out:  # collected before the read's own checks were kept
        out["cell_checks"] = np.zeros(len(out["right"]), bool)
    base = out["features"][:, :CELL_FEATURES]
    full = np.zeros((len(base), len(FEATURES)), np.float32)
    for scene in np.unique(out["scene"]):
        members = out["scene"] == scene
        full[members] = board_features(base[members])
    out["features"] = full
    return out


def merge(parts: list[dict]) -> dict:
    """Several collected sets as one (scene numbers kept apart)."""
    out = {"scenes": [], "model_id": parts[0]["model_id"]}
    offset = 0
    for part in parts:
        if part["model_id"] != out["model_id"]:
            raise ValueError("cells collected with different embedders")
        for key in ("features", "right", "labels", "read_flag_other", "cell_checks"):
            out.setdefault(key, []).append(part[key])
        out.setdefault("scene", []).append(part["scene"] + offset)
        out["scenes"] += [{**s, "index": s["index"] + offset} for s in part["scenes"]]
        offset += len(part["scenes"]) + 1
    for key in ("features", "right", "labels", "read_flag_other", "cell_checks", "scene"):
        out[key] = np.concatenate(out[key])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--fit",
        nargs="+",
        default=[f"{a}:{b}" for a, b in FIT_SETS],
        metavar="SEED:N",
        help="photo sets to fit on",
    )
    parser.add_argument(
        "--test",
        nargs="+",
        default=[f"{a}:{b}" for a, b in TEST_SETS],
        metavar="SEED:N",
        help="photo sets to measure on",
    )
    parser.add_argument("--model", default=None, help="embedder .onnx (default: the shipped one)")
    parser.add_argument("--out", default=str(model_files(READER_MODEL).confidence))
    parser.add_argument("--plot", default="docs/confidence_reliability.png")
    parser.add_argument(
        "--cells-dir",
        default="/tmp/confidence_cells",
        help="where the collected cells are cached (.npz per set)",
    )
    parser.add_argument("--reuse", action="store_true", help="reuse cached cells if present")
    args = parser.parse_args(argv)
    cache = Path(args.cells_dir)
    cache.mkdir(parents=True, exist_ok=True)
    sets = {}
    for name, specs in (("fit", args.fit), ("test", args.test)):
        parts = []
        for spec in specs:
            seed, n = (int(v) for v in spec.split(":"))
            path = cache / f"{name}_{seed}_{n}.npz"
            if args.reuse and path.is_file():
                parts.append(_load_cells(path))
            else:
                cells = collect(seed, n, model_path=args.model)
                _save_cells(cells, path)
                parts.append(_load_cells(path))
        sets[name] = merge(parts)
    model = fit(sets["fit"])
    report = {
        "fit": measure(model, sets["fit"]),
        "test": measure(model, sets["test"]),
        "threshold": model.threshold,
        "sets": {"fit": args.fit, "test": args.test},
    }
    out = {**model.to_json(), "target_recall_on_fit": TARGET_RECALL,
           "measured": {k: {kk: vv for kk, vv in v.items() if kk != "reliability"}
                        for k, v in report.items() if k in ("fit", "test")}}  # fmt: skip
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    t = report["test"]
    reliability_plot(
        {**t, "threshold": model.threshold},
        Path(args.plot),
        f"test photos ({' '.join(args.test)}): {t['cells']} cells, {t['wrong_cells']} wrong; "
        f"flagged {100 * (t['wrong_flagged'] or 0):.1f} % wrong / "
        f"{100 * (t['right_flagged'] or 0):.1f} % right",
    )
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
