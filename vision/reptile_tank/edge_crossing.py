"""Something lying across a card's edge: a thumb, a hand (issue 28 items 1 and 4).

A card on a table shows an edge all round: its print or border against the table. A thumb or a
hand over the card runs on past its edge, and there the edge is gone -- the same colour just
inside and just outside, a colour that is not the table's and could be a hand's. Enrolment asks
it of every card of a layout photo (a face cut from under a thumb is enrolled *unsure*,
:func:`vision.reptile_tank.enrol.unsure_faces`); the reader asks it of every card of a board (a
card a thumb lies over is flagged, whatever it was read as).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import cv2
import numpy as np

from scoring.reptile_tank.cards import EMPTY

#: The edge check (:func:`crossed_edges`): the card is cut with this margin (a share of its
#: width and height) around it, at EDGE_CUT_SIZE (width, height of the card itself), and each
#: side is split into EDGE_SEGMENTS pieces; a piece's band just inside the edge (EDGE_INSIDE, a
#: share of the card's size from the edge) is compared with its band just outside (EDGE_OUTSIDE).
EDGE_MARGIN = 0.14
EDGE_CUT_SIZE = (100, 140)
EDGE_SEGMENTS = 6
EDGE_INSIDE = (0.03, 0.09)
EDGE_OUTSIDE = (0.04, 0.11)
#: A piece is *bridged* when its inside and outside bands differ by at most EDGE_SAME (CIE
#: delta E: no edge there) while the outside band differs from the table (the median of every
#: card's outside bands) by at least EDGE_NOT_TABLE and has a hand's colour (:data:`HAND_LAB`);
#: a card is crossed from EDGE_MIN_PIECES bridged pieces on. Chosen on development layout
#: photos of their own seeds (real-table scenes of the documented layout, six look-alike decks
#: and the stand-in deck, 31 photos cut by the grid, 496 cards, 14 under a thumb): without the
#: hand's colour, EDGE_SAME 5 found 11 of the 14 and took 3 clean cards for covered, 10 found
#: all 14 and took 11 (a play mat or a glare outside the card differs from the table's median
#: as much as a thumb does, and a thumb blurred by being close to the lens keeps a faint edge);
#: with it, 10 finds all 14 and takes none of those 11. Checked on 20 further layout photos
#: of other seeds (319 cards, 9 under a thumb): 9 found and 2 clean cards taken, where the
#: rule without the hand's colour (EDGE_SAME 5) found 8 and took 6 (BENCHMARKS.md, stop 42).
EDGE_SAME = 10.0
EDGE_NOT_TABLE = 15.0
EDGE_MIN_PIECES = 2
#: On a board, a card that matches its face less than well (its read's cosine under
#: EDGE_WEAK_CARD) is also crossed where EDGE_MIN_PIECES pieces in a row show no edge at all
#: (inside and outside within EDGE_GONE) over something that is not the table (EDGE_NOT_TABLE_ANY),
#: whatever its colour: a thumb in shade or under a colour cast is no hand's colour, and the
#: card's weak match says something is over it. On the development boards of stop 51 (the
#: stand-in deck's real-table sets 4431-4435, 170 photos, and five look-alike decks' boards,
#: 50 photos, read with their files packs; 3,862 cards nothing lay over, 81 a thumb covered by
#: 15 % or more) it found 3 of the 4 covered cards no check flagged and flagged 6 clean cards
#: more (none of the look-alike decks').
EDGE_WEAK_CARD = 0.8
EDGE_GONE = 3.0
EDGE_NOT_TABLE_ANY = 12.0
#: A hand's colour in CIE L*a*b*: ``(L* low, L* high, chroma low, chroma high, hue low, hue
#: high)``, the hue in degrees in the a*b* plane: skin in light and in shade is warm (red to
#: yellow, -15 to 100 degrees; under a cool or magenta light cast a thumb reads -6 to -8: stop
#: 43, one development layout whose thumb the -5 of stop 42 missed, and no other card of 51
#: layout photos changed), of some chroma but not a print's saturated red, neither black nor a
#: glare's white.
HAND_LAB = (20.0, 85.0, 8.0, 60.0, -15.0, 100.0)


def _hand_coloured(lab: np.ndarray) -> bool:
    """Whether a CIE L*a*b* colour (L* 0..100) could be a hand's (:data:`HAND_LAB`)."""
    l_lo, l_hi, c_lo, c_hi, h_lo, h_hi = HAND_LAB
    chroma = math.hypot(float(lab[1]), float(lab[2]))
    hue = math.degrees(math.atan2(float(lab[2]), float(lab[1])))
    return l_lo <= lab[0] <= l_hi and c_lo <= chroma <= c_hi and h_lo <= hue <= h_hi


