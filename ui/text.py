"""User text on a page: the one markdown escape every page uses, and stored times in the
viewer's time zone (game-blind)."""

from __future__ import annotations

import re

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|~<>:$])")


def escape_markdown(text: str) -> str:
    """Backslash-escape markdown (and Streamlit's ``:color[...]``) syntax in user text.

    For the few places where Streamlit renders a label as markdown (widget labels, expander
    titles); elsewhere user text goes through ``st.text`` or a dataframe. HTML is never rendered
    by Streamlit without ``unsafe_allow_html``, which the app never passes.
    """
    return _MARKDOWN_SPECIALS.sub(r"\\\1", str(text))


def local_time(stamp: str | None, timezone: str | None) -> str:
    """A stored UTC timestamp as ``YYYY-MM-DD HH:MM`` in the viewer's time zone (UTC when the
    browser did not say which)."""
    from datetime import datetime
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if not stamp:
        return ""
    try:
        moment = datetime.fromisoformat(stamp)
        if timezone:
            moment = moment.astimezone(ZoneInfo(timezone))
    except (ValueError, ZoneInfoNotFoundError):
        return stamp[:16].replace("T", " ")
    return moment.strftime("%Y-%m-%d %H:%M")
