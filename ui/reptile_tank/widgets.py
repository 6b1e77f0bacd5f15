"""Reusable widgets: the board (tap to fix, or a grid of selectboxes), the label picker and the
score pad. They read and write the per-user state through :mod:`ui.reptile_tank.state`; no rules
logic here.

Widget keys are explicit and derived from a ``key`` prefix, so two boards on one page never
collide. Player names are only ever shown through ``st.text``/dataframes or escaped markdown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from scoring.reptile_tank.cards import CELL_LABELS
from ui.kit import (  # noqa: F401 - the pages' names for the shared kit's
    close_menu_on_phone_ui,
    flash_ui,
    storage_banner_ui,
)
from ui.reptile_tank import state as S
from ui.reptile_tank.backend import face_thumbnail
from ui.reptile_tank.journey import cell_name, escape_markdown, pad_columns, pad_notes
from ui.reptile_tank.labels import (
    PICKER_GROUPS,
    SHORT_NAMES,
    cell_text,
    full_name,
    humanize,
    picker_text,
)


def _sync_select(key: str, value: str) -> None:
    """Make a selectbox show the entry's value (the entry is the single source of truth)."""
    if st.session_state.get(key) != value:
        st.session_state[key] = value


#: Tighter buttons for the 20 board cells, so "🐢 Tortoise" fits a 390 px phone's fifth of a
#: row; the total box stays at the bottom of the screen while the page scrolls. Constant CSS
#: (no user text).
BOARD_CSS = """<style>
div[class*="st-key-check_cell_"] button, div[class*="st-key-solo_cell_"] button {
  padding: 0.2rem 0.15rem; min-height: 3.2rem; font-size: 0.8rem; line-height: 1.1;
}
div[class*="st-key-check_cell_"] button p, div[class*="st-key-solo_cell_"] button p {
  white-space: normal; overflow-wrap: anywhere;
}
div[class*="st-key-check_pick_"] button, div[class*="st-key-solo_pick_"] button {
  min-height: 2.6rem; padding: 0.2rem 0.3rem; font-size: 0.85rem;
}
.st-key-check_total, .st-key-solo_total {
  position: fixed; bottom: 1rem; right: 1rem; left: auto; width: 22rem; z-index: 999990;
  gap: 0; background: var(--st-background-color, #fff); padding: 0.35rem 1rem 0.45rem 1rem;
  border-radius: 0.6rem; box-shadow: 0 2px 12px rgba(0, 0, 0, 0.25);
}
@media (max-width: 640px) {
  .st-key-check_total, .st-key-solo_total {
    bottom: 0; left: 0; right: 0; width: auto; border-radius: 0;
  }
}
.st-key-check_total [data-testid="stMetric"], .st-key-solo_total [data-testid="stMetric"] {
  padding: 0;
}
.st-key-check_total [data-testid="stMetricValue"],
.st-key-solo_total [data-testid="stMetricValue"] {
  font-size: 1.5rem;
}
[data-testid="stMain"] .block-container { padding-bottom: 9rem; }
@media (max-width: 640px) {
  div[class*="st-key-check_cell_"] button, div[class*="st-key-solo_cell_"] button {
    font-size: 0.68rem; padding: 0.15rem 0.05rem;
  }
}
</style>"""


def flagged_css(key: str, cells: list[tuple[int, int]]) -> str:
    """CSS outlining the cells the reader asked to check (``key`` and cells are ours, not user
    text)."""
    rules = [
        f".st-key-{key}_{r}_{c} button {{ outline: 3px solid #d55e00; outline-offset: -3px; }}"
        for r, c in cells
    ]
    return f"<style>{' '.join(rules)}</style>" if rules else ""


def picture_button_css(key: str, labels: list[str]) -> str:
    """CSS giving each candidate button its face picture (the picture is the button: tap it)."""
    import base64

    rules = []
    for label in labels:
        thumb = face_thumbnail(label)
        if thumb is None:
            continue
        data = base64.b64encode(thumb).decode("ascii")
        rules.append(
            f"div.st-key-{key}_{label} button {{"
            f" background-image: url('data:image/png;base64,{data}') !important;"
            " background-repeat: no-repeat !important;"
            " background-position: center 0.4rem !important;"
            " background-size: auto 5.4rem !important;"
            " min-height: 7.8rem !important; padding-top: 5.9rem !important; }"
        )
    return "".join(f"<style>{rule}</style>" for rule in rules)


