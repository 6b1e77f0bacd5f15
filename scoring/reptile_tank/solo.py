"""Solo play: the player's pad against the Terrarium Master's pad from his card counts.

The Master has no grid. His animals meet a condition whenever he holds enough cards of their
type (groups chosen to maximise VP); his Environments pair up (equal pairs score their advanced
VP, mixed pairs the lowest — or, at ``very_hard``, highest — VP printed on either card); every
card left over flips to Water and forms one area. The values come from ``[solo]`` in the rules
data; the pairing is passed in (as drawn at the table) or proposed here, never random.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from scoring.reptile_tank.board import Board
from scoring.reptile_tank.cards import CARD_IDS
from scoring.reptile_tank.describe import plural
from scoring.reptile_tank.engine import THREE_CARD_SET_CONDITIONS, Variant, rule_uses, score_board
from scoring.reptile_tank.kinds import CONDITIONS
from scoring.reptile_tank.objectives import objective_uses
from scoring.reptile_tank.pad import ScorePad, ScoringGroup
from scoring.reptile_tank.rules import (
    SOLO_ENV_KINDS,
    CardRule,
    Rules,
    SoloLevel,
    Tier,
    did_you_mean,
)

#: Most cards the Master may hold: he takes 20 cards in a solo game.
MAX_MASTER_CARDS = 20


class SoloError(ValueError):
    """Bad Master card counts, pairs or level."""


@dataclass
class SoloResult:
    """Both pads and how the Master's cards were grouped."""

    player_name: str
    player: ScorePad
    master: ScorePad
    level: str
    master_flipped: list[str] = field(default_factory=list)
    master_pairs: list[tuple[str, str]] = field(default_factory=list)
    pairs_proposed: bool = False
    #: card id -> printed name, for the pairs and flipped cards in words
    card_names: dict[str, str] = field(default_factory=dict)

    @property
    def winner(self) -> str:
        if self.player.total == self.master.total:
            return "tie"
        return "player" if self.player.total > self.master.total else "master"

    def to_json(self) -> dict[str, Any]:
        return {
            "player": {"name": self.player_name, "pad": self.player.to_json()},
            "master": {
                "pad": self.master.to_json(),
                "flipped_to_water": list(self.master_flipped),
                "pairs": [list(p) for p in self.master_pairs],
                "pairs_proposed": self.pairs_proposed,
            },
            "level": self.level,
            "winner": self.winner,
        }


def _validate_counts(master_cards: Mapping[str, int], rules: Rules) -> dict[str, int]:
    if not isinstance(master_cards, Mapping):
        raise SoloError("the Master's cards must be an object of card id -> count")
    counts = {}
    for card_id, n in master_cards.items():
        if card_id not in CARD_IDS:
            raise SoloError(
                f"master cards: unknown card id {card_id!r}{did_you_mean(card_id, CARD_IDS)}"
            )
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise SoloError(f"master cards: {card_id} count must be a non-negative integer")
        if n > rules.cards[card_id].copies:
            # The deck bounds the count; without it a huge count makes the grouping search
            # recurse or loop without bound.
            raise SoloError(
                f"master cards: {card_id} count {n} is more than the deck's "
                f"{rules.cards[card_id].copies} copies"
            )
        if n:
            counts[card_id] = n
    total = sum(counts.values())
    if total > MAX_MASTER_CARDS:
        raise SoloError(f"master cards: {total} cards, the Master holds at most {MAX_MASTER_CARDS}")
    return counts


