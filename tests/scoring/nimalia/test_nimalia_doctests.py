"""The docstring examples of the Nimalia modules run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "name",
    [
        "scoring.nimalia.cards",
        "scoring.nimalia.rules",
        "scoring.nimalia.reserve",
        "scoring.nimalia.engine",
        "scoring.nimalia.api",
        "games",
    ],
)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
