"""Writing a document several phones share (a game in progress, a night's settings): one way for
every game.

A page keeps ``base`` (the stored document it last read or wrote, at revision ``seen``) and
edits its own copy (``mine``). :func:`write_merged` writes ``mine`` by compare-and-set; when
another phone wrote first, the stored document (``theirs``) comes back with the conflict, the
page's change is merged into it (:func:`common.merge.merge3`: different cells both kept) and
written again at the new revision. Where both phones changed the same place differently, the
stored value stays and the place is returned as a conflict, with the page's own value, so the
page can show the other phone's version *and* offer its own change again — never drop it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from common.merge import Path, changed_paths, get_path, merge3, path_text, set_path
from leaderboard.drafts import ConflictError

#: Compare-and-set attempts before giving up (each lost race means another phone wrote).
ATTEMPTS = 8

Writer = Callable[[Any, int], int]


class StillConflicting(ConflictError):
    """Other phones kept writing: every attempt lost (the page's change is still offered)."""


@dataclass
class Written:
    """What :func:`write_merged` stored.

    Attributes
    ----------
    document : Any
        The stored document now (the page shows it and uses it as its next ``base``).
    revision : int
        Its revision.
    merged : bool
        True when another phone had written first and the page's change was merged into it.
    conflicts : list of tuple
        Places both changed differently: the stored (other phone's) value was kept.
    offered : list of (tuple, value)
        For each conflicting place, the page's own value, to offer again (:func:`reapply`).
    other_changes : list of tuple
        Places the other phone changed (empty when nobody else wrote).
    """

    document: Any
    revision: int
    merged: bool = False
    conflicts: list[Path] = field(default_factory=list)
    offered: list[tuple[Path, Any]] = field(default_factory=list)
    other_changes: list[Path] = field(default_factory=list)


def write_merged(write: Writer, base: Any, mine: Any, seen: int) -> Written:
    """Write ``mine`` (edited from ``base`` at revision ``seen``) through ``write``.

    Parameters
    ----------
    write : callable
        ``write(document, expected_revision) -> new revision``; raises
        :class:`leaderboard.drafts.ConflictError` (with ``document``/``revision`` of the stored
        version) when the stored revision is not ``expected_revision``.

    Raises
    ------
    StillConflicting
        Every one of :data:`ATTEMPTS` writes lost a race (the page keeps its change).
    """
    merged_any = False
    conflicts: list[Path] = []
    offered: list[tuple[Path, Any]] = []
    other: list[Path] = []
    document, revision = mine, seen
    last: ConflictError | None = None
    for _attempt in range(ATTEMPTS):
        try:
            new_revision = write(document, revision)
        except ConflictError as error:
            if error.document is None:
                raise  # the document is gone: nothing to merge into
            last = error
            theirs = error.document
            merge = merge3(base, mine, theirs)
            merged_any = True
            other = changed_paths(base, theirs, limit=50)
            conflicts = merge.conflicts
            offered = [(p, get_path(mine, p)) for p in conflicts]
            if merge.document == theirs:  # nothing of the page's change left to write
                return Written(theirs, error.revision, True, conflicts, offered, other)
            document, revision = merge.document, error.revision
            continue
        return Written(document, new_revision, merged_any, conflicts, offered, other)
    assert last is not None
    raise StillConflicting(
        "This document", seen=seen, revision=last.revision, document=last.document
    )


def reapply(document: Any, offered: list[tuple[Path, Any]]) -> Any:
    """``document`` (a copy) with the page's offered values put back at their places."""
    result = copy.deepcopy(document)
    for path, value in offered:
        set_path(result, path, value)
    return result


def describe(
    paths: list[Path], *, namer: Callable[[Path], str] | None = None, most: int = 4
) -> str:
    """Places as a short phrase for a message ("Ben › rows › 2 › 3 and 2 more")."""
    name = namer or path_text
    names = list(dict.fromkeys(name(p) for p in paths))
    extra = len(names) - most
    return ", ".join(names[:most]) + (f" and {extra} more" if extra > 0 else "")
