"""The visible squares of a reserve are whole cards (2 x 2 blocks): a square read as table that
leaves a card short is completed or checked, and a right read is left alone."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.nimalia.cards import EMPTY
from vision.loading import load_image
from vision.nimalia.checks import COMPLETE_MAX_MARGIN
from vision.nimalia.decide import decide
from vision.nimalia.extent import (
    apart_squares,
    complete_cards,
    one_kind_block,
    stray_squares,
    unfinished_cards,
)
from vision.nimalia.hypotheses import _card_looks, _settled
from vision.nimalia.lattice import Lattice
from vision.nimalia.reader import CLASSES, read_reserve
from vision.nimalia.scene import encode_jpeg, render_reserve, sample_reserve, visible_frame

EMPTY_INDEX = len(CLASSES) - 1


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_every_legal_reserve_is_whole_cards(seed):
    """Oracle: the placements themselves. Whatever the order and overlaps, no square of a legal
    reserve is stray, and nothing is completed or flagged."""
    grid = np.array(visible_frame(sample_reserve(np.random.default_rng(seed))))
    occupied = grid != EMPTY
    assert not stray_squares(occupied).any()
    assert not complete_cards(occupied, np.zeros(occupied.shape)).any()
    assert not unfinished_cards(occupied, stray_squares(occupied)).any()
    assert not apart_squares(occupied).any()  # a reserve is one patch


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.data())
def test_one_square_missed_is_found_again(seed, data):
    """A legal reserve with one square read as table: when that square leaves a card short it is
    completed (or, when it is clearly table, checked); when other cards still cover its
    neighbours nothing can be said, and nothing else changes."""
    grid = np.array(visible_frame(sample_reserve(np.random.default_rng(seed))))
    truth = grid != EMPTY
    cells = np.argwhere(truth)
    r, c = cells[data.draw(st.integers(0, len(cells) - 1))]
    read = truth.copy()
    read[r, c] = False
    margin = np.full(read.shape, 0.5)
    margin[r, c] = 0.05
    completed = complete_cards(read, margin)
    stray = stray_squares(read)
    if stray.any():
        assert completed.tolist() == (truth & ~read).tolist()
        assert not stray_squares(read | completed).any()
        margin[r, c] = 0.5
        assert not complete_cards(read, margin).any()
        assert unfinished_cards(read, stray)[r, c]
    else:
        assert not completed.any()


def kind_at(r: int, c: int) -> int:
    """The class the head reads at cell ``(r, c)`` in :func:`_decide_grid`: neighbours differ,
    so no 2 x 2 block is of one kind (as on real cards)."""
    return 1 + (r + 2 * c) % 12


def _decide_grid(
    squares: list[str],
    table_margin: dict[tuple[int, int], float],
    unsure: tuple[tuple[int, int], ...] = (),
):
    """``decide`` on a lattice whose cells are ``#`` (a clear square) or ``.`` (table); a cell
    in ``table_margin`` is table by that cosine margin; the kind of an ``unsure`` square is a
    toss-up between two; the head reads :func:`kind_at`."""
    rows, cols = len(squares), len(squares[0])
    n = len(CLASSES)
    cos = np.full((rows, cols, n), 0.3, np.float32)
    fg = np.zeros((rows, cols), np.float32)
    for r, row in enumerate(squares):
        for c, ch in enumerate(row):
            if ch == "#":  # nearest the kind the head reads
                cos[r, c, kind_at(r, c)], fg[r, c] = 0.95, 1.0
            else:
                cos[r, c, EMPTY_INDEX] = 0.97
    for (r, c), m in table_margin.items():
        cos[r, c, EMPTY_INDEX], cos[r, c, kind_at(r, c)] = 0.9, 0.9 - m
    prob = np.full((rows, cols, n), 0.001, np.float32)
    for r in range(rows):
        for c in range(cols):
            prob[r, c, kind_at(r, c)] = 0.99
    for r, c in unsure:
        prob[r, c, kind_at(r, c)], prob[r, c, kind_at(r, c) + 1] = 0.5, 0.49
    both = np.concatenate([cos, prob], -1).reshape(rows * cols, -1)
    return decide(both, Lattice(rows, cols, np.eye(3), fg, 1.0))


def test_a_card_short_of_a_square_is_completed_and_checked():
    # two cards overlapping by one column; the right card's bottom-right square read as table
    layout = ["###.", "##..", "...."]
    near = _decide_grid(layout, {(1, 2): COMPLETE_MAX_MARGIN / 2})
    assert [t != EMPTY for t in near.squares[1]] == [True, True, True]
    assert near.squares[1][2] == CLASSES[kind_at(1, 2)]  # its kind from the head, as any square
    assert near.cells[1][2].check
    assert "a square read as table completes a card" in near.reasons
    assert "some squares read are in no whole card" not in near.reasons
    # clearly table: left as table, checked with the square it strands
    far = _decide_grid(layout, {(1, 2): COMPLETE_MAX_MARGIN * 2})
    assert far.squares[1][2] == EMPTY and far.cells[1][2].check
    assert far.cells[0][2].check
    assert "some squares read are in no whole card" in far.reasons
    assert far.needs_check


def test_completed_squares_do_not_put_the_lattice_in_doubt():
    """Two cards side by side, a corner of each read as table and 2 of the 6 squares recognised
    unsure: the recognised share checked (2 / 6) is under the doubt share, though with the 2
    completed squares (checked for the player) 4 of 8 are."""
    read = _decide_grid([".###", "###."], {(0, 0): 0.05, (1, 3): 0.05}, unsure=((0, 1), (1, 1)))
    assert all(t != EMPTY for row in read.squares for t in row)
    assert sum(cell.check for row in read.cells for cell in row) == 4
    assert not read.doubtful


def test_whole_cards_add_no_flag():
    read = _decide_grid(["###.", "###.", ".##."], {})
    assert not any(cell.check for row in read.cells for cell in row)
    assert not read.needs_check


def test_squares_apart_from_the_reserve_are_left_out_and_said():
    """A glare or a stray card read as a card's worth of squares a cell away from a reserve of
    three cards: the read is the reserve, and it says what it left out."""
    read = _decide_grid(["##....", "##....", "......", "..###.", "..###.", "..##.."], {})
    assert read.squares == [
        [CLASSES[kind_at(r, c)] if (r, c) != (5, 4) else EMPTY for c in range(2, 5)]
        for r in range(3, 6)
    ]
    assert "squares apart from the reserve were left out" in read.reasons and read.needs_check
    assert not read.doubtful  # the reserve itself is read cleanly: the search may stop here


@pytest.mark.parametrize(
    "layout",
    [
        ["##.##", "##.##", "##.##"],  # columns of like size: a lattice at half the pitch
        ["##...", "##...", "..##.", "..##."],  # touching at a corner
        ["##..#", "##..#"],  # the largest is one card's worth
        ["###.##", "###.##", "##..##"],  # the others hold more than half as many squares
    ],
)
def test_patches_that_may_be_the_reserve_are_kept_and_in_doubt(layout):
    occupied = np.array([[ch == "#" for ch in row] for row in layout])
    assert not apart_squares(occupied).any()
    read = _decide_grid(layout, {})
    assert read.doubtful and "the squares read are not one connected patch" in read.reasons


def test_four_squares_of_one_kind_in_a_block_put_the_read_in_doubt():
    """No card repeats a kind more than twice, so a 2 x 2 block of one kind is one square cut in
    four by a lattice at half the pitch (a close-up's giraffe square, stand-in 960079)."""
    read = _decide_grid(["###", "###", "##."], {})
    assert not read.doubtful
    both = read.lattice.rows * read.lattice.cols
    cos = np.full((both, len(CLASSES)), 0.3, np.float32)
    cos[:, 3] = 0.95
    prob = np.full((both, len(CLASSES)), 0.001, np.float32)
    prob[:, 3] = 0.99  # every square reads one kind
    read = decide(np.concatenate([cos, prob], -1), read.lattice)
    assert read.doubtful
    assert "four squares of one kind in a 2 x 2 block (a lattice at half the pitch?)" in (
        read.reasons
    )
    assert one_kind_block([["S:gir", "S:gir"], ["S:gir", "S:gir"]])
    assert not one_kind_block([["S:gir", "S:gir"], ["S:gir", "S:lio"]])
    assert not one_kind_block([[EMPTY, EMPTY], [EMPTY, EMPTY]])


def test_legal_reserves_rarely_hold_a_block_of_one_kind():
    """Oracle: the placements. The doubt costs a search, never a right read's squares; it must be
    rare on real reserves (13 of 20,000 sampled when it was added)."""
    hits = sum(
        one_kind_block(visible_frame(sample_reserve(np.random.default_rng(seed))))
        for seed in range(2000)
    )
    assert hits <= 6


def test_one_cards_worth_settles_only_as_a_card_shows():
    """Cards laid exactly on one another show the top card's 4 squares: some card at some turn.
    Four quarters of one square read alike are not a card, and do not settle the search."""
    looks = _card_looks()
    assert len(looks) == 240
    ok = _decide_grid(["##", "##"], {})
    card = ["W:fla", "W:cro", "I:ott/", "S:lio"]  # card 7, as printed
    assert tuple(card) in looks
    ok.squares = [card[:2], card[2:]]
    assert ok.doubtful and _settled(ok)
    same = _decide_grid(["##", "##"], {})
    same.squares = [["S:gir", "S:gir"], ["S:gir", "S:gir"]]
    assert not _settled(same)


@pytest.mark.parametrize("seed", [900000, 900002, 900006])
def test_three_cards_laid_on_one_another_are_read(seed):
    """One card's worth of squares is in doubt but settles the search when clean (these seeds
    were read at a harmonic or with a row of table before)."""
    rng = np.random.default_rng(seed)
    ids = rng.choice(60, 3, replace=False) + 1
    placements = [
        {"card": int(i), "row": 2, "col": 2, "turn": int(rng.integers(4)) * 90} for i in ids
    ]
    image, truth = render_reserve(seed, placements=placements, size=(1600, 1200))
    read = read_reserve(load_image(encode_jpeg(image, truth["params"]["jpeg_quality"])).rgb)
    assert read.squares == truth["squares"]
    assert read.needs_check  # one card's worth is always checked


def test_a_glare_square_beyond_six_by_six_is_left_out_without_doubt():
    """A reserve 6 squares across with a glare beside it read as one square: the column beyond
    6 x 6 is dropped and said (checked), but the read is not in doubt when every square kept is
    clear. More squares beyond 6 x 6, or a kept square unsure, leave it in doubt (a lattice at
    a wrong pitch spans far more)."""
    reserve = ["######."] * 6
    glare = [row if r != 2 else "#######" for r, row in enumerate(reserve)]
    read = _decide_grid(glare, {})
    assert [len(read.squares), len(read.squares[0])] == [6, 6]
    assert "the squares found span more than 6 x 6" in read.reasons and read.needs_check
    assert not read.doubtful
    wide = [row if r not in (1, 2, 3) else "#######" for r, row in enumerate(reserve)]
    assert _decide_grid(wide, {}).doubtful
    assert _decide_grid(glare, {}, unsure=((0, 0),)).doubtful
