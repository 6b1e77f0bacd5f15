"""The card embedder, galleries, the constrained assignment, orientation and the reader façade.

Every test that needs the model runs the real shipped ONNX network and the shipped stand-in
gallery; randomness is seeded.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from scoring.reptile_tank.cards import CARD_IDS, EMPTY, FACE_LABELS, WATER
from scoring.reptile_tank.rules import default_layout, default_rules
from vision.reptile_tank.augment import card_view, empty_view
from vision.reptile_tank.classifier import (
    CardEmbedder,
    classify_cells,
    constrained_labels,
    hungarian,
)
from vision.reptile_tank.gallery import DeckPack, Gallery, PackError, load_gallery
from vision.reptile_tank.orientation import turn_crops, turn_reads, vote_orientation

ROWS, COLS = default_layout().shape
STAR_CARDS = default_rules().star_cards

SAMPLES = Path(__file__).resolve().parents[3] / "reptile_tank" / "samples"


@pytest.fixture(scope="module")
def embedder() -> CardEmbedder:
    return CardEmbedder(threads=1)


@pytest.fixture(scope="module")
def gallery(embedder) -> Gallery:
    return load_gallery(None, embedder)


@pytest.fixture(scope="module")
def faces() -> dict[str, np.ndarray]:
    from vision.reptile_tank.synth.deck import stand_in_deck

    return {k: np.asarray(v) for k, v in stand_in_deck(px_per_mm=2.0).items()}


def board_crops(rows, faces, size, rng, *, strength=0.3) -> np.ndarray:
    """(4, 5, H, W, 3) crops of an upright board drawn through the augmentation."""
    others = list(faces.values())
    out = np.empty((ROWS, COLS, size[1], size[0], 3), np.uint8)
    for r, c in itertools.product(range(ROWS), range(COLS)):
        label = rows[r][c]
        if label == EMPTY:
            out[r, c] = empty_view(rng, out_size=size, others=others, strength=strength)
        else:
            out[r, c] = card_view(faces[label], rng, out_size=size, strength=strength)
    return out


BOARD = [
    ["blue_tongued_skink", "blue_tongued_skink", "blue_tongued_skink", "rock", "water"],
    ["golden_pothos", "corn_snake", "three_toed_box_turtle", "hollow_log", "common_box_turtle"],
    ["scarlet_star", "rosy_boa", "neon_day_gecko", "dubia_roach", "silver_inch_plant"],
    ["brown_anole", "ringneck_snake", "red_footed_tortoise", "water", EMPTY],
]


# ----------------------------------------------------------------------- the assignment


def test_hungarian_matches_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(30):
        n, m = int(rng.integers(1, 5)), int(rng.integers(5, 7))
        cost = rng.normal(size=(n, m))
        chosen = hungarian(cost)
        assert len(set(chosen.tolist())) == n
        best = min(
            sum(cost[i, p[i]] for i in range(n)) for p in itertools.permutations(range(m), n)
        )
        assert cost[np.arange(n), chosen].sum() == pytest.approx(best)


def test_constrained_labels_keeps_best_reads_when_feasible():
    rng = np.random.default_rng(4)
    scores = rng.uniform(size=(20, 17))
    labels = (*FACE_LABELS, EMPTY)
    chosen = constrained_labels(scores, labels, {card: 8 for card in CARD_IDS})
    assert np.array_equal(chosen, scores.argmax(axis=1))


def test_constrained_labels_respects_copy_counts():
    labels = (*FACE_LABELS, EMPTY)
    corn, rosy = labels.index("corn_snake"), labels.index("rosy_boa")
    scores = np.full((20, len(labels)), 0.1)
    # 11 cells look most like a corn snake, with decreasing confidence; each has rosy boa second
    for i in range(11):
        scores[i, corn] = 0.9 - 0.01 * i
        scores[i, rosy] = 0.5
    for i in range(11, 20):
        scores[i, labels.index(WATER)] = 0.8
    chosen = constrained_labels(scores, labels, {"corn_snake": 8, "rosy_boa": 8})
    names = [labels[k] for k in chosen]
    assert names.count("corn_snake") == 8
    assert names[:8] == ["corn_snake"] * 8  # the most confident keep their read
    assert names[8:11] == ["rosy_boa"] * 3
    assert names[11:] == [WATER] * 9


def test_constrained_labels_refuses_impossible_capacity():
    labels = ("a", "b")
    with pytest.raises(ValueError, match="copy counts"):
        constrained_labels(np.zeros((20, 2)), labels, {"a": 5, "b": 5})


# ----------------------------------------------------------------------- the embedder


def test_embedder_reads_its_metadata_and_normalises(embedder):
    meta = json.loads(embedder.path.with_suffix(".json").read_text())
    assert embedder.input_size == (meta["input"]["width"], meta["input"]["height"])
    crops = np.random.default_rng(0).integers(0, 256, size=(5, 70, 50, 3), dtype=np.uint8)
    vectors = embedder.embed(crops)
    assert vectors.shape == (5, meta["embedding_dim"])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_shipped_model_is_small_and_gallery_matches(embedder, gallery):
    assert embedder.path.stat().st_size <= 5 * 1024 * 1024
    assert gallery.model_id == embedder.model_id
    assert set(gallery.labels) == {*FACE_LABELS, EMPTY}


def test_classify_cells_names_a_whole_board(embedder, gallery, faces):
    crops = board_crops(BOARD, faces, embedder.input_size, np.random.default_rng(11))
    reads = classify_cells(crops, embedder, gallery)
    assert reads.rows() == BOARD
    assert all(cell.rotation == 0 for row in reads.cells for cell in row if cell.label != EMPTY)
    assert all(cell.confidence > 0 for row in reads.cells for cell in row)


def test_star_cards_removed_are_never_read(embedder, gallery, faces):
    crops = board_crops(BOARD, faces, embedder.input_size, np.random.default_rng(12))
    reads = classify_cells(crops, embedder, gallery, star_cards_removed=True)
    labels = {label for row in reads.rows() for label in row}
    assert not labels & set(STAR_CARDS)
    # every other cell is unchanged
    for r, c in itertools.product(range(ROWS), range(COLS)):
        if BOARD[r][c] not in STAR_CARDS:
            assert reads.cells[r][c].label == BOARD[r][c]
        else:
            assert reads.cells[r][c].confidence < 0  # overridden, so flagged


def test_classify_cells_checks_shape(embedder, gallery):
    with pytest.raises(ValueError, match="crops must be"):
        classify_cells(np.zeros((20, 64, 48, 3), np.uint8), embedder, gallery)
    with pytest.raises(ValueError, match="crops must be"):
        classify_cells(np.zeros((4, 5, 64, 48), np.uint8), embedder, gallery)


def test_classify_cells_takes_any_layout(embedder, gallery, faces):
    """The grid's shape comes from the crops (the layout is a value), not from constants."""
    crops = board_crops(BOARD, faces, embedder.input_size, np.random.default_rng(13))[:3, :2]
    reads = classify_cells(crops, embedder, gallery)
    assert len(reads.cells) == 3 and all(len(row) == 2 for row in reads.cells)
    assert reads.label_scores.shape[:2] == (3, 2)


