"""The "no grid found" fallback: the player taps the terrarium's four outer corners on the photo.

The same taps serve Nimalia's fallback (the corners of one card of a reserve): :func:`corners_ui`
takes the prompt, the button's label and the check of the four corners as parameters.

The photo is shown at its true aspect through ``streamlit-image-coordinates`` (a maintained
click-on-image component whose small frontend ships inside its wheel; nothing is downloaded).
Each tap places the next corner, drawn as a numbered marker; the corners may be tapped in any
order (they are put in clockwise order for the reader). Once four are placed, a tap moves the
nearest one. A magnifier under the photo shows the chosen corner enlarged: a tap on it puts that
corner exactly there. "Undo" removes the last corner; "Done" appears after the fourth.

Typing the corners as pixel coordinates stays available in a folded section (keyboard users).
Everything but :func:`corners_ui` is plain geometry and drawing, tested without Streamlit.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from service.photos import clockwise_corners

#: Names of the corners, clockwise from the top-left (the order given to the reader).
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
#: The magnifier shows a square of this fraction of the photo's long side around a corner.
ZOOM_WINDOW = 1 / 8
#: Width in pixels of the magnifier image sent to the browser.
ZOOM_SIDE = 480
#: Marker colours: fill and outline (visible on light and dark tables).
MARKER_FILL = (255, 212, 0)
MARKER_EDGE = (0, 0, 0)

Point = tuple[float, float]


def default_corners(width: int, height: int) -> list[Point]:
    """A starting guess: a rectangle inset 10 % from the image border, clockwise from top-left."""
    dx, dy = 0.1 * width, 0.1 * height
    return [(dx, dy), (width - dx, dy), (width - dx, height - dy), (dx, height - dy)]


def check_corners(corners: Sequence[Sequence[float]], width: int, height: int) -> list[Point]:
    """Validate four corners typed or tapped by the user.

    Parameters
    ----------
    corners : sequence of 4 (x, y)
        Pixel coordinates in the ``width`` x ``height`` image, clockwise from the top-left.

    Returns
    -------
    list of 4 (float, float)

    Raises
    ------
    ValueError
        Not four points, a point outside the image, or points that do not make a convex
        quadrilateral of reasonable size in clockwise order.
    """
    points = [(float(x), float(y)) for x, y in corners]
    if len(points) != 4:
        raise ValueError("give exactly four corners")
    for name, (x, y) in zip(CORNER_NAMES, points, strict=True):
        if not (0 <= x <= width and 0 <= y <= height):
            raise ValueError(f"the {name} corner ({x:.0f}, {y:.0f}) is outside the photo")
    crosses = []
    for i in range(4):
        (x0, y0), (x1, y1), (x2, y2) = points[i], points[(i + 1) % 4], points[(i + 2) % 4]
        crosses.append((x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1))
    if not all(c > 0 for c in crosses):
        raise ValueError(
            "the corners must go clockwise around the terrarium: top-left, top-right, "
            "bottom-right, bottom-left"
        )
    area = 0.5 * abs(
        sum(
            points[i][0] * points[(i + 1) % 4][1] - points[(i + 1) % 4][0] * points[i][1]
            for i in range(4)
        )
    )
    if area < 0.02 * width * height:
        raise ValueError("the corners enclose too small a part of the photo")
    return points


def order_corners(points: Sequence[Sequence[float]]) -> list[Point]:
    """Four points in clockwise order on screen, starting from the top-left one.

    The points are sorted by their angle around the centroid (image ``y`` runs downwards, so
    increasing angle is clockwise on screen); the first is the one with the smallest ``x + y``.
    """
    pts = [(float(x), float(y)) for x, y in points]
    if len(pts) != 4:
        raise ValueError("give exactly four corners")
    return clockwise_corners(pts)


def nearest(points: Sequence[Point], x: float, y: float) -> int:
    """Index of the point of ``points`` nearest to ``(x, y)``."""
    return min(range(len(points)), key=lambda i: math.hypot(points[i][0] - x, points[i][1] - y))


def apply_tap(points: Sequence[Point], x: float, y: float) -> tuple[list[Point], int]:
    """The corners after a tap at ``(x, y)`` (photo frame), and the index of the one it set.

    Under four corners, the tap adds one; with four, it moves the nearest.
    """
    pts = list(points)
    if len(pts) < 4:
        pts.append((float(x), float(y)))
        return pts, len(pts) - 1
    i = nearest(pts, x, y)
    pts[i] = (float(x), float(y))
    return pts, i


def to_frame(value: dict[str, Any], width: int, height: int) -> Point:
    """A click reported on the image as shown (``x, y, width, height`` in CSS px) in photo px."""
    shown_w = float(value.get("width") or 0)
    shown_h = float(value.get("height") or 0)
    if shown_w <= 0 or shown_h <= 0:
        raise ValueError("the photo had no size on screen")
    x = min(max(float(value["x"]) * width / shown_w, 0.0), float(width))
    y = min(max(float(value["y"]) * height / shown_h, 0.0), float(height))
    return x, y


def _decode(jpeg: bytes) -> Image.Image:
    with Image.open(io.BytesIO(jpeg)) as image:
        return image.convert("RGB")


def _marker(draw: ImageDraw.ImageDraw, x: float, y: float, r: float, label: str) -> None:
    """A ring with a dot at ``(x, y)`` and ``label`` beside it."""
    w = max(2, round(r / 4))
    draw.ellipse((x - r, y - r, x + r, y + r), outline=MARKER_EDGE, width=w + 2)
    draw.ellipse((x - r, y - r, x + r, y + r), outline=MARKER_FILL, width=w)
    dot = max(1.5, r / 5)
    draw.ellipse((x - dot, y - dot, x + dot, y + dot), fill=MARKER_FILL, outline=MARKER_EDGE)
    size = max(12, round(2 * r))
    tx, ty = x + r + 2, y - r - size
    draw.text(
        (tx, max(0, ty)), label, fill=MARKER_FILL, stroke_width=3, stroke_fill=MARKER_EDGE,
        font_size=size,
    )  # fmt: skip


def marked_photo(jpeg: bytes, width: int, height: int, points: Sequence[Point]) -> Image.Image:
    """The photo with the corners tapped so far: numbered markers, and the outline once four.

    ``points`` are in the ``width`` x ``height`` frame; ``jpeg`` may be smaller (same aspect).
    """
    image = _decode(jpeg)
    scale = image.width / width
    draw = ImageDraw.Draw(image)
    shown = [(x * scale, y * scale) for x, y in points]
    if len(shown) == 4:
        outline = order_corners(shown)
        line_w = max(2, round(image.width / 300))
        draw.line([*outline, outline[0]], fill=MARKER_EDGE, width=line_w + 2)
        draw.line([*outline, outline[0]], fill=MARKER_FILL, width=line_w)
    radius = max(8.0, image.width / 40)
    for i, (x, y) in enumerate(shown):
        _marker(draw, x, y, radius, str(i + 1))
    return image


@dataclass(frozen=True)
class Zoom:
    """A magnified square of the photo around one point.

    Attributes
    ----------
    image : PIL.Image.Image
        The enlarged crop (``ZOOM_SIDE`` px square), with a cross-hair on the point.
    left, top, side : float
        The crop's square in the photo frame (its top-left corner and side).
    """

    image: Image.Image
    left: float
    top: float
    side: float

    def to_frame(self, value: dict[str, Any]) -> Point:
        """A tap on the magnifier (as reported by the component) in photo-frame px."""
        shown_w = float(value.get("width") or 0)
        shown_h = float(value.get("height") or 0)
        if shown_w <= 0 or shown_h <= 0:
            raise ValueError("the magnifier had no size on screen")
        return (
            self.left + float(value["x"]) / shown_w * self.side,
            self.top + float(value["y"]) / shown_h * self.side,
        )


def zoom_at(jpeg: bytes, width: int, height: int, point: Point, label: str = "") -> Zoom:
    """The magnifier around ``point`` (photo frame): a square of ``ZOOM_WINDOW`` x the long side.

    The square is kept inside the photo where it can be, so the point may sit off its centre.
    """
    image = _decode(jpeg)
    scale = image.width / width
    side = min(ZOOM_WINDOW * max(width, height), width, height)
    left = min(max(point[0] - side / 2, 0.0), width - side)
    top = min(max(point[1] - side / 2, 0.0), height - side)
    box = (left * scale, top * scale, (left + side) * scale, (top + side) * scale)
    crop = image.resize((ZOOM_SIDE, ZOOM_SIDE), Image.Resampling.BICUBIC, box=box)
    draw = ImageDraw.Draw(crop)
    px = (point[0] - left) / side * ZOOM_SIDE
    py = (point[1] - top) / side * ZOOM_SIDE
    for colour, w in ((MARKER_EDGE, 3), (MARKER_FILL, 1)):
        draw.line((px - 24, py, px - 6, py), fill=colour, width=w)
        draw.line((px + 6, py, px + 24, py), fill=colour, width=w)
        draw.line((px, py - 24, px, py - 6), fill=colour, width=w)
        draw.line((px, py + 6, px, py + 24), fill=colour, width=w)
    if label:
        draw.text((8, 6), label, fill=MARKER_FILL, stroke_width=3, stroke_fill=MARKER_EDGE,
                  font_size=22)  # fmt: skip
    return Zoom(image=crop, left=left, top=top, side=side)


#: What :func:`corners_ui` asks for by default: the terrarium's outer corners.
TERRARIUM_PROMPT = (
    "**Tap the {ordinal} outer corner** of the terrarium ({placed} of 4 placed, any order): the "
    "outside corner of a corner card."
)
ORDINALS = ("first", "second", "third", "fourth")


def terrarium_corners(points: Sequence[Point], width: int, height: int) -> list[Point]:
    """The terrarium's corners as the reader wants them (clockwise from the top-left), checked."""
    return check_corners(order_corners(points), width, height)


