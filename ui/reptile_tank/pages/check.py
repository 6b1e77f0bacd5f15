"""Page 3 — Check the table: every flagged cell of every player on one page (its crop beside
its two best guesses, one tap fixes it), all players' totals live at the bottom of the screen,
and one tap saves the game. A read with no flag needs no visit.

Below, any board in full:
Cells the reader flagged ``check`` are outlined and listed first; tapping a cell opens a picker
with the reader's best guesses first (their face pictures are the buttons), then every card by
category. The total and the pad line the last fix changed stay at the top of the screen. The
whole board can also be typed as a grid of selectboxes (manual entry, no photo needed).
"""

from __future__ import annotations

import streamlit as st

from service.reptile_tank.deck_check import deck_conflicts
from ui.kit import night_link
from ui.reptile_tank import state as S
from ui.reptile_tank.backend import load_rules
from ui.reptile_tank.journey import (
    cell_name,
    escape_markdown,
    is_complete,
    pad_columns,
    score_entry,
    score_table,
)
from ui.reptile_tank.labels import full_name
from ui.reptile_tank.page_helpers import (
    next_player_hint_ui,
    player_picker_ui,
    require_game,
    saved_state_ui,
)
from ui.reptile_tank.saving import save
from ui.reptile_tank.widgets import board_fix_ui, flag_fix_ui, grid_editor_ui, table_totals_ui

KEY_GRID = "check_grid"
KEY_THUMBS = "check_thumbs"
KEY_SAVE = "check_save"
#: Prefix of the flagged cells' widget keys: ``f"{KEY_FLAG}_{seat}_{row}_{col}"``.
KEY_FLAG = "check_flag"


def _pad(entry, rules):
    return score_entry(
        entry,
        rules,
        objectives=st.session_state[S.OBJECTIVES],
        players=len(st.session_state[S.PLAYERS]),
        star_cards_out=st.session_state[S.STAR_CARDS_OUT],
    )


def fix_line(fix: dict) -> str:
    """The last fix in words: which cell, old → new card, and the pad lines that moved."""
    moved = [f"{h} {a} → {b}" for h, a, b in fix["changes"]]
    text = f"{cell_name(fix['row'], fix['col'])}: {full_name(fix['old'])} → {full_name(fix['new'])}"
    return text + (f" · {', '.join(moved)} VP" if moved else " · no VP change")


def player_total_ui(player: str, entry, pad) -> None:
    """The player's total (and what the last fix changed), above their board."""
    label = "Total" if is_complete(entry.rows) else "Score so far"
    fix = st.session_state[S.LAST_FIX]
    delta = None
    if fix and fix["player"] == player:
        delta = fix["total_new"] - fix["total_old"]
    st.metric(label, f"{pad.total} VP", delta=f"{delta:+d} VP" if delta else None)


def fix_cell(player: str, r: int, c: int, label: str, *, checked: bool = False) -> None:
    """Set a cell (from the table's list, ``checked``: also mark it checked) and remember the
    fix: the cell, old → new card, the pad lines and the total it moved."""
    rules = load_rules()
    entry = st.session_state[S.ENTRIES][player]
    before = _pad(entry, rules)
    old = entry.rows[r][c]
    if checked:
        changed = S.confirm_cell(st.session_state, player, r, c, label)
    else:
        changed = S.set_cell(st.session_state, player, r, c, label)
    if not changed:
        return
    after = _pad(entry, rules)
    changes = [
        (a.header, a.vp, b.vp)
        for a, b in zip(pad_columns(before), pad_columns(after), strict=True)
        if a.vp != b.vp
    ]
    st.session_state[S.LAST_FIX] = {
        "player": player,
        "row": r,
        "col": c,
        "old": old,
        "new": label,
        "changes": changes,
        "total_old": int(before.total),
        "total_new": int(after.total),
    }


def totals(rules) -> list[tuple[str, int, bool]]:
    """``(player, total, final)`` for every player: the table's scores once everyone is in
    (the cockroach majority needs every board), else each board's score so far."""
    players = st.session_state[S.PLAYERS]
    entries = st.session_state[S.ENTRIES]
    if not S.missing_players(st.session_state):
        table = score_table(
            entries,
            players,
            rules,
            objectives=st.session_state[S.OBJECTIVES],
            star_cards_out=st.session_state[S.STAR_CARDS_OUT],
        )
        return [
            (name, int(pad.total), is_complete(entries[name].rows))
            for name, pad in zip(table.players, table.pads, strict=True)
        ]
    return [
        (p, int(_pad(entries[p], rules).total), False) if p in entries else (p, 0, False)
        for p in players
    ]


def deck_table_flags(rules, players) -> list:
    """The deck as a constraint across the table (:func:`service.reptile_tank.deck_check.
    deck_conflicts`): fronts the boards together show more often than the deck holds them."""
    entries = st.session_state[S.ENTRIES]
    copies = {cid: r.copies for cid, r in rules.cards.items() if cid != "water"}
    return deck_conflicts([entries[p] for p in players if p in entries], copies)