def master_groups(rule: CardRule, n: int) -> tuple[int, list[tuple[int, Tier]]]:
    """Best grouping of ``n`` of the Master's cards of one type, ignoring Environments.

    Returns
    -------
    vp : int
    groups : list of (size, tier)
        Shapes take exactly their tier's count; open-ended tiers ("at least") take any number
        from their count up; an area condition is met at most once. Among equal VP, the
        grouping that keeps more cards (fewer flipped to Water) wins, then the one with more
        3-card groups (the ranking's tie-break).
    """
    tiers = [t for t in rule.tiers if t.count is not None]

    def tier_for(size: int) -> Tier | None:
        if CONDITIONS[rule.condition].at_least:
            met = [t for t in tiers if t.count <= size]
        else:
            met = [t for t in tiers if t.count == size]
        return max(met, key=lambda t: t.vp) if met else None

    if rule.condition == "area":
        tier = tier_for(n)
        return (tier.vp, [(n, tier)]) if tier else (0, [])
    sizes = sorted({t.count for t in tiers})
    if CONDITIONS[rule.condition].at_least:
        sizes = list(range(min(sizes), n + 1)) if sizes else []

    @cache
    def best(k: int) -> tuple[int, int, int, tuple[tuple[int, str], ...]]:
        """(vp, cards kept, 3-card groups, groups) of the best grouping of k cards."""
        if k <= 0:
            return (0, 0, 0, ())
        choice = best(k - 1)  # one card left out
        for size in sizes:
            tier = tier_for(size)
            if size <= k and tier is not None:
                vp, used, big, groups = best(k - size)
                option = (
                    vp + tier.vp,
                    used + size,
                    big + (size >= 3),
                    groups + ((size, tier.name),),
                )
                if option[:3] > choice[:3]:
                    choice = option
        return choice

    vp, _, _, groups = best(n)
    return vp, [(size, rule.tier(name)) for size, name in groups]


def _pair_value(rules: Rules, a: str, b: str, how: str) -> tuple[int, str]:
    """The lowest/highest VP printed on either card, and the card it was printed on."""
    values = [(vp, cid) for cid in (a, b) for vp in rules.cards[cid].printed_vps()]
    return min(values) if how == "lowest" else max(values)


def _take_pairs(
    pool: list[str], pairs: Sequence[Sequence[str]] | None, what: str
) -> tuple[list[tuple[str, str]], list[str], bool]:
    """Pair the cards of ``pool``: the given pairs first, then a proposal for the rest.

    Returns (pairs, single cards left, whether any pair was proposed).
    """
    left = list(pool)
    out: list[tuple[str, str]] = []
    for pair in pairs or ():
        a, b = pair
        if a in left and b in left and (a != b or left.count(a) >= 2):
            left.remove(a)
            left.remove(b)
            out.append((a, b))
    proposed = False
    while len(left) >= 2:  # propose: data order, neighbours paired
        out.append((left.pop(0), left.pop(0)))
        proposed = True
    return out, left, proposed


def _check_pairs(pairs: Any, counts: Mapping[str, int]) -> list[tuple[str, str]]:
    if pairs is None:
        return []
    if not isinstance(pairs, Sequence) or isinstance(pairs, str):
        raise SoloError("master pairs must be a list of [card id, card id]")
    out = []
    for pair in pairs:
        if (
            not isinstance(pair, Sequence)
            or isinstance(pair, str)
            or len(pair) != 2
            or not all(isinstance(x, str) for x in pair)
        ):
            raise SoloError(f"master pairs: {pair!r} is not a pair of card ids")
        for card_id in pair:
            if card_id not in CARD_IDS:
                raise SoloError(f"master pairs: unknown card id {card_id!r}")
            if card_id not in counts:
                raise SoloError(f"master pairs: the Master holds no {card_id}")
        out.append((pair[0], pair[1]))
    return out


def _solo_group(card_type: str, column: str, tier: str, vp: int, reason: str, uses) -> ScoringGroup:
    return ScoringGroup(
        card_type=card_type,
        column=column,
        cells=(),
        tier=tier,
        vp=vp,
        reason=f"{reason}: {vp} VP",
        condition="solo",
        uses=tuple(uses),
    )


def _printed_uses(rules: Rules, card_ids) -> list[tuple[str, str]]:
    """A pair's value is the lowest/highest of every VP printed on its cards: it uses them all."""
    return [
        (f"cards.{cid}.tiers.{t.name}.vp", t.provenance)
        for cid in dict.fromkeys(card_ids)
        for t in rules.cards[cid].tiers
    ]


