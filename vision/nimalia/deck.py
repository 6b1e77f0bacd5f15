"""The stand-in Nimalia deck, drawn by code: squares, cards, printable sheets.

A Nimalia card is 2 x 2 squares; every square is one land (its background colour and texture)
and one animal (a pictogram drawn with OpenCV primitives); an otter square also carries its river
as a diagonal band. The card data (which square is where, turning a card) comes from
:mod:`scoring.nimalia.cards` only; this module decides the look.

Two looks are defined: :data:`STAND_IN` (the deck the recogniser is developed on) and
:data:`VARIANT` (other colours, textures, badge-style animals and a dark card edge), used as the
"deck the project has never seen" that is enrolled from one image per card.

Every square of every card is drawn a little differently (the animal's position, size and angle,
the texture's phase are seeded by style, card id and quarter), as real card art differs card to
card; a square is drawn upright in the card's unrotated frame, so turning the card turns the art
and a quarter turn flips the river, exactly as :func:`scoring.nimalia.cards.turn` says.

All images are ``(H, W, 3) uint8 RGB``.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from scoring.nimalia.cards import TURNS, Square, card, cards, layout
from vision.synth.canvas import rounded_card_mask

Color = tuple[int, int, int]
_SHIFT = 4  # cv2 sub-pixel bits
_ONE = 1 << _SHIFT


def square_mm() -> float:
    """Side of one square in millimetres, from Nimalia's rules data (the layout's cell)."""
    return float(layout().cell_w_mm)


@dataclass(frozen=True)
class DeckStyle:
    """How a deck looks: land colours and textures, animal drawing, card edge, river."""

    name: str
    land: dict[str, tuple[Color, Color]]
    texture: dict[str, str]
    animal_colours: dict[str, tuple[Color, Color]]
    badge: Color | None = None  # a disc behind every animal ("badge" style), or plain
    outline: Color = (30, 30, 30)
    edge: Color = (245, 240, 225)
    edge_mm: float = 1.2
    corner_mm: float = 3.0
    river: tuple[Color, Color] = ((70, 150, 225), (170, 215, 245))
    river_width: float = 0.24  # band width as a share of the square's side
    animal_size: float = 0.62  # pictogram size (its unit circle) as a share of half the side
    seed: int = 0
    back: tuple[Color, Color] = ((40, 90, 70), (220, 200, 120))
    extra: dict[str, float] = field(default_factory=dict)
    #: Per animal, what draws it: the name of a built-in pictogram (``"lio"``) or a tuple of
    #: random primitives (:func:`random_style`); empty = each animal's own pictogram.
    pictograms: dict[str, object] = field(default_factory=dict)


STAND_IN = DeckStyle(
    name="stand-in",
    land={
        "W": ((45, 115, 200), (120, 180, 235)),
        "S": ((225, 185, 95), (180, 140, 60)),
        "J": ((45, 140, 65), (25, 95, 40)),
        "I": ((228, 240, 248), (170, 200, 225)),
    },
    texture={"W": "waves", "S": "grass", "J": "leaves", "I": "cracks"},
    animal_colours={
        "cro": ((60, 120, 50), (235, 235, 220)),
        "fla": ((240, 120, 160), (30, 30, 30)),
        "lio": ((200, 110, 30), (245, 200, 90)),
        "gir": ((235, 190, 70), (130, 75, 30)),
        "pan": ((250, 250, 250), (25, 25, 25)),
        "gor": ((60, 55, 55), (140, 125, 115)),
        "bea": ((250, 248, 240), (40, 40, 40)),
        "pen": ((25, 25, 35), (250, 250, 250)),
        "ott": ((120, 75, 40), (200, 160, 120)),
    },
    seed=11,
)

VARIANT = DeckStyle(
    name="variant",
    land={
        "W": ((25, 150, 160), (15, 100, 120)),
        "S": ((235, 150, 75), (250, 200, 140)),
        "J": ((95, 125, 40), (150, 175, 70)),
        "I": ((212, 214, 236), (245, 245, 252)),
    },
    texture={"W": "dots", "S": "stripes", "J": "hatch", "I": "hexes"},
    animal_colours={
        "cro": ((30, 90, 30), (250, 240, 120)),
        "fla": ((250, 90, 130), (70, 20, 40)),
        "lio": ((160, 80, 20), (250, 220, 120)),
        "gir": ((250, 210, 90), (170, 90, 20)),
        "pan": ((245, 245, 245), (10, 10, 10)),
        "gor": ((40, 40, 50), (170, 150, 140)),
        "bea": ((255, 252, 245), (90, 90, 110)),
        "pen": ((15, 20, 60), (255, 255, 255)),
        "ott": ((140, 90, 50), (235, 200, 160)),
    },
    badge=(250, 248, 235),
    outline=(60, 40, 40),
    edge=(35, 35, 40),
    edge_mm=0.7,
    corner_mm=2.0,
    river=((40, 80, 190), (110, 160, 240)),
    river_width=0.18,
    animal_size=0.5,
    seed=977,
    back=((120, 40, 60), (240, 210, 200)),
)


# ---------------------------------------------------------------------------------------------
# Drawing helpers: a similarity from unit coordinates to pixels
# ---------------------------------------------------------------------------------------------


class _Pen:
    """Draws in unit coordinates: ``(u, v)`` -> centre + scale * R(angle) (u, v), anti-aliased."""

    def __init__(
        self,
        img: np.ndarray,
        cx: float,
        cy: float,
        scale: float,
        angle_deg: float,
        mirror: bool = False,
    ) -> None:
        self.img, self.cx, self.cy, self.s = img, cx, cy, scale
        a = math.radians(angle_deg)
        self.m = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        if mirror:
            self.m = self.m @ np.array([[-1.0, 0.0], [0.0, 1.0]])

    def pts(self, uv) -> np.ndarray:
        p = np.asarray(uv, np.float64).reshape(-1, 2) @ self.m.T * self.s + [self.cx, self.cy]
        return np.round(p * _ONE).astype(np.int32)

    def ellipse(self, u, v, au, av, ang, colour, thickness=-1) -> None:
        c = self.pts([u, v])[0]
        ang_img = math.degrees(math.atan2(self.m[1, 0], self.m[0, 0])) + ang
        if np.linalg.det(self.m) < 0:
            ang_img = math.degrees(math.atan2(self.m[1, 0], self.m[0, 0])) - ang
        axes = (max(1, int(au * self.s * _ONE)), max(1, int(av * self.s * _ONE)))
        t = thickness if thickness < 0 else max(1, int(thickness * self.s))
        cv2.ellipse(self.img, tuple(c), axes, ang_img, 0, 360, colour, t, cv2.LINE_AA, _SHIFT)

    def circle(self, u, v, r, colour, thickness=-1) -> None:
        self.ellipse(u, v, r, r, 0, colour, thickness)

    def poly(self, uv, colour) -> None:
        cv2.fillPoly(self.img, [self.pts(uv)], colour, cv2.LINE_AA, _SHIFT)

    def line(self, uv, colour, width) -> None:
        p = self.pts(uv)
        cv2.polylines(
            self.img, [p], False, colour, max(1, int(width * self.s)), cv2.LINE_AA, _SHIFT
        )


# ---------------------------------------------------------------------------------------------
# Animals (unit coordinates, about [-1, 1]^2, facing right)
# ---------------------------------------------------------------------------------------------


def _crocodile(p: _Pen, c1, c2, out) -> None:
    p.poly([[-1.0, 0.0], [-0.5, -0.12], [-0.5, 0.12]], c1)  # tail
    for x in (-0.35, 0.3):
        p.ellipse(x, -0.28, 0.09, 0.16, 20, c1)
        p.ellipse(x, 0.28, 0.09, 0.16, -20, c1)
    p.ellipse(-0.1, 0.0, 0.62, 0.22, 0, c1)
    p.poly([[0.35, -0.17], [1.0, -0.09], [1.0, 0.09], [0.35, 0.17]], c1)
    teeth = [[0.45 + 0.1 * k, 0.0 + (0.07 if k % 2 else -0.03)] for k in range(6)]
    p.line(teeth, c2, 0.05)
    for x in (-0.4, -0.2, 0.0, 0.2):
        p.circle(x, 0.0, 0.06, c2)
    p.circle(0.42, -0.12, 0.05, out)


def _flamingo(p: _Pen, c1, c2, out) -> None:
    p.line([[0.05, 0.25], [0.0, 0.95]], c1, 0.05)
    p.line([[0.2, 0.25], [0.25, 0.6], [0.1, 0.65]], c1, 0.05)
    p.ellipse(0.2, 0.15, 0.45, 0.24, -10, c1)
    p.line([[-0.15, 0.05], [-0.4, -0.25], [-0.25, -0.6], [0.05, -0.72]], c1, 0.13)
    p.circle(0.08, -0.72, 0.13, c1)
    p.poly([[0.17, -0.78], [0.45, -0.62], [0.2, -0.62]], c2)
    p.circle(0.06, -0.76, 0.035, out)


def _lion(p: _Pen, c1, c2, out) -> None:
    rays = []
    for k in range(24):
        a = 2 * math.pi * k / 24
        r = 0.85 if k % 2 == 0 else 0.62
        rays.append([r * math.cos(a), r * math.sin(a)])
    p.poly(rays, c1)
    p.circle(0, 0, 0.5, c2)
    p.circle(-0.18, -0.12, 0.06, out)
    p.circle(0.18, -0.12, 0.06, out)
    p.poly([[-0.1, 0.08], [0.1, 0.08], [0.0, 0.2]], out)
    p.line([[-0.15, 0.32], [0.0, 0.24], [0.15, 0.32]], out, 0.04)


def _giraffe(p: _Pen, c1, c2, out) -> None:
    for x in (-0.45, -0.15, 0.15, 0.4):
        p.line([[x, 0.35], [x, 0.95]], c1, 0.09)
    p.ellipse(0.0, 0.3, 0.6, 0.25, 0, c1)
    p.line([[0.4, 0.2], [0.6, -0.7]], c1, 0.2)
    p.ellipse(0.72, -0.78, 0.25, 0.12, 15, c1)
    p.line([[0.58, -0.86], [0.55, -1.0]], c2, 0.04)
    p.line([[0.68, -0.88], [0.68, -1.02]], c2, 0.04)
    for u, v, r in (
        (-0.3, 0.25, 0.1),
        (0.05, 0.35, 0.11),
        (0.3, 0.22, 0.09),
        (0.5, -0.2, 0.07),
        (-0.1, 0.15, 0.07),
        (0.55, -0.45, 0.06),
    ):
        p.circle(u, v, r, c2)
    p.circle(0.8, -0.8, 0.04, out)


def _panda(p: _Pen, c1, c2, out) -> None:
    p.circle(-0.45, -0.48, 0.22, c2)
    p.circle(0.45, -0.48, 0.22, c2)
    p.circle(0, 0, 0.62, c1)
    p.circle(0, 0, 0.62, out, 0.03)
    p.ellipse(-0.24, -0.05, 0.17, 0.11, 60, c2)
    p.ellipse(0.24, -0.05, 0.17, 0.11, -60, c2)
    p.circle(-0.22, -0.07, 0.05, c1)
    p.circle(0.22, -0.07, 0.05, c1)
    p.ellipse(0, 0.22, 0.11, 0.07, 0, c2)
    p.line([[-0.1, 0.4], [0.0, 0.33], [0.1, 0.4]], c2, 0.04)


def _gorilla(p: _Pen, c1, c2, out) -> None:
    p.ellipse(0, 0.45, 0.85, 0.45, 0, c1)  # shoulders
    p.ellipse(-0.75, 0.6, 0.18, 0.35, 0, c1)
    p.ellipse(0.75, 0.6, 0.18, 0.35, 0, c1)
    p.circle(0, -0.25, 0.48, c1)
    p.ellipse(0, -0.15, 0.32, 0.27, 0, c2)
    p.ellipse(0, -0.38, 0.34, 0.09, 0, c1)  # brow
    p.circle(-0.13, -0.25, 0.05, out)
    p.circle(0.13, -0.25, 0.05, out)
    p.ellipse(0, -0.04, 0.12, 0.06, 0, out)


def _bear(p: _Pen, c1, c2, out) -> None:
    p.ellipse(-0.15, 0.25, 0.75, 0.42, 0, c2)
    p.ellipse(-0.15, 0.25, 0.71, 0.38, 0, c1)
    p.circle(0.55, -0.25, 0.36, c2)
    p.circle(0.55, -0.25, 0.32, c1)
    p.circle(0.35, -0.52, 0.1, c2)
    p.circle(0.75, -0.52, 0.1, c2)
    p.ellipse(0.78, -0.12, 0.14, 0.1, 0, c1)
    p.circle(0.9, -0.14, 0.06, out)
    p.circle(0.58, -0.3, 0.045, out)
    for x in (-0.65, -0.3, 0.1, 0.35):
        p.ellipse(x, 0.68, 0.1, 0.14, 0, c2)


def _penguin(p: _Pen, c1, c2, out) -> None:
    p.ellipse(0, 0.05, 0.45, 0.8, 0, c1)
    p.ellipse(0.05, 0.15, 0.3, 0.6, 0, c2)
    p.ellipse(-0.42, 0.1, 0.12, 0.4, 15, c1)
    p.circle(0.05, -0.5, 0.06, out if c2 != out else (255, 255, 255))
    p.poly([[0.15, -0.45], [0.45, -0.4], [0.15, -0.33]], (245, 150, 30))
    p.ellipse(-0.15, 0.85, 0.15, 0.06, 0, (245, 150, 30))
    p.ellipse(0.2, 0.85, 0.15, 0.06, 0, (245, 150, 30))


def _otter(p: _Pen, c1, c2, out) -> None:
    p.line([[-0.4, 0.15], [-0.75, 0.3], [-0.98, 0.2]], c1, 0.14)  # tail
    p.ellipse(-0.05, 0.1, 0.55, 0.24, -10, c1)
    p.circle(0.5, -0.15, 0.26, c1)
    p.ellipse(0.6, -0.08, 0.16, 0.12, 0, c2)
    p.circle(0.7, -0.12, 0.05, out)
    p.circle(0.48, -0.25, 0.045, out)
    p.line([[0.62, -0.02], [0.9, 0.05]], out, 0.02)
    p.line([[0.62, 0.0], [0.88, 0.12]], out, 0.02)
    p.ellipse(0.1, 0.16, 0.3, 0.1, -10, c2)


_ANIMALS: dict[str, Callable] = {
    "cro": _crocodile,
    "fla": _flamingo,
    "lio": _lion,
    "gir": _giraffe,
    "pan": _panda,
    "gor": _gorilla,
    "bea": _bear,
    "pen": _penguin,
    "ott": _otter,
}


# ---------------------------------------------------------------------------------------------
# Lands
# ---------------------------------------------------------------------------------------------


def _texture(
    img: np.ndarray, kind: str, c2: Color, rng: np.random.Generator, scale: float | None = None
) -> None:
    """Draw a land's texture over ``img``; ``scale`` is pixels per hundredth of a square
    (default: ``img`` is one square)."""
    n = img.shape[0]
    s = n / 100.0 if scale is None else scale
    w = max(1, int(round(1.6 * s)))
    if kind == "waves":
        phase = rng.uniform(0, 10)
        for k in range(7):
            y0 = (k + 0.5) * n / 7 + rng.uniform(-2, 2) * s
            xs = np.linspace(0, n, 24)
            ys = y0 + 2.5 * s * np.sin(xs / (9 * s) + phase + k)
            cv2.polylines(
                img,
                [np.round(np.column_stack([xs, ys]) * _ONE).astype(np.int32)],
                False,
                c2,
                w,
                cv2.LINE_AA,
                _SHIFT,
            )
    elif kind == "grass":
        for _ in range(26):
            x, y = rng.uniform(0, n, 2)
            for dx in (-2.0, 0.0, 2.0):
                p0 = (int((x) * _ONE), int(y * _ONE))
                p1 = (int((x + dx * s) * _ONE), int((y - 5 * s) * _ONE))
                cv2.line(img, p0, p1, c2, w, cv2.LINE_AA, _SHIFT)
    elif kind == "leaves":
        for _ in range(14):
            x, y = rng.uniform(0, n, 2)
            cv2.ellipse(
                img,
                (int(x * _ONE), int(y * _ONE)),
                (int(8 * s * _ONE), int(3 * s * _ONE)),
                rng.uniform(0, 180),
                0,
                360,
                c2,
                -1,
                cv2.LINE_AA,
                _SHIFT,
            )
    elif kind == "cracks":
        for _ in range(5):
            pts = [rng.uniform(0, n, 2)]
            for _k in range(4):
                pts.append(pts[-1] + rng.normal(0, 12 * s, 2))
            cv2.polylines(
                img,
                [np.round(np.array(pts) * _ONE).astype(np.int32)],
                False,
                c2,
                w,
                cv2.LINE_AA,
                _SHIFT,
            )
    elif kind == "dots":
        step = 11 * s
        off = rng.uniform(0, step, 2)
        for yy in np.arange(off[1] - step, n + step, step):
            for xx in np.arange(off[0] - step, n + step, step):
                cv2.circle(
                    img,
                    (int(xx * _ONE), int(yy * _ONE)),
                    int(2.2 * s * _ONE),
                    c2,
                    -1,
                    cv2.LINE_AA,
                    _SHIFT,
                )
    elif kind == "stripes":
        step = 9 * s
        off = rng.uniform(0, step)
        for yy in np.arange(off - step, n + step, step):
            cv2.line(
                img,
                (0, int(yy * _ONE)),
                (int(n * _ONE), int(yy * _ONE)),
                c2,
                max(1, int(3 * s)),
                cv2.LINE_AA,
                _SHIFT,
            )
    elif kind == "hatch":
        step = 10 * s
        off = rng.uniform(0, step)
        for k in np.arange(-n + off, 2 * n, step):
            cv2.line(
                img,
                (int(k * _ONE), 0),
                (int((k + n * 0.6) * _ONE), int(n * _ONE)),
                c2,
                w,
                cv2.LINE_AA,
                _SHIFT,
            )
    elif kind == "hexes":
        r = 9 * s
        for row in range(-1, int(n / (1.5 * r)) + 2):
            for col in range(-1, int(n / (1.732 * r)) + 2):
                cx = col * 1.732 * r + (row % 2) * 0.866 * r
                cy = row * 1.5 * r
                hexagon = [
                    [
                        cx + r * math.cos(math.pi / 6 + k * math.pi / 3),
                        cy + r * math.sin(math.pi / 6 + k * math.pi / 3),
                    ]
                    for k in range(6)
                ]
                cv2.polylines(
                    img,
                    [np.round(np.array(hexagon) * _ONE).astype(np.int32)],
                    True,
                    c2,
                    w,
                    cv2.LINE_AA,
                    _SHIFT,
                )
    elif kind in _RANDOM_TEXTURES:
        _RANDOM_TEXTURES[kind](img, c2, rng, s, w)
    elif kind in _PAINTED_TEXTURES:
        _PAINTED_TEXTURES[kind](img, c2, rng, s, w)
    else:  # pragma: no cover - a style names only the kinds above
        raise ValueError(f"unknown texture {kind!r}")


def _river(img: np.ndarray, direction: str, style: DeckStyle, rng: np.random.Generator) -> None:
    n = img.shape[0]
    if direction == "/":
        a, b = (0.0, n), (n, 0.0)
    else:
        a, b = (0.0, 0.0), (n, n)
    width = style.river_width * n * rng.uniform(0.9, 1.1)
    band = np.zeros((n, n), np.uint8)
    p0 = (int((a[0] - 0.2 * (b[0] - a[0])) * _ONE), int((a[1] - 0.2 * (b[1] - a[1])) * _ONE))
    p1 = (int((b[0] + 0.2 * (b[0] - a[0])) * _ONE), int((b[1] + 0.2 * (b[1] - a[1])) * _ONE))
    cv2.line(band, p0, p1, 255, max(1, int(width)), cv2.LINE_AA, _SHIFT)
    alpha = band.astype(np.float32)[..., None] / 255
    img[:] = (img * (1 - alpha) + np.float32(style.river[0]) * alpha).astype(np.uint8)
    cv2.line(img, p0, p1, style.river[1], max(1, int(width * 0.15)), cv2.LINE_AA, _SHIFT)


# ---------------------------------------------------------------------------------------------
# Random decks (training data for a square embedder; never the variant style)
# ---------------------------------------------------------------------------------------------


def _spots(img, c2, rng, s, w) -> None:
    n = img.shape[0]
    for _ in range(int(rng.integers(6, 30))):
        x, y = rng.uniform(0, n, 2)
        r = max(1, int(rng.uniform(1, 6) * s * _ONE))
        cv2.circle(img, (int(x * _ONE), int(y * _ONE)), r, c2, -1, cv2.LINE_AA, _SHIFT)


def _scribble(img, c2, rng, s, w) -> None:
    n = img.shape[0]
    for _ in range(int(rng.integers(2, 7))):
        pts = [rng.uniform(0, n, 2)]
        for _k in range(int(rng.integers(3, 9))):
            pts.append(pts[-1] + rng.normal(0, 9 * s, 2))
        p = np.round(np.array(pts) * _ONE).astype(np.int32)
        cv2.polylines(
            img, [p], False, c2, max(1, int(w * rng.uniform(0.6, 2))), cv2.LINE_AA, _SHIFT
        )


def _blotches(img, c2, rng, s, w) -> None:
    n = img.shape[0]
    noise = cv2.GaussianBlur(rng.normal(0, 1, (n, n)).astype(np.float32), (0, 0), 4 * s + 1)
    a = np.clip((noise - noise.mean()) / (noise.std() + 1e-6) * 0.6, 0, 1)[..., None]
    img[:] = (img * (1 - a) + np.float32(c2) * a).astype(np.uint8)


def _plain(img, c2, rng, s, w) -> None:
    return None


def _zigzag(img, c2, rng, s, w) -> None:
    n = img.shape[0]
    step = rng.uniform(8, 20) * s
    amp = rng.uniform(1.5, 4) * s
    ang = rng.uniform(0, np.pi)
    for k in np.arange(-n, 2 * n, step):
        t = np.linspace(-n, 2 * n, 40)
        zz = k + amp * np.sign(np.sin(t / (3 * s)))
        xs = t * np.cos(ang) - zz * np.sin(ang) + n / 2
        ys = t * np.sin(ang) + zz * np.cos(ang)
        p = np.round(np.column_stack([xs, ys]) * _ONE).astype(np.int32)
        cv2.polylines(img, [p], False, c2, w, cv2.LINE_AA, _SHIFT)


#: Textures only random decks use (the variant style's are not among them).
_RANDOM_TEXTURES = {
    "spots": _spots,
    "scribble": _scribble,
    "blotches": _blotches,
    "plain": _plain,
    "zigzag": _zigzag,
}
#: What a random deck draws its lands with: the stand-in's textures and the random-only ones.
RANDOM_TEXTURE_KINDS = ("waves", "grass", "leaves", "cracks", *_RANDOM_TEXTURES)


def _draw_primitives(pen: _Pen, prims, colours) -> None:
    for kind, colour, *args in prims:
        c = colours[colour]
        if kind == "ellipse":
            pen.ellipse(*args, c)
        elif kind == "poly":
            pen.poly(args[0], c)
        else:
            pen.line(args[0], c, args[1])


def _random_pictogram(rng: np.random.Generator) -> tuple:
    """3-7 random primitives (ellipses, polygons, strokes) in unit coordinates, a body first."""
    prims = [
        ("ellipse", 0, *rng.uniform(-0.2, 0.2, 2), *rng.uniform(0.3, 0.7, 2), rng.uniform(0, 180))
    ]
    for _ in range(int(rng.integers(2, 7))):
        colour = int(rng.choice(3, p=[0.45, 0.4, 0.15]))
        t = rng.random()
        if t < 0.45:
            prims.append(
                (
                    "ellipse",
                    colour,
                    *rng.uniform(-0.7, 0.7, 2),
                    *rng.uniform(0.05, 0.35, 2),
                    rng.uniform(0, 180),
                )
            )
        elif t < 0.75:
            c = rng.uniform(-0.6, 0.6, 2)
            prims.append(
                (
                    "poly",
                    colour,
                    (c + rng.uniform(-0.4, 0.4, (int(rng.integers(3, 6)), 2))).tolist(),
                )
            )
        else:
            c = rng.uniform(-0.7, 0.7, 2)
            pts = [c]
            for _k in range(int(rng.integers(1, 4))):
                pts.append(pts[-1] + rng.normal(0, 0.3, 2))
            prims.append(("line", colour, np.array(pts).tolist(), rng.uniform(0.03, 0.15)))
    return tuple(prims)


def _random_colour(rng: np.random.Generator) -> Color:
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(20, 256), rng.integers(40, 256)]]])
    return tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0, 0])


def _near(rng: np.random.Generator, c: Color, spread: float) -> Color:
    return tuple(int(v) for v in np.clip(np.array(c) + rng.normal(0, spread, 3), 0, 255))


# ---------------------------------------------------------------------------------------------
# The painted style (a third look, held out from training like the variant)
# ---------------------------------------------------------------------------------------------


def _brush(img, c2, rng, s, w) -> None:
    """Short soft brush strokes in shades between the land's two colours."""
    n = img.shape[0]
    c1 = np.float32(img[0, 0])
    for _ in range(int(n * n / (60 * s * s))):
        t = rng.uniform(0, 1)
        colour = tuple(int(v) for v in np.clip(c1 * (1 - t) + np.float32(c2) * t
                                               + rng.normal(0, 8, 3), 0, 255))  # fmt: skip
        x, y = rng.uniform(-5 * s, n + 5 * s, 2)
        a = rng.normal(0.3, 0.35)
        length = rng.uniform(5, 13) * s
        dx, dy = np.cos(a) * length / 2, np.sin(a) * length / 2
        cv2.line(img, (int((x - dx) * _ONE), int((y - dy) * _ONE)),
                 (int((x + dx) * _ONE), int((y + dy) * _ONE)), colour,
                 max(1, int(rng.uniform(1.5, 3.5) * s)), cv2.LINE_AA, _SHIFT)  # fmt: skip
    img[:] = cv2.GaussianBlur(img, (0, 0), 0.6 * s + 0.3)


