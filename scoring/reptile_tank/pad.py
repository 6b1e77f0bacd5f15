"""The score pad and its lines: what the engine, objectives and the solo Master produce.

A pad's columns come from the rules data (``[pad.columns]``); every scoring line says which rule
values it used and their provenance, so a line is ``rulebook`` only when everything it rests on
is, and the pad can say how many VP rest on assumptions (``assumed_vp``).

No import of the engine or the objectives: both build these values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Cell = tuple[int, int]

#: Weakest last: a line is as sure as the least sure value it used.
PROVENANCE_ORDER = ("rulebook", "derived", "assumed")


def combine_provenance(provenances: Iterable[str]) -> str:
    """The provenance of something built from values of these provenances.

    >>> combine_provenance(["rulebook", "derived"])
    'derived'
    >>> combine_provenance(["rulebook", "assumed", "derived"])
    'assumed'
    >>> combine_provenance([])
    'rulebook'
    """
    worst = 0
    for provenance in provenances:
        worst = max(worst, PROVENANCE_ORDER.index(provenance))
    return PROVENANCE_ORDER[worst]


@dataclass(frozen=True)
class ScoringGroup:
    """One scoring line: a group of cells that scores ``vp`` in pad ``column``.

    ``uses`` lists every rule value the line rests on as ``(dotted key, provenance)`` (the tier's
    VP, its condition, the card's condition kind, a mask, a solo rule, …); ``provenance`` is
    their combination (:func:`combine_provenance`).
    """

    card_type: str
    column: str
    cells: tuple[Cell, ...]
    tier: str
    vp: int
    reason: str
    condition: str = ""
    uses: tuple[tuple[str, str], ...] = ()
    objective: int | None = None

    @property
    def provenance(self) -> str:
        return combine_provenance(p for _, p in self.uses)

    @property
    def assumed(self) -> bool:
        return self.provenance == "assumed"

    def to_json(self) -> dict[str, Any]:
        out = {
            "card_type": self.card_type,
            "column": self.column,
            "cells": [list(cell) for cell in self.cells],
            "tier": self.tier,
            "vp": self.vp,
            "reason": self.reason,
            "condition": self.condition,
            "provenance": self.provenance,
            "assumed": self.assumed,
            "uses": {key: provenance for key, provenance in self.uses},
        }
        if self.objective is not None:
            out["objective"] = self.objective
        return out


@dataclass(frozen=True)
class NotScoring:
    """Cards that score nothing, and why (every card of a board is in a line of either kind)."""

    card_type: str
    cells: tuple[Cell, ...]
    reason: str

    def __str__(self) -> str:
        return self.reason

    def to_json(self) -> dict[str, Any]:
        return {
            "card_type": self.card_type,
            "cells": [list(cell) for cell in self.cells],
            "reason": self.reason,
        }


@dataclass(frozen=True)
class FailedObjective:
    """An objective in play that the board does not meet, and why."""

    number: int
    vp: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"objective": self.number, "vp": self.vp, "reason": self.reason}


class ScorePad:
    """The score pad of one terrarium (or of the solo Master).

    The columns (from the rules data, in pad order) sum to ``total``; the groups sum to it too.
    A column reads as an attribute: ``pad.lizards``.
    """

    def __init__(
        self, columns: Sequence[str | tuple[str, str]], edition: Mapping[str, str] | None = None
    ):
        pairs = [(c, c) if isinstance(c, str) else (c[0], c[1]) for c in columns]
        self.columns: dict[str, int] = {key: 0 for key, _ in pairs}
        #: column key -> heading, from the rules data's ``[pad.columns]``
        self.headings: dict[str, str] = dict(pairs)
        self.total = 0
        self.groups: list[ScoringGroup] = []
        self.non_scoring: list[NotScoring] = []
        self.pending: list[str] = []
        self.warnings: list[str] = []
        self.three_card_sets = 0
        self.dry_land_cards = 0
        self.failed: list[FailedObjective] = []
        self.edition: dict[str, str] = dict(edition or {})

    def __getattr__(self, name: str) -> int:
        columns = self.__dict__.get("columns")
        if columns is not None and name in columns:
            return columns[name]
        raise AttributeError(name)

    def add(self, group: ScoringGroup) -> None:
        """Add a scoring line and its VP to its column and the total."""
        if group.column not in self.columns:
            raise ValueError(f"no score pad column {group.column!r} (columns: {self.columns})")
        self.groups.append(group)
        self.columns[group.column] += group.vp
        self.total += group.vp

    @property
    def assumed_vp(self) -> int:
        """VP of the lines that rest on at least one assumed value."""
        return sum(g.vp for g in self.groups if g.assumed)

    @property
    def objectives_met(self) -> list[int]:
        return [g.objective for g in self.groups if g.objective is not None and g.tier == "met"]

    @property
    def objectives_failed(self) -> list[int]:
        return [f.number for f in self.failed]

    def column_totals(self) -> dict[str, int]:
        return dict(self.columns)

    def to_json(self) -> dict[str, Any]:
        """The design.md keys (columns, total, groups, pending) plus the extras."""
        out: dict[str, Any] = self.column_totals()
        out["total"] = self.total
        out["assumed_vp"] = self.assumed_vp
        out["groups"] = [group.to_json() for group in self.groups]
        out["pending"] = list(self.pending)
        out["non_scoring"] = [line.to_json() for line in self.non_scoring]
        out["warnings"] = list(self.warnings)
        out["three_card_sets"] = self.three_card_sets
        out["dry_land_cards"] = self.dry_land_cards
        out["objectives_met"] = self.objectives_met
        out["objectives_failed"] = self.objectives_failed
        out["objectives_failed_reasons"] = [f.to_json() for f in self.failed]
        if self.edition:
            out["edition"] = dict(self.edition)
        return out
