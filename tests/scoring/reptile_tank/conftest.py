"""Shared fixtures of the scoring tests: the default rules."""

from __future__ import annotations

import pytest

from scoring.reptile_tank.rules import Rules, load_rules

_RULES = load_rules()


@pytest.fixture(scope="session")
def rules() -> Rules:
    return _RULES
