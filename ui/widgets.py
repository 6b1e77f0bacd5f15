"""Reusable widgets: the board (tap to fix, or a grid of selectboxes), the label picker and the
score pad. They read and write the per-user state through :mod:`ui.state`; no rules logic here.

Widget keys are explicit and derived from a ``key`` prefix, so two boards on one page never
collide. Player names are only ever shown through ``st.text``/dataframes or escaped markdown.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

import streamlit as st

from scoring.cards import CELL_LABELS, COLS, ROWS
from ui import state as S
from ui.backend import face_thumbnail
from ui.journey import cell_name, pad_columns, pad_notes, pad_row
from ui.labels import cell_text, full_name, picker_text


def _sync_select(key: str, value: str) -> None:
    """Make a selectbox show the entry's value (the entry is the single source of truth)."""
    if st.session_state.get(key) != value:
        st.session_state[key] = value


#: Tighter buttons for the 20 board cells, so "🐢 Tortoise" fits a 390 px phone's fifth of a
#: row. Constant CSS (no user text), scoped to the board's widget keys.
BOARD_CSS = """<style>
div[class*="st-key-check_cell_"] button, div[class*="st-key-solo_cell_"] button {
  padding: 0.2rem 0.15rem; min-height: 3.2rem; font-size: 0.8rem; line-height: 1.1;
}
div[class*="st-key-check_cell_"] button p, div[class*="st-key-solo_cell_"] button p {
  white-space: normal; overflow-wrap: anywhere;
}
@media (max-width: 640px) {
  div[class*="st-key-check_cell_"] button, div[class*="st-key-solo_cell_"] button {
    font-size: 0.68rem; padding: 0.15rem 0.05rem;
  }
}
</style>"""


def board_grid():
    """A 5-column grid that keeps its 5 columns on a 390 px phone (it never wraps)."""
    return st.grid(COLS, wrap=False, min_column_width=56, gap="xxsmall")


def grid_editor_ui(
    rows: list[list[str]],
    on_change: Callable[[int, int, str], None],
    *,
    key: str,
) -> None:
    """A 4x5 grid of selectboxes for entering or fixing a whole board by hand.

    Parameters
    ----------
    rows : list of list of str
        The current 4x5 labels (shown).
    on_change : callable(row, col, label)
        Called when the user picks a new label for a cell.
    key : str
        Prefix of the 20 widget keys: ``f"{key}_{row}_{col}"``.
    """

    def changed(r: int, c: int, widget_key: str) -> None:
        on_change(r, c, st.session_state[widget_key])

    grid = board_grid()
    for r in range(ROWS):
        for c in range(COLS):
            widget_key = f"{key}_{r}_{c}"
            _sync_select(widget_key, rows[r][c])
            grid.selectbox(
                cell_name(r, c),
                CELL_LABELS,
                format_func=cell_text,
                key=widget_key,
                label_visibility="collapsed",
                on_change=changed,
                args=(r, c, widget_key),
            )


def tap_board_ui(
    rows: list[list[str]],
    *,
    confidence: list[list[float]] | None,
    corrected: set[tuple[int, int]],
    selected: tuple[int, int] | None,
    on_select: Callable[[int, int], None],
    key: str,
) -> None:
    """The board as 20 buttons; tapping one selects it for the label picker.

    Low-confidence cells carry a warning sign on an orange background, fixed cells a check mark,
    the selected cell is the primary (filled) button.
    """
    st.html(BOARD_CSS)
    grid = board_grid()
    for r in range(ROWS):
        for c in range(COLS):
            label = rows[r][c]
            text = cell_text(label)
            if (r, c) in corrected:
                text = f"✓ {text}"
            elif confidence is not None and confidence[r][c] < S.LOW_CONFIDENCE:
                text = f"⚠ {text}" if selected == (r, c) else f":orange-background[⚠ {text}]"
            grid.button(
                text,
                key=f"{key}_{r}_{c}",
                type="primary" if selected == (r, c) else "secondary",
                help=f"{cell_name(r, c)}: {full_name(label)}"
                + (f" ({confidence[r][c]:.0%} sure)" if confidence is not None else ""),
                on_click=on_select,
                args=(r, c),
                width="stretch",
                wrap=True,
            )


def label_picker_ui(
    current: str,
    on_pick: Callable[[str], None],
    *,
    key: str,
    thumbnails: bool = True,
) -> None:
    """The 17 labels as buttons with a thumbnail of each face: one tap sets the cell."""
    grid = st.grid("auto", min_column_width=92, gap="xsmall")
    for label in CELL_LABELS:
        with grid.cell():
            if thumbnails:
                thumb = face_thumbnail(label)
                if thumb is not None:
                    st.image(thumb, width=60)
            st.button(
                picker_text(label),
                key=f"{key}_{label}",
                type="primary" if label == current else "secondary",
                on_click=on_pick,
                args=(label,),
                width="stretch",
                wrap=True,
            )


def board_fix_ui(
    entry: S.TerrariumEntry,
    on_set: Callable[[int, int, str], None],
    *,
    key: str,
    selected_key: str,
    thumbnails: bool = True,
) -> None:
    """Tap a cell, then tap its label in the picker: the board's two-tap correction.

    Parameters
    ----------
    entry : TerrariumEntry
        The board shown (its confidences and corrections drive the highlighting).
    on_set : callable(row, col, label)
        Called when a label is picked for the selected cell.
    key : str
        Prefix of the widget keys: cells ``f"{key}_cell_{r}_{c}"``, picker buttons
        ``f"{key}_pick_{label}"``.
    selected_key : str
        Session-state key holding the selected ``(row, col)`` or ``None``.
    """
    if selected_key not in st.session_state:
        st.session_state[selected_key] = None

    def select(r: int, c: int) -> None:
        current = st.session_state[selected_key]
        st.session_state[selected_key] = None if current == (r, c) else (r, c)

    def pick(label: str) -> None:
        cell = st.session_state[selected_key]
        if cell is not None:
            on_set(cell[0], cell[1], label)
        st.session_state[selected_key] = None

    tap_board_ui(
        entry.rows,
        confidence=entry.confidence,
        corrected=entry.corrected,
        selected=st.session_state[selected_key],
        on_select=select,
        key=f"{key}_cell",
    )
    selected = st.session_state[selected_key]
    if selected is not None:
        r, c = selected
        with st.container(border=True):
            st.write(f"**{cell_name(r, c)}** — now {full_name(entry.rows[r][c])}. Pick the card:")
            label_picker_ui(entry.rows[r][c], pick, key=f"{key}_pick", thumbnails=thumbnails)


def score_pad_ui(name: str, pad: Any, *, key: str, partial: bool = False) -> None:
    """One player's score pad: the total, the columns, and every number's reasons.

    Parameters
    ----------
    name : str
        The player's name (shown as text).
    pad : ScorePad
        The engine's pad.
    partial : bool
        True for a half-built terrarium: the pad is labelled "score so far".
    """
    st.text(f"{name} — {'score so far' if partial else 'total'}: {pad.total} VP")
    st.dataframe([pad_row(name, pad)], hide_index=True, key=f"{key}_table")
    for column in pad_columns(pad):
        with st.expander(f"{column.header}: {column.vp} VP", expanded=False):
            if column.reasons:
                for reason in column.reasons:
                    st.text(reason)
            else:
                st.caption("Nothing scored in this column.")
    for note in pad_notes(pad):
        st.info(note)


def flash_ui(state: MutableMapping[str, Any]) -> None:
    """Show (once) the message a callback left for the next run."""
    message = state.get(S.FLASH)
    if message:
        st.success(message)
        state[S.FLASH] = None