def conflict_cells(conflict, players) -> list[tuple[str, int, int]]:
    """A conflict's cells to check as ``(player, row, col)``."""
    entries = st.session_state[S.ENTRIES]
    seated = [p for p in players if p in entries]
    return [(seated[board], r, c) for board, r, c in conflict.flagged]


def table_check_ui(rules) -> None:
    """The flagged cells of every player, then the one Save (when every board is complete)."""
    players = st.session_state[S.PLAYERS]
    todo = S.table_to_check(st.session_state)
    conflicts = deck_table_flags(rules, players)
    todo += [cell for conflict in conflicts for cell in conflict_cells(conflict, players)
             if cell not in todo]  # fmt: skip
    fix = st.session_state[S.LAST_FIX]
    table_totals_ui(
        totals(rules),
        f"{fix['player']}, {fix_line(fix)}" if fix else None,
    )
    for conflict in conflicts:
        what = (
            f"check the {len(conflict.flagged)} least sure" if conflict.flagged
            else "all of them were typed or fixed by hand"
        )  # fmt: skip
        st.warning(
            f"{conflict.shown} × {full_name(conflict.card)} on the table, but the deck has "
            f"{conflict.copies}: {what}."
        )
    if todo:
        what = "1 cell" if len(todo) == 1 else f"{len(todo)} cells"
        st.caption(f"The reader is unsure of {what} at this table: tap what each one shows.")
    elif st.session_state[S.ENTRIES]:
        st.caption("Nothing to check: the reader is sure of every cell read.")
    for player, r, c in todo:
        entry = st.session_state[S.ENTRIES][player]

        def other(player=player, r=r, c=c) -> None:
            st.session_state[S.ACTIVE_PLAYER] = player
            st.session_state[S.SELECTED_CELL] = (r, c)

        flag_fix_ui(
            player,
            (r, c),
            entry,
            lambda label, player=player, r=r, c=c: fix_cell(player, r, c, label, checked=True),
            other,
            key=f"{KEY_FLAG}_{players.index(player)}_{r}_{c}",
            thumbnails=st.session_state.get(KEY_THUMBS, True),
        )
    missing = S.missing_players(st.session_state)
    entries = st.session_state[S.ENTRIES]
    if missing:
        return
    unfinished = [p for p in players if not is_complete(entries[p].rows)]
    if unfinished:
        st.caption(
            escape_markdown(f"Empty cells left on: {', '.join(unfinished)} (fill them to save).")
        )
        return
    if st.session_state[S.SESSION_ID] is None:
        return
    saved = st.session_state[S.LAST_SAVED_GAME]

    def save_and_show() -> None:
        save()
        S.go_to(st.session_state, "confirm")

    if saved is None:
        label = "Save the game" + (f" ({len(todo)} unchecked)" if todo else "")
        st.button(label, type="primary", key=KEY_SAVE, on_click=save_and_show, icon="✅")
    else:
        night_link("confirm.py", f"Game {saved}: confirm & save", "✅")


def check_ui() -> None:
    st.title("🔎 Check the table")
    if not require_game():
        return
    saved_state_ui()
    rules = load_rules()
    table_check_ui(rules)
    st.subheader("Any board in full")
    entries = st.session_state[S.ENTRIES]
    if st.session_state.get(S.LAST_PAGE) != "check" and entries:
        if st.session_state[S.ACTIVE_PLAYER] not in entries:  # opened: a board that is in
            st.session_state[S.ACTIVE_PLAYER] = next(
                p for p in st.session_state[S.PLAYERS] if p in entries
            )
    player = player_picker_ui(key="check_player")
    entry = st.session_state[S.ENTRIES].get(player)
    if entry is None:
        st.info("This terrarium has not been entered yet: photograph it, or enter it by hand.")
        if st.button("Enter this board by hand", key="check_manual", type="primary"):
            S.start_manual(st.session_state, player)
            st.rerun()
        night_link("photo.py", "Photograph it", "📷")
        return

    def typed(r: int, c: int, label: str) -> None:
        fix_cell(player, r, c, label)

    player_total_ui(player, entry, _pad(entry, rules))
    if entry.overlay_jpeg is not None:
        board_box, photo_box = st.columns([1, 1])  # board first: on a phone it comes on top
    else:
        st.caption("Entered by hand. Tap a cell to set it, or type the whole grid below.")
        board_box, photo_box = st.container(), None
    with board_box:
        board_fix_ui(
            entry,
            typed,
            key="check",
            selected_key=S.SELECTED_CELL,
            thumbnails=st.session_state.get(KEY_THUMBS, True),
        )
    if photo_box is not None:
        photo_box.image(entry.overlay_jpeg, caption="The photo as read", width="stretch")
    with st.expander("Type the whole board (no photo needed)", expanded=entry.source == "manual"):
        grid_editor_ui(entry.rows, typed, key=KEY_GRID)
    next_player_hint_ui(player)
    night_link("pad.py", "See the score pad with every reason", "🧮")


check_ui()
