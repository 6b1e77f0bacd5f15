"""Two real browsers on one game night (issue 29, Playwright + Debian's Chromium), on SQLite and,
when ``REPTILE_TANK_TEST_PG_URL`` is set, PostgreSQL:

- item 1: phone A sits on Confirm, phone B fixes Ben's cell, A taps Save: nothing is saved, A is
  shown B's fix and told what changed; A's next Save stores the game with B's fix;
- item 6: a third browser at the bare address lists no night; with the join code it gets in.
"""

from __future__ import annotations

import os
from contextlib import contextmanager

import pytest
from app_helpers import FULL_BOARD, fresh_pg_database
from browser_helpers import LAPTOP, PHONE, button, launch, require_browser, tap, wait_idle
from serve import serve_app

from leaderboard.drafts import DraftStore
from leaderboard.store import Store
from service.nights import join_code
from service.reptile_tank.drafts import GameInProgress, to_document
from service.reptile_tank.game import TerrariumEntry
from service.store import schema_history

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(420)]

FULL = FULL_BOARD  # the finished terrarium both phones enter


@contextmanager
def database(backend: str, tmp_path):
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}"
        return
    base = os.environ.get("REPTILE_TANK_TEST_PG_URL")
    if not base:
        pytest.skip("REPTILE_TANK_TEST_PG_URL is unset: no PostgreSQL server")
    with fresh_pg_database(base) as url:
        yield url


