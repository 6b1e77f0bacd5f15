"""Player names, for every game: how a typed name is cleaned and checked (game-blind)."""

from __future__ import annotations

#: Longest player name accepted (characters, after trimming).
MAX_NAME_LENGTH = 40


def clean_name(raw: str) -> str:
    """Trim a typed player name and check it; the name is kept as typed otherwise.

    Names are stored and shown as plain text (HTML, Markdown and emoji included, never rendered).

    Raises
    ------
    ValueError
        If the name is empty, longer than :data:`MAX_NAME_LENGTH` or holds control characters.
    """
    name = " ".join(str(raw).split())
    if not name:
        raise ValueError("a player name cannot be empty")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(f"a player name has at most {MAX_NAME_LENGTH} characters")
    if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in name):
        raise ValueError("a player name cannot hold control characters")
    return name
