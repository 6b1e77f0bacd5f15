"""The deck as a constraint across the table (issue 28 item 5).

One game's terrariums are dealt from one deck: a front can lie on the table at most as many
times as the deck holds it (8 or 9, the rules data's ``copies``; ``water`` is any card's back and
``empty`` no card, so neither is limited). The reader already keeps each board within the deck;
only the boards together can show a front too often. When they do, at least ``count - copies``
of those cells are misread, and the ones to check are the least sure: :func:`deck_conflicts`
names, for each such front, the cells to flag, least sure first.

A cell the players fixed or typed (``corrected``, or a board entered by hand) is what the table
says, never flagged; when such cells alone exceed the deck, the conflict is reported with no
cell to flag (the players typed more copies than exist). The photo reads' own margins
(``TerrariumEntry.confidence``, the margin to the runner-up label) rank the rest; a cell the
reader already flagged counts as the least sure of all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from scoring.reptile_tank.cards import EMPTY, WATER
from service.reptile_tank.game import TerrariumEntry


@dataclass(frozen=True)
class DeckConflict:
    """One front shown more often than the deck holds it.

    Attributes
    ----------
    card : str
        The card id.
    shown : int
        Cells holding it across the boards.
    copies : int
        Copies in the deck.
    flagged : tuple of (board, row, col)
        The cells to check, least sure first: ``shown - copies`` of them (fewer when only
        confirmed cells are left).
    """

    card: str
    shown: int
    copies: int
    flagged: tuple[tuple[int, int, int], ...]

    @property
    def message(self) -> str:
        return (
            f"{self.shown} {self.card} on the table but the deck has {self.copies}: "
            f"check {len(self.flagged)} of them" if self.flagged else
            f"{self.shown} {self.card} on the table but the deck has {self.copies} "
            "(all of them confirmed by hand)"
        )  # fmt: skip


def _sure(entry: TerrariumEntry, row: int, col: int) -> bool:
    return entry.source != "photo" or (row, col) in entry.corrected


def _doubt(entry: TerrariumEntry, row: int, col: int) -> tuple[int, float]:
    """Sort key, least sure first: flagged by the reader, then by margin."""
    flagged = bool(entry.check and entry.check[row][col])
    margin = float(entry.confidence[row][col]) if entry.confidence is not None else float("inf")
    return (0 if flagged else 1, margin)


def deck_conflicts(
    entries: Sequence[TerrariumEntry], copies: Mapping[str, int]
) -> list[DeckConflict]:
    """The fronts the boards of one game show more often than the deck holds them.

    Parameters
    ----------
    entries : sequence of TerrariumEntry
        The game's boards (one per player).
    copies : mapping card id -> int
        Copies of each front in the deck (the rules data's counts). A card missing from it is
        not limited.

    Returns
    -------
    list of DeckConflict
        In card-id order; empty when the table fits the deck.

    Raises
    ------
    ValueError
        A board is not a grid of labels, or a count is negative.
    """
    cells: dict[str, list[tuple[int, int, int]]] = {}
    for board, entry in enumerate(entries):
        rows = entry.rows
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise ValueError(f"board {board}: rows must be a list of lists of labels")
        for r, row in enumerate(rows):
            for c, label in enumerate(row):
                if label in (EMPTY, WATER):
                    continue
                cells.setdefault(str(label), []).append((board, r, c))
    out = []
    for card in sorted(cells):
        if card not in copies:
            continue
        limit = int(copies[card])
        if limit < 0:
            raise ValueError(f"copies of {card} must be >= 0, got {limit}")
        where = cells[card]
        if len(where) <= limit:
            continue
        unsure = [cell for cell in where if not _sure(entries[cell[0]], cell[1], cell[2])]
        unsure.sort(key=lambda cell: (_doubt(entries[cell[0]], cell[1], cell[2]), cell))
        excess = len(where) - limit
        out.append(DeckConflict(card, len(where), limit, tuple(unsure[:excess])))
    return out


def with_deck_flags(
    entries: Sequence[TerrariumEntry], copies: Mapping[str, int]
) -> tuple[list[TerrariumEntry], list[DeckConflict]]:
    """The boards with the conflicting cells (:func:`deck_conflicts`) added to their ``check``
    flags, and the conflicts; the entries given are not changed."""
    conflicts = deck_conflicts(entries, copies)
    out = list(entries)
    for conflict in conflicts:
        for board, r, c in conflict.flagged:
            entry = out[board]
            check = (
                [list(row) for row in entry.check]
                if entry.check is not None
                else [[False] * len(row) for row in entry.rows]
            )
            check[r][c] = True
            out[board] = replace(entry, check=check)
    return out, conflicts
