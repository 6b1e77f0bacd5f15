"""The Nimalia square embedder: which network turns a square crop into an embedding.

``models/nimalia_square_embedder/model.onnx`` (recipe: ``models/train_nimalia_squares.py``) is a
small CNN trained with a supervised contrastive loss on square crops of **randomly drawn decks**
(:func:`vision.nimalia.deck.random_style`), so that it compares looks rather than remembering one
deck's art; the reader's galleries (stand-in deck, or a deck enrolled from one image per card)
are built with it, and a gallery built with another embedder is refused
(:meth:`vision.nimalia.reader.SquareGallery.check_model`). It runs on onnxruntime (CPU) through
:class:`vision.embedder.CardEmbedder`, whose metadata file says its 40 x 40 input; the reader's
64 x 64 crops are area-resized to it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from vision.embedder import DEFAULT_MODEL, CardEmbedder
from vision.models import model_files

#: The square embedder's model folder (``models/nimalia_square_embedder/``).
SQUARE_MODEL_NAME = "nimalia_square_embedder"
SQUARE_MODEL = model_files(SQUARE_MODEL_NAME).onnx
#: What the reader embeds a square with: the card embedder (``models/card_embedder_v1/``) and
#: the square embedder side by side, the square embedder weighted 0.7 (chosen on dev and fresh
#: stand-in/variant seeds, BENCHMARKS.md "Nimalia from a photo").
PAIR: tuple[tuple[Path, float], ...] = ((DEFAULT_MODEL, 1.0), (SQUARE_MODEL, 0.7))


def square_embedder(threads: int = 1) -> CardEmbedder | PairedEmbedder:
    """The embedder the Nimalia reader and enrolment use (:data:`PAIR`)."""
    parts = [CardEmbedder(path, threads=threads) for path, _ in PAIR]
    if len(parts) == 1 and PAIR[0][1] == 1.0:
        return parts[0]
    return PairedEmbedder(parts, [w for _, w in PAIR])


class PairedEmbedder:
    """Two embedders side by side: a crop's embedding is their unit embeddings, weighted,
    concatenated and renormalised (cosine = weighted mean of the two cosines). The square
    embedder alone misses looks its random decks never drew; the card embedder alone cannot
    tell some kinds apart (lion / giraffe, table / savannah); together they err less than either.
    Duck-types :class:`vision.embedder.CardEmbedder` (``embed``, ``model_id``,
    ``embedding_dim``)."""

    def __init__(self, parts: list[CardEmbedder], weights: list[float]) -> None:
        self.parts, self.weights = parts, [float(w) for w in weights]
        tag = ",".join(f"{p.model_id}*{w:g}" for p, w in zip(parts, self.weights, strict=True))
        self.model_id = hashlib.sha256(tag.encode()).hexdigest()[:16]
        self.embedding_dim = sum(p.embedding_dim for p in parts)
        self._norm = float(sum(w * w for w in self.weights)) ** 0.5

    def embed(self, crops: np.ndarray) -> np.ndarray:
        zs = [w * p.embed(crops) for p, w in zip(self.parts, self.weights, strict=True)]
        return (np.concatenate(zs, 1) / self._norm).astype(np.float32)


__all__ = ["PAIR", "SQUARE_MODEL", "PairedEmbedder", "square_embedder"]
