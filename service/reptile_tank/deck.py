"""Reptile Tank's deck packs, for the command line (``reptile-tank enroll``) and the app (the
deck page): one way to build a pack, embedded with the model the reader reads with (so a pack
is never re-embedded when the reader loads it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np


def reader_embedder() -> Any:
    """The embedder :class:`vision.reptile_tank.reader.TerrariumReader` reads with
    (``READER_MODEL``); ``OSError`` when the model file is missing."""
    from vision.reptile_tank.classifier import READER_MODEL, CardEmbedder

    return CardEmbedder(READER_MODEL)


def create_pack(
    path: str | Path,
    faces: Mapping[str, np.ndarray],
    *,
    views: Mapping[str, Sequence[np.ndarray]] | None = None,
    seed: int = 0,
    name: str | None = None,
    embedder: Any = None,
) -> tuple[Any, int]:
    """Write a deck pack at ``path`` from one upright ``(H, W, 3)`` uint8 RGB image per face,
    plus extra views of some cards (``views``: card id -> images, e.g. from layout photos).

    Returns ``(pack, extra views added)``; ``vision.reptile_tank.gallery.PackError`` (a
    ``ValueError``) when a face is missing or unknown.
    """
    from vision.reptile_tank.gallery import DeckPack, to_face_size

    embedder = embedder if embedder is not None else reader_embedder()
    pack = DeckPack.create(path, dict(faces), embedder, np.random.default_rng(seed), name=name)
    added = 0
    for label, crops in (views or {}).items():
        if len(crops):
            pack.add_examples(label, np.stack([to_face_size(c) for c in crops]), embedder)
            added += len(crops)
    return pack, added
