# ruff: noqa: B023 - each race joins its threads before the loop moves on
"""Two phones, one night: two writers released together on a ``threading.Barrier``, 100 tries per
scenario per backend (SQLite always; PostgreSQL when ``REPTILE_TANK_TEST_PG_URL`` is set).

Every shared write is a compare-and-set on the revision the writer saw (issue 29): of two writers
of the same revision exactly one wins, the other is told (``ConflictError`` carrying the stored
document) and, through :func:`service.shared.write_merged`, its change is merged when it touched
other cells and offered again when it touched the same one. Counted per scenario: *lost
updates* (a change neither stored nor offered back), *duplicates* (two writers both accepted on
one revision, two open drafts, a save marking a document it did not save), *spurious errors*
(anything raised that is not a conflict). All three must be 0.

Set ``RACE_REPORT=/path.json`` to write the counts (RELIABILITY.md's table comes from it).
"""

from __future__ import annotations

import copy
import json
import os
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from lb_helpers import fixed_game

from leaderboard import Store
from leaderboard.drafts import ConflictError, DraftConflict, DraftStore, document_hash
from leaderboard.played import PlayedGames
from service.shared import write_merged

TRIES = int(os.environ.get("RACE_TRIES", "100"))
BASE = {"format": 1, "board": {"Ann": ["a", "a", "a"], "Ben": ["b", "b", "b"]}, "notes": ""}


