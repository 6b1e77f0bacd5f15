"""Write ``v4_played_games.sqlite3``: a leaderboard database as main's code at commit 4a2a53b
wrote it (schema version 4: the played games of the listed games in ``played_games`` /
``played_game_players``, drafts in ``game_drafts``), for the version 5 migration test.

It opens a copy of ``v3_both_games.sqlite3`` with that code (which migrates it to version 4,
moving Nimalia's tables into the played-games tables) and saves one more game of a game id
no shipped game has (``other_game``), one player of it not in any other game::

    mkdir -p /tmp/v4 && git archive 4a2a53b | tar -x -C /tmp/v4 && \\
        cp tests/leaderboard/data/make_v4_fixture.py tests/leaderboard/data/v3_both_games.sqlite3 \\
        /tmp/v4/tests/leaderboard/data/ && cd /tmp/v4 && PYTHONPATH=. \\
        python tests/leaderboard/data/make_v4_fixture.py v4_played_games.sqlite3
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from leaderboard import Store
from leaderboard.played import PlayedGames


def main(path: str) -> None:
    target = Path(path)
    shutil.copyfile(Path(__file__).parent / "v3_both_games.sqlite3", target)
    store = Store(f"sqlite:///{target}")
    assert store.schema_version() == 4
    night = next(s.id for s in store.list_sessions() if s.name == "Saturday")
    result = {
        "players": [{"name": "Zoe", "total": 12, "rank": 1}, {"name": "Dev", "total": 5, "rank": 2}]
    }
    PlayedGames(store, "other_game").save_game(night, {"uid": "other-1", "cells": [1, 2]}, result)
    PlayedGames(store, "other_game").put_draft(night, {"cells": [3]})
    store.close()
    print(f"wrote {target} ({target.stat().st_size} bytes)")


if __name__ == "__main__":
    main(sys.argv[1])
