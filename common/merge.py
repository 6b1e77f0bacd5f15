"""Three-way merge of JSON documents: a stale writer's change kept when it touches other cells.

Two phones edit one shared document (a game in progress, a night's settings). When phone A
writes after phone B, A holds three versions: ``base`` (what A last read or wrote), ``mine``
(A's page now) and ``theirs`` (what is stored now, B's write). :func:`merge3` keeps every
change of either side that the other did not also make: objects are merged key by key, lists
of the same length element by element (a board's rows, a row's cells), lists of plain values
that grew or shrank as sets (the cells a player fixed); a place both sides changed to different
values is a *conflict*: ``theirs`` is kept there and the place is reported, so the caller can
offer the player's own value again. Nothing is ever dropped silently.

Game-blind and pure: both games (Reptile Tank drafts, Nimalia games in progress) resolve
conflicts through this one function.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

Path = tuple[Any, ...]


@dataclass
class Merge:
    """The result of :func:`merge3`.

    Attributes
    ----------
    document : Any
        ``theirs`` with every non-conflicting change of ``mine`` applied.
    conflicts : list of tuple
        Paths (keys and indexes from the root) that both sides changed differently; the
        merged document holds ``theirs`` there.
    """

    document: Any
    conflicts: list[Path] = field(default_factory=list)


_MISSING = object()


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b or (a is _MISSING and b is _MISSING)


def _plain(value: Any) -> bool:
    """A value a list can hold as a set member (scalars and lists/tuples of scalars)."""
    if isinstance(value, str | int | float | bool) or value is None:
        return True
    return isinstance(value, list | tuple) and all(
        isinstance(v, str | int | float | bool) or v is None for v in value
    )


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _merge(base: Any, mine: Any, theirs: Any, path: Path, conflicts: list[Path]) -> Any:
    if _same(mine, theirs) or _same(mine, base):
        return theirs
    if _same(theirs, base):
        return mine
    # both changed, differently
    if isinstance(base, dict) and isinstance(mine, dict) and isinstance(theirs, dict):
        merged: dict[str, Any] = {}
        for key in list(theirs) + [k for k in mine if k not in theirs]:
            value = _merge(
                base.get(key, _MISSING),
                mine.get(key, _MISSING),
                theirs.get(key, _MISSING),
                (*path, key),
                conflicts,
            )
            if value is not _MISSING:
                merged[key] = value
        return merged
    if isinstance(base, list) and isinstance(mine, list) and isinstance(theirs, list):
        if len(base) == len(mine) == len(theirs):
            return [
                _merge(b, m, t, (*path, i), conflicts)
                for i, (b, m, t) in enumerate(zip(base, mine, theirs, strict=True))
            ]
        n = len(base)
        if min(len(mine), len(theirs)) == n and not all(_plain(v) for v in (*mine, *theirs)):
            # one side appended (a new round): merge the common part, keep the appended tail
            head = [
                _merge(b, m, t, (*path, i), conflicts)
                for i, (b, m, t) in enumerate(zip(base, mine[:n], theirs[:n], strict=True))
            ]
            return head + (mine[n:] if len(mine) > n else theirs[n:])
        if all(_plain(v) for v in (*base, *mine, *theirs)):
            base_keys = {_key(v) for v in base}
            mine_keys = {_key(v) for v in mine}
            removed = base_keys - mine_keys
            kept = [v for v in theirs if _key(v) not in removed]
            seen = {_key(v) for v in kept}
            for value in mine:
                if _key(value) not in base_keys and _key(value) not in seen:
                    kept.append(value)
                    seen.add(_key(value))
            return kept
    conflicts.append(path)
    return theirs


def merge3(base: Any, mine: Any, theirs: Any) -> Merge:
    """Merge ``mine`` (changed from ``base``) into ``theirs`` (also changed from ``base``).

    Examples
    --------
    >>> merge3({"a": 1, "b": 1}, {"a": 2, "b": 1}, {"a": 1, "b": 3}).document
    {'a': 2, 'b': 3}
    >>> merge3({"a": 1}, {"a": 2}, {"a": 3}).conflicts
    [('a',)]
    """
    conflicts: list[Path] = []
    document = _merge(base, mine, theirs, (), conflicts)
    return Merge(document=None if document is _MISSING else document, conflicts=conflicts)


def changed_paths(before: Any, after: Any, *, limit: int = 50) -> list[Path]:
    """The places (leaf paths) where ``after`` differs from ``before``, at most ``limit``."""
    found: list[Path] = []

    def walk(a: Any, b: Any, path: Path) -> None:
        if len(found) >= limit or _same(a, b):
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for key in list(a) + [k for k in b if k not in a]:
                walk(a.get(key, _MISSING), b.get(key, _MISSING), (*path, key))
            return
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(x, y, (*path, i))
            return
        found.append(path)

    walk(before, after, ())
    return found


def get_path(document: Any, path: Path, default: Any = None) -> Any:
    """The value at ``path`` in ``document`` (``default`` when a step is missing)."""
    value = document
    for step in path:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return default
    return value


def set_path(document: Any, path: Path, value: Any) -> bool:
    """Put ``value`` at ``path`` in ``document`` (in place); False when the place is gone."""
    if not path:
        return False
    target = get_path(document, path[:-1], _MISSING)
    last = path[-1]
    if isinstance(target, dict) and isinstance(last, str):
        target[last] = value
        return True
    if isinstance(target, list) and isinstance(last, int) and 0 <= last < len(target):
        target[last] = value
        return True
    return False


def path_text(path: Path) -> str:
    """A path as ``a › b › 3`` (for messages)."""
    return " › ".join(str(step) for step in path) or "the whole document"
