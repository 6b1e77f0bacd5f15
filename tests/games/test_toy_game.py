"""A toy third game defined only under tests/ (toy_game.py, toy_page.py), registered here,
works through the CLI, storage, the app (its page reachable, a game entered and saved) and the
leaderboard, with no change to any file outside tests/ (issue 30, "done when")."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import toy_game
from streamlit.testing.v1 import AppTest

import games
from leaderboard import Store
from leaderboard.played import PlayedGames
from reptile_tank.cli import main
from service.played import save_game
from service.store import schema_history

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "app"))
from app_helpers import APP, create_night, no_errors  # noqa: E402

FULL_ROW = {"rows": [["sun", "sun", "sun"], ["moon", ".", "."], [".", ".", "star"]]}


@pytest.fixture
def app_env(tmp_path, monkeypatch):
    """The app on a temporary SQLite database and user folder (as tests/app's fixture)."""
    url = f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"
    monkeypatch.setenv("REPTILE_TANK_DB_URL", url)
    monkeypatch.setenv("REPTILE_TANK_HOME", str(tmp_path / "home"))
    return url


@pytest.fixture
def toy():
    with toy_game.registered() as entry:
        yield entry


def test_the_toy_game_is_one_entry_in_the_list(toy):
    assert list(games.GAMES)[-1] == "toy_grid"
    assert games.game("toy_grid").layout().shape == (3, 3)
    assert "toy_grid" not in games.GAMES or toy.name == "Toy grid"
    with pytest.raises(ValueError, match="already registered"):
        games.register(toy)


def test_the_toy_game_leaves_the_list_after_the_test():
    assert "toy_grid" not in games.GAMES


def test_cli_scores_a_toy_document(toy, tmp_path, capsys):
    path = tmp_path / "grid.json"
    path.write_text(json.dumps(FULL_ROW))
    assert main(["toy_grid", "score", str(path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == {"game": "toy_grid", "cells": 3 * 3 + 2 + 1, "lines": 5, "total": 17}
    game = {"uid": "g", "players": [{"name": "Ann", **FULL_ROW}, {"name": "Ben", **FULL_ROW}]}
    path.write_text(json.dumps(game))
    assert main(["toy_grid", "score", "--game", str(path)]) == 0
    ranks = [p["rank"] for p in json.loads(capsys.readouterr().out)["players"]]
    assert ranks == [1, 1]
    path.write_text(json.dumps({"rows": [["sun", "lava", "."]] * 3}))
    assert main(["toy_grid", "score", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'lava' is not a cell" in err[0]


def test_storage_and_standings_of_the_toy_game(toy, tmp_path):
    with Store(f"sqlite:///{tmp_path / 'lb.sqlite3'}", history=schema_history()) as store:
        night = store.create_session("Friday").id
        weak = {"rows": [["star", ".", "."], [".", ".", "."], [".", ".", "."]]}
        document = {"uid": "t1", "players": [{"name": "Ann", **FULL_ROW}, {"name": "Ben", **weak}]}
        game_id = save_game(store, "toy_grid", night, document)
        assert save_game(store, "toy_grid", night, document) == game_id  # same uid: rewritten
        played = PlayedGames(store, "toy_grid")
        (saved,) = played.list_games()
        assert saved.document == document
        assert [(s.player, s.wins, s.total) for s in played.standings()] == [
            ("Ann", 1, 17),
            ("Ben", 0, 1),
        ]
        assert PlayedGames(store, "nimalia").list_games() == []  # kept apart


def test_the_app_shows_the_toy_page_saves_a_game_and_ranks_it(toy, app_env):
    at = AppTest.from_file(APP, default_timeout=60).run()
    no_errors(at)
    create_night(at)
    at.switch_page(toy_game.PAGE).run()
    no_errors(at)
    assert [t.value for t in at.title] == ["🔲 Toy grid"]
    at.text_input(key="toy_name_0").input("Ann")
    at.text_input(key="toy_name_1").input("Ben")
    for c in range(3):
        at.selectbox(key=f"toy_0_0_{c}").select("sun")
    at.selectbox(key="toy_1_2_2").select("moon")
    at.run()
    assert [m.value for m in at.metric] == ["14", "2"]
    at.button(key="toy_save").click().run()
    no_errors(at)
    assert any("Saved as game" in s.value for s in at.success)
    (saved,) = PlayedGames(Store(app_env, history=schema_history()), "toy_grid").list_games()
    assert [(p.name, p.total, p.rank) for p in saved.players] == [("Ann", 14, 1), ("Ben", 2, 2)]
    # the leaderboard offers the toy game's standings (the shared played-games view)
    at.switch_page("ui/pages/leaderboard.py").run()
    no_errors(at)
    at.segmented_control(key="lb_kind").set_value("toy_grid").run()
    no_errors(at)
    standings = next(d.value for d in at.dataframe if "Wins" in d.value.columns)
    assert list(standings["Player"]) == ["Ann", "Ben"]
    assert list(standings["Wins"]) == [1, 0]