def _edge_bands(width: int, height: int, margin_x: int, margin_y: int):
    """Per side piece of a card cut with margins, the (inside, outside) band slices."""
    out = []
    ia, ib = EDGE_INSIDE
    oa, ob = EDGE_OUTSIDE
    for k in range(EDGE_SEGMENTS):
        n = EDGE_SEGMENTS
        x = slice(margin_x + k * width // n, margin_x + (k + 1) * width // n)
        y = slice(margin_y + k * height // n, margin_y + (k + 1) * height // n)
        i1, i2, o1, o2 = (int(v * height) for v in (ia, ib, oa, ob))
        top, bottom = margin_y, margin_y + height
        out.append(((slice(top + i1, top + i2), x), (slice(top - o2, top - o1), x)))
        out.append(((slice(bottom - i2, bottom - i1), x), (slice(bottom + o1, bottom + o2), x)))
        i1, i2, o1, o2 = (int(v * width) for v in (ia, ib, oa, ob))
        left, right = margin_x, margin_x + width
        out.append(((y, slice(left + i1, left + i2)), (y, slice(left - o2, left - o1))))
        out.append(((y, slice(right - i2, right - i1)), (y, slice(right + o1, right + o2))))
    return out


def _share(summed: np.ndarray, band: tuple[slice, slice]) -> float:
    """The share of a band (rows, columns slices) set in a mask, from its integral image
    ``summed``; 1 for an empty band (nothing there to judge)."""
    rows, cols = band
    area = (rows.stop - rows.start) * (cols.stop - cols.start)
    if area <= 0:
        return 1.0
    total = (
        summed[rows.stop, cols.stop]
        - summed[rows.start, cols.stop]
        - summed[rows.stop, cols.start]
        + summed[rows.start, cols.start]
    )
    return float(total) / area


def _median_colour(band: np.ndarray) -> np.ndarray:
    """The per-channel median of a band's (h, w, 3) pixels: ``np.median`` over them, by one
    partition (a board has a hundred such bands; ``np.median``'s own overhead doubled the
    check's time)."""
    pixels = band.reshape(-1, band.shape[-1])
    middle = len(pixels) // 2
    if len(pixels) % 2:
        return np.partition(pixels, middle, axis=0)[middle]
    ordered = np.partition(pixels, (middle - 1, middle), axis=0)
    return (ordered[middle - 1] + ordered[middle]) / 2


class EdgePiece(NamedTuple):
    """One judged piece of a card's edge (:func:`edge_contrasts`)."""

    side: int  # 0 top, 1 bottom, 2 left, 3 right (of the card as its corners give it)
    piece: int  # 0 .. EDGE_SEGMENTS - 1 along the side
    across: float  # colour difference (CIE delta E) between the bands inside and outside
    from_table: float  # the outside band's difference from the table
    hand: bool  # whether the outside band has a hand's colour (:func:`_hand_coloured`)

    @property
    def bridged(self) -> bool:
        """No edge here, and what runs on past it is not the table and could be a hand."""
        return self.across <= EDGE_SAME and self.from_table >= EDGE_NOT_TABLE and self.hand

    @property
    def gone(self) -> bool:
        """No edge at all here, over something that is not the table (whatever its colour)."""
        return self.across <= EDGE_GONE and self.from_table >= EDGE_NOT_TABLE_ANY


def edge_contrasts(image_rgb: np.ndarray, corners: list[np.ndarray]) -> list[list[EdgePiece]]:
    """Per card, its judged edge pieces (:func:`crossed_edges`): pieces whose outside band lies
    on another card or off the photo are left out."""
    if not corners:
        return []
    h, w = image_rgb.shape[:2]
    # which card each photo pixel belongs to (1-based; 0 = none), at a quarter of the size
    scale = 0.25
    owners = np.zeros((max(1, int(h * scale)), max(1, int(w * scale))), np.uint8)
    for k, quad in enumerate(corners):
        centre = np.asarray(quad, np.float64).mean(axis=0)
        grown = centre + (np.asarray(quad, np.float64) - centre) * 1.04
        cv2.fillPoly(owners, [np.round(grown * scale).astype(np.int32)], min(k + 1, 255))
    cw, ch = EDGE_CUT_SIZE
    mx, my = int(round(EDGE_MARGIN * cw)), int(round(EDGE_MARGIN * ch))
    size = (cw + 2 * mx, ch + 2 * my)
    bands = _edge_bands(cw, ch, mx, my)
    unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    out_box = np.float32([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]])
    grown_unit = np.float32(
        [[-EDGE_MARGIN, -EDGE_MARGIN], [1 + EDGE_MARGIN, -EDGE_MARGIN],
         [1 + EDGE_MARGIN, 1 + EDGE_MARGIN], [-EDGE_MARGIN, 1 + EDGE_MARGIN]]
    )  # fmt: skip
    pieces = []  # per card: (side, piece, inside Lab, outside Lab) of each judged piece
    for k, quad in enumerate(corners):
        to_photo = cv2.getPerspectiveTransform(unit, np.asarray(quad, np.float32))
        grown = cv2.perspectiveTransform(grown_unit[None], to_photo)[0]
        warp = cv2.getPerspectiveTransform(grown, out_box)
        small = np.diag([scale, scale, 1.0]) @ np.linalg.inv(warp)
        owner = cv2.warpPerspective(
            owners, np.linalg.inv(small), size, flags=cv2.INTER_NEAREST, borderValue=255
        )
        # another card, or off the photo, under each band: summed over an integral image
        elsewhere = cv2.integral(((owner != 0) & (owner != k + 1)).astype(np.uint8))
        open_bands = [
            (index, inside, outside)
            for index, (inside, outside) in enumerate(bands)
            if _share(elsewhere, outside) <= 0.1
        ]
        if not open_bands:  # a card with cards all round (inside a grid): nothing to judge
            pieces.append([])
            continue
        cut = cv2.warpPerspective(image_rgb, warp, size, flags=cv2.INTER_AREA)
        lab = cv2.cvtColor(cut, cv2.COLOR_RGB2LAB).astype(np.float32)
        lab[..., 0] *= 100.0 / 255.0
        lab[..., 1:] -= 128.0
        pieces.append(
            [
                (
                    index % 4,  # _edge_bands gives the four sides of each piece in turn
                    index // 4,
                    _median_colour(lab[inside]),
                    _median_colour(lab[outside]),
                )
                for index, inside, outside in open_bands
            ]
        )
    outsides = [o for judged in pieces for *_, o in judged]
    if not outsides:
        return [[] for _ in corners]
    table = np.median(np.array(outsides), axis=0)
    return [
        [
            EdgePiece(
                side,
                piece,
                float(np.linalg.norm(i - o)),
                float(np.linalg.norm(o - table)),
                _hand_coloured(o),
            )
            for side, piece, i, o in judged
        ]
        for judged in pieces
    ]


def _in_a_row(pieces: list[EdgePiece], count: int, *, gone: bool = False) -> bool:
    """Whether ``count`` bridged pieces (with ``gone``: pieces whose edge is gone,
    :attr:`EdgePiece.gone`) lie next to each other along one side."""
    marked = {(p.side, p.piece) for p in pieces if (p.gone if gone else p.bridged)}
    return any(all((side, piece + k) in marked for k in range(count)) for side, piece in marked)


def crossed_edges(image_rgb: np.ndarray, corners: list[np.ndarray]) -> list[bool]:
    """Per card (corners TL, TR, BR, BL in the photo), whether something lies across its edge.

    A card on a table shows an edge all round: its print or border against the table. A thumb
    or a hand over the card runs on past its edge, and there the edge is gone -- the same colour
    just inside and just outside, a colour that is not the table's and could be a hand's (a
    play mat or a glare beside a card is not: :data:`HAND_LAB`). Pieces whose outside band
    lies on another card or off the photo are not judged (cards side by side in a grid: only the
    layout's outer edges, where a hand comes in, are).

    A card is crossed from :data:`EDGE_MIN_PIECES` bridged pieces on, anywhere (a layout
    photo's rule; a board's reader asks for them in a row, see :func:`hands_over_board`).
    """
    contrasts = edge_contrasts(image_rgb, corners)
    return [sum(p.bridged for p in judged) >= EDGE_MIN_PIECES for judged in contrasts]


def hands_over_board(
    image_rgb: np.ndarray,
    cell_quads: np.ndarray,
    labels: list[list[str]],
    scores: np.ndarray | None = None,
) -> np.ndarray:
    """(rows, cols) bool: the board's cards with something across their edge (a thumb over an
    edge card): :func:`crossed_edges`'s judged pieces, the bridged ones in a row.

    ``cell_quads`` (rows, cols, 4, 2) are the grid's cells in ``image_rgb`` (TL, TR, BR, BL as
    the cards stand), ``labels`` the read; empty cells are not judged (their table is the
    outside of their neighbours' edges). Why in a row: a board shows many more edges than a
    layout photo, and a card laid a few millimetres off its cell lets its own light border
    show outside the cell's edge here and there (a hand's colour, not the table's); a thumb
    bridges pieces next to each other. On development boards of their own seeds (the stand-in
    deck's real-table set, seed 4431, 40 photos, and five look-alike decks' boards, seeds 2811,
    4001, 5511, 6601 and 7301, 10 each; 1,616 cards nothing lay over) it took 3 clean cards
    for covered, against 5 without the rule, and found 24 of the 34 cards a thumb covered by
    15 % or more (26 without it), among them 4 of the 7 no other check flagged. A thumb in
    shade or under a colour cast is not a hand's colour here, and a finger narrower than two
    pieces bridges one: those stay to the colour check (:mod:`vision.reptile_tank.coverage`)
    -- unless the card also matches its face less than well: with ``scores`` (rows, cols: each
    read's cosine to its face), a card under :data:`EDGE_WEAK_CARD` is crossed too where its
    edge is gone over pieces in a row, whatever the colour past it (:attr:`EdgePiece.gone`).
    """
    rows, cols = len(labels), len(labels[0])
    out = np.zeros((rows, cols), bool)
    cards = [(r, c) for r in range(rows) for c in range(cols) if labels[r][c] != EMPTY]
    if not cards:
        return out
    quads = [np.asarray(cell_quads[r][c], np.float64) for r, c in cards]
    for (r, c), judged in zip(cards, edge_contrasts(image_rgb, quads), strict=True):
        weak = scores is not None and float(scores[r][c]) < EDGE_WEAK_CARD
        out[r, c] = _in_a_row(judged, EDGE_MIN_PIECES) or (
            weak and _in_a_row(judged, EDGE_MIN_PIECES, gone=True)
        )
    return out
