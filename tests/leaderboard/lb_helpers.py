"""Builders of realistic game records for the leaderboard tests (seeded, no scoring import)."""

from __future__ import annotations

import random

from leaderboard import GamePlayer, GameRecord
from scoring.reptile_tank.cards import FACE_LABELS as CARD_IDS  # the 15 fronts and water

PAD_KEYS = ("lizards", "snakes", "turtles", "cockroach", "water", "dry_land", "objectives")
#: A tiny valid JPEG header + payload: the store only checks the magic and the size.
THUMBNAIL = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 8 + b"\xff\xd9"


def random_board(rng: random.Random) -> dict:
    """A 4x5 board JSON of random card ids."""
    return {"rows": [[rng.choice(CARD_IDS) for _ in range(5)] for _ in range(4)]}


def random_pad(rng: random.Random) -> dict:
    """A score-pad-like JSON: the rulebook columns, a total and an explanation list."""
    pad = {key: rng.randint(0, 20) for key in PAD_KEYS}
    pad["total"] = sum(pad.values())
    pad["groups"] = [{"group": "lizards", "cells": [[0, 1], [0, 2]], "vp": pad["lizards"]}]
    pad["pending"] = []
    return pad


def ranks_for(totals: list[int]) -> list[int]:
    """Competition ranks by total (ties share the rank)."""
    return [1 + sum(other > total for other in totals) for total in totals]


def make_game(
    session_id: int,
    names: list[str],
    rng: random.Random,
    *,
    uid: str | None = None,
    photos: bool = False,
    **fields,
) -> GameRecord:
    """A multi-player game of ``names`` with random boards and pads, ranked by total."""
    pads = [random_pad(rng) for _ in names]
    ranks = ranks_for([pad["total"] for pad in pads])
    players = tuple(
        GamePlayer(
            name=name,
            board=random_board(rng),
            pad=pad,
            rank=rank,
            photo_sha256=f"{rng.getrandbits(256):064x}" if photos else None,
            photo_thumbnail=THUMBNAIL if photos else None,
        )
        for name, pad, rank in zip(names, pads, ranks, strict=True)
    )
    fields.setdefault("objectives", [3, 11])
    fields.setdefault("rules_version", "1")
    fields.setdefault("rules_hash", "abc123")
    return GameRecord(session_id=session_id, players=players, uid=uid, **fields)


def fixed_game(session_id: int, totals: dict[str, int], **fields) -> GameRecord:
    """A game with given totals per player (ranked by total, ties share)."""
    names = list(totals)
    ranks = ranks_for(list(totals.values()))
    board = {"rows": [["rock"] * 5 for _ in range(4)]}
    players = tuple(
        GamePlayer(name=name, board=board, pad={"total": totals[name]}, rank=rank)
        for name, rank in zip(names, ranks, strict=True)
    )
    return GameRecord(session_id=session_id, players=players, **fields)