@dataclass
class _Master:
    """What the Master's scoring works on: the rules, his counts, the pad being filled."""

    rules: Rules
    counts: dict[str, int]
    level: SoloLevel
    player_roaches: int
    pad: ScorePad
    leftovers: list[str] = field(default_factory=list)
    flipped: list[str] = field(default_factory=list)

    @property
    def solo_use(self) -> tuple[str, str]:
        return ("solo", self.rules.solo.provenance)


def _master_quantity(m: _Master, rule: CardRule, n: int) -> None:
    """The Master's roaches: VP per card, plus a bonus for more roaches than the player."""
    q = m.rules.solo.quantity
    uses = [m.solo_use, ("solo.quantity", q.provenance)]
    column = m.rules.column_of(rule.id)
    why = f"{rule.name}: {plural(n, 'card')} x {q.vp_per_card} VP per card"
    m.pad.add(_solo_group(rule.id, column, "per_card", n * q.vp_per_card, why, uses))
    if n > m.player_roaches:
        why = f"{rule.name}: more than the player's {m.player_roaches} ({n})"
        m.pad.add(_solo_group(rule.id, column, "most", q.more_than_player_vp, why, uses))


def _master_env_kinds(m: _Master, reading: str) -> list[str]:
    """The Environment kinds the Master's anoles count under a reading of ``env_kinds``."""
    kinds = [cid for cid in m.counts if m.rules.cards[cid].category == "dry_land"]
    kinds = sorted(m.rules.name_of(cid) for cid in kinds)
    if reading == "with_water" and m.flipped:
        kinds.append(m.rules.name_of("water"))
    return kinds


def _master_adjacency(m: _Master, rule: CardRule, n: int) -> None:
    """The Master's anoles: VP per Environment kind he holds, up to the maximum."""
    a = m.rules.solo.adjacency
    kinds = _master_env_kinds(m, a.env_kinds)
    counted = min(len(kinds), a.max_env_kinds)
    # The reading is an assumption only where the other reading would count differently.
    other = {k for k in SOLO_ENV_KINDS if k != a.env_kinds}
    matters = any(min(len(_master_env_kinds(m, k)), a.max_env_kinds) != counted for k in other)
    if counted == 0:
        m.leftovers += [rule.id] * n
        return
    reading = (
        "dry-land kinds held, before the flip"
        if a.env_kinds == "dry_land_held"
        else "kinds after the flip, Water included"
    )
    cap = f", at most {a.max_env_kinds}" if len(kinds) > a.max_env_kinds else ""
    why = (
        f"{rule.name}: {plural(n, 'card')} x {plural(counted, 'Environment kind')} "
        f"({', '.join(kinds)}; {reading}{cap}) x {a.vp_per_env_kind} VP"
    )
    uses = [m.solo_use, ("solo.adjacency", a.provenance)]
    if matters:
        uses.append(("solo.adjacency.env_kinds", a.env_kinds_provenance))
    vp = n * counted * a.vp_per_env_kind
    m.pad.add(_solo_group(rule.id, m.rules.column_of(rule.id), "solo", vp, why, uses))


def _master_sets(m: _Master, rule: CardRule, n: int) -> None:
    """Every other condition kind: tiers met by card count alone (no Environments needed)."""
    _, groups = master_groups(rule, n)
    used = 0
    for size, tier in groups:
        used += size
        need = f"at least {tier.count}" if CONDITIONS[rule.condition].at_least else tier.count
        why = (
            f"{rule.name} ({tier.name}): {plural(size, 'card')} held, {need} needed "
            "(no grid, no Environments needed)"
        )
        uses = [m.solo_use, *rule_uses(m.rules, rule, tier)]
        m.pad.add(_solo_group(rule.id, m.rules.column_of(rule.id), tier.name, tier.vp, why, uses))
        if size >= 3 and rule.condition in THREE_CARD_SET_CONDITIONS:
            m.pad.three_card_sets += 1
    m.leftovers += [rule.id] * (n - used)


