"""The rules data against the reference's lists, and bad rules data refused by key."""

from __future__ import annotations

import copy
import random
import tomllib

import pytest

from scoring.nimalia.cards import RULES_PATH
from scoring.nimalia.engine import choose_goals
from scoring.nimalia.rules import PROVENANCES, RulesError, load_rules, rules_from_data

RAW = tomllib.loads(RULES_PATH.read_text())


def test_goal_colours_levels_and_backs_match_the_reference():
    rules = load_rules()
    by_colour = {c: sorted(g.id for g in rules.goals_of(c)) for c in rules.colour_order}
    assert by_colour == {
        "blue": [2, 3, 5, 9, 11],
        "green": [8, 12, 14, 17, 19, 22],
        "yellow": [1, 4, 6, 7, 10, 15],
        "red": [13, 16, 18, 20, 21],
    }
    levels = {g.id: g.level for g in rules.goals.values()}
    assert levels == {
        1: 2, 2: 3, 3: 1, 4: 1, 5: 1, 6: 2, 7: 2, 8: 1, 9: 3, 10: 3, 11: 2,
        12: 2, 13: 1, 14: 2, 15: 3, 16: 2, 17: 2, 18: 2, 19: 1, 20: 1, 21: 2, 22: 2,
    }  # fmt: skip
    for goal in rules.goals.values():
        assert goal.back == (goal.id + 1 if goal.id % 2 else goal.id - 1)
        assert goal.provenance in PROVENANCES and goal.text and goal.name
    assert sorted(g.id for g in rules.goals.values() if g.relative) == [16, 18, 20, 21]


def test_round_schedule_in_scoring_order():
    rules = load_rules()
    assert {n: r.colours for n, r in rules.rounds.items()} == {
        1: ("blue", "green"),
        2: ("green", "yellow"),
        3: ("blue", "red"),
        4: ("green", "yellow", "red"),
        5: ("blue", "red", "yellow"),
    }
    assert [r.passing for r in rules.rounds.values()] == ["left", "right", "left", "right", "left"]
    assert rules.floor_at_zero and rules.second_place_player_counts == (3, 4)
    assert rules.goal12 == "printed"
    assert load_rules(goal12="adaptation").goal12 == "adaptation"


class _Scripted:
    """A stand-in random generator that answers ``randrange`` from a script of choices."""

    def __init__(self, script):
        self.script = list(script)
        self.sizes = []

    def randrange(self, n):
        self.sizes.append(n)
        return self.script[len(self.sizes) - 1] if len(self.sizes) <= len(self.script) else 0


def test_every_path_of_the_goal_draw_is_legal_and_never_dead_ends():
    from scoring.nimalia.engine import check_goal_set

    rules = load_rules()
    for level, allowed in (("easy", {1, 2}), ("difficult", {2, 3}), ("random", {1, 2, 3})):
        results, stack = set(), [()]
        while stack:  # walk every sequence of choices the draw can make
            script = stack.pop()
            rng = _Scripted(script)
            goals = choose_goals(level, rng, rules)
            if len(script) < 4:
                stack.extend(script + (i,) for i in range(rng.sizes[len(script)]))
            else:
                assert check_goal_set(list(goals)) == goals
                assert {rules.goals[g].level for g in goals} <= allowed
                results.add(goals)
        if level == "random":
            assert len(results) == 592
    assert choose_goals("easy", random.Random(1)) == choose_goals("easy", random.Random(1))


def test_assumed_values_are_listed():
    assumed = load_rules().assumed_values()
    assert "goals.1" in assumed and "goals.2" in assumed and "totals.floor_at_zero" in assumed


def _broken(path, value):
    data = copy.deepcopy(RAW)
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("goals", "7", "points_each"), "four", "goals.7.points_each"),
        (("goals", "7", "land"), "X", "goals.7.land"),
        (("goals", "7", "kind"), "magic", "unknown goal kind"),
        (("goals", "7", "bonus"), 1, "unknown key 'bonus'"),
        (("goals", "7", "colour"), "purple", "goals.7.colour"),
        (("goals", "7", "back"), 9, "goals.7.back"),
        (("goals", "7", "provenance"), "rumour", "provenance"),
        (("goals", "13", "animal"), KeyError, "missing key 'animal'"),
        (("options", "goal12"), "both", "options.goal12"),
        (("totals", "floor_at_zero"), "yes", "totals.floor_at_zero"),
        (("tiebreak", "scope"), "nobody", "tiebreak.scope"),
    ],
)
def test_bad_rules_data_is_refused_naming_the_key(path, value, message):
    with pytest.raises(RulesError, match=message.replace("(", r"\(").replace(".", r"\.")):
        rules_from_data(_broken(path, value))


def test_a_goal_of_a_known_kind_is_a_data_change_only():
    data = copy.deepcopy(RAW)
    data["goals"]["7"]["points_each"] = 5
    data["goals"]["7"]["land"] = "W"
    rules = rules_from_data(data)
    from scoring.nimalia.engine import score_goal
    from scoring.nimalia.reserve import reserve_from_squares

    lake = reserve_from_squares([["W:cro", "W:fla"], ["W:fla", "W:cro"]])
    assert score_goal(lake, 7, rules).points == 5