# ----------------------------------------------------------------------- orientation


def test_board_turned_180_reads_the_same_upright_board(embedder, gallery, faces):
    crops = board_crops(BOARD, faces, embedder.input_size, np.random.default_rng(13))
    turned = turn_crops(crops)  # the photo taken from the other side of the table
    reads = classify_cells(turned, embedder, gallery)
    orientation = vote_orientation(reads)
    assert orientation.rotation == 180 and not orientation.ambiguous
    assert orientation.votes_turned > 10
    assert turn_reads(reads).rows() == BOARD


def test_all_water_board_is_ambiguous(embedder, gallery, faces):
    rows = [[WATER] * COLS for _ in range(ROWS)]
    rows[1][2] = EMPTY
    crops = board_crops(rows, faces, embedder.input_size, np.random.default_rng(14))
    reads = classify_cells(crops, embedder, gallery)
    assert reads.rows() == rows
    orientation = vote_orientation(reads)
    assert orientation.ambiguous and orientation.rotation == 0


# ----------------------------------------------------------------------- galleries and packs


def test_gallery_save_load_round_trip(tmp_path, embedder, gallery):
    path = tmp_path / "g.npz"
    gallery.save(path)
    loaded = Gallery.load(path)
    assert loaded.labels == gallery.labels
    assert loaded.model_id == gallery.model_id
    assert np.array_equal(loaded.prototype_rotations, gallery.prototype_rotations)
    assert np.allclose(loaded.embeddings, gallery.embeddings, atol=2e-3)


