"""Schema versions 4 and 5 (issue 30): a database written by the code before them (the committed
``data/v3_both_games.sqlite3``, made by ``data/make_v3_fixture.py``) opens, and every stored game
and draft of both games is there; the played-games tables keep one game's rows apart from
another's in the one table, on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa
from lb_helpers import fixed_game

from leaderboard import SCHEMA_VERSION, LeaderboardError, NotFoundError, Store
from leaderboard.drafts import DraftStore
from leaderboard.played import PlayedGames
from service.settings import NightSettings
from service.store import schema_history

FIXTURE = Path(__file__).parent / "data" / "v3_both_games.sqlite3"


def _copy_fixture(url: str, tmp_path: Path, fixture: Path = FIXTURE) -> None:
    """The fixture's tables and rows, as they are, into the empty database at ``url``."""
    if url.startswith("sqlite"):
        shutil.copyfile(fixture, url.removeprefix("sqlite:///"))
        return
    from leaderboard.store import resolve_url

    source = sa.create_engine(f"sqlite:///{fixture}")
    target = sa.create_engine(resolve_url(url))
    old = sa.MetaData()
    old.reflect(source)
    for table in old.tables.values():
        for column in table.columns:
            column.type = column.type.as_generic()  # SQLite's BLOB is LargeBinary, and so on
    with source.connect() as read, target.begin() as write:
        old.create_all(write)
        for table in old.sorted_tables:
            rows = [dict(r) for r in read.execute(sa.select(table)).mappings()]
            if rows:
                write.execute(sa.insert(table), rows)
            if "id" in table.c and rows:  # the serial goes on after the copied ids
                write.exec_driver_sql(
                    f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                    f"{max(r['id'] for r in rows)})"
                )
    source.dispose()
    target.dispose()


def _raw(url: str, query: str) -> list:
    from leaderboard.store import resolve_url

    engine = sa.create_engine(resolve_url(url))
    with engine.connect() as conn:
        rows = conn.exec_driver_sql(query).all()
    engine.dispose()
    return rows


def _tables(url: str) -> set[str]:
    from leaderboard.store import resolve_url

    engine = sa.create_engine(resolve_url(url))
    with engine.connect() as conn:
        names = set(sa.inspect(conn).get_table_names())
    engine.dispose()
    return names


def test_the_fixture_is_a_version_3_database_with_both_games(store_url, tmp_path):
    _copy_fixture(store_url, tmp_path)
    assert _raw(store_url, "SELECT MAX(version) FROM schema_version") == [(3,)]
    assert _raw(store_url, "SELECT COUNT(*) FROM nimalia_games") == [(3,)]
    assert _raw(store_url, "SELECT COUNT(*) FROM games") == [(4,)]


def test_a_version_3_database_opens_with_every_game_and_draft_of_both_games(store_url, tmp_path):
    _copy_fixture(store_url, tmp_path)
    with Store(store_url, history=schema_history()) as store:
        assert store.schema_version() == SCHEMA_VERSION == 5
        nights = {s.name: s.id for s in store.list_sessions()}
        assert set(nights) == {"Friday", "Saturday"}
        # Reptile Tank: every game (table and solo) and the open draft
        rt = store.list_games()
        assert sorted(g.uid for g in rt) == ["rt-1", "rt-2", "rt-3", "rt-solo"]
        assert {g.uid: g.mode for g in rt}["rt-solo"] == "solo"
        assert any(p.photo_thumbnail for g in rt for p in g.players)
        drafts = DraftStore(store)
        draft = drafts.current(nights["Friday"])
        assert draft is not None and draft.document["notes"] == "in progress"
        from service.reptile_tank.drafts import from_document

        table = from_document(draft.document, drafts.get_blob)  # the app resumes it
        assert table.players == ["Ann", "Ben"] and table.entries["Ann"].rows[0][2] == "corn_snake"
        # night settings (house rule, decks, the game) as they were
        friday = NightSettings.from_json(drafts.settings(nights["Friday"])[0])
        assert (
            friday.tiers == {("rock", "basic"): 3} and friday.deck_of("reptile_tank") == "enrolled"
        )
        assert NightSettings.from_json(drafts.settings(nights["Saturday"])[0]).game == "nimalia"
        # Nimalia: the three saved games with their lines, documents and results; the draft
        nimalia = PlayedGames(store, "nimalia")
        saved = nimalia.list_games()
        assert len(saved) == 3
        assert sorted(len(g.players) for g in saved) == [2, 2, 3]
        for g in saved:
            assert [p.total for p in g.players] == [p["total"] for p in g.result["players"]]
            assert len(g.document["goals"]) == 4 and g.document["round"] == 5
            assert nimalia.saved(g.uid)[1] == g.document
        standings = {s.player: s for s in nimalia.standings()}
        assert standings["Ann"].games == 3
        assert {s.player: s.games for s in nimalia.standings(nights["Saturday"])} == {
            "Dev": 1,
            "Ann": 1,
        }
        document, revision = nimalia.draft(nights["Friday"])
        assert revision == 3 and document["players"] == ["Ann", "Cleo"]
        # the draft's compare-and-set goes on from the migrated revision
        assert nimalia.put_draft(nights["Friday"], document, expected_revision=3) == 4
    # the legacy per-game tables are gone (their rows moved), and a second open changes nothing
    assert not {"nimalia_games", "nimalia_game_players", "nimalia_drafts"} & _tables(store_url)
    with Store(store_url, history=schema_history()) as again:
        assert len(PlayedGames(again, "nimalia").list_games()) == 3
        before = again.list_games()
        copy = dataclasses.replace(before[0], uid=None)
        assert again.save_game(copy) > max(g.id for g in before)  # ids go on after the old ones


