"""The one registry of condition kinds and objective kinds, with the parameters each declares.

The rules loader validates a card or an objective against its kind's declaration here; the
engine (``FINDERS``), the solo Master (``scoring.reptile_tank.solo``) and the objective checkers
(``scoring.reptile_tank.objectives.CHECKERS``) implement exactly the kinds declared here (each module checks
that at import), and read the parameters the declaration names. Adding a kind means one entry
here and one function there.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ConditionKind:
    """How a card type scores on a board.

    Attributes
    ----------
    card_keys, optional_card_keys : tuple of str
        Card-level parameters the kind needs / may have.
    tier_keys, optional_tier_keys : tuple of str
        Tier parameters the kind needs / may have (``vp`` and provenances always).
    tiers : tuple of str
        Tiers that must exist (``exact_tiers``: and no others).
    at_least : bool
        ``count`` is "at least" (else exactly, for shapes).
    sets : bool
        Groups of 3+ cards count as "3-card sets" for the ranking's tie-break.
    noun : str
        What a tier's requirement counts, for sentences built from the fields.
    """

    name: str
    card_keys: tuple[str, ...] = ()
    optional_card_keys: tuple[str, ...] = ()
    tier_keys: tuple[str, ...] = ("count",)
    optional_tier_keys: tuple[str, ...] = ()
    tiers: tuple[str, ...] = ("basic",)
    exact_tiers: bool = False
    at_least: bool = True
    sets: bool = False


CONDITIONS: dict[str, ConditionKind] = {
    kind.name: kind
    for kind in (
        ConditionKind(
            "shape", tier_keys=("count", "shape", "min_env_kinds"), at_least=False, sets=True
        ),
        ConditionKind("enclosure", sets=True),
        ConditionKind("area", card_keys=("mask",), sets=True),
        ConditionKind("column", sets=True),
        ConditionKind("row", sets=True),
        ConditionKind(
            "adjacency",
            card_keys=("measure",),
            optional_card_keys=("per_unit", "categories"),
            tier_keys=("min",),
            optional_tier_keys=("max_units",),
        ),
        ConditionKind("quantity", tiers=("basic", "advanced"), exact_tiers=True),
        ConditionKind("water_area", tiers=()),
    )
}

#: Adjacency measures (``measure`` of an adjacency card).
ADJACENCY_MEASURES = ("env_kinds_edge", "env_diagonal", "animals_edge", "animal_categories_edge")

#: Card groups an objective may count (``what``): a category, or these kinds.
OBJECTIVE_GROUP_KINDS = ("environment", "animal")


@dataclass(frozen=True)
class ObjectiveKind:
    """An objective checker and the parameters it reads (types in :data:`OBJECTIVE_PARAMS`)."""

    name: str
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()

    @property
    def params(self) -> tuple[str, ...]:
        return self.required + self.optional


#: parameter -> its type: "count" (a non-negative integer), "mask" (a mask name), "what" (a card
#: group or a list of them), "categories" (a list of categories), or a tuple of allowed words.
OBJECTIVE_PARAMS: dict[str, object] = {
    "what": "what",
    "mask": "mask",
    "min": "count",
    "max": "count",
    "types": "count",
    "count": "count",
    "line": ("row", "column"),
    "direction": ("down_right", "up_right"),
    "categories": "categories",
}

OBJECTIVES: dict[str, ObjectiveKind] = {
    kind.name: kind
    for kind in (
        ObjectiveKind("count", required=("what",), optional=("mask", "min", "max")),
        ObjectiveKind("corners_distinct"),
        ObjectiveKind("category_groups", required=("categories",)),
        ObjectiveKind("animal_types_with_count", required=("types", "count")),
        ObjectiveKind("line_all", required=("line", "what")),
        ObjectiveKind("environment_kinds", required=("min",)),
        ObjectiveKind("environment_square"),
        ObjectiveKind("environment_diagonal", required=("direction",)),
        ObjectiveKind("line_distinct_animals", required=("line",)),
    )
}
