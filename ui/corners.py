"""The "no grid found" fallback: the user gives the terrarium's four outer corners.

Two ways, both offline: tap the corners on the photo (an Altair chart of the photo with a
point selection; Vega-Lite ships inside Streamlit, nothing is downloaded), or type them as
pixel coordinates read off the chart's axes. Taps fill the same four number inputs.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

import streamlit as st

#: Names of the corners, in the order they are asked for (clockwise from the top-left).
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
#: Clickable points across the photo's long side (their spacing is the tap precision).
TAP_GRID = 64


def default_corners(width: int, height: int) -> list[tuple[float, float]]:
    """A starting guess: a rectangle inset 10 % from the image border, clockwise from top-left."""
    dx, dy = 0.1 * width, 0.1 * height
    return [(dx, dy), (width - dx, dy), (width - dx, height - dy), (dx, height - dy)]


def check_corners(
    corners: Sequence[Sequence[float]], width: int, height: int
) -> list[tuple[float, float]]:
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


def tap_chart(
    jpeg: bytes,
    width: int,
    height: int,
    *,
    param: str,
    corners: Sequence[Sequence[float]] = (),
) -> Any:
    """An Altair chart of the photo with a grid of invisible points to tap.

    The y axis runs downwards like image rows, so the axes read as pixel coordinates of the
    ``width`` x ``height`` image frame (whatever the resolution of ``jpeg``). The corners given
    so far are drawn as an outline with their names.
    """
    import altair as alt

    step = max(width, height) / TAP_GRID
    nx, ny = int(width / step) + 1, int(height / step) + 1
    points = [
        {"x": round(i * step, 1), "y": round(j * step, 1)} for j in range(ny) for i in range(nx)
    ]
    url = "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
    x = alt.X("x:Q", scale=alt.Scale(domain=[0, width], nice=False), title="x (px)")
    y = alt.Y("y:Q", scale=alt.Scale(domain=[0, height], nice=False, reverse=True), title="y (px)")
    photo = (
        alt.Chart(alt.Data(values=[{"x": width / 2, "y": height / 2, "url": url}]))
        .mark_image(width={"expr": "width"}, height={"expr": "height"}, aspect=False)
        .encode(x=x, y=y, url="url:N")
    )
    tap = alt.selection_point(name=param, on="click", nearest=True, fields=["x", "y"])
    grid = (
        alt.Chart(alt.Data(values=points))
        .mark_point(opacity=0.0, size=40)
        .encode(x=x, y=y)
        .add_params(tap)
    )
    layers = [photo, grid]
    if corners:
        outline = [
            {"x": float(cx), "y": float(cy), "order": i, "name": CORNER_NAMES[i % 4]}
            for i, (cx, cy) in enumerate([*corners, corners[0]])
        ]
        data = alt.Data(values=outline)
        layers.append(
            alt.Chart(data)
            .mark_line(color="#ffd400", strokeWidth=2)
            .encode(x=x, y=y, order="order:Q")
        )
        layers.append(
            alt.Chart(alt.Data(values=outline[:-1]))
            .mark_text(color="#ffd400", fontWeight="bold", dy=-10)
            .encode(x=x, y=y, text="name:N")
        )
    chart_height = int(min(max(520 * height / width, 240), 640))
    return alt.layer(*layers).properties(width="container", height=chart_height)


def corners_ui(read: Any, *, key: str) -> list[tuple[float, float]] | None:
    """Ask for the four outer corners; returns them once the user confirms valid ones.

    Parameters
    ----------
    read : ui.backend.PhotoRead
        The failed read (its ``overlay_jpeg`` is the plain photo, ``image_size`` its frame).
    key : str
        Prefix of this widget group's keys.
    """
    width, height = read.image_size
    next_key = f"{key}_next"
    if next_key not in st.session_state:
        st.session_state[next_key] = 0
        for i, (x, y) in enumerate(default_corners(width, height)):
            st.session_state[f"{key}_x{i}"] = float(round(x))
            st.session_state[f"{key}_y{i}"] = float(round(y))

    def tapped() -> None:
        event = st.session_state[f"{key}_chart"]
        chosen = (event.get("selection") or {}).get("tap") or []
        if not chosen:
            return
        i = st.session_state[next_key]
        st.session_state[f"{key}_x{i}"] = float(chosen[0]["x"])
        st.session_state[f"{key}_y{i}"] = float(chosen[0]["y"])
        st.session_state[next_key] = (i + 1) % 4

    st.write(
        f"Tap the **{CORNER_NAMES[st.session_state[next_key]]}** corner of the terrarium "
        "(the outer corner of the corner card), or type the four corners below."
    )
    typed = [(st.session_state[f"{key}_x{i}"], st.session_state[f"{key}_y{i}"]) for i in range(4)]
    st.altair_chart(
        tap_chart(read.overlay_jpeg, width, height, param="tap", corners=typed),
        key=f"{key}_chart",
        on_select=tapped,
        selection_mode="tap",
        width="stretch",
    )
    cols = st.columns(4)
    for i, name in enumerate(CORNER_NAMES):
        with cols[i]:
            st.number_input(
                f"{name} x", 0.0, float(width), key=f"{key}_x{i}", step=1.0, format="%.0f"
            )
            st.number_input(
                f"{name} y", 0.0, float(height), key=f"{key}_y{i}", step=1.0, format="%.0f"
            )
    if st.button("Read with these corners", type="primary", key=f"{key}_go"):
        typed = [
            (st.session_state[f"{key}_x{i}"], st.session_state[f"{key}_y{i}"]) for i in range(4)
        ]
        try:
            return check_corners(typed, width, height)
        except ValueError as error:
            st.error(str(error))
    return None