def _mottle(img, c2, rng, s, w) -> None:
    """Soft patches of the second colour at two sizes, as washes of paint."""
    n = img.shape[0]
    total = np.zeros((n, n), np.float32)
    for size in (14 * s, 4 * s):
        noise = cv2.GaussianBlur(rng.normal(0, 1, (n, n)).astype(np.float32), (0, 0), size + 1)
        total += (noise - noise.mean()) / (noise.std() + 1e-6)
    a = np.clip(0.5 + 0.35 * total, 0, 1)[..., None]
    img[:] = (img * (1 - a) + np.float32(c2) * a).astype(np.uint8)


#: Textures only the painted style uses (neither training nor the other styles see them).
_PAINTED_TEXTURES = {"brush": _brush, "mottle": _mottle}


def _silhouette(rng: np.random.Generator) -> tuple:
    """An animal as a filled outline (a wobbly closed curve), a patch of its second colour, a
    tail or limbs as strokes and an eye: a shape family the square embedder never trained on."""
    k = np.arange(2, 6)
    amps, phases = rng.uniform(0.05, 0.22, 4), rng.uniform(0, 2 * np.pi, 4)
    theta = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    r = 0.62 + (amps[:, None] * np.cos(k[:, None] * theta + phases[:, None])).sum(0)
    stretch = rng.uniform(1.0, 1.45)
    body = np.column_stack([r * np.cos(theta) * stretch, r * np.sin(theta) / stretch])
    patch = body * rng.uniform(0.35, 0.6) + rng.uniform(-0.25, 0.25, 2)
    head = rng.uniform(0.55, 0.85) * np.array([1.0, rng.uniform(-0.5, 0.2)])
    prims: list = [
        ("poly", 2, (body * 1.06).tolist()),
        ("poly", 0, body.tolist()),
        ("poly", 1, patch.tolist()),
        ("ellipse", 0, *head, rng.uniform(0.18, 0.3), rng.uniform(0.14, 0.24), 0.0),
    ]
    for _ in range(int(rng.integers(1, 4))):
        start = body[int(rng.integers(len(body)))]
        prims.append(("line", 2, [start.tolist(), (start * rng.uniform(1.2, 1.5)).tolist()],
                      rng.uniform(0.05, 0.1)))  # fmt: skip
    prims.append(("ellipse", 1, head[0] + 0.06, head[1] - 0.05, 0.07, 0.07, 0.0))
    prims.append(("ellipse", 2, head[0] + 0.07, head[1] - 0.05, 0.035, 0.035, 0.0))
    return tuple(prims)


