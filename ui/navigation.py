"""The app's pages, in the order of the journey at the table."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

#: Folder the page scripts are given relative to (paths given to ``st.Page`` are relative to
#: ``app.py``): each game's pages live in its own folder, the shared ones in ``ui/pages``.
PAGES_DIR = Path("ui")

#: (section, script, title, icon, url path) of every page.
PAGES: tuple[tuple[str, str, str, str, str], ...] = (
    ("Game", "reptile_tank/pages/setup.py", "Game setup", "🎲", "setup"),
    ("Game", "reptile_tank/pages/photo.py", "Photograph", "📷", "photo"),
    ("Game", "reptile_tank/pages/check.py", "Check the read", "🔎", "check"),
    ("Game", "reptile_tank/pages/pad.py", "Score pad", "🧮", "pad"),
    ("Game", "reptile_tank/pages/confirm.py", "Confirm & save", "✅", "confirm"),
    ("Game", "nimalia/page.py", "Nimalia", "🦦", "nimalia"),
    ("Results", "pages/leaderboard.py", "Leaderboard", "🏆", "leaderboard"),
    ("Results", "pages/players.py", "Players & history", "👤", "players"),
    ("More", "reptile_tank/pages/solo.py", "Solo vs the Master", "🧑‍🔬", "solo"),
    ("More", "reptile_tank/pages/rules.py", "Rules", "📜", "rules"),
    ("More", "reptile_tank/pages/deck.py", "My deck", "🃏", "deck"),
)


#: Pages that show a photo beside the board use the whole width of a laptop screen.
WIDE_PAGES = frozenset({"check"})


def layout_for(url_path: str) -> str:
    """``"wide"`` for the photo-beside-board pages, ``"centered"`` for the rest.

    A phone is narrower than either, so this only changes the laptop view.
    """
    return "wide" if url_path in WIDE_PAGES else "centered"


def page_path(script: str) -> str:
    """The path of a page as ``st.switch_page``/``st.page_link`` want it.

    ``script`` is the page's url path with ``.py`` (``"setup.py"``) or its script path below
    ``ui/`` (``"reptile_tank/pages/setup.py"``).
    """
    by_url = {url: path for _section, path, _title, _icon, url in PAGES}
    return str(PAGES_DIR / by_url.get(script.removesuffix(".py"), script))


def build_navigation() -> st.navigation:
    """The ``st.navigation`` object with every page, grouped by section."""
    sections: dict[str, list[st.Page]] = {}
    for i, (section, script, title, icon, url) in enumerate(PAGES):
        sections.setdefault(section, []).append(
            st.Page(str(PAGES_DIR / script), title=title, icon=icon, url_path=url, default=i == 0)
        )
    return st.navigation(sections)
