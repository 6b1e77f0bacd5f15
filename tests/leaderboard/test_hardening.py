"""Issue 16, storage: bounded numbers, formula-safe CSV, storage failures as one clear error,
pages that cost O(page), imports in bounded batches that do not block saves."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import os
import random
import sqlite3

import pytest
import sqlalchemy as sa
from lb_helpers import fixed_game, make_game

from leaderboard import (
    MAX_NAME_CHARS,
    MAX_PLAYERS,
    GamePlayer,
    LeaderboardError,
    StorageError,
    Store,
    StoreBusyError,
)
from leaderboard import store as store_module
from leaderboard.records import MAX_VP
from service.reptile_tank.import_check import check_game
from service.store import schema_history

BOARD = {"rows": [["rock"] * 5 for _ in range(4)]}


def _raw_game(store: Store, session_id: int, totals: dict[str, int]) -> int:
    """Write a game bypassing validation, as an older version or hand-written SQL could."""
    record = fixed_game(session_id, totals)
    with store._write_engine.begin() as conn:
        return store_module._insert_game(
            conn, record, uid=f"raw-{random.random()}", played_at="2026-01-01T00:00:00+00:00"
        )


# ----------------------------------------------------------------------------- numbers


def test_limits_are_the_games():
    assert MAX_PLAYERS == 4 and MAX_NAME_CHARS == 100


@pytest.mark.parametrize("total", [2**63 - 1, 2**63, 2**64, -(2**63), MAX_VP + 1, -MAX_VP - 1])
def test_out_of_range_totals_are_refused_on_save(store: Store, total: int) -> None:
    night = store.create_session("n")
    with pytest.raises(LeaderboardError, match=r"players\[0\].pad.total"):
        store.save_game(fixed_game(night.id, {"Ann": total, "Bo": 1}))
    assert store.list_games() == []


@pytest.mark.parametrize(
    ("pad", "message"),
    [
        ({"total": 3, "lizards": 2**63}, r"pad.lizards"),
        ({"total": 3, "water": -(2**64)}, r"pad.water"),
        ({"total": 3, "groups": [{"vp": 10**30}]}, r"pad.groups\[0\].vp"),
    ],
)
def test_out_of_range_pad_numbers_are_refused(store: Store, pad, message) -> None:
    night = store.create_session("n")
    base = fixed_game(night.id, {"Ann": 3, "Bo": 1})
    first = dataclasses.replace(base.players[0], pad=pad)
    with pytest.raises(LeaderboardError, match=message):
        store.save_game(dataclasses.replace(base, players=(first, base.players[1])))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"objectives": [2**63]}, "objectives"),
        ({"objectives": list(range(1, 40))}, "objectives"),
        ({"extra": {"master": {"cards": {"rock": 10**18}}}}, r"extra.master.cards.rock"),
    ],
)
def test_out_of_range_game_numbers_are_refused(store: Store, change, message) -> None:
    night = store.create_session("n")
    record = dataclasses.replace(fixed_game(night.id, {"Ann": 3, "Bo": 1}), **change)
    with pytest.raises(LeaderboardError, match=message):
        store.save_game(record)


def test_five_players_are_refused(store: Store) -> None:
    night = store.create_session("n")
    with pytest.raises(LeaderboardError, match=r"2\.\.4 players, got 5"):
        store.save_game(fixed_game(night.id, {n: 1 for n in "ABCDE"}))


def test_long_names_are_refused_everywhere(store: Store) -> None:
    night = store.create_session("n")
    long = "x" * (MAX_NAME_CHARS + 1)
    with pytest.raises(LeaderboardError, match="at most 100"):
        store.create_session(long)
    with pytest.raises(LeaderboardError, match="at most 100"):
        store.save_game(fixed_game(night.id, {long: 1, "Bo": 2}))
    store.save_game(fixed_game(night.id, {"Ann": 1, "Bo": 2}))
    with pytest.raises(LeaderboardError, match="at most 100"):
        store.rename_player("Ann", long)


def test_max_int_totals_already_stored_do_not_break_the_leaderboard(tmp_path) -> None:
    """Two saved totals of 2**63-1 made SUM() raise 'integer overflow' for every viewer."""
    with Store(tmp_path / "lb.sqlite3", history=schema_history()) as store:
        night = store.create_session("n")
        store.save_game(fixed_game(night.id, {"Ann": 30, "Bo": 20}))
        bad_1 = _raw_game(store, night.id, {"Ann": 2**63 - 1, "Bo": 1})
        bad_2 = _raw_game(store, night.id, {"Ann": 2**63 - 1, "Cy": 1})
        rows = {row.player: row for row in store.leaderboard()}
        assert rows["Ann"].games == 1 and rows["Ann"].total_vp == 30
        assert rows["Bo"].games == 1 and "Cy" not in rows
        page = store.leaderboard_page(night.id, limit=10)
        assert [r.player for r in page.rows] == ["Ann", "Bo"]
        assert page.excluded_games == 2
        assert sorted(store.out_of_range_games()) == sorted([bad_1, bad_2])
        store.delete_game(bad_1)  # the page's delete control still works
        store.delete_game(bad_2)
        assert store.out_of_range_games() == []
        assert store.leaderboard_page().excluded_games == 0


# ----------------------------------------------------------------------------- CSV


FORMULAS = ['=HYPERLINK("http://evil","x")', "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]


def test_csv_neutralises_formula_prefixes(store: Store) -> None:
    night = store.create_session("=cmd|' /C calc'!A0")
    for first, second in zip(FORMULAS[::2], FORMULAS[1::2], strict=True):
        store.save_game(fixed_game(night.id, {first: 2, second: 1}, notes="=1+1"))
    rows = list(csv.DictReader(io.StringIO(store.export_csv(), newline="")))
    assert sorted(r["player"] for r in rows) == sorted("'" + f for f in FORMULAS)
    assert {r["session"] for r in rows} == {"'=cmd|' /C calc'!A0"}
    assert {r["notes"] for r in rows} == {"'=1+1"}
    assert {r["total"] for r in rows} == {"1", "2"}  # numbers stay numbers
    exported = store.export_json()  # JSON is data: names intact
    assert sorted(p["name"] for g in exported["games"] for p in g["players"]) == sorted(FORMULAS)


def test_csv_keeps_negative_numbers_as_numbers(store: Store) -> None:
    night = store.create_session("n")
    store.save_game(fixed_game(night.id, {"Ann": -3, "Bo": 1}))
    rows = list(csv.DictReader(io.StringIO(store.export_csv(), newline="")))
    assert sorted(r["total"] for r in rows) == ["-3", "1"]


# ----------------------------------------------------------------------------- storage errors


def _assert_storage_error(error: BaseException, *fragments: str) -> None:
    assert isinstance(error, StorageError), repr(error)
    message = str(error)
    assert "\n" not in message and "leaderboard database" in message, message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def _open_and_use(target) -> None:
    with Store(target, retry_s=0.5, history=schema_history()) as store:
        night = store.create_session("n")
        store.save_game(fixed_game(night.id, {"Ann": 1, "Bo": 2}))
        store.leaderboard()


def test_directory_as_database(tmp_path) -> None:
    folder = tmp_path / "lb.sqlite3"
    folder.mkdir()
    with pytest.raises(LeaderboardError) as caught:
        _open_and_use(folder)
    _assert_storage_error(caught.value, "cannot open")


def test_random_bytes_as_database(tmp_path) -> None:
    path = tmp_path / "lb.sqlite3"
    path.write_bytes(random.Random(3).randbytes(64 * 1024))
    with pytest.raises(LeaderboardError) as caught:
        _open_and_use(path)
    _assert_storage_error(caught.value, "not a database")


def _filled(path) -> None:
    with Store(path, history=schema_history()) as store:
        night = store.create_session("n")
        rng = random.Random(1)
        for _ in range(60):
            store.save_game(make_game(night.id, ["Ann", "Bo", "Cy"], rng, photos=True))
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def test_truncated_database(tmp_path) -> None:
    path = tmp_path / "lb.sqlite3"
    _filled(path)
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        handle.truncate(size // 2)
    with pytest.raises(LeaderboardError) as caught:
        with Store(path, retry_s=0.5, history=schema_history()) as store:
            store.list_games()
            store.export_json()
    _assert_storage_error(caught.value)


def test_malformed_database(tmp_path) -> None:
    path = tmp_path / "lb.sqlite3"
    _filled(path)
    data = bytearray(path.read_bytes())
    page = 4096
    for start in range(page, len(data), page):  # every page header but the first
        data[start : start + 16] = b"\xa5" * 16
    path.write_bytes(bytes(data))
    with pytest.raises(LeaderboardError) as caught:
        with Store(path, retry_s=0.5, history=schema_history()) as store:
            store.list_games()
    _assert_storage_error(caught.value, "damaged")


def test_read_only_database_file(tmp_path) -> None:
    path = tmp_path / "lb.sqlite3"
    _filled(path)
    with Store(
        f"sqlite:///file:{path}?mode=ro&uri=true", migrate=False, history=schema_history()
    ) as store:
        assert len(store.list_games()) == 60  # reading still works
        with pytest.raises(LeaderboardError) as caught:
            store.create_session("x")
    _assert_storage_error(caught.value, "read-only")


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_read_only_folder(tmp_path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(LeaderboardError) as caught:
            _open_and_use(folder / "lb.sqlite3")
        _assert_storage_error(caught.value)
    finally:
        folder.chmod(0o700)


def test_folder_that_cannot_be_created(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(LeaderboardError) as caught:
        Store(blocker / "sub" / "lb.sqlite3", history=schema_history())
    _assert_storage_error(caught.value, "folder")


def test_disk_full(tmp_path) -> None:
    path = tmp_path / "lb.sqlite3"
    with Store(path, history=schema_history()) as store:
        night = store.create_session("n")

        @sa.event.listens_for(store._engine, "connect")
        def _small(dbapi_connection, _record):  # the disk holds 40 pages, no more
            dbapi_connection.execute("PRAGMA max_page_count = 40")

        store._engine.dispose()
        rng = random.Random(2)
        with pytest.raises(LeaderboardError) as caught:
            for _ in range(200):
                store.save_game(make_game(night.id, ["Ann", "Bo"], rng, photos=True))
        _assert_storage_error(caught.value, "full")
        saved = len(store.list_games())
    with Store(
        path, history=schema_history()
    ) as again:  # every game saved before the disk filled is whole
        assert len(again.list_games()) == saved
        assert all(len(g.players) == 2 for g in again.list_games())


def test_disk_full_inside_a_savepoint_names_the_full_disk_and_space_returning_heals(
    tmp_path,
) -> None:
    """SQLite rolls the whole transaction back on a full disk, so leaving the savepoint fails
    with "no such savepoint": the player must still be told the disk is full, and the same
    write must succeed once space returns."""
    from leaderboard.drafts import DraftStore

    path = tmp_path / "lb.sqlite3"
    full = {"on": False}
    with Store(path, history=schema_history()) as store:
        night = store.create_session("n")
        drafts = DraftStore(store)

        @sa.event.listens_for(store._engine, "checkout")
        def _pin(dbapi_connection, _record, _proxy):  # full: no page beyond today's
            size = 1 if full["on"] else 1_073_741_823
            dbapi_connection.execute(f"PRAGMA max_page_count = {size}")

        photo = random.Random(3).randbytes(200_000)
        full["on"] = True
        with pytest.raises(LeaderboardError) as caught:
            drafts.put_blob(photo)  # inserted in a savepoint (a concurrent insert is no error)
        _assert_storage_error(caught.value, "full")
        assert "savepoint" not in str(caught.value)
        assert drafts.get_blob(hashlib.sha256(photo).hexdigest()) is None  # nothing half-written
        full["on"] = False
        digest = drafts.put_blob(photo)
        assert drafts.get_blob(digest) == photo
        store.save_game(make_game(night.id, ["Ann", "Newcomer"], random.Random(4)))
        assert len(store.list_games()) == 1


def test_busy_is_a_storage_error() -> None:
    assert issubclass(StoreBusyError, StorageError)
    assert issubclass(StorageError, LeaderboardError)


# ----------------------------------------------------------------------------- pages


def _fill_standings(store: Store) -> int:
    night = store.create_session("n")
    rng = random.Random(9)
    names = [f"P{i:02d}" for i in range(12)]
    for _ in range(30):
        store.save_game(make_game(night.id, rng.sample(names, 3), rng, played_at=None))
    store.save_game(
        dataclasses.replace(
            fixed_game(night.id, {"P00": 5}),
            mode="solo",
            players=(GamePlayer("P00", BOARD, {"total": 5}, 1),),
        )
    )
    return night.id


def test_leaderboard_page_equals_the_full_list_sliced(store: Store) -> None:
    night = _fill_standings(store)
    for mode in (None, "multi", "solo"):
        full = store.leaderboard(night, mode=mode)
        pages = []
        offset = 0
        while True:
            page = store.leaderboard_page(night, mode=mode, offset=offset, limit=5)
            assert page.total == len(full) and page.limit == 5 and page.offset == offset
            pages.extend(page.rows)
            if not page.rows:
                break
            offset += 5
        assert pages == full


def test_games_page_newest_first_without_thumbnails(store: Store) -> None:
    night = store.create_session("n")
    rng = random.Random(4)
    for day in range(1, 8):
        store.save_game(
            make_game(night.id, ["Ann", "Bo"], rng, photos=True, played_at=f"2026-01-0{day}")
        )
    page = store.list_games_page(night.id, offset=2, limit=3)
    assert page.total == 7
    assert [g.played_at[:10] for g in page.games] == ["2026-01-05", "2026-01-04", "2026-01-03"]
    assert all(p.photo_thumbnail is None for g in page.games for p in g.players)
    full = store.list_games_page(night.id, offset=0, limit=1, thumbnails=True)
    assert full.games[0].players[0].photo_thumbnail is not None


@pytest.mark.parametrize("limit", [0, -1, 10_001])
def test_page_sizes_are_bounded(store: Store, limit: int) -> None:
    with pytest.raises(LeaderboardError, match="limit"):
        store.leaderboard_page(limit=limit)


# ----------------------------------------------------------------------------- import batches


def test_import_runs_in_batches_and_saves_get_through(tmp_path) -> None:
    path = tmp_path / "lb.sqlite3"
    with Store("sqlite://", history=schema_history()) as source:
        night = source.create_session("n")
        rng = random.Random(6)
        for _ in range(25):
            source.save_game(make_game(night.id, ["Ann", "Bo"], rng))
        exported = source.export_json()
    with (
        Store(path, history=schema_history()) as target,
        Store(path, busy_timeout_s=0.05, retry_s=0.1, history=schema_history()) as other,
    ):
        other_night = other.create_session("other")
        seen = []

        def between_batches(done: int, total: int) -> None:
            seen.append((done, total))
            # No lock is held here: another connection saves at once.
            other.save_game(fixed_game(other_night.id, {"Cy": 1, "Di": 2}))

        summary = target.import_json(
            exported, batch_size=10, progress=between_batches, verify=False
        )
        assert summary.games_added == 25
        assert seen == [(10, 25), (20, 25), (25, 25)]
        assert len(target.list_games()) == 28


def test_import_batch_size_is_bounded(store: Store) -> None:
    with pytest.raises(LeaderboardError, match="batch_size"):
        store.import_json({}, batch_size=0, verify=check_game)


@pytest.mark.parametrize("total", [2**63, 2**64, -(2**63) - 1])
def test_import_of_overflowing_totals_is_refused_cleanly(total: int) -> None:
    """A total of 2**63 or a pad total of 2**64 raised OverflowError on import."""
    with Store("sqlite://", history=schema_history()) as source:
        night = source.create_session("n")
        source.save_game(fixed_game(night.id, {"Ann": 3, "Bo": 2}))
        exported = source.export_json()
    exported["games"][0]["players"][0]["pad"]["total"] = total
    exported["games"][0]["players"][0]["total"] = total
    with Store("sqlite://", history=schema_history()) as target:
        with pytest.raises(LeaderboardError, match=r"games\[0\]: game.players\[0\].pad.total"):
            target.import_json(exported, verify=check_game)
        assert target.list_games() == [] and target.list_sessions() == []


def test_unreachable_server_is_a_storage_error() -> None:
    pytest.importorskip("psycopg")
    with pytest.raises(StorageError, match="cannot reach the database server"):
        Store(
            "postgresql+psycopg://postgres@127.0.0.1:1/none", retry_s=0.5, history=schema_history()
        )


def test_standings_read_a_covering_index_not_the_wide_rows(tmp_path) -> None:
    """Player lines carry boards, pads and a thumbnail (~7 KB): scanning them for the standings
    cost 0.45 s at 10 000 games. The standings read ``ix_game_players_game_standings`` only
    (schema version 5's, led by the game)."""
    with Store(tmp_path / "lb.sqlite3", history=schema_history()) as store:
        night = store.create_session("n")
        store.save_game(fixed_game(night.id, {"Ann": 3, "Bo": 1}))
        seen: list[tuple[str, object]] = []

        @sa.event.listens_for(store._engine, "before_cursor_execute")
        def _record(_conn, _cursor, statement, parameters, _context, _many):
            seen.append((statement, parameters))

        store.leaderboard_page()
        store.leaderboard_page(mode="multi")
        store.leaderboard()
        standings = [(s, p) for s, p in seen if "GROUP BY game_players.player_id" in s]
        assert len(standings) == 3
        with store._engine.connect() as conn:
            for statement, parameters in standings:
                plan = [
                    row[-1]
                    for row in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)
                ]
                reads = [step for step in plan if "game_players" in step]
                assert reads and all(
                    "COVERING INDEX ix_game_players_game_standings" in r for r in reads
                ), plan
