"""Enrolment: one image per face in, upright portrait card faces out.

The command line (``reptile-tank enroll``) and the app's *My deck* page enrol the same way: each
uploaded image goes through :func:`crop_to_card` (a scan is kept, a photo of one card is cut out
and straightened), or a photo of the 16 faces laid out in the layout's grid is cut into its cells by
:func:`faces_from_layout`. The faces then go to :meth:`vision.reptile_tank.gallery.DeckPack.create`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from scoring.reptile_tank.cards import EMPTY, FACE_LABELS
from vision.card_outline import largest_card_quad
from vision.geometry import (
    apply_homography,
    is_convex_quad,
    lines_meet,
    order_quad_clockwise,
    quad_area,
)
from vision.reptile_tank.edge_crossing import crossed_edges

#: A card's width over its height (63 x 88 mm).
CARD_ASPECT = 63.0 / 88.0
#: Size (width, height) of a face cut from a photo: 8 px/mm.
FACE_CUT_SIZE = (504, 704)


def documented_rows(rows: int = 4, cols: int = 5) -> list[list[str]]:
    """The documented layout of the 16 faces as a board's rows: :data:`FACE_LABELS` row by row
    from the top-left place of a ``rows`` x ``cols`` grid, the places after them empty."""
    if rows * cols < len(FACE_LABELS):
        raise ValueError(f"a {rows} x {cols} grid has no room for {len(FACE_LABELS)} faces")
    places = list(FACE_LABELS) + [EMPTY] * (rows * cols - len(FACE_LABELS))
    return [places[r * cols : (r + 1) * cols] for r in range(rows)]


def faces_from_images(images: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """:func:`crop_to_card` applied to every image of a ``label -> (H, W, 3) RGB`` mapping."""
    return {label: crop_to_card(np.asarray(image)) for label, image in images.items()}


def crop_to_card(image_rgb: np.ndarray) -> np.ndarray:
    """Cut the card out of a photo or scan of one card, upright and portrait.

    An image with the card's own aspect (63 × 88 mm, within 3 %) is taken as already cropped (a
    scan or an exported face). Otherwise the largest convex four-sided outline with a card-like
    aspect covering 15–98 % of the image is taken as the card and warped to a 63 × 88 mm
    portrait rectangle; without one the whole image is used. Landscape results are turned 90°
    clockwise.

    Parameters
    ----------
    image_rgb : (H, W, 3) uint8 RGB

    Returns
    -------
    (H', W', 3) uint8 RGB, portrait
    """
    h, w = image_rgb.shape[:2]
    aspect = min(h, w) / max(h, w)
    quad = None
    if abs(aspect - CARD_ASPECT) > 0.03 * CARD_ASPECT:
        quad = largest_card_quad(image_rgb)
    if quad is not None:
        q = order_quad_clockwise(quad.astype(np.float64)).astype(np.float32)
        top = np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])
        side = np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])
        if top > side:  # the card lies landscape: start from the next corner
            q = np.roll(q, -1, axis=0)
        out_w, out_h = FACE_CUT_SIZE
        target = np.array([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]], np.float32)
        matrix = cv2.getPerspectiveTransform(q, target)
        return cv2.warpPerspective(image_rgb, matrix, (out_w, out_h), flags=cv2.INTER_AREA)
    if w > h:
        image_rgb = np.ascontiguousarray(np.rot90(image_rgb, k=-1))
    return image_rgb


def faces_from_layout(image_rgb: np.ndarray) -> dict[str, np.ndarray]:
    """The 16 faces from a photo of them laid out in the grid, row by row in label order.

    The order is :data:`scoring.reptile_tank.cards.FACE_LABELS` (the 15 fronts, then the Water
    back) from the grid's top-left place; the last 4 places stay empty (a card or pattern seen
    there is left out). Each face is cut by its own outline where one is found
    (:func:`layout_cards`), by its grid cell otherwise.

    Raises
    ------
    vision.errors.GridNotFoundError
        No card was found in the photo.
    ValueError
        The cards found are not the 16 places of the documented layout.
    """
    return layout_cards(image_rgb).in_enrolment_order()


# ------------------------------------------------------------------- cards laid anywhere

#: Long side (px) of the working copy the loose-layout card finder searches.
LOOSE_WORK_SIDE = 1200
#: A card seen head-on: its short side over its long side within this of 63 / 88.
_LOOSE_ASPECT_TOL = 0.08
#: ... its opposite sides within this ratio, and its corners this close to square (|cos|:
#: 0.25 is 75.5 degrees; the table's plane is estimated from the outlines themselves and a
#: phone's barrel distortion bends the far row, so a card seen "head-on" is not square there;
#: on 24 development loose layouts, 192 cards, 0.25 finds 176 and 0.15 finds 165, no non-card).
_LOOSE_MAX_OPPOSITE = 1.15
_LOOSE_MAX_COS = 0.25
#: Cards of one photo are the same size: within this factor of the typical card's area.
_LOOSE_AREA_RANGE = (0.6, 1.6)
#: Cards of one layout lie together: two cards whose outlines come within this many card
#: heights of each other, or within :data:`LOOSE_GROUP_SPREAD` times the layout's typical gap
#: (the median gap from a card to its nearest card: a layout spread wide links wide), belong
#: to the same group; only the group nearest the photo's centre is the layout. A layout laid
#: with a card's width (63 mm, 0.72 heights) between two cards stays one group; a neighbour's
#: terrarium lies further off (another player's place; 70-160 mm in the generator, so one in
#: ten of its neighbours still links).
LOOSE_GROUP_GAP = 0.9
LOOSE_GROUP_SPREAD = 2.5


def _gap(a: np.ndarray, b: np.ndarray) -> float:
    """The distance between two convex quads (0 when they overlap)."""
    best = math.inf
    for one, other in ((a, b), (b, a)):
        contour = other.astype(np.float32).reshape(-1, 1, 2)
        for x, y in one:
            d = cv2.pointPolygonTest(contour, (float(x), float(y)), True)
            if d >= 0:
                return 0.0
            best = min(best, -d)
    return float(best)


def layout_group(views: list[np.ndarray], centre: np.ndarray, height: float) -> list[int]:
    """Indices of the cards of the layout among card outlines (``views``, one frame): the
    group of cards linked by small gaps (:data:`LOOSE_GROUP_GAP`, :data:`LOOSE_GROUP_SPREAD`;
    ``height`` is a card's) whose cards lie nearest ``centre`` (the photo's centre in the same
    frame); ties keep the larger group."""
    n = len(views)
    if n < 2:
        return list(range(n))
    gaps = np.full((n, n), np.inf)
    for i in range(n):
        for j in range(i + 1, n):
            gaps[i, j] = gaps[j, i] = _gap(views[i], views[j])
    link = max(LOOSE_GROUP_GAP * height, LOOSE_GROUP_SPREAD * float(np.median(gaps.min(axis=1))))
    group = list(range(n))
    for i in range(n):
        for j in range(i + 1, n):
            if gaps[i, j] < link:
                gi, gj = group[i], group[j]
                group = [gi if g == gj else g for g in group]
    members: dict[int, list[int]] = {}
    for i, g in enumerate(group):
        members.setdefault(g, []).append(i)
    if len(members) == 1:
        return list(range(n))

    def distance(ids: list[int]) -> tuple[float, int]:
        return (min(float(np.linalg.norm(views[i].mean(axis=0) - centre)) for i in ids), -len(ids))

    return sorted(min(members.values(), key=distance))


def _head_on_shape(quad: np.ndarray) -> tuple[float, float, float]:
    """``(short / long side, opposite sides' largest ratio, largest |cos| of a corner)``."""
    q = np.asarray(quad, np.float64)
    edges = np.roll(q, -1, axis=0) - q
    sides = np.linalg.norm(edges, axis=1)
    if sides.min() <= 1e-9:
        return 0.0, np.inf, 1.0
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    opposite = max(max(sides[0], sides[2]) / min(sides[0], sides[2]),
                   max(sides[1], sides[3]) / min(sides[1], sides[3]))  # fmt: skip
    nxt = np.roll(edges, -1, axis=0)
    cos = np.abs(np.sum(edges * nxt, axis=1)) / (sides * np.roll(sides, -1))
    return float(min(a, b) / max(a, b)), float(opposite), float(cos.max())


def _upright_corners(view_quad: np.ndarray) -> np.ndarray:
    """Indices of a head-on card quad's corners as TL, TR, BR, BL of the card upright: the
    long sides vertical, the top the side nearest the view's up (the player's far side)."""
    q = order_quad_clockwise(np.asarray(view_quad, np.float64))
    best, best_cost = 0, np.inf
    for start in range(4):
        r = np.roll(q, -start, axis=0)
        top, left = r[1] - r[0], r[3] - r[0]
        if np.linalg.norm(top) > np.linalg.norm(left):
            continue  # that start would make the card landscape
        # the top edge's direction should point along +x: the angle to (1, 0)
        cost = abs(math.atan2(top[1], top[0]))
        if cost < best_cost:
            best, best_cost = start, cost
    return np.roll(np.arange(4), -best)


def _colour_edges(small_rgb: np.ndarray) -> np.ndarray:
    """Colour edges (Canny on each Lab channel): a light card on a light table differs from it
    in hue more than in brightness; the grid finder's grey binarisations lose its outline
    there, its colour edges keep it."""
    lab = cv2.cvtColor(small_rgb, cv2.COLOR_RGB2LAB)
    edges = np.zeros(small_rgb.shape[:2], np.uint8)
    for channel in range(3):
        edges |= cv2.Canny(cv2.GaussianBlur(lab[:, :, channel], (5, 5), 0), 20, 60)
    return edges


def _edge_quads(mask: np.ndarray, mode: int, min_area: float) -> list[np.ndarray]:
    from vision.reptile_tank.grid.candidates import contour_quad

    quads = []
    contours, _ = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)
    for contour in contours:
        area = cv2.contourArea(contour)
        if area >= min_area:
            quad = contour_quad(contour, area)
            if quad is not None:
                quads.append(quad)
    return quads


