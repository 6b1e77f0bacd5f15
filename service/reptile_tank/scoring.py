"""Boards entered in the app → score pads: one terrarium live, the whole table, a solo game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.reptile_tank.board import Board
from scoring.reptile_tank.cards import EMPTY
from service.reptile_tank.game import TerrariumEntry


def board_of(entry: TerrariumEntry) -> Board:
    """The scoring engine's board for a terrarium entry."""
    return Board.from_json({"rows": [list(row) for row in entry.rows]})


def is_complete(rows: Sequence[Sequence[str]]) -> bool:
    """True when no cell is ``empty`` (a finished terrarium, not "score so far")."""
    return all(label != EMPTY for row in rows for label in row)


def score_rows(
    rows: Sequence[Sequence[str]],
    rules: Any,
    *,
    objectives: Sequence[int] = (),
    players: int | None = None,
    star_cards_out: bool | None = None,
) -> Any:
    """One terrarium's ScorePad from its cell labels (row 0 farthest from the owner), on its
    own: the roach majority stays pending. The app's live pad and ``reptile-tank score`` both
    score here; ``scoring.reptile_tank.board.BoardError`` (a ``ValueError``) on a bad board."""
    from scoring.reptile_tank.engine import Variant, score_board

    return score_board(
        Board.from_json({"rows": [list(row) for row in rows]}),
        rules,
        objectives=tuple(objectives),
        variant=Variant(players=players, star_cards_removed=star_cards_out),
    )


def score_entry(
    entry: TerrariumEntry,
    rules: Any,
    *,
    objectives: Sequence[int] = (),
    players: int | None = None,
    star_cards_out: bool | None = None,
) -> Any:
    """One terrarium's ScorePad on its own (the roach majority stays pending)."""
    return score_rows(
        entry.rows, rules, objectives=objectives, players=players, star_cards_out=star_cards_out
    )


@dataclass(frozen=True)
class TableResult:
    """The table's game, scored together, in seat order.

    Attributes
    ----------
    players : list of str
        Names in seat order.
    pads : list of ScorePad
        Each player's pad with the cockroach majority settled.
    ranks : list of int
        1 for the winner(s); tied players share a rank.
    notes : list of str
        How ties were broken (or shared), in words.
    raw : object
        The engine's ``GameResult``.
    """

    players: list[str]
    pads: list[Any]
    ranks: list[int]
    notes: list[str]
    raw: Any


def score_table(
    entries: Mapping[str, TerrariumEntry],
    players: Sequence[str],
    rules: Any,
    *,
    objectives: Sequence[int] = (),
    star_cards_out: bool | None = None,
) -> TableResult:
    """Score every player's terrarium together: cockroach majority, ranking, tie-breaks.

    Raises
    ------
    ValueError
        If a player's terrarium has not been entered.
    """
    from scoring.reptile_tank.engine import Variant
    from scoring.reptile_tank.game import score_game

    missing = [p for p in players if p not in entries]
    if missing:
        raise ValueError(f"not every terrarium is in yet ({len(missing)} missing)")
    result = score_game(
        [(name, board_of(entries[name])) for name in players],
        rules,
        objectives=tuple(objectives),
        variant=Variant(players=len(players), star_cards_removed=star_cards_out),
    )
    return TableResult(
        players=[p.name for p in result.players],
        pads=[p.pad for p in result.players],
        ranks=[p.rank for p in result.players],
        notes=tie_notes(result),
        raw=result,
    )


def tie_notes(result: Any) -> list[str]:
    """Sentences on how the ranking was decided whenever totals were tied."""
    notes = []
    for player in result.ranking:
        if player.decided_by and player.decided_by != "total":
            if player.decided_by == "shared":
                notes.append(f"Place {player.rank}: tied on every tie-break, shared.")
            else:
                notes.append(f"Place {player.rank}: equal total, separated by {player.decided_by}.")
    counts = result.roach_counts
    if counts and max(counts.values()) >= 1:
        most = max(counts.values())
        holders = sum(1 for n in counts.values() if n == most)
        notes.append(f"Cockroach majority: {most} roach(es), held by {holders} player(s).")
    return list(dict.fromkeys(notes))


def score_solo_entry(
    entry: TerrariumEntry,
    counts: Mapping[str, int],
    rules: Any,
    *,
    pairs: Sequence[Sequence[str]] | None = None,
    level: str = "normal",
    objectives: Sequence[int] = (),
    star_cards_out: bool | None = None,
) -> Any:
    """The player's board against the Terrarium Master's cards (a ``SoloResult``)."""
    from scoring.reptile_tank.engine import Variant
    from scoring.reptile_tank.solo import score_solo

    return score_solo(
        board_of(entry),
        dict(counts),
        rules,
        pairs=[tuple(p) for p in pairs] if pairs else None,
        level=level,
        objectives=tuple(objectives),
        variant=Variant(players=1, star_cards_removed=star_cards_out),
    )