def _painted_style() -> DeckStyle:
    rng = np.random.default_rng(31337)
    return DeckStyle(
        name="painted",
        land={
            "W": ((52, 118, 172), (128, 182, 214)),
            "S": ((212, 176, 98), (168, 128, 62)),
            "J": ((56, 110, 56), (122, 158, 72)),
            "I": ((232, 238, 246), (186, 204, 228)),
        },
        texture={"W": "brush", "S": "brush", "J": "mottle", "I": "mottle"},
        animal_colours={
            "cro": ((88, 124, 60), (196, 204, 120)),
            "fla": ((236, 140, 150), (250, 210, 200)),
            "lio": ((190, 120, 50), (120, 70, 30)),
            "gir": ((240, 200, 110), (150, 90, 40)),
            "pan": ((246, 246, 240), (36, 36, 36)),
            "gor": ((70, 62, 66), (150, 130, 120)),
            "bea": ((120, 84, 56), (210, 180, 150)),
            "pen": ((30, 36, 52), (246, 246, 246)),
            "ott": ((130, 88, 56), (222, 190, 150)),
        },
        outline=(48, 38, 34),
        edge=(248, 246, 238),
        edge_mm=2.0,
        corner_mm=3.5,
        river=((64, 140, 212), (196, 228, 250)),
        river_width=0.2,
        animal_size=0.8,
        seed=4243,
        back=((30, 60, 110), (230, 220, 180)),
        extra={"painted": 1.0},
        pictograms={a: _silhouette(rng) for a in _ANIMALS if a != "ott"} | {"ott": "ott"},
    )


