"""A full disk during a save and during a fix (issue 29, "a full disk during any write"): one
clear message, the previous state intact, and the same tap succeeds once space returns.

The disk is filled for real: SQLite's ``max_page_count`` is pinned to the database's current
size on every connection the app checks out, so any write that needs a new page fails with
SQLite's own "database or disk is full" — the error a phone-sized SD card gives.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from app_helpers import FULL_BOARD, SECOND_BOARD, enter_by_hand, no_errors, start_game

from leaderboard.drafts import DraftStore
from leaderboard.store import Store
from service.store import schema_history

SAMPLE = Path(__file__).resolve().parents[2] / "reptile_tank" / "samples" / "sample_1.jpg"
#: SQLite's default maximum database size in pages.
ROOMY = 1_073_741_823


@contextmanager
def disk(app_url: str):
    """Yield a switch: ``full["on"] = True`` fills the disk holding ``app_url``'s database."""
    full = {"on": False}

    def checkout(dbapi_connection, _record, _proxy):
        if not isinstance(dbapi_connection, sqlite3.Connection):
            return
        size = 1 if full["on"] else ROOMY  # clamped by SQLite to the current page count
        dbapi_connection.execute(f"PRAGMA max_page_count = {size}")

    sa.event.listen(sa.engine.Engine, "checkout", checkout)
    try:
        yield full
    finally:
        sa.event.remove(sa.engine.Engine, "checkout", checkout)


def said(at) -> str:
    return " ".join(str(e.value) for e in (*at.error, *at.warning, *at.info, *at.success))


def test_a_save_on_a_full_disk_says_so_keeps_the_game_and_succeeds_once_space_returns(app, app_env):
    with disk(app_url=app_env) as full:
        a = start_game(app)
        enter_by_hand(a, "Ann", FULL_BOARD)
        enter_by_hand(a, "Ben", SECOND_BOARD)
        a.switch_page("ui/reptile_tank/pages/confirm.py").run()
        no_errors(a)
        full["on"] = True
        a.button(key="confirm_save").click().run()
        assert not a.exception
        message = said(a)
        assert "Not saved" in message and "disk" in message and "full" in message, message
        full["on"] = False
        store = Store(app_env, history=schema_history())
        assert store.list_games() == []  # nothing half-saved
        night = a.session_state["rt_session_id"]
        draft = DraftStore(store).current(night)
        assert draft.document["entries"]["Ben"]["rows"] == SECOND_BOARD  # the game is intact
        a.button(key="confirm_save").click().run()  # the same tap, with space again
        no_errors(a)
        (game,) = store.list_games()
        assert [p.board["rows"] for p in game.players] == [FULL_BOARD, SECOND_BOARD]
        store.close()


def test_a_photo_read_on_a_full_disk_says_so_keeps_the_stored_game_and_is_saved_once_space_returns(
    app, app_env
):
    with disk(app_url=app_env) as full:
        a = start_game(app)
        a.switch_page("ui/reptile_tank/pages/photo.py").run()
        full["on"] = True  # the photo and its read board need new pages
        a.file_uploader(key="photo_upload_Ann").upload(
            "table.jpg", SAMPLE.read_bytes(), "image/jpeg"
        )
        a.run()
        assert not a.exception
        message = said(a)
        assert "Not saved" in message and "full" in message, message
        full["on"] = False
        store = Store(app_env, history=schema_history())
        night = a.session_state["rt_session_id"]
        assert DraftStore(store).current(night).document["entries"].get("Ann") is None  # as before
        read = a.session_state["rt_entries"]["Ann"].rows
        a.button(key="storage_retry_end").click().run()  # "Retry saving", with space again
        no_errors(a)
        assert DraftStore(store).current(night).document["entries"]["Ann"]["rows"] == read
        store.close()
