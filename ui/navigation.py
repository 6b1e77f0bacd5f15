"""The app's pages, built from the game list (:mod:`games`): every game's pages in the order
the games were registered, grouped by section, with the shared pages (the leaderboard) among
them. A game's pages live in its own folder; the shared ones in ``ui/pages``."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

import games

#: Folder the page scripts are given relative to (paths given to ``st.Page`` are relative to
#: ``app.py``): each game's pages live in its own folder, the shared ones in ``ui/pages``.
PAGES_DIR = Path("ui")

#: The order of the navigation's sections (a game's other sections come after these).
SECTIONS = ("Game", "Results", "More")

#: Pages of no game: shown first in their section.
SHARED_PAGES: tuple[games.Page, ...] = (
    games.Page("pages/leaderboard.py", "Leaderboard", "🏆", "leaderboard", section="Results"),
)


def all_pages() -> list[games.Page]:
    """Every page, section by section (shared pages first in theirs, then each game's)."""
    found = list(SHARED_PAGES) + [page for _game, page in games.pages()]
    order = list(SECTIONS) + sorted({p.section for p in found} - set(SECTIONS))
    shared = {id(p) for p in SHARED_PAGES}
    return sorted(found, key=lambda p: (order.index(p.section), id(p) not in shared))


def layout_for(url_path: str) -> str:
    """``"wide"`` for the photo-beside-board pages, ``"centered"`` for the rest.

    A phone is narrower than either, so this only changes the laptop view.
    """
    wide = {p.url_path for p in all_pages() if p.wide}
    return "wide" if url_path in wide else "centered"


def page_path(script: str) -> str:
    """The path of a page as ``st.switch_page``/``st.page_link`` want it.

    ``script`` is the page's url path with ``.py`` (``"setup.py"``) or its script path below
    ``ui/`` (``"reptile_tank/pages/setup.py"``).
    """
    by_url = {p.url_path: p.script for p in all_pages()}
    return str(PAGES_DIR / by_url.get(script.removesuffix(".py"), script))


def build_navigation() -> st.navigation:
    """The ``st.navigation`` object with every page, grouped by section; the first game's
    first page is the default."""
    sections: dict[str, list[st.Page]] = {}
    default = next((p for p in all_pages() if p.section == SECTIONS[0]), None)
    for page in all_pages():
        sections.setdefault(page.section, []).append(
            st.Page(
                str(PAGES_DIR / page.script),
                title=page.title,
                icon=page.icon,
                url_path=page.url_path,
                default=page is default,
            )
        )
    return st.navigation(sections)
