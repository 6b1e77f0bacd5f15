"""Hostile text is stored and exported intact; export -> import round-trips exactly."""

from __future__ import annotations

import csv
import io
import json
import random

import pytest
from lb_helpers import fixed_game, make_game

from leaderboard import (
    EXPORT_FORMAT,
    MAX_NAME_CHARS,
    GamePlayer,
    GameRecord,
    LeaderboardError,
    Store,
)
from leaderboard.store import csv_text
from service.reptile_tank.import_check import check_game
from service.store import schema_history

HOSTILE = [
    "<script>alert('x')</script>",
    '<img src=x onerror="alert(1)">&amp;&lt;',
    "Robert'); DROP TABLE players;--",
    "🦎🐍🐢 Ängström ẞ 龍 عربى",
    '=HYPERLINK("http://evil")',
    'tab\tnew\nline\r\nquote"comma,',
    "x" * MAX_NAME_CHARS,
    "🦎" * MAX_NAME_CHARS,
    "\u202eright-to-left override",
    "  padded inside  ",
]
NOTES = "<b>bold</b> 🎲 " + "n" * 10_000


def _hostile_game(session_id: int, names: list[str]) -> GameRecord:
    rng = random.Random(7)
    return make_game(
        session_id,
        names,
        rng,
        notes=NOTES,
        extra={"<script>": "</script>", "emoji": "🦎" * 100},
        photos=True,
    )


def test_hostile_names_and_text_are_stored_intact(store: Store) -> None:
    session_name = HOSTILE[0] + HOSTILE[7][:60]
    night = store.create_session(session_name)
    for chunk in (HOSTILE[:4], HOSTILE[4:7], HOSTILE[7:]):
        store.save_game(_hostile_game(night.id, chunk))
    assert sorted(store.list_players()) == sorted(HOSTILE)
    assert {r.player for r in store.leaderboard()} == set(HOSTILE)
    assert store.list_sessions()[0].name == session_name
    games = store.list_games()
    assert [p.name for g in games for p in g.players] == HOSTILE
    assert [g.notes for g in games] == [NOTES] * 3
    assert games[0].extra == {"<script>": "</script>", "emoji": "🦎" * 100}


def test_hostile_text_survives_json_and_csv_export(store: Store) -> None:
    night = store.create_session(HOSTILE[1])
    for chunk in (HOSTILE[:4], HOSTILE[4:7], HOSTILE[7:]):
        store.save_game(_hostile_game(night.id, chunk))
    text = json.dumps(store.export_json(), ensure_ascii=False)
    exported = json.loads(text)
    assert [p["name"] for g in exported["games"] for p in g["players"]] == HOSTILE
    rows = list(csv.DictReader(io.StringIO(store.export_csv(), newline="")))
    # CSV: intact, except a formula-like leading character, which gets a ' (issue 16)
    assert [row["player"] for row in rows] == [csv_text(name) for name in HOSTILE]
    assert rows[4]["player"] == "'" + HOSTILE[4]
    assert {row["session"] for row in rows} == {HOSTILE[1]}
    assert rows[0]["notes"].startswith("<b>bold</b>")


def test_rename_to_hostile_name(store: Store) -> None:
    night = store.create_session("n")
    store.save_game(fixed_game(night.id, {"Ann": 3, "Bo": 2}))
    assert store.rename_player("Ann", HOSTILE[7]) == "renamed"
    assert store.leaderboard()[0].player == HOSTILE[7]


def test_names_over_the_limit_are_refused(store: Store) -> None:
    night = store.create_session("n")
    too_long = "y" * (MAX_NAME_CHARS + 1)
    with pytest.raises(LeaderboardError, match="at most"):
        store.save_game(fixed_game(night.id, {too_long: 3, "Bo": 2}))
    with pytest.raises(LeaderboardError, match="at most"):
        store.create_session(too_long)


def _populate(store: Store) -> None:
    rng = random.Random(3)
    first = store.create_session("Friday 🦎", created_at="2026-02-01T19:00:00+00:00")
    second = store.create_session(HOSTILE[0], created_at="2026-02-08T19:00:00+00:00")
    for index in range(6):
        session = first if index < 4 else second
        names = rng.sample(["Ann", "Bo", "Cy", HOSTILE[6], HOSTILE[3]], rng.randint(2, 4))
        stamp = f"2026-02-0{1 + index}T1{index}:00:00+00:00"
        store.save_game(make_game(session.id, names, rng, photos=index % 2 == 0, played_at=stamp))
    board = {"rows": [["water"] * 5 for _ in range(4)]}
    store.save_game(
        GameRecord(
            second.id,
            (GamePlayer("Ann", board, {"total": 33, "groups": []}, 2),),
            mode="solo",
            player_count_variant=True,
            extra={"master": {"level": "very_hard", "pad": {"total": 40}}},
            notes="lost to the Master",
        )
    )
    # Deleting a game leaves a hole in the ids: the export must not depend on ids.
    store.delete_game(store.list_games(first.id)[1].id)


