"""The app's pages, in the order of the journey at the table."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

#: Folder of the page scripts (paths given to ``st.Page`` are relative to ``app.py``).
PAGES_DIR = Path("ui") / "pages"

#: (section, script, title, icon, url path) of every page.
PAGES: tuple[tuple[str, str, str, str, str], ...] = (
    ("Game", "setup.py", "Game setup", "🎲", "setup"),
    ("Game", "photo.py", "Photograph", "📷", "photo"),
    ("Game", "check.py", "Check the read", "🔎", "check"),
    ("Game", "pad.py", "Score pad", "🧮", "pad"),
    ("Game", "confirm.py", "Confirm & save", "✅", "confirm"),
    ("Game", "nimalia.py", "Nimalia", "🦦", "nimalia"),
    ("Results", "leaderboard.py", "Leaderboard", "🏆", "leaderboard"),
    ("Results", "players.py", "Players & history", "👤", "players"),
    ("More", "solo.py", "Solo vs the Master", "🧑‍🔬", "solo"),
    ("More", "rules.py", "Rules", "📜", "rules"),
    ("More", "deck.py", "My deck", "🃏", "deck"),
)


#: Pages that show a photo beside the board use the whole width of a laptop screen.
WIDE_PAGES = frozenset({"check"})


def layout_for(url_path: str) -> str:
    """``"wide"`` for the photo-beside-board pages, ``"centered"`` for the rest.

    A phone is narrower than either, so this only changes the laptop view.
    """
    return "wide" if url_path in WIDE_PAGES else "centered"


def page_path(script: str) -> str:
    """The path of a page script as ``st.switch_page``/``st.page_link`` want it."""
    return str(PAGES_DIR / script)


def build_navigation() -> st.navigation:
    """The ``st.navigation`` object with every page, grouped by section."""
    sections: dict[str, list[st.Page]] = {}
    for i, (section, script, title, icon, url) in enumerate(PAGES):
        sections.setdefault(section, []).append(
            st.Page(page_path(script), title=title, icon=icon, url_path=url, default=i == 0)
        )
    return st.navigation(sections)
