"""Issue 29 item 8, one test per finding, each answered as the issue says it should be
(the night-id/symlink and malformed-settings findings are tested in tests/app/
test_files_whole.py and tests/app/test_night_settings_shared.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from PIL import Image

from common.safe_io import SafeFileError, parse_json
from leaderboard import Store
from leaderboard.records import LeaderboardError
from leaderboard.store import StorageError
from service.reptile_tank.import_check import check_game
from service.store import schema_history
from tests.hostile.conftest import REPO, assert_clean_refusal, run_cli
from tests.leaderboard.lb_helpers import fixed_game

GAME = {"goals": [3, 8, 1, 13], "players": []}
SQUARES = {"squares": [["." for _ in range(6)] for _ in range(6)]}


def _game(tmp_path: Path, names: list[str]) -> str:
    document = copy.deepcopy(GAME)
    document["players"] = [{"name": n, "rounds": [SQUARES]} for n in names]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(document))
    return str(path)


def test_nimalia_score_game_refuses_forged_lines_and_long_names_like_reptile_tank(tmp_path):
    forged = "Ann\x1b]0;pwned\x07\nRanking: 1. Mallory: 999"
    line = assert_clean_refusal(
        run_cli("nimalia", "score-game", _game(tmp_path, [forged, "Ben"])), "control characters"
    )
    assert "\x1b" not in line
    assert_clean_refusal(
        run_cli("nimalia", "score-game", _game(tmp_path, ["A" * 101, "Ben"])),
        "101 characters, at most 100",
    )
    ok = run_cli("nimalia", "score-game", _game(tmp_path, ["A" * 100, "Bén 🦦"]))
    assert ok.returncode == 0, ok.stderr
    assert "A" * 100 in ok.stdout and "Bén 🦦" in ok.stdout


@pytest.mark.slow  # one photo read in a child: about 12 s on the shared machine
def test_nimalia_score_of_a_photo_without_a_reserve_gives_the_check_line(tmp_path):
    photo = tmp_path / "terrarium.jpg"  # a Reptile Tank terrarium: no Nimalia reserve in it
    with Image.open(REPO / "reptile_tank" / "samples" / "sample_1.jpg") as image:
        image.thumbnail((1000, 1000))
        image.save(photo, quality=90)
    run = run_cli("nimalia", "score", str(photo), "--goals", "1,7,12,16")
    if run.returncode == 2:  # refused outright: one clean line
        assert_clean_refusal(run, "no reserve found")
        return
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("check this read: "), run.stdout[:300]  # as `nimalia read` says
    assert lines[1].startswith("  row "), lines[:3]  # then the squares to check
    assert any(line.startswith("Total of the scored goals") for line in lines)


def test_nimalia_read_of_a_200_by_249000_png_is_one_clear_error(tmp_path):
    path = tmp_path / "strip.png"
    Image.new("L", (200, 249_000), 128).save(path)
    assert_clean_refusal(run_cli("nimalia", "read", str(path)), "200x249000", "not a photo")


def test_import_refuses_a_night_id_that_is_a_path(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'a.sqlite3'}", history=schema_history())
    night = store.create_session("Friday").id
    store.save_game(fixed_game(night, {"Ann": 3, "Ben": 4}))
    document = store.export_json()
    for bad in ("../../etc", "a/b", "..", "x y"):
        hostile = copy.deepcopy(document)
        hostile["sessions"][0]["uid"] = hostile["games"][0]["session_uid"] = bad
        with pytest.raises(LeaderboardError, match="is not a game night id"):
            Store(f"sqlite:///{tmp_path / 'b.sqlite3'}", history=schema_history()).import_json(
                hostile, verify=check_game
            )


def test_import_of_a_year_9999_timestamp_or_ids_over_2_63_is_a_clear_error(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'a.sqlite3'}", history=schema_history())
    night = store.create_session("Friday").id
    store.save_game(fixed_game(night, {"Ann": 3, "Ben": 4}))
    document = store.export_json()
    target = Store(f"sqlite:///{tmp_path / 'b.sqlite3'}", history=schema_history())
    for place in ("played_at", "created_at"):
        hostile = copy.deepcopy(document)
        (hostile["games"][0] if place == "played_at" else hostile["sessions"][0])[place] = (
            "9999-12-31T23:59:59-05:00"
        )
        with pytest.raises(LeaderboardError, match="out of range"):
            target.import_json(hostile, verify=check_game)
    for call in (
        lambda: target.get_game(2**63),
        lambda: target.delete_game(2**64),
        lambda: target.list_games(2**63),
    ):
        with pytest.raises(LeaderboardError, match="out of the database's range|no "):
            call()
    assert target.list_games() == []  # nothing written


@pytest.mark.parametrize("url", ["mysql://u@h/db", "oracle://h/db", "nosuch://h/db", "::://x"])
def test_an_unknown_database_url_scheme_is_a_clear_error(url):
    with pytest.raises(StorageError) as caught:
        Store(url, history=schema_history())
    assert "\n" not in str(caught.value)
    assert "not supported" in str(caught.value) or "not a database URL" in str(caught.value)


def test_duplicate_json_keys_are_refused():
    with pytest.raises(SafeFileError, match="'rows' appears twice"):
        parse_json('{"rows": [[1]], "rows": [[2]]}', where="board.json")
    with pytest.raises(SafeFileError, match="appears twice"):
        parse_json('{"players": [{"name": "Ann", "name": "Eve"}]}', where="game.json")
    assert parse_json('{"a": {"x": 1}, "b": {"x": 2}}') == {"a": {"x": 1}, "b": {"x": 2}}


def test_cli_refuses_a_document_with_a_key_twice(tmp_path):
    path = tmp_path / "game.json"
    path.write_text('{"goals": [3, 8, 1, 13], "goals": [1, 2, 3, 4], "players": []}')
    assert_clean_refusal(run_cli("nimalia", "score-game", str(path)), "appears twice")


def test_a_damaged_sqlite_file_is_reported_at_open(tmp_path):
    path = tmp_path / "leaderboard.sqlite3"
    store = Store(f"sqlite:///{path}", history=schema_history())
    night = store.create_session("Friday").id
    for i in range(60):
        store.save_game(fixed_game(night, {f"P{i}": i, "Ben": 4}, notes="x" * 800))
    store.close()
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 8 * page
    import sqlite3

    with sqlite3.connect(path) as conn:  # the games table's root page (1-based page number)
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'games'").fetchone()
    for offset in range((root - 1) * page, (root - 1) * page + 8):  # its b-tree page header
        data[offset] = 0xA5
    path.write_bytes(bytes(data))
    with pytest.raises(StorageError, match="damaged|malformed|not a database") as caught:
        Store(f"sqlite:///{path}", history=schema_history())
    assert "\n" not in str(caught.value)
