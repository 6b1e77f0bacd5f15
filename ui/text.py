"""User text on a page: the one markdown escape every page uses (game-blind)."""

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
