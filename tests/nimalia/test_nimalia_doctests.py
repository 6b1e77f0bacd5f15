"""The docstring examples of the Nimalia modules run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "name",
    [
        "nimalia.cards",
        "nimalia.rules",
        "nimalia.reserve",
        "nimalia.engine",
        "nimalia.service",
        "games",
    ],
)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
