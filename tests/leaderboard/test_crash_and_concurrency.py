"""Nothing is lost or half-written: writers killed with SIGKILL mid-transaction, and several
writer processes saving into the same database at once. Each runs on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from leaderboard import Store
from service.store import schema_history

WRITER = Path(__file__).with_name("lb_writer.py")
ROOT = Path(__file__).resolve().parents[2]


def _spawn(
    url: str,
    session_id: int,
    log: Path,
    prefix: str,
    games: int,
    seed: int,
    slow_s: float,
    go_file: Path | None = None,
) -> subprocess.Popen:
    args = [
        sys.executable,
        str(WRITER),
        url,
        str(session_id),
        str(log),
        prefix,
        str(games),
        str(seed),
        str(slow_s),
    ]
    if go_file is not None:
        args.append(str(go_file))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _log_lines(log: Path) -> list[list[str]]:
    """Complete lines of a writer's log (a line cut by the kill is dropped)."""
    text = log.read_text() if log.exists() else ""
    return [line.split() for line in text.split("\n")[:-1]]


def _wait_for(log: Path, word: str, proc: subprocess.Popen, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not any(line[0] == word for line in _log_lines(log)):
        if proc.poll() is not None:
            raise AssertionError(f"writer exited early: {proc.stderr.read().decode()[-2000:]}")
        if time.monotonic() > deadline:
            raise AssertionError(f"writer never logged {word!r}")
        time.sleep(0.01)


def _check_every_game_whole(store: Store) -> dict[str, int]:
    """Assert every stored game has all its player lines with parseable JSON; uid -> lines."""
    seen: dict[str, int] = {}
    with store._engine.connect() as conn:
        games = conn.execute(sa.text("SELECT id, uid, player_count, extra FROM games")).all()
        for game_id, uid, player_count, extra in games:
            lines = conn.execute(
                sa.text(
                    "SELECT seat, board, pad FROM game_players WHERE game_id = :g ORDER BY seat"
                ),
                {"g": game_id},
            ).all()
            expected = json.loads(extra)["players"]
            assert player_count == expected, uid
            assert [seat for seat, _, _ in lines] == list(range(expected)), uid
            for _, board, pad in lines:
                assert json.loads(board)["uid"] == uid
                assert "total" in json.loads(pad)
            seen[uid] = len(lines)
        orphans = conn.execute(
            sa.text("SELECT COUNT(*) FROM game_players WHERE game_id NOT IN (SELECT id FROM games)")
        ).scalar()
        assert orphans == 0
        if conn.dialect.name == "sqlite":
            assert conn.exec_driver_sql("PRAGMA integrity_check").scalar() == "ok"
            assert conn.exec_driver_sql("PRAGMA foreign_key_check").all() == []
    for game in store.list_games():  # the public reader agrees
        assert len(game.players) == game.extra["players"]
    return seen


def _kill_writers(store_url: str, tmp_path: Path, kills: int, seed: int) -> dict[str, int]:
    """Start a slow writer ``kills`` times and SIGKILL it at a random moment; check after each."""
    rng = random.Random(seed)
    with Store(store_url, history=schema_history()) as store:
        session_id = store.create_session("crash night").id
    begun: set[str] = set()
    done: set[str] = set()
    mid_transaction = between_lines = 0
    for run in range(kills):
        log = tmp_path / f"kill-{run}.log"
        proc = _spawn(store_url, session_id, log, f"k{run}", 1000, seed * 1000 + run, 0.05)
        _wait_for(log, "begin", proc)
        time.sleep(rng.uniform(0.0, 0.6))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stderr.close()
        assert proc.returncode == -signal.SIGKILL
        lines = _log_lines(log)
        begun |= {line[1] for line in lines if line[0] == "begin"}
        done |= {line[1] for line in lines if line[0] == "done"}
        last = lines[-1][0]
        mid_transaction += last in ("begin", "line")
        with Store(store_url, history=schema_history()) as store:
            stored = _check_every_game_whole(store)
        assert done <= set(stored), "a committed game was lost"
        assert set(stored) <= begun, "a game appeared from nowhere"
        in_flight = [line for line in lines if line[0] == "begin"][-1]
        if last == "line" and int(lines[-1][2]) < int(in_flight[2]) - 1:
            # Killed between two player lines, before the commit could start.
            between_lines += 1
            assert in_flight[1] not in stored, "a half-written game became visible"
    return {
        "kills": kills,
        "mid_transaction": mid_transaction,
        "between_lines": between_lines,
        "games": len(stored),
    }


def _concurrent_writers(store_url: str, tmp_path: Path, writers: int, games: int) -> int:
    with Store(store_url, history=schema_history()) as store:
        session_id = store.create_session("busy night").id
    go = tmp_path / "go"
    procs = []
    for index in range(writers):
        log = tmp_path / f"writer-{index}.log"
        procs.append((_spawn(store_url, session_id, log, f"w{index}", games, index, 0.0, go), log))
    for proc, log in procs:
        _wait_for(log, "ready", proc)
    go.touch()
    retries = 0
    for proc, log in procs:
        assert proc.wait(timeout=300) == 0, proc.stderr.read().decode()[-2000:]
        proc.stderr.close()
        retries += sum(int(line[1]) for line in _log_lines(log) if line[0] == "retries")
    with Store(store_url, history=schema_history()) as store:
        stored = _check_every_game_whole(store)
        expected = {f"w{i}-{k}" for i in range(writers) for k in range(games)}
        assert set(stored) == expected
        lines = sum(stored.values())
        assert sum(row.games for row in store.leaderboard(session_id)) == lines
        shared = [row for row in store.leaderboard() if not row.player.startswith("w")]
        assert len({row.player for row in shared}) == len(shared)  # no duplicate players
    print(f"\n{store_url.split(':')[0]}: {writers} writers x {games} games, {retries} retries")
    return len(stored)


def test_killed_writer_leaves_whole_games_only(store_url: str, tmp_path: Path) -> None:
    result = _kill_writers(store_url, tmp_path, kills=2, seed=1)
    assert result["kills"] == 2


@pytest.mark.slow
def test_killed_writer_twenty_times(store_url: str, tmp_path: Path) -> None:
    result = _kill_writers(store_url, tmp_path, kills=20, seed=2)
    print(f"\n{store_url.split(':')[0]}: {result}")
    assert result["between_lines"] >= 5, result  # the kills really hit open transactions


@pytest.mark.slow
def test_concurrent_writers_lose_nothing(store_url: str, tmp_path: Path) -> None:
    assert _concurrent_writers(store_url, tmp_path, writers=4, games=5) == 20


@pytest.mark.slow
def test_eight_concurrent_writers_fifty_games_each(store_url: str, tmp_path: Path) -> None:
    assert _concurrent_writers(store_url, tmp_path, writers=8, games=50) == 400