def board_grid(cols: int):
    """A grid of ``cols`` columns that keeps them on a 390 px phone (it never wraps)."""
    return st.grid(cols, wrap=False, min_column_width=56, gap="xxsmall")


def grid_editor_ui(
    rows: list[list[str]],
    on_change: Callable[[int, int, str], None],
    *,
    key: str,
) -> None:
    """Every cell as a drop-down with the cards' full names (three snakes never look alike):
    five to a row on a laptop, two on a phone, in reading order.

    Parameters
    ----------
    rows : list of list of str
        The current labels, row by row (shown).
    on_change : callable(row, col, label)
        Called when the user picks a new label for a cell.
    key : str
        Prefix of the 20 widget keys: ``f"{key}_{row}_{col}"``.
    """

    def changed(r: int, c: int, widget_key: str) -> None:
        on_change(r, c, st.session_state[widget_key])

    grid = st.grid("auto", min_column_width=150, gap="xsmall")
    for r in range(len(rows)):
        for c in range(len(rows[r])):
            widget_key = f"{key}_{r}_{c}"
            _sync_select(widget_key, rows[r][c])
            grid.selectbox(
                cell_name(r, c),
                CELL_LABELS,
                format_func=picker_text,
                key=widget_key,
                on_change=changed,
                args=(r, c, widget_key),
            )


def tap_board_ui(
    rows: list[list[str]],
    *,
    flagged: list[tuple[int, int]],
    corrected: set[tuple[int, int]],
    selected: tuple[int, int] | None,
    on_select: Callable[[int, int], None],
    key: str,
) -> None:
    """The board as 20 buttons; tapping one selects it for the label picker.

    Cells the reader flagged are outlined and carry a ⚠, fixed cells a ✓, the selected cell is
    the primary (filled) button.
    """
    st.html(BOARD_CSS + flagged_css(key, flagged))
    grid = board_grid(len(rows[0]))
    for r in range(len(rows)):
        for c in range(len(rows[r])):
            label = rows[r][c]
            text = cell_text(label)
            if (r, c) in corrected:
                text = f"✓ {text}"
            elif (r, c) in flagged:
                text = f"⚠ {text}"
            grid.button(
                text,
                key=f"{key}_{r}_{c}",
                type="primary" if selected == (r, c) else "secondary",
                help=f"{cell_name(r, c)}: {full_name(label)}"
                + (" — please check" if (r, c) in flagged else ""),
                on_click=on_select,
                args=(r, c),
                width="stretch",
                wrap=True,
            )


def label_buttons(grid: Any, labels: list[str], key: str, on_pick: Callable[[str], Any]) -> None:
    """One button per label in ``grid``, each calling ``on_pick(label)``."""
    for label in labels:
        grid.button(
            full_name(label),
            key=f"{key}_{label}",
            on_click=on_pick,
            args=(label,),
            width="stretch",
            wrap=True,
        )


def label_picker_ui(
    current: str,
    on_pick: Callable[[str], None],
    *,
    key: str,
    candidates: list[str] | None = None,
    thumbnails: bool = True,
) -> None:
    """Pick a cell's card: the reader's best guesses first, as face pictures (tap the picture),
    then every label by category. One tap sets the cell.

    Widget keys: ``f"{key}_{label}"`` for every label (a candidate's button is the one with its
    picture; it is not repeated below).
    """
    best = [label for label in (candidates or []) if label != current][:3]
    if best:
        st.caption("Most likely:")
        if thumbnails:
            st.html(picture_button_css(key, best), width="content")
        label_buttons(st.grid("auto", min_column_width=100, gap="xsmall"), best, key, on_pick)
    for title, labels in PICKER_GROUPS:
        rest = [label for label in labels if label not in best]
        if not rest:
            continue
        st.caption(title)
        grid = st.grid("auto", min_column_width=104, gap="xxsmall")
        for label in rest:
            grid.button(
                picker_text(label),
                key=f"{key}_{label}",
                type="primary" if label == current else "secondary",
                on_click=on_pick,
                args=(label,),
                width="stretch",
                wrap=True,
            )