def corners_ui(
    read: Any,
    *,
    key: str,
    prompt: str = TERRARIUM_PROMPT,
    done_label: str = "Done: read the board",
    check: Callable[[Sequence[Point], int, int], list[Point]] = terrarium_corners,
    typed_check: Callable[[Sequence[Point], int, int], list[Point]] = check_corners,
) -> list[Point] | None:
    """Ask for four corners; returns them (as ``check`` gives them) once confirmed.

    Parameters
    ----------
    read : a game's photo read (e.g. Reptile Tank's PhotoRead) or alike
        The photo to tap on: its ``overlay_jpeg`` is the plain photo, ``image_size`` its frame
        (the corners' pixels), ``photo_sha256`` tells one photo from another.
    key : str
        Prefix of this widget group's keys (and of the tapped corners in the session state).
    prompt : str
        The instruction while corners are missing; ``{ordinal}`` (first ... fourth) and
        ``{placed}`` (0-3) are filled in.
    done_label : str
        The label of the button that returns the corners.
    check : callable
        ``check(points, width, height)`` -> the corners to return, or ``ValueError`` with the
        sentence shown to the player (the points are in tap order).
    typed_check : callable
        The same for the corners typed in the folded section (given clockwise from the
        top-left, as its fields are named).
    """
    import streamlit as st
    from streamlit_image_coordinates import streamlit_image_coordinates

    width, height = read.image_size
    points_key, focus_key = f"{key}_points", f"{key}_focus"
    state = st.session_state
    photo_key = f"{key}_photo"
    if state.get(photo_key) != read.photo_sha256:  # another photo: its own corners
        state[photo_key] = read.photo_sha256
        state[points_key], state[focus_key] = [], None
    points: list[Point] = state.setdefault(points_key, [])

    def tapped(component_key: str, zoom: Zoom | None = None) -> None:
        value = state.get(component_key)
        if not value:
            return
        pts: list[Point] = state[points_key]
        try:
            if zoom is None:
                state[points_key], state[focus_key] = apply_tap(
                    pts, *to_frame(value, width, height)
                )
            elif pts:
                i = min(state.get(focus_key) or 0, len(pts) - 1)
                pts[i] = zoom.to_frame(value)
        except (KeyError, TypeError, ValueError):
            return

    placed = len(points)
    if placed < 4:
        st.markdown(prompt.format(ordinal=ORDINALS[placed], placed=placed))
    else:
        st.markdown("**All four corners placed.** Tap near a corner to move it, or read now.")
    streamlit_image_coordinates(
        marked_photo(read.overlay_jpeg, width, height, points),
        key=f"{key}_tap",
        width="stretch",
        image_format="JPEG",
        jpeg_quality=85,
        on_click=lambda: tapped(f"{key}_tap"),
        cursor="crosshair",
    )  # the callback reads the click from the component's own key
    cols = st.columns(2)
    if cols[0].button("↶ Undo last corner", key=f"{key}_undo", disabled=not points,
                      width="stretch"):  # fmt: skip
        points.pop()
        state[focus_key] = len(points) - 1 if points else None
        st.rerun()
    done = cols[1].button(
        done_label, key=f"{key}_done", type="primary", disabled=placed < 4,
        width="stretch",
    )  # fmt: skip
    if points:
        focus = state.get(focus_key)
        focus = len(points) - 1 if focus is None or focus >= len(points) else focus
        if len(points) > 1:
            focus = st.segmented_control(
                "Magnify corner",
                list(range(len(points))),
                format_func=lambda i: f"{i + 1}",
                default=focus,
                key=f"{key}_focus_pick_{len(points)}_{focus}",
            )
            focus = len(points) - 1 if focus is None else focus
        state[focus_key] = focus
        zoom = zoom_at(read.overlay_jpeg, width, height, points[focus], f"corner {focus + 1}")
        st.caption(f"Magnifier: tap exactly on the corner to place corner {focus + 1} there.")
        streamlit_image_coordinates(
            zoom.image,
            key=f"{key}_zoom",
            width="stretch",
            image_format="JPEG",
            jpeg_quality=85,
            on_click=lambda: tapped(f"{key}_zoom", zoom),
            cursor="crosshair",
        )
    if done and placed == 4:
        try:
            return check(points, width, height)
        except ValueError as error:
            st.error(str(error))
    with st.expander("Type the corners instead (pixels)"):
        typed = _typed_corners_ui(key, width, height, typed_check)
    return typed


def _typed_corners_ui(
    key: str,
    width: int,
    height: int,
    check: Callable[[Sequence[Point], int, int], list[Point]] = check_corners,
) -> list[Point] | None:
    """Eight number inputs (four corners, clockwise from top-left) and a button to read."""
    import streamlit as st

    state = st.session_state
    if f"{key}_x0" not in state:
        for i, (x, y) in enumerate(default_corners(width, height)):
            state[f"{key}_x{i}"] = float(round(x))
            state[f"{key}_y{i}"] = float(round(y))
    st.caption(f"The photo is {width} × {height} px; x to the right, y downwards.")
    cols = st.columns(4)
    for i, name in enumerate(CORNER_NAMES):
        with cols[i]:
            st.number_input(
                f"{name} x", 0.0, float(width), key=f"{key}_x{i}", step=1.0, format="%.0f"
            )
            st.number_input(
                f"{name} y", 0.0, float(height), key=f"{key}_y{i}", step=1.0, format="%.0f"
            )
    if st.button("Read with these corners", key=f"{key}_go"):
        typed = [(state[f"{key}_x{i}"], state[f"{key}_y{i}"]) for i in range(4)]
        try:
            return check(typed, width, height)
        except ValueError as error:
            st.error(str(error))
    return None
