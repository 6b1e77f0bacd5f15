"""Issue 28 item 4: a lattice that could sit one line either way is never returned silently.

An outer row or column with no card leaves nothing to confirm that side of the grid: the same
cards fit a lattice moved one line over. The reader reads that lattice too; it takes it when its
new line shows cards the first read missed, and otherwise flags the grid as in doubt.
"""

from __future__ import annotations

import numpy as np
import pytest

from scoring.reptile_tank.cards import EMPTY
from vision.reptile_tank.classifier import classify_cells
from vision.reptile_tank.grid import fit_from_corners, rectify_cells
from vision.reptile_tank.grid.model import fit_from_homography
from vision.reptile_tank.reader import TerrariumReader, _empty_edge_lines
from vision.reptile_tank.synth.deck import stand_in_deck
from vision.reptile_tank.synth.scene import encode_jpeg, render_scene

FULL = [
    ["corn_snake", "rock", "water", "dubia_roach", "rosy_boa"],
    ["water", "golden_pothos", "hollow_log", "water", "brown_anole"],
    ["silver_inch_plant", "water", "ringneck_snake", "common_box_turtle", "water"],
    ["red_footed_tortoise", "blue_tongued_skink", "water", "three_toed_box_turtle", "rock"],
]


def _without_column(board, col):
    return [[EMPTY if c == col else label for c, label in enumerate(row)] for row in board]


@pytest.fixture(scope="module")
def reader() -> TerrariumReader:
    return TerrariumReader()


def _scene(board, seed):
    return render_scene(
        seed,
        stand_in_deck(),
        board=board,
        size=(1600, 1200),
        fill=(0.55, 0.7),
        tilt_deg=(0.0, 30.0),
        distractors=False,
    )


def _classifier(reader: TerrariumReader, image: np.ndarray):
    """``classify(fit) -> (crops, reads)`` on ``image``, as the reader's judging reads a fit."""

    def classify(fit):
        crops = rectify_cells(image, fit, cell_size=reader.cell_size)
        return crops, classify_cells(crops, reader.embedder, reader.gallery)

    return classify


def test_shifted_lines_moves_the_lattice_by_whole_cells() -> None:
    corners = np.array([[100.0, 100.0], [600.0, 100.0], [600.0, 500.0], [100.0, 500.0]])
    fit = fit_from_corners((800, 1000), corners)
    moved = fit.shifted_lines(0, 1)
    np.testing.assert_allclose(moved.cell_quads[:, :-1], fit.cell_quads[:, 1:], atol=1e-6)
    down = fit.shifted_lines(1, 0)
    np.testing.assert_allclose(down.cell_quads[:-1], fit.cell_quads[1:], atol=1e-6)
    back = moved.shifted_lines(0, -1)
    np.testing.assert_allclose(back.corners, fit.corners, atol=1e-6)
    assert moved.occupancy[0, -1] == 0.5  # the new line: no opinion
    assert moved.unseen_cells[:, -1].all() and not moved.unseen_cells[:, :-1].any()
    assert not fit.unseen_cells.any()
    # moved back, the line that was new falls out again and the first column is unseen
    assert back.unseen_cells[:, 0].all() and not back.unseen_cells[:, 1:].any()
    turned = moved.rotated_180()
    assert turned.unseen_cells[:, 0].all() and not turned.unseen_cells[:, 1:].any()


def test_a_measured_occupancy_of_one_half_is_not_an_unseen_cell() -> None:
    corners = np.array([[100.0, 100.0], [600.0, 100.0], [600.0, 500.0], [100.0, 500.0]])
    fit = fit_from_corners((800, 1000), corners)
    measured = fit_from_homography(
        fit.homography, fit.gap_mm, method="lattice", occupancy=np.full((4, 5), 0.5)
    )
    assert not measured.unseen_cells.any()  # evidence of exactly 0.5 is still evidence


def test_empty_edge_lines_names_each_empty_outer_line(reader: TerrariumReader) -> None:
    class Reads:
        def __init__(self, rows):
            self._rows = rows

        def rows(self):
            return self._rows

    assert _empty_edge_lines(Reads(FULL)) == []
    assert _empty_edge_lines(Reads(_without_column(FULL, 0))) == [(0, 1, "column")]
    assert _empty_edge_lines(Reads(_without_column(FULL, 4))) == [(0, -1, "column")]
    top_empty = [[EMPTY] * 5] + FULL[1:]
    assert _empty_edge_lines(Reads(top_empty)) == [(1, 0, "row")]
    assert _empty_edge_lines(Reads([[EMPTY] * 5] * 4)) == []


