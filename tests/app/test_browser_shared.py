"""Several people, several game nights, several servers: in a real browser.

- two app servers on one PostgreSQL database: a draft begun on the first is finished and saved
  on the second (skips with a reason when ``REPTILE_TANK_TEST_PG_URL`` is unset);
- two browser contexts on two game nights with different house rules: neither sees the other's
  rules or game;
- a player named like a Markdown image is shown literally and no request leaves for its URL.
"""

from __future__ import annotations

import os

import pytest
from app_helpers import FULL_BOARD, fresh_pg_database
from browser_helpers import (
    LAPTOP,
    PHONE,
    SAMPLES,
    app_page,
    cell_text,
    create_night_and_start,
    env_for,
    goto_page,
    launch,
    no_sideways_scroll,
    pick_player,
    require_browser,
    tap,
    upload,
    wait_idle,
)
from serve import serve_app

from service.store import schema_history
from ui.reptile_tank.labels import full_name, picker_text

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(420)]

FULL = FULL_BOARD  # the finished terrarium both phones enter


def enter_by_hand(page, player: str, rows) -> None:
    """Type a whole board on the check page's grid of drop-downs."""
    goto_page(page, "Check the read")
    pick_player(page, "check_player", player)
    manual = page.locator(".st-key-check_manual button")
    if manual.count():
        manual.first.click()
        wait_idle(page)
    expander = page.get_by_text("Type the whole board").first
    if not page.locator(".st-key-check_grid_0_0").first.is_visible():
        expander.click()
        wait_idle(page)
    for r, row in enumerate(rows):
        for c, label in enumerate(row):
            box = page.locator(f".st-key-check_grid_{r}_{c} input[role='combobox']").first
            box.click()
            box.fill(full_name(label))
            page.get_by_role("option", name=picker_text(label)).first.wait_for()
            page.keyboard.press("Enter")
            wait_idle(page)


def test_a_draft_begun_on_one_server_is_saved_on_another(tmp_path):
    base = os.environ.get("REPTILE_TANK_TEST_PG_URL")
    if not base:
        pytest.skip("REPTILE_TANK_TEST_PG_URL is unset: no PostgreSQL server to share")
    require_browser()
    from playwright.sync_api import sync_playwright

    from leaderboard.store import Store

    with fresh_pg_database(base) as url, sync_playwright() as pw:
        env = {"REPTILE_TANK_DB_URL": url, "REPTILE_TANK_HOME": str(tmp_path / "home")}
        browser = launch(pw)
        page = browser.new_context(**PHONE).new_page()
        try:
            with serve_app(env) as first, serve_app(env) as second:
                page.goto(first)
                wait_idle(page)
                night = create_night_and_start(page, "Club night", "Ann\nBen")
                goto_page(page, "Photograph")
                upload(page, "Ann", SAMPLES[0])
                # the same link on the second server: the draft is there
                page.goto(f"{second}/check?night={night}")
                wait_idle(page)
                pick_player(page, "check_player", "Ann")
                assert "empty" not in cell_text(page, 0, 0)
                for r in range(4):
                    for c in range(5):
                        if "empty" in cell_text(page, r, c):
                            tap(page, f"check_cell_{r}_{c}")
                            tap(page, "check_pick_water")
                enter_by_hand(page, "Ben", FULL)
                goto_page(page, "Confirm & save")
                tap(page, "confirm_save")
                page.get_by_text("saved to the leaderboard").first.wait_for()
                assert page.locator(".st-key-confirm_save").count() == 0  # no second save
            store = Store(url, history=schema_history())
            games = store.list_games()
            assert len(games) == 1
            assert [p.name for p in games[0].players] == ["Ann", "Ben"]
            assert games[0].players[1].board["rows"] == FULL
            store.close()
        except Exception:
            page.screenshot(path=str(tmp_path / "failure.png"), full_page=True)
            raise
        finally:
            browser.close()


def test_two_game_nights_never_see_each_others_rules_or_game(tmp_path):
    require_browser(model=False)
    from playwright.sync_api import sync_playwright

    key = "rules_vp_blue_tongued_skink_advanced"
    with serve_app(env_for(tmp_path)) as url, sync_playwright() as pw:
        browser = launch(pw)
        one = browser.new_context(**PHONE).new_page()
        two = browser.new_context(**LAPTOP).new_page()
        try:
            for page in (one, two):
                page.goto(url)
                wait_idle(page)
            create_night_and_start(one, "Table one", "Ann\nBen")
            create_night_and_start(two, "Table two", "Cara\nDan")
            # table one changes a house value
            goto_page(one, "Rules")
            one.get_by_text("Blue-tongued skink").first.click()
            field = one.locator(f".st-key-{key} input")
            default = int(field.input_value())
            field.fill(str(default + 7))
            field.press("Enter")
            wait_idle(one)
            tap(one, "rules_save")
            one.get_by_text("house value(s) for this game night").first.wait_for()
            # table two still plays the defaults and its own game
            goto_page(two, "Rules")
            two.get_by_text("Blue-tongued skink").first.click()
            assert int(two.locator(f".st-key-{key} input").input_value()) == default
            goto_page(two, "Check the read")
            labels = two.locator(".st-key-check_player").inner_text()
            assert "Cara" in labels and "Ann" not in labels
            # and a reload of table one keeps its value and its players
            one.reload()
            wait_idle(one)
            one.get_by_text("Blue-tongued skink").first.click()
            assert int(one.locator(f".st-key-{key} input").input_value()) == default + 7
            goto_page(one, "Check the read")
            assert "Ann" in one.locator(".st-key-check_player").inner_text()
        except Exception:
            one.screenshot(path=str(tmp_path / "failure-one.png"), full_page=True)
            two.screenshot(path=str(tmp_path / "failure-two.png"), full_page=True)
            raise
        finally:
            browser.close()


def test_a_markdown_image_name_is_text_and_fetches_nothing(tmp_path):
    require_browser(model=False)
    evil = "![x](http://127.0.0.1:9/track.png)"
    requests: list[str] = []
    with app_page(tmp_path, on_request=lambda r: requests.append(r.url)) as page:
        create_night_and_start(page, "Friday", f"Ann\n{evil}")
        enter_by_hand(page, "Ann", FULL)
        enter_by_hand(page, evil, FULL)
        # the player radio shows the name literally (with the ✓ of an entered board)
        page.locator(".st-key-check_player").get_by_text(evil).first.wait_for()
        goto_page(page, "Confirm & save")
        tap(page, "confirm_save")
        page.get_by_text("saved to the leaderboard").first.wait_for()
        for title in ("Score pad", "Leaderboard", "Players & history", "Game setup"):
            goto_page(page, title)
            no_sideways_scroll(page)
        goto_page(page, "Players & history")
        page.get_by_text("A game").first.click()
        page.get_by_text(f"{evil} — ", exact=False).first.wait_for()
        assert not [r for r in requests if "127.0.0.1:9" in r], requests
        assert not page.locator("img[src*='track.png']").count()
