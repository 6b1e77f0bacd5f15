"""The board, game and solo documents as a typed schema: every key known, every count bounded.

A document key that is not in the schema is an error naming the key, with a "did you mean"
suggestion (``"objective"`` → ``"objectives"``) or a hint where the value belongs elsewhere (a
board file's ``"objectives"`` go on the command line). Nothing is silently ignored: a typo
would otherwise score with defaults and no warning.

Examples
--------
>>> SCHEMAS["game"].check({"players": [], "objective": [3]}, "game.json")
Traceback (most recent call last):
...
scoring.reptile_tank.documents.DocumentError: game.json: unknown key "objective" (did you mean "objectives"?)
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: Players at one table (the rulebook's game is for 1 to 4).
MIN_PLAYERS, MAX_PLAYERS = 1, 4
#: Longest player name accepted, in characters.
MAX_NAME_CHARS = 100


class DocumentError(ValueError):
    """A document that does not fit its schema; the message is one line naming the key."""


@dataclass(frozen=True)
class Schema:
    """The keys of one JSON object: required, optional, and hints for keys that belong elsewhere.

    ``types`` maps a key to the JSON type its value must have (``object``, ``array``, ``string``,
    ``boolean``, ``array|string``); nested objects have their own schema, checked by the reader.
    """

    name: str
    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    types: Mapping[str, str] = field(default_factory=dict)
    elsewhere: Mapping[str, str] = field(default_factory=dict)

    @property
    def keys(self) -> tuple[str, ...]:
        return self.required + self.optional

    def check(self, obj: Any, where: str) -> dict:
        """``obj`` as a dict with only known keys and the required ones; else DocumentError."""
        if not isinstance(obj, dict):
            holds = " and ".join(_quote(k) for k in self.required)
            raise DocumentError(f"{where}: a {self.name} must be a JSON object with {holds}")
        for key in obj:
            if key not in self.keys:
                raise DocumentError(f"{where}: unknown key {_quote(key)}{self._hint(key)}")
        for key in self.required:
            if key not in obj:
                raise DocumentError(f"{where}: missing key {_quote(key)}")
        for key, kind in self.types.items():
            if key in obj and not _is(obj[key], kind):
                raise DocumentError(f"{where}: {_quote(key)} must be {_kind_words(kind)}")
        return obj

    def _hint(self, key: Any) -> str:
        if key in self.elsewhere:
            return f" ({self.elsewhere[key]})"
        close = difflib.get_close_matches(str(key), self.keys, n=1, cutoff=0.6)
        if close:
            return f' (did you mean "{close[0]}"?)'
        return f" (a {self.name} holds {', '.join(_quote(k) for k in self.keys)})"


def _quote(key: Any) -> str:
    text = str(key)
    text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text[:60])
    return f'"{text}"' + ("…" if len(str(key)) > 60 else "")


_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
}


def _is(value: Any, kind: str) -> bool:
    return any(_TYPES[k](value) for k in kind.split("|"))


def _kind_words(kind: str) -> str:
    words = {
        "object": "an object",
        "array": "a list",
        "string": "a string",
        "boolean": "true or false",
    }
    return " or ".join(words[k] for k in kind.split("|"))


_ON_THE_COMMAND_LINE = {
    "objectives": "a board file holds only the rows; objectives go on the command line: "
    "--objectives 3,11",
    "players": "a board file holds only the rows; give the player count with --players N",
    "star_cards_removed": "a board file holds only the rows; use --stars-removed",
}

SCHEMAS: dict[str, Schema] = {
    schema.name: schema
    for schema in (
        Schema(
            "board", required=("rows",), types={"rows": "array"}, elsewhere=_ON_THE_COMMAND_LINE
        ),
        Schema(
            "game",
            required=("players",),
            optional=("objectives", "star_cards_removed"),
            types={
                "players": "array",
                "objectives": "array|string",
                "star_cards_removed": "boolean",
            },
        ),
        Schema("player", required=("name", "board"), types={"name": "string", "board": "object"}),
        Schema(
            "solo",
            required=("player", "master"),
            optional=("objectives", "star_cards_removed"),
            types={
                "player": "object",
                "master": "object",
                "objectives": "array|string",
                "star_cards_removed": "boolean",
            },
        ),
        Schema(
            "solo player",
            required=("board",),
            optional=("name",),
            types={"name": "string", "board": "object"},
        ),
        Schema(
            "master",
            required=("cards",),
            optional=("pairs", "level"),
            types={"cards": "object", "pairs": "array", "level": "string"},
        ),
    )
}


def check_name(name: Any, where: str) -> str:
    """A player name: a non-empty printable string of at most :data:`MAX_NAME_CHARS`."""
    if not isinstance(name, str) or not name.strip():
        raise DocumentError(f'{where}: needs a non-empty "name"')
    if len(name) > MAX_NAME_CHARS:
        raise DocumentError(f'{where}: "name" is {len(name)} characters, at most {MAX_NAME_CHARS}')
    if any(not ch.isprintable() and ch not in _JOINERS for ch in name):
        raise DocumentError(f'{where}: "name" holds control characters (line breaks, escapes)')
    return name


#: Invisible characters a name may hold: the zero-width non-joiner and joiner that Persian and
#: Indic names and emoji families are written with. Every other non-printable character (line
#: breaks, escapes, bidirectional overrides) is refused.
_JOINERS = frozenset("\u200c\u200d")


def check_player_count(n: int, where: str) -> int:
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise DocumentError(
            f'{where}: "players" holds {n}, a game has {MIN_PLAYERS} to {MAX_PLAYERS} players'
        )
    return n