def seed_night(url: str) -> tuple[str, int]:
    """A night whose game (Ann and Ben, both boards entered) waits on Confirm."""
    store = Store(url, history=schema_history())
    night = store.create_session("Club night")
    drafts = DraftStore(store)
    game = GameInProgress(
        players=["Ann", "Ben"],
        entries={p: TerrariumEntry(rows=[list(r) for r in FULL]) for p in ("Ann", "Ben")},
        active_player="Ann",
    )
    drafts.create(night.id, to_document(game, drafts.put_blob))
    store.close()
    return night.uid, night.id


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_browsers_a_stale_save_and_a_stranger(backend, tmp_path):
    require_browser(model=False)
    from playwright.sync_api import sync_playwright

    with database(backend, tmp_path) as url:
        uid, night = seed_night(url)
        env = {"REPTILE_TANK_DB_URL": url, "REPTILE_TANK_HOME": str(tmp_path / "home")}
        with serve_app(env) as base, sync_playwright() as pw:
            browser = launch(pw)
            a = browser.new_context(**PHONE).new_page()
            b = browser.new_context(**PHONE).new_page()
            stranger = browser.new_context(**LAPTOP).new_page()
            try:
                a.goto(f"{base}/confirm?night={uid}")
                wait_idle(a)
                a.locator(".st-key-confirm_save button").first.wait_for()
                b.goto(f"{base}/check?night={uid}")
                wait_idle(b)
                b.locator(".st-key-check_player label").filter(has_text="Ben").first.click()
                wait_idle(b)
                tap(b, "check_cell_0_0")
                tap(b, "check_pick_rock")
                store = Store(url, history=schema_history())
                assert (
                    DraftStore(store).current(night).document["entries"]["Ben"]["rows"][0][0]
                    == "rock"
                )
                tap(a, "confirm_save")  # A had not seen B's fix
                a.get_by_text("Not saved").first.wait_for()
                assert a.get_by_text("Ben's board, row 1 column 1").count() >= 1
                assert store.list_games() == []
                tap(a, "confirm_save")
                a.get_by_text("saved to the leaderboard").first.wait_for()
                (game,) = store.list_games()
                assert game.players[1].name == "Ben"
                assert game.players[1].board["rows"][0][0] == "rock"
                # a stranger at the bare address: no night listed; the code lets them in
                stranger.goto(base)
                wait_idle(stranger)
                assert stranger.locator(".st-key-setup_session").count() == 0
                stranger.locator(".st-key-nights_join_code input").fill(join_code(uid))
                stranger.get_by_role("button", name="Join").click()
                wait_idle(stranger)
                stranger.get_by_text("You joined this game night").first.wait_for()
                assert stranger.locator(".st-key-setup_session").count() == 1
                # this browser remembers the night it joined (its cookie): the bare address
                # opened again lists it; a fresh browser still lists none
                for _ in range(50):
                    if any(c["name"] == "rt_nights" for c in stranger.context.cookies()):
                        break
                    stranger.wait_for_timeout(100)
                stranger.goto(base)
                wait_idle(stranger)
                stranger.locator(".st-key-setup_session").first.wait_for()
                fresh = browser.new_context(**LAPTOP).new_page()
                fresh.goto(base)
                wait_idle(fresh)
                assert fresh.locator(".st-key-setup_session").count() == 0
                store.close()
            except Exception:
                for name, page in (("a", a), ("b", b), ("stranger", stranger)):
                    page.screenshot(path=str(tmp_path / f"failure-{name}.png"), full_page=True)
                raise
            finally:
                browser.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_browsers_tapping_nimalia_squares_both_kept(backend, tmp_path):
    """Item 3 in real browsers: B picks Ben's square, A taps Ann's, then B taps its token: both
    squares are stored and B is told its change was kept too (no last-writer-wins)."""
    require_browser(model=False)
    from playwright.sync_api import sync_playwright

    from leaderboard.played import PlayedGames
    from service.nimalia import game as N

    with database(backend, tmp_path) as url:
        store = Store(url, history=schema_history())
        night = store.create_session("Nimalia night")
        DraftStore(store).put_settings(night.id, {"game": "nimalia"})
        nimalia = PlayedGames(store, "nimalia")
        nimalia.put_draft(night.id, N.new_game(["Ann", "Ben"], [3, 8, 1, 13]))
        env = {"REPTILE_TANK_DB_URL": url, "REPTILE_TANK_HOME": str(tmp_path / "home")}
        with serve_app(env) as base, sync_playwright() as pw:
            browser = launch(pw)
            a = browser.new_context(**PHONE).new_page()
            b = browser.new_context(**PHONE).new_page()
            try:
                for page in (a, b):
                    page.goto(f"{base}/nimalia?night={night.uid}")
                    wait_idle(page)
                    mode = page.locator(".st-key-nim_mode button").filter(has_text="Tap squares")
                    mode.first.click()  # laying cards is the default
                    wait_idle(page)
                    button(page, "nim_sq_0_0").wait_for()
                b.locator(".st-key-nim_player label").filter(has_text="Ben").first.click()
                wait_idle(b)
                tap(b, "nim_sq_1_1")  # B picks a square of Ben's...
                tap(a, "nim_sq_0_0")  # ...A taps one of Ann's meanwhile...
                tap(a, f"nim_pick_{N.TOKENS.index('I:bea')}")
                tap(b, f"nim_pick_{N.TOKENS.index('W:cro')}")  # ...then B lays its token
                b.get_by_text("your change is kept too").first.wait_for()
                game, _revision = nimalia.draft(night.id)
                assert game["reserves"]["Ann"][0][0][0] == "I:bea"
                assert game["reserves"]["Ben"][0][1][1] == "W:cro"
            except Exception:
                for name, page in (("a", a), ("b", b)):
                    page.screenshot(path=str(tmp_path / f"failure-{name}.png"), full_page=True)
                raise
            finally:
                browser.close()
                store.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_two_browsers_start_at_once_fix_two_cells_and_edit_a_deleted_game(backend, tmp_path):
    """Items 5, 2 and 4 in real browsers, one night, two phones:

    - 5: both phones press Start on a night without a game: one open draft, the second phone
      shown the first's game;
    - 2: A fixes Ann's cell, B (not showing A's fix when it taps) Ben's: both stored
      (a browser reruns on the tap that opens a cell, so B usually loads A's fix then; the
      same-instant writes are raced 100 times per backend in ``test_cas_races.py``);
    - 4: A saves, fixes a cell, B deletes the game from the leaderboard: A's Save saves nothing
      and says the game was deleted; A's next Save stores it as a new game.
    """
    require_browser(model=False)
    from playwright.sync_api import sync_playwright

    with database(backend, tmp_path) as url:
        store = Store(url, history=schema_history())
        night = store.create_session("Club night")
        drafts = DraftStore(store)
        env = {"REPTILE_TANK_DB_URL": url, "REPTILE_TANK_HOME": str(tmp_path / "home")}
        with serve_app(env) as base, sync_playwright() as pw:
            browser = launch(pw)
            a = browser.new_context(**PHONE).new_page()
            b = browser.new_context(**PHONE).new_page()
            try:
                for page, players in ((a, "Ann\nBen"), (b, "Ann\nBen\nCy")):
                    page.goto(f"{base}/?night={night.uid}")
                    wait_idle(page)
                    box = page.locator(".st-key-setup_players textarea")
                    box.fill(players)
                    box.blur()
                    wait_idle(page)
                tap(a, "setup_start")
                tap(b, "setup_start")  # B had not seen A's game
                b.get_by_text("started on this night on another device").first.wait_for()
                open_count = store._transaction(
                    lambda c, _a: c.exec_driver_sql(
                        "SELECT COUNT(*) FROM drafts WHERE session_id = "
                        f"{int(night.id)} AND status = 'open'"
                    ).scalar(),
                    write=False,
                )
                assert open_count == 1
                assert drafts.current(night.id).document["players"] == ["Ann", "Ben"]
                # the boards arrive (as photos would) through storage
                current = drafts.current(night.id)
                game = GameInProgress(
                    players=["Ann", "Ben"],
                    entries={
                        p: TerrariumEntry(rows=[list(r) for r in FULL]) for p in ("Ann", "Ben")
                    },
                    active_player="Ann",
                )
                drafts.write(
                    current.uid, to_document(game, drafts.put_blob),
                    expected_revision=current.revision,
                )  # fmt: skip
                for page in (a, b):
                    page.goto(f"{base}/check?night={night.uid}")
                    wait_idle(page)
                b.locator(".st-key-check_player label").filter(has_text="Ben").first.click()
                wait_idle(b)
                tap(a, "check_cell_0_0")
                tap(a, "check_pick_rock")  # A, still on Ann, fixes her cell...
                tap(b, "check_cell_0_1")
                tap(b, "check_pick_water")  # ...B, which had not shown it, Ben's
                rows = drafts.current(night.id).document["entries"]
                assert rows["Ann"]["rows"][0][0] == "rock"
                assert rows["Ben"]["rows"][0][1] == "water"
                # item 4: save, edit, the game deleted on the other phone, save again
                a.goto(f"{base}/confirm?night={night.uid}")
                wait_idle(a)
                tap(a, "confirm_save")
                a.get_by_text("saved to the leaderboard").first.wait_for()
                (saved,) = store.list_games()
                a.goto(f"{base}/check?night={night.uid}")
                wait_idle(a)
                a.locator(".st-key-check_player label").filter(has_text="Ann").first.click()
                wait_idle(a)
                tap(a, "check_cell_0_2")
                tap(a, "check_pick_rock")
                store.delete_game(saved.id)  # B's leaderboard, meanwhile
                a.goto(f"{base}/confirm?night={night.uid}")
                wait_idle(a)
                tap(a, "confirm_save")
                a.get_by_text(f"game {saved.id} was deleted on another device").first.wait_for()
                assert store.list_games() == []
                tap(a, "confirm_save")
                a.get_by_text("saved to the leaderboard").first.wait_for()
                (again,) = store.list_games()
                assert again.uid != saved.uid
                assert again.players[0].board["rows"][0][:3] == ["rock", FULL[0][1], "rock"]
            except Exception:
                for name, page in (("a", a), ("b", b)):
                    page.screenshot(path=str(tmp_path / f"failure-{name}.png"), full_page=True)
                raise
            finally:
                browser.close()
                store.close()
