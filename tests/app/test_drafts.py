"""Drafts that survive: a game in progress is in the database as it changes, resumed by a new
browser session from the game night in the URL, saved once whatever the presses, edited after
saving as an edit, and a storage failure says "Not saved" while keeping the game."""

from __future__ import annotations

import os
import threading

import pytest
import sqlalchemy as sa
from app_helpers import (
    APP,
    FULL_BOARD,
    SECOND_BOARD,
    enter_by_hand,
    fresh_pg_database,
    no_errors,
    start_game,
)
from streamlit.testing.v1 import AppTest

from leaderboard.drafts import DraftConflict, DraftStore
from leaderboard.records import GamePlayer, GameRecord
from leaderboard.store import Store
from service.store import schema_history


def reopen(at: AppTest) -> AppTest:
    """A new browser session (a reload) on the same URL: ``?night=<uid>``."""
    fresh = AppTest.from_file(APP, default_timeout=60)
    fresh.query_params["night"] = at.session_state["rt_night_uid"]
    fresh.run()
    no_errors(fresh)
    return fresh


def fix(at: AppTest, row: int, col: int, label: str) -> AppTest:
    at.button(key=f"check_cell_{row}_{col}").click().run()
    at.button(key=f"check_pick_{label}").click().run()
    no_errors(at)
    return at


def test_a_reload_finds_the_game_players_boards_and_fixes(app):
    at = start_game(app, "Ann\nBen\nCara")
    assert at.query_params["night"] in (uid := at.session_state["rt_night_uid"], [uid])
    enter_by_hand(at, "Ann", FULL_BOARD)
    fix(at, 0, 0, "neon_day_gecko")
    at.session_state["rt_entries"]["Ann"].confidence = None
    at.run()
    again = reopen(at)
    assert again.session_state["rt_players"] == ["Ann", "Ben", "Cara"]
    rows = again.session_state["rt_entries"]["Ann"].rows
    assert rows[0][0] == "neon_day_gecko" and rows[1:] == FULL_BOARD[1:]
    assert "Ben" not in again.session_state["rt_entries"]
    again.switch_page("ui/reptile_tank/pages/check.py").run()
    no_errors(again)
    assert "Gecko" in again.button(key="check_cell_0_0").label


def test_the_next_game_is_a_new_draft_and_the_old_one_is_closed(app, app_env):
    at = start_game(app)
    enter_by_hand(at, "Ann", FULL_BOARD)
    first = at.session_state["rt_draft_uid"]
    at.switch_page("ui/reptile_tank/pages/setup.py").run()
    at.text_area(key="setup_players").input("Cara\nDan")
    at.button(key="setup_start").click().run()
    no_errors(at)
    assert at.session_state["rt_draft_uid"] not in (None, first)
    drafts = DraftStore(Store(app_env, history=schema_history()))
    assert drafts.get(first).status == "closed"
    again = reopen(at)
    assert again.session_state["rt_players"] == ["Cara", "Dan"]
    assert again.session_state["rt_entries"] == {}


def save_table(at: AppTest) -> int:
    enter_by_hand(at, "Ann", FULL_BOARD)
    enter_by_hand(at, "Ben", SECOND_BOARD)
    at.switch_page("ui/reptile_tank/pages/confirm.py").run()
    at.button(key="confirm_save").click().run()
    no_errors(at)
    return at.session_state["rt_last_saved_game"]


def test_saving_is_once_then_a_change_is_an_edit_and_undo_removes_it(app, app_env):
    store = Store(app_env, history=schema_history())
    at = start_game(app)
    game_id = save_table(at)
    assert len(store.list_games()) == 1
    # a reload on the same night sees the game saved; confirming again writes nothing
    again = reopen(at)
    again.switch_page("ui/reptile_tank/pages/confirm.py").run()
    assert any(f"Game {game_id} saved" in s.value for s in again.success)
    assert len(store.list_games()) == 1
    # a fix after saving: said clearly, then written to the same game as an edit
    enter_by_hand(at, "Ann", [["rock"] * 5, *FULL_BOARD[1:]])
    assert any("not on the leaderboard" in w.value for w in at.warning)
    at.switch_page("ui/reptile_tank/pages/confirm.py").run()
    assert at.button(key="confirm_save").label == f"Update game {game_id}"
    at.button(key="confirm_save").click().run()
    no_errors(at)
    games = store.list_games()
    assert len(games) == 1 and games[0].id == game_id
    assert games[0].players[0].board["rows"][0] == ["rock"] * 5
    assert len(games[0].extra["edits"]) == 1
    # undo: the game leaves the leaderboard, stays on the page
    at.button(key="confirm_undo").click().run()
    no_errors(at)
    assert store.list_games() == []
    assert at.session_state["rt_entries"]["Ann"].rows[0] == ["rock"] * 5
    at.button(key="confirm_save").click().run()
    assert len(store.list_games()) == 1