def _colour_edge_candidates(edges: np.ndarray) -> list[np.ndarray]:
    """Convex card-sized quads outlined by colour edges (:func:`_colour_edges`)."""
    min_area = 0.0012 * edges.size
    quads = []
    for mask in (edges, cv2.dilate(edges, np.ones((3, 3), np.uint8))):
        quads += _edge_quads(mask, cv2.RETR_LIST, min_area)
    return quads


#: Cards laid by hand touch at a corner: their outlines join into one contour that is no quad.
#: The outlined shapes are filled and worn away by this share of a card's short side, which
#: cuts such a neck, and each piece grown back by as much is outlined again.
LOOSE_NECK = 0.12


def _split_touching_candidates(edges: np.ndarray, card_side: float) -> list[np.ndarray]:
    """Card-sized quads of cards whose outlines touch another's (``card_side``: a typical
    card's short side in ``edges``' pixels)."""
    radius = max(2, int(round(LOOSE_NECK * card_side)))
    closed = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(closed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(edges)
    cv2.drawContours(filled, contours, -1, 255, cv2.FILLED)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
    worn = cv2.erode(filled, disc)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(worn)
    h, w = edges.shape
    quads = []
    for label in range(1, count):
        x, y, bw, bh = stats[label, :4]
        if bw * bh < 0.1 * card_side**2:
            continue
        x0, y0 = max(0, x - radius - 1), max(0, y - radius - 1)
        x1, y1 = min(w, x + bw + radius + 1), min(h, y + bh + radius + 1)
        piece = (labels[y0:y1, x0:x1] == label).astype(np.uint8) * 255
        piece = cv2.dilate(piece, disc) & filled[y0:y1, x0:x1]
        for quad in _edge_quads(piece, cv2.RETR_EXTERNAL, 0.25 * card_side**2):
            quads.append(quad + np.array([x0, y0], np.float64))
    return quads


#: A card-shaped outline is no card when this share of its inside is one colour (within
#: :data:`LOOSE_ONE_COLOUR` ΔE of its median: the table showing between four cards, whose
#: edges outline a card-sized hole; a card has a border, art and text) ...
LOOSE_UNIFORM = 0.9
LOOSE_ONE_COLOUR = 10.0
#: ... or when colour edges run along less than this share of its outline (a quad drawn
#: across blurred objects, a shadow's edge; a card's outline is an edge all round).
LOOSE_EDGE_SUPPORT = 0.6


def _card_like(lab: np.ndarray, near_edges: np.ndarray, quad: np.ndarray) -> bool:
    """Whether a card-shaped quad (in ``lab``'s pixels) outlines a card: its inside is not
    one colour, and colour edges (``near_edges``, dilated) run along its outline."""
    h, w = near_edges.shape
    corners = np.asarray(quad, np.float64)
    along = (
        np.concatenate(
            [
                corners[k]
                + np.linspace(0, 1, 40, endpoint=False)[:, None]
                * (corners[(k + 1) % 4] - corners[k])
                for k in range(4)
            ]
        )
        .round()
        .astype(int)
    )
    inside = (along[:, 0] >= 0) & (along[:, 1] >= 0) & (along[:, 0] < w) & (along[:, 1] < h)
    if (
        not inside.any()
        or near_edges[along[inside, 1], along[inside, 0]].astype(bool).mean() < LOOSE_EDGE_SUPPORT
    ):
        return False
    centre = corners.mean(axis=0)
    inner = centre + 0.9 * (corners - centre)
    x0, y0 = np.floor(inner.min(axis=0)).astype(int).clip(0)
    x1, y1 = np.ceil(inner.max(axis=0)).astype(int) + 1
    x1, y1 = min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return False
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [np.round(inner - [x0, y0]).astype(np.int32)], 1)
    pixels = lab[y0:y1, x0:x1][mask > 0]
    if len(pixels) == 0:
        return False
    spread = np.linalg.norm(pixels - np.median(pixels, axis=0), axis=1)
    return float((spread < LOOSE_ONE_COLOUR).mean()) <= LOOSE_UNIFORM


def _card_area(shaped: list[tuple[np.ndarray, np.ndarray, float]]) -> float:
    """The typical card's area among head-on outlines ``(photo quad, view quad, view area)``:
    the median of the areas that most outermost outlines share (within 20 %). An outline
    inside one 1.2 to 4 times its size is a card's art panel or frame, not a card: a deck whose
    panels are near the card's shape has more of them than of whole cards' outlines (a play
    mat's outline around the cards is larger still)."""
    areas = np.array([a for _, _, a in shaped])
    outermost = np.array(
        [
            not any(
                1.2 * area < other[2] < 4.0 * area and _inside(other[1], view.mean(axis=0))
                for other in shaped
            )
            for _, view, area in shaped
        ]
    )
    areas = areas[outermost]
    support = (np.abs(np.log(areas[:, None] / areas[None, :])) < math.log(1.2)).sum(axis=1)
    return float(np.median(areas[support == support.max()]))