def test_export_import_round_trips_exactly(store: Store, tmp_path) -> None:
    _populate(store)
    exported = store.export_json()
    assert exported["format"] == EXPORT_FORMAT
    assert len(exported["sessions"]) == 2 and len(exported["games"]) == 6
    text = json.dumps(exported, ensure_ascii=False)
    with Store(tmp_path / "fresh.sqlite3", history=schema_history()) as fresh:
        summary = fresh.import_json(json.loads(text), verify=check_game)
        assert (summary.sessions_added, summary.games_added, summary.games_skipped) == (2, 6, 0)
        assert fresh.export_json() == exported
        assert fresh.export_csv() == store.export_csv()
        assert fresh.leaderboard() == store.leaderboard()
        again = fresh.import_json(json.loads(text), verify=check_game)
        assert (again.sessions_added, again.games_added, again.games_skipped) == (0, 0, 6)
        assert fresh.export_json() == exported


def test_import_into_the_backend_under_test(store: Store, tmp_path) -> None:
    with Store(tmp_path / "source.sqlite3", history=schema_history()) as source:
        _populate(source)
        exported = source.export_json()
    store.import_json(exported, verify=check_game)
    assert store.export_json() == exported
    session_id = store.list_sessions()[1].id
    one = store.export_json(session_id)
    assert [s["name"] for s in one["sessions"]] == [HOSTILE[0]]
    assert {g["session_uid"] for g in one["games"]} == {one["sessions"][0]["uid"]}


def test_import_is_all_or_nothing(store: Store) -> None:
    night = store.create_session("n")
    store.save_game(fixed_game(night.id, {"Ann": 3, "Bo": 2}))
    exported = store.export_json()
    with Store("sqlite://", history=schema_history()) as other:
        broken = json.loads(json.dumps(exported))
        broken["games"].append(dict(broken["games"][0], uid="second"))
        broken["games"][1]["players"] = [dict(broken["games"][1]["players"][0], rank=7)]
        with pytest.raises(LeaderboardError, match=r"games\[1\]"):
            other.import_json(broken, verify=check_game)
        assert other.list_sessions() == [] and other.list_games() == []


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(format="other"), "not a"),
        (lambda d: d.update(format_version=99), "format_version"),
        (lambda d: d.update(games={}), "lists"),
        (lambda d: d["sessions"][0].pop("uid"), r"sessions\[0\]: missing key 'uid'"),
        (lambda d: d["games"][0].pop("played_at"), "played_at"),
        (lambda d: d["games"][0].update(session_uid="nope"), "unknown session"),
        (lambda d: d["games"][0]["players"][0].update(photo_thumbnail="***"), "base64"),
        (lambda d: d["games"][0]["players"][0].pop("pad"), "missing key 'pad'"),
    ],
)
def test_malformed_imports_name_the_place(mutate, message) -> None:
    with Store("sqlite://", history=schema_history()) as source:
        night = source.create_session("n")
        source.save_game(fixed_game(night.id, {"Ann": 3, "Bo": 2}))
        exported = source.export_json()
    mutate(exported)
    with Store("sqlite://", history=schema_history()) as target:
        with pytest.raises(LeaderboardError, match=message):
            target.import_json(exported, verify=check_game)
        assert target.list_games() == []


def test_csv_has_one_row_per_player_and_pad_columns(store: Store) -> None:
    rng = random.Random(5)
    night = store.create_session("n")
    store.save_game(make_game(night.id, ["Ann", "Bo", "Cy"], rng, objectives=[3, 11]))
    rows = list(csv.DictReader(io.StringIO(store.export_csv(night.id), newline="")))
    assert [r["seat"] for r in rows] == ["1", "2", "3"]  # "Seat 1" as the app says
    game = store.list_games()[0]
    for row, line in zip(rows, game.players, strict=True):
        assert int(row["total"]) == line.pad["total"]
        assert int(row["pad_lizards"]) == line.pad["lizards"]
        assert row["win"] == str(int(line.rank == 1))
        assert row["objectives"] == "3;11"
