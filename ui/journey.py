"""The journey's logic, without widgets: score pads as tables and reasons, the table's game,
the record saved to the leaderboard, leaderboard tables.

The pages only render what these functions return, so all of it is testable without Streamlit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.board import Board
from scoring.cards import COLS, EMPTY, ROWS
from ui.state import TerrariumEntry

#: Score pad columns in the rulebook's order: (ScorePad attribute, header).
PAD_COLUMNS: tuple[tuple[str, str], ...] = (
    ("lizards", "Lizards"),
    ("snakes", "Snakes"),
    ("turtles", "Turtles"),
    ("cockroach", "Cockroach"),
    ("water", "Water"),
    ("dry_land", "Dry-land"),
    ("objectives", "Objectives"),
)

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|~<>:$])")


def escape_markdown(text: str) -> str:
    """Backslash-escape markdown (and Streamlit's ``:color[...]``) syntax in user text.

    For the few places where Streamlit renders a label as markdown (widget labels, expander
    titles); elsewhere user text goes through ``st.text`` or a dataframe. HTML is never rendered
    by Streamlit without ``unsafe_allow_html``, which the app never passes.
    """
    return _MARKDOWN_SPECIALS.sub(r"\\\1", str(text))


def board_of(entry: TerrariumEntry) -> Board:
    """The scoring engine's board for a terrarium entry."""
    return Board.from_json({"rows": [list(row) for row in entry.rows]})


def score_entry(
    entry: TerrariumEntry,
    rules: Any,
    *,
    objectives: Sequence[int] = (),
    players: int | None = None,
    star_cards_out: bool | None = None,
) -> Any:
    """One terrarium's ScorePad on its own (the roach majority stays pending).

    Used live while cells are fixed, and for a half-built terrarium ("score so far").
    """
    from scoring.engine import Variant, score_board

    return score_board(
        board_of(entry),
        rules,
        objectives=tuple(objectives),
        variant=Variant(players=players, star_cards_removed=star_cards_out),
    )


def is_complete(rows: Sequence[Sequence[str]]) -> bool:
    """True when no cell is ``empty`` (a finished terrarium, not "score so far")."""
    return all(label != EMPTY for row in rows for label in row)


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
    return f"{group.vp} VP — {group.reason}" if group.reason else f"{group.vp} VP"


def pad_columns(pad: Any) -> list[PadColumn]:
    """Split a ScorePad into its columns, each with the reasons (groups) that make it up."""
    columns = []
    for key, header in PAD_COLUMNS:
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
    for key, header in PAD_COLUMNS:
        row[header] = int(getattr(pad, key))
    return row


def pad_notes(pad: Any) -> list[str]:
    """Pending items and warnings of a pad, as plain sentences for the user."""
    notes = [f"Pending: {p}" for p in getattr(pad, "pending", ()) or ()]
    notes += [str(w) for w in getattr(pad, "warnings", ()) or ()]
    return notes


def rows_to_text(rows: Sequence[Sequence[str]]) -> str:
    """A board as 4 lines of 5 labels (for logs and test failure messages)."""
    return "\n".join(" ".join(row) for row in rows)


def check_rows(rows: Sequence[Sequence[str]]) -> None:
    """Raise ``ValueError`` unless ``rows`` is 4 rows of 5 labels."""
    if len(rows) != ROWS or any(len(r) != COLS for r in rows):
        raise ValueError("a terrarium is 4 rows of 5 cells")


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


def solo_standings_rows(games: Sequence[Any]) -> list[dict[str, Any]]:
    """Solo games (``GameRecord``, mode ``solo``) per player: games, wins against the Master,
    average and best VP; most wins first, then best average."""
    table: dict[str, dict[str, Any]] = {}
    for game in games:
        line = game.players[0]
        row = table.setdefault(
            line.name,
            {"Player": line.name, "Games": 0, "Beat the Master": 0, "_total": 0, "Best": 0},
        )
        row["Games"] += 1
        row["Beat the Master"] += int(game.extra.get("winner") == "player")
        row["_total"] += int(line.total)
        row["Best"] = max(row["Best"], int(line.total))
    rows = []
    for row in table.values():
        total = row.pop("_total")
        rows.append({**row, "Average VP": round(total / row["Games"], 1)})
    return sorted(rows, key=lambda r: (-r["Beat the Master"], -r["Average VP"], r["Player"]))


def game_rows(games: Sequence[Any]) -> list[dict[str, Any]]:
    """Saved games (``GameRecord``) as table rows: when, mode, who won, every player's total."""
    out = []
    for game in games:
        winners = [p.name for p in game.players if p.rank == 1]
        out.append(
            {
                "Game": game.id,
                "Winner": " & ".join(winners),
                "Scores": ", ".join(f"{p.name} {p.total}" for p in game.players),
                "Played": (game.played_at or "")[:16].replace("T", " "),
                "Mode": game.mode,
            }
        )
    return out


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
    from scoring.game import score_game

    missing = [p for p in players if p not in entries]
    if missing:
        raise ValueError(f"not every terrarium is in yet ({len(missing)} missing)")
    from scoring.engine import Variant

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


def game_record(
    table: TableResult,
    entries: Mapping[str, TerrariumEntry],
    *,
    session_id: int,
    star_cards_out: bool,
    objectives: Sequence[int],
    rules_version: str,
    rules_hash: str,
) -> Any:
    """The leaderboard record of a scored table: boards, pads, ranks, rules, photo references."""
    from leaderboard.records import GamePlayer, GameRecord

    lines = []
    for name, pad, rank in zip(table.players, table.pads, table.ranks, strict=True):
        entry = entries[name]
        lines.append(
            GamePlayer(
                name=name,
                board={"rows": [list(row) for row in entry.rows]},
                pad=pad.to_json(),
                rank=int(rank),
                photo_sha256=entry.photo_sha256,
                photo_thumbnail=entry.thumbnail_jpeg,
            )
        )
    return GameRecord(
        session_id=int(session_id),
        players=tuple(lines),
        mode="multi",
        player_count_variant=bool(star_cards_out),
        objectives=[int(o) for o in objectives],
        rules_version=rules_version,
        rules_hash=rules_hash,
        notes="; ".join(table.notes),
        extra={
            "corrected_cells": {n: sorted(map(list, entries[n].corrected)) for n in table.players}
        },
    )


def table_rows(table: TableResult) -> list[dict[str, Any]]:
    """The table's pad: one row per player, ranked, with every column."""
    rows = [
        {"Rank": rank, **pad_row(name, pad)}
        for name, pad, rank in zip(table.players, table.pads, table.ranks, strict=True)
    ]
    return sorted(rows, key=lambda r: (r["Rank"], -r["Total"]))


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
    from scoring.engine import Variant
    from scoring.solo import score_solo

    return score_solo(
        board_of(entry),
        dict(counts),
        rules,
        pairs=[tuple(p) for p in pairs] if pairs else None,
        level=level,
        objectives=tuple(objectives),
        variant=Variant(players=1, star_cards_removed=star_cards_out),
    )


def solo_record(
    result: Any,
    entry: TerrariumEntry,
    *,
    name: str,
    counts: Mapping[str, int],
    session_id: int,
    star_cards_out: bool,
    objectives: Sequence[int],
    rules_version: str,
    rules_hash: str,
) -> Any:
    """The leaderboard record of a solo game; the Master's cards, pad and the outcome in
    ``extra``. The player's rank counts the Master as a seat (storage's rule): 1 when the player
    beat or tied the Master, 2 when the Master won."""
    from leaderboard.records import GamePlayer, GameRecord

    line = GamePlayer(
        name=name,
        board={"rows": [list(row) for row in entry.rows]},
        pad=result.player.to_json(),
        rank=2 if result.winner == "master" else 1,
        photo_sha256=entry.photo_sha256,
        photo_thumbnail=entry.thumbnail_jpeg,
    )
    return GameRecord(
        session_id=int(session_id),
        players=(line,),
        mode="solo",
        player_count_variant=bool(star_cards_out),
        objectives=[int(o) for o in objectives],
        rules_version=rules_version,
        rules_hash=rules_hash,
        extra={
            "master": {
                "cards": {k: int(v) for k, v in counts.items()},
                "pairs": [list(p) for p in result.master_pairs],
                "level": result.level,
                "pad": result.master.to_json(),
            },
            "winner": result.winner,
        },
    )