def test_notes_are_kept_in_the_draft_and_saved_with_the_game(app, app_env):
    at = start_game(app)
    enter_by_hand(at, "Ann", FULL_BOARD)
    enter_by_hand(at, "Ben", SECOND_BOARD)
    at.switch_page("ui/reptile_tank/pages/confirm.py").run()
    at.text_area(key="confirm_notes").input("![x](http://127.0.0.1:9/t.png) rematch").run()
    again = reopen(at)
    assert again.session_state["rt_notes"] == "![x](http://127.0.0.1:9/t.png) rematch"
    again.switch_page("ui/reptile_tank/pages/confirm.py").run()
    again.button(key="confirm_save").click().run()
    no_errors(again)
    game = Store(app_env, history=schema_history()).list_games()[0]
    assert game.notes.startswith("![x](http://127.0.0.1:9/t.png) rematch")


def test_a_storage_failure_says_not_saved_keeps_the_game_and_retries(app, monkeypatch):
    at = start_game(app)
    enter_by_hand(at, "Ann", FULL_BOARD)

    def broken(self, *args, **kwargs):
        raise sa.exc.OperationalError(
            "UPDATE drafts", {}, Exception("attempt to write a readonly database")
        )

    real = DraftStore.write
    monkeypatch.setattr(DraftStore, "write", broken)
    at.button(key="check_cell_0_0").click().run()
    at.button(key="check_pick_rock").click().run()
    assert not at.exception
    at.run()
    errors = [e.value.replace("\\", "") for e in at.error]
    assert any("Not saved" in e and "read-only" in e for e in errors), errors
    assert at.session_state["rt_entries"]["Ann"].rows[0][0] == "rock"
    monkeypatch.setattr(DraftStore, "write", real)
    at.button(key="storage_retry").click().run()
    no_errors(at)
    assert reopen(at).session_state["rt_entries"]["Ann"].rows[0][0] == "rock"


# -- the storage layer itself ---------------------------------------------------------------


def record(night: int) -> GameRecord:
    board = {"rows": FULL_BOARD}
    return GameRecord(
        night,
        (GamePlayer("Ann", board, {"total": 40}, 1), GamePlayer("Ben", board, {"total": 30}, 2)),
    )


@pytest.fixture(params=["sqlite", "postgresql"])
def drafts(request, tmp_path):
    """A DraftStore on SQLite, and on PostgreSQL when ``REPTILE_TANK_TEST_PG_URL`` is set."""
    if request.param == "sqlite":
        store = Store(f"sqlite:///{tmp_path / 'd.sqlite3'}", history=schema_history())
        yield DraftStore(store)
        store.close()
        return
    base = os.environ.get("REPTILE_TANK_TEST_PG_URL")
    if not base:
        pytest.skip("REPTILE_TANK_TEST_PG_URL is unset: no PostgreSQL server")
    with fresh_pg_database(base) as url:
        store = Store(url, history=schema_history())
        yield DraftStore(store)
        store.close()


def test_a_stale_write_is_refused_and_blobs_are_stored_once(drafts):
    night = drafts.store.create_session("Friday").id
    draft = drafts.create(night, {"format": 1, "players": ["Ann"]})
    newer = drafts.write(draft.uid, {"format": 1, "players": ["Ann", "Ben"]}, expected_revision=1)
    assert newer.revision == 2
    with pytest.raises(DraftConflict):
        drafts.write(draft.uid, {"format": 1, "players": ["Zed"]}, expected_revision=1)
    assert drafts.get(draft.uid).document["players"] == ["Ann", "Ben"]
    digest = drafts.put_blob(b"photo bytes")
    assert drafts.put_blob(b"photo bytes") == digest
    assert drafts.get_blob(digest) == b"photo bytes"
    assert drafts.get_blob("0" * 64) is None


