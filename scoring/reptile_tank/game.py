"""A game of any number of players: cockroach majority across boards, then the ranking."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.reptile_tank.board import Board
from scoring.reptile_tank.documents import MAX_PLAYERS, MIN_PLAYERS
from scoring.reptile_tank.engine import ScorePad, Variant, score_board
from scoring.reptile_tank.rules import Rules


class GameError(ValueError):
    """A game that cannot be scored (no players, duplicate or empty names)."""


@dataclass
class PlayerResult:
    """One player's board, pad and place (1 = winner; shared places repeat)."""

    name: str
    board: Board
    pad: ScorePad
    rank: int = 0
    decided_by: str = ""  # "total", "3-card sets", "dry-land cards" or "shared"

    def tie_key(self) -> tuple[int, int, int]:
        """The rulebook's order: total, then 3-card sets, then dry-land Environment cards."""
        return (self.pad.total, self.pad.three_card_sets, self.pad.dry_land_cards)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "rank": self.rank,
            "decided_by": self.decided_by,
            "board": self.board.to_json(),
            "pad": self.pad.to_json(),
        }


@dataclass
class GameResult:
    """Every player's pad (input order) and the ranking (best first)."""

    players: list[PlayerResult]
    objectives: tuple[int, ...]
    roach_counts: dict[str, int]

    @property
    def ranking(self) -> list[PlayerResult]:
        return sorted(self.players, key=lambda p: (p.rank, self.players.index(p)))

    @property
    def winners(self) -> list[str]:
        return [p.name for p in self.players if p.rank == 1]

    def to_json(self) -> dict[str, Any]:
        return {
            "players": [p.to_json() for p in self.players],
            "ranking": [
                {
                    "rank": p.rank,
                    "name": p.name,
                    "total": p.pad.total,
                    "three_card_sets": p.pad.three_card_sets,
                    "dry_land_cards": p.pad.dry_land_cards,
                    "decided_by": p.decided_by,
                }
                for p in self.ranking
            ],
            "winners": self.winners,
            "objectives": list(self.objectives),
            "roach_counts": dict(self.roach_counts),
        }


def roach_majorities(counts: Sequence[int]) -> list[bool | None]:
    """Who has the most roaches (ties all count, at least one needed); ``None`` alone."""
    if len(counts) < 2:
        return [None] * len(counts)
    most = max(counts)
    return [most >= 1 and n == most for n in counts]


def _decided_by(player: PlayerResult, others: Iterable[PlayerResult]) -> str:
    """Which tie-break separated ``player`` from the players with the same total."""
    same_total = [o for o in others if o.pad.total == player.pad.total]
    if not same_total:
        return "total"
    key = player.tie_key()
    if all(o.tie_key()[1] != key[1] for o in same_total):
        return "3-card sets"
    same_sets = [o for o in same_total if o.tie_key()[1] == key[1]]
    if all(o.tie_key()[2] != key[2] for o in same_sets):
        return "dry-land cards"
    return "shared"


def rank_players(players: list[PlayerResult]) -> None:
    """Set ``rank`` and ``decided_by`` of every player in place (rulebook tie-breaks)."""
    for player in players:
        key = player.tie_key()
        player.rank = 1 + sum(1 for o in players if o.tie_key() > key)
        player.decided_by = _decided_by(player, [o for o in players if o is not player])


def score_game(
    players: Sequence[tuple[str, Board]],
    rules: Rules,
    *,
    objectives: Iterable[int] = (),
    variant: Variant | None = None,
) -> GameResult:
    """Score every player's terrarium and rank them.

    Parameters
    ----------
    players : sequence of (name, Board)
        1 to 4 players; names must be unique and non-empty.
    rules : Rules
    objectives : iterable of int
        Objective cards in play (the same for everyone).
    variant : Variant, optional
        Defaults to ``Variant(players=len(players))`` (star-card warnings in 2–3 player games).

    Returns
    -------
    GameResult
        With one player the cockroach majority stays pending, as for a single board.
    """
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise GameError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(players)}")
    names = [name for name, _ in players]
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise GameError("every player needs a non-empty name")
    if len(set(names)) != len(names):
        raise GameError(f"player names must be unique, got {names}")
    variant = variant or Variant(players=len(players))
    objectives = tuple(objectives)
    majority_card = rules.majority_card
    counts = [board.count(majority_card) if majority_card else 0 for _, board in players]
    majorities = roach_majorities(counts)
    results = [
        PlayerResult(
            name=name,
            board=board,
            pad=score_board(
                board, rules, objectives=objectives, roach_majority=majority, variant=variant
            ),
        )
        for (name, board), majority in zip(players, majorities, strict=True)
    ]
    rank_players(results)
    return GameResult(
        players=results, objectives=objectives, roach_counts=dict(zip(names, counts, strict=True))
    )
