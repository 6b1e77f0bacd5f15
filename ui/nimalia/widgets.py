"""Nimalia's widgets: the night's game choice, the reserve as 36 square buttons, the square
picker and the store door (the night's game choice is the shared kit's, :mod:`ui.kit`;
Nimalia's standings are the shared played-games view,
:mod:`ui.played`).

The UI only renders and collects: every rule is :mod:`service.nimalia.game`'s (and so the engine's).
User text (player names) only goes through ``escape_markdown`` labels or dataframes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import streamlit as st

from games import nimalia as NIMALIA
from service.nimalia import game as N
from ui.played import played_games
from ui.text import escape_markdown

#: The Nimalia game on this page (``service.nimalia.game``'s document) and its bookkeeping.
GAME = "nim_game"
NIGHT = "nim_night"
REVISION = "nim_revision"
HASH = "nim_hash"
SELECTED = "nim_selected"
LAST_CHANGE = "nim_last_change"


def get_nimalia_store() -> Any:
    """Nimalia's saved games and drafts (:class:`leaderboard.played.PlayedGames` under this
    game's id), one per database."""
    return played_games(NIMALIA.ID)


# ------------------------------------------------------------------------------ the reserve


#: Constant CSS of the reserve and picker buttons (no user text).
RESERVE_CSS = """<style>
div[class*="st-key-nim_sq_"] button {
  min-height: 3.1rem; padding: 0.1rem 0; font-size: 1.15rem; line-height: 1.1;
  border: 1px solid rgba(0, 0, 0, 0.25); color: #111;
}
div[class*="st-key-nim_pick_"] button {
  min-height: 2.7rem; padding: 0.15rem 0.25rem; font-size: 0.85rem; color: #111;
}
div[class*="st-key-nim_sq_"] button p, div[class*="st-key-nim_pick_"] button p {
  white-space: normal; overflow-wrap: anywhere;
}
div[class*="st-key-nim_sq_"] button p { font-size: 1.35rem; }
</style>"""


def _colour_rules(selector: str, token: str) -> str:
    colour = N.square_colour(token)
    if colour is None:  # empty: the table, not a card
        return f"{selector} button {{ background: #fff; border-style: dashed; }}"
    return f"{selector} button {{ background: {colour}; }}"


#: Constant CSS of the lay grid (no user text).
LAY_CSS = """<style>
div[class*="st-key-nim_lay_"] button {
  min-height: 3.1rem; padding: 0.1rem 0; line-height: 1.1; color: #111;
  border: 1px solid rgba(0, 0, 0, 0.25);
}
div[class*="st-key-nim_lay_"] button p { font-size: 1.35rem; }
div[class*="st-key-nim_turn_"] button p { font-size: 1.2rem; white-space: pre; }
</style>"""


def lay_grid_style_ui(
    window: list[list[str]], *, key: str, footprint: Iterable[tuple[int, int]]
) -> None:
    """The lay grid's look: its constant CSS and each square's land colours, where the card
    would go dotted (CSS only, from our keys and tokens)."""
    st.html(LAY_CSS + reserve_css(window, key=key, footprint=footprint))


def reserve_css(
    rows: list[list[str]],
    *,
    key: str,
    flagged: Iterable[tuple[int, int]] = (),
    highlight: Iterable[tuple[int, int]] = (),
    selected: tuple[int, int] | None = None,
    footprint: Iterable[tuple[int, int]] = (),
) -> str:
    """Per-square CSS: land colours, flagged squares outlined (dashed orange), the squares a
    reason refers to ringed (thick blue), the selected square framed black, where the next card
    would go dotted black."""
    rules = [
        _colour_rules(f".st-key-{key}_{r}_{c}", token)
        for r, line in enumerate(rows)
        for c, token in enumerate(line)
    ]
    rules += [
        f".st-key-{key}_{r}_{c} button {{ outline: 3px dashed #d55e00; outline-offset: -4px; }}"
        for r, c in flagged
    ]
    rules += [
        f".st-key-{key}_{r}_{c} button {{ border: 4px solid #0b3d91 !important; "
        "box-shadow: 0 0 0 2px #0b3d91; }"
        for r, c in highlight
    ]
    rules += [
        f".st-key-{key}_{r}_{c} button {{ outline: 3px dotted #000; outline-offset: -6px; }}"
        for r, c in footprint
    ]
    if selected is not None:
        r, c = selected
        rules.append(
            f".st-key-{key}_{r}_{c} button {{ border: 3px solid #000 !important; "
            "transform: scale(0.94); }"
        )
    return "<style>" + " ".join(rules) + "</style>"


def reserve_ui(
    rows: list[list[str]],
    *,
    key: str = "nim_sq",
    flagged: Iterable[tuple[int, int]] = (),
    highlight: Iterable[tuple[int, int]] = (),
    selected: tuple[int, int] | None = None,
    on_select: Callable[[int, int], None] | None = None,
    footprint: Iterable[tuple[int, int]] = (),
) -> None:
    """The reserve as 6 x 6 square buttons that keep their 6 columns on a 390 px phone."""
    flagged, highlight = list(flagged), list(highlight)
    st.html(
        RESERVE_CSS
        + reserve_css(
            rows,
            key=key,
            flagged=flagged,
            highlight=highlight,
            selected=selected,
            footprint=footprint,
        )
    )
    grid = st.grid(len(rows[0]), wrap=False, min_column_width=44, gap="xxsmall")
    for r, line in enumerate(rows):
        for c, token in enumerate(line):
            note = " — please check" if (r, c) in flagged else ""
            grid.button(
                N.square_text(token),
                key=f"{key}_{r}_{c}",
                help=f"{N.position_name(r, c)}: {N.square_name(token)}{note}",
                on_click=on_select,
                args=(r, c) if on_select else None,
                width="stretch",
                disabled=on_select is None,
            )


def lay_window(game: dict, player: str) -> tuple[int, int, int, int]:
    """``(top, left, rows, cols)`` of the lay grid: the reserve and every place the next card
    may go (one square up or left of it too), so the window follows the reserve as it grows."""
    grid = N.reserve_of(game, player)
    cells = [(r, c) for r, line in enumerate(grid) for c, t in enumerate(line) if t != "."]
    for r, c in N.grown_positions(game, player):
        cells += [(r, c), (r + 1, c + 1)]
    top, left = min(r for r, _ in cells), min(c for _, c in cells)
    bottom, right = max(r for r, _ in cells), max(c for _, c in cells)
    return top, left, bottom - top + 1, right - left + 1


def picker_ui(
    current: str, on_pick: Callable[[str], None], *, likely: list[str] | None = None
) -> None:
    """The 14 kinds and empty, one tap each (otters with their river); the reader's likely
    kinds first. Widget keys ``nim_pick_<index in TOKENS>``."""
    order = [t for t in (likely or []) if t in N.TOKENS and t != current][:3]
    order += [t for t in N.TOKENS if t not in order]
    st.html(
        "<style>"
        + " ".join(_colour_rules(f".st-key-nim_pick_{N.TOKENS.index(t)}", t) for t in N.TOKENS)
        + f" .st-key-nim_pick_{N.TOKENS.index(current)} button {{ border: 3px solid #000; }}"
        + "</style>"
    )
    if likely:
        st.caption("Most likely first, then every kind:")
    grid = st.grid("auto", min_column_width=104, gap="xxsmall")
    for token in order:
        name = N.square_name(token)
        grid.button(
            f"{N.square_text(token)} {name}",
            key=f"nim_pick_{N.TOKENS.index(token)}",
            on_click=on_pick,
            args=(token,),
            width="stretch",
        )


__all__ = ["escape_markdown"]