def test_confirming_from_many_threads_makes_one_game(drafts):
    night = drafts.store.create_session("Friday").id
    draft = drafts.create(night, {"format": 1, "players": ["Ann", "Ben"]})
    results = []
    barrier = threading.Barrier(6)

    def press():
        barrier.wait()
        results.append(drafts.confirm(draft.uid, record(night)))

    threads = [threading.Thread(target=press) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(drafts.store.list_games()) == 1
    assert {game_id for game_id, _ in results} == {drafts.store.list_games()[0].id}
    assert sum(wrote for _, wrote in results) == 1


def test_settings_belong_to_one_night(drafts):
    friday = drafts.store.create_session("Friday").id
    saturday = drafts.store.create_session("Saturday").id
    drafts.put_settings(friday, {"house": {"tiers": [["rock", "basic", 9]]}})
    assert drafts.settings(friday)[0]["house"]["tiers"] == [["rock", "basic", 9]]
    assert drafts.settings(saturday) == ({}, 0)


def test_a_saved_game_reopens_from_the_players_page_and_updates_as_an_edit(app, app_env):
    store = Store(app_env, history=schema_history())
    at = start_game(app)
    game_id = save_table(at)
    at.switch_page("ui/reptile_tank/pages/setup.py").run()
    at.text_area(key="setup_players").input("Cara\nDan")
    at.button(key="setup_start").click().run()  # the table moved on
    at.switch_page("ui/reptile_tank/pages/players.py").run()
    no_errors(at)
    at.selectbox(key="players_game").select(game_id).run()
    at.button(key="players_edit").click().run()
    no_errors(at)
    assert at.session_state["rt_players"] == ["Ann", "Ben"]
    assert at.session_state["rt_last_saved_game"] == game_id
    enter_by_hand(at, "Ben", [["water"] * 5, *SECOND_BOARD[1:]])
    at.switch_page("ui/reptile_tank/pages/confirm.py").run()
    assert at.button(key="confirm_save").label == f"Update game {game_id}"
    at.button(key="confirm_save").click().run()
    no_errors(at)
    (game,) = store.list_games()
    assert game.id == game_id and game.players[1].board["rows"][0] == ["water"] * 5
    assert len(game.extra["edits"]) == 1


def test_a_failed_save_keeps_the_game_and_the_button(app, app_env, monkeypatch):
    at = start_game(app)
    enter_by_hand(at, "Ann", FULL_BOARD)
    enter_by_hand(at, "Ben", SECOND_BOARD)
    at.switch_page("ui/reptile_tank/pages/confirm.py").run()

    def full_disk(self, *args, **kwargs):
        raise sa.exc.OperationalError("INSERT", {}, Exception("database or disk is full"))

    real = DraftStore.confirm
    monkeypatch.setattr(DraftStore, "confirm", full_disk)
    at.button(key="confirm_save").click().run()
    errors = [e.value.replace("\\", "") for e in at.error]
    assert any("Not saved: the disk holding the leaderboard is full" in e for e in errors), errors
    assert at.session_state["rt_last_saved_game"] is None
    assert Store(app_env, history=schema_history()).list_games() == []
    monkeypatch.setattr(DraftStore, "confirm", real)
    at.button(key="confirm_save").click().run()  # retry: the same button
    no_errors(at)
    assert len(Store(app_env, history=schema_history()).list_games()) == 1


def test_recent_players_are_one_tap_away(app):
    at = start_game(app)
    save_table(at)
    at.switch_page("ui/reptile_tank/pages/setup.py").run()
    at.text_area(key="setup_players").input("Cara").run()
    recent = [b for b in at.button if str(b.key).startswith("setup_recent_")]
    assert sorted(b.label for b in recent) == ["Ann", "Ben"]
    next(b for b in recent if b.label == "Ben").click().run()
    assert at.text_area(key="setup_players").value == "Cara\nBen"
    assert [b.label for b in at.button if str(b.key).startswith("setup_recent_")] == ["Ann"]


def test_two_phones_at_one_table_follow_each_others_changes(app):
    one = start_game(app)
    enter_by_hand(one, "Ann", FULL_BOARD)
    two = reopen(one)  # the second phone opens the night's link
    assert two.session_state["rt_entries"]["Ann"].rows == FULL_BOARD
    # phone one fixes a cell; phone two's next interaction shows it and says why
    one.switch_page("ui/reptile_tank/pages/check.py").run()
    fix(one, 0, 0, "rock")
    two.switch_page("ui/reptile_tank/pages/check.py").run()
    assert two.session_state["rt_entries"]["Ann"].rows[0][0] == "rock"
    assert "Rock" in two.button(key="check_cell_0_0").label
    # both change the same game at once (other cells): the later write is merged, both kept,
    # and the later phone is told (issue 29: a stale writer's change is never dropped)
    fix(two, 1, 1, "water")  # written first
    one.session_state["rt_entries"]["Ann"].rows[2][2] = "rock"  # an unsynced change on one
    one.run()
    assert one.session_state["rt_entries"]["Ann"].rows[1][1] == "water"
    assert one.session_state["rt_entries"]["Ann"].rows[2][2] == "rock"
    assert any("another device" in s.value.lower() for s in one.success)
    two.run()
    assert two.session_state["rt_entries"]["Ann"].rows[2][2] == "rock"
