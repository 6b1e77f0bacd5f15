"""``train``: the embedder's training recipe (``models/train_embedder.py``; needs the train extra).

torch is imported only when the command runs, so the app and every other command work without
it; without torch the command says so in one line.
"""

from __future__ import annotations

import argparse
import importlib

from vision.models import DEFAULT_MODEL, model_files


class TrainExtraMissing(OSError):
    """torch (the ``train`` extra) is not installed."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``train`` sub-command (its options are the recipe's)."""
    parser = subparsers.add_parser(
        "train",
        help="train the card embedder, export ONNX, rebuild the stand-in gallery (torch)",
    )
    parser.add_argument(
        "--out",
        default=str(model_files(DEFAULT_MODEL).folder),
        help="model folder to write (default: the first embedder's, models/card_embedder_v1)",
    )
    parser.add_argument("--seed", type=int, default=20261129, help="seed of everything")
    parser.add_argument("--designs", type=int, default=2500, help="random card designs")
    parser.add_argument("--steps", type=int, default=3600, help="optimiser steps")
    parser.add_argument("--batch", type=int, default=128, help="crops per step")
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (1 is fastest on a busy machine)"
    )
    parser.add_argument("--workers", type=int, default=1, help="crop-rendering processes")
    parser.set_defaults(func=run_train)


def run_train(args: argparse.Namespace) -> int:
    try:
        import torch  # noqa: F401  (the train extra)
    except ImportError:
        raise TrainExtraMissing(
            "training needs torch: install the train extra (pip install -e '.[train]')"
        ) from None
    recipe = importlib.import_module("models.train_embedder")
    return int(recipe.run(args))
