"""Enrolment from photos of cards laid out (vision.reptile_tank.enrol): each card found by its
own outline wherever it lies, names given card by card, the clearest view taken as the face."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.errors import GridNotFoundError
from vision.reptile_tank.enrol import LayoutCards, find_loose_cards, layout_cards, named_faces


def table_with_cards(labels: list[str], centres, angles, size=(1200, 900)) -> np.ndarray:
    """A plain grey table with each face pasted at ``centre`` (px) turned ``angle`` degrees."""
    from vision.reptile_tank.synth.deck import render_face

    w, h = size
    rng = np.random.default_rng(0)
    canvas = np.clip(rng.normal(120, 6, (h, w, 3)), 0, 255).astype(np.uint8)
    for label, (cx, cy), angle in zip(labels, centres, angles, strict=True):
        face = render_face(label, px_per_mm=2.5)
        fh, fw = face.shape[:2]
        turn = cv2.getRotationMatrix2D((fw / 2, fh / 2), angle, 1.0)
        turn[:, 2] += (cx - fw / 2, cy - fh / 2)
        warped = cv2.warpAffine(face, turn, (w, h))
        mask = cv2.warpAffine(np.full((fh, fw), 255, np.uint8), turn, (w, h))
        canvas[mask > 128] = warped[mask > 128]
    return canvas


def test_cards_laid_anywhere_are_found_by_their_outlines_in_reading_order():
    labels = ["rock", "water", "corn_snake", "hollow_log"]
    centres = [(300, 200), (800, 230), (320, 640), (850, 660)]  # two rows, a little askew
    photo = table_with_cards(labels, centres, angles=[12, -8, 5, -15])
    quads = find_loose_cards(photo)
    assert len(quads) == 4
    found = [q.mean(axis=0) for q in quads]
    assert np.allclose(found, centres, atol=8)  # row by row, left to right
    for quad in quads:  # TL, TR, BR, BL of the card upright: the top edge on top
        assert quad[0, 1] < quad[3, 1] and quad[1, 1] < quad[2, 1]
        assert np.linalg.norm(quad[1] - quad[0]) < np.linalg.norm(quad[3] - quad[0])
    laid = layout_cards(photo, grid=False)
    assert laid.source == "loose" and len(laid.cards) == 4
    assert all(card.shape == (352, 252, 3) for card in laid.cards)


def test_two_cards_laid_by_hand_touching_at_a_corner_are_both_found():
    # the rock and water cards lean together until their top corners touch: their outlines
    # join into one contour that is no quad
    labels = ["rock", "water", "corn_snake", "hollow_log"]
    centres = [(300, 250), (486, 250), (300, 620), (560, 640)]
    photo = table_with_cards(labels, centres, angles=[-9, 9, 3, -4])
    quads = find_loose_cards(photo)
    assert len(quads) == 4
    assert np.allclose([q.mean(axis=0) for q in quads], centres, atol=8)


def test_a_card_shaped_patch_of_table_is_no_card():
    from vision.reptile_tank.enrol import _card_like, _colour_edges

    photo = table_with_cards(["rock"], [(300, 250)], [0], size=(700, 500))
    hole = np.array([[450, 140], [607, 140], [607, 360], [450, 360]], np.float64)
    outlined = photo.copy()
    cv2.polylines(outlined, [hole.astype(np.int32)], True, (250, 250, 250), 3)  # edges all round
    card = np.array([[222, 140], [379, 140], [379, 360], [222, 360]], np.float64)
    for image, quad, expected in (
        (outlined, card, True),
        (outlined, hole, False),
        (photo, hole, False),
    ):
        lab = cv2.cvtColor(image.astype(np.float32) / 255.0, cv2.COLOR_RGB2LAB)
        near_edges = cv2.dilate(_colour_edges(image), np.ones((5, 5), np.uint8))
        assert _card_like(lab, near_edges, quad) is expected


def test_a_bare_table_has_no_card():
    with pytest.raises(GridNotFoundError, match="no card found"):
        layout_cards(table_with_cards([], [], []), grid=False)


def cards(n: int, value: int = 100) -> list[np.ndarray]:
    rng = np.random.default_rng(value)
    return [rng.integers(0, 255, (352, 252, 3), dtype=np.uint8) for _ in range(n)]


def test_names_are_one_per_card_and_say_what_is_wrong():
    photos = [LayoutCards(cards(3), [], "loose"), LayoutCards(cards(2), [], "loose")]
    faces, views = named_faces(photos, ["rock", "-", "water", "skip", "rock"])
    assert sorted(faces) == ["rock", "water"] and len(views["rock"]) == 1
    with pytest.raises(ValueError, match=r"4 name\(s\) given for 5 card\(s\) found \(3 \+ 2"):
        named_faces(photos, ["rock"] * 4)
    with pytest.raises(ValueError, match="unknown card id.*dragon"):
        named_faces(photos, ["rock", "dragon", "-", "-", "-"])
    with pytest.raises(ValueError, match="not the documented layout"):
        named_faces(photos)  # loose cards need names


def test_a_neighbours_cards_further_off_are_not_the_layouts():
    # eight cards of the layout in two touching rows in the middle, three of a neighbour's
    # terrarium a card's height off to the right
    layout = [(250 + 170 * k, 330 + 240 * r) for r in range(2) for k in range(4)]
    neighbour = [(1190, 330), (1190, 570), (1360, 450)]
    labels = ["rock", "water", "corn_snake", "hollow_log", "rosy_boa", "dubia_roach",
              "brown_anole", "golden_pothos", "rock", "water", "corn_snake"]  # fmt: skip
    photo = table_with_cards(labels, layout + neighbour, [0] * 11, size=(1500, 900))
    quads = find_loose_cards(photo)
    assert len(quads) == 8
    assert np.allclose([q.mean(axis=0) for q in quads], layout, atol=8)
    # the same neighbour alone in the photo's middle is a layout of its own
    alone = table_with_cards(labels[8:], [(c[0] - 500, c[1]) for c in neighbour], [0] * 3,
                             size=(1500, 900))  # fmt: skip
    assert len(find_loose_cards(alone)) == 3


def documented_photo() -> np.ndarray:
    """The 16 stand-in faces in the documented layout (three rows of five, the 16th alone in
    the fourth row's first place) on a plain table, seen from above."""
    from scoring.reptile_tank.cards import FACE_LABELS

    centres = [(150 + 150 * (k % 5), 130 + 215 * (k // 5)) for k in range(len(FACE_LABELS))]
    return table_with_cards(list(FACE_LABELS), centres, [0] * 16, size=(900, 1000))


@pytest.fixture(scope="module")
def documented():
    from vision.reptile_tank.grid import find_grid

    photo = documented_photo()
    fit = find_grid(photo)
    laid = layout_cards(photo)
    assert laid.documented_layout and not any(laid.assumed)  # the photo is a fair start
    return photo, fit, laid


def test_a_lattice_one_row_off_the_documented_layout_is_moved_back(documented):
    from vision.reptile_tank.enrol import _documented_nearby, loose_cards

    photo, fit, laid = documented
    up = fit.shifted_lines(-1, 0)  # the lattice one row up: the 16th card falls out of it
    outlines, _ = loose_cards(photo)
    moved = _documented_nearby(photo, up, outlines, (252, 352))
    assert moved is not None and moved.documented_layout and not any(moved.assumed)
    assert np.allclose(
        [q.mean(axis=0) for q in moved.corners], [q.mean(axis=0) for q in laid.corners], atol=3
    )


def test_a_preferred_lattice_off_the_layout_gives_way_to_a_hypothesis_on_its_cards(
    documented, monkeypatch
):
    # the grid finder's preferred lattice lies two columns off the cards (as a lattice of half
    # cards across a strongly tilted layout's far rows does): no lattice one line off it is
    # the layout, but another of the finder's hypotheses is
    from dataclasses import replace

    import vision.reptile_tank.grid as grid

    photo, fit, laid = documented
    off = fit.shifted_lines(0, 2)
    off = replace(
        off, occupancy=np.ones(off.occupied.shape), occupied=np.ones(off.occupied.shape, bool)
    )
    monkeypatch.setattr(grid, "find_grid", lambda image: off)
    found = layout_cards(photo)
    assert found.documented_layout
    assert np.allclose(
        [q.mean(axis=0) for q in found.corners], [q.mean(axis=0) for q in laid.corners], atol=3
    )


def test_a_layout_whose_extent_the_grid_finder_cannot_settle_is_found_among_its_hypotheses(
    documented, monkeypatch
):
    # a neighbour's cards in line with the layout: the finder cannot tell which 4 x 5 window
    # is the grid and finds none; its hypotheses still show the documented layout
    from dataclasses import replace

    import vision.reptile_tank.grid as grid
    from vision.reptile_tank.grid.lattice import EXTENT_IN_DOUBT

    photo, fit, laid = documented

    def refused(reason):
        def find(image):
            raise GridNotFoundError(f"no terrarium found: {reason}", replace(fit, reason=reason))

        return find

    monkeypatch.setattr(grid, "find_grid", refused(f"{EXTENT_IN_DOUBT}: 5 row(s) x 6 column(s)"))
    found = layout_cards(photo)
    assert found.documented_layout
    assert np.allclose(
        [q.mean(axis=0) for q in found.corners], [q.mean(axis=0) for q in laid.corners], atol=3
    )
    # a photo the finder sees no lattice of cards in is not taken from its hypotheses: a few
    # loose cards, a board too small to see, would take a lattice of half cards for a layout
    monkeypatch.setattr(grid, "find_grid", refused("too few separate cards found (5) in the grid"))
    assert layout_cards(photo).source == "loose"


def test_an_unsure_place_of_the_documented_layout_is_assumed_a_sure_empty_one_is_not(documented):
    from dataclasses import replace

    from vision.reptile_tank.enrol import _documented_nearby, loose_cards

    photo, fit, _ = documented
    every, _ = loose_cards(photo)
    # the outline finder misses the card at (1, 3) too (glare over a light card)
    centre = fit.cell_quads[1, 3].mean(axis=0)
    outlines = [q for q in every if np.linalg.norm(q.mean(axis=0) - centre) > 40]
    assert len(outlines) == len(every) - 1

    def with_place(place, evidence):
        occupancy = np.where(fit.occupied, 1.0, 0.0)
        occupancy[place] = evidence
        return replace(fit, occupancy=occupancy, occupied=occupancy > 0.5)

    assumed = _documented_nearby(photo, with_place((1, 3), 0.4), outlines, (252, 352))
    assert assumed is not None and assumed.documented_layout
    assert [k for k, a in enumerate(assumed.assumed) if a] == [8]  # the 9th face, row 2 col 4
    assert _documented_nearby(photo, with_place((1, 3), 0.1), outlines, (252, 352)) is None
    # where the card's own outline is seen, the place holds it whatever the finder's evidence
    seen = _documented_nearby(photo, with_place((1, 3), 0.1), every, (252, 352))
    assert seen is not None and seen.documented_layout and not any(seen.assumed)
    assert seen.own_outline[8]
    # a card past the 16th place: not the documented layout, nothing assumed
    extra = with_place((1, 3), 0.4)
    occupancy = extra.occupancy.copy()
    occupancy[3, 2] = 1.0
    extra = replace(extra, occupancy=occupancy, occupied=occupancy > 0.5)
    assert _documented_nearby(photo, extra, outlines, (252, 352)) is None


def test_unsure_faces_are_named_as_the_faces_are():
    from scoring.reptile_tank.cards import FACE_LABELS
    from vision.reptile_tank.enrol import unsure_faces

    first = [(k // 5, k % 5) for k in range(16)]
    ninth = [k == 8 for k in range(16)]
    documented = LayoutCards(cards(16), [], "grid", cells=first, grid_shape=(4, 5),
                             own_outline=[True] * 16, assumed=ninth)  # fmt: skip
    assert unsure_faces([documented]) == [FACE_LABELS[8]]
    loose = LayoutCards(cards(3), [], "grid", cells=first[:3], grid_shape=(4, 5),
                        own_outline=[True] * 3, assumed=[False, True, True])  # fmt: skip
    assert unsure_faces([loose], ["rock", "water", "skip"]) == ["water"]
    assert unsure_faces([documented, loose], [*FACE_LABELS, "rock", "water", "-"]) == [
        FACE_LABELS[8],
        "water",
    ]
    # of two cuts of a face, the one kept decides: the assumed cut kept, the face is unsure
    names = [*FACE_LABELS, "rock", "water", "-"]
    kept = {
        FACE_LABELS[8]: documented.cards[8],
        "water": documented.cards[FACE_LABELS.index("water")],
    }
    assert unsure_faces([documented, loose], names, kept) == [FACE_LABELS[8]]
    kept["water"] = loose.cards[1]
    kept[FACE_LABELS[8]] = cards(1, 7)[0]  # another photo's cut kept instead
    assert unsure_faces([documented, loose], names, kept) == ["water"]


@pytest.mark.parametrize("covered_first", [True, False])
def test_of_two_photos_the_face_is_the_cut_without_a_thumb(covered_first):
    from vision.reptile_tank.synth.deck import render_face

    clean = np.ascontiguousarray(cv2.resize(render_face("blue_tongued_skink", px_per_mm=4.0),
                                            (252, 352)))  # fmt: skip
    thumbed = clean.copy()
    cv2.ellipse(thumbed, (252, 120), (90, 60), 0, 0, 360, (214, 150, 120), -1)  # from the edge
    first, second = (thumbed, clean) if covered_first else (clean, thumbed)
    photos = [LayoutCards([first], [], "loose"), LayoutCards([second], [], "loose")]
    faces, views = named_faces(photos, ["blue_tongued_skink", "blue_tongued_skink"])
    assert faces["blue_tongued_skink"] is clean
    assert len(views["blue_tongued_skink"]) == 1 and views["blue_tongued_skink"][0] is thumbed


def test_the_documented_rows_are_the_faces_row_by_row_then_empty_places() -> None:
    from scoring.reptile_tank.cards import EMPTY, FACE_LABELS
    from vision.reptile_tank.enrol import documented_rows

    rows = documented_rows()
    assert [len(row) for row in rows] == [5, 5, 5, 5]
    assert [label for row in rows for label in row][:16] == list(FACE_LABELS)
    assert rows[3][1:] == [EMPTY] * 4
    assert documented_rows(4, 4) == [list(FACE_LABELS[k : k + 4]) for k in range(0, 16, 4)]
    with pytest.raises(ValueError, match="no room"):
        documented_rows(3, 5)


def _thumb(photo: np.ndarray, tip: tuple[int, int], out: tuple[int, int]) -> np.ndarray:
    """A thumb (a skin-toned capsule) from ``tip`` on a card running out to ``out``."""
    thumbed = photo.copy()
    cv2.line(thumbed, tip, out, (214, 150, 120), 70, cv2.LINE_AA)
    cv2.circle(thumbed, tip, 35, (214, 150, 120), -1, cv2.LINE_AA)
    return thumbed


def test_a_thumb_over_a_cards_edge_marks_that_card_crossed_and_no_other():
    from vision.reptile_tank.enrol import crossed_edges

    labels = ["rock", "water", "corn_snake", "hollow_log"]
    centres = [(300, 200), (800, 230), (320, 640), (850, 660)]
    photo = table_with_cards(labels, centres, angles=[4, -3, 2, -5])
    laid = layout_cards(photo, grid=False)
    assert laid.crossed == [False] * 4  # a clean table: every edge shows
    thumbed = _thumb(photo, (850, 700), (1150, 880))  # over the bottom-right card, out of frame
    assert crossed_edges(thumbed, laid.corners) == [False, False, False, True]
    # a second photo's clean cut of the covered card is kept as the face
    photos = [
        LayoutCards([laid.cards[3]], [laid.corners[3]], "loose", crossed=[True]),
        LayoutCards([laid.cards[0]], [laid.corners[0]], "loose", crossed=[False]),
    ]
    faces, views = named_faces(photos, ["hollow_log", "hollow_log"])
    assert faces["hollow_log"] is laid.cards[0] and views["hollow_log"][0] is laid.cards[3]


def test_a_glare_or_a_mats_colour_over_a_cards_edge_is_no_thumb():
    from vision.reptile_tank.enrol import crossed_edges

    labels = ["rock", "water", "corn_snake", "hollow_log"]
    centres = [(300, 200), (800, 230), (320, 640), (850, 660)]
    photo = table_with_cards(labels, centres, angles=[4, -3, 2, -5])
    corners = layout_cards(photo, grid=False).corners
    for colour in ((250, 250, 250), (40, 90, 200), (30, 140, 60)):  # a glare, a blue or green mat
        spot = photo.copy()
        cv2.line(spot, (850, 700), (1150, 880), colour, 70, cv2.LINE_AA)
        cv2.circle(spot, (850, 700), 35, colour, -1, cv2.LINE_AA)
        assert crossed_edges(spot, corners) == [False] * 4, colour
    assert crossed_edges(_thumb(photo, (850, 700), (1150, 880)), corners)[3]


def test_a_sparse_layouts_places_without_a_card_outline_count_only_where_the_grid_is_sure():
    from types import SimpleNamespace

    from vision.reptile_tank.enrol import SURE_PLACE, _sure_places

    found = LayoutCards(
        cards(3), [np.zeros((4, 2))] * 3, "grid", cells=[(0, 0), (0, 2), (1, 1)],
        own_outline=[True, False, False], grid_shape=(2, 3), assumed=[False] * 3,
    )  # fmt: skip
    occupancy = np.array([[0.3, 0.0, SURE_PLACE - 0.1], [0.0, SURE_PLACE + 0.1, 0.0]])
    kept = _sure_places(found, SimpleNamespace(occupancy=occupancy))
    assert kept.cells == [(0, 0), (1, 1)] and kept.own_outline == [True, False]
    assert kept.cards[1] is found.cards[2]


def test_cards_side_by_side_are_not_taken_for_a_thumb():
    from vision.reptile_tank.enrol import crossed_edges

    # two rock cards touching (a tight grid): the edge between them has the same colours on
    # both sides, and is not judged; a thumb over the pair's outer edge still is
    w, h = 63 * 2.5, 88 * 2.5
    centres = [(400, 400), (400 + w, 400)]
    photo = table_with_cards(["rock", "rock"], centres, angles=[0, 0])
    corners = [np.array([[x - w / 2, y - h / 2], [x + w / 2, y - h / 2], [x + w / 2, y + h / 2],
                         [x - w / 2, y + h / 2]]) for x, y in centres]  # fmt: skip
    assert crossed_edges(photo, corners) == [False, False]
    thumbed = _thumb(photo, (int(400 + w), 480), (int(400 + w) + 380, 620))
    assert crossed_edges(thumbed, corners) == [False, True]


def test_a_crossed_face_is_unsure():
    from scoring.reptile_tank.cards import FACE_LABELS
    from vision.reptile_tank.enrol import unsure_faces

    first = [(k // 5, k % 5) for k in range(16)]
    fifth = [k == 4 for k in range(16)]
    documented = LayoutCards(cards(16), [], "grid", cells=first, grid_shape=(4, 5),
                             own_outline=[True] * 16, crossed=fifth)  # fmt: skip
    assert unsure_faces([documented]) == [FACE_LABELS[4]]


def test_one_outline_after_the_16th_place_is_a_mats_spot_four_are_a_full_board():
    places = [(k // 5, k % 5) for k in range(20)]

    def laid(n: int, extra_outlines: int) -> LayoutCards:
        outlines = [True] * 16 + [k < extra_outlines for k in range(n - 16)]
        return LayoutCards(cards(n), [], "grid", cells=places[:n], grid_shape=(4, 5),
                           own_outline=outlines)  # fmt: skip

    assert laid(16, 0).documented_layout
    assert laid(17, 1).documented_layout  # a printed spot on the mat taken for a card
    assert laid(18, 0).documented_layout  # places the finder called occupied, no card outline
    assert not laid(18, 2).documented_layout
    assert not laid(20, 4).documented_layout  # a full board


def _card_on_table(rim_rgb, table_rgb=(70, 50, 35), rim=6, outside_band=None):
    """A 200 x 280 px card at (100, 100) on a plain table: a ``rim`` px border of ``rim_rgb``
    round a green panel with a pattern; ``outside_band``: (rgb, px) painted round the card."""
    image = np.zeros((500, 420, 3), np.uint8)
    image[:] = table_rgb
    if outside_band is not None:
        colour, width = outside_band
        image[100 - width : 380 + width, 100 - width : 300 + width] = colour
    image[100:380, 100:300] = rim_rgb
    image[100 + rim : 380 - rim, 100 + rim : 300 - rim] = (30, 150, 60)
    image[200:260, 150:250] = (200, 40, 120)
    lab = cv2.cvtColor(image.astype(np.float32) / 255.0, cv2.COLOR_RGB2LAB)
    outer = np.array([[100, 100], [300, 100], [300, 380], [100, 380]], np.float64)
    table = np.array(cv2.cvtColor(np.float32([[table_rgb]]) / 255.0, cv2.COLOR_RGB2LAB)[0, 0])
    return lab, outer, table


def test_an_outline_along_the_inside_of_a_cards_light_rim_grows_to_its_outer_edge():
    from vision.reptile_tank.enrol import _to_outer_edge

    lab, outer, table = _card_on_table(rim_rgb=(235, 228, 205))
    inner = outer + np.array([[6, 6], [-6, 6], [-6, -6], [6, -6]])  # the rim left out
    grown = _to_outer_edge(lab, inner, table)
    assert np.abs(grown - outer).max() <= 1.5
    # the card's own outline stays where it is
    assert np.abs(_to_outer_edge(lab, outer, table) - outer).max() <= 1e-9


def test_a_cards_shadow_or_the_table_round_it_is_not_taken_for_its_rim():
    from vision.reptile_tank.enrol import _to_outer_edge

    # the card's shadow: the table's colour, darker, just outside the card
    lab, outer, table = _card_on_table(rim_rgb=(235, 228, 205), outside_band=((35, 25, 17), 5))
    assert np.abs(_to_outer_edge(lab, outer, table) - outer).max() <= 1e-9
    # a rim of the table's own colour: nothing tells the card from the table, it stays
    lab, outer, table = _card_on_table(rim_rgb=(70, 50, 35))
    inner = outer + np.array([[6, 6], [-6, 6], [-6, -6], [6, -6]])
    assert np.abs(_to_outer_edge(lab, inner, table) - inner).max() <= 1e-9


#: The table of the snapping tests (RGB), and a card's rim on it.
SNAP_TABLE, SNAP_RIM = (70, 50, 35), (235, 228, 205)


def _card_off_its_cell(turn_deg: float, shift) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(image, cell, card)``: a bare table and a 200 x 280 px cell on it, and where a card
    turned ``turn_deg`` and shifted by ``shift`` px from that cell lies (not drawn yet)."""
    image = np.zeros((520, 460, 3), np.uint8)
    image[:] = SNAP_TABLE
    cell = np.array([[130, 120], [330, 120], [330, 400], [130, 400]], np.float64)
    centre = cell.mean(axis=0)
    turn = np.radians(turn_deg)
    spin = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    return image, cell, (cell - centre) @ spin.T + centre + shift


def _snapped(image: np.ndarray, cell: np.ndarray) -> np.ndarray:
    from vision.reptile_tank.enrol import _snap_to_table

    lab = cv2.cvtColor(image.astype(np.float32) / 255.0, cv2.COLOR_RGB2LAB)
    table = cv2.cvtColor(np.float32([[SNAP_TABLE]]) / 255.0, cv2.COLOR_RGB2LAB)[0, 0]
    return _snap_to_table(lab, cell, np.array(table))


def test_a_card_laid_off_its_cell_is_cut_where_it_lies():
    # a card turned 3 degrees and shifted (9, -7) px from its cell, on a table
    image, cell, card = _card_off_its_cell(3.0, (9, -7))
    cv2.fillPoly(image, [np.round(card).astype(np.int32)], SNAP_RIM)
    inner = cell.mean(axis=0) + (card - cell.mean(axis=0)) * 0.9
    cv2.fillPoly(image, [np.round(inner).astype(np.int32)], (30, 150, 60))
    assert np.abs(_snapped(image, cell) - card).max() <= 2.0
    # a card on its cell stays there
    image[:] = SNAP_TABLE
    cv2.fillPoly(image, [np.round(cell).astype(np.int32)], SNAP_RIM)
    assert np.abs(_snapped(image, cell) - cell).max() <= 1.0


def test_a_card_among_touching_cards_is_snapped_by_the_two_sides_facing_the_table():
    # a far row's card, shifted (-8, 10) px from its cell and turned 2 degrees; its neighbour
    # touches its left side and the next row's card its bottom side: only the top and right
    # sides end at the table
    image, cell, card = _card_off_its_cell(2.0, (-8, 10))
    left, right = int(card[:, 0].min()) + 10, int(card[:, 0].max())
    top, bottom = int(card[:, 1].min()), int(card[:, 1].max()) - 10
    image[top:, :left] = (40, 90, 200)  # the neighbour
    image[bottom:, :right] = (40, 90, 200)  # the next row's card
    cv2.fillPoly(image, [np.round(card).astype(np.int32)], SNAP_RIM)
    assert np.abs(_snapped(image, cell) - card).max() <= 2.0


def _upright_cell(centre, px_per_mm: float = 2.5) -> np.ndarray:
    """An upright card-sized cell (TL, TR, BR, BL) about ``centre`` in a photo of
    :func:`table_with_cards` (2.5 px/mm)."""
    w, h = 63 * px_per_mm, 88 * px_per_mm
    x, y = centre
    return np.array([[x - w / 2, y - h / 2], [x + w / 2, y - h / 2],
                     [x + w / 2, y + h / 2], [x - w / 2, y + h / 2]])  # fmt: skip


@pytest.mark.parametrize("angle", [6.0, -9.0, 12.0])
def test_a_card_turned_on_its_place_is_cut_again_turned_with_its_print(angle):
    from vision.reptile_tank.enrol import _turned_to_print, cut_card, print_angle

    photo = table_with_cards(["corn_snake"], [(600, 450)], angles=[angle])
    cell = _upright_cell((600, 450))  # the card's own size, cut upright as its cell would be
    size = (252, 352)
    straight = cut_card(photo, cell, size)
    assert abs(print_angle(straight)[0] - (-angle)) < 1.5  # cv2 turns counter-clockwise
    quad, card = _turned_to_print(photo, cell, straight, size)
    top = quad[1] - quad[0]
    assert abs(np.degrees(np.arctan2(top[1], top[0])) + angle) < 1.5
    assert abs(print_angle(card)[0]) < 1.0
    assert np.allclose(quad.mean(axis=0), cell.mean(axis=0), atol=1.0)  # turned, not moved


@pytest.mark.parametrize("angle", [0.0, 2.0])
def test_a_card_laid_straight_keeps_its_cut(angle):
    from vision.reptile_tank.enrol import _turned_to_print, cut_card

    photo = table_with_cards(["hollow_log"], [(600, 450)], angles=[angle])
    cell = _upright_cell((600, 450))
    straight = cut_card(photo, cell, (252, 352))
    quad, card = _turned_to_print(photo, cell, straight, (252, 352))
    assert quad is cell and card is straight
