"""vision.reptile_tank.off_place: a card laid off its place, read as the table, is looked for
around its cell, read where it lies and flagged; a cell that looks like the table stays so."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from scoring.reptile_tank.cards import EMPTY
from vision.reptile_tank import off_place
from vision.reptile_tank.grid import fit_from_corners, rectify_cells, shifted_cell_crops
from vision.reptile_tank.synth.deck import stand_in_deck

LABELS = ("corn_snake", "rosy_boa", EMPTY)


def _reads(cells):
    """CellReads-like: ``cells`` rows of (label, score)."""
    return SimpleNamespace(
        cells=[[SimpleNamespace(label=lab, score=s) for lab, s in row] for row in cells]
    )


def _stubs(card_at: dict, neighbour_scores: dict | None = None):
    """Shifted crops that carry (row, col, move index) in their pixels; scores that show a face
    only where ``card_at[(row, col)] = (move index, label, score)`` says; a namer that reads a
    crop carrying a found move as that face and any other as the table."""
    looked = []

    def shifted(r, c, moves):
        looked.append((r, c))
        out = np.zeros((len(moves), 4, 4, 3), np.uint8)
        for k in range(len(moves)):
            out[k, 0, 0] = (r + 1, c + 1, k + 1)
        return out

    def scores(trial):
        table = np.zeros((len(trial), len(LABELS)), np.float32)
        for k, crop in enumerate(trial):
            r, c = int(crop[0, 0, 0]) - 1, int(crop[0, 0, 1]) - 1
            table[k, LABELS.index(EMPTY)] = 0.9
            move, label, score = card_at.get((r, c), (None, None, None))
            if move == k:
                table[k, LABELS.index(label)] = score
                table[k, LABELS.index(EMPTY)] = 0.3
        return LABELS, table

    def classify(crops):
        rows, cols = crops.shape[:2]
        cells = []
        for r in range(rows):
            row = []
            for c in range(cols):
                tag = crops[r, c, 0, 0]
                found = card_at.get((r, c))
                if tag[2] and found and int(tag[2]) - 1 == found[0]:
                    row.append((found[1], found[2]))
                else:
                    row.append(original[r][c])
            cells.append(row)
        return _reads(cells)

    original: list = []
    return shifted, scores, classify, looked, original


def _run(cells, card_at, card_match=0.7):
    shifted, scores, classify, looked, original = _stubs(card_at)
    original.extend(cells)
    crops = np.zeros((len(cells), len(cells[0]), 4, 4, 3), np.uint8)
    out = off_place.cards_off_their_place(
        crops, _reads(cells), shifted, scores, classify, card_match
    )
    return (*out, looked)


def test_a_card_read_weakly_as_the_table_is_read_where_it_lies():
    cells = [[("corn_snake", 0.95), (EMPTY, 0.6), (EMPTY, 1.0)]]
    move = off_place.SHIFTS.index((0.0, 0.2))  # the card lies a fifth of a card lower
    crops, reads, found, looked = _run(cells, {(0, 1): (move, "rosy_boa", 0.9)})
    assert looked == [(0, 1)]  # the confident table (0, 2) and the card are not looked at
    assert found.looked_at.tolist() == [[False, True, False]]
    assert found.found.tolist() == [[False, True, False]]
    assert found.shifts == {(0, 1): (0.0, 0.2)}
    assert reads.cells[0][1].label == "rosy_boa"
    assert crops[0, 1, 0, 0, 2] == move + 1  # the crop is the one it was found in


def test_a_weak_table_with_no_card_around_it_stays_the_table():
    cells = [[("corn_snake", 0.95), (EMPTY, 0.6)]]
    crops, reads, found, looked = _run(cells, {})
    assert looked == [(0, 1)]
    assert not found.found.any()
    assert reads.cells[0][1].label == EMPTY


def test_a_face_under_the_card_match_or_the_neighbour_itself_is_not_taken():
    weak = [[(EMPTY, 0.6), ("corn_snake", 0.95)]]
    right = off_place.SHIFTS.index((0.3, 0.0))  # onto the neighbour on the right
    _, reads, found, _ = _run(weak, {(0, 0): (right, "corn_snake", 0.9)})
    assert not found.found.any() and reads.cells[0][0].label == EMPTY
    below = off_place.SHIFTS.index((0.0, 0.2))
    _, _, found, _ = _run(weak, {(0, 0): (below, "rosy_boa", 0.65)}, card_match=0.7)
    assert not found.found.any()
    _, _, found, _ = _run(weak, {(0, 0): (below, "rosy_boa", 0.75)}, card_match=0.7)
    assert found.found.tolist() == [[True, False]]


# ------------------------------------------------------------------ a photo, read end to end

PX_PER_MM = 4.0
GAP_MM = 4.0
MARGIN_PX = 120


def _board_photo(shift_mm: tuple[float, float]):
    """A full stand-in board on green felt, seen from straight above at 4 px/mm, the card of
    cell (3, 4) laid ``shift_mm`` off its place; its corners and rows."""
    deck = stand_in_deck(px_per_mm=PX_PER_MM)
    labels = [lab for lab in deck if lab != "water"]
    rows = [[labels[(r * 5 + c) % len(labels)] for c in range(5)] for r in range(4)]
    w_mm, h_mm = 5 * 63 + 4 * GAP_MM, 4 * 88 + 3 * GAP_MM
    width = int(w_mm * PX_PER_MM) + 2 * MARGIN_PX + 200
    height = int(h_mm * PX_PER_MM) + 2 * MARGIN_PX + 200
    photo = np.zeros((height, width, 3), np.uint8)
    photo[:] = (40, 105, 60)
    noise = np.random.default_rng(5).normal(0, 6, photo.shape)
    photo = np.clip(photo + noise, 0, 255).astype(np.uint8)
    for r in range(4):
        for c in range(5):
            x = MARGIN_PX + c * (63 + GAP_MM) * PX_PER_MM
            y = MARGIN_PX + r * (88 + GAP_MM) * PX_PER_MM
            if (r, c) == (3, 4):
                x += shift_mm[0] * PX_PER_MM
                y += shift_mm[1] * PX_PER_MM
            face = cv2.resize(deck[rows[r][c]], (int(63 * PX_PER_MM), int(88 * PX_PER_MM)))
            photo[int(y) : int(y) + face.shape[0], int(x) : int(x) + face.shape[1]] = face
    corners = np.array(
        [
            [MARGIN_PX, MARGIN_PX],
            [MARGIN_PX + w_mm * PX_PER_MM, MARGIN_PX],
            [MARGIN_PX + w_mm * PX_PER_MM, MARGIN_PX + h_mm * PX_PER_MM],
            [MARGIN_PX, MARGIN_PX + h_mm * PX_PER_MM],
        ]
    )
    return photo, corners, rows


def test_a_moved_crop_of_no_move_is_the_cell_itself():
    photo, corners, _ = _board_photo((0.0, 0.0))
    fit = fit_from_corners(photo.shape, corners, gap_mm=GAP_MM)
    crops = rectify_cells(photo, fit, cell_size=(63, 88))
    moved = shifted_cell_crops(photo, fit, 2, 3, [(0.0, 0.0), (0.3, 0.0)], cell_size=(63, 88))
    assert np.array_equal(moved[0], crops[2, 3])
    # a third of a card to the right: the crop's left part is the cell's right part
    assert np.abs(moved[1][:, :30].astype(int) - crops[2, 3][:, 19:49].astype(int)).mean() < 6


@pytest.fixture(scope="module")
def reader():
    from vision.reptile_tank.reader import TerrariumReader

    return TerrariumReader()


@pytest.mark.slow
def test_a_card_laid_a_third_of_a_card_off_its_place_is_read_and_flagged(reader):
    photo, corners, rows = _board_photo((24.0, 0.0))
    data = cv2.imencode(".png", cv2.cvtColor(photo, cv2.COLOR_RGB2BGR))[1].tobytes()
    scale = reader.load(data).scale  # corners are given in the loaded image's pixels
    reader.look_beside_places = False
    before = reader.read(data, corners=corners * scale)
    reader.look_beside_places = True
    after = reader.read(data, corners=corners * scale)
    assert before.rows[3][4] == EMPTY  # the lattice's crop shows mostly felt
    assert after.rows[3][4] == rows[3][4]
    assert bool(np.asarray(after.check)[3, 4])
    assert any("beside their place" in reason for reason in after.check_reasons)
    # every other cell read as before
    assert [row[:4] for row in after.rows] == [row[:4] for row in before.rows]


def test_a_face_the_boards_naming_does_not_give_the_cell_leaves_it_as_read():
    # the deck's limits (or the star cards out of the game) name the moved crop otherwise
    cells = [[("corn_snake", 0.95), (EMPTY, 0.6)]]
    below = off_place.SHIFTS.index((0.0, 0.2))
    shifted, scores, classify, _, original = _stubs({(0, 1): (below, "rosy_boa", 0.9)})
    original.extend(cells)

    def elsewise(crops):
        reads = classify(crops)
        reads.cells[0][1] = SimpleNamespace(label="corn_snake", score=0.5)
        return reads

    crops = np.zeros((1, 2, 4, 4, 3), np.uint8)
    new_crops, reads, found = off_place.cards_off_their_place(
        crops, _reads(cells), shifted, scores, elsewise, 0.7
    )
    assert not found.found.any() and found.shifts == {}
    assert reads.cells[0][1].label == EMPTY and new_crops is crops