def _head_on_cards(
    candidates: list[np.ndarray], to_view: np.ndarray
) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """``(photo quad, view quad, view area)`` of the candidates that look like a card head-on
    (``to_view``: the photo to the table seen from above)."""
    shaped = []
    for quad in candidates:
        view = apply_homography(to_view, quad)
        if not np.all(np.isfinite(view)):
            continue
        view = order_quad_clockwise(view)
        if not is_convex_quad(view):
            continue
        ratio, opposite, cos = _head_on_shape(view)
        if (
            abs(ratio - CARD_ASPECT) <= _LOOSE_ASPECT_TOL
            and opposite <= _LOOSE_MAX_OPPOSITE
            and cos <= _LOOSE_MAX_COS
        ):
            area = quad_area(view)
            if np.isfinite(area) and area > 0:
                shaped.append((order_quad_clockwise(quad), view, area))
    return shaped


def _inside(quad: np.ndarray, point: np.ndarray) -> bool:
    contour = np.asarray(quad, np.float32)
    return cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), False) >= 0


#: A card's outer border (a light rim, a frame of the table's shade) can be lost to the table in
#: the colour edges while the line where the border meets the art is kept: that outline is the
#: card less its border. Each side of an outline found is looked at outwards, up to this share
#: of the card's short side, for where the table begins (:func:`_to_outer_edge`).
OUTER_EDGE_REACH = 0.08
#: A side's band just outside its outline is the card's own border (not the table) when its
#: colour is at least this far from the table's (CIE delta E) ...
OUTER_EDGE_NOT_TABLE = 12.0
#: ... and the table begins where the colour is within this share of the band's distance from
#: the table's, and within :data:`OUTER_EDGE_TABLE` of it.
OUTER_EDGE_DROP = 0.5
OUTER_EDGE_TABLE = 20.0
#: Whether outlines are grown to the card's outer edge (off: as before stop 43).
OUTER_EDGES = True


def _side_offsets(lab: np.ndarray, quad: np.ndarray, reach: int) -> np.ndarray:
    """(4, reach + 1, 3): per side of ``quad`` (clockwise, in ``lab``'s pixels), the median
    colour of the line parallel to it at 0..reach px outwards (its middle 70 %: not the
    rounded corners)."""
    offsets = np.arange(reach + 1, dtype=np.float64)
    return np.stack(
        [
            _profile(lab, quad[k], quad[(k + 1) % 4], _outward(quad, k), [(0.15, 0.85)], offsets)[0]
            for k in range(4)
        ]
    )


#: A band outside a card darker than the table, of its hue (within this many degrees in the
#: a*b* plane, or both near grey: chroma under :data:`OUTER_EDGE_GREY`) and no more chroma, is
#: the card's shadow on the table, not its border.
OUTER_EDGE_SHADE_HUE = 20.0
OUTER_EDGE_GREY = 6.0


def _shade_of(colour: np.ndarray, table: np.ndarray) -> bool:
    """Whether a colour (CIE L*a*b*) is the table's in shade: darker, of the same hue."""
    chroma, table_chroma = (math.hypot(float(c[1]), float(c[2])) for c in (colour, table))
    if colour[0] >= table[0] or chroma > table_chroma + OUTER_EDGE_GREY:
        return False
    if chroma < OUTER_EDGE_GREY and table_chroma < OUTER_EDGE_GREY:
        return True
    turn = math.atan2(float(colour[2]), float(colour[1])) - math.atan2(
        float(table[2]), float(table[1])
    )
    return abs(math.degrees(math.atan2(math.sin(turn), math.cos(turn)))) <= OUTER_EDGE_SHADE_HUE


def _to_outer_edge(lab: np.ndarray, quad: np.ndarray, table: np.ndarray) -> np.ndarray:
    """``quad`` (clockwise corners, ``lab``'s pixels, CIE L*a*b* with L* 0..100) grown side by
    side to the card's outer edge where its outline is the inner line of the card's border.

    A side grows when the band just outside it is not the table's colour
    (:data:`OUTER_EDGE_NOT_TABLE`) and, within :data:`OUTER_EDGE_REACH` of the card's short side,
    the table begins (:data:`OUTER_EDGE_DROP`, :data:`OUTER_EDGE_TABLE`): the side moves to
    where it does. A side facing a touching card, a play mat or the photo's edge (no table
    within reach) stays. Returns the grown quad (the four moved sides' intersections)."""
    sides = [float(np.linalg.norm(quad[(k + 1) % 4] - quad[k])) for k in range(4)]
    reach = int(math.ceil(OUTER_EDGE_REACH * min(sides)))
    if reach < 2:
        return quad
    colours = _side_offsets(lab, quad, reach)
    far = np.linalg.norm(colours - table, axis=2)  # (4, reach + 1): distance from the table
    moves = np.zeros(4)
    for side in range(4):
        band = float(far[side, 1:3].max())
        if band < OUTER_EDGE_NOT_TABLE or _shade_of(colours[side, 1:3].mean(axis=0), table):
            continue
        limit = min(OUTER_EDGE_DROP * band, OUTER_EDGE_TABLE)
        table_from = np.flatnonzero(far[side, 2:] <= limit)
        if table_from.size:
            moves[side] = float(table_from[0] + 2) - 0.5
    if not moves.any():
        return quad
    lines = [
        (quad[k] + moves[k] * _outward(quad, k), quad[(k + 1) % 4] - quad[k]) for k in range(4)
    ]
    grown = [lines_meet(lines[k - 1], lines[k]) for k in range(4)]  # the sides at corner k
    if any(corner is None for corner in grown):
        return quad
    return np.array(grown, np.float64)


#: A card the grid finder places but whose own outline was not found (touching cards, a glare
#: over an edge) is cut by its cell, which a card laid by hand leaves a few millimetres and
#: degrees off: each half of each of the cell's sides is looked at up to this share of the
#: card's short side inwards and outwards for where the card ends and the table begins
#: (:func:`_snap_to_table`).
SNAP_REACH = 0.12
#: A card is snapped onto only when it lies turned by at most this much from its cell ...
SNAP_MAX_TURN_DEG = 8.0
#: ... and at least this many of the 8 half sides, on at least 3 sides, agree where it lies
#: (a glare across a card or a light rim on a light table leaves fewer).
SNAP_MIN_HALVES = 5


def _outward(quad: np.ndarray, side: int) -> np.ndarray:
    """The unit normal of ``quad``'s side ``side`` (corners ``side``, ``side + 1``), outwards."""
    a, b = quad[side], quad[(side + 1) % 4]
    normal = np.array([b[1] - a[1], a[0] - b[0]], np.float64)
    normal /= max(float(np.linalg.norm(normal)), 1e-9)
    if float(np.dot((a + b) / 2 - quad.mean(axis=0), normal)) < 0:
        normal = -normal
    return normal


