"""The stand-in Nimalia deck and the synthetic reserve photos: art follows the card data."""

from __future__ import annotations

import numpy as np
import pytest

from scoring.nimalia.cards import EMPTY, SQUARE_KINDS, TURN_QUARTERS, cards, turn
from vision.nimalia.deck import PAINTED, STAND_IN, VARIANT, deck_sheet, draw_square, render_card
from vision.nimalia.scene import crop_to_bbox, render_reserve, sample_reserve, visible_frame


def _quarters(img: np.ndarray) -> list[np.ndarray]:
    h = img.shape[0] // 2
    return [img[:h, :h], img[:h, h:], img[h:, :h], img[h:, h:]]


@pytest.mark.parametrize("style", [STAND_IN, PAINTED], ids=lambda s: s.name)
@pytest.mark.parametrize("card_id", [1, 36, 59])
@pytest.mark.parametrize("degrees", [90, 180, 270])
def test_a_turned_card_shows_its_quarters_turned(card_id, degrees, style):
    flat = _quarters(render_card(card_id, style=style, px_per_mm=1.5))
    turned = _quarters(render_card(card_id, style=style, px_per_mm=1.5, turn=degrees))
    for new, old in enumerate(TURN_QUARTERS[degrees]):
        expected = np.rot90(flat[old], k=-(degrees // 90))
        # the card's printed edge and rounded corners sit on different sides after a turn
        inner = slice(8, -8)
        assert np.array_equal(turned[new][inner, inner], expected[inner, inner])


def _river_share(img: np.ndarray, direction: str) -> float:
    """Share of river-coloured pixels along a diagonal (away from the animal in the centre)."""
    n = img.shape[0]
    colours = [np.array(c, np.int32) for c in STAND_IN.river]  # band and its highlight
    ts = np.linspace(0.06, 0.2, 8)
    pts = [(t, 1 - t) for t in ts] if direction == "/" else [(t, t) for t in ts]
    hits = [
        min(np.abs(img[int(y * n), int(x * n)].astype(np.int32) - c).sum() for c in colours) < 30
        for x, y in pts
    ]
    return float(np.mean(hits))


@pytest.mark.parametrize("land", ["S", "J", "I"])
def test_rivers_are_drawn_along_their_diagonal(land):
    slash = draw_square(f"{land}:ott/", 120)
    back = draw_square(f"{land}:ott\\", 120)
    assert _river_share(slash, "/") > 0.7 and _river_share(slash, "\\") < 0.3
    assert _river_share(back, "\\") > 0.7 and _river_share(back, "/") < 0.3


def test_every_kind_is_drawn_distinctly_in_every_style():
    for style in (STAND_IN, VARIANT, PAINTED):
        imgs = [draw_square(k, 64, style, seed=3).astype(np.float32) for k in SQUARE_KINDS]
        for i in range(len(imgs)):
            for j in range(i + 1, len(imgs)):
                assert np.abs(imgs[i] - imgs[j]).mean() > 5, (SQUARE_KINDS[i], SQUARE_KINDS[j])
    # the variant deck is drawn differently, not recoloured pixel for pixel
    a = draw_square("W:cro", 64, STAND_IN).astype(np.float32)
    b = draw_square("W:cro", 64, VARIANT).astype(np.float32)
    assert np.abs(a - b).mean() > 20


def test_the_painted_style_paints_a_card_as_one_picture():
    """Two squares of one land meet without a seam; squares of two lands meet along a wavy
    line near their border, not along the straight line the other styles draw."""
    img = render_card(10, style=PAINTED, px_per_mm=3.0).astype(np.float32)  # S:lio S:gir / ...
    half = img.shape[0] // 2
    assert [s.land for s in cards()[10].squares][:2] == ["S", "S"]
    rows = slice(half // 10, half // 4)  # above the animals, below the printed edge

    def step(col: int) -> float:  # colour change across one column of pixels
        return float(np.abs(img[rows, col + 1] - img[rows, col - 1]).mean())

    seam = step(half)
    within = np.median([step(c) for c in range(half // 3, 2 * half // 3)])
    assert seam < 2.5 * within
    lands = {s.land for s in cards()[1].squares[:2]}
    assert len(lands) == 2  # card 1: two lands side by side on top
    one = render_card(1, style=PAINTED, px_per_mm=3.0).astype(np.float32)
    # where the two top lands meet moves along the border: the column of the strongest change
    # differs from row to row
    peaks = [int(np.abs(np.diff(one[r, half - 20 : half + 20], axis=0)).sum(-1).argmax())
             for r in range(half // 10, half // 2, 4)]  # fmt: skip
    assert max(peaks) - min(peaks) >= 3


def test_deck_sheet_holds_all_sixty_cards():
    deck = {cid: render_card(cid, px_per_mm=0.6) for cid in cards()}
    sheet = deck_sheet(deck, cols=10, width=40)
    assert sheet.shape[1] == 10 * 48 + 8 and sheet.shape[0] == 6 * (40 + 22 + 8) + 8


def test_sampled_reserves_are_legal_and_fit_six_by_six():
    rng = np.random.default_rng(4)
    for _ in range(50):
        placements = sample_reserve(rng)
        assert len(placements) in (3, 6, 9, 12, 15)
        assert len({p["card"] for p in placements}) == len(placements)
        occ = np.zeros((6, 6), bool)
        for k, p in enumerate(placements):
            assert 0 <= p["row"] <= 4 and 0 <= p["col"] <= 4 and p["turn"] in (0, 90, 180, 270)
            if k:
                assert occ[p["row"] : p["row"] + 2, p["col"] : p["col"] + 2].any()
            occ[p["row"] : p["row"] + 2, p["col"] : p["col"] + 2] = True


def test_visible_squares_follow_placement_order():
    placements = [
        {"card": 36, "row": 0, "col": 0, "turn": 0},
        {"card": 1, "row": 1, "col": 1, "turn": 90},
    ]
    frame = visible_frame(placements)
    later = [s.token for s in turn(1, 90)]
    assert frame[0][0] == "J:pan" and frame[0][1] == "W:fla" and frame[1][0] == "S:ott/"
    assert [frame[1][1], frame[1][2], frame[2][1], frame[2][2]] == later
    squares, bbox = crop_to_bbox(frame)
    assert bbox == [0, 0, 3, 3] and squares[2][0] == EMPTY


def test_rendered_truth_is_exact_and_deterministic():
    a, truth = render_reserve(7, size=(640, 480), degrade=False, distractors=False)
    b, truth_b = render_reserve(7, size=(640, 480), degrade=False, distractors=False)
    assert np.array_equal(a, b) and truth == truth_b
    assert a.shape == (480, 640, 3)
    frame = visible_frame(truth["placements"])
    assert crop_to_bbox(frame)[0] == truth["squares"]
    r0, c0, nr, nc = truth["bbox"]
    assert len(truth["lattice"]) == nr + 1 and len(truth["lattice"][0]) == nc + 1
    for r, row in enumerate(truth["squares"]):
        for c, token in enumerate(row):
            quad = truth["square_quads"][r][c]
            assert (quad is None) == (token == EMPTY)
            if quad is not None:
                q = np.array(quad)
                assert (q >= -1).all() and (q[:, 0] <= 641).all() and (q[:, 1] <= 481).all()
