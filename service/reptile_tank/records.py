"""Scored games → leaderboard records, and standings the store does not compute itself."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.reptile_tank.game import TerrariumEntry
from service.reptile_tank.scoring import TableResult


def game_record(
    table: TableResult,
    entries: Mapping[str, TerrariumEntry],
    *,
    session_id: int,
    star_cards_out: bool,
    objectives: Sequence[int],
    rules_version: str,
    rules_hash: str,
    notes: str = "",
) -> Any:
    """The leaderboard record of a scored table: boards, pads, ranks, rules, photo references.

    ``notes`` is the players' note; how ties were broken follows it on its own line.
    """
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
    text = "\n".join(t for t in (notes.strip(), "; ".join(table.notes)) if t)
    return GameRecord(
        session_id=int(session_id),
        players=tuple(lines),
        mode="multi",
        player_count_variant=bool(star_cards_out),
        objectives=[int(o) for o in objectives],
        rules_version=rules_version,
        rules_hash=rules_hash,
        notes=text,
        extra={
            "corrected_cells": {n: sorted(map(list, entries[n].corrected)) for n in table.players},
            "player_notes": notes.strip(),
        },
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
    uid: str | None = None,
) -> Any:
    """The leaderboard record of a solo game; the Master's cards, pad and the outcome in
    ``extra``. The player's rank counts the Master as a seat: 1 when the player beat or tied
    the Master, 2 when the Master won. ``uid`` makes saving idempotent (one game per uid)."""
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
        uid=uid,
    )


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


def player_history(games: Sequence[Any], name: str) -> dict[str, Any]:
    """One player's page: their games (newest first), wins, average, best terrarium, trend and
    head-to-head records against everyone they met at a table.

    Returns
    -------
    dict
        ``games`` (list of dicts: game id, played_at, mode, total, rank, players), ``wins``,
        ``average``, ``best`` (game id and total, or ``None``), ``trend`` (totals oldest first),
        ``head_to_head`` (list of dicts: opponent, games, wins, losses, ties; most games first).
    """
    mine = []
    versus: dict[str, dict[str, Any]] = {}
    for game in games:
        line = next((p for p in game.players if p.name == name), None)
        if line is None:
            continue
        mine.append((game, line))
        if game.mode != "multi":
            continue
        for other in game.players:
            if other.name == name:
                continue
            row = versus.setdefault(
                other.name, {"Opponent": other.name, "Games": 0, "Won": 0, "Lost": 0, "Tied": 0}
            )
            row["Games"] += 1
            if line.rank < other.rank:
                row["Won"] += 1
            elif line.rank > other.rank:
                row["Lost"] += 1
            else:
                row["Tied"] += 1
    totals = [int(line.total) for _g, line in mine]
    best = max(mine, key=lambda gl: int(gl[1].total), default=None)
    return {
        "games": [
            {
                "game": g.id,
                "played_at": g.played_at,
                "mode": g.mode,
                "total": int(line.total),
                "rank": int(line.rank),
                "players": len(g.players),
            }
            for g, line in reversed(mine)
        ],
        "wins": sum(1 for _g, line in mine if line.rank == 1),
        "average": round(sum(totals) / len(totals), 1) if totals else 0.0,
        "best": None if best is None else {"game": best[0].id, "total": int(best[1].total)},
        "trend": totals,
        "head_to_head": sorted(versus.values(), key=lambda r: (-r["Games"], r["Opponent"])),
    }
