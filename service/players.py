"""Player names, for every game: how a typed name is cleaned and checked (game-blind)."""

from __future__ import annotations

#: Longest player name accepted (characters, after trimming).
MAX_NAME_LENGTH = 40
#: Most players at one table, in every game (solo games have one).
MAX_TABLE_PLAYERS = 4


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


def parse_player_names(text: str) -> list[str]:
    """Split a "one name per line" text into clean, distinct player names (at most 4).

    Raises
    ------
    ValueError
        If a name is invalid, two names are equal (ignoring case), or there are more than
        :data:`MAX_TABLE_PLAYERS` or no names.
    """
    names = []
    for number, line in enumerate(str(text).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            names.append(clean_name(line))
        except ValueError as error:  # say which line: "line 2 (“Xxxxxxxx…”, 41 characters)"
            shown = " ".join(line.split())
            shown = shown if len(shown) <= 20 else shown[:20] + "…"
            raise ValueError(
                f"line {number} ({shown!r}, {len(' '.join(line.split()))} characters): {error}"
            ) from None
    if not names:
        raise ValueError("enter at least one player name")
    if len(names) > MAX_TABLE_PLAYERS:
        raise ValueError(
            f"a game seats at most {MAX_TABLE_PLAYERS} players (solo has its own page)"
        )
    seen: set[str] = set()
    for name in names:
        folded = name.casefold()
        if folded in seen:
            raise ValueError(f"two players are called {name!r}; give them different names")
        seen.add(folded)
    return names
