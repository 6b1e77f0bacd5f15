"""Storage failures as one sentence for the player ("Not saved: …"), never a traceback."""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa

#: Exceptions that mean "the database could not do it" (as opposed to a bug).
STORAGE_ERRORS: tuple[type[BaseException], ...] = (
    sa.exc.SQLAlchemyError,
    sqlite3.Error,
    OSError,
    ValueError,  # leaderboard.LeaderboardError and friends
)


def storage_message(error: BaseException) -> str:
    """What went wrong with the database, in one short sentence (no SQL, no traceback)."""
    if isinstance(error, sa.exc.DBAPIError) and error.orig is not None:
        text = str(error.orig).strip().splitlines()[0] if str(error.orig).strip() else ""
    else:
        text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    lowered = text.lower()
    if "readonly" in lowered or "read-only" in lowered or "permission" in lowered:
        return "the leaderboard database cannot be written (read-only file or folder)"
    if "disk" in lowered and "full" in lowered or "no space" in lowered:
        return "the disk holding the leaderboard is full"
    if "not a database" in lowered or "malformed" in lowered or "file is encrypted" in lowered:
        return "the leaderboard database file is damaged or not a database"
    if "unable to open" in lowered or "is a directory" in lowered:
        return "the leaderboard database cannot be opened"
    if "could not connect" in lowered or "connection" in lowered and "refused" in lowered:
        return "the database server cannot be reached"
    if not text:
        return f"the database failed ({type(error).__name__})"
    return text[:200]
