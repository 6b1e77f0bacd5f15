"""The stand-in deck and random card designs, drawn by code.

Every face is a 63 x 88 mm portrait card drawn with OpenCV primitives (Hershey fonts, no font
files): a white border with rounded corners, a coloured inner panel with a background pattern,
the category banner on top, a frame (square for animals, round for environments) holding a
simple drawn motif, the basic/advanced VP panels, the species name, the copy count (bottom
right) and a star (bottom left) on star cards. The Water back is its own design.

All images returned here are ``(H, W, 3) uint8 RGB``.

The words and numbers printed on the stand-in faces (name, category, VP of each tier, copies,
star) are read from the rules data (:func:`scoring.reptile_tank.rules.load_rules`), so an edited rules file
prints its own values; only the look (colours, patterns, motifs) is defined here.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scoring.reptile_tank.cards import ANIMAL_IDS, CARD_IDS, DRY_LAND_IDS, FACE_LABELS, WATER
from vision.synth.canvas import rounded_card_mask

CARD_W_MM = 63.0
CARD_H_MM = 88.0
CORNER_RADIUS_MM = 3.0
BORDER_MM = 3.0

Color = tuple[int, int, int]

_CATEGORY_TITLES = {
    "snake": "Snake",
    "turtle": "Turtle",
    "lizard": "Lizard",
    "cockroach": "Cockroach",
    "dry_land": "Environment",
    "water": "Environment",
}


@dataclass(frozen=True)
class FaceValues:
    """What a face prints, from the rules data: name, category title, tier VP, copies, star."""

    name: str
    category: str
    vp_basic: str
    vp_advanced: str
    copies: int
    star: bool


def face_values(rules: Any = None) -> dict[str, FaceValues]:
    """Printed values of the 15 fronts and ``water`` from a :class:`scoring.reptile_tank.rules.Rules`.

    ``rules`` defaults to the default rules data (read once and cached).
    """
    if rules is None:
        return dict(_default_face_values())
    out = {}
    for label in FACE_LABELS:
        rule = rules.cards[label]
        vps = [t.vp for t in rule.tiers]
        if label == WATER:
            out[label] = FaceValues(rule.name, "", " ".join(str(v) for v in vps), "", 0, False)
            continue
        basic = f"{vps[0]}/kind" if rule.per_unit else str(vps[0])
        advanced = str(vps[-1]) if len(vps) > 1 else ""
        category = _CATEGORY_TITLES.get(rule.category, rule.category.replace("_", " ").title())
        out[label] = FaceValues(
            rule.name, category, basic, advanced, int(rule.copies), bool(rule.star)
        )
    return out


@functools.lru_cache(maxsize=1)
def _default_face_values() -> dict[str, FaceValues]:
    from scoring.reptile_tank.rules import (
        load_rules,  # the rules data; read on first use, never at import
    )

    return face_values(load_rules())


def default_copies() -> dict[str, int]:
    """Copies of each of the 15 fronts in the deck, from the default rules data (126 cards)."""
    return {cid: v.copies for cid, v in _default_face_values().items() if cid in CARD_IDS}


FRAMES = ("square", "round", "diamond", "hexagon", "none", "arch")
PATTERNS = ("plain", "stripes", "dots", "checks", "waves", "scales", "grid", "radial", "speckle")
MOTIFS = (
    "snake",
    "coil",
    "turtle",
    "lizard",
    "roach",
    "leaves",
    "heart_leaves",
    "bromeliad",
    "log",
    "rock",
    "waves",
    "shapes",
)
FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
)


@dataclass(frozen=True)
class MotifSpec:
    """A drawn motif: a kind from :data:`MOTIFS`, its colours and a seed for its shape details."""

    kind: str
    colors: tuple[Color, ...]
    seed: int = 0
    detail: str = ""  # species extra: "ring", "dewlap", "tongue", "spots", "red_legs", "toes"


@dataclass(frozen=True)
class CardDesign:
    """Everything needed to draw one face; :func:`render_design` turns it into pixels.

    Colours are RGB tuples. Text fields may be empty (nothing drawn).
    """

    name: str
    category: str
    frame: str = "square"
    background: Color = (200, 200, 200)
    pattern: str = "plain"
    pattern_color: Color = (160, 160, 160)
    pattern_scale_mm: float = 6.0
    pattern_angle_deg: float = 45.0
    banner_color: Color = (40, 40, 40)
    banner_text_color: Color = (255, 255, 255)
    frame_color: Color = (30, 30, 30)
    frame_fill: Color = (240, 235, 220)
    motif: MotifSpec = field(default_factory=lambda: MotifSpec("shapes", ((0, 0, 0),)))
    vp_basic: str = ""
    vp_advanced: str = ""
    panel_color: Color = (250, 250, 245)
    panel_text_color: Color = (20, 20, 20)
    copies: int = 0
    star: bool = False
    border_color: Color = (250, 250, 248)
    text_color: Color = (20, 20, 20)
    font: int = cv2.FONT_HERSHEY_DUPLEX
    banner_at_top: bool = True
    panels_at_bottom: bool = True
    back: bool = False  # the Water back layout (full-bleed, no frame)


# ---------------------------------------------------------------------------------------------
# The stand-in deck's designs
# ---------------------------------------------------------------------------------------------

_CATEGORY_BANNERS: dict[str, Color] = {
    "Snake": (170, 30, 40),
    "Turtle": (70, 90, 30),
    "Lizard": (20, 110, 120),
    "Cockroach": (80, 45, 90),
    "Environment": (40, 70, 40),
}

# card id -> background, pattern, pattern colour, motif
_STAND_IN_LOOK: dict[str, tuple[Color, str, Color, MotifSpec]] = {
    "corn_snake": (
        (250, 150, 60),
        "dots",
        (225, 110, 40),
        MotifSpec("snake", ((230, 80, 30), (150, 30, 20), (250, 220, 150)), 11, "blotches"),
    ),
    "ringneck_snake": (
        (85, 100, 135),
        "stripes",
        (65, 78, 108),
        MotifSpec("snake", ((45, 45, 55), (250, 200, 40), (230, 230, 230)), 12, "ring"),
    ),
    "rosy_boa": (
        (240, 175, 190),
        "checks",
        (220, 150, 168),
        MotifSpec("coil", ((190, 110, 120), (120, 80, 70), (250, 235, 225)), 13, "stripes"),
    ),
    "common_box_turtle": (
        (210, 200, 90),
        "scales",
        (180, 170, 60),
        MotifSpec("turtle", ((110, 70, 30), (240, 190, 40), (90, 80, 50)), 14, "pattern"),
    ),
    "three_toed_box_turtle": (
        (115, 125, 65),
        "grid",
        (95, 105, 50),
        MotifSpec("turtle", ((150, 120, 60), (60, 45, 25), (200, 170, 120)), 15, "toes"),
    ),
    "red_footed_tortoise": (
        (150, 55, 45),
        "dots",
        (125, 40, 35),
        MotifSpec("turtle", ((50, 40, 30), (230, 200, 80), (220, 40, 30)), 16, "red_legs"),
    ),
    "brown_anole": (
        (195, 160, 110),
        "waves",
        (170, 135, 90),
        MotifSpec("lizard", ((120, 80, 45), (230, 60, 50), (240, 220, 190)), 17, "dewlap"),
    ),
    "blue_tongued_skink": (
        (70, 115, 205),
        "stripes",
        (55, 95, 180),
        MotifSpec("lizard", ((150, 140, 120), (40, 60, 200), (90, 75, 60)), 18, "tongue"),
    ),
    "neon_day_gecko": (
        (130, 215, 70),
        "dots",
        (105, 185, 50),
        MotifSpec("lizard", ((40, 200, 60), (230, 40, 40), (60, 130, 230)), 19, "spots"),
    ),
    "dubia_roach": (
        (95, 65, 75),
        "checks",
        (80, 52, 62),
        MotifSpec("roach", ((110, 60, 30), (230, 180, 120), (40, 25, 15)), 20),
    ),
    "silver_inch_plant": (
        (180, 160, 215),
        "stripes",
        (160, 140, 200),
        MotifSpec("leaves", ((170, 180, 190), (120, 60, 140), (60, 110, 70)), 21, "striped"),
    ),
    "golden_pothos": (
        (235, 205, 70),
        "scales",
        (215, 180, 45),
        MotifSpec("heart_leaves", ((40, 140, 50), (240, 230, 90), (20, 90, 30)), 22),
    ),
    "scarlet_star": (
        (225, 45, 65),
        "radial",
        (200, 30, 50),
        MotifSpec("bromeliad", ((40, 130, 60), (240, 40, 50), (250, 200, 60)), 23),
    ),
    "hollow_log": (
        (145, 100, 60),
        "waves",
        (125, 82, 48),
        MotifSpec("log", ((120, 80, 45), (40, 25, 15), (200, 160, 110)), 24),
    ),
    "rock": (
        (180, 180, 172),
        "speckle",
        (140, 140, 135),
        MotifSpec("rock", ((120, 120, 118), (70, 70, 70), (215, 215, 210)), 25),
    ),
}


def stand_in_design(card_id: str, *, values: Mapping[str, FaceValues] | None = None) -> CardDesign:
    """The stand-in deck's design for one face (a card id of the 15 fronts, or ``"water"``).

    Raises
    ------
    ValueError
        If ``card_id`` is not one of :data:`scoring.reptile_tank.cards.FACE_LABELS`.
    """
    if card_id not in FACE_LABELS:
        raise ValueError(f"card_id: unknown face {card_id!r}; expected one of {FACE_LABELS}")
    if card_id == WATER:
        water = (values or _default_face_values())[WATER]
        return CardDesign(
            name=water.name,
            category="",
            frame="none",
            background=(30, 95, 175),
            pattern="waves",
            pattern_color=(60, 135, 210),
            pattern_scale_mm=7.0,
            pattern_angle_deg=0.0,
            banner_color=(15, 55, 120),
            banner_text_color=(235, 245, 255),
            frame_color=(235, 245, 255),
            frame_fill=(30, 95, 175),
            motif=MotifSpec("waves", ((235, 245, 255), (120, 190, 240)), 30),
            vp_basic=water.vp_basic,
            panel_color=(225, 240, 252),
            panel_text_color=(15, 55, 120),
            back=True,
        )
    v = (values or _default_face_values())[card_id]
    background, pattern, pattern_color, motif = _STAND_IN_LOOK[card_id]
    is_env = card_id in DRY_LAND_IDS
    return CardDesign(
        name=v.name,
        category=v.category,
        frame="round" if is_env else "square",
        background=background,
        pattern=pattern,
        pattern_color=pattern_color,
        pattern_scale_mm=5.0 + (len(card_id) % 4),
        pattern_angle_deg=(len(card_id) * 37) % 180,
        banner_color=_CATEGORY_BANNERS.get(v.category, (40, 40, 40)),
        frame_color=(25, 25, 25),
        frame_fill=(245, 240, 225) if not is_env else (235, 245, 230),
        motif=motif,
        vp_basic=v.vp_basic,
        vp_advanced=v.vp_advanced,
        copies=v.copies,
        star=v.star,
    )


# ---------------------------------------------------------------------------------------------
# Drawing helpers (all coordinates in pixels of the face being drawn)
# ---------------------------------------------------------------------------------------------


def _pt(x: float, y: float) -> tuple[int, int]:
    return (int(round(x)), int(round(y)))


def _fit_text(
    img: np.ndarray,
    text: str,
    box: tuple[float, float, float, float],
    color: Color,
    font: int,
    *,
    max_scale: float = 10.0,
    align: str = "center",
) -> None:
    """Draw ``text`` as large as fits in ``box`` = (x0, y0, x1, y1), vertically centred."""
    if not text:
        return
    x0, y0, x1, y1 = box
    bw, bh = max(x1 - x0, 1.0), max(y1 - y0, 1.0)
    (tw, th), base = cv2.getTextSize(text, font, 1.0, 1)
    scale = min(bw / max(tw, 1), bh / max(th + base * 0.5, 1), max_scale)
    thickness = max(1, int(round(scale * 1.6)))
    (tw, th), base = cv2.getTextSize(text, font, scale, thickness)
    if align == "left":
        x = x0
    elif align == "right":
        x = x1 - tw
    else:
        x = x0 + (bw - tw) / 2
    y = y0 + (bh + th) / 2
    cv2.putText(img, text, _pt(x, y), font, scale, color, thickness, cv2.LINE_AA)


def _wrap_name(name: str) -> list[str]:
    words = name.split()
    if len(name) <= 12 or len(words) == 1:
        return [name]
    best = [name]
    best_len = len(name)
    for i in range(1, len(words)):
        a, b = " ".join(words[:i]), " ".join(words[i:])
        if max(len(a), len(b)) < best_len:
            best, best_len = [a, b], max(len(a), len(b))
    return best


def _fill_pattern(img: np.ndarray, design: CardDesign, s: float, rng: np.random.Generator) -> None:
    """Fill ``img`` (a view of the inner panel) with the design's background and pattern."""
    h, w = img.shape[:2]
    img[:] = design.background
    pc = design.pattern_color
    step = max(design.pattern_scale_mm * s, 3.0)
    kind = design.pattern
    if kind == "plain":
        return
    if kind in ("stripes", "waves"):
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = math.radians(design.pattern_angle_deg)
        u = xx * math.cos(a) + yy * math.sin(a)
        if kind == "waves":
            v = -xx * math.sin(a) + yy * math.cos(a)
            u = v + 0.35 * step * np.sin(u * (2 * math.pi / (2.5 * step)))
        mask = (np.mod(u, step) < step * 0.42)[..., None]
        img[:] = np.where(mask, np.array(pc, np.uint8), img)
        return
    if kind == "dots":
        r = max(1, int(step * 0.22))
        for j, y in enumerate(np.arange(step / 2, h + step, step)):
            off = step / 2 if j % 2 else 0.0
            for x in np.arange(off, w + step, step):
                cv2.circle(img, _pt(x, y), r, pc, -1, cv2.LINE_AA)
        return
    if kind == "checks":
        yy, xx = np.mgrid[0:h, 0:w]
        mask = ((xx // int(step) + yy // int(step)) % 2 == 0)[..., None]
        img[:] = np.where(mask, np.array(pc, np.uint8), img)
        return
    if kind == "scales":
        r = int(step * 0.6)
        for j, y in enumerate(np.arange(0, h + step, step * 0.55)):
            off = step / 2 if j % 2 else 0.0
            for x in np.arange(off - step, w + step, step):
                cv2.ellipse(img, _pt(x, y), (r, r), 0, 0, 180, pc, max(1, int(s * 0.5)))
        return
    if kind == "grid":
        t = max(1, int(s * 0.5))
        for x in np.arange(0, w, step):
            cv2.line(img, _pt(x, 0), _pt(x, h), pc, t)
        for y in np.arange(0, h, step):
            cv2.line(img, _pt(0, y), _pt(w, y), pc, t)
        return
    if kind == "radial":
        cx, cy = w / 2, h * 0.45
        n = 24
        for k in range(0, n, 2):
            a0, a1 = 2 * math.pi * k / n, 2 * math.pi * (k + 1) / n
            big = 2.0 * max(w, h)
            tri = np.array(
                [
                    _pt(cx, cy),
                    _pt(cx + big * math.cos(a0), cy + big * math.sin(a0)),
                    _pt(cx + big * math.cos(a1), cy + big * math.sin(a1)),
                ],
                np.int32,
            )
            cv2.fillConvexPoly(img, tri, pc, cv2.LINE_AA)
        return
    if kind == "speckle":
        n = int(w * h / (step * step) * 3)
        xs = rng.uniform(0, w, n)
        ys = rng.uniform(0, h, n)
        rs = rng.uniform(0.3, 1.0, n) * step * 0.18
        for x, y, r in zip(xs, ys, rs, strict=True):
            cv2.circle(img, _pt(x, y), max(1, int(r)), pc, -1, cv2.LINE_AA)
        return
    raise ValueError(f"pattern: unknown kind {kind!r}")


def _snake(img, cx, cy, size, m: MotifSpec, rng) -> None:
    body, mark, belly = (m.colors + m.colors + m.colors)[:3]
    n = 60
    t = np.linspace(-1, 1, n)
    amp = size * rng.uniform(0.16, 0.26)
    freq = rng.uniform(1.0, 1.6)
    phase = rng.uniform(0, math.pi)
    xs = cx + t * size * 0.78
    ys = cy + amp * np.sin(t * math.pi * freq * 2 + phase)
    width = size * 0.13
    pts = np.stack([xs, ys], 1)
    for i in range(n - 1):
        wi = width * (0.35 + 0.65 * min(1.0, (i + 1) / (n * 0.35)))
        cv2.line(img, _pt(*pts[i]), _pt(*pts[i + 1]), body, max(1, int(wi)), cv2.LINE_AA)
    head = pts[-1]
    d = pts[-1] - pts[-3]
    ang = math.degrees(math.atan2(d[1], d[0]))
    cv2.ellipse(
        img, _pt(*head), (int(width * 0.9), int(width * 0.6)), ang, 0, 360, body, -1, cv2.LINE_AA
    )
    if m.detail == "ring":
        p = pts[-6]
        cv2.circle(img, _pt(*p), max(1, int(width * 0.55)), mark, -1, cv2.LINE_AA)
    elif m.detail == "stripes":
        for i in range(8, n - 4, 6):
            cv2.circle(img, _pt(*pts[i]), max(1, int(width * 0.25)), mark, -1, cv2.LINE_AA)
    else:
        for i in range(6, n - 6, 7):
            cv2.ellipse(
                img,
                _pt(*pts[i]),
                (max(1, int(width * 0.42)), max(1, int(width * 0.3))),
                ang,
                0,
                360,
                mark,
                -1,
                cv2.LINE_AA,
            )
    eye = head + np.array([math.cos(math.radians(ang)), math.sin(math.radians(ang))]) * width * 0.3
    cv2.circle(img, _pt(*(eye - [0, width * 0.2])), max(1, int(width * 0.14)), belly, -1)
    tongue_dir = d / (np.linalg.norm(d) + 1e-6)
    tip = head + tongue_dir * width * 1.8
    cv2.line(img, _pt(*head), _pt(*tip), (200, 30, 40), max(1, int(width * 0.12)), cv2.LINE_AA)


def _coil(img, cx, cy, size, m: MotifSpec, rng) -> None:
    body, mark, belly = (m.colors + m.colors + m.colors)[:3]
    turns = rng.uniform(1.8, 2.4)
    t = np.linspace(0, turns * 2 * math.pi, 160)
    r = size * (0.12 + 0.6 * t / t[-1])
    xs = cx + r * np.cos(t)
    ys = cy + r * np.sin(t) * 0.85
    width = size * 0.16
    pts = np.stack([xs, ys], 1)
    for i in range(len(pts) - 1):
        cv2.line(img, _pt(*pts[i]), _pt(*pts[i + 1]), body, max(1, int(width)), cv2.LINE_AA)
    for i in range(5, len(pts) - 2, 9):
        cv2.line(img, _pt(*pts[i]), _pt(*pts[i + 2]), mark, max(1, int(width * 0.35)), cv2.LINE_AA)
    head = pts[-1]
    cv2.circle(img, _pt(*head), max(1, int(width * 0.75)), body, -1, cv2.LINE_AA)
    cv2.circle(
        img, _pt(*(head + [width * 0.2, -width * 0.2])), max(1, int(width * 0.15)), belly, -1
    )


def _turtle(img, cx, cy, size, m: MotifSpec, rng) -> None:
    shell, mark, skin = (m.colors + m.colors + m.colors)[:3]
    rx, ry = size * 0.55, size * 0.42
    leg_color = skin
    if m.detail == "red_legs":
        leg_color = m.colors[2]
    for sx, sy in ((-1, -1), (1, -1), (-1, 1), (1, 1)):
        p = (cx + sx * rx * 0.78, cy + sy * ry * 0.85)
        cv2.ellipse(
            img, _pt(*p), (int(size * 0.13), int(size * 0.09)), 30 * sx * sy, 0, 360, leg_color, -1
        )
        if m.detail == "toes":
            for k in range(3):
                q = (p[0] + sx * size * 0.1, p[1] + sy * size * 0.02 + (k - 1) * size * 0.04)
                cv2.circle(img, _pt(*q), max(1, int(size * 0.025)), (30, 20, 10), -1)
    cv2.ellipse(
        img, _pt(cx + rx * 1.05, cy), (int(size * 0.16), int(size * 0.12)), 0, 0, 360, skin, -1
    )
    cv2.circle(
        img, _pt(cx + rx * 1.12, cy - size * 0.04), max(1, int(size * 0.025)), (10, 10, 10), -1
    )
    cv2.ellipse(img, _pt(cx, cy), (int(rx), int(ry)), 0, 0, 360, shell, -1, cv2.LINE_AA)
    cv2.ellipse(
        img, _pt(cx, cy), (int(rx), int(ry)), 0, 0, 360, mark, max(1, int(size * 0.03)), cv2.LINE_AA
    )
    # scutes: a centre hexagon and spokes
    hexagon = np.array(
        [
            _pt(cx + rx * 0.38 * math.cos(a), cy + ry * 0.45 * math.sin(a))
            for a in np.linspace(0, 2 * math.pi, 7)[:-1]
        ],
        np.int32,
    )
    t = max(1, int(size * 0.025))
    cv2.polylines(img, [hexagon], True, mark, t, cv2.LINE_AA)
    for p in hexagon:
        d = np.array(p, float) - (cx, cy)
        q = np.array((cx, cy)) + d * 2.4
        cv2.line(img, tuple(int(v) for v in p), _pt(*q), mark, t, cv2.LINE_AA)
    if m.detail == "pattern":
        for _ in range(12):
            a = rng.uniform(0, 2 * math.pi)
            rr = rng.uniform(0.2, 0.85)
            p = (cx + rx * rr * math.cos(a), cy + ry * rr * math.sin(a))
            cv2.circle(img, _pt(*p), max(1, int(size * 0.035)), mark, -1, cv2.LINE_AA)


def _lizard(img, cx, cy, size, m: MotifSpec, rng) -> None:
    body, accent, extra = (m.colors + m.colors + m.colors)[:3]
    fat = 0.17 if m.detail == "tongue" else 0.11
    bl = size * 0.42
    # tail
    t = np.linspace(0, 1, 30)
    xs = cx - bl - t * size * 0.45
    ys = cy + np.sin(t * math.pi * 1.3) * size * 0.15
    for i in range(len(t) - 1):
        wdt = size * fat * (1 - t[i]) * 0.9 + 1
        cv2.line(img, _pt(xs[i], ys[i]), _pt(xs[i + 1], ys[i + 1]), body, int(wdt), cv2.LINE_AA)
    # legs
    for lx in (cx - bl * 0.6, cx + bl * 0.55):
        for sy in (-1, 1):
            knee = (lx + size * 0.05, cy + sy * size * (fat + 0.12))
            foot = (lx + size * 0.12 * (1 if lx > cx else -1), cy + sy * size * (fat + 0.18))
            cv2.line(img, _pt(lx, cy), _pt(*knee), body, max(1, int(size * 0.05)), cv2.LINE_AA)
            cv2.line(img, _pt(*knee), _pt(*foot), body, max(1, int(size * 0.035)), cv2.LINE_AA)
    cv2.ellipse(img, _pt(cx, cy), (int(bl), int(size * fat)), 0, 0, 360, body, -1, cv2.LINE_AA)
    hx = cx + bl + size * 0.1
    cv2.ellipse(
        img,
        _pt(hx, cy),
        (int(size * 0.16), int(size * fat * 0.8)),
        0,
        0,
        360,
        body,
        -1,
        cv2.LINE_AA,
    )
    cv2.circle(
        img, _pt(hx + size * 0.04, cy - size * fat * 0.35), max(1, int(size * 0.025)), (0, 0, 0), -1
    )
    if m.detail == "dewlap":
        cv2.ellipse(
            img,
            _pt(hx - size * 0.05, cy + size * fat * 0.9),
            (int(size * 0.09), int(size * 0.07)),
            0,
            0,
            360,
            accent,
            -1,
            cv2.LINE_AA,
        )
    elif m.detail == "tongue":
        tip = (hx + size * 0.3, cy)
        cv2.line(
            img, _pt(hx + size * 0.12, cy), _pt(*tip), accent, max(1, int(size * 0.05)), cv2.LINE_AA
        )
        for k in range(-2, 3):
            x = cx + k * bl * 0.35
            cv2.line(
                img,
                _pt(x, cy - size * fat),
                _pt(x, cy + size * fat),
                extra,
                max(1, int(size * 0.04)),
                cv2.LINE_AA,
            )
    elif m.detail == "spots":
        for _ in range(7):
            x = cx + rng.uniform(-0.8, 0.8) * bl
            y = cy + rng.uniform(-0.5, 0.5) * size * fat
            cv2.circle(img, _pt(x, y), max(1, int(size * 0.03)), accent, -1, cv2.LINE_AA)
        cv2.line(
            img,
            _pt(cx - bl * 0.9, cy),
            _pt(cx + bl * 0.9, cy),
            extra,
            max(1, int(size * 0.02)),
            cv2.LINE_AA,
        )


def _roach(img, cx, cy, size, m: MotifSpec, rng) -> None:
    body, edge, dark = (m.colors + m.colors + m.colors)[:3]
    rx, ry = size * 0.3, size * 0.5
    t = max(1, int(size * 0.025))
    for k in range(3):
        y = cy - ry * 0.3 + k * ry * 0.35
        for sx in (-1, 1):
            p0 = (cx + sx * rx * 0.8, y)
            p1 = (cx + sx * rx * 1.6, y + size * 0.08 * (k - 0.5))
            p2 = (cx + sx * rx * 1.9, y + size * 0.2)
            cv2.line(img, _pt(*p0), _pt(*p1), dark, t, cv2.LINE_AA)
            cv2.line(img, _pt(*p1), _pt(*p2), dark, t, cv2.LINE_AA)
    for sx in (-1, 1):
        cv2.line(
            img,
            _pt(cx + sx * rx * 0.2, cy - ry * 0.95),
            _pt(cx + sx * rx * 1.3, cy - ry * 1.5),
            dark,
            t,
            cv2.LINE_AA,
        )
    cv2.ellipse(img, _pt(cx, cy), (int(rx), int(ry)), 0, 0, 360, body, -1, cv2.LINE_AA)
    cv2.ellipse(img, _pt(cx, cy - ry * 0.75), (int(rx * 0.8), int(ry * 0.3)), 0, 0, 360, edge, -1)
    cv2.ellipse(img, _pt(cx, cy - ry * 0.75), (int(rx * 0.5), int(ry * 0.16)), 0, 0, 360, dark, -1)
    for k in range(5):
        y = cy - ry * 0.3 + k * ry * 0.25
        half = rx * math.sqrt(max(0.0, 1 - ((y - cy) / ry) ** 2))
        cv2.line(img, _pt(cx - half, y), _pt(cx + half, y), dark, t, cv2.LINE_AA)


def _leaf(img, base, angle, length, width, color, vein=None, stripe=None) -> None:
    a = math.radians(angle)
    d = np.array([math.cos(a), math.sin(a)])
    n = np.array([-d[1], d[0]])
    t = np.linspace(0, 1, 14)
    prof = np.sin(t * math.pi) * width / 2
    left = [np.array(base) + d * length * ti + n * pi for ti, pi in zip(t, prof, strict=True)]
    right = [np.array(base) + d * length * ti - n * pi for ti, pi in zip(t, prof, strict=True)]
    poly = np.array([_pt(*p) for p in left + right[::-1]], np.int32)
    cv2.fillPoly(img, [poly], color, cv2.LINE_AA)
    if stripe is not None:
        for off in (-0.25, 0.25):
            pts = np.array(
                [
                    _pt(*(np.array(base) + d * length * ti + n * pi * off * 2))
                    for ti, pi in zip(t, prof, strict=True)
                ],
                np.int32,
            )
            cv2.polylines(img, [pts], False, stripe, max(1, int(width * 0.15)), cv2.LINE_AA)
    if vein is not None:
        tip = np.array(base) + d * length
        cv2.line(img, _pt(*base), _pt(*tip), vein, max(1, int(width * 0.06)), cv2.LINE_AA)


def _leaves(img, cx, cy, size, m: MotifSpec, rng) -> None:
    leaf, stripe, stem = (m.colors + m.colors + m.colors)[:3]
    base = (cx, cy + size * 0.55)
    n = 7
    for k in range(n):
        ang = -90 + (k - (n - 1) / 2) * 22 + rng.uniform(-6, 6)
        length = size * rng.uniform(0.75, 1.0)
        _leaf(img, base, ang, length, size * 0.24, leaf, vein=stem, stripe=stripe)


def _heart_leaves(img, cx, cy, size, m: MotifSpec, rng) -> None:
    leaf, streak, stem = (m.colors + m.colors + m.colors)[:3]
    t = max(1, int(size * 0.035))
    vine = np.array(
        [
            _pt(cx - size * 0.7 + k * size * 0.14, cy + math.sin(k * 0.9) * size * 0.3)
            for k in range(11)
        ],
        np.int32,
    )
    cv2.polylines(img, [vine], False, stem, t, cv2.LINE_AA)
    for k, p in enumerate(vine[1::2]):
        r = size * rng.uniform(0.15, 0.2)
        up = -1 if k % 2 else 1
        c = (p[0], p[1] + up * r * 1.2)
        cv2.circle(img, _pt(c[0] - r * 0.5, c[1]), int(r * 0.6), leaf, -1, cv2.LINE_AA)
        cv2.circle(img, _pt(c[0] + r * 0.5, c[1]), int(r * 0.6), leaf, -1, cv2.LINE_AA)
        tri = np.array(
            [
                _pt(c[0] - r * 1.05, c[1] + up * r * 0.1),
                _pt(c[0] + r * 1.05, c[1] + up * r * 0.1),
                _pt(c[0], c[1] + up * r * 1.3),
            ],
            np.int32,
        )
        cv2.fillConvexPoly(img, tri, leaf, cv2.LINE_AA)
        cv2.line(img, _pt(*c), _pt(c[0] + r * 0.4, c[1] + up * r * 0.6), streak, t, cv2.LINE_AA)


def _bromeliad(img, cx, cy, size, m: MotifSpec, rng) -> None:
    leaf, star, centre = (m.colors + m.colors + m.colors)[:3]
    base = (cx, cy + size * 0.25)
    for k in range(9):
        ang = 200 + k * 17.5 + rng.uniform(-4, 4)
        _leaf(img, base, ang, size * 0.85, size * 0.18, leaf)
    pts = []
    for k in range(10):
        r = size * (0.42 if k % 2 == 0 else 0.17)
        a = -math.pi / 2 + k * math.pi / 5
        pts.append(_pt(cx + r * math.cos(a), cy - size * 0.12 + r * math.sin(a)))
    cv2.fillPoly(img, [np.array(pts, np.int32)], star, cv2.LINE_AA)
    cv2.circle(img, _pt(cx, cy - size * 0.12), int(size * 0.09), centre, -1, cv2.LINE_AA)


def _log(img, cx, cy, size, m: MotifSpec, rng) -> None:
    bark, hole, wood = (m.colors + m.colors + m.colors)[:3]
    hw, hh = size * 0.62, size * 0.3
    cv2.rectangle(img, _pt(cx - hw, cy - hh), _pt(cx + hw, cy + hh), bark, -1, cv2.LINE_AA)
    t = max(1, int(size * 0.025))
    for k in range(6):
        y = cy - hh + (k + 0.5) * 2 * hh / 6 + rng.uniform(-3, 3)
        cv2.line(img, _pt(cx - hw * 0.9, y), _pt(cx + hw * 0.6, y + rng.uniform(-5, 5)), hole, t)
    cv2.ellipse(img, _pt(cx - hw, cy), (int(hh * 0.45), int(hh)), 0, 0, 360, bark, -1, cv2.LINE_AA)
    cv2.ellipse(img, _pt(cx + hw, cy), (int(hh * 0.45), int(hh)), 0, 0, 360, wood, -1, cv2.LINE_AA)
    cv2.ellipse(
        img, _pt(cx + hw, cy), (int(hh * 0.3), int(hh * 0.72)), 0, 0, 360, hole, -1, cv2.LINE_AA
    )


def _rock(img, cx, cy, size, m: MotifSpec, rng) -> None:
    stone, crack, light = (m.colors + m.colors + m.colors)[:3]
    n = 11
    angs = np.sort(rng.uniform(0, 2 * math.pi, n))
    rs = size * rng.uniform(0.45, 0.62, n)
    pts = np.array(
        [
            _pt(cx + r * math.cos(a), cy + r * math.sin(a) * 0.8)
            for a, r in zip(angs, rs, strict=True)
        ],
        np.int32,
    )
    cv2.fillPoly(img, [pts], stone, cv2.LINE_AA)
    hl = np.array(
        [
            _pt(cx - size * 0.3, cy - size * 0.2),
            _pt(cx - size * 0.05, cy - size * 0.35),
            _pt(cx + size * 0.1, cy - size * 0.15),
        ],
        np.int32,
    )
    cv2.fillConvexPoly(img, hl, light, cv2.LINE_AA)
    t = max(1, int(size * 0.025))
    cv2.polylines(img, [pts], True, crack, t, cv2.LINE_AA)
    p = np.array([cx, cy], float)
    for _ in range(4):
        q = p + rng.uniform(-0.2, 0.2, 2) * size
        cv2.line(img, _pt(*p), _pt(*q), crack, t, cv2.LINE_AA)
        p = q


def _waves(img, cx, cy, size, m: MotifSpec, rng) -> None:
    crest, foam = (m.colors + m.colors)[:2]
    t = max(1, int(size * 0.05))
    for k in range(5):
        y0 = cy - size * 0.5 + k * size * 0.25
        xs = np.linspace(cx - size * 0.8, cx + size * 0.8, 40)
        ys = y0 + np.sin((xs - cx) / size * 2 * math.pi * 1.5 + k) * size * 0.07
        pts = np.stack([xs, ys], 1).round().astype(np.int32)
        cv2.polylines(img, [pts], False, crest if k % 2 == 0 else foam, t, cv2.LINE_AA)


def _shapes(img, cx, cy, size, m: MotifSpec, rng) -> None:
    colors = m.colors or ((0, 0, 0),)
    for _ in range(int(rng.integers(3, 9))):
        c = colors[int(rng.integers(len(colors)))]
        kind = int(rng.integers(4))
        p = (cx + rng.uniform(-0.6, 0.6) * size, cy + rng.uniform(-0.6, 0.6) * size)
        r = size * rng.uniform(0.1, 0.35)
        if kind == 0:
            cv2.circle(img, _pt(*p), int(r), c, -1, cv2.LINE_AA)
        elif kind == 1:
            k = int(rng.integers(3, 8))
            angs = np.sort(rng.uniform(0, 2 * math.pi, k))
            pts = [_pt(p[0] + r * math.cos(a), p[1] + r * math.sin(a)) for a in angs]
            cv2.fillPoly(img, [np.array(pts, np.int32)], c, cv2.LINE_AA)
        elif kind == 2:
            q = (p[0] + rng.uniform(-1, 1) * size * 0.6, p[1] + rng.uniform(-1, 1) * size * 0.6)
            cv2.line(img, _pt(*p), _pt(*q), c, max(1, int(r * 0.3)), cv2.LINE_AA)
        else:
            cv2.ellipse(
                img,
                _pt(*p),
                (int(r), int(r * rng.uniform(0.3, 1))),
                rng.uniform(0, 180),
                0,
                360,
                c,
                -1,
                cv2.LINE_AA,
            )


_MOTIF_SCALE = {"turtle": 1.3, "lizard": 1.3, "snake": 1.12, "roach": 1.05}

_MOTIF_DRAWERS = {
    "snake": _snake,
    "coil": _coil,
    "turtle": _turtle,
    "lizard": _lizard,
    "roach": _roach,
    "leaves": _leaves,
    "heart_leaves": _heart_leaves,
    "bromeliad": _bromeliad,
    "log": _log,
    "rock": _rock,
    "waves": _waves,
    "shapes": _shapes,
}


def _frame_mask(kind: str, w: int, h: int) -> np.ndarray:
    mask = np.zeros((h, w), np.uint8)
    cx, cy = w / 2, h / 2
    if kind in ("square", "none"):
        mask[:] = 255
    elif kind == "round":
        cv2.ellipse(mask, _pt(cx, cy), (w // 2, h // 2), 0, 0, 360, 255, -1, cv2.LINE_AA)
    elif kind == "diamond":
        pts = np.array([_pt(cx, 0), _pt(w - 1, cy), _pt(cx, h - 1), _pt(0, cy)], np.int32)
        cv2.fillConvexPoly(mask, pts, 255, cv2.LINE_AA)
    elif kind == "hexagon":
        pts = np.array(
            [
                _pt(cx + w / 2 * math.cos(a), cy + h / 2 * math.sin(a))
                for a in np.linspace(0, 2 * math.pi, 7)[:-1]
            ],
            np.int32,
        )
        cv2.fillConvexPoly(mask, pts, 255, cv2.LINE_AA)
    elif kind == "arch":
        cv2.rectangle(mask, (0, h // 3), (w - 1, h - 1), 255, -1)
        cv2.ellipse(mask, _pt(cx, h / 3), (w // 2, h // 3), 0, 180, 360, 255, -1, cv2.LINE_AA)
    else:
        raise ValueError(f"frame: unknown kind {kind!r}")
    return mask


def _draw_star(img, cx, cy, r, fill, edge) -> None:
    pts = []
    for k in range(10):
        rr = r if k % 2 == 0 else r * 0.42
        a = -math.pi / 2 + k * math.pi / 5
        pts.append(_pt(cx + rr * math.cos(a), cy + rr * math.sin(a)))
    arr = np.array(pts, np.int32)
    cv2.fillPoly(img, [arr], fill, cv2.LINE_AA)
    cv2.polylines(img, [arr], True, edge, max(1, int(r * 0.08)), cv2.LINE_AA)


def card_size_px(px_per_mm: float) -> tuple[int, int]:
    """Face size ``(width, height)`` in pixels for a resolution in pixels per millimetre."""
    if not (0.5 <= px_per_mm <= 40.0):
        raise ValueError(f"px_per_mm: must be in [0.5, 40], got {px_per_mm}")
    return int(round(CARD_W_MM * px_per_mm)), int(round(CARD_H_MM * px_per_mm))


def render_design(
    design: CardDesign, *, px_per_mm: float = 8.0, rounded_corners: bool = False
) -> np.ndarray:
    """Draw a :class:`CardDesign` as a 63 x 88 mm portrait face.

    Parameters
    ----------
    design : CardDesign
    px_per_mm : float
        Resolution; the result is ``(round(88 * px_per_mm), round(63 * px_per_mm), 3)``.
    rounded_corners : bool
        Paint the area outside the 3 mm rounded corners white-grey (a printed sheet's paper);
        off by default, the scene renderer applies its own corner mask.

    Returns
    -------
    (H, W, 3) uint8 RGB
    """
    w, h = card_size_px(px_per_mm)
    s = px_per_mm
    rng = np.random.default_rng(design.motif.seed)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = design.border_color
    b = int(round(BORDER_MM * s))
    inner = img[b : h - b, b : w - b]
    _fill_pattern(inner, design, s, rng)
    iw, ih = inner.shape[1], inner.shape[0]
    font = design.font

    if design.back:
        # Water back: full-bleed pattern, a big wave emblem, the word, and the area table.
        size = iw * 0.42
        cy = ih * 0.42
        cv2.circle(inner, _pt(iw / 2, cy), int(size * 1.05), design.banner_color, -1, cv2.LINE_AA)
        cv2.circle(
            inner,
            _pt(iw / 2, cy),
            int(size * 1.05),
            design.frame_color,
            max(1, int(s * 0.8)),
            cv2.LINE_AA,
        )
        _waves(inner, iw / 2, cy, size * 0.85, design.motif, rng)
        _fit_text(
            inner,
            design.name.upper(),
            (iw * 0.12, ih * 0.02, iw * 0.88, ih * 0.14),
            design.banner_text_color,
            font,
        )
        py0, py1 = ih * 0.78, ih * 0.93
        cv2.rectangle(inner, _pt(iw * 0.1, py0), _pt(iw * 0.9, py1), design.panel_color, -1)
        _fit_text(
            inner,
            design.vp_basic,
            (iw * 0.14, py0 + 2, iw * 0.86, py1 - 2),
            design.panel_text_color,
            font,
        )
        return img

    # Category banner
    band_h = ih * 0.13
    band_y = 0.0 if design.banner_at_top else ih - band_h
    if design.category:
        cv2.rectangle(inner, _pt(0, band_y), _pt(iw, band_y + band_h), design.banner_color, -1)
        _fit_text(
            inner,
            design.category.upper(),
            (iw * 0.08, band_y + band_h * 0.15, iw * 0.92, band_y + band_h * 0.85),
            design.banner_text_color,
            font,
        )
    top = band_h if design.banner_at_top else 0.0
    bottom = ih if design.banner_at_top else ih - band_h

    # VP panels
    panel_h = ih * 0.13
    panel_y = bottom - panel_h - ih * 0.02 if design.panels_at_bottom else top + ih * 0.02
    panels = [t for t in (design.vp_basic, design.vp_advanced) if t]
    if panels:
        gap = iw * 0.04
        pw = (iw * 0.84 - gap * (len(panels) - 1)) / len(panels)
        for k, text in enumerate(panels):
            x0 = iw * 0.08 + k * (pw + gap)
            cv2.rectangle(
                inner,
                _pt(x0, panel_y),
                _pt(x0 + pw, panel_y + panel_h),
                design.panel_color,
                -1,
                cv2.LINE_AA,
            )
            cv2.rectangle(
                inner,
                _pt(x0, panel_y),
                _pt(x0 + pw, panel_y + panel_h),
                design.frame_color,
                max(1, int(s * 0.4)),
                cv2.LINE_AA,
            )
            if k == 1:  # the advanced tier: a second bar marks it
                cv2.rectangle(
                    inner,
                    _pt(x0, panel_y),
                    _pt(x0 + pw * 0.12, panel_y + panel_h),
                    design.frame_color,
                    -1,
                )
                x0 += pw * 0.12
                pwk = pw * 0.88
            else:
                pwk = pw
            _fit_text(
                inner,
                text,
                (
                    x0 + pwk * 0.1,
                    panel_y + panel_h * 0.15,
                    x0 + pwk * 0.9,
                    panel_y + panel_h * 0.85,
                ),
                design.panel_text_color,
                font,
            )

    # Name
    name_lines = _wrap_name(design.name)
    name_h = ih * 0.075 * len(name_lines)
    if design.panels_at_bottom:
        name_y0 = panel_y - name_h - ih * 0.02
        art_y0, art_y1 = top + ih * 0.03, name_y0 - ih * 0.02
    else:
        name_y0 = bottom - name_h - ih * 0.04
        art_y0, art_y1 = panel_y + panel_h + ih * 0.03, name_y0 - ih * 0.02
    cv2.rectangle(
        inner,
        _pt(iw * 0.05, name_y0 - ih * 0.005),
        _pt(iw * 0.95, name_y0 + name_h + ih * 0.005),
        design.panel_color,
        -1,
    )
    line_h = name_h / len(name_lines)
    for k, line in enumerate(name_lines):
        _fit_text(
            inner,
            line,
            (
                iw * 0.08,
                name_y0 + k * line_h + line_h * 0.12,
                iw * 0.92,
                name_y0 + (k + 1) * line_h - line_h * 0.12,
            ),
            design.text_color,
            font,
        )

    # Frame with the motif
    fh = art_y1 - art_y0
    fw = min(iw * 0.86, fh if design.frame in ("round", "hexagon", "diamond") else iw * 0.86)
    fx0 = (iw - fw) / 2
    fy0 = art_y0
    fwi, fhi = max(int(fw), 4), max(int(fh), 4)
    art = np.empty((fhi, fwi, 3), np.uint8)
    art[:] = design.frame_fill
    size = min(fwi, fhi) * 0.42 * _MOTIF_SCALE.get(design.motif.kind, 1.0)
    _MOTIF_DRAWERS[design.motif.kind](art, fwi / 2, fhi / 2, size, design.motif, rng)
    mask = _frame_mask(design.frame, fwi, fhi)
    if design.frame != "none":
        thick = max(1, int(s * 0.9))
        edge = np.zeros_like(mask)
        contours, _ = cv2.findContours(
            (mask > 127).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
        )
        cv2.drawContours(edge, contours, -1, 255, thick * 2, cv2.LINE_AA)
        edge = cv2.bitwise_and(edge, mask)
    x0i, y0i = int(round(fx0)), int(round(fy0))
    region = inner[y0i : y0i + fhi, x0i : x0i + fwi]
    a = (mask[: region.shape[0], : region.shape[1]].astype(np.float32) / 255.0)[..., None]
    region[:] = (art[: region.shape[0], : region.shape[1]] * a + region * (1 - a)).astype(np.uint8)
    if design.frame != "none":
        e = (edge[: region.shape[0], : region.shape[1]].astype(np.float32) / 255.0)[..., None]
        region[:] = (np.array(design.frame_color, np.float32) * e + region * (1 - e)).astype(
            np.uint8
        )

    # Copy count (bottom right) and star (bottom left), on the white border area of the panel
    corner_y = ih - ih * 0.005
    if design.copies:
        _fit_text(
            img,
            f"x{design.copies}",
            (w - b - iw * 0.2, h - b * 0.98, w - b * 0.5, h - 1),
            design.text_color,
            cv2.FONT_HERSHEY_SIMPLEX,
            align="right",
        )
    if design.star:
        r = b * 0.45
        _draw_star(img, b + r * 1.2, h - b / 2, r, (240, 190, 30), (60, 40, 0))
    del corner_y
    if rounded_corners:
        mask = rounded_card_mask(w, h, CORNER_RADIUS_MM * s)
        img[mask < 128] = (235, 235, 235)
    return img


def render_face(
    card_id: str,
    *,
    px_per_mm: float = 8.0,
    design: CardDesign | None = None,
    rounded_corners: bool = False,
) -> np.ndarray:
    """Draw one face of the stand-in deck (or ``design`` when given).

    Parameters
    ----------
    card_id : str
        One of :data:`scoring.reptile_tank.cards.FACE_LABELS` (the 15 fronts and ``"water"``).
    px_per_mm : float
        Resolution; 8 px/mm gives 504 x 704 pixels.
    design : CardDesign, optional
        Draw this design instead of the stand-in design of ``card_id``.

    Returns
    -------
    (H, W, 3) uint8 RGB, H = round(88 * px_per_mm), W = round(63 * px_per_mm)
    """
    if design is None:
        design = stand_in_design(card_id)
    elif card_id not in FACE_LABELS:
        raise ValueError(f"card_id: unknown face {card_id!r}; expected one of {FACE_LABELS}")
    return render_design(design, px_per_mm=px_per_mm, rounded_corners=rounded_corners)


# ---------------------------------------------------------------------------------------------
# Random designs
# ---------------------------------------------------------------------------------------------

_SYLLABLES = ("ka", "ro", "mi", "zu", "tel", "an", "ox", "pri", "sa", "vo", "ly", "den", "qua")


def _random_color(rng: np.random.Generator, *, light: float | None = None) -> Color:
    hsv = np.array(
        [[[rng.integers(0, 180), rng.integers(40, 256), rng.integers(30, 256)]]], np.uint8
    )
    if light is not None:
        hsv[0, 0, 2] = int(np.clip(light * 255, 0, 255))
    rgb = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0, 0]
    return (int(rgb[0]), int(rgb[1]), int(rgb[2]))


def _shade(c: Color, f: float) -> Color:
    return tuple(int(np.clip(v * f, 0, 255)) for v in c)  # type: ignore[return-value]


def _random_word(rng: np.random.Generator) -> str:
    return "".join(rng.choice(_SYLLABLES, int(rng.integers(2, 5)))).capitalize()


def random_design(rng: np.random.Generator) -> CardDesign:
    """A random card design: frame, colours, pattern, motif, text and layout all drawn from ``rng``.

    Used to train the embedder on thousands of decks so that it learns to tell cards apart
    rather than memorise the stand-in deck.
    """
    bg = _random_color(rng)
    dark_text = sum(bg) > 380
    n_words = int(rng.integers(1, 4))
    name = " ".join(_random_word(rng) for _ in range(n_words))
    motif = MotifSpec(
        kind=str(rng.choice(MOTIFS)),
        colors=tuple(_random_color(rng) for _ in range(3)),
        seed=int(rng.integers(0, 2**31)),
        detail=str(
            rng.choice(
                [
                    "",
                    "ring",
                    "dewlap",
                    "tongue",
                    "spots",
                    "red_legs",
                    "toes",
                    "pattern",
                    "striped",
                    "stripes",
                    "blotches",
                ]
            )
        ),
    )
    vp = lambda: str(int(rng.integers(1, 16))) if rng.random() < 0.9 else ""  # noqa: E731
    return CardDesign(
        name=name,
        category=_random_word(rng) if rng.random() < 0.85 else "",
        frame=str(rng.choice(FRAMES)),
        background=bg,
        pattern=str(rng.choice(PATTERNS)),
        pattern_color=_shade(bg, float(rng.uniform(0.6, 1.3)))
        if rng.random() < 0.7
        else _random_color(rng),
        pattern_scale_mm=float(rng.uniform(2.5, 12.0)),
        pattern_angle_deg=float(rng.uniform(0, 180)),
        banner_color=_random_color(rng),
        banner_text_color=(255, 255, 255) if rng.random() < 0.6 else (15, 15, 15),
        frame_color=_random_color(rng) if rng.random() < 0.5 else (25, 25, 25),
        frame_fill=_random_color(rng) if rng.random() < 0.6 else (240, 238, 228),
        motif=motif,
        vp_basic=vp(),
        vp_advanced=vp(),
        panel_color=_random_color(rng, light=0.95) if rng.random() < 0.7 else (250, 250, 245),
        panel_text_color=(20, 20, 20) if rng.random() < 0.8 else _random_color(rng, light=0.3),
        copies=int(rng.integers(0, 12)),
        star=bool(rng.random() < 0.2),
        border_color=(250, 250, 248) if rng.random() < 0.75 else _random_color(rng),
        text_color=(20, 20, 20) if dark_text or rng.random() < 0.8 else (240, 240, 240),
        font=int(rng.choice(FONTS)),
        banner_at_top=bool(rng.random() < 0.8),
        panels_at_bottom=bool(rng.random() < 0.8),
        back=bool(rng.random() < 0.07),
    )


def render_random_face(
    rng: np.random.Generator, *, px_per_mm: float = 8.0
) -> tuple[np.ndarray, CardDesign]:
    """Draw one random design; returns ``((H, W, 3) uint8 RGB, its CardDesign)``."""
    design = random_design(rng)
    return render_design(design, px_per_mm=px_per_mm), design


# ---------------------------------------------------------------------------------------------
# Decks
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeckFaces(Mapping[str, np.ndarray]):
    """A deck's 16 face images by label (``(H, W, 3) uint8 RGB`` each) plus its copy counts.

    Behaves as a read-only mapping ``label -> image``. ``copies`` maps each of the 15 front ids
    to the number of copies in the deck (126 cards by default).
    """

    name: str
    faces: dict[str, np.ndarray]
    copies: dict[str, int] = field(default_factory=default_copies)

    def __post_init__(self) -> None:
        missing = [label for label in FACE_LABELS if label not in self.faces]
        if missing:
            raise ValueError(f"deck {self.name!r}: missing faces {missing}")
        for label, face in self.faces.items():
            if face.ndim != 3 or face.shape[2] != 3 or face.dtype != np.uint8:
                raise ValueError(f"deck {self.name!r}: face {label!r} is not (H, W, 3) uint8 RGB")

    def __getitem__(self, label: str) -> np.ndarray:
        return self.faces[label]

    def __iter__(self) -> Iterator[str]:
        return iter(self.faces)

    def __len__(self) -> int:
        return len(self.faces)


def stand_in_deck(*, px_per_mm: float = 8.0) -> DeckFaces:
    """The 16 faces of the stand-in deck."""
    faces = {label: render_face(label, px_per_mm=px_per_mm) for label in FACE_LABELS}
    return DeckFaces("stand-in", faces)


def random_deck(rng: np.random.Generator, *, px_per_mm: float = 8.0) -> DeckFaces:
    """A deck of 16 random designs, one per face label (the Water back gets a back layout)."""
    faces = {}
    for label in FACE_LABELS:
        design = random_design(rng)
        design = replace(design, back=(label == WATER) or (design.back and rng.random() < 0.3))
        faces[label] = render_design(design, px_per_mm=px_per_mm)
    return DeckFaces("random", faces)


def load_pack_faces(directory: str | Path) -> DeckFaces:
    """Read ``<label>.png`` (or .jpg/.jpeg/.webp) for the 16 face labels from ``directory``.

    The layout written by ``reptile-tank deck export``; a deck pack folder (faces in its
    ``faces/`` sub-folder) is read too. Images are returned RGB.

    Raises
    ------
    FileNotFoundError
        If the directory or a face file is missing.
    ValueError
        If a file is not a readable image.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"deck pack: no such directory {str(directory)!r}")
    if (directory / "faces").is_dir() and not any(
        (directory / f"{FACE_LABELS[0]}{ext}").is_file() for ext in (".png", ".jpg", ".jpeg")
    ):
        directory = directory / "faces"  # a DeckPack folder keeps its faces there
    faces = {}
    for label in FACE_LABELS:
        path = next(
            (
                directory / f"{label}{ext}"
                for ext in (".png", ".jpg", ".jpeg", ".webp")
                if (directory / f"{label}{ext}").is_file()
            ),
            None,
        )
        if path is None:
            raise FileNotFoundError(f"deck pack {str(directory)!r}: missing face {label}.png")
        bgr = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if bgr is None:
            raise ValueError(f"deck pack: {str(path)!r} is not a readable image")
        faces[label] = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    return DeckFaces(str(directory), faces)


def faces_sheet(deck: Mapping[str, np.ndarray], *, cols: int = 8, width: int = 160) -> np.ndarray:
    """A contact sheet of a deck's faces, labelled; ``(H, W, 3) uint8 RGB``."""
    labels = list(deck)
    h = int(round(width * CARD_H_MM / CARD_W_MM))
    rows = math.ceil(len(labels) / cols)
    pad, cap = 8, 18
    sheet = np.full((rows * (h + pad + cap) + pad, cols * (width + pad) + pad, 3), 90, np.uint8)
    for i, label in enumerate(labels):
        r, c = divmod(i, cols)
        x, y = pad + c * (width + pad), pad + r * (h + pad + cap)
        sheet[y : y + h, x : x + width] = cv2.resize(
            deck[label], (width, h), interpolation=cv2.INTER_AREA
        )
        cv2.putText(
            sheet,
            label[:22],
            (x, y + h + 13),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.38,
            (255, 255, 255),
            1,
            cv2.LINE_AA,
        )
    return sheet


__all__ = [
    "ANIMAL_IDS",
    "CARD_H_MM",
    "CARD_W_MM",
    "CardDesign",
    "DeckFaces",
    "MotifSpec",
    "FaceValues",
    "card_size_px",
    "default_copies",
    "face_values",
    "faces_sheet",
    "load_pack_faces",
    "random_deck",
    "random_design",
    "render_design",
    "render_face",
    "render_random_face",
    "rounded_card_mask",
    "stand_in_deck",
    "stand_in_design",
]