#: Most "check first" lines listed above the board (every flagged cell is outlined anyway).
CHECK_FIRST_LISTED = 4


def check_first_ui(
    flagged: list[tuple[int, int]],
    rows: list[list[str]],
    on_select: Callable[[int, int], None],
    *,
    key: str,
) -> None:
    """The cells to check, listed first: one button per flagged cell ("row 2, column 3")."""
    if not flagged:
        return
    if len(flagged) > CHECK_FIRST_LISTED:
        st.caption(
            f"The reader is unsure of {len(flagged)} cells (outlined, ⚠): check them first. "
            f"The first {CHECK_FIRST_LISTED}:"
        )
    else:
        what = "this cell" if len(flagged) == 1 else f"these {len(flagged)} cells"
        st.caption(f"Check {what} first:")
    grid = st.grid("auto", min_column_width=150, gap="xxsmall")
    for r, c in flagged[:CHECK_FIRST_LISTED]:
        grid.button(
            f"⚠ {cell_name(r, c)}: {SHORT_NAMES.get(rows[r][c], rows[r][c])}?",
            key=f"{key}_{r}_{c}",
            on_click=on_select,
            args=(r, c),
            width="stretch",
        )


def flag_guesses(entry: S.TerrariumEntry, row: int, col: int) -> list[str]:
    """The two labels a flagged cell is offered as: the reader's two best guesses, the label
    read among them (it is the best guess unless the cell was set since)."""
    current = entry.rows[row][col]
    guesses = entry.candidates_for(row, col)[:2]
    if current not in guesses:
        guesses = [current, *[g for g in guesses if g != current]][:2]
    return guesses


def flag_fix_ui(
    player: str,
    cell: tuple[int, int],
    entry: S.TerrariumEntry,
    on_pick: Callable[[str], None],
    on_other: Callable[[], None],
    *,
    key: str,
    thumbnails: bool = True,
) -> None:
    """One flagged cell of the table: the photo's crop of it beside its two best guesses (each
    a face picture; one tap sets the cell and marks it checked), and "Another card…".

    Widget keys: ``f"{key}_{label}"`` for the two guesses, ``f"{key}_other"``.
    """
    r, c = cell
    guesses = flag_guesses(entry, r, c)
    with st.container(border=True, key=key):
        st.markdown(
            f"**{escape_markdown(player)}** · {cell_name(r, c)} — read as "
            f"{escape_markdown(full_name(entry.rows[r][c]))}. Tap the card it shows:"
        )
        if thumbnails:
            st.html(picture_button_css(key, guesses), width="content")
        grid = st.grid(
            3, wrap=False, min_column_width=96, gap="xsmall", vertical_alignment="center"
        )
        crop = entry.crops[r, c] if entry.crops is not None else None
        if crop is not None:
            grid.image(crop, caption="In the photo", width=150)  # a card, not the screen
        else:
            grid.caption("(no picture after a reload)")
        label_buttons(grid, guesses, key, on_pick)
        st.button("Another card…", key=f"{key}_other", on_click=on_other, type="tertiary")


def table_totals_ui(lines: list[tuple[str, int, bool]], fix_text: str | None) -> None:
    """Every player's total, kept at the bottom of the screen while the page scrolls:
    ``(name, total, final)`` per player (``final`` False for a score so far)."""
    with st.container(key="check_total"):
        st.text(
            "Totals: "
            + " · ".join(f"{name} {total}{'' if final else '*'}" for name, total, final in lines)
        )
        if not all(final for _n, _t, final in lines):
            st.caption("* score so far (terrarium not complete or not in yet)")
        if fix_text:
            st.caption(escape_markdown(fix_text))


