"""The score pad to look at: the board with every scoring group outlined and labelled with its
VP, cards that score nothing dimmed, and (for sharing) the pad's columns beside it, as a PNG.

Pure Pillow drawing; names are drawn as text, so nothing a player types is ever interpreted.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from scoring.reptile_tank.cards import EMPTY, WATER

#: Pixels per board cell (cards are 63 x 88 mm; drawn a little squarer to fit a phone).
CELL_W, CELL_H = 112, 92
PAD = 10
#: Outline colours cycled over the scoring groups (colour-blind-safe Okabe-Ito palette).
GROUP_COLOURS = (
    (0, 114, 178),
    (213, 94, 0),
    (0, 158, 115),
    (204, 121, 167),
    (230, 159, 0),
    (86, 180, 233),
    (0, 0, 0),
)
CATEGORY_FILL = {
    "lizard": (214, 234, 203),
    "snake": (240, 222, 196),
    "turtle": (206, 226, 214),
    "roach": (224, 212, 200),
    "dry": (235, 230, 214),
    WATER: (200, 224, 242),
    EMPTY: (246, 246, 246),
}
_FONT_PATHS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
)


@lru_cache(maxsize=16)
def font(size: int, bold: bool = False) -> Any:
    """DejaVu Sans when installed, else Pillow's own scalable default font."""
    path = Path(_FONT_PATHS[1 if bold else 0])
    if path.is_file():
        return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size=size)


def _category(label: str) -> str:
    from scoring.reptile_tank.cards import ANIMAL_IDS

    if label in (WATER, EMPTY):
        return label
    if label in ANIMAL_IDS:
        for word, cat in (
            ("snake", "snake"),
            ("boa", "snake"),
            ("turtle", "turtle"),
            ("tortoise", "turtle"),
            ("roach", "roach"),
        ):
            if word in label:
                return cat
        return "lizard"
    return "dry"


def scoring_cells(pad: Any) -> set[tuple[int, int]]:
    """Cells that belong to at least one group scoring more than 0 VP."""
    return {
        tuple(cell)
        for g in pad.groups
        if g.vp > 0 and getattr(g, "column", None) != "objectives"
        for cell in g.cells
    }


def _outline(draw: ImageDraw.ImageDraw, cells: set[tuple[int, int]], colour, inset: int) -> None:
    """Outline the union of ``cells`` (edges not shared with another cell of the group)."""
    for r, c in cells:
        x0, y0 = PAD + c * CELL_W + inset, PAD + r * CELL_H + inset
        x1, y1 = PAD + (c + 1) * CELL_W - inset, PAD + (r + 1) * CELL_H - inset
        # an edge runs on across the gap to a neighbour of the same group
        hx0 = x0 - 2 * inset if (r, c - 1) in cells else x0
        hx1 = x1 + 2 * inset if (r, c + 1) in cells else x1
        vy0 = y0 - 2 * inset if (r - 1, c) in cells else y0
        vy1 = y1 + 2 * inset if (r + 1, c) in cells else y1
        width = 4
        if (r - 1, c) not in cells:
            draw.line([(hx0, y0), (hx1, y0)], fill=colour, width=width)
        if (r + 1, c) not in cells:
            draw.line([(hx0, y1), (hx1, y1)], fill=colour, width=width)
        if (r, c - 1) not in cells:
            draw.line([(x0, vy0), (x0, vy1)], fill=colour, width=width)
        if (r, c + 1) not in cells:
            draw.line([(x1, vy0), (x1, vy1)], fill=colour, width=width)


def _wrap(text: str, width: int, fnt: Any, draw: ImageDraw.ImageDraw) -> list[str]:
    words, lines, line = text.split(), [], ""
    for word in words:
        trial = f"{line} {word}".strip()
        if draw.textlength(trial, font=fnt) <= width or not line:
            line = trial
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines


