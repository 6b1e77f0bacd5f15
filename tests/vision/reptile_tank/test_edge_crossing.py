"""Something across a card's edge on a board (issue 28 item 4): a thumb over an edge card."""

from __future__ import annotations

import cv2
import numpy as np

from scoring.reptile_tank.cards import EMPTY
from vision.reptile_tank.edge_crossing import (
    EDGE_NOT_TABLE,
    EDGE_SAME,
    EdgePiece,
    _in_a_row,
    crossed_edges,
    hands_over_board,
)

SKIN = (214, 150, 120)
BEIGE = (225, 205, 170)  # a light card border: a hand's colour, not a grey table's


def _piece(side: int, piece: int, bridged: bool = True) -> EdgePiece:
    across = EDGE_SAME - 1 if bridged else EDGE_SAME + 20
    return EdgePiece(side, piece, across, EDGE_NOT_TABLE + 10, True)


def test_pieces_in_a_row_need_neighbours_along_one_side():
    assert _in_a_row([_piece(0, 2), _piece(0, 3)], 2)
    assert not _in_a_row([_piece(0, 1), _piece(0, 3)], 2)  # two places on one side
    assert not _in_a_row([_piece(0, 5), _piece(1, 0)], 2)  # the ends of two sides
    assert not _in_a_row([_piece(2, 2), _piece(2, 3, bridged=False)], 2)
    assert _in_a_row([_piece(3, 0), _piece(3, 4), _piece(3, 5)], 2)


def _board(size=(1000, 800)):
    """A grey table with a 2 x 2 board of plain dark cards, each on its cell exactly."""
    w, h = size
    rng = np.random.default_rng(0)
    photo = np.clip(rng.normal(120, 5, (h, w, 3)), 0, 255).astype(np.uint8)
    cw, ch = 160, 224
    x0, y0 = 300, 150
    quads = np.zeros((2, 2, 4, 2))
    for r in range(2):
        for c in range(2):
            x, y = x0 + c * (cw + 8), y0 + r * (ch + 8)
            quads[r, c] = [[x, y], [x + cw, y], [x + cw, y + ch], [x, y + ch]]
            cv2.rectangle(photo, (x, y), (x + cw, y + ch), (40, 70, 110), -1)
            cv2.rectangle(photo, (x + 20, y + 30), (x + cw - 20, y + ch - 60), (200, 60, 50), -1)
    return photo, quads


def test_a_thumb_over_an_edge_card_marks_that_card_only():
    photo, quads = _board()
    labels = [["rock", "water"], ["corn_snake", "hollow_log"]]
    assert not hands_over_board(photo, quads, labels).any()
    thumbed = photo.copy()
    right = int(quads[1, 1, 1, 0])
    middle = int(quads[1, 1, :, 1].mean())
    tip = (right - 50, middle)  # in from the right, over the middle of the edge card
    cv2.line(thumbed, tip, (right + 250, middle + 40), SKIN, 80, cv2.LINE_AA)
    cv2.circle(thumbed, tip, 40, SKIN, -1, cv2.LINE_AA)
    hands = hands_over_board(thumbed, quads, labels)
    assert hands.tolist() == [[False, False], [False, True]]
    # an empty cell is not judged (its table is the outside of its neighbours' edges)
    emptied = [["rock", "water"], ["corn_snake", EMPTY]]
    assert not hands_over_board(thumbed, quads, emptied).any()


def test_a_card_laid_off_its_cell_showing_its_border_here_and_there_is_no_thumb():
    photo, quads = _board()
    labels = [["rock", "water"], ["corn_snake", "hollow_log"]]
    shown = photo.copy()
    # the light border of a card laid a little off shows just outside the cell's right edge,
    # at two places apart (not one thumb): the edge there is gone, its colour a hand's
    x = int(quads[0, 1, 1, 0])
    top = int(quads[0, 1, 1, 1])
    piece = 224 // 6
    for k in (1, 4):  # the right side's second and fifth pieces
        cv2.rectangle(shown, (x - 24, top + k * piece), (x + 24, top + (k + 1) * piece), BEIGE, -1)
    cell = [np.asarray(quads[0, 1])]
    assert crossed_edges(shown, cell) == [True]  # a layout photo's rule would take it
    assert not hands_over_board(shown, quads, labels).any()


def test_a_thumb_of_no_hands_colour_marks_a_card_that_matches_its_face_weakly():
    """A thumb in shade under a green cast is no hand's colour: its edge card is taken for
    covered only when the card also matches its face less than well (its read's score)."""
    from vision.reptile_tank.edge_crossing import EDGE_WEAK_CARD

    photo, quads = _board()
    labels = [["rock", "water"], ["corn_snake", "hollow_log"]]
    shaded = (96, 112, 84)  # a thumb in shade under a green light: grey-green, not warm
    thumbed = photo.copy()
    right = int(quads[1, 1, 1, 0])
    middle = int(quads[1, 1, :, 1].mean())
    tip = (right - 50, middle)
    cv2.line(thumbed, tip, (right + 250, middle + 40), shaded, 80, cv2.LINE_AA)
    cv2.circle(thumbed, tip, 40, shaded, -1, cv2.LINE_AA)
    assert not hands_over_board(thumbed, quads, labels).any()  # the colour rule alone
    sure = np.full((2, 2), 0.95)
    assert not hands_over_board(thumbed, quads, labels, sure).any()
    weak = sure.copy()
    weak[1, 1] = EDGE_WEAK_CARD - 0.1
    covered = hands_over_board(thumbed, quads, labels, weak)
    assert covered.tolist() == [[False, False], [False, True]]
    # a weak card with its edge all round is not covered
    assert not hands_over_board(photo, quads, labels, np.full((2, 2), 0.5)).any()