def _profile(lab, a, b, normal, spans, offsets) -> np.ndarray:
    """(len(spans), len(offsets), 3): per span ``(lo, hi)`` of the segment a-b, the median
    colour of the span's line moved by each offset along ``normal``."""
    out = np.empty((len(spans), len(offsets), 3), np.float32)
    for k, (lo, hi) in enumerate(spans):
        along = np.linspace(lo, hi, 12)
        points = (a + along[:, None] * (b - a))[None] + offsets[:, None, None] * normal
        sampled = cv2.remap(
            lab,
            points[..., 0].astype(np.float32),
            points[..., 1].astype(np.float32),
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        out[k] = np.median(sampled, axis=1)
    return out


def _table_from(colours: np.ndarray, table: np.ndarray, offsets: np.ndarray) -> float | None:
    """Where along ``offsets`` (outwards) the card ends and the table begins, the transition
    nearest offset 0: two samples not the table's colour (nor its shade) then two of it."""
    far = np.linalg.norm(colours - table, axis=1)
    card = np.array(
        [d >= OUTER_EDGE_NOT_TABLE and not _shade_of(c, table) for d, c in zip(far, colours)]
    )
    best = None
    for i in range(2, len(offsets) - 1):
        if card[i - 2] and card[i - 1] and not card[i] and not card[i + 1]:
            at = float(offsets[i]) - 0.5
            if best is None or abs(at) < abs(best):
                best = at
    return best


def _snap_to_table(lab: np.ndarray, quad: np.ndarray, table: np.ndarray) -> np.ndarray:
    """A card's cell (clockwise corners, ``lab``'s pixels) moved onto the card it holds: the
    cell is the card's size, so the card is the cell shifted and turned a little. Each half of
    each side says how far, within :data:`SNAP_REACH`, the card ends and the table begins along
    its normal (:func:`_table_from`); the shift and turn that best agree with those moves
    (least squares, the half that disagrees most dropped while it is off by more than 2 % of
    the short side) move the cell. Returns the cell itself when too little agrees (fewer than
    :data:`SNAP_MIN_HALVES` halves, or halves of fewer than 3 sides) or the turn is over
    :data:`SNAP_MAX_TURN_DEG`."""
    sides = [float(np.linalg.norm(quad[(k + 1) % 4] - quad[k])) for k in range(4)]
    short = min(sides)
    reach = int(math.ceil(SNAP_REACH * short))
    if reach < 3:
        return quad
    offsets = np.arange(-reach, reach + 1, dtype=np.float64)
    spans = ((0.1, 0.45), (0.55, 0.9))
    centre = quad.mean(axis=0)
    rows, moves, seen = [], [], []
    for side in range(4):
        a, b = quad[side], quad[(side + 1) % 4]
        normal = _outward(quad, side)
        for (lo, hi), colours in zip(spans, _profile(lab, a, b, normal, spans, offsets)):
            move = _table_from(colours, table, offsets)
            if move is None:
                continue
            arm = a + (lo + hi) / 2 * (b - a) - centre
            # the normal move of a point under shift (dx, dy) and a small turn t
            rows.append([normal[0], normal[1], normal[1] * arm[0] - normal[0] * arm[1]])
            moves.append(move)
            seen.append(side)
    rows_a, moves_a = np.array(rows, np.float64), np.array(moves, np.float64)
    seen_a = np.array(seen, np.int64)
    corner = _corner_move(rows_a, moves_a, seen_a, short) if SNAP_CORNER else None
    while len(moves_a) >= SNAP_MIN_HALVES:
        solution, *_ = np.linalg.lstsq(rows_a, moves_a, rcond=None)
        residual = np.abs(rows_a @ solution - moves_a)
        worst = int(np.argmax(residual))
        if residual[worst] <= 0.02 * short:
            break
        rows_a, moves_a = np.delete(rows_a, worst, axis=0), np.delete(moves_a, worst)
        seen_a = np.delete(seen_a, worst)
    else:
        solution = corner
    if solution is None or (solution is not corner and len(set(seen_a.tolist())) < 3):
        return quad
    dx, dy, turn = solution
    if abs(math.degrees(turn)) > SNAP_MAX_TURN_DEG or math.hypot(dx, dy) > reach:
        return quad
    c, s = math.cos(turn), math.sin(turn)
    spin = np.array([[c, -s], [s, c]])
    return (quad - centre) @ spin.T + centre + (dx, dy)


#: Whether a card whose table shows along two adjacent sides only (a card of a far row among
#: touching cards: its neighbours and the next row's card beyond the other two) is moved onto
#: by those two sides (:func:`_corner_move`; off: as before stop 58).
SNAP_CORNER = True


def _corner_move(
    rows: np.ndarray, moves: np.ndarray, seen: np.ndarray, short: float
) -> np.ndarray | None:
    """``(dx, dy, turn)`` that moves a cell onto its card when the card ends at the table along
    two adjacent sides only, both halves of each seen (``rows``, ``moves``, ``seen`` as
    :func:`_snap_to_table` gathers them): each side alone says its shift and the turn, so the
    two sides must agree on the turn (the halves' residual within 2 % of the short side, as a
    third side is held to). None otherwise."""
    sides = sorted(set(seen.tolist()))
    if len(sides) != 2 or (sides[1] - sides[0]) % 2 == 0:
        return None
    if any(int((seen == side).sum()) != 2 for side in sides):
        return None
    solution, *_ = np.linalg.lstsq(rows, moves, rcond=None)
    if float(np.abs(rows @ solution - moves).max()) > 0.02 * short:
        return None
    return solution


def _table_colour(lab: np.ndarray, quads: list[np.ndarray]) -> np.ndarray | None:
    """The table's colour (CIE L*a*b*): the median of a ring round every card (None: no ring)."""
    h, w = lab.shape[:2]
    inner, outer = np.zeros((h, w), np.uint8), np.zeros((h, w), np.uint8)
    for quad in quads:
        centre = quad.mean(axis=0)
        for mask, grow in ((inner, 1.1), (outer, 1.25)):
            grown = centre + (quad - centre) * grow
            cv2.fillPoly(mask, [np.round(grown).astype(np.int32)], 1)
    ring = (outer > 0) & (inner == 0)
    if int(ring.sum()) < 50:
        return None
    return np.median(lab[ring], axis=0)


def _outer_edges(lab: np.ndarray, quads: list[np.ndarray]) -> list[np.ndarray]:
    """Every outline (clockwise, in the pixels of ``lab``, a CIE L*a*b* copy with L* 0..100)
    grown to its card's outer edge (:func:`_to_outer_edge`), the table's colour taken as the
    median of a ring round every card."""
    if not quads:
        return quads
    table = _table_colour(lab, quads)
    if table is None:
        return quads
    return [_to_outer_edge(lab, quad, table) for quad in quads]


def find_loose_cards(image_rgb: np.ndarray, *, group: bool = True) -> list[np.ndarray]:
    """The outline of every card of the layout (``group``) or of every card on the table,
    wherever it lies, in reading order (see :func:`loose_cards`)."""
    quads, in_layout = loose_cards(image_rgb)
    return [q for q, keep in zip(quads, in_layout, strict=True) if keep or not group]


def loose_cards(image_rgb: np.ndarray) -> tuple[list[np.ndarray], list[bool]]:
    """The outline of every card lying on the table, wherever it lies, in reading order.

    Card-shaped outlines are found as by the grid finder
    (:mod:`vision.reptile_tank.grid.candidates`, plus colour edges) on a ~1200 px copy; the
    table's plane is estimated from them (:func:`vision.reptile_tank.grid.rectified.quads_normal`)
    and each outline is looked at head-on: a card is a rectangle of the card's aspect with
    square corners, of the size most outlines share (a pair of touching cards, an art panel, a
    floor plank are not). Nested outlines keep the largest. The group of cards nearest the
    photo's centre, seen head-on, is the layout (:func:`layout_group`: a neighbour's cards
    further off are not the layout's). Reading order is row by row from the player's far side, the
    rows taken along the cards' own mean direction (a layout turned 25° still reads by rows).

    Parameters
    ----------
    image_rgb : (H, W, 3) uint8 RGB

    Returns
    -------
    quads : list of (4, 2) float64
        Each card's corners TL, TR, BR, BL of the card upright (its top towards the top of
        the photo), in the photo's pixels.
    in_layout : list of bool
        Whether each card is one of the layout's group.
    """
    from vision.reptile_tank.grid.candidates import card_candidates
    from vision.reptile_tank.grid.rectified import quads_normal, rectifying_homography

    h, w = image_rgb.shape[:2]
    factor = min(1.0, LOOSE_WORK_SIDE / max(h, w))
    small = cv2.resize(image_rgb, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    gray = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY)
    edges = _colour_edges(small)
    candidates = card_candidates(gray) + _colour_edge_candidates(edges)
    if not candidates:
        return [], []
    normal = quads_normal(candidates, small.shape)
    to_view = rectifying_homography(normal, small.shape) if normal is not None else np.eye(3)
    shaped = _head_on_cards(candidates, to_view)
    if not shaped:
        return [], []
    typical = _card_area(shaped)
    lab = cv2.cvtColor(small.astype(np.float32) / 255.0, cv2.COLOR_RGB2LAB)
    near_edges = cv2.dilate(edges, np.ones((5, 5), np.uint8))
    lo, hi = _LOOSE_AREA_RANGE

    def cards_among(found: list[tuple[np.ndarray, np.ndarray, float]]):
        return [
            s
            for s in found
            if lo * typical <= s[2] <= hi * typical and _card_like(lab, near_edges, s[0])
        ]

    sized = cards_among(shaped)
    if sized:
        # cards whose outlines touch another's, where no card was found: a piece worn off a
        # board of touching cards is no card where the card's own outline was found
        side = math.sqrt(float(np.median([quad_area(q) for q, _, _ in sized])) * CARD_ASPECT)
        sized += [
            s
            for s in cards_among(_head_on_cards(_split_touching_candidates(edges, side), to_view))
            if not any(_inside(k[1], s[1].mean(axis=0)) for k in sized)
        ]
    sized.sort(key=lambda s: -s[2])
    kept: list[tuple[np.ndarray, np.ndarray, float]] = []
    for quad, view, area in sized:
        if not any(_inside(k[1], view.mean(axis=0)) for k in kept):
            kept.append((quad, view, area))
    if not kept:
        return [], []
    if OUTER_EDGES:
        grown_views = [
            (grown, apply_homography(to_view, grown))
            for grown in _outer_edges(lab, [quad for quad, _, _ in kept])
        ]
        kept = [(grown, view, quad_area(view)) for grown, view in grown_views]
    height = math.sqrt(typical / CARD_ASPECT)
    middle = apply_homography(to_view, np.array([[small.shape[1] / 2, small.shape[0] / 2]]))[0]
    if len(kept) > 1 and np.all(np.isfinite(middle)):
        layout = set(layout_group([k[1] for k in kept], middle, height))
    else:
        layout = set(range(len(kept)))
    # reading order along the cards' own mean direction
    angles = []
    for _, view, _ in kept:
        order = _upright_corners(view)
        top = view[order[1]] - view[order[0]]
        angles.append(math.atan2(top[1], top[0]))
    turn = float(np.median(angles)) if angles else 0.0
    c, s = math.cos(-turn), math.sin(-turn)
    spin = np.array([[c, -s], [s, c]])
    centres = np.array([spin @ k[1].mean(axis=0) for k in kept])
    heights = np.array([math.sqrt(k[2] / CARD_ASPECT) for k in kept])
    by_y = np.argsort(centres[:, 1], kind="stable")
    rows: list[list[int]] = []
    for i in by_y:
        if rows and centres[i, 1] - centres[rows[-1][0], 1] < 0.5 * heights[i]:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    out, in_layout = [], []
    for row in rows:
        for i in sorted(row, key=lambda i: centres[i, 0]):
            quad, view, _ = kept[i]
            # ``quad`` and ``view`` share their corners' order (both sorted clockwise from the
            # same start, a homography keeps the order), so the view's upright order applies
            back = np.linalg.inv(to_view)
            photo = apply_homography(back, view) / factor
            out.append(photo[_upright_corners(view)])
            in_layout.append(i in layout)
    return out, in_layout


def _cut_corners(size: tuple[int, int]) -> np.ndarray:
    """The corners (TL, TR, BR, BL) of a cut of ``size`` (w, h), float32."""
    out_w, out_h = size
    return np.array([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]], np.float32)


