"""Fuzz the board, game and solo readers of ``score-grid``/``score-game``/``solo``.

Only the documented one-line ``ValueError`` subclasses (BoardError, InputFileError, GameError,
SoloError, ObjectiveError) may come out; never TypeError, AttributeError, IndexError, KeyError,
RecursionError or a bare ValueError.
"""

from __future__ import annotations

import pytest
from hypothesis import given

from scoring.reptile_tank.rules import load_rules
from tests.hostile.fuzzing import FAST, SLOW, json_values, near_valid, run_document

RULES = load_rules()
KINDS = ("grid", "game", "solo")


def check(kind: str, obj) -> None:
    """Run the command's pipeline; a refusal must be a project ValueError with one line."""
    try:
        text = run_document(kind, obj, RULES)
    except ValueError as error:
        assert type(error) is not ValueError, f"bare ValueError: {error}"
        assert type(error).__module__.split(".")[0] in ("scoring", "reptile_tank"), type(error)
        message = str(error)
        assert message and "\n" not in message, repr(message)
        return
    assert "Total" in text or "Winner" in text


@pytest.mark.parametrize("kind", KINDS)
def test_valid_documents_score(kind):
    run_document(kind, __import__("tests.hostile.fuzzing").hostile.fuzzing.VALID[kind], RULES)


@pytest.mark.parametrize("kind", KINDS)
@FAST
@given(obj=json_values)
def test_arbitrary_json_is_refused_cleanly(kind, obj):
    check(kind, obj)


@pytest.mark.parametrize("kind", KINDS)
@FAST
@given(data=__import__("hypothesis").strategies.data())
def test_near_valid_documents_are_scored_or_refused_cleanly(kind, data):
    check(kind, data.draw(near_valid(kind)))


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
@SLOW
@given(data=__import__("hypothesis").strategies.data())
def test_near_valid_documents_long_run(kind, data):
    check(kind, data.draw(near_valid(kind)))
    check(kind, data.draw(json_values))
