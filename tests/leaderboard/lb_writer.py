"""A leaderboard writer process for the crash and concurrency tests (run as a script).

``python lb_writer.py URL SESSION_ID LOG PREFIX GAMES SEED SLOW_S [GO_FILE]``

Saves ``GAMES`` games with uids ``PREFIX-<i>`` into session ``SESSION_ID``, each with 2..4
players (some names shared with other writers, so players are created concurrently) and
``extra["players"]`` = the number of players, so a checker can tell a whole game from a partial
one. Progress goes to ``LOG`` with one unbuffered ``write`` per line::

    ready                       store opened
    begin <uid> <n>             save_game called
    line <uid> <seat>           a player line was written inside the open transaction
    done <uid> <game id>        save_game returned (committed)
    retries <n>                 all saved; transactions the store had to retry

With ``SLOW_S`` > 0 every player line is followed by a random sleep up to ``SLOW_S`` seconds,
so that a SIGKILL is likely to land inside an open transaction. With ``GO_FILE`` the writer
waits, after ``ready``, until that file exists (a start line for concurrent writers).
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

import leaderboard.saved as store_module  # the drawer that writes player lines
from leaderboard import GamePlayer, GameRecord, Store
from service.store import schema_history

SHARED_NAMES = ("Ann", "Bo", "Cy", "Dee", "🦎 Eve <b>")


def main(argv: list[str]) -> int:
    url, session_id, log_path, prefix, games, seed, slow_s = argv[:7]
    go_file = Path(argv[7]) if len(argv) > 7 else None
    rng = random.Random(int(seed))
    log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def note(text: str) -> None:
        os.write(log, (text + "\n").encode())

    original = store_module._insert_player_line

    def traced(conn, game_id, seat, player):
        original(conn, game_id, seat, player)
        note(f"line {player.board['uid']} {seat}")
        if float(slow_s) > 0:
            time.sleep(rng.uniform(0, float(slow_s)))

    store_module._insert_player_line = traced
    store = Store(url, history=schema_history())
    note("ready")
    while go_file is not None and not go_file.exists():
        time.sleep(0.002)
    for index in range(int(games)):
        uid = f"{prefix}-{index}"
        count = rng.randint(2, 4)
        names = rng.sample(SHARED_NAMES, 2) + [f"{prefix}-p{k}" for k in range(count - 2)]
        totals = [rng.randint(0, 120) for _ in names]
        players = tuple(
            GamePlayer(
                name=name,
                board={"uid": uid, "rows": [[rng.choice(["rock", "water"])] * 5] * 4},
                pad={"total": total, "lizards": total // 2},
                rank=1 + sum(other > total for other in totals),
            )
            for name, total in zip(names, totals, strict=True)
        )
        record = GameRecord(
            session_id=int(session_id), players=players, uid=uid, extra={"players": count}
        )
        note(f"begin {uid} {count}")
        game_id = store.save_game(record)
        note(f"done {uid} {game_id}")
    note(f"retries {store.retries}")
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