@pytest.mark.parametrize("col, seed", [(4, 2801), (0, 2802)])
def test_an_empty_edge_column_is_flagged_as_grid_doubt(
    reader: TerrariumReader, col: int, seed: int
) -> None:
    board = _without_column(FULL, col)
    image, truth = _scene(board, seed)
    read = reader.read(encode_jpeg(image, 90))
    assert read.grid_doubt, read.rows
    assert "could sit one column further" in read.grid_doubt
    assert read.needs_check
    assert read.to_json()["grid"]["doubt"] == read.grid_doubt


def test_a_full_board_has_no_edge_doubt(reader: TerrariumReader) -> None:
    image, truth = _scene(FULL, 2803)
    read = reader.read(encode_jpeg(image, 90))
    assert read.rows == FULL
    assert "could sit one" not in read.grid_doubt


def test_a_lattice_one_column_off_is_moved_onto_the_cards_it_missed(
    reader: TerrariumReader,
) -> None:
    """Settled by the cards: a lattice put one column past the board (its first column empty,
    the board's last column outside it) is moved back, with no doubt left."""
    image, truth = _scene(FULL, 2804)
    right = fit_from_corners(image.shape, np.array(truth["grid_corners"]), image_rgb=image)
    off = right.shifted_lines(0, -1)  # cell (r, 0) of `off` lies left of the board

    classify = _classifier(reader, image)

    crops, reads = classify(off)
    assert all(row[0] == EMPTY for row in reads.rows())
    fit, crops, reads, doubt = reader._settle_empty_edges(image, off, crops, reads, classify)
    assert doubt == ""
    np.testing.assert_allclose(fit.corners, right.corners, atol=1e-3)
    rows = reads.rows()
    assert rows == FULL or rows == [row[::-1] for row in FULL[::-1]]


def test_the_right_lattice_of_a_board_with_an_empty_edge_column_is_in_doubt(
    reader: TerrariumReader,
) -> None:
    """Even the true lattice cannot be told from the one a column over: doubt, whichever is
    kept (the first candidate used to be returned with no doubt when grid finding accepted
    it)."""
    image, truth = _scene(_without_column(FULL, 4), 2805)
    right = fit_from_corners(image.shape, np.array(truth["grid_corners"]), image_rgb=image)

    classify = _classifier(reader, image)

    crops, reads = classify(right)
    fit, crops, reads, doubt = reader._settle_empty_edges(image, right, crops, reads, classify)
    assert "could sit one column further" in doubt
    assert sum(label != EMPTY for row in reads.rows() for label in row) == 16


def test_a_cell_is_explained_as_a_card_at_the_readers_own_threshold(reader) -> None:
    from vision.reptile_tank.classifier import CellRead, CellReads
    from vision.reptile_tank.reader import CARD_MATCH, STAND_IN_CARD_MATCH, explain_cells

    labels = ("rock", "water", EMPTY)
    scores = np.full((1, 3, len(labels), 4), 0.1, np.float32)
    scores[0, 0, 0, 0] = 0.95  # a clear rock
    scores[0, 1, 1, 2] = 0.75  # a water card turned round, under a sleeve's glare
    scores[0, 2, 2, :] = 0.9  # the table
    cells = [[CellRead(label, 0, 0.5, 0.9, ()) for label in ("rock", "water", EMPTY)]]
    reads = CellReads(cells, labels, scores.max(axis=3), scores)
    assert explain_cells(reads, CARD_MATCH)[1:] == (1, 1)  # one card, one cell unexplained
    assert explain_cells(reads, STAND_IN_CARD_MATCH)[1:] == (2, 0)
    assert reader.card_match == STAND_IN_CARD_MATCH  # the bundled stand-in deck


def test_outlines_outside_counts_each_card_beside_the_grid_once() -> None:
    from vision.reptile_tank.grid import outlines_outside

    corners = np.array([[100.0, 100.0], [600.0, 100.0], [600.0, 500.0], [100.0, 500.0]])
    fit = fit_from_corners((800, 1000), corners)

    def card(x, y, w=90.0, h=120.0):
        return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])

    beside = card(700, 150)
    quads = [
        card(120, 120),  # the grid's own
        beside,
        beside + [[8, 8], [-8, 8], [-8, -8], [8, -8]],  # its inner panel: the same card
        card(700, 400),
        card(300, 510),
    ]
    assert outlines_outside(fit, {"first quads": (1.0, quads)}) == 3
    # the memo's quads are in the work copy's pixels: a factor of 2 halves them
    doubled = [2.0 * q for q in quads]
    assert outlines_outside(fit, {"first quads": (2.0, doubled)}) == 3
    # right beside the grid (within one card's side of its outline): the two at x = 700
    # (centres 145 px off, side ~104 px) are not, the one just below (its centre 70 px off) is
    assert outlines_outside(fit, {"first quads": (1.0, quads)}, within=1.0) == 1
    assert outlines_outside(fit, {"first quads": (1.0, quads)}, within=2.0) == 3
    assert outlines_outside(fit, {}) == 0
    assert outlines_outside(fit, None) == 0


