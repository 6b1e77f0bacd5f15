"""Text for a terminal: user-supplied strings shown, never obeyed.

Names, file names and messages that quote them may hold ESC sequences (set the terminal's
title, clear the screen), BEL, line breaks that forge extra output lines, or bidi overrides
that reorder what is shown. :func:`plain` shows every such character escaped (``\\x1b``,
``\\n``, ``\\u202e``) and bounds the length, so one value is always one bounded piece of one line.
"""

from __future__ import annotations

from typing import Any

#: Longest error line printed by ``reptile-tank`` (characters, the ellipsis included).
MAX_ERROR_CHARS = 2000


def plain(text: Any, width: int | None = None) -> str:
    """``text`` with non-printable characters escaped, cut to ``width`` characters (``…``)."""
    value = str(text)
    if width is not None and len(value) > 4 * width:
        value = value[: 4 * width]  # escaping at most quadruples a character: bound the work
    shown = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in value)
    if width is not None and len(shown) > width:
        return shown[: width - 1] + "\u2026"
    return shown