def test_gallery_from_another_model_is_refused(embedder, gallery):
    other = Gallery(gallery.embeddings, gallery.prototype_labels, gallery.prototype_rotations, "x")
    with pytest.raises(PackError, match="rebuild it"):
        other.check_model(embedder)


def test_add_examples_adds_both_rotations(embedder, gallery, faces):
    copy = Gallery(
        gallery.embeddings, gallery.prototype_labels, gallery.prototype_rotations, gallery.model_id
    )
    crop = card_view(faces["rock"], np.random.default_rng(5), out_size=embedder.input_size)
    copy.add_examples("rock", crop[None], embedder)
    assert len(copy.embeddings) == len(gallery.embeddings) + 2
    assert copy.prototype_labels[-2:].tolist() == ["rock", "rock"]
    assert copy.prototype_rotations[-2:].tolist() == [0, 180]
    with pytest.raises(PackError, match="unknown label"):
        copy.add_examples("dragon", crop[None], embedder)


@pytest.mark.slow
def test_deck_pack_create_load_and_correct(tmp_path, embedder, faces):
    pack = DeckPack.create(
        tmp_path / "pack", faces, embedder, np.random.default_rng(1), unsure=["rosy_boa"]
    )
    loaded = DeckPack.load(tmp_path / "pack", embedder)
    assert loaded.gallery.model_id == embedder.model_id
    assert pack.unsure == loaded.unsure == ("rosy_boa",)  # the faces to flag reads of
    assert len(loaded.gallery.embeddings) == len(pack.gallery.embeddings)
    crop = card_view(faces["water"], np.random.default_rng(2), out_size=embedder.input_size)
    loaded.add_examples("water", crop[None], embedder)
    again = DeckPack.load(tmp_path / "pack", embedder)
    assert len(again.gallery.embeddings) == len(pack.gallery.embeddings) + 2
    assert len(list((tmp_path / "pack" / "examples" / "water").glob("*.png"))) == 1


def test_deck_pack_needs_every_face(tmp_path, embedder, faces):
    partial = {k: v for k, v in faces.items() if k != "water"}
    with pytest.raises(PackError, match="missing: water"):
        DeckPack.create(tmp_path / "p", partial, embedder, np.random.default_rng(0))
    with pytest.raises(PackError, match="unknown card ids: dragon"):
        DeckPack.create(
            tmp_path / "p", faces, embedder, np.random.default_rng(0), unsure=["dragon"]
        )


# ----------------------------------------------------------------------- the façade on photos


@pytest.fixture(scope="module")
def reader():
    from scoring.reptile_tank.rules import load_rules
    from vision.reptile_tank.reader import TerrariumReader

    rules = load_rules()
    return TerrariumReader(copies={c: rules.cards[c].copies for c in CARD_IDS})


@pytest.mark.parametrize("name", ["sample_1", "sample_2", "sample_3"])
def test_reader_reads_the_sample_photos_exactly(reader, name):
    truth = json.loads((SAMPLES / f"{name}.json").read_text())
    read = reader.read((SAMPLES / f"{name}.jpg").read_bytes())
    assert read.rows == truth["board"]["rows"]
    assert read.crops.shape[:2] == (ROWS, COLS)
    assert set(read.timings_ms) >= {"load", "grid", "rectify", "classify", "orient", "total"}
    # the upright fit's top-left corner is the truth's top-left corner
    corner = read.fit.corners[0] / read.scale
    diagonal = np.linalg.norm(np.subtract(truth["grid_corners"][2], truth["grid_corners"][0]))
    assert np.linalg.norm(corner - truth["grid_corners"][0]) < 0.05 * diagonal