def random_style(seed: int) -> DeckStyle:
    """A randomly drawn deck (training data for a square embedder that must compare looks, not
    remember one deck): random land colours and textures (the stand-in's and random-only ones,
    never the variant's), each animal a shuffled built-in pictogram or random primitives, random
    animal colours, sometimes a backing disc, rivers of random colour and width. Never
    :data:`VARIANT`."""
    rng = np.random.default_rng([7919, seed])
    land = {}
    for k in "WSJI":
        c1 = _random_colour(rng)
        c2 = _near(rng, c1, rng.uniform(15, 70)) if rng.random() < 0.7 else _random_colour(rng)
        land[k] = (c1, c2)
    texture = {k: str(rng.choice(RANDOM_TEXTURE_KINDS)) for k in "WSJI"}
    animals = list(_ANIMALS)
    shuffled = list(rng.permutation(animals))
    pictograms: dict[str, object] = {}
    colours = {}
    for a, b in zip(animals, shuffled, strict=True):
        pictograms[a] = str(b) if rng.random() < 0.5 else _random_pictogram(rng)
        colours[a] = (_random_colour(rng), _random_colour(rng))
    river0 = _random_colour(rng)
    return DeckStyle(
        name=f"random-{seed}",
        land=land,
        texture=texture,
        animal_colours=colours,
        badge=_random_colour(rng) if rng.random() < 0.35 else None,
        outline=_random_colour(rng) if rng.random() < 0.5 else (30, 30, 30),
        edge=_random_colour(rng),
        edge_mm=float(rng.uniform(0.4, 1.6)),
        corner_mm=float(rng.uniform(1.5, 3.5)),
        river=(river0, _near(rng, river0, 60)),
        river_width=float(rng.uniform(0.12, 0.32)),
        animal_size=float(rng.uniform(0.45, 0.7)),
        seed=int(rng.integers(1 << 30)),
        pictograms=pictograms,
    )


