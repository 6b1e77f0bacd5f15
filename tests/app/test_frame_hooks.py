"""The app's frame (ui.persist, ui.state) is game-blind: it runs every registered game's
:class:`games.AppSession` hooks, and a game without hooks is left alone (issue 30)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

import games
from ui import persist, state

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "games"))
import toy_game  # noqa: E402


def _hooks(calls: list, *, stored: bool = True, rerun: bool = False) -> games.AppSession:
    return games.AppSession(
        init=lambda s: (calls.append("init"), s.setdefault("toy_key", 0)),
        night_chosen=lambda s, night: calls.append(("night", night.uid)),
        resume=lambda s: calls.append("resume"),
        sync=lambda s: calls.append("sync") or stored,
        rerun=lambda s: rerun,
    )


@pytest.fixture
def toy_with(monkeypatch):
    """Register the toy game with the given hooks (module attribute, as a real game names)."""

    def register(hooks: games.AppSession) -> None:
        monkeypatch.setattr(toy_game, "APP_SESSION", hooks, raising=False)
        entry = dataclasses.replace(toy_game.GAME, app_session="toy_game:APP_SESSION")
        games.register(entry)

    yield register
    games.unregister(toy_game.ID)


def test_init_state_sets_the_shared_keys_and_every_games_keys(toy_with):
    calls: list = []
    toy_with(_hooks(calls))
    session: dict = {}
    state.init_state(session)
    assert "init" in calls and session["toy_key"] == 0
    assert session[state.SESSION_ID] is None and session[state.FLASH] is None
    assert "rt_players" in session  # Reptile Tank's own keys come from its hook too


def test_choosing_a_night_tells_every_game_once(toy_with):
    calls: list = []
    toy_with(_hooks(calls))
    session: dict = {}
    night = type("Night", (), {"uid": "abcd1234", "id": None})()
    with pytest.MonkeyPatch.context() as mp:  # Reptile Tank's hook would read the database
        mp.setattr("ui.reptile_tank.persist.night_chosen", lambda s, n: None)
        mp.setattr(
            "ui.reptile_tank.persist.APP_SESSION",
            games.AppSession(init=lambda s: None),
        )
        persist.choose_night(session, night)
        persist.choose_night(session, night)  # the same night again: nothing to reload
    assert calls.count(("night", "abcd1234")) == 1
    assert session[state.NIGHT_UID] == "abcd1234"


def test_sync_is_stored_only_when_every_game_stored_and_a_rerun_is_asked_by_any(toy_with):
    calls: list = []
    toy_with(_hooks(calls, stored=False, rerun=True))
    session: dict = {}
    state.init_state(session)  # Reptile Tank: no players yet, its sync writes nothing
    assert persist.sync(session) is False and "sync" in calls
    assert persist.wants_rerun(session) is True
    games.unregister(toy_game.ID)
    assert persist.sync(session) is True and persist.wants_rerun(session) is False


def test_a_game_without_hooks_is_left_alone():
    assert all(g.app_session is None for g in games.GAMES.values() if g.id != "reptile_tank")
    assert len(state.app_sessions()) == sum(1 for g in games.GAMES.values() if g.app_session)
