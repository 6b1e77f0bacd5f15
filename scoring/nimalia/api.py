"""JSON-able entry points for the app and the command line: documents in, plain dicts out.

Everything here takes the documents of ``docs/nimalia.md`` (a reserve, a game) as parsed JSON,
checks them strictly (``ValueError`` with one line naming the key or position) and returns
dicts of str/int/list only, so a caller can ``json.dumps`` them or render them.

* :func:`score_reserve` -- the listed goals on one reserve; relative goals are ``pending``
  (with this reserve's value of what they compare). Each goal has its points, a one-string
  reason and ``lines``: ``{"points", "reason", "squares": [[row, col], ...]}`` (0-based squares
  to highlight; the reasons say positions 1-based).
* :func:`score_game` -- a game document: per round, per goal, per player points, running totals
  floored at 0, ranking with the tie-break.
* :func:`choose_goals` -- a legal set of 4 goals for a level and seed.
* :func:`goal_catalogue` -- the 22 goals (colour, level, back, name, text, provenance).
* :func:`next_positions` -- where the next card may go (entering a reserve card by card).

Examples
--------
>>> result = score_reserve({"squares": [["I:bea", "I:bea"]]}, [8, 16])
>>> result["goals"][0]["points"], result["pending"]
(4, [16])
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from scoring.nimalia import engine
from scoring.nimalia.reserve import Reserve, reserve_from_document
from scoring.nimalia.rules import Rules, load_rules


def _rules(goal12: str | None) -> Rules:
    return load_rules(goal12=goal12)


def parse_goal_list(text: str, rules: Rules | None = None) -> list[int]:
    """``"1,7,12,16"`` -> ``[1, 7, 12, 16]``; ``ValueError`` naming a bad or repeated goal."""
    rules = rules or load_rules()
    goals: list[int] = []
    for part in str(text).split(","):
        part = part.strip()
        if not part.isdigit() or int(part) not in rules.goals:
            raise ValueError(f"unknown goal {part!r}: Nimalia goals are 1-{len(rules.goals)}")
        if int(part) in goals:
            raise ValueError(f"goal {part} is listed twice")
        goals.append(int(part))
    return goals


def _check_goal_ids(goals: Any, rules: Rules) -> list[int]:
    if not isinstance(goals, Sequence) or isinstance(goals, str) or not goals:
        raise ValueError("goals must be a non-empty list of goal numbers")
    result = []
    for g in goals:
        if isinstance(g, bool) or not isinstance(g, int) or g not in rules.goals:
            raise ValueError(f"unknown goal {g!r}: Nimalia goals are 1-{len(rules.goals)}")
        if g in result:
            raise ValueError(f"goal {g} is listed twice")
        result.append(g)
    return result


def score_reserve(
    document: Any, goals: Sequence[int], *, goal12: str | None = None
) -> dict[str, Any]:
    """Score one reserve document on the listed goals.

    Returns ``{"goals": [{"goal", "name", "points", "reason", "lines"}], "pending": [ids],
    "relative": [{"goal", "values": [...]}], "total": n, "squares": token rows,
    "placements": [...] or None, "options": {"goal12": ...}}``.
    """
    rules = _rules(goal12)
    ids = _check_goal_ids(list(goals), rules)
    reserve = reserve_from_document(document, grid=rules.layout)
    scores, pending = engine.score_goals(reserve, ids, rules)
    goal_rows = []
    for score in scores:
        row = score.as_dict()
        row["name"] = rules.goals[score.goal].name
        goal_rows.append(row)
    return {
        "goals": goal_rows,
        "pending": pending,
        "relative": [
            {"goal": g, "values": engine.relative_values(reserve, g, rules)} for g in pending
        ],
        "total": sum(s.points for s in scores),
        "squares": reserve.token_rows(),
        "placements": (
            [p.as_dict() for p in reserve.placements] if reserve.placements is not None else None
        ),
        "options": {"goal12": rules.goal12},
    }


_GAME_KEYS = ("goals", "players")
_PLAYER_KEYS = ("name", "rounds")
#: Longest player name (characters), as Reptile Tank's documents and the leaderboard allow.
MAX_NAME_CHARS = 100
#: Invisible characters a name may hold (zero-width non-joiner and joiner, as in Reptile Tank's
#: documents); every other non-printable character (line breaks, escapes, bidi overrides) is
#: refused.
_JOINERS = frozenset("\u200c\u200d")


def parse_game(
    document: Any, rules: Rules | None = None
) -> tuple[list[int], list[tuple[str, list[Reserve]]]]:
    """A game document, checked: ``(goals, [(name, [reserve per round])])``.

    When a player's rounds are all placement documents, round k must repeat round k-1's
    placements and add exactly 3 cards (round 1: 3 cards), and no card may be in two players'
    reserves: the deal of the help text.
    """
    rules = rules or load_rules()
    if not isinstance(document, Mapping):
        raise ValueError('a game is an object with "goals" and "players"')
    unknown = [k for k in document if k not in _GAME_KEYS]
    if unknown:
        raise ValueError(f"game: unknown key {unknown[0]!r} (allowed: goals, players)")
    for key in _GAME_KEYS:
        if key not in document:
            raise ValueError(f"game: missing key {key!r}")
    goals = _check_goal_ids(document["goals"], rules)
    engine.check_goal_set(goals, rules)
    raw_players = document["players"]
    if not isinstance(raw_players, list):
        raise ValueError("players must be a list of players")
    players: list[tuple[str, list[Reserve]]] = []
    owners: dict[int, str] = {}
    for i, raw in enumerate(raw_players):
        where = f"players[{i}]"
        if not isinstance(raw, Mapping):
            raise ValueError(f'{where} must be an object with "name" and "rounds"')
        unknown = [k for k in raw if k not in _PLAYER_KEYS]
        if unknown:
            raise ValueError(f"{where}: unknown key {unknown[0]!r} (allowed: name, rounds)")
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"{where}.name must be a non-empty string")
        if len(name) > MAX_NAME_CHARS:
            raise ValueError(f"{where}.name is {len(name)} characters, at most {MAX_NAME_CHARS}")
        if any(not ch.isprintable() and ch not in _JOINERS for ch in name):
            raise ValueError(f"{where}.name holds control characters (line breaks, escapes)")
        rounds = raw.get("rounds")
        if not isinstance(rounds, list) or not rounds:
            raise ValueError(f"{where}.rounds must be a list of 1-{len(rules.rounds)} reserves")
        reserves = []
        for k, doc in enumerate(rounds):
            try:
                reserves.append(reserve_from_document(doc, grid=rules.layout))
            except ValueError as error:
                raise ValueError(f"{where}.rounds[{k}]: {error}") from None
        if all(r.placements is not None for r in reserves):
            previous: tuple = ()
            for k, reserve in enumerate(reserves):
                placements = reserve.placements or ()
                if placements[: len(previous)] != previous or len(placements) != len(previous) + 3:
                    raise ValueError(
                        f"{where}.rounds[{k}]: round {k + 1} repeats round {k}'s placements "
                        f"and adds the round's 3 cards ({3 * (k + 1)} placements in all), "
                        f"got {len(placements)}"
                    )
                previous = placements
            for placement in previous:
                if placement.card in owners and owners[placement.card] != name:
                    raise ValueError(
                        f"{where}: card {placement.card} is also in {owners[placement.card]}'s "
                        "reserve"
                    )
                owners[placement.card] = name
        players.append((name, reserves))
    return goals, players


def score_game(
    document: Any, *, goal12: str | None = None, tiebreak: str | None = None
) -> dict[str, Any]:
    """Score a game document.

    Returns ``{"goals": [ids, colour order], "players": [{"name", "rounds": [{"round",
    "goals": [{"goal", "points", "total_after", "reason", "lines"}], "total"}], "total",
    "rank", "tiebreak": {"animal", "count", "counted"}}], "options": {...}}``.
    """
    rules = load_rules(goal12=goal12, tiebreak=tiebreak)
    goals, players = parse_game(document, rules)
    result = engine.score_game(goals, players, rules)
    return {
        "goals": list(result.goals),
        "players": [
            {
                "name": p.name,
                "rounds": [
                    {
                        "round": r.round,
                        "goals": [
                            {
                                "goal": g.goal,
                                "points": g.points,
                                "total_after": g.total_after,
                                "reason": g.score.reason,
                                "lines": [line.as_dict() for line in g.score.lines],
                            }
                            for g in r.goals
                        ],
                        "total": r.total,
                    }
                    for r in p.rounds
                ],
                "total": p.total,
                "rank": p.rank,
                "tiebreak": {
                    "animal": p.tiebreak_animal,
                    "count": p.tiebreak,
                    "counted": p.tiebreak_counted,
                },
            }
            for p in result.players
        ],
        "options": {
            "goal12": rules.goal12,
            "tiebreak": rules.tiebreak_scope,
            "floor_at_zero": rules.floor_at_zero,
        },
    }


def choose_goals(level: str, seed: int) -> dict[str, Any]:
    """A legal set of 4 goals (blue, green, yellow, red) for ``level`` and ``seed``."""
    rules = load_rules()
    goals = engine.choose_goals(level, random.Random(seed), rules)
    return {
        "level": level,
        "seed": seed,
        "goals": [
            {"goal": g, "colour": rules.goals[g].colour, "name": rules.goals[g].name} for g in goals
        ],
    }


def goal_catalogue() -> list[dict[str, Any]]:
    """The 22 goals as dicts, for listings and the app."""
    rules = load_rules()
    return [
        {
            "goal": g.id,
            "colour": g.colour,
            "level": g.level,
            "back": g.back,
            "name": g.name,
            "text": g.text,
            "provenance": g.provenance,
            "relative": g.relative,
        }
        for g in rules.goals.values()
    ]


def next_positions(document: Any) -> list[list[int]]:
    """Where the next card may go on this reserve: ``[[row, col], ...]`` (0-based top-left)."""
    from scoring.nimalia.reserve import legal_positions

    reserve = reserve_from_document(document, grid=load_rules().layout)
    return [list(spot) for spot in legal_positions(reserve)]