def race(first: Callable[[], Any], second: Callable[[], Any]) -> list[tuple[str, Any]]:
    """Run both on one barrier; each result is ``("ok", value)`` or ``("error", exception)``."""
    barrier = threading.Barrier(2)
    results: list[tuple[str, Any]] = [("none", None), ("none", None)]

    def run(seat: int, work: Callable[[], Any]) -> None:
        barrier.wait()
        try:
            results[seat] = ("ok", work())
        except BaseException as error:  # noqa: BLE001 - counted by the caller
            results[seat] = ("error", error)

    threads = [threading.Thread(target=run, args=(i, w)) for i, w in enumerate((first, second))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def _report(scenario: str, backend: str, counts: Counter) -> None:
    path = os.environ.get("RACE_REPORT")
    if not path:
        return
    data = {}
    if os.path.exists(path):
        with open(path) as handle:
            data = json.load(handle)
    data.setdefault(scenario, {})[backend] = {"tries": TRIES, **counts}
    with open(path, "w") as handle:
        json.dump(data, handle, indent=1, sort_keys=True)


def _backend(store: Store) -> str:
    return store.backend


def _check(counts: Counter) -> None:
    assert counts["lost"] == 0, counts
    assert counts["duplicate"] == 0, counts
    assert counts["spurious"] == 0, counts


def _edit(document: dict, player: str, cell: int, value: str) -> dict:
    changed = copy.deepcopy(document)
    changed["board"][player][cell] = value
    return changed


class _Shared:
    """One kind of shared document: make a fresh one, CAS-write it, read it back."""

    def __init__(self, kind: str, store: Store) -> None:
        self.kind = kind
        self.store = store
        self.drafts = DraftStore(store)
        self.nimalia = PlayedGames(store, "nimalia")

    def fresh(self) -> tuple[Any, int]:
        night = self.store.create_session("Race night").id
        if self.kind == "draft":
            return self.drafts.create(night, BASE).uid, 1
        if self.kind == "nimalia":
            return night, self.nimalia.put_draft(night, BASE, expected_revision=0)
        return night, self.drafts.put_settings(night, BASE, expected_revision=0)

    def writer(self, key: Any) -> Callable[[Any, int], int]:
        if self.kind == "draft":
            return lambda doc, seen: self.drafts.write(key, doc, expected_revision=seen).revision
        if self.kind == "nimalia":
            return lambda doc, seen: self.nimalia.put_draft(key, doc, expected_revision=seen)
        return lambda doc, seen: self.drafts.put_settings(key, doc, expected_revision=seen)

    def read(self, key: Any) -> tuple[dict, int]:
        if self.kind == "draft":
            draft = self.drafts.get(key)
            return draft.document, draft.revision
        if self.kind == "nimalia":
            return self.nimalia.draft(key)
        return self.drafts.settings(key)


KINDS = ("draft", "nimalia", "settings")


@pytest.mark.parametrize("kind", KINDS)
def test_two_writers_of_one_revision_one_wins_one_is_told(store: Store, kind: str) -> None:
    """Raw compare-and-set: exactly one of two writers of revision n is accepted (n + 1); the
    other gets ConflictError carrying the winner's document; nothing else is raised."""
    shared = _Shared(kind, store)
    counts: Counter = Counter()
    for _ in range(TRIES):
        key, seen = shared.fresh()
        write = shared.writer(key)
        mine = [_edit(BASE, "Ann", 0, "A"), _edit(BASE, "Ben", 2, "B")]
        results = race(lambda: write(mine[0], seen), lambda: write(mine[1], seen))
        oks = [i for i, (status, _) in enumerate(results) if status == "ok"]
        told = [
            i
            for i, (status, value) in enumerate(results)
            if status == "error" and isinstance(value, ConflictError)
        ]
        counts["spurious"] += 2 - len(oks) - len(told)
        stored, revision = shared.read(key)
        if len(oks) == 2:
            counts["duplicate"] += 1
            counts["lost"] += 1
        elif len(oks) == 1 and len(told) == 1:
            winner, loser = oks[0], told[0]
            error = results[loser][1]
            if stored != mine[winner] or revision != seen + 1 or error.document != mine[winner]:
                counts["lost"] += 1
            else:
                counts["conflict_told"] += 1
    _report(f"cas_{kind}", _backend(store), counts)
    _check(counts)
    assert counts["conflict_told"] == TRIES


@pytest.mark.parametrize("kind", KINDS)
def test_two_phones_changing_different_cells_both_kept(store: Store, kind: str) -> None:
    """Phone A fixes Ann's cell, phone B Ben's, from the same revision: both fixes are stored
    (the stale one merged and written again), revisions never repeat."""
    shared = _Shared(kind, store)
    counts: Counter = Counter()
    for _ in range(TRIES):
        key, seen = shared.fresh()
        write = shared.writer(key)
        mine = [_edit(BASE, "Ann", 0, "A"), _edit(BASE, "Ben", 2, "B")]
        results = race(
            lambda: write_merged(write, BASE, mine[0], seen),
            lambda: write_merged(write, BASE, mine[1], seen),
        )
        if any(status != "ok" for status, _ in results):
            counts["spurious"] += sum(status != "ok" for status, _ in results)
            continue
        written = [value for _, value in results]
        stored, revision = shared.read(key)
        both = _edit(mine[0], "Ben", 2, "B")
        if stored != both:
            counts["lost"] += 1
        if sorted(w.revision for w in written) != [seen + 1, seen + 2] or revision != seen + 2:
            counts["duplicate"] += 1
        counts["merged"] += sum(w.merged for w in written)
        if any(w.conflicts for w in written):
            counts["spurious"] += 1
    _report(f"merge_{kind}", _backend(store), counts)
    _check(counts)
    assert counts["merged"] == TRIES  # exactly one of each pair was stale and merged


@pytest.mark.parametrize("kind", KINDS)
def test_two_phones_changing_the_same_cell_the_stale_one_is_offered_again(
    store: Store, kind: str
) -> None:
    """Both fix Ann's first cell differently: the first write stays, the second phone is told
    the place and gets its own value back to offer (never silently dropped, never overwriting)."""
    shared = _Shared(kind, store)
    counts: Counter = Counter()
    for _ in range(TRIES):
        key, seen = shared.fresh()
        write = shared.writer(key)
        mine = [_edit(BASE, "Ann", 0, "X"), _edit(BASE, "Ann", 0, "Y")]
        results = race(
            lambda: write_merged(write, BASE, mine[0], seen),
            lambda: write_merged(write, BASE, mine[1], seen),
        )
        if any(status != "ok" for status, _ in results):
            counts["spurious"] += sum(status != "ok" for status, _ in results)
            continue
        stored, revision = shared.read(key)
        stale = [i for i, (_, w) in enumerate(results) if w.conflicts]
        if len(stale) != 1 or revision != seen + 1:
            counts["duplicate" if len(stale) == 0 else "spurious"] += 1
            continue
        loser = stale[0]
        winner = 1 - loser
        offered = results[loser][1].offered
        if stored != mine[winner] or offered != [(("board", "Ann", 0), "XY"[loser])]:
            counts["lost"] += 1
        else:
            counts["offered_again"] += 1
    _report(f"same_cell_{kind}", _backend(store), counts)
    _check(counts)
    assert counts["offered_again"] == TRIES


def test_two_phones_starting_a_game_at_once_make_one_open_draft(store: Store) -> None:
    """Both press Start on a night without a game: one draft is created, the other phone is told
    and given that draft (``current``); the night never has two open drafts."""
    drafts = DraftStore(store)
    counts: Counter = Counter()
    for _ in range(TRIES):
        night = store.create_session("Race night").id
        documents = [_edit(BASE, "Ann", 0, "A"), _edit(BASE, "Ann", 0, "B")]
        results = race(
            lambda: drafts.create(night, documents[0]), lambda: drafts.create(night, documents[1])
        )
        oks = [value for status, value in results if status == "ok"]
        told = [v for s, v in results if s == "error" and isinstance(v, DraftConflict)]
        counts["spurious"] += 2 - len(oks) - len(told)
        current = drafts.current(night)
        open_count = store._transaction(
            lambda c, _a, night=night: c.exec_driver_sql(
                f"SELECT COUNT(*) FROM drafts WHERE session_id = {int(night)} AND status = 'open'"
            ).scalar(),
            write=False,
        )
        if open_count != 1 or len(oks) != 1:
            counts["duplicate"] += 1
        elif told and (told[0].current is None or told[0].current.uid != oks[0].uid):
            counts["lost"] += 1
        elif current is None or current.uid != oks[0].uid:
            counts["lost"] += 1
        else:
            counts["one_open_draft"] += 1
    _report("start_game", _backend(store), counts)
    _check(counts)
    assert counts["one_open_draft"] == TRIES


def test_a_stale_save_never_marks_another_document_saved(store: Store) -> None:
    """Phone A saves what it sees (revision n) while phone B writes a fix (n -> n + 1): either A
    saves first (the game holds A's board, the draft shows B's fix as *changed since save*) or
    A is told the game changed and nothing is saved; never a game with A's board marked as
    saving B's document (the false "saved" of issue 29 item 1)."""
    drafts = DraftStore(store)
    counts: Counter = Counter()
    for _ in range(TRIES):
        night = store.create_session("Race night").id
        draft = drafts.create(night, BASE)
        record = fixed_game(night, {"Ann": 10, "Ben": 12})
        fixed = _edit(BASE, "Ben", 1, "fixed")
        results = race(
            lambda: drafts.confirm(draft.uid, record, expected_revision=1),
            lambda: drafts.write(draft.uid, fixed, expected_revision=1),
        )
        (save_status, saved), (write_status, written) = results
        after = drafts.get(draft.uid)
        if write_status != "ok":
            counts["spurious"] += 1
            continue
        if save_status == "ok":
            # A was first: its game is of BASE, and B's fix shows as not saved yet
            if after.saved_hash != document_hash(BASE) or not after.changed_since_save:
                counts["duplicate"] += 1
            else:
                counts["saved_then_fixed"] += 1
        elif isinstance(saved, DraftConflict):
            if after.game_id is not None or saved.document != fixed:
                counts["lost"] += 1
            else:
                counts["save_told_stale"] += 1
        else:
            counts["spurious"] += 1
    _report("stale_save", _backend(store), counts)
    _check(counts)
    assert counts["saved_then_fixed"] + counts["save_told_stale"] == TRIES


def test_an_edit_saved_while_another_phone_deletes_the_game_never_re_creates_it(
    store: Store,
) -> None:
    """Phone A saves an edit of a saved game while phone B deletes that game (issue 29 item 4):
    either A's edit lands first and B's delete then removes the game, or B's delete lands
    first and A is told (:class:`SavedGameDeleted`, the draft unlinked). Never a re-created game,
    never a raw error (PostgreSQL's foreign-key violation); A's next save stores a new game."""
    from leaderboard.drafts import SavedGameDeleted

    drafts = DraftStore(store)
    counts: Counter = Counter()
    for _ in range(TRIES):
        night = store.create_session("Race night").id
        draft = drafts.create(night, BASE)
        game_id, _ = drafts.confirm(draft.uid, fixed_game(night, {"Ann": 10, "Ben": 12}))
        edited = drafts.write(draft.uid, _edit(BASE, "Ben", 1, "fixed"), expected_revision=1)
        edit = fixed_game(night, {"Ann": 10, "Ben": 14})
        results = race(
            lambda: drafts.confirm(draft.uid, edit, expected_revision=edited.revision),
            lambda: store.delete_game(game_id),
        )
        (save_status, saved), (delete_status, deleted) = results
        games = [g for g in store.list_games() if g.session_id == night]
        if delete_status != "ok" or games:
            counts["duplicate" if games else "spurious"] += 1
            continue
        after = drafts.get(draft.uid)
        if save_status == "ok":
            counts["edited_then_deleted"] += 1  # the next save is told, below
        elif isinstance(saved, SavedGameDeleted) and after.game_id is None:
            counts["edit_told_deleted"] += 1
        else:
            counts["spurious"] += 1
            continue
        try:
            drafts.confirm(draft.uid, edit, expected_revision=after.revision)
        except SavedGameDeleted:
            after = drafts.get(draft.uid)
            drafts.confirm(draft.uid, edit, expected_revision=after.revision)
        games = [g for g in store.list_games() if g.session_id == night]
        if len(games) != 1 or games[0].id == game_id and store.backend != "sqlite":
            counts["lost"] += 1
    _report("edit_vs_delete", _backend(store), counts)
    _check(counts)
    assert counts["edited_then_deleted"] + counts["edit_told_deleted"] == TRIES