def test_played_games_keep_each_game_apart(store):
    night = store.create_session("Night").id
    one, two = PlayedGames(store, "nimalia"), PlayedGames(store, "other_game")
    result = {"players": [{"name": "Ann", "total": 7, "rank": 1}]}
    one.save_game(night, {"uid": "u1"}, result)
    two.save_game(night, {"uid": "u2"}, {"players": [{"name": "Ann", "total": 3, "rank": 1}]})
    with pytest.raises(LeaderboardError, match="another game's"):
        two.save_game(night, {"uid": "u1"}, result)  # one table: a uid names one game
    assert [s.total for s in one.standings()] == [7]
    assert [s.total for s in two.standings()] == [3]
    # the record game's store (Reptile Tank's) sees none of them, and they none of its
    store.save_game(fixed_game(night, {"Ann": 50, "Bo": 40}))
    assert [g.uid for g in store.list_games()] != ["u1"] and len(store.list_games()) == 1
    assert {r.player: r.total_vp for r in store.leaderboard()} == {"Ann": 50, "Bo": 40}
    assert store.list_games_page().total == 1
    assert [s.total for s in one.standings()] == [7]
    assert one.put_draft(night, {"a": 1}, expected_revision=0) == 1
    assert two.draft(night) == (None, 0)
    (game,) = two.list_games()
    with pytest.raises(NotFoundError):
        one.delete_game(game.id)  # another game's id: not this game's to delete
    with pytest.raises(NotFoundError):
        store.delete_game(game.id)  # nor the record store's
    with pytest.raises(NotFoundError):
        store.get_game(game.id)
    two.delete_game(game.id)
    assert two.list_games() == [] and len(one.list_games()) == 1
    store.rename_player("Ann", "Anna")  # one players table: renamed for every game
    assert [s.player for s in one.standings()] == ["Anna"]


V4_FIXTURE = Path(__file__).parent / "data" / "v4_played_games.sqlite3"


def test_a_version_4_database_of_main_folds_its_played_games_into_the_one_table(
    store_url, tmp_path
):
    """``data/v4_played_games.sqlite3`` was written by main's code at 4a2a53b (schema 4: the
    played-games tables; ``data/make_v4_fixture.py``): version 5 moves its rows into ``games``."""
    url = store_url
    _copy_fixture(url, tmp_path, V4_FIXTURE)
    assert _raw(url, "SELECT MAX(version) FROM schema_version") == [(4,)]
    before = _raw(url, "SELECT game, uid, document, result FROM played_games ORDER BY id")
    with Store(url, history=schema_history()) as store:
        assert store.schema_version() == 5
        for game, uid, document, result in before:
            played = PlayedGames(store, game)
            found = {g.uid: g for g in played.list_games()}[uid]
            assert found.document == json.loads(document)
            assert found.result == json.loads(result)
        other = PlayedGames(store, "other_game")
        assert [(s.player, s.wins, s.total) for s in other.standings()] == [
            ("Zoe", 1, 12),
            ("Dev", 0, 5),
        ]
        night = next(s.id for s in store.list_sessions() if s.name == "Saturday")
        assert other.draft(night) == ({"cells": [3]}, 1)
        assert len(PlayedGames(store, "nimalia").list_games()) == 3
        assert sorted(g.uid for g in store.list_games()) == ["rt-1", "rt-2", "rt-3", "rt-solo"]
        assert "Zoe" in store.list_players()  # one players table
    assert not {"played_games", "played_game_players"} & _tables(url)
