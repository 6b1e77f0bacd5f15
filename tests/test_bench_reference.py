"""``reptile-tank bench --reference-model`` with a deck pack: the reference reads the pack's own
faces (hidden-card checks, fine comparison, the look past a hand) and leaves the pack alone."""

from __future__ import annotations

import hashlib

import numpy as np

from reptile_tank.commands.bench import _reference_reader
from vision.embedder import CardEmbedder
from vision.models import READER_MODEL, model_files
from vision.reptile_tank.gallery import DeckPack
from vision.reptile_tank.lookalike import family_deck


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_reference_reader_reads_the_packs_faces_and_leaves_the_pack_alone(tmp_path):
    deck = dict(family_deck(np.random.default_rng(4), px_per_mm=2.0))
    pack = tmp_path / "pack"
    DeckPack.create(
        pack, deck, CardEmbedder(model_files(READER_MODEL).onnx), np.random.default_rng(0)
    )
    before = _digest(pack / "gallery.npz")
    reference = _reference_reader(str(model_files("card_embedder_v1").folder), str(pack), {})
    assert reference.pack is not None
    assert reference.embedder.model_id != CardEmbedder(model_files(READER_MODEL).onnx).model_id
    assert reference.gallery.model_id == reference.embedder.model_id
    faces = reference._deck_faces()
    assert sorted(faces) == sorted(deck)
    assert all(np.array_equal(faces[k], DeckPack.load(pack).faces[k]) for k in faces)
    assert _digest(pack / "gallery.npz") == before  # the player's pack is untouched
