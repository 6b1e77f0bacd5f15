"""Sentences built from rule fields (never stored prose): tier conditions, counts, positions.

Everything a player reads about a value is generated from the value itself, so a house rule
that changes a VP or a count changes every sentence that mentions it.

Examples
--------
>>> plural(1, "Environment card")
'1 Environment card'
>>> plural(3, "Environment kind")
'3 Environment kinds'
>>> shape_phrase(((0, 0), (1, 0), (1, 1)))
'forming an L'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``n`` and the noun, singular for 1."""
    return f"{n} {noun if n == 1 else (many or noun + 's')}"


def _contiguous(values: Sequence[int]) -> bool:
    ordered = sorted(values)
    return all(b - a == 1 for a, b in zip(ordered, ordered[1:], strict=False))


def shape_phrase(shape: Sequence[tuple[int, int]]) -> str:
    """How a shape's cells lie, in words (any rotation or reflection)."""
    rows = [r for r, _ in shape]
    cols = [c for _, c in shape]
    if len(shape) == 1:
        return "alone"
    if (len(set(rows)) == 1 and _contiguous(cols)) or (len(set(cols)) == 1 and _contiguous(rows)):
        return "in a straight line"
    same_diagonal = len({r - c for r, c in shape}) == 1 or len({r + c for r, c in shape}) == 1
    if same_diagonal and _contiguous(rows):
        return "diagonally adjacent" if len(shape) == 2 else "on one diagonal line"
    if len(shape) == 3 and max(rows) - min(rows) == 1 and max(cols) - min(cols) == 1:
        return "forming an L"
    cells = ", ".join(f"[{r}, {c}]" for r, c in sorted(shape))
    return f"in the shape {cells}"


def measure_noun(measure: str | None, categories: Sequence[str] = (), names=None) -> str:
    """What an adjacency measure counts, as a plural noun phrase."""
    names = names or {}
    if measure == "env_kinds_edge":
        return "different Environment kinds adjacent by edge"
    if measure == "env_diagonal":
        return "Environment cards diagonally adjacent"
    if measure == "animals_edge":
        return "Animal cards adjacent by edge"
    if measure == "animal_categories_edge":
        if not categories:
            return "different Animal categories adjacent by edge"
        listed = ", ".join(names.get(c, c) for c in categories)
        return f"different Animal categories among {listed} adjacent by edge"
    return str(measure)


def singular(noun_phrase: str) -> str:
    """The measure phrases of :func:`measure_noun` for one item."""
    return (
        noun_phrase.replace("cards ", "card ")
        .replace("kinds ", "kind ")
        .replace("categories ", "category ")
    )


def tier_sentence(
    rule: Any, tier: Any, *, largest: bool = False, category_names: Mapping[str, str] | None = None
) -> str:
    """The condition and VP of one tier, from its fields: ``"3 Blue-Tongued Skink cards in a
    straight line with at least 2 different Environment kinds adjacent: 13 VP"``."""
    name, vp = rule.name, tier.vp
    condition = rule.condition
    if condition == "shape":
        kinds = plural(tier.min_env_kinds, "different Environment kind")
        return (
            f"{plural(tier.count, f'{name} card')} {shape_phrase(tier.shape)} with at least "
            f"{kinds} adjacent: {vp} VP"
        )
    if condition == "enclosure":
        return (
            f"at least {plural(tier.count, f'{name} card')} adjacent to the same Environment "
            f"card: {vp} VP"
        )
    if condition == "area":
        return f"at least {plural(tier.count, f'{name} card')} in the marked cells: {vp} VP"
    if condition in ("column", "row"):
        return f"at least {plural(tier.count, f'{name} card')} in one {condition}: {vp} VP"
    if condition == "adjacency":
        noun = measure_noun(rule.measure, rule.categories, category_names)
        if rule.per_unit:
            cap = f", at most {tier.max_units}" if tier.max_units is not None else ""
            return f"{vp} VP per {singular(noun)} (at least {tier.min}{cap})"
        return f"at least {tier.min} {singular(noun) if tier.min == 1 else noun}: {vp} VP"
    if condition == "quantity":
        if tier.name == "basic":
            return f"exactly {plural(tier.count, f'{name} card')} in the terrarium: {vp} VP"
        return (
            f"the most {name} cards of all players (ties all score, at least {tier.count}): "
            f"{vp} VP instead"
        )
    if condition == "water_area":
        size = f"{tier.count} or more cards" if largest else plural(tier.count, "card")
        return f"a Water area of {size}: {vp} VP"
    return f"{tier.name}: {vp} VP"