#: A third look (the "painted" style): each card painted as one picture, lands meeting without
#: a seam or along a wavy line, large animal silhouettes with no disc, a wide pale edge, textures
#: and shapes no training deck has. Like the variant, it is only ever enrolled, never trained on.
PAINTED = _painted_style()

STYLES: dict[str, DeckStyle] = {s.name: s for s in (STAND_IN, VARIANT, PAINTED)}


def draw_square(
    token: str, size_px: int, style: DeckStyle = STAND_IN, *, seed: int = 0
) -> np.ndarray:
    """One square, upright as ``token`` says (``"S:ott/"`` shows a ``/`` river), ``(n, n, 3)``.

    ``seed`` varies the art (animal pose, texture phase) the way one card differs from another.
    """
    sq = Square.parse(token)
    rng = np.random.default_rng([style.seed, seed, zlib.crc32(token.encode())])
    n = int(size_px)
    c1, c2 = style.land[sq.land]
    img = np.empty((n, n, 3), np.uint8)
    img[:] = c1
    _texture(img, style.texture[sq.land], c2, rng)
    _decorate(img, sq, style, rng)
    return img


def _decorate(img: np.ndarray, sq: Square, style: DeckStyle, rng: np.random.Generator) -> None:
    """Draw a square's river (otters) and animal onto its land, ``img`` ``(n, n, 3)``."""
    n = img.shape[0]
    if sq.river:
        _river(img, sq.river, style, rng)
    a1, a2 = style.animal_colours[sq.animal]
    size = style.animal_size * rng.uniform(0.9, 1.08) * n / 2
    if sq.river:  # the otter sits beside its river, on the land
        side = 1 if rng.random() < 0.5 else -1
        off = 0.2 * n * side
        cx, cy = (n / 2 + off, n / 2 + off) if sq.river == "/" else (n / 2 + off, n / 2 - off)
        size *= 0.8
    else:
        cx, cy = n / 2 + rng.uniform(-0.06, 0.06) * n, n / 2 + rng.uniform(-0.06, 0.06) * n
    angle = float(rng.uniform(-25, 25))
    if style.badge is not None:
        cv2.circle(
            img,
            (int(cx * _ONE), int(cy * _ONE)),
            int(size * 1.12 * _ONE),
            style.badge,
            -1,
            cv2.LINE_AA,
            _SHIFT,
        )
        cv2.circle(
            img,
            (int(cx * _ONE), int(cy * _ONE)),
            int(size * 1.12 * _ONE),
            style.outline,
            max(1, n // 60),
            cv2.LINE_AA,
            _SHIFT,
        )
    pen = _Pen(img, cx, cy, size, angle, mirror=bool(rng.random() < 0.5))
    how = style.pictograms.get(sq.animal, sq.animal)
    if isinstance(how, str):
        _ANIMALS[how](pen, a1, a2, style.outline)
    else:
        _draw_primitives(pen, how, (a1, a2, style.outline))


# ---------------------------------------------------------------------------------------------
# Cards and decks
# ---------------------------------------------------------------------------------------------


def card_mask(size_px: int, style: DeckStyle = STAND_IN, px_per_mm: float | None = None):
    """``(n, n) uint8`` mask of a card's rounded outline (255 inside)."""
    ppm = px_per_mm if px_per_mm is not None else size_px / (2 * square_mm())
    return rounded_card_mask(size_px, size_px, style.corner_mm * ppm)


def render_card(
    card_id: int, *, style: DeckStyle = STAND_IN, px_per_mm: float = 4.0, turn: int = 0
) -> np.ndarray:
    """A whole card (2 x 2 squares plus its printed edge), turned clockwise by ``turn``.

    The card is drawn unrotated (its squares as :func:`scoring.nimalia.cards.card` lists them) and the
    image is turned, so art, animals and rivers turn with it. Pixels outside the rounded corners
    are black; use :func:`card_mask` for the outline.
    """
    if turn not in TURNS:
        raise ValueError(f"turn must be one of {TURNS}, got {turn!r}")
    c = card(card_id)
    half = int(round(square_mm() * px_per_mm))
    n = 2 * half
    if style.extra.get("painted"):
        img = _painted_card(card_id, half, style)
    else:
        img = np.zeros((n, n, 3), np.uint8)
        for q, sq in enumerate(c.squares):
            r, col = divmod(q, 2)
            img[r * half : (r + 1) * half, col * half : (col + 1) * half] = draw_square(
                sq.token, half, style, seed=card_id * 4 + q
            )
    e = max(1, int(round(style.edge_mm * px_per_mm)))
    cv2.rectangle(img, (0, 0), (n - 1, n - 1), style.edge, e * 2 - 1)
    img[card_mask(n, style, px_per_mm) == 0] = 0
    return np.ascontiguousarray(np.rot90(img, k=-(turn // 90)))


def _painted_card(card_id: int, half: int, style: DeckStyle) -> np.ndarray:
    """A card painted as one picture (the :data:`PAINTED` style): each land is one layer across
    the whole card, so two squares of one land meet without a seam, lands meet along a wavy line
    near the squares' border, soft light and shade lie over the card, then each square's river
    and animal are drawn on its quarter."""
    c = card(card_id)
    n = 2 * half
    rng = np.random.default_rng([style.seed, card_id])
    layers = {}
    for sq in c.squares:
        if sq.land not in layers:
            layer = np.empty((n, n, 3), np.uint8)
            c1, c2 = style.land[sq.land]
            layer[:] = c1
            _texture(layer, style.texture[sq.land], c2, rng, scale=half / 100.0)
            layers[sq.land] = layer
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    amp = 0.05 * half
    wave = rng.uniform(0.4, 0.9, 2) * half
    phase = rng.uniform(0, 2 * np.pi, 2)
    xs = xx + amp * np.sin(2 * np.pi * yy / wave[0] + phase[0])
    ys = yy + amp * np.sin(2 * np.pi * xx / wave[1] + phase[1])
    quarter = (ys >= half).astype(np.int32) * 2 + (xs >= half).astype(np.int32)
    img = np.zeros((n, n, 3), np.uint8)
    for q, sq in enumerate(c.squares):
        img[quarter == q] = layers[sq.land][quarter == q]
    light = cv2.resize(rng.normal(0, 1, (6, 6)).astype(np.float32), (n, n), cv2.INTER_CUBIC)
    light = 1 + 0.07 * light / (light.std() + 1e-6)
    img = np.clip(img * light[..., None], 0, 255).astype(np.uint8)
    for q, sq in enumerate(c.squares):
        r, col = divmod(q, 2)
        tile = img[r * half : (r + 1) * half, col * half : (col + 1) * half].copy()
        _decorate(tile, sq, style, np.random.default_rng([style.seed, card_id, q]))
        img[r * half : (r + 1) * half, col * half : (col + 1) * half] = tile
    return img


def render_back(*, style: DeckStyle = STAND_IN, px_per_mm: float = 4.0) -> np.ndarray:
    """The card back (a face-down pile beside the reserve shows it)."""
    n = 2 * int(round(square_mm() * px_per_mm))
    img = np.empty((n, n, 3), np.uint8)
    img[:] = style.back[0]
    for k in range(0, 2 * n, max(4, n // 12)):
        cv2.line(img, (k, 0), (k - n, n), style.back[1], max(1, n // 60), cv2.LINE_AA)
    cv2.circle(img, (n // 2, n // 2), n // 4, style.back[1], -1, cv2.LINE_AA)
    cv2.putText(
        img,
        "N",
        (int(n * 0.4), int(n * 0.6)),
        cv2.FONT_HERSHEY_DUPLEX,
        n / 160,
        style.back[0],
        max(1, n // 50),
        cv2.LINE_AA,
    )
    e = max(1, int(round(style.edge_mm * px_per_mm)))
    cv2.rectangle(img, (0, 0), (n - 1, n - 1), style.edge, e * 2 - 1)
    img[card_mask(n, style, px_per_mm) == 0] = 0
    return img


def render_deck(style: DeckStyle = STAND_IN, *, px_per_mm: float = 4.0) -> dict[int, np.ndarray]:
    """All 60 cards unrotated, by id."""
    return {cid: render_card(cid, style=style, px_per_mm=px_per_mm) for cid in cards()}


def deck_sheet(
    deck: dict[int, np.ndarray], *, cols: int = 10, width: int = 160, label: bool = True
) -> np.ndarray:
    """A contact sheet of the cards, in id order, with each id printed under its card."""
    ids = sorted(deck)
    rows = math.ceil(len(ids) / cols)
    pad, text_h = 8, 22 if label else 0
    sheet = np.full(
        (rows * (width + text_h + pad) + pad, cols * (width + pad) + pad, 3), 255, np.uint8
    )
    for k, cid in enumerate(ids):
        r, c = divmod(k, cols)
        x, y = pad + c * (width + pad), pad + r * (width + text_h + pad)
        img = cv2.resize(deck[cid], (width, width), interpolation=cv2.INTER_AREA)
        keep = cv2.resize(card_mask(deck[cid].shape[0]), (width, width)) > 127
        sheet[y : y + width, x : x + width][keep] = img[keep]
        if label:
            cv2.putText(
                sheet,
                str(cid),
                (x + width // 2 - 10, y + width + 17),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.55,
                (0, 0, 0),
                1,
                cv2.LINE_AA,
            )
    return sheet


def write_print_pdf(path: str | Path, style: DeckStyle = STAND_IN, *, dpi: int = 300) -> int:
    """A printable PDF of the deck at true size on A4 pages (cut along the card edges).

    Returns the number of pages. Cards are laid 2 per row, 3 per column of an A4 page (80 mm
    cards with 5 mm spacing), ids printed small beside each card.
    """
    from PIL import Image

    ppm = dpi / 25.4
    page_w, page_h = int(210 * ppm), int(297 * ppm)
    card_px = int(round(2 * square_mm() * ppm))
    gap = int(5 * ppm)
    per_row = max(1, (page_w - gap) // (card_px + gap))
    per_col = max(1, (page_h - gap) // (card_px + gap))
    ids = sorted(cards())
    pages = []
    per_page = per_row * per_col
    for start in range(0, len(ids), per_page):
        page = np.full((page_h, page_w, 3), 255, np.uint8)
        for k, cid in enumerate(ids[start : start + per_page]):
            r, c = divmod(k, per_row)
            x = gap + c * (card_px + gap)
            y = gap + r * (card_px + gap)
            img = render_card(cid, style=style, px_per_mm=ppm)
            mask = card_mask(img.shape[0], style, ppm) > 0
            region = page[y : y + img.shape[0], x : x + img.shape[1]]
            region[mask] = img[mask]
            cv2.putText(
                page,
                str(cid),
                (x, y + img.shape[0] + int(3.5 * ppm)),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.08 * ppm,
                (120, 120, 120),
                2,
                cv2.LINE_AA,
            )
        pages.append(Image.fromarray(page))
    pages[0].save(str(path), "PDF", resolution=float(dpi), save_all=True, append_images=pages[1:])
    return len(pages)


__all__ = [
    "STAND_IN",
    "PAINTED",
    "STYLES",
    "VARIANT",
    "DeckStyle",
    "card_mask",
    "deck_sheet",
    "draw_square",
    "render_back",
    "render_card",
    "render_deck",
    "square_mm",
    "write_print_pdf",
]


def main(argv: list[str] | None = None) -> int:
    """``python -m vision.nimalia.deck --pdf deck.pdf --sheet sheet.png [--style variant]``."""
    import argparse

    ap = argparse.ArgumentParser(description="print the stand-in Nimalia deck")
    ap.add_argument("--style", choices=sorted(STYLES), default=STAND_IN.name)
    ap.add_argument("--pdf", default=None, help="printable A4 PDF at true size")
    ap.add_argument("--dpi", type=int, default=200)
    ap.add_argument("--sheet", default=None, help="contact sheet PNG of the 60 cards")
    args = ap.parse_args(argv)
    style = STYLES[args.style]
    if args.pdf:
        pages = write_print_pdf(args.pdf, style, dpi=args.dpi)
        print(f"{args.pdf}: {pages} A4 pages")
    if args.sheet:
        sheet = deck_sheet(render_deck(style, px_per_mm=1.5), width=96)
        cv2.imwrite(args.sheet, cv2.cvtColor(sheet, cv2.COLOR_RGB2BGR))
        print(f"{args.sheet}: {sheet.shape[1]}x{sheet.shape[0]}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
