"""Behaviour of the leaderboard store's public API, on SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
import json
import random
import threading

import pytest
from lb_helpers import THUMBNAIL, fixed_game, make_game

from leaderboard import (
    GamePlayer,
    GameRecord,
    LeaderboardError,
    NotFoundError,
    SessionInfo,
    Store,
)
from service.store import schema_history


def test_create_and_list_sessions(store: Store) -> None:
    first = store.create_session("Friday", created_at="2026-01-02T20:00:00+01:00")
    second = store.create_session("Saturday")
    assert isinstance(first, SessionInfo)
    assert first.created_at == "2026-01-02T19:00:00.000000+00:00"
    assert first.uid != second.uid
    store.save_game(fixed_game(first.id, {"Ann": 10, "Bo": 5}))
    sessions = store.list_sessions()
    assert [(s.id, s.name, s.game_count) for s in sessions] == [
        (first.id, "Friday", 1),
        (second.id, "Saturday", 0),
    ]
    assert store.get_session(second.id) == sessions[1]
    json.dumps(sessions[0].to_json())


def test_save_and_get_game_round_trips_every_field(store: Store) -> None:
    rng = random.Random(1)
    night = store.create_session("night")
    record = make_game(
        night.id,
        ["Ann", "Bo", "Cy"],
        rng,
        photos=True,
        mode="multi",
        player_count_variant=True,
        notes="first game",
        extra={"table": "kitchen"},
        played_at="2026-03-04T05:06:07.000008+00:00",
    )
    game_id = store.save_game(record)
    got = store.get_game(game_id)
    assert got.id == game_id and got.uid
    assert got == dataclasses.replace(record, id=game_id, uid=got.uid)
    assert got.players[0].photo_thumbnail == THUMBNAIL
    assert json.loads(json.dumps(got.to_json())) == got.to_json()
    assert GameRecord.from_json(got.to_json()) == got


def test_list_games_filters_by_session_and_orders_by_time(store: Store) -> None:
    a = store.create_session("a")
    b = store.create_session("b")
    late = store.save_game(fixed_game(a.id, {"Ann": 1, "Bo": 2}, played_at="2026-05-01T10:00"))
    early = store.save_game(fixed_game(a.id, {"Ann": 3, "Bo": 2}, played_at="2026-04-01T10:00"))
    other = store.save_game(fixed_game(b.id, {"Cy": 3, "Bo": 2}, played_at="2026-03-01T10:00"))
    assert [g.id for g in store.list_games(a.id)] == [early, late]
    assert [g.id for g in store.list_games()] == [other, early, late]
    assert store.list_games(b.id)[0].players[0].name == "Cy"


def test_delete_game_removes_it_and_only_it(store: Store) -> None:
    night = store.create_session("n")
    keep = store.save_game(fixed_game(night.id, {"Ann": 1, "Bo": 2}))
    drop = store.save_game(fixed_game(night.id, {"Ann": 9, "Bo": 2}))
    store.delete_game(drop)
    assert [g.id for g in store.list_games()] == [keep]
    with pytest.raises(NotFoundError):
        store.get_game(drop)
    with pytest.raises(NotFoundError):
        store.delete_game(drop)
    assert store.list_players() == ["Ann", "Bo"]  # players stay for the pickers


def test_delete_session_removes_its_games(store: Store) -> None:
    a = store.create_session("a")
    b = store.create_session("b")
    store.save_game(fixed_game(a.id, {"Ann": 1, "Bo": 2}))
    store.save_game(fixed_game(a.id, {"Ann": 1, "Bo": 2}))
    kept = store.save_game(fixed_game(b.id, {"Ann": 1, "Bo": 2}))
    assert store.delete_session(a.id) == 2
    assert [s.id for s in store.list_sessions()] == [b.id]
    assert [g.id for g in store.list_games()] == [kept]
    with pytest.raises(NotFoundError):
        store.delete_session(a.id)


def test_leaderboard_counts_games_wins_ties_totals_average_best(store: Store) -> None:
    night = store.create_session("n")
    other = store.create_session("other")
    store.save_game(fixed_game(night.id, {"Ann": 50, "Bo": 50, "Cy": 30}))  # tie: both win
    store.save_game(fixed_game(night.id, {"Ann": 40, "Bo": 45}))
    store.save_game(fixed_game(other.id, {"Cy": 70, "Ann": 20}))
    rows = store.leaderboard(night.id)
    assert [(r.player, r.games, r.wins, r.total_vp, r.best) for r in rows] == [
        ("Bo", 2, 2, 95, 50),
        ("Ann", 2, 1, 90, 50),
        ("Cy", 1, 0, 30, 30),
    ]
    assert rows[0].average == pytest.approx(47.5)
    all_time = {r.player: r for r in store.leaderboard()}
    assert (all_time["Cy"].games, all_time["Cy"].wins, all_time["Cy"].best) == (2, 1, 70)
    assert all_time["Ann"].average == pytest.approx(110 / 3)
    assert store.leaderboard(other.id, mode="solo") == []
    json.dumps([r.to_json() for r in rows])


def test_solo_games_and_mode_filter(store: Store) -> None:
    night = store.create_session("n")
    board = {"rows": [["rock"] * 5 for _ in range(4)]}
    solo = GameRecord(
        night.id,
        (GamePlayer("Ann", board, {"total": 61}, 1),),
        mode="solo",
        player_count_variant=True,
        extra={"master": {"level": "hard", "cards": {"rock": 2}, "pad": {"total": 55}}},
    )
    solo_id = store.save_game(solo)
    store.save_game(fixed_game(night.id, {"Ann": 10, "Bo": 20}))
    assert store.get_game(solo_id).extra["master"]["pad"] == {"total": 55}
    assert [(r.player, r.games, r.wins) for r in store.leaderboard(mode="solo")] == [("Ann", 1, 1)]
    assert {r.player: r.games for r in store.leaderboard(mode="multi")} == {"Ann": 1, "Bo": 1}
    assert {r.player: r.games for r in store.leaderboard()} == {"Ann": 2, "Bo": 1}


def test_rename_player_in_place(store: Store) -> None:
    night = store.create_session("n")
    game = store.save_game(fixed_game(night.id, {"Ann": 1, "Bo": 2}))
    assert store.rename_player("Ann", "Anna") == "renamed"
    assert [p.name for p in store.get_game(game).players] == ["Anna", "Bo"]
    assert store.list_players() == ["Anna", "Bo"]
    assert store.rename_player("Anna", "Anna") == "unchanged"
    with pytest.raises(NotFoundError):
        store.rename_player("Ann", "X")


def test_rename_player_merges_into_existing_player(store: Store) -> None:
    night = store.create_session("n")
    store.save_game(fixed_game(night.id, {"Ann": 10, "Bo": 2}))
    store.save_game(fixed_game(night.id, {"ann": 30, "Cy": 2}))
    assert store.rename_player("ann", "Ann") == "merged"
    assert store.list_players() == ["Ann", "Bo", "Cy"]
    ann = {r.player: r for r in store.leaderboard()}["Ann"]
    assert (ann.games, ann.wins, ann.total_vp, ann.best) == (2, 2, 40, 30)


def test_rename_refuses_merge_of_two_players_of_one_game(store: Store) -> None:
    night = store.create_session("n")
    game = store.save_game(fixed_game(night.id, {"Ann": 10, "Bo": 2}))
    with pytest.raises(LeaderboardError, match="both played game"):
        store.rename_player("Bo", "Ann")
    assert [p.name for p in store.get_game(game).players] == ["Ann", "Bo"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"mode": "coop"}, "mode"),
        ({"players": ()}, "players"),
        ({"objectives": ["3"]}, "objectives"),
        ({"objectives": (3, 11)}, "objectives"),
        ({"extra": {"x": float("nan")}}, "extra"),
        ({"extra": {1: "int key"}}, "extra"),
        ({"notes": "a\x00b"}, "NUL"),
        ({"notes": "\ud800"}, "surrogate"),
        ({"player_count_variant": "yes"}, "player_count_variant"),
        ({"played_at": "yesterday"}, "played_at"),
    ],
)
def test_bad_games_are_refused_with_the_place_named(store: Store, change, message) -> None:
    night = store.create_session("n")
    record = dataclasses.replace(fixed_game(night.id, {"Ann": 1, "Bo": 2}), **change)
    with pytest.raises(LeaderboardError, match=message):
        store.save_game(record)
    assert store.list_games() == []


@pytest.mark.parametrize(
    ("player", "message"),
    [
        (GamePlayer("", {"rows": []}, {"total": 1}, 1), "name"),
        (GamePlayer("  ", {"rows": []}, {"total": 1}, 1), "name"),
        (GamePlayer("Cy", {"rows": []}, {"vp": 1}, 1), "total"),
        (GamePlayer("Cy", {"rows": []}, {"total": 1.5}, 1), "total"),
        (GamePlayer("Cy", {"rows": []}, {"total": 1}, 4), "rank"),
        (GamePlayer("Cy", {"rows": []}, {"total": 1}, 0), "rank"),
        (GamePlayer("Cy", {"rows": []}, {"total": 1}, 1, photo_sha256="ABC"), "sha256"),
        (GamePlayer("Cy", {"rows": []}, {"total": 1}, 1, photo_thumbnail=b"PNG"), "JPEG"),
        (
            GamePlayer("Cy", {"rows": []}, {"total": 1}, 1, photo_thumbnail=THUMBNAIL * 20),
            "at most",
        ),
        (GamePlayer("Ann", {"rows": []}, {"total": 1}, 1), "twice"),
        (GamePlayer("Cy", ["rows"], {"total": 1}, 1), r"players\[2\].board"),
    ],
)
def test_bad_player_lines_are_refused(store: Store, player, message) -> None:
    night = store.create_session("n")
    base = fixed_game(night.id, {"Ann": 1, "Bo": 2})
    record = dataclasses.replace(base, players=(*base.players, player))
    with pytest.raises(LeaderboardError, match=message):
        store.save_game(record)
    assert store.list_games() == [] and store.list_players() == []


def test_solo_needs_exactly_one_player_and_multi_two(store: Store) -> None:
    night = store.create_session("n")
    two = fixed_game(night.id, {"Ann": 1, "Bo": 2})
    with pytest.raises(LeaderboardError, match="solo game has 1..1"):
        store.save_game(dataclasses.replace(two, mode="solo"))
    with pytest.raises(LeaderboardError, match="multi game has 2"):
        store.save_game(dataclasses.replace(two, players=two.players[:1]))


def test_unknown_session_and_duplicate_uid_are_refused(store: Store) -> None:
    night = store.create_session("n")
    with pytest.raises(NotFoundError, match="session"):
        store.save_game(fixed_game(night.id + 99, {"Ann": 1, "Bo": 2}))
    store.save_game(fixed_game(night.id, {"Ann": 1, "Bo": 2}, uid="u-1"))
    with pytest.raises(LeaderboardError, match="already saved"):
        store.save_game(fixed_game(night.id, {"Ann": 1, "Bo": 2}, uid="u-1"))
    assert len(store.list_games()) == 1
    assert store.list_players() == ["Ann", "Bo"]


def test_failed_save_leaves_nothing_behind(store: Store, monkeypatch) -> None:
    """A failure after the game row and some player lines were written rolls all of it back."""
    import leaderboard.saved as module  # the saved games drawer writes the lines

    night = store.create_session("n")
    original = module._insert_player_line
    calls = []

    def failing(conn, game_id, seat, player):
        calls.append(seat)
        if seat == 2:
            raise RuntimeError("power cut")
        original(conn, game_id, seat, player)

    monkeypatch.setattr(module, "_insert_player_line", failing)
    with pytest.raises(RuntimeError):
        store.save_game(fixed_game(night.id, {"Ann": 1, "Bo": 2, "Cy": 3}))
    assert calls == [0, 1, 2]
    monkeypatch.setattr(module, "_insert_player_line", original)
    assert store.list_games() == [] and store.list_players() == []
    assert store.leaderboard() == []


def test_threads_sharing_one_store_lose_nothing(store: Store) -> None:
    """Several app users (threads of one Streamlit server) save at the same time."""
    night = store.create_session("n")
    errors: list[BaseException] = []

    def user(index: int) -> None:
        rng = random.Random(index)
        try:
            for turn in range(8):
                names = ["Ann", "Bo", f"guest-{index}-{turn % 3}"]
                store.save_game(make_game(night.id, names, rng))
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=user, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    games = store.list_games(night.id)
    assert len(games) == 32
    assert all(len(g.players) == 3 for g in games)
    assert {r.player: r.games for r in store.leaderboard()}["Ann"] == 32


def test_default_location_env_var_and_path(tmp_path, monkeypatch) -> None:
    from leaderboard import ENV_DB_URL, resolve_url

    monkeypatch.delenv(ENV_DB_URL, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    default = resolve_url()
    assert default.drivername == "sqlite"
    assert default.database == str(tmp_path / ".local/share/reptile-tank/leaderboard.sqlite3")
    with Store(history=schema_history()) as store:
        store.create_session("x")
    assert (tmp_path / ".local/share/reptile-tank/leaderboard.sqlite3").is_file()
    monkeypatch.setenv(ENV_DB_URL, str(tmp_path / "club" / "board.db"))
    with Store(history=schema_history()) as store:
        assert store.list_sessions() == []
    assert (tmp_path / "club" / "board.db").is_file()
    assert resolve_url("postgresql://u@h/db").drivername.startswith("postgresql+")


def test_sqlite_settings(tmp_path) -> None:
    with Store(tmp_path / "s.db", history=schema_history()) as store:
        with store._engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 10_000
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL


def test_busy_database_is_retried_then_succeeds(tmp_path) -> None:
    """Another process holding the write lock longer than busy_timeout: the save waits."""
    import sqlite3

    path = tmp_path / "busy.sqlite3"
    with Store(path, busy_timeout_s=0.02, history=schema_history()) as store:
        night = store.create_session("n")
        blocker = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        blocker.execute("BEGIN IMMEDIATE")
        timer = threading.Timer(0.4, blocker.execute, args=("COMMIT",))
        timer.start()
        try:
            game_id = store.save_game(fixed_game(night.id, {"Ann": 1, "Bo": 2}))
        finally:
            timer.join()
            blocker.close()
        assert store.retries > 0
        assert len(store.get_game(game_id).players) == 2


def test_database_busy_past_the_deadline_is_a_clear_error(tmp_path) -> None:
    import sqlite3

    from leaderboard import StoreBusyError

    path = tmp_path / "busy.sqlite3"
    with Store(path, busy_timeout_s=0.01, retry_s=0.2, history=schema_history()) as store:
        night = store.create_session("n")
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(StoreBusyError, match="stayed busy"):
                store.save_game(fixed_game(night.id, {"Ann": 1, "Bo": 2}))
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert store.list_games() == []
