"""Fixtures of the app tests: a throw-away database and user folder per test."""

from __future__ import annotations

import pytest
from app_helpers import APP, no_errors
from streamlit.testing.v1 import AppTest


@pytest.fixture
def app_env(tmp_path, monkeypatch):
    """Point the app at a temporary SQLite database and user folder; return the DB URL."""
    url = f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"
    monkeypatch.setenv("REPTILE_TANK_DB_URL", url)
    monkeypatch.setenv("REPTILE_TANK_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("REPTILE_TANK_RULES", raising=False)
    monkeypatch.delenv("REPTILE_TANK_PACK", raising=False)
    return url


@pytest.fixture
def app(app_env):
    """The app after its first run (setup page)."""
    at = AppTest.from_file(APP, default_timeout=60).run()
    no_errors(at)
    return at
