"""A game in progress: each player's terrarium as entered, and the setup checks.

A :class:`TerrariumEntry` is what the app knows of one player's board: the labels, how sure the
reader was, which cells it asked to check, its best guesses per cell, which cells the players
fixed, and references to the photo. It round-trips through JSON (:mod:`service.reptile_tank.drafts`), so a
game survives a reload or a server restart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scoring.reptile_tank.cards import CELL_LABELS, EMPTY
from scoring.reptile_tank.rules import default_layout
from service.players import (  # noqa: F401 - the pages' names
    MAX_NAME_LENGTH,
    MAX_TABLE_PLAYERS,
    clean_name,
    parse_player_names,
)

#: Players at a table game (the base game seats 2-4, :data:`service.players.MAX_TABLE_PLAYERS`;
#: solo has its own page).
MIN_TABLE_PLAYERS = 2
#: Objective cards in play: none, or this many (table game / solo).
TABLE_OBJECTIVES = 2
SOLO_OBJECTIVES = 3
#: Longest game note (characters).
MAX_NOTES_LENGTH = 2000
#: Best guesses kept per cell for the picker.
CANDIDATES_PER_CELL = 4


@dataclass
class TerrariumEntry:
    """One player's terrarium as entered for the current game.

    Attributes
    ----------
    rows : list of list of str
        4 rows of 5 cell labels (card ids, ``water`` or ``empty``), row 0 farthest from the owner.
    confidence : list of list of float or None
        Per-cell confidence of the photo read, same shape as ``rows``; ``None`` when the board
        was entered by hand.
    source : str
        ``"photo"`` or ``"manual"``.
    photo_sha256 : str or None
        Hex digest of the photo's bytes.
    thumbnail_jpeg : bytes or None
        A small JPEG of the photo (long side <= 320 px) stored with the game.
    overlay_jpeg : bytes or None
        The photo (downscaled) with the fitted grid and labels drawn, for the check page.
    corrected : set of tuple of int
        ``(row, col)`` cells the user changed after the read.
    read_ms : float or None
        How long the photo read took, in milliseconds.
    crops : np.ndarray or None
        ``(4, 5, h, w, 3)`` uint8 RGB cell crops of the read (to learn from corrections); kept in
        memory only (not in a draft).
    check : list of list of bool or None
        The reader's per-cell "check this cell" flags (``None``: the reader gave none).
    candidates : list of list of list of str or None
        The reader's best labels per cell, best first.
    check_reasons : list of str
        Why the reader asked for a check (``PhotoRead.check_reasons``: a thumb, two faces too
        close to tell apart, the grid's fit in doubt); empty when nothing is in doubt.
    """

    rows: list[list[str]]
    confidence: list[list[float]] | None = None
    source: str = "manual"
    photo_sha256: str | None = None
    thumbnail_jpeg: bytes | None = None
    overlay_jpeg: bytes | None = None
    corrected: set[tuple[int, int]] = field(default_factory=set)
    read_ms: float | None = None
    crops: Any = None
    check: list[list[bool]] | None = None
    candidates: list[list[list[str]]] | None = None
    check_reasons: list[str] = field(default_factory=list)

    def cells_to_check(self) -> list[tuple[int, int]]:
        """Cells the reader flagged ``check`` that nobody has fixed yet, in reading order."""
        if self.check is None:
            return []
        return [
            (r, c)
            for r in range(len(self.check))
            for c in range(len(self.check[r]))
            if self.check[r][c] and (r, c) not in self.corrected
        ]

    def candidates_for(self, row: int, col: int) -> list[str]:
        """The reader's best labels for a cell, best first (empty for a board typed by hand)."""
        if self.candidates is None:
            return []
        return [label for label in self.candidates[row][col] if label in CELL_LABELS]


def empty_rows() -> list[list[str]]:
    """A board of ``empty`` cells in the terrarium's layout (a terrarium not started yet)."""
    layout = default_layout()
    return [[EMPTY] * layout.cols for _ in range(layout.rows)]


def check_rows(rows: Sequence[Sequence[str]]) -> None:
    """Raise ``ValueError`` unless ``rows`` has the terrarium layout's shape and known labels."""
    layout = default_layout()
    if len(rows) != layout.rows or any(len(row) != layout.cols for row in rows):
        raise ValueError(f"a terrarium is {layout.rows} rows of {layout.cols} cells")
    for row in rows:
        for label in row:
            if label not in CELL_LABELS:
                raise ValueError(f"unknown cell label {label!r}")


def check_table_setup(players: Sequence[str], objectives: Sequence[int], rules: Any) -> None:
    """The rules' checks of a table game's setup: 2-4 players, no objectives or exactly 2 known.

    Raises
    ------
    ValueError
        With one sentence for the player.
    """
    if len(players) < MIN_TABLE_PLAYERS:
        raise ValueError("a table game needs at least 2 players (solo has its own page)")
    if len(players) > MAX_TABLE_PLAYERS:
        raise ValueError(f"a game seats at most {MAX_TABLE_PLAYERS} players")
    _check_objectives(objectives, rules, TABLE_OBJECTIVES)


def check_solo_setup(objectives: Sequence[int], rules: Any) -> None:
    """Solo uses no objective cards or exactly 3 known ones."""
    _check_objectives(objectives, rules, SOLO_OBJECTIVES)


def _check_objectives(objectives: Sequence[int], rules: Any, count: int) -> None:
    if objectives and len(objectives) != count:
        raise ValueError(f"pick exactly {count} objective cards, or switch objectives off")
    if len(set(objectives)) != len(objectives):
        raise ValueError("the same objective card cannot be in play twice")
    unknown = [o for o in objectives if o not in rules.objectives]
    if unknown:
        raise ValueError(f"objective card {unknown[0]} is not in the rules")


def clean_notes(raw: str) -> str:
    """A game note as stored: trimmed, at most :data:`MAX_NOTES_LENGTH` characters."""
    text = str(raw).strip()
    if len(text) > MAX_NOTES_LENGTH:
        raise ValueError(f"a note has at most {MAX_NOTES_LENGTH} characters")
    if "\x00" in text:
        raise ValueError("a note cannot hold NUL characters")
    return text
