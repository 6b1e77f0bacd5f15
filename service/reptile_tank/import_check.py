"""Check an imported game against its boards: is its score pad the one its boards score?

:meth:`leaderboard.store.Store.import_json` calls :func:`check_game` on every game of a document
before writing any (``verify=True``, the default). This is the only leaderboard module that
imports :mod:`scoring`, and only when an import asks for it.

What is refused (:class:`~leaderboard.records.LeaderboardError`, naming the player):

- ranks that do not follow the pads: a player ranked above one with a better
  ``(total, 3-card sets, dry-land cards)``, or "every player ranked 1" with different totals;
- in a game scored with the default rules (its ``rules_hash`` is theirs): a pad whose total or
  columns differ from what its board scores, or a board that cannot be scored at all; in a solo
  game also the Master's total and the winner.

What is flagged (imported, and listed in ``ImportSummary.flagged``): a game scored with other
rules (house values, another version's rules file) cannot be re-scored exactly, so its pads are
kept as they are, with what the default rules would give in the reason.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Any

from leaderboard.records import GamePlayer, GameRecord, LeaderboardError

#: Pad columns compared with the re-scored pad (when both have them).
COLUMNS = ("lizards", "snakes", "turtles", "cockroach", "water", "dry_land", "objectives")


@lru_cache(maxsize=1)
def default_rules() -> tuple[Any, str]:
    """The default rules and their hash, as the app stores it (SHA-256 of the rules file)."""
    from scoring.reptile_tank.rules import DEFAULT_RULES_PATH, load_rules

    digest = hashlib.sha256(DEFAULT_RULES_PATH.read_bytes()).hexdigest()
    return load_rules(), digest


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _tie_key(player: GamePlayer) -> tuple[int, int, int]:
    pad = player.pad
    return (
        _int(pad.get("total")),
        _int(pad.get("three_card_sets")),
        _int(pad.get("dry_land_cards")),
    )


def check_ranks(record: GameRecord) -> None:
    """Refuse ranks that do not follow the pads (rulebook order: total, sets, dry land)."""
    if record.mode != "multi":
        return
    for seat, player in enumerate(record.players):
        better = sum(1 for other in record.players if _tie_key(other) > _tie_key(player))
        if player.rank != 1 + better:
            raise LeaderboardError(
                f"game.players[{seat}].rank: {player.rank}, but its pad ({player.total} VP) "
                f"places it {1 + better}"
            )


def _board(player: GamePlayer, seat: int) -> Any:
    from scoring.reptile_tank.board import Board

    try:
        return Board.from_json(player.board)
    except ValueError as error:
        raise LeaderboardError(f"game.players[{seat}].board: {error}") from None


def _rescore(record: GameRecord, rules: Any) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``(stored pad, re-scored pad JSON)`` per player, plus the Master's for a solo game."""
    from scoring.reptile_tank.engine import Variant

    objectives = tuple(record.objectives)
    if record.mode == "solo":
        from scoring.reptile_tank.solo import score_solo

        player = record.players[0]
        master = record.extra.get("master")
        if not isinstance(master, dict) or not isinstance(master.get("cards"), dict):
            raise LeaderboardError("game.extra.master: the solo Master's cards are missing")
        result = score_solo(
            _board(player, 0),
            master["cards"],
            rules,
            pairs=master.get("pairs") or None,
            level=master.get("level", "normal"),
            objectives=objectives,
            variant=Variant(players=1, star_cards_removed=record.player_count_variant),
        )
        pairs = [(player.pad, result.player.to_json())]
        if isinstance(master.get("pad"), dict):
            pairs.append((master["pad"], result.master.to_json()))
        winner = record.extra.get("winner")
        if winner is not None and winner != result.winner:
            raise LeaderboardError(
                f"game.extra.winner: {winner!r}, the boards say {result.winner!r}"
            )
        return pairs
    from scoring.reptile_tank.game import score_game

    boards = [(p.name, _board(p, seat)) for seat, p in enumerate(record.players)]
    result = score_game(
        boards,
        rules,
        objectives=objectives,
        variant=Variant(players=len(boards), star_cards_removed=record.player_count_variant),
    )
    return [(p.pad, r.pad.to_json()) for p, r in zip(record.players, result.players, strict=True)]


def _differences(stored: dict[str, Any], scored: dict[str, Any]) -> list[str]:
    out = []
    for key in ("total", *COLUMNS):
        if key in stored and key in scored and stored[key] != scored[key]:
            out.append(f"{key} {stored[key]} (the board scores {scored[key]})")
    return out


def check_game(record: GameRecord) -> str | None:
    """Refuse a game whose pads its boards contradict; flag one that cannot be re-scored.

    Returns
    -------
    str or None
        ``None`` when re-scoring confirmed every pad; a reason when the game is imported
        unverified.

    Raises
    ------
    LeaderboardError
        The ranks do not follow the pads, or (default rules) a pad is not what its board scores.
    """
    check_ranks(record)
    rules, digest = default_rules()
    known = record.rules_hash == digest
    try:
        pairs = _rescore(record, rules)
    except LeaderboardError:
        if known:
            raise
        return f"not re-scored: scored with other rules (rules_hash {record.rules_hash[:16]!r})"
    except (ValueError, TypeError, KeyError) as error:  # the scoring layer's refusals
        if known:
            raise LeaderboardError(f"the boards cannot be scored: {error}") from None
        return f"not re-scored: scored with other rules (rules_hash {record.rules_hash[:16]!r})"
    problems = []
    for k, (stored, scored) in enumerate(pairs):
        who = "the Master" if k >= len(record.players) else f"game.players[{k}]"
        for difference in _differences(stored, scored):
            problems.append(f"{who}.pad: {difference}")
    if not problems:
        return None
    if known:
        raise LeaderboardError(
            "the score pad does not match its board under the rules it names: "
            + "; ".join(problems[:3])
        )
    return (
        f"not verified: scored with other rules (rules_hash {record.rules_hash[:16]!r}); "
        "the default rules give: " + "; ".join(problems[:3])
    )
