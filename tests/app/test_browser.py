"""The real-browser journey: Debian's Chromium through Playwright against `streamlit run`.

Start the server with a temporary database, upload the sample photo for both players, fix one
cell with one tap, confirm, and find the players on the leaderboard.
"""

from __future__ import annotations

import pytest
from browser_helpers import (
    LAPTOP,
    SAMPLES,
    app_page,
    button,
    create_night,
    env_for,
    goto_page,
    no_sideways_scroll,
    pick_player,
    require_browser,
    start_game,
    upload,
    wait_idle,
)

from service.store import schema_history
from ui.navigation import all_pages

PAGE_TITLES = [page.title for page in all_pages()]

SAMPLE = SAMPLES[0]

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]


def fix_cell(page, row: int, col: int, label: str) -> None:
    """Tap a board cell, then the label in the picker."""
    button(page, f"check_cell_{row}_{col}").click()
    wait_idle(page)
    button(page, f"check_pick_{label}").click()
    wait_idle(page)


def fill_empty_cells(page) -> None:
    """Fix every cell the reader saw as empty to Water (the sample terrarium is complete)."""
    for row in range(4):
        for col in range(5):
            if "empty" in button(page, f"check_cell_{row}_{col}").inner_text():
                fix_cell(page, row, col, "water")


def test_photo_fix_confirm_leaderboard(tmp_path):
    require_browser()
    env = env_for(tmp_path)
    with app_page(tmp_path, device=LAPTOP, env=env) as page:
        # Game setup
        create_night(page)
        start_game(page, "Ann\nBen")
        page.get_by_text("Game started with 2 players.").wait_for()
        # Photograph both terrariums
        goto_page(page, "Photograph")
        upload(page, "Ann", SAMPLE, timeout_ms=60_000)
        pick_player(page, "photo_player", "Ben")
        upload(page, "Ben", SAMPLE, timeout_ms=60_000)
        # Check Ann's read and fix one cell with one tap in the picker
        goto_page(page, "Check the read")
        pick_player(page, "check_player", "Ann")
        fix_cell(page, 0, 0, "neon_day_gecko")
        fixed = button(page, "check_cell_0_0").inner_text()
        assert "✓" in fixed and "Gecko" in fixed, fixed
        # cells the reader left empty would block saving a finished game: fill them
        fill_empty_cells(page)
        pick_player(page, "check_player", "Ben")
        fill_empty_cells(page)
        # Confirm and save
        goto_page(page, "Confirm & save")
        button(page, "confirm_save").click()
        wait_idle(page)
        page.get_by_text("saved to the leaderboard").wait_for()
        # The leaderboard shows both players with one game each
        goto_page(page, "Leaderboard")
        page.locator('[data-testid="stDataFrame"]').first.wait_for()
        from leaderboard.store import Store

        standings = Store(env["REPTILE_TANK_DB_URL"], history=schema_history()).leaderboard()
        assert sorted(row.player for row in standings) == ["Ann", "Ben"]
        # no page scrolls sideways on a phone (the same game night, opened from its link)
        phone = page.context.browser.new_page(
            viewport={"width": 390, "height": 844}, has_touch=True
        )
        phone.goto(page.url)
        wait_idle(phone)
        for title in PAGE_TITLES:
            goto_page(phone, title)
            no_sideways_scroll(phone)