def test_a_first_lattice_beside_the_grid_is_judged_against_the_others(
    reader: TerrariumReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first hypothesis two columns off (onto the table, 8 cells empty, no edge line empty
    once stray cards fill it) explains its cells: the board's 8 cards outside it send the
    reader on to the other hypotheses, and the right lattice wins (seed 4432 scene 13 of the
    real-table development set: all 20 cells wrong, nothing flagged)."""
    import vision.reptile_tank.reader as reader_module

    image, truth = _scene(FULL, 2806)
    right = fit_from_corners(image.shape, np.array(truth["grid_corners"]), image_rgb=image)
    off = right.shifted_lines(0, -2)  # columns 0-1 on the table, the board's 3-4 outside
    found = reader_module.find_grid_candidates

    def first_beside(rgb, *, twins, layout, memo):
        candidates = found(rgb, twins=twins, layout=layout, memo=memo)
        return candidates if twins else [off]

    monkeypatch.setattr(reader_module, "find_grid_candidates", first_beside)
    monkeypatch.setattr(reader_module, "refine_fit", lambda rgb, fit: fit)

    classify = _classifier(reader, image)

    crops, reads = classify(off)
    assert sum(label == EMPTY for row in reads.rows() for label in row) == 8
    fit, crops, reads, doubt, judged = reader._find_and_judge(image, classify)
    assert judged, "the first hypothesis was taken without judging the others"
    rows = reads.rows()
    assert rows == FULL or rows == [row[::-1] for row in FULL[::-1]]


def test_a_mid_game_read_with_no_cards_beside_it_is_taken_at_once(
    reader: TerrariumReader,
) -> None:
    """The same empty cells with nothing outside the grid: the first hypothesis stands, and
    no other is judged (a mid-game board pays nothing)."""
    board = [
        [EMPTY if (r + c) % 3 == 0 else label for c, label in enumerate(row)]
        for r, row in enumerate(FULL)
    ]
    image, truth = _scene(board, 2807)

    classify = _classifier(reader, image)

    fit, crops, reads, doubt, judged = reader._find_and_judge(image, classify)
    assert judged == [] and doubt == ""
    rows = reads.rows()
    assert rows == board or rows == [row[::-1] for row in board[::-1]]


def _turn_cards_on_their_cells(image, fit, cells, degrees=40.0):
    """``image`` with the cards of ``cells`` ((row, col) of ``fit``) turned on their places."""
    import cv2

    out, original = image.copy(), image.copy()
    for r, c in cells:
        quad = np.int32(fit.cell_quads[r, c])
        (x0, y0), (x1, y1) = quad.min(axis=0), quad.max(axis=0)
        turn = cv2.getRotationMatrix2D(((x1 - x0) / 2, (y1 - y0) / 2), degrees, 1.0)
        turned = cv2.warpAffine(
            original[y0:y1, x0:x1], turn, (x1 - x0, y1 - y0), borderMode=cv2.BORDER_REFLECT
        )
        mask = np.zeros(image.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, quad, 1)
        inside = mask[y0:y1, x0:x1] > 0
        out[y0:y1, x0:x1][inside] = turned[inside]
    return out


def test_a_missed_line_with_hard_to_read_cards_still_moves_the_lattice(
    reader: TerrariumReader,
) -> None:
    """The line a lattice one column off missed holds cards of which two are hard to read
    (turned far on their cells: neither a face nor the table) and one more such card lies
    inside it: the new line adds as many cards as such cells, so the lattice is moved onto it
    (seed 4432 scene 14 of the real-table development set was read one column off, 18 cells
    wrong, the grid in doubt)."""
    image, truth = _scene(FULL, 2808)
    right = fit_from_corners(image.shape, np.array(truth["grid_corners"]), image_rgb=image)
    image = _turn_cards_on_their_cells(image, right, ((0, 4), (1, 4), (3, 1)))
    off = right.shifted_lines(0, -1)  # its first column on the table, the board's last missed

    classify = _classifier(reader, image)

    from vision.reptile_tank.reader import MAX_UNEXPLAINED, explain_cells

    crops, reads = classify(off)
    _, cards, unexplained = explain_cells(reads, reader.card_match)
    _, right_cards, right_unexplained = explain_cells(classify(right)[1], reader.card_match)
    # the case the rule is for: more unexplained cells than the old rule allowed
    assert right_unexplained > max(unexplained, MAX_UNEXPLAINED)
    assert right_unexplained - unexplained <= right_cards - cards
    fit, crops, reads, doubt = reader._settle_empty_edges(image, off, crops, reads, classify)
    np.testing.assert_allclose(fit.corners, right.corners, atol=1e-3)


def test_cards_that_match_no_face_on_a_sure_grid_are_flagged_not_the_grid(
    reader: TerrariumReader,
) -> None:
    """Three inner cards that look like neither a face nor the table (turned far on their
    places) on a grid no other fit comes close to: the grid is not put in doubt ("check the
    grid's corners" would send the player to corners that are right); those cells are flagged,
    with their reason."""
    image, truth = _scene(FULL, 2811)
    right = fit_from_corners(image.shape, np.array(truth["grid_corners"]), image_rgb=image)
    turned = ((1, 1), (1, 3), (2, 2))
    image = _turn_cards_on_their_cells(image, right, turned)
    read = reader.read_image(image)
    assert read.grid_doubt == ""
    upright = read.rows == FULL
    for r, c in turned:
        cell = (r, c) if upright else (3 - r, 4 - c)
        assert read.check[cell]
    assert any("match no face well" in reason for reason in read.check_reasons)


def test_unexplained_cells_are_the_cells_explain_cells_counts() -> None:
    from vision.reptile_tank.classifier import CellRead, CellReads
    from vision.reptile_tank.reader import CARD_MATCH, explain_cells, unexplained_cells

    labels = ("rock", "water", EMPTY)
    scores = np.full((2, 2, len(labels), 4), 0.1, np.float32)
    scores[0, 0, 0, 0] = 0.95  # a clear rock
    scores[0, 1, 1, 2] = 0.75  # a water card turned round, under glare: unexplained at 0.8
    scores[1, 0, 2, :] = 0.9  # the table
    scores[1, 1, 0, 1] = 0.95  # a rock a quarter turn round: no card of the lattice
    cells = [[CellRead("rock", 0, 0.5, 0.9, ())] * 2] * 2
    reads = CellReads(cells, labels, scores.max(axis=3), scores)
    mask = unexplained_cells(reads, CARD_MATCH)
    assert mask.tolist() == [[False, True], [False, True]]
    assert explain_cells(reads, CARD_MATCH)[2] == int(mask.sum())


def test_outlines_across_counts_cards_the_grid_cuts_through() -> None:
    """A card outline inside the grid whose centre lies between cells (a grid put half a card
    beside the board) is cut through; a card on its cell (a few millimetres off) is not, nor
    an outline of no card's size (an art panel), nor one outside the grid."""
    from vision.reptile_tank.grid import outlines_across

    corners = np.array([[100.0, 100.0], [600.0, 100.0], [600.0, 660.0], [100.0, 660.0]])
    fit = fit_from_corners((800, 1000), corners)
    cell = fit.cell_quads[1, 2]
    w = float(np.linalg.norm(cell[1] - cell[0]))
    h = float(np.linalg.norm(cell[3] - cell[0]))

    def card(cx, cy, scale=1.0):
        dx, dy = scale * w / 2, scale * h / 2
        return np.array([[cx - dx, cy - dy], [cx + dx, cy - dy],
                         [cx + dx, cy + dy], [cx - dx, cy + dy]])  # fmt: skip

    centre = cell.mean(axis=0)
    on_cell = card(centre[0] + 0.1 * w, centre[1])  # laid a little off its place
    straddling = card(centre[0] + 0.5 * w, centre[1] + 0.5 * h)  # between four cells
    panel = card(*fit.cell_quads[0, 0].mean(axis=0) + [0.0, -0.4 * h], scale=0.5)
    outside = card(800.0, 300.0)
    memo = {"first quads": (1.0, [on_cell, straddling, straddling + 2.0, panel, outside])}
    assert outlines_across(fit, memo) == 1  # the straddling card, its sleeve counted once
    assert outlines_across(fit, {}) == 0
