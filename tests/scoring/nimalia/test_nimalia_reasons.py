"""Every line of score has a reason naming its squares (1-based) and the lines sum to the goal."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from test_nimalia_oracle import random_rows

from scoring.nimalia.engine import score_goals, score_relative
from scoring.nimalia.reserve import reserve_from_document
from scoring.nimalia.rules import load_rules

RULES = load_rules()
ALL = list(RULES.goals)


def named_cells(reason: str) -> set[tuple[int, int]]:
    """0-based cells a reason names: "row R, column C" and "(R,C)"."""
    cells = {(int(r) - 1, int(c) - 1) for r, c in re.findall(r"row (\d), column (\d)", reason)}
    cells |= {(int(r) - 1, int(c) - 1) for r, c in re.findall(r"\((\d),(\d)\)", reason)}
    return cells


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_every_line_names_its_squares_and_lines_sum_to_the_goal(seed):
    rows = random_rows(random.Random(seed))
    reserve = reserve_from_document({"squares": rows})
    scores, pending = score_goals(reserve, ALL, RULES)
    assert sorted(pending) == [16, 18, 20, 21]
    for score in scores:
        assert score.points == sum(line.points for line in score.lines)
        assert score.reason
        for line in score.lines:
            assert line.reason
            named = named_cells(line.reason)
            assert named <= set(line.squares), (score.goal, line.reason, line.squares)
            for r, c in line.squares:
                assert reserve.at(r, c) is not None, (score.goal, line)
            if line.points and not (score.goal == 11 or (score.goal == 13 and not line.squares)):
                # goal 11 names a row; goal 13 with no giraffe has no square to name
                assert named, (score.goal, line.reason)
    for goal in pending:
        (result,) = score_relative([reserve], goal, RULES)
        assert result.points == sum(line.points for line in result.lines)
        assert all(line.reason for line in result.lines)
