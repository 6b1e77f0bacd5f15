"""The journey's logic, without widgets: score pads as tables and reasons, the table's game,
the record saved to the leaderboard, leaderboard tables.

The pages only render what these functions return, so all of it is testable without Streamlit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from service.reptile_tank.records import game_record, solo_record, solo_standings_rows
from service.reptile_tank.scoring import (
    TableResult,
    board_of,
    score_entry,
    score_solo_entry,
    score_table,
    tie_notes,
)
from service.reptile_tank.scoring import is_complete as _is_complete
from ui.text import escape_markdown, local_time

__all__ = [
    "TableResult",
    "board_of",
    "escape_markdown",
    "game_record",
    "score_entry",
    "score_solo_entry",
    "score_table",
    "solo_record",
    "solo_standings_rows",
    "tie_notes",
]


def is_complete(rows: Sequence[Sequence[str]]) -> bool:
    """True when no cell is ``empty`` (a finished terrarium, not "score so far")."""
    return _is_complete(rows)


def cell_name(row: int, col: int) -> str:
    """A cell as players say it: ``"row 1, column 3"`` (1-based, row 1 farthest from you)."""
    return f"row {row + 1}, column {col + 1}"


@dataclass(frozen=True)
class PadColumn:
    """One column of a score pad, with the reasons behind its number.

    Attributes
    ----------
    key, header : str
        The ScorePad attribute and its heading.
    vp : int
        The column's victory points.
    reasons : list of str
        One line per scoring group of the column, e.g.
        ``"Blue-tongued skink, advanced: 13 VP — 3 in a line with 2 kinds (row 1, column 1 …)"``.
    """

    key: str
    header: str
    vp: int
    reasons: list[str]


def group_line(group: Any) -> str:
    """One scoring group as a sentence: its VP, then the engine's reason (rule, tier, cells)."""
    mark = "†" if getattr(group, "provenance", "") == "assumed" else ""
    return f"{group.vp}{mark} VP — {group.reason}" if group.reason else f"{group.vp}{mark} VP"


def pad_columns(pad: Any) -> list[PadColumn]:
    """Split a ScorePad into its columns, each with the reasons (groups) that make it up."""
    columns = []
    for key, header in pad.headings.items():  # the rules data's [pad.columns], in pad order
        groups = [g for g in pad.groups if getattr(g, "column", None) == key]
        columns.append(
            PadColumn(
                key=key,
                header=header,
                vp=int(getattr(pad, key)),
                reasons=[group_line(g) for g in groups],
            )
        )
    return columns


def pad_row(name: str, pad: Any) -> dict[str, Any]:
    """A pad as one table row: ``{"Player": name, "Total": 72, "Lizards": 13, …}``."""
    row: dict[str, Any] = {"Player": name, "Total": int(pad.total)}  # first: phones scroll
    for key, header in pad.headings.items():  # the rules data's [pad.columns], in pad order
        row[header] = int(getattr(pad, key))
    return row


def pad_notes(pad: Any) -> list[str]:
    """Pending items and warnings of a pad, as plain sentences for the user."""
    notes = [f"Pending: {p}" for p in getattr(pad, "pending", ()) or ()]
    notes += [str(w) for w in getattr(pad, "warnings", ()) or ()]
    return notes


def standings_rows(standings: Sequence[Any]) -> list[dict[str, Any]]:
    """Leaderboard standings (``LeaderboardRow``) as table rows; names stay plain text."""
    return [
        {
            "Player": row.player,
            "Games": row.games,
            "Wins": row.wins,
            "Total VP": row.total_vp,
            "Average VP": round(float(row.average), 1),
            "Best": row.best,
        }
        for row in standings
    ]


def game_rows(games: Sequence[Any], timezone: str | None = None) -> list[dict[str, Any]]:
    """Saved games (``GameRecord``) as table rows: when (the viewer's local time), mode, who
    won, every player's total."""
    out = []
    for game in games:
        winners = [p.name for p in game.players if p.rank == 1]
        out.append(
            {
                "Game": game.id,
                "Winner": " & ".join(winners),
                "Scores": ", ".join(f"{p.name} {p.total}" for p in game.players),
                "Played": local_time(game.played_at, timezone),
                "Mode": game.mode,
            }
        )
    return out


def solo_game_rows(games: Sequence[Any], timezone: str | None = None) -> list[dict[str, Any]]:
    """Saved solo games as rows: when, the player and their VP, the Master's VP, who won."""

    out = []
    for game in games:
        line = game.players[0]
        master = (game.extra or {}).get("master", {}).get("pad", {}) or {}
        winner = (game.extra or {}).get("winner")
        out.append(
            {
                "Game": game.id,
                "Played": local_time(game.played_at, timezone),
                "Player": line.name,
                "VP": int(line.total),
                "Master VP": master.get("total"),
                "Winner": {"player": line.name, "master": "the Master"}.get(winner, "tie"),
            }
        )
    return out


def table_rows(table: TableResult) -> list[dict[str, Any]]:
    """The table's pad: one row per player, ranked, with every column."""
    rows = [
        {"Rank": rank, **pad_row(name, pad)}
        for name, pad, rank in zip(table.players, table.pads, table.ranks, strict=True)
    ]
    return sorted(rows, key=lambda r: (r["Rank"], -r["Total"]))


def why_check(entry) -> str:
    """``"Why: 2 card(s) between two faces too close to tell apart; ..."``: the reader's
    reasons for a check (the count of cells in doubt is the line above), or ``""``."""
    reasons = [r for r in entry.check_reasons if not r.endswith("cell(s) in doubt")]
    return "Why: " + "; ".join(reasons) + "." if reasons else ""