def board_fix_ui(
    entry: S.TerrariumEntry,
    on_set: Callable[[int, int, str], None],
    *,
    key: str,
    selected_key: str,
    thumbnails: bool = True,
) -> None:
    """Tap a cell (or a "check first" line), then its card in the picker: a fix in two taps.

    Parameters
    ----------
    entry : TerrariumEntry
        The board shown (its ``check`` flags and corrections drive the highlighting).
    on_set : callable(row, col, label)
        Called when a label is picked for the selected cell.
    key : str
        Prefix of the widget keys: cells ``f"{key}_cell_{r}_{c}"``, picker buttons
        ``f"{key}_pick_{label}"``, check-first lines ``f"{key}_first_{r}_{c}"``.
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

    flagged = entry.cells_to_check()
    check_first_ui(flagged, entry.rows, select, key=f"{key}_first")
    tap_board_ui(
        entry.rows,
        flagged=flagged,
        corrected=entry.corrected,
        selected=st.session_state[selected_key],
        on_select=select,
        key=f"{key}_cell",
    )
    selected = st.session_state[selected_key]
    if selected is not None:
        r, c = selected
        with st.container(border=True, key=f"{key}_picker"):
            st.markdown(
                f"**{cell_name(r, c)}** — now {escape_markdown(full_name(entry.rows[r][c]))}. "
                "Tap the card it shows:"
            )
            label_picker_ui(
                entry.rows[r][c],
                pick,
                key=f"{key}_pick",
                candidates=entry.candidates_for(r, c),
                thumbnails=thumbnails,
            )


def pad_picture_ui(rows: list[list[str]], pad: Any, *, caption: str = "") -> None:
    """The board drawn with every scoring group outlined and labelled with its VP."""
    from service.reptile_tank.pad_image import draw_board, png

    st.image(
        png(draw_board(rows, pad, SHORT_NAMES)),
        caption=caption
        or "Each outline is a scoring group with its VP; faded cards score nothing. "
        "† rests on an assumed value.",
        width="stretch",
    )


def score_pad_ui(
    name: str,
    pad: Any,
    *,
    key: str,
    partial: bool = False,
    rows: list[list[str]] | None = None,
) -> None:
    """One player's score pad: the total, the board drawn (when ``rows`` is given), and each
    column with the reasons behind its number; nothing scrolls sideways on a phone.

    Parameters
    ----------
    name : str
        The player's name (shown as plain text).
    pad : ScorePad
        The engine's pad.
    partial : bool
        True for a half-built terrarium: the pad is labelled "score so far".
    rows : 4 rows of 5 labels, optional
        The board, drawn with its scoring groups.
    """
    st.text(f"{name} — {'score so far' if partial else 'total'}: {pad.total} VP")
    if rows is not None:
        pad_picture_ui(rows, pad)
    for column in pad_columns(pad):
        with st.expander(f"{column.header}: {column.vp} VP", expanded=False):
            if column.reasons:
                for reason in column.reasons:
                    st.text(humanize(reason))
            else:
                st.caption("Nothing scored in this column.")
    leftovers = list(getattr(pad, "non_scoring", ()) or ())
    if leftovers:
        with st.expander(f"Not scoring ({len(leftovers)})"):
            for line in leftovers:
                st.text(humanize(line))
    if getattr(pad, "assumed_vp", 0):
        st.caption(f"† {pad.assumed_vp} VP rest on assumed values (see the Rules page).")
    for note in pad_notes(pad):
        st.info(escape_markdown(humanize(note)))


def share_button_ui(name: str, rows: list[list[str]], pad: Any, *, key: str) -> None:
    """Download the pad and the drawn board as one PNG (to send to the group chat)."""
    from service.reptile_tank.pad_image import share_image

    columns = [(c.header, c.vp) for c in pad_columns(pad)]
    board = [list(r) for r in rows]

    def data() -> bytes:  # drawn when tapped, not on every run
        return share_image(
            name, board, pad, columns, SHORT_NAMES, footer="Scored with Reptile Tank"
        )

    safe = "".join(ch for ch in name if ch.isalnum())[:30] or "player"
    st.download_button(
        "Share this pad (PNG)",
        data,
        file_name=f"reptile-tank-{safe}.png",
        mime="image/png",
        key=key,
        icon="📤",
        on_click="ignore",
    )