def cut_card(
    image_rgb: np.ndarray, corners: np.ndarray, size: tuple[int, int] = FACE_CUT_SIZE
) -> np.ndarray:
    """The card whose corners (TL, TR, BR, BL, photo px) are given, warped to ``size`` (w, h)."""
    out_w, out_h = size
    matrix = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), _cut_corners(size))
    return cv2.warpPerspective(
        image_rgb, matrix, (out_w, out_h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


#: How many places after the documented layout's 16th may show a card's own outline (a play
#: mat's printed spot, a spare card) with the photo still taken as the documented layout.
MAX_EXTRA_OUTLINES = 1


@dataclass
class LayoutCards:
    """The cards of one photo of cards laid out (:func:`layout_cards`).

    Attributes
    ----------
    cards : list of (H, W, 3) uint8 RGB
        Upright portrait faces, in reading order (row by row from the player's far side).
    corners : list of (4, 2) float64
        Each card's corners TL, TR, BR, BL in the photo (as cut).
    source : str
        ``"grid"`` (the grid finder's occupied cells, each cut by its own outline where one was
        found) or ``"loose"`` (every card-shaped outline, wherever it lies).
    cells : list of (row, col) or None
        For ``"grid"``: each card's cell of the layout's lattice.
    own_outline : list of bool
        Whether each card was cut by its own outline (False: the grid's nominal cell).
    grid_shape : (rows, cols) or None
        The grid's shape (``"grid"`` only).
    given_fit : bool
        The grid (and which places hold a card) was given by the caller (the reader).
    assumed : list of bool
        Whether each card's place was taken to hold a card the grid finder could not see well
        (``"grid"`` only; a documented layout's place, see :data:`ASSUMED_OCCUPANCY`): its face
        is worth a look.
    crossed : list of bool
        Whether something lies across the card's edge (a thumb, a hand: :func:`crossed_edges`):
        its face is worth a look, and another photo's cut of it is kept instead.
    edge_corners : list of (4, 2) float64
        Where :func:`crossed_edges` looks at each card (empty: ``corners``): a card cut by its
        cell snapped onto it (:func:`_snap_to_table`) is looked at on the cell, as the check
        was chosen (on the snapped cut a thumb's side crosses fewer of the edge's pieces:
        development layouts found 20 of 22 thumbs there, 22 of 22 on the cell).
    """

    cards: list[np.ndarray]
    corners: list[np.ndarray]
    source: str
    cells: list[tuple[int, int]] | None = None
    own_outline: list[bool] = field(default_factory=list)
    grid_shape: tuple[int, int] | None = None
    given_fit: bool = False
    assumed: list[bool] = field(default_factory=list)
    crossed: list[bool] = field(default_factory=list)
    edge_corners: list[np.ndarray] = field(default_factory=list)

    @property
    def documented_layout(self) -> bool:
        """Whether the first 16 places of the grid (row by row) hold a card each and at most
        :data:`MAX_EXTRA_OUTLINES` place after them a card's own outline: the faces laid out in
        the enrolment order (:data:`FACE_LABELS`), the last 4 places empty."""
        if self.source != "grid" or self.cells is None or len(self.cells) < len(FACE_LABELS):
            return False
        cols = self.grid_shape[1] if self.grid_shape else 5
        first = [(k // cols, k % cols) for k in range(len(FACE_LABELS))]
        # past the 16th place: a full board (4 more cards) is no layout; a play mat's pattern
        # taken for a card there is, even when the pattern has an outline of a card's size (a
        # printed spot, a spare card laid beside the layout); the reader's own grid sees cards
        extra = self.own_outline[len(FACE_LABELS) :]
        extra_cards = sum(extra) > MAX_EXTRA_OUTLINES or (self.given_fit and len(extra) > 0)
        return self.cells[: len(FACE_LABELS)] == first and not extra_cards

    def in_enrolment_order(self) -> dict[str, np.ndarray]:
        """The 16 faces of a :attr:`documented_layout`, by label (extra places left out)."""
        if not self.documented_layout:
            raise ValueError(
                f"the photo is not the documented layout (the {len(FACE_LABELS)} faces row by "
                f"row from the top-left place); {len(self.cards)} card(s) found"
            )
        return {label: self.cards[k] for k, label in enumerate(FACE_LABELS)}


def outline_in_cell(cell: np.ndarray, outlines: list[np.ndarray]) -> np.ndarray | None:
    """The outline (corners in any order) of the card lying in a grid cell, turned to the cell's
    corner order; None when no outline is the cell's card (centre inside, a card's size)."""
    centre = cell.mean(axis=0)
    cell_area = quad_area(cell)
    for outline in outlines:
        if (
            not _inside(outline, centre)
            or not 0.7 <= quad_area(outline) / max(cell_area, 1e-9) <= 1.4
        ):
            continue
        shifts = [np.roll(outline, -k, axis=0) for k in range(4)]
        return min(shifts, key=lambda q: float(np.linalg.norm(q - cell, axis=1).sum()))
    return None


def layout_cards(
    image_rgb: np.ndarray,
    size: tuple[int, int] = (252, 352),
    grid: bool = True,
    fit=None,
) -> LayoutCards:
    """Every card of a photo of cards laid out, each cut by its own outline.

    The grid finder is tried first (``grid``; where it finds a lattice of cards but cannot
    settle its extent, each of its hypotheses is looked at for the documented layout,
    :func:`_documented_candidate`): when it finds the layout's lattice with at least as many
    occupied cells as there are loose card outlines (:func:`find_loose_cards`), its occupied
    cells are the cards, row by row in the upright board, each cut by the outline of
    the card lying there when one is found (a card laid a little off its place, turned a few
    degrees) and by the nominal cell otherwise (touching cards); a cut whose print stands turned
    off its sides is cut again turned with it (:func:`_turned_to_print`). Otherwise every loose
    outline is a card (a sparse or scattered layout, cards anywhere).

    Parameters
    ----------
    image_rgb : (H, W, 3) uint8 RGB
    size : (width, height)
        Size of each card cut.
    grid : bool
        Whether to try the grid finder at all.
    fit : vision.reptile_tank.grid.GridFit, optional
        A grid already found in ``image_rgb`` (e.g. by the reader, judged by the recogniser);
        used instead of the grid finder's, turned so that its top is the photo's top.

    Raises
    ------
    vision.errors.GridNotFoundError
        No card was found (neither a grid nor one card-shaped outline).
    """
    from vision.errors import GridNotFoundError

    every, in_layout = loose_cards(image_rgb)  # each cell's card, wherever it lies
    outlines = [q for q, keep in zip(every, in_layout, strict=True) if keep]  # the layout's
    given = fit is not None
    if fit is not None:  # the photographer's side is the photo's bottom
        from vision.reptile_tank.grid.model import upright_first

        fit = upright_first(fit)
    documented = None
    if fit is None and grid:
        from vision.reptile_tank.grid import find_grid
        from vision.reptile_tank.grid.lattice import EXTENT_IN_DOUBT

        try:
            fit = find_grid(image_rgb)
        except GridNotFoundError as error:
            fit, tried = None, error.attempted_fit
            if tried is not None and EXTENT_IN_DOUBT in str(tried.reason):
                # a lattice of cards whose extent the finder cannot settle (a neighbour's cards
                # in line with it): one of its hypotheses may still be the documented layout
                documented = _documented_candidate(image_rgb, every, size)
    if documented is not None:
        found = documented
    elif fit is not None and (given or int(fit.occupied.sum()) >= len(outlines)):
        found = _grid_cards(image_rgb, fit, every, size, given)
        if not given and not found.documented_layout:
            found = _documented_nearby(image_rgb, fit, every, size, found) or found
        if not given and not found.documented_layout:
            found = _documented_candidate(image_rgb, every, size) or found
        if not given and not found.documented_layout:
            found = _sure_places(found, fit)
    elif outlines:
        found = LayoutCards(
            [cut_card(image_rgb, q, size) for q in outlines],
            list(outlines),
            "loose",
            own_outline=[True] * len(outlines),
        )
    else:
        raise GridNotFoundError("no card found in the photo (no grid and no card outline)")
    found.crossed = crossed_edges(image_rgb, found.edge_corners or found.corners)
    return found


def _documented_candidate(
    image_rgb: np.ndarray, every: list[np.ndarray], size: tuple[int, int]
) -> LayoutCards | None:
    """The documented layout as another of the grid finder's hypotheses sees it, or None.

    The grid finder's preferred lattice can miss a layout laid by hand under a strong tilt (a
    lattice of half cards across the far rows; a layout turned on the table read from another
    corner) while a hypothesis it holds in doubt (:func:`find_grid_candidates`) is the layout:
    every hypothesis is fitted to its cards' outlines, and of those that show the documented
    layout (:func:`_documented_nearby`) the one whose places hold the most cards' own outlines
    is taken -- a lattice that does not lie on the cards finds few of them.
    """
    from vision.errors import GridNotFoundError
    from vision.reptile_tank.grid import find_grid_candidates, refine_fit

    try:
        candidates = find_grid_candidates(image_rgb, twins=True)
    except GridNotFoundError:
        return None
    best: LayoutCards | None = None
    for candidate in candidates:
        cards = _documented_nearby(image_rgb, refine_fit(image_rgb, candidate), every, size)
        if cards is not None and (best is None or sum(cards.own_outline) > sum(best.own_outline)):
            best = cards
    return best


#: How unsure the grid finder's occupancy of a place among the documented layout's first 16 may
#: be (its evidence, 0..1) for that place to be taken as holding a card nobody could see well (a
#: glare, a thumb): places the finder is sure are table stay empty.
ASSUMED_OCCUPANCY = 0.3
#: At most this many such places in one photo.
MAX_ASSUMED = 2


#: Whether cards cut by their cell are snapped onto the card (off: as before stop 43).
SNAP = True

#: A card laid turned on its place (by hand, a few degrees off the lattice) is cut again turned
#: with its print (:func:`_turned_to_print`) when the print's lines stand at least PRINT_TURN
#: degrees off the cut's sides and at least PRINT_TURN_STRENGTH of the cut's edge strength agrees
#: on that angle (a card of straight frames, panels and text lines; a back of wavy lines has no
#: such angle). Chosen on development layout photos of their own seeds (the five look-alike
#: decks' two layout photos, 160 cards, BENCHMARKS.md stop 55): of the cuts at 2-3 degrees 12
#: of 16 were closer to their faces as cut than turned (the cut's own outline or snap is as good
#: as the print's angle there); from 4 degrees with a clear angle every turned cut was closer.
PRINT_TURN = 4.0
PRINT_TURN_STRENGTH = 0.3


def print_angle(card: np.ndarray) -> tuple[float, float]:
    """How far a cut card's print stands turned off the cut's sides: ``(degrees, agreement)``.

    The gradient directions inside the cut (its outer 5 % left out), folded onto a quarter turn
    (a card's frame, panels and text run along two perpendicular directions) and averaged by
    their strength: the angle (positive: the print turned clockwise in the cut's pixels) and the
    length of the mean (0: no one angle, 1: every edge agrees).
    """
    grey = cv2.cvtColor(card, cv2.COLOR_RGB2GRAY).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    h, w = grey.shape
    inside = (slice(int(0.05 * h), int(0.95 * h)), slice(int(0.05 * w), int(0.95 * w)))
    weight = np.hypot(gx, gy)[inside]
    folded = np.exp(4j * np.arctan2(gy, gx)[inside])
    total = float(weight.sum())
    if total <= 0.0:
        return 0.0, 0.0
    mean = complex((weight * folded).sum()) / total
    return math.degrees(np.angle(mean) / 4.0), abs(mean)


def _turned_to_print(
    image_rgb: np.ndarray, quad: np.ndarray, card: np.ndarray, size: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """``(quad, card)`` turned about the cut's centre, in the cut's own plane, by the print's
    angle (:func:`print_angle`) when it is at least :data:`PRINT_TURN` with agreement
    :data:`PRINT_TURN_STRENGTH`; as given otherwise."""
    angle, agreement = print_angle(card)
    if abs(angle) < PRINT_TURN or agreement < PRINT_TURN_STRENGTH:
        return quad, card
    target = _cut_corners(size)
    to_cut = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), target)
    a = math.radians(angle)
    spin = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    centre = target.mean(axis=0, dtype=np.float64)
    turned = (target - centre) @ spin.T + centre
    back = cv2.perspectiveTransform(turned[None].astype(np.float32), np.linalg.inv(to_cut))[0]
    turned_quad = back.astype(np.float64)
    return turned_quad, cut_card(image_rgb, turned_quad, size)


def _cell_snapper(image_rgb: np.ndarray, cells: list[np.ndarray]):
    """``snap(cell) -> quad``: a cell (photo px) moved onto its card (:func:`_snap_to_table`,
    on a :data:`LOOSE_WORK_SIDE` copy; the cell itself where nothing moved it); None when the
    table's colour cannot be told."""
    h, w = image_rgb.shape[:2]
    factor = min(1.0, LOOSE_WORK_SIDE / max(h, w))
    small = cv2.resize(image_rgb, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small.astype(np.float32) / 255.0, cv2.COLOR_RGB2LAB)
    table = _table_colour(lab, [np.asarray(q, np.float64) * factor for q in cells])
    if table is None:
        return None

    def snap(cell: np.ndarray) -> np.ndarray:
        scaled = cell * factor
        moved = _snap_to_table(lab, scaled, table)
        return cell if moved is scaled else moved / factor

    return snap


def _grid_cards(
    image_rgb: np.ndarray,
    fit,
    every: list[np.ndarray],
    size: tuple[int, int],
    given: bool,
    assume: frozenset[tuple[int, int]] = frozenset(),
) -> LayoutCards:
    """The cards of a grid layout: each place the fit finds occupied (a place of a line the fit
    knows nothing of -- :attr:`GridFit.unseen`, :meth:`GridFit.shifted_lines` -- when a card's own
    outline lies there), plus the places in ``assume``; each cut by its card's own outline where
    one is found, by the nominal cell otherwise, and turned with its print where that stands
    turned off the cut (:func:`_turned_to_print`)."""
    from vision.reptile_tank.grid import rectify_cells

    crops = rectify_cells(image_rgb, fit, cell_size=size)
    rows, cols = fit.occupied.shape
    unknown = fit.unseen_cells
    own, cells = {}, []
    for r in range(rows):
        for c in range(cols):
            known_card = bool(fit.occupied[r, c]) and not unknown[r, c]
            if known_card or unknown[r, c] or (r, c) in assume:
                own[r, c] = outline_in_cell(fit.cell_quads[r, c], every)
                if known_card or own[r, c] is not None or (r, c) in assume:
                    cells.append((r, c))
    found = LayoutCards([], [], "grid", cells=cells, grid_shape=(rows, cols), given_fit=given)
    snap = _cell_snapper(image_rgb, [fit.cell_quads[r, c] for r, c in cells]) if SNAP else None
    for r, c in cells:
        outline = own[r, c]
        found.own_outline.append(outline is not None)
        found.assumed.append((r, c) in assume and outline is None)
        if outline is None:
            cell = np.asarray(fit.cell_quads[r, c], np.float64)
            quad = cell if snap is None else snap(cell)
            if quad is cell:
                card = np.ascontiguousarray(crops[r, c])
            else:
                card = cut_card(image_rgb, quad, size)
            edge = cell
        else:
            quad, card, edge = outline, cut_card(image_rgb, outline, size), outline
        quad, card = _turned_to_print(image_rgb, quad, card, size)
        found.cards.append(card)
        found.corners.append(quad)
        found.edge_corners.append(edge)
    return found


#: In a layout the grid finder finds but that is not the documented one (cards laid sparsely
#: on a lattice: the grid fits, the places between are table), a place where no card outline
#: lies holds a card only where the finder is this sure of it (its occupancy evidence, 0..1): a
#: patterned table or a shadow in an empty place is not a card. On 24 development sparse
#: layouts (their own seeds) the 5 such places that held a card (a thumb or a glare over it)
#: had evidence 0.88-1.0; of the 8 that were table, 6 had 0.50-0.75 and are dropped, 2 of a
#: checked table had 0.92-0.93 and are kept (the player skips them when naming the cards).
SURE_PLACE = 0.8


def _sure_places(found: LayoutCards, fit) -> LayoutCards:
    """``found`` without the places holding no card outline that the grid finder is unsure of
    (:data:`SURE_PLACE`)."""
    occupancy = np.asarray(fit.occupancy)
    keep = [
        k
        for k, (r, c) in enumerate(found.cells or [])
        if found.own_outline[k] or found.assumed[k] or occupancy[r, c] >= SURE_PLACE
    ]
    if len(keep) == len(found.cards):
        return found
    return replace(
        found,
        cards=[found.cards[k] for k in keep],
        corners=[found.corners[k] for k in keep],
        cells=[found.cells[k] for k in keep],
        own_outline=[found.own_outline[k] for k in keep],
        assumed=[found.assumed[k] for k in keep],
        crossed=[found.crossed[k] for k in keep] if found.crossed else [],
        edge_corners=[found.edge_corners[k] for k in keep] if found.edge_corners else [],
    )


def _documented_nearby(
    image_rgb: np.ndarray,
    fit,
    every: list[np.ndarray],
    size: tuple[int, int],
    cut: LayoutCards | None = None,
) -> LayoutCards | None:
    """The documented layout near a grid fit that does not show it, or None.

    Two ways a grid finder's fit of the 16 faces misses it: the lattice sits one row or column
    off (the layout's last row holds one card, so a lattice one row up fits the same three full
    rows; the new line's places hold a card where its own outline lies), or a card or two of the
    first 16 places was not seen (glare over a light card, a thumb) while the finder was unsure
    of them (:data:`ASSUMED_OCCUPANCY`) and sure that every place after them is table. Such
    places are cut by the nominal cell and marked :attr:`LayoutCards.assumed`. ``cut`` is
    ``fit``'s own cards when the caller has them already (:func:`_grid_cards`).
    """
    fits = [fit] + [fit.shifted_lines(dr, dc) for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    for k, candidate in enumerate(fits):
        if k == 0 and cut is not None:
            cards = cut
        else:
            cards = _grid_cards(image_rgb, candidate, every, size, False)
        if cards.documented_layout:
            return cards
        rows, cols = candidate.occupied.shape
        first = [(k // cols, k % cols) for k in range(len(FACE_LABELS))]
        present = set(cards.cells or [])
        if not present <= set(first):
            continue
        missing = [place for place in first if place not in present]
        # a place holding a card's own outline holds that card, whatever the finder's evidence
        # (a dark card on a dark table in the arm's shadow); the others are assumed
        unseen_cards = [
            p for p in missing if outline_in_cell(candidate.cell_quads[p], every) is None
        ]
        occupancy, unseen = np.asarray(candidate.occupancy), candidate.unseen_cells
        if (
            0 < len(missing)
            and len(unseen_cards) <= MAX_ASSUMED
            and all(
                occupancy[r, c] >= ASSUMED_OCCUPANCY and not unseen[r, c] for r, c in unseen_cards
            )
        ):
            cards = _grid_cards(image_rgb, candidate, every, size, False, frozenset(missing))
            if cards.documented_layout:
                return cards
    return None


#: A name that leaves a card of a layout photo out (``--names``).
SKIP_NAMES = ("-", "skip")


def named_faces(
    layouts: list[LayoutCards], names: list[str] | None = None
) -> tuple[dict[str, np.ndarray], dict[str, list[np.ndarray]]]:
    """The faces, and extra views of them, from the cards of several layout photos.

    Parameters
    ----------
    layouts : list of LayoutCards
        The cards of each photo (:func:`layout_cards`), photos in order.
    names : list of str, optional
        One name per card found, photo after photo in each photo's reading order (a face
        label, or ``skip`` (or ``-``) to leave the card out). Without names every photo must be the
        documented layout (:attr:`LayoutCards.documented_layout`).

    Returns
    -------
    faces : dict label -> (H, W, 3) uint8 RGB
        The card given each name; of several, the cleanest (:func:`cleanest_cut`).
    views : dict label -> list of (H, W, 3) uint8 RGB
        Every other card given the same name (added to the gallery as views of the face).

    Raises
    ------
    ValueError
        Names that do not match the cards found (count, unknown label), one message.
    """
    cards: list[np.ndarray] = []
    labels: list[str | None] = []
    crossed: list[bool] = []
    if names is None:
        for layout in layouts:
            by_label = layout.in_enrolment_order()  # raises for a loose or partial layout
            cards.extend(by_label.values())
            labels.extend(by_label)
            crossed.extend(_padded(layout.crossed, len(by_label)))
    else:
        counts = [len(layout.cards) for layout in layouts]
        if len(names) != sum(counts):
            raise ValueError(
                f"{len(names)} name(s) given for {sum(counts)} card(s) found "
                f"({' + '.join(map(str, counts))} in the photos, each row by row from the far "
                "side); give one name per card, skip to leave one out"
            )
        unknown = [n for n in names if n not in FACE_LABELS and n not in SKIP_NAMES]
        if unknown:
            raise ValueError(
                f"unknown card id(s): {', '.join(unknown[:5])} (card ids: "
                f"{', '.join(FACE_LABELS)}; skip leaves a card out)"
            )
        for layout in layouts:
            cards.extend(layout.cards)
            crossed.extend(_padded(layout.crossed, len(layout.cards)))
        labels = [None if n in SKIP_NAMES else n for n in names]
    kept = [k for k, label in enumerate(labels) if label is not None]
    return faces_and_views(
        ((labels[k], cards[k]) for k in kept), covered=[crossed[k] for k in kept]
    )


def _padded(flags: list[bool], n: int) -> list[bool]:
    return (list(flags) + [False] * n)[:n]


def faces_and_views(
    named: Iterable[tuple[str, np.ndarray]],
    covered: Iterable[bool] = (),
) -> tuple[dict[str, np.ndarray], dict[str, list[np.ndarray]]]:
    """``(label, card)`` pairs as ``(faces, views)``: each label's face is its cleanest card
    (:func:`cleanest_cut`; ``covered`` marks, pair by pair, the cards something lies across,
    :attr:`LayoutCards.crossed`), its other cards are views of it."""
    cuts: dict[str, list[np.ndarray]] = {}
    marks: dict[str, list[bool]] = {}
    flags = iter(covered)
    for label, card in named:
        cuts.setdefault(label, []).append(card)
        marks.setdefault(label, []).append(bool(next(flags, False)))
    faces: dict[str, np.ndarray] = {}
    views: dict[str, list[np.ndarray]] = {}
    for label, same in cuts.items():
        k = cleanest_cut(same, marks[label])
        faces[label] = same[k]
        if len(same) > 1:
            views[label] = [cut for j, cut in enumerate(same) if j != k]
    return faces, views


def cleanest_cut(cuts: list[np.ndarray], covered: list[bool] | None = None) -> int:
    """Of several cuts of one face, the one least covered: of the cuts not marked ``covered``
    (all of them when every one is), the cut with the smallest share of pixels outside the
    other cuts' colours (:func:`vision.reptile_tank.coverage.foreign_share`, its worst over the
    others). A thumb or a glare over one cut brings colours the others lack; the clean cut's
    colours are all in the covered one. The first cut on a tie, or when alone."""
    covered = _padded(covered or [], len(cuts))
    candidates = [k for k in range(len(cuts)) if not covered[k]] or list(range(len(cuts)))
    if len(cuts) < 2 or len(candidates) == 1:
        return candidates[0]
    from vision.reptile_tank.coverage import face_colours, foreign_share

    colours = [face_colours(cut) for cut in cuts]
    worst = [
        max(foreign_share(cuts[k], colours[j]) for j in range(len(cuts)) if j != k)
        for k in candidates
    ]
    return candidates[int(np.argmin(worst))]


def unsure_faces(
    layouts: list[LayoutCards],
    names: list[str] | None = None,
    faces: Mapping[str, np.ndarray] | None = None,
) -> list[str]:
    """The faces cut from a place the grid finder could not see a card in well
    (:attr:`LayoutCards.assumed`) or from a card something lies across
    (:attr:`LayoutCards.crossed`: a thumb), named as :func:`named_faces` names them, in photo
    order.

    With ``faces`` (:func:`named_faces`'s), a label is named only when its kept face is such a
    cut: another photo's cut of it that was kept instead (:func:`cleanest_cut`) makes it sure.
    """
    out: list[str] = []
    given = iter(names) if names is not None else None
    for layout in layouts:
        if given is None:
            labels = list(FACE_LABELS) if layout.documented_layout else []
        else:
            labels = [next(given, "skip") for _ in layout.cards]
        doubtful = [
            a or c
            for a, c in zip(
                _padded(layout.assumed, len(layout.cards)),
                _padded(layout.crossed, len(layout.cards)),
                strict=True,
            )
        ]
        for label, card, doubt in zip(labels, layout.cards, doubtful, strict=False):
            if not doubt or label in SKIP_NAMES or label in out:
                continue
            if faces is None or faces.get(label) is card:
                out.append(label)
    return out
