"""The Nimalia square embedder, its galleries and its training recipe (issue 15)."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.nimalia.cards import SQUARE_KINDS
from vision.embedder import CardEmbedder
from vision.nimalia.deck import PAINTED, STAND_IN, VARIANT, draw_square, random_style
from vision.nimalia.reader import (
    CLASSES,
    NimaliaPackError,
    ReserveReader,
    SquareGallery,
    load_gallery,
)
from vision.nimalia.squares import PAIR, SQUARE_MODEL, PairedEmbedder, square_embedder


def test_the_square_embedder_loads_and_embeds_on_cpu():
    assert SQUARE_MODEL.stat().st_size < 10 * 2**20
    emb = CardEmbedder(SQUARE_MODEL)
    crops = np.random.default_rng(0).integers(0, 256, (5, 64, 64, 3), dtype=np.uint8)
    z = emb.embed(crops)
    assert z.shape == (5, emb.embedding_dim) and z.dtype == np.float32
    assert np.allclose(np.linalg.norm(z, axis=1), 1.0, atol=1e-4)
    assert emb.input_size == (40, 40)


def test_the_reader_embeds_with_the_pair_of_embedders():
    emb = square_embedder()
    crops = np.random.default_rng(1).integers(0, 256, (3, 64, 64, 3), dtype=np.uint8)
    z = emb.embed(crops)
    assert z.shape == (3, emb.embedding_dim) and emb.embedding_dim == sum(
        CardEmbedder(path).embedding_dim for path, _ in PAIR
    )
    assert np.allclose(np.linalg.norm(z, axis=1), 1.0, atol=1e-4)
    # the id names the parts and their weights: another weighting is another model
    assert emb.model_id == square_embedder().model_id
    if isinstance(emb, PairedEmbedder):
        other = PairedEmbedder(emb.parts, [1.0, 1.0 + emb.weights[1]])
        assert other.model_id != emb.model_id


def test_the_shipped_gallery_is_tagged_with_the_square_embedder():
    assert load_gallery(None).model_id == square_embedder().model_id
    ReserveReader()  # checks the tag


def test_a_gallery_made_with_another_embedder_is_refused_with_one_clear_error(tmp_path):
    old = load_gallery(None)
    stale = SquareGallery(old.embeddings, old.classes, "0123456789abcdef", "old", *old_head(old))
    pack = tmp_path / "pack"
    pack.mkdir()
    stale.save(pack / "gallery.npz")
    with pytest.raises(NimaliaPackError) as err:
        ReserveReader(pack)
    msg = str(err.value)
    assert "\n" not in msg and "another square embedder" in msg and "nimalia enroll" in msg
    assert str(pack / "gallery.npz") in msg


def old_head(g: SquareGallery):
    return g.head_w, g.head_b


def test_random_decks_are_deterministic_and_never_the_variant():
    a, b = random_style(3), random_style(3)
    assert a == b and a != random_style(4)
    for seed in range(20):
        style = random_style(seed)
        assert not set(style.texture.values()) & set(VARIANT.texture.values())
        assert not set(style.texture.values()) & set(PAINTED.texture.values())
        assert style.name.startswith("random-")
    for token in SQUARE_KINDS:
        img = draw_square(token, 48, a, seed=1)
        assert img.shape == (48, 48, 3)
        assert np.array_equal(img, draw_square(token, 48, b, seed=1))
    # the stand-in and variant looks are untouched by the random-deck machinery
    assert STAND_IN.pictograms == {} and VARIANT.pictograms == {}


def test_a_training_step_runs_and_exports(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from models import train_nimalia_squares as train

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    deck = train.Deck(random_style(0), px_per_mm=1.0)
    crops, labels = train.make_batch(deck, rng, 4, 2, train.Tables(rng, n=3, side=320))
    assert crops.shape == (8, 64, 64, 3) and CLASSES.index(".") in labels
    model = train.SquareNet()
    loss = train.supcon(
        model(torch.from_numpy(train.to_input(crops))), torch.from_numpy(labels), 0.1
    )
    loss.backward()
    assert np.isfinite(float(loss.detach()))
    path = train.export(model, tmp_path, {"smoke": True})
    z = CardEmbedder(path).embed(crops)
    with torch.no_grad():
        ref = model.eval()(torch.from_numpy(train.to_input(crops))).numpy()
    assert np.allclose(z, ref, atol=1e-4)
