"""The 19 objective cards: one board that meets each and one that just fails it."""

from __future__ import annotations

import pytest
from scoring_fixtures import make_board

from scoring.reptile_tank.engine import score_board
from scoring.reptile_tank.objectives import ObjectiveError, parse_objectives

E = ".   .   .   .   ."
CASES = {
    # number: (board that meets it, board that fails it)
    1: (f"W . . . .\n{E}\n{E}\n{E}", f"W W W . .\n{E}\n{E}\n{E}"),
    2: (f"R . . . W\n{E}\n{E}\nBTS . . . CS", f"R . . . R\n{E}\n{E}\nBTS . . . CS"),
    3: (
        "BTS BTS R TTB .\nW CS TTB . .\n. CS . . .\n. . . . .",
        "BTS BTS R . .\nW CS TTB . .\n. CS . . .\n. . . . .",
    ),
    4: (f"CS CS CS RB RB\nRB {E[4:]}\n{E}\n{E}", f"CS CS CS RB RB\n{E}\n{E}\n{E}"),
    5: (f"BTS BA NDG BA .\n{E}\n{E}\n{E}", f"BTS BA NDG . .\n{E}\n{E}\n{E}"),
    6: (f"CS RS RB CS .\n{E}\n{E}\n{E}", f"CS RS RB DR .\n{E}\n{E}\n{E}"),
    7: (f"TTB CBT RFT CBT .\n{E}\n{E}\n{E}", f"TTB CBT RFT . .\n{E}\n{E}\n{E}"),
    8: (
        "CS . . . .\nTTB . . . .\nBA . . . .\nCS . . . .",
        "CS . . . .\nTTB . . . .\nDR . . . .\nCS . . . .",
    ),
    9: (
        "R . . . .\nHL . . . .\nSS . . . .\nGP . . . .",
        "R . . . .\nHL . . . .\nW . . . .\nGP . . . .",
    ),
    10: (f"R HL W SS .\n{E}\n{E}\n{E}", f"R HL W R .\n{E}\n{E}\n{E}"),
    11: (f". . . R W\n. . . HL W\n{E}\n{E}", f". . . R W\n. . . HL BTS\n{E}\n{E}"),
    12: (
        ". R . . .\n. . W . .\n. . . HL .\n. . . . SS",
        ". R . . .\n. . W . .\n. . . HL .\n. . . SS .",
    ),
    13: (
        ". . . . R\n. . . W .\n. . HL . .\n. SS . . .",
        ". . . . R\n. . . W .\n. . HL . .\nSS . . . .",
    ),
    14: (
        ". . CS . .\n. . TTB . .\n. . BA . .\n. . DR . .",
        ". . CS . .\n. . TTB . .\n. . CS . .\n. . DR . .",
    ),
    15: (f"{E}\nCS TTB BA DR RB\n{E}\n{E}", f"{E}\nCS TTB BA DR CS\n{E}\n{E}"),
    16: (f"R . . . .\n{E}\n{E}\n. . . . W", f"R . . . W\n{E}\n{E}\nHL . . . W"),
    17: (f"W . . . W\n. BTS . . .\n{E}\n{E}", f"W . . . W\n. BTS W . .\n{E}\n{E}"),
    18: (f". R W HL .\n{E}\n{E}\n{E}", f". R W HL .\n{E}\n{E}\n. . . . W"),
    19: (f"BTS . CS . .\nR W . . .\n{E}\n{E}", f"BTS . CS . R\nR W . . .\n{E}\n{E}"),
}


@pytest.mark.parametrize("number", sorted(CASES))
def test_objective_met_and_failed(rules, number):
    met_text, failed_text = CASES[number]
    met = score_board(make_board(met_text), rules, objectives=[number])
    failed = score_board(make_board(failed_text), rules, objectives=[number])
    vp = rules.objectives[number].vp
    assert (met.objectives, met.objectives_met) == (vp, [number])
    assert (failed.objectives, failed.objectives_failed) == (0, [number])
    (group,) = [g for g in met.groups if g.column == "objectives"]
    assert group.reason.startswith(f"Objective {number} (")
    assert group.reason.endswith(f": {vp} VP")
    (why,) = failed.failed
    assert why.reason.startswith(f"Objective {number} (") and "not met" in why.reason


def test_all_nineteen_objectives_have_a_case(rules):
    assert sorted(CASES) == sorted(rules.objectives)


def test_parse_objectives(rules):
    assert parse_objectives("3, 11", rules) == (3, 11)
    assert parse_objectives(None, rules) == ()
    with pytest.raises(ObjectiveError, match="unknown objective 20"):
        parse_objectives("3,20", rules)
    with pytest.raises(ObjectiveError, match="numbers like"):
        parse_objectives("three", rules)
    with pytest.raises(ObjectiveError, match="twice"):
        parse_objectives([3, 3], rules)
