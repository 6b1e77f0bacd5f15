"""The real-browser journey: Debian's Chromium through Playwright against `streamlit run`.

Start the server with a temporary database, upload the sample photo for both players, fix one
cell with one tap, confirm, and find the players on the leaderboard.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_helpers import no_sideways_scroll

from ui.navigation import PAGES
from ui.serve import CHROMIUM, CHROMIUM_ARGS, goto_page, serve_app, wait_idle

PAGE_TITLES = [title for _section, _script, title, _icon, _url in PAGES]

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "reptile_tank" / "samples" / "sample_1.jpg"
MODEL = ROOT / "models" / "card_embedder.onnx"

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]


def require_browser() -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Debian's Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (dev extra)")
    if not MODEL.exists():
        pytest.skip(f"the card reader's model is missing: {MODEL.relative_to(ROOT)}")
    if not SAMPLE.exists():
        pytest.skip(f"the sample photo is missing: {SAMPLE.relative_to(ROOT)}")


def pick_player(page, key: str, name: str) -> None:
    """Tap ``name`` in the player radio buttons with widget key ``key``."""
    page.locator(f".st-key-{key} label").filter(has_text=name).first.click()
    wait_idle(page)


def button(page, key: str):
    """The visible button with widget key ``key`` (a button with help text is drawn twice)."""
    return page.locator(f".st-key-{key} button").locator("visible=true").first


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


def upload_sample(page, player: str) -> None:
    page.locator(f".st-key-photo_upload_{player} input[type=file]").set_input_files(str(SAMPLE))
    wait_idle(page)
    page.get_by_text("Read in", exact=False).first.wait_for(timeout=60_000)


def test_photo_fix_confirm_leaderboard(tmp_path):
    require_browser()
    from playwright.sync_api import sync_playwright

    env = {
        "REPTILE_TANK_DB_URL": f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}",
        "REPTILE_TANK_HOME": str(tmp_path / "home"),
    }
    with serve_app(env) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(url)
            wait_idle(page)
            # Game setup
            page.locator(".st-key-setup_new_session input").fill("Friday")
            page.get_by_role("button", name="Create").click()
            wait_idle(page)
            page.locator(".st-key-setup_players textarea").fill("Ann\nBen")
            button(page, "setup_start").click()
            wait_idle(page)
            page.get_by_text("Game started with 2 players.").wait_for()
            # Photograph both terrariums
            goto_page(page, "Photograph")
            upload_sample(page, "Ann")
            pick_player(page, "photo_player", "Ben")
            upload_sample(page, "Ben")
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

            standings = Store(env["REPTILE_TANK_DB_URL"]).leaderboard()
            assert sorted(row.player for row in standings) == ["Ann", "Ben"]
            # no page scrolls sideways on a phone (the same game night, opened from its link)
            phone = browser.new_page(viewport={"width": 390, "height": 844}, has_touch=True)
            phone.goto(page.url)
            wait_idle(phone)
            for title in PAGE_TITLES:
                goto_page(phone, title)
                no_sideways_scroll(phone)
        except Exception:
            page.screenshot(path=str(tmp_path / "failure.png"), full_page=True)
            raise
        finally:
            browser.close()
