"""Write ``v3_both_games.sqlite3``: a leaderboard database as the code before issue 30's
storage change wrote it (schema version 3 plus the side tables of drafts, night settings and
Nimalia's own ``nimalia_games`` / ``nimalia_game_players`` / ``nimalia_drafts``).

It was made by running this script on the code of commit b543c5c (main before the
one-storage-model change), exported read-only and run from its root::

    mkdir -p /tmp/old/tests/leaderboard/data && git archive b543c5c | tar -x -C /tmp/old && \
        cp tests/leaderboard/data/make_v3_fixture.py /tmp/old/tests/leaderboard/data/ && \
        cd /tmp/old && PYTHONPATH=. \
        python tests/leaderboard/data/make_v3_fixture.py v3_both_games.sqlite3

The script uses that code's API (``leaderboard.nimalia_games.NimaliaStore``), so it only runs on
such a checkout; the database it wrote is committed beside it and read by
``tests/leaderboard/test_one_storage_migration.py``.

What it holds (two game nights):

* night 1 "Friday": 2 Reptile Tank table games (one with a thumbnail), 1 solo game, an open
  Reptile Tank draft (the app's draft document: Ann's board entered by hand, a note), night
  settings (house rule, enrolled deck), 2 saved Nimalia games
  (2 and 3 players) and a Nimalia game in progress (revision 3);
* night 2 "Saturday": 1 Reptile Tank table game, 1 saved Nimalia game, settings playing Nimalia.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/leaderboard: lb_helpers

from lb_helpers import THUMBNAIL, fixed_game, make_game  # noqa: E402
from leaderboard.nimalia_games import NimaliaStore  # noqa: E402

from leaderboard import GamePlayer, GameRecord, Store  # noqa: E402
from leaderboard.drafts import DraftStore  # noqa: E402
from service.nimalia import game as N  # noqa: E402
from service.reptile_tank.drafts import GameInProgress, to_document  # noqa: E402
from service.reptile_tank.game import TerrariumEntry  # noqa: E402


def nimalia_game(players: list[str], goals: list[int], seed: int, rounds: int) -> dict:
    rng = random.Random(seed)
    game = N.new_game(players, goals)
    for number in range(1, rounds + 1):
        for player in players:
            for _ in range(3):
                r, c = rng.randrange(6), rng.randrange(6)
                N.set_square(game, player, r, c, rng.choice(N.TOKENS[:-1]))
        if number < rounds:
            N.next_round(game)
    return game


def main(path: str) -> None:
    target = Path(path)
    target.unlink(missing_ok=True)
    store = Store(f"sqlite:///{target}")
    drafts = DraftStore(store)
    nimalia = NimaliaStore(store)
    rng = random.Random(30)

    friday = store.create_session("Friday", created_at="2026-11-27T19:00:00+00:00")
    saturday = store.create_session("Saturday", created_at="2026-11-28T19:00:00+00:00")
    store.save_game(make_game(friday.id, ["Ann", "Ben", "Cleo"], rng, uid="rt-1", photos=True))
    store.save_game(fixed_game(friday.id, {"Ann": 40, "Ben": 40}, uid="rt-2"))
    solo = GameRecord(
        session_id=friday.id,
        mode="solo",
        players=(
            GamePlayer(name="Ann", board={"rows": [["rock"] * 5] * 4}, pad={"total": 31}, rank=1),
        ),
        objectives=[3, 11],
        extra={"master": {"cards": {"rock": 2}}, "winner": "player"},
        uid="rt-solo",
    )
    store.save_game(solo)
    store.save_game(fixed_game(saturday.id, {"Dev": 55, "Ann": 48}, uid="rt-3"))
    board = [["rock", "water", "corn_snake", "empty", "empty"]] + [["empty"] * 5] * 3
    table = GameInProgress(
        players=["Ann", "Ben"],
        entries={"Ann": TerrariumEntry(rows=board, source="manual")},
        notes="in progress",
    )
    drafts.create(friday.id, to_document(table, drafts.put_blob))
    drafts.put_settings(
        friday.id,
        {
            "game": "reptile_tank",
            "house": {"tiers": [["rock", "basic", 3]]},
            "deck": "enrolled",
            "nimalia_deck": "bundled",
        },
    )
    drafts.put_settings(saturday.id, {"game": "nimalia", "nimalia_deck": "bundled"})

    for night, players, goals, seed in (
        (friday.id, ["Ann", "Ben"], [3, 8, 1, 13], 1),
        (friday.id, ["Ann", "Ben", "Cleo"], [2, 12, 4, 16], 2),
        (saturday.id, ["Dev", "Ann"], [5, 14, 7, 20], 3),
    ):
        game = nimalia_game(players, goals, seed, rounds=5)
        nimalia.save_game(night, game, N.score(game))
    in_progress = nimalia_game(["Ann", "Cleo"], [3, 8, 1, 13], 4, rounds=2)
    revision = nimalia.put_draft(friday.id, in_progress)
    revision = nimalia.put_draft(friday.id, in_progress, expected_revision=revision)
    nimalia.put_draft(friday.id, in_progress, expected_revision=revision)
    store.close()
    print(f"wrote {target} ({target.stat().st_size} bytes); thumbnail {len(THUMBNAIL)} bytes")


if __name__ == "__main__":
    main(sys.argv[1])