def draw_board(rows: Sequence[Sequence[str]], pad: Any, names: dict[str, str]) -> Image.Image:
    """The board as a picture: cards by name, scoring groups outlined with their VP, cards
    scoring nothing dimmed.

    Parameters
    ----------
    rows : 4 rows of 5 labels
    pad : ScorePad
        Its ``groups`` (cells, vp, provenance) are drawn.
    names : dict
        Label → the name written on a cell.
    """
    n_rows, n_cols = len(rows), len(rows[0])
    image = Image.new("RGB", (2 * PAD + n_cols * CELL_W, 2 * PAD + n_rows * CELL_H), "white")
    draw = ImageDraw.Draw(image)
    scoring = scoring_cells(pad)
    small, bold = font(17), font(18, bold=True)
    for r, row in enumerate(rows):
        for c, label in enumerate(row):
            x0, y0 = PAD + c * CELL_W, PAD + r * CELL_H
            fill = CATEGORY_FILL[_category(label)]
            dim = (r, c) not in scoring and label not in (EMPTY,)
            if dim:
                fill = tuple(int(v * 0.55 + 255 * 0.45) for v in fill)
            draw.rectangle([x0 + 3, y0 + 3, x0 + CELL_W - 3, y0 + CELL_H - 3], fill=fill)
            colour = (150, 150, 150) if dim else (20, 20, 20)
            lines = _wrap(names.get(label, label), CELL_W - 14, small, draw)[:3]
            ty = y0 + CELL_H / 2 - 11 * len(lines)
            for line in lines:
                w = draw.textlength(line, font=small)
                draw.text((x0 + (CELL_W - w) / 2, ty), line, font=small, fill=colour)
                ty += 22
    groups = [g for g in pad.groups if g.vp > 0 and not is_objective(g)]
    for i, group in enumerate(groups):
        colour = GROUP_COLOURS[i % len(GROUP_COLOURS)]
        cells = {tuple(cell) for cell in group.cells}
        _outline(draw, cells, colour, inset=5 + 3 * (i % 3))
        r, c = min(cells)
        text = f"{group.vp}{'†' if getattr(group, 'provenance', '') == 'assumed' else ''}"
        x0, y0 = PAD + c * CELL_W + 8 + 3 * (i % 3), PAD + r * CELL_H + 8 + 3 * (i % 3)
        w = draw.textlength(text, font=bold)
        draw.rounded_rectangle([x0, y0, x0 + w + 10, y0 + 24], radius=6, fill=colour)
        draw.text((x0 + 5, y0 + 2), text, font=bold, fill="white")
    # Objectives are not scoring groups: no outline, a grey tag on each cell they rest on
    # ("O10"), their VP in the Objectives column only.
    tiny = font(13, bold=True)
    for group in (g for g in pad.groups if g.vp > 0 and is_objective(g)):
        tag = "O" + str(group.card_type).removeprefix("objective_")
        for r, c in sorted({tuple(cell) for cell in group.cells}):
            x1, y1 = PAD + (c + 1) * CELL_W - 6, PAD + (r + 1) * CELL_H - 6
            w = draw.textlength(tag, font=tiny)
            draw.rounded_rectangle([x1 - w - 8, y1 - 18, x1, y1], radius=4, fill=OBJECTIVE_GREY)
            draw.text((x1 - w - 4, y1 - 17), tag, font=tiny, fill="white")
    return image


#: The tag of the cells an objective rests on (not a group colour).
OBJECTIVE_GREY = (110, 110, 110)


def is_objective(group: Any) -> bool:
    """True for an objective card's line (its cells are what it looked at, not a group)."""
    return getattr(group, "column", None) == "objectives"


def png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def share_image(
    name: str,
    rows: Sequence[Sequence[str]],
    pad: Any,
    columns: Sequence[tuple[str, int]],
    names: dict[str, str],
    *,
    title: str = "Reptile Tank",
    footer: str = "",
) -> bytes:
    """A PNG to share: the player's name and total, the drawn board, the pad's columns.

    Parameters
    ----------
    columns : sequence of (header, vp)
        The score pad's columns in order.
    """
    board = draw_board(rows, pad, names)
    side_w = 300
    header_h = 70
    footer_h = 40 if footer else 16
    width = board.width + side_w
    height = header_h + max(board.height, 40 + 34 * (len(columns) + 1)) + footer_h
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    big, mid, small = font(30, bold=True), font(22), font(16)
    draw.text((PAD, 10), f"{title}", font=small, fill=(90, 90, 90))
    text = f"{name[:40]} — {pad.total} VP"
    draw.text((PAD, 30), text, font=big, fill=(20, 20, 20))
    image.paste(board, (0, header_h))
    y = header_h + 12
    for header, vp in columns:
        draw.text((board.width + 10, y), header, font=mid, fill=(40, 40, 40))
        w = draw.textlength(str(vp), font=mid)
        draw.text((width - 20 - w, y), str(vp), font=mid, fill=(40, 40, 40))
        y += 34
    draw.line([(board.width + 10, y), (width - 20, y)], fill=(0, 0, 0), width=2)
    y += 8
    draw.text((board.width + 10, y), "Total", font=font(22, bold=True), fill=(0, 0, 0))
    w = draw.textlength(str(pad.total), font=font(22, bold=True))
    draw.text((width - 20 - w, y), str(pad.total), font=font(22, bold=True), fill=(0, 0, 0))
    if footer:
        draw.text((PAD, height - footer_h + 8), footer[:120], font=small, fill=(90, 90, 90))
    return png(image)