def _add_pairs(m: _Master, pairs, what: str, level_use: tuple[str, str]) -> None:
    """Mixed pairs: the lowest (or highest) VP printed on either card, in that card's column."""
    how = m.level.mixed_pair_vp
    for a, b in pairs:
        vp, on = _pair_value(m.rules, a, b, how)
        why = (
            f"{what} {m.rules.name_of(a)} + {m.rules.name_of(b)}: the {how} VP printed on "
            f"either card ({m.rules.name_of(on)})"
        )
        uses = [m.solo_use, level_use, *_printed_uses(m.rules, (a, b))]
        m.pad.add(_solo_group(f"{a}+{b}", m.rules.column_of(on), "pair", vp, why, uses))


#: condition kind -> how the Master scores his animals of that kind (default: by card count)
MASTER_SCORERS = {"quantity": _master_quantity, "adjacency": _master_adjacency}


def score_master(
    master_cards: Mapping[str, int],
    rules: Rules,
    *,
    player_roaches: int = 0,
    pairs: Sequence[Sequence[str]] | None = None,
    level: str = "normal",
    failed_objectives: Iterable[int] = (),
) -> tuple[ScorePad, list[str], list[tuple[str, str]], bool]:
    """The Terrarium Master's pad from his card counts.

    Returns (pad, cards flipped to water, pairs used, whether pairs were proposed).
    """
    if level not in rules.solo.levels:
        raise SoloError(f"unknown level {level!r} (expected {', '.join(rules.solo.levels)})")
    counts = _validate_counts(master_cards, rules)
    given = _check_pairs(pairs, counts)
    how = rules.solo.levels[level]
    m = _Master(rules, counts, how, player_roaches, ScorePad(rules.pad_columns, rules.edition))
    level_use = (f"solo.level_rules.{level}", how.provenance)

    # Animals scored by count first; those whose score depends on what flips (anoles) last.
    animals = [(cid, r) for cid, r in rules.cards.items() if r.is_animal and counts.get(cid)]
    late = [(cid, r) for cid, r in animals if r.condition == "adjacency"]
    for card_id, rule in [a for a in animals if a not in late]:
        MASTER_SCORERS.get(rule.condition, _master_sets)(m, rule, counts[card_id])

    # Environments: equal pairs score their advanced (hardest) tier, the rest pair up mixed
    singles: list[str] = []
    for card_id, rule in rules.cards.items():
        n = counts.get(card_id, 0)
        if not n or rule.is_animal:
            continue
        top = rule.tiers[-1]
        for _ in range(n // 2):
            why = f"{rule.name}: a pair of the same type scores its {top.name} VP"
            uses = [m.solo_use, (f"cards.{card_id}.tiers.{top.name}.vp", top.provenance)]
            m.pad.add(_solo_group(card_id, rules.column_of(card_id), top.name, top.vp, why, uses))
        singles += [card_id] * (n % 2)
    env_pairs, env_left, proposed = _take_pairs(singles, given, "Environment")
    _add_pairs(m, env_pairs, "mixed pair", level_use)
    m.flipped += env_left
    m.pad.dry_land_cards = sum(counts[c] for c in counts if rules.cards[c].category == "dry_land")

    if how.animal_leftovers == "water":
        m.flipped += m.leftovers
        m.leftovers = []
    for card_id, rule in late:
        MASTER_SCORERS.get(rule.condition, _master_sets)(m, rule, counts[card_id])

    pairs_used = list(env_pairs)
    if how.animal_leftovers == "pairs":
        animal_pairs, animal_left, animal_proposed = _take_pairs(m.leftovers, given, "Animal")
        proposed = proposed or animal_proposed
        _add_pairs(m, animal_pairs, "leftover pair", level_use)
        pairs_used += animal_pairs
        m.flipped += animal_left
    else:
        m.flipped += m.leftovers
    unused = list(given)
    for pair in pairs_used:
        for candidate in (pair, pair[::-1]):
            if candidate in unused:
                unused.remove(candidate)
                break
    if unused:
        a, b = unused[0]
        raise SoloError(f"master pairs: {a} + {b} is not a pair of the Master's unpaired cards")

    if m.flipped:
        water = rules.cards["water"]
        tier = max(
            (t for t in water.tiers if t.count <= len(m.flipped)), key=lambda t: (t.vp, t.count)
        )
        vp = min(tier.vp, rules.solo.water_max_vp)
        names = ", ".join(rules.name_of(cid) for cid in m.flipped)
        capped = f", at most {rules.solo.water_max_vp} VP" if vp < tier.vp else ""
        why = f"Water: {plural(len(m.flipped), 'flipped card')} form one area ({names}){capped}"
        uses = [m.solo_use, ("solo.water", rules.solo.water_provenance)]
        uses += rule_uses(rules, water, tier)
        m.pad.add(_solo_group("water", "water", tier.name, vp, why, uses))

    for number in failed_objectives:
        objective = rules.objectives[number]
        why = f"Objective {number} ({objective.text}), failed by the player, scores for the Master"
        group = _solo_group(
            f"objective_{number}",
            "objectives",
            "failed",
            objective.vp,
            why,
            [m.solo_use, *objective_uses(rules, objective)],
        )
        m.pad.add(replace(group, objective=number))
    order = list(rules.column_keys)
    m.pad.groups.sort(key=lambda g: order.index(g.column))  # pad order, stable
    if proposed:
        m.pad.pending.append(
            "the Master's mixed pairs were proposed by the app; enter the pairs as drawn"
        )
    return m.pad, m.flipped, pairs_used, proposed


def score_solo(
    board: Board,
    master_cards: Mapping[str, int],
    rules: Rules,
    *,
    pairs: Sequence[Sequence[str]] | None = None,
    level: str = "normal",
    objectives: Iterable[int] = (),
    player_name: str = "player",
    variant: Variant | None = None,
) -> SoloResult:
    """Score a solo game: the player's board and the Terrarium Master's card counts.

    Parameters
    ----------
    board : Board
    master_cards : mapping of card id -> count
    rules : Rules
    pairs : sequence of (card id, card id), optional
        The mixed pairs as drawn at the table; missing ones are proposed (and reported).
    level : {"normal", "hard", "very_hard"}
    objectives : iterable of int
        The (three) objective cards; those the player fails score for the Master.
    player_name : str
    variant : Variant, optional
        Star cards removed or not (solo: optional, default kept).

    Returns
    -------
    SoloResult
        The player's roach majority is judged against the Master (ties count for the player,
        as in the multi-player rule); the Master's extra 12 needs strictly more roaches.
    """
    counts = _validate_counts(master_cards, rules)
    variant = variant or Variant(players=1)
    majority_card = rules.majority_card
    player_roaches = board.count(majority_card) if majority_card else 0
    master_roaches = counts.get(majority_card, 0)
    majority = player_roaches >= 1 and player_roaches >= master_roaches
    player = score_board(
        board, rules, objectives=objectives, roach_majority=majority, variant=variant
    )
    master, flipped, used_pairs, proposed = score_master(
        counts,
        rules,
        player_roaches=player_roaches,
        pairs=pairs,
        level=level,
        failed_objectives=player.objectives_failed,
    )
    for card_id, n in counts.items():
        total = n + board.count(card_id)
        if total > rules.cards[card_id].copies:
            master.warnings.append(
                f"{total} {rules.name_of(card_id)} cards between the player and the Master, "
                f"but the deck holds only {rules.cards[card_id].copies}"
            )
    if variant.stars_removed:
        for card_id in counts:
            if rules.cards[card_id].star:
                name = rules.name_of(card_id)
                master.warnings.append(f"{name} is a star card, removed in this game")
    return SoloResult(
        player_name=player_name,
        player=player,
        master=master,
        level=level,
        master_flipped=flipped,
        master_pairs=used_pairs,
        pairs_proposed=proposed,
        card_names={cid: rule.name for cid, rule in rules.cards.items()},
    )
