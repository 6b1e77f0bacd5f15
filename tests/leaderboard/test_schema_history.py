"""Storage is told its schema's history by the game list, never guesses it (issue 30): creating a
database or migrating one below version 5 without the facts is refused with one error, nothing
written; a current database knows its record game itself; the facts come from the game list."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from test_migrations import _write_v1
from test_one_storage_migration import _copy_fixture, _raw, _tables

import games
from leaderboard import LeaderboardError, Store
from leaderboard.schema import HistoryMissingError, LegacyGameTables, SchemaHistory
from service.store import open_store, schema_history


def _versions(url: str) -> list[int]:
    return sorted(v for (v,) in _raw(url, "SELECT version FROM schema_version"))


def test_a_fresh_database_is_not_created_without_the_history(store_url: str) -> None:
    with pytest.raises(HistoryMissingError, match="cannot create the leaderboard database"):
        Store(store_url)
    engine = sa.create_engine(store_url)
    try:
        assert sa.inspect(engine).get_table_names() == []  # nothing written
    finally:
        engine.dispose()


def test_a_version_1_database_is_not_migrated_without_the_history(store_url: str) -> None:
    _write_v1(store_url)
    with pytest.raises(HistoryMissingError, match=r"cannot migrate \(schema version 1 to 5\)"):
        Store(store_url)
    assert _versions(store_url) == [1]
    with Store(store_url, migrate=False) as old:  # reading the version needs no history
        assert old.schema_version() == 1
        with pytest.raises(HistoryMissingError, match="records no game"):
            old.list_games()


def test_a_version_3_database_with_legacy_tables_is_not_migrated_without_the_history(
    store_url: str, tmp_path: Path
) -> None:
    _copy_fixture(store_url, tmp_path)
    with pytest.raises(HistoryMissingError, match="schema history"):
        Store(store_url)
    assert _versions(store_url) == [1, 2, 3]
    assert {"nimalia_games", "nimalia_game_players", "nimalia_drafts"} <= _tables(store_url)


def test_a_current_database_opens_without_the_history_and_knows_its_record_game(
    store_url: str,
) -> None:
    history = SchemaHistory(first_game="first_one")
    with Store(store_url, history=history) as made:
        night = made.create_session("n")
        assert made.record_game == "first_one"
    with Store(store_url) as store:  # at version 5: its games.game default is its record
        assert store.record_game == "first_one"
        assert store.get_session(night.id).name == "n"
    with Store(store_url, history=SchemaHistory(first_game="another")) as other:
        with pytest.raises(LeaderboardError, match="written with another game list"):
            other.list_games()


def test_legacy_tables_of_the_history_are_the_ones_folded_in(
    store_url: str, tmp_path: Path
) -> None:
    """Told no legacy tables, the version-4 step leaves other tables alone; told them, it folds
    them in under the game the history names (the storage layer reads the names it is given)."""
    _copy_fixture(store_url, tmp_path)
    first = schema_history().first_game
    with Store(store_url, history=SchemaHistory(first_game=first)) as store:
        assert store.schema_version() == 5
    assert "nimalia_games" in _tables(store_url)  # not told: kept, not guessed


def test_the_history_comes_from_the_game_list() -> None:
    history = schema_history()
    firsts = [entry.id for entry in games.GAMES.values() if entry.first_game]
    assert [history.first_game] == firsts
    assert history.legacy_tables == tuple(
        LegacyGameTables(entry.id, *entry.legacy_tables)
        for entry in games.GAMES.values()
        if entry.legacy_tables is not None
    )
    assert history.legacy_tables  # the list names the tables an earlier release made
    with pytest.raises(ValueError, match="exactly one first game"):
        schema_history({})


def test_open_store_hands_the_history_over(tmp_path: Path) -> None:
    with open_store(f"sqlite:///{tmp_path / 'lb.sqlite3'}") as store:
        assert store.history == schema_history()
        assert store.record_game == schema_history().first_game