def test_reader_with_user_corners(reader):
    truth = json.loads((SAMPLES / "sample_1.json").read_text())
    data = (SAMPLES / "sample_1.jpg").read_bytes()
    scale = reader.load(data).scale
    corners = np.asarray(truth["grid_corners"]) * scale
    read = reader.read(data, corners=corners[[2, 0, 3, 1]])  # any order
    assert read.fit.method == "corners"
    assert read.rows == truth["board"]["rows"]


def test_small_photo_view_is_softer_and_keeps_its_shape(faces):
    import cv2

    from vision.reptile_tank.augment import small_photo

    clean = card_view(faces["rock"], np.random.default_rng(3), out_size=(48, 64), strength=0.0)
    small = small_photo(np.random.default_rng(4), clean, 0.0, width_px=(20.0, 20.0))
    assert small.shape == clean.shape and small.dtype == np.uint8

    def sharpness(image):
        return cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY), cv2.CV_64F).var()

    assert sharpness(small) < 0.7 * sharpness(clean)
    # a card already at the crop's size is left at full resolution
    same = small_photo(np.random.default_rng(4), clean, 0.0, width_px=(60.0, 60.0))
    assert sharpness(same) > 0.7 * sharpness(clean)


def test_enrol_faces_from_images_are_portrait_cards(faces):
    from vision.reptile_tank.enrol import faces_from_images

    landscape = np.ascontiguousarray(np.rot90(faces["rock"]))
    out = faces_from_images({"rock": faces["rock"], "water": landscape})
    assert set(out) == {"rock", "water"}
    assert np.array_equal(out["rock"], faces["rock"])  # a scan with the card's aspect is kept
    assert out["water"].shape[0] > out["water"].shape[1]  # turned portrait


def test_reader_embedder_names_quarter_turned_cards_with_their_turn(faces):
    """The second-generation embedder was trained on 90/270-degree cards: it names them and
    reports the turn (the first saw only 0/180)."""
    from vision.reptile_tank.classifier import READER_MODEL
    from vision.reptile_tank.gallery import load_gallery

    embedder = CardEmbedder(READER_MODEL, threads=1)
    gallery = load_gallery(None, embedder)
    rng = np.random.default_rng(11)
    labels = [lab for lab in FACE_LABELS if lab != WATER]
    crops, truth = [], []
    for k, label in enumerate(labels):
        rotation = (90, 270)[k % 2]
        crops.append(card_view(faces[label], rng, out_size=embedder.input_size, rotation=rotation,
                               strength=0.5))  # fmt: skip
        truth.append((label, rotation))
    scores = gallery.rotation_scores(embedder.embed(np.stack(crops)))
    read = []
    for s in scores:
        best = int(s.max(axis=1).argmax())
        read.append((gallery.labels[best], 90 * int(s[best].argmax())))
    assert sum(r == t for r, t in zip(read, truth, strict=True)) >= len(truth) - 1


def test_reader_embedder_tells_turned_look_alikes_apart():
    """A look-alike deck (one family per category, sharing frame and layout) enrolled from one
    image per face, its cards turned 90/270 degrees at full augmentation: the first embedder
    misreads 6 of these 60 crops, the second 2."""
    from vision.reptile_tank.classifier import READER_MODEL
    from vision.reptile_tank.lookalike import family_deck

    deck = family_deck(np.random.default_rng(9101), px_per_mm=2.0)
    faces = {k: np.asarray(v) for k, v in deck.items()}
    embedder = CardEmbedder(READER_MODEL, threads=1)
    gallery = Gallery.build(embedder, faces, np.random.default_rng(1), views=4, empties=40)
    rng = np.random.default_rng(12)
    labels = [lab for lab in FACE_LABELS if lab != WATER]
    crops, truth = [], []
    for v in range(4):
        for k, label in enumerate(labels):
            rotation = (90, 270)[(k + v) % 2]
            crops.append(card_view(faces[label], rng, out_size=embedder.input_size,
                                   rotation=rotation, strength=1.0))  # fmt: skip
            truth.append(label)
    scores = gallery.rotation_scores(embedder.embed(np.stack(crops)))
    read = [gallery.labels[int(s.max(axis=1).argmax())] for s in scores]
    assert sum(r != t for r, t in zip(read, truth, strict=True)) <= 3
