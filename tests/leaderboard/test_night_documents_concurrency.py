"""Two phones writing a night's one-per-night document at once (the Nimalia game in progress, the
night's settings) each get their own revision, and the last write is what is read back.

Before the night's row was locked, the Nimalia draft read its revision without a lock: on
PostgreSQL two writers could both read revision *n* and both return *n + 1*, and the night's first
two writes could race on the insert (a unique-key error shown as a storage failure)."""

from __future__ import annotations

import threading

import pytest

from leaderboard import Store
from leaderboard.drafts import DraftStore
from leaderboard.played import PlayedGames
from leaderboard.records import NotFoundError
from service.store import schema_history

WRITERS = 6
WRITES_EACH = 8


def _write_all(put, night: int) -> list[int]:
    """Every writer thread puts WRITES_EACH documents at once; returns every revision returned."""
    revisions: list[int] = []
    failures: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(WRITERS)

    def writer(seat: int) -> None:
        try:
            start.wait()
            for turn in range(WRITES_EACH):
                revision = put(night, {"writer": seat, "turn": turn})
                with lock:
                    revisions.append(revision)
        except BaseException as error:  # noqa: BLE001 - reported by the test below
            with lock:
                failures.append(error)

    threads = [threading.Thread(target=writer, args=(seat,)) for seat in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures, failures
    return revisions


@pytest.mark.slow
@pytest.mark.parametrize("document", ["nimalia_draft", "settings"])
def test_concurrent_writers_get_distinct_revisions(store_url: str, document: str) -> None:
    store = Store(store_url, history=schema_history())
    try:
        night = store.create_session("Friday").id
        if document == "nimalia_draft":
            nimalia = PlayedGames(store, "nimalia")
            put, read = nimalia.put_draft, nimalia.draft
        else:
            drafts = DraftStore(store)
            put = drafts.put_settings
            read = drafts.settings
        revisions = _write_all(put, night)
        total = WRITERS * WRITES_EACH
        assert sorted(revisions) == list(range(1, total + 1))
        latest, revision = read(night)
        assert revision == total
        assert latest is not None and set(latest) >= {"writer", "turn"}
    finally:
        store.close()


def test_writing_to_a_missing_night_is_refused(store_url: str) -> None:
    store = Store(store_url, history=schema_history())
    try:
        with pytest.raises(NotFoundError):
            PlayedGames(store, "nimalia").put_draft(404, {"players": []})
    finally:
        store.close()
