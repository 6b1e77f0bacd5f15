"""Screenshots of every page of the app at phone (390 px) and laptop (1280 px) width.

Starts ``streamlit run app.py`` headless on a throw-away database seeded with two scored games,
drives one game through the journey in Debian's Chromium (Playwright), and writes
``docs/screenshots/<page>-<phone|laptop>.png``.

Usage: ``python scripts/screenshots.py [--out docs/screenshots]``
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

from service.store import schema_history

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "app"))  # the app server harness (tests/app/serve.py)

from serve import CHROMIUM, CHROMIUM_ARGS, goto_page, serve_app, wait_idle  # noqa: E402

from leaderboard.records import GamePlayer, GameRecord  # noqa: E402
from leaderboard.store import Store  # noqa: E402
from scoring.reptile_tank.board import Board  # noqa: E402
from scoring.reptile_tank.game import score_game  # noqa: E402
from scoring.reptile_tank.rules import load_rules  # noqa: E402

SAMPLE = ROOT / "reptile_tank" / "samples" / "sample_1.jpg"
WIDTHS = {"phone": (390, 844), "laptop": (1280, 900)}

#: Two finished terrariums for the seeded games (card ids, row 0 farthest from the owner).
BOARDS = {
    "Ann": [
        ["blue_tongued_skink", "blue_tongued_skink", "blue_tongued_skink", "rock", "water"],
        ["golden_pothos", "corn_snake", "rock", "hollow_log", "dubia_roach"],
        ["water", "three_toed_box_turtle", "scarlet_star", "three_toed_box_turtle", "water"],
        ["scarlet_star", "rosy_boa", "rosy_boa", "silver_inch_plant", "silver_inch_plant"],
    ],
    "Ben": [
        ["dubia_roach", "dubia_roach", "rock", "water", "water"],
        ["three_toed_box_turtle", "hollow_log", "three_toed_box_turtle", "water", "neon_day_gecko"],
        ["silver_inch_plant", "silver_inch_plant", "silver_inch_plant", "rosy_boa", "rosy_boa"],
        ["water", "brown_anole", "golden_pothos", "water", "golden_pothos"],
    ],
}


def seed(url: str) -> str:
    """Two scored games on one game night, so the leaderboard has something to show; returns
    the night's uid (its invite link lets the browser in: nights are private)."""
    store = Store(url, history=schema_history())
    session = store.create_session("Friday at Chloé's")
    night, uid = session.id, session.uid
    rules = load_rules()
    for order in (("Ann", "Ben"), ("Ben", "Ann")):
        result = score_game([(n, Board.from_rows(BOARDS[n])) for n in order], rules)
        store.save_game(
            GameRecord(
                session_id=night,
                players=tuple(
                    GamePlayer(p.name, p.board.to_json(), p.pad.to_json(), p.rank)
                    for p in result.players
                ),
            )
        )
    store.close()
    return uid


def plain_table_jpeg() -> bytes:
    """A photo of an empty table (seeded noise): the reader finds no grid in it."""
    rng = np.random.default_rng(7)
    image = np.clip(96 + rng.normal(0, 4, (700, 900, 3)), 0, 255).astype(np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


def button(page, key: str):
    return page.locator(f".st-key-{key} button").locator("visible=true").first


def pick_player(page, key: str, name: str) -> None:
    """Tap ``name`` in the player radio buttons with widget key ``key``."""
    page.locator(f".st-key-{key} label").filter(has_text=name).first.click()
    wait_idle(page)


def fill_empty_cells(page) -> None:
    """Set every cell the reader saw as empty to Water (the sample terrarium is complete)."""
    for row in range(4):
        for col in range(5):
            if "empty" in button(page, f"check_cell_{row}_{col}").inner_text():
                button(page, f"check_cell_{row}_{col}").click()
                wait_idle(page)
                button(page, "check_pick_water").click()
                wait_idle(page)


def shoot(page, out: Path, name: str, width: str) -> None:
    """Screenshot the whole page: Streamlit scrolls inside its own container, so the viewport
    is made as tall as the content for the shot, then restored."""
    wait_idle(page)
    page.mouse.move(0, 0)  # no hover tooltip in the picture
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.wait_for_timeout(1200)  # charts and images finish drawing after the script run
    size = dict(page.viewport_size)
    height = page.evaluate(
        """() => Math.max(...['stMain', 'stAppViewContainer', 'stSidebarContent'].map(
            id => document.querySelector(`[data-testid="${id}"]`)?.scrollHeight || 0))"""
    )
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], height)})
    page.wait_for_timeout(800)
    path = out / f"{name}-{width}.png"
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(size)
    print(f"wrote {path}")


def journey(page, out: Path, width: str, tmp: Path) -> None:
    from table_photos import table_photos

    photos = table_photos(tmp)[:2]  # one flagged cell each (a card blurred)
    box = page.locator(".st-key-setup_session input[role='combobox']").first
    box.click()
    page.get_by_role("option", name=re.compile("^Friday")).first.click()
    wait_idle(page)
    page.locator(".st-key-setup_players textarea").fill("Ann\nBen")
    page.locator(".st-key-setup_use_objectives label").first.click()
    wait_idle(page)
    for number in (3, 11):
        button(page, f"setup_objective_{number}").click()
        wait_idle(page)
    shoot(page, out, "1-setup", width)
    button(page, "setup_start").click()  # opens Photograph for Ann
    wait_idle(page)
    page.locator(".st-key-photo_upload_Ann").first.wait_for()
    page.locator(".st-key-photo_upload_Ann input[type=file]").set_input_files(str(photos[0][0]))
    wait_idle(page)
    page.locator(".st-key-photo_upload_Ben").first.wait_for(timeout=60_000)
    shoot(page, out, "2-photograph", width)  # on to Ben, Ann's read below
    page.locator(".st-key-photo_upload_Ben input[type=file]").set_input_files(str(photos[1][0]))
    wait_idle(page)
    page.locator(".st-key-check_total").first.wait_for(timeout=60_000)
    shoot(page, out, "3-check", width)  # the table's flagged cells, the totals
    truth = photos[1][1][1][2]
    button(page, f"check_flag_1_1_2_{truth}").click()  # a fix: the bar shows the pad line
    wait_idle(page)
    shoot(page, out, "3b-fixed", width)
    button(page, f"check_flag_0_1_2_{photos[0][1][1][2]}").click()  # as read: checked
    wait_idle(page)
    goto_page(page, "Score pad")
    summaries = page.locator('[data-testid="stExpander"] summary')
    texts = summaries.all_inner_texts()
    vps = [
        int(re.search(r"(\d+) VP", t).group(1)) if re.search(r"(\d+) VP", t) else -1 for t in texts
    ]
    summaries.nth(vps.index(max(vps))).click()  # open the column with the most points
    shoot(page, out, "4-score-pad", width)
    goto_page(page, "Confirm & save")
    shoot(page, out, "5-confirm", width)
    button(page, "confirm_save").click()
    wait_idle(page)
    goto_page(page, "Leaderboard")
    shoot(page, out, "6-leaderboard", width)
    goto_page(page, "Players & history")
    shoot(page, out, "6b-players", width)
    page.get_by_role("tab", name="A game").click()
    wait_idle(page)
    shoot(page, out, "6c-game", width)
    goto_page(page, "Solo vs the Master")
    page.locator(".st-key-solo_name input").fill("Ann")
    page.locator(".st-key-solo_photo input[type=file]").set_input_files(str(SAMPLE))
    wait_idle(page)
    master = {"corn_snake": 3, "three_toed_box_turtle": 3, "golden_pothos": 2, "rock": 1}
    for card, count in master.items():
        field = page.locator(f".st-key-solo_count_{card} input")
        field.fill(str(count))
        field.press("Enter")
        wait_idle(page)
    shoot(page, out, "7-solo", width)
    goto_page(page, "Rules")
    page.locator('[data-testid="stExpander"] summary').nth(8).click()
    shoot(page, out, "8-rules", width)
    page.locator('[data-testid="stExpander"] summary').nth(8).click()  # closed again
    page.locator('[data-testid="stExpander"] summary').filter(has_text="Marked cells").click()
    wait_idle(page)
    shoot(page, out, "8b-rules-marked", width)  # the areas, editable row by row
    goto_page(page, "My deck")
    shoot(page, out, "9-deck", width)
    # the "no grid found" fallback: Ben's photo shows only the table
    goto_page(page, "Photograph")
    pick_player(page, "photo_player", "Ben")
    photo = tmp / "table.jpg"
    photo.write_bytes(plain_table_jpeg())
    page.locator(".st-key-photo_upload_Ben input[type=file]").set_input_files(str(photo))
    wait_idle(page)
    page.get_by_text("No terrarium found").first.wait_for(timeout=60_000)
    shoot(page, out, "2b-corners", width)
    nimalia(page, out, width)


def nimalia(page, out: Path, width: str) -> None:
    """The night switches to Nimalia: two cards laid at card speed, the grid grown up-left."""
    goto_page(page, "Nimalia")
    page.locator(".st-key-night_game button").filter(has_text="Nimalia").first.click()
    wait_idle(page)
    page.locator(".st-key-nim_players textarea").fill("Ann\nBen")
    page.locator(".st-key-nim_players textarea").blur()
    wait_idle(page)
    button(page, "nim_draw").click()
    wait_idle(page)
    button(page, "nim_start").click()
    wait_idle(page)
    page.locator(".st-key-nim_mode button").filter(has_text="Lay cards").first.click()
    wait_idle(page)
    for card, turn, spot in ((36, 0, "nim_lay_2_2"), (12, 90, "nim_lay_0_0")):
        field = page.locator(".st-key-nim_card input")
        field.fill(str(card))
        field.press("Enter")
        wait_idle(page)
        if turn:
            button(page, f"nim_turn_{turn}").click()
            wait_idle(page)
        button(page, spot).click()
        wait_idle(page)
    field = page.locator(".st-key-nim_card input")
    field.fill("7")
    field.press("Enter")
    wait_idle(page)
    shoot(page, out, "10-nimalia", width)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--width", choices=sorted(WIDTHS), action="append")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    for width in args.width or list(WIDTHS):
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            url = f"sqlite:///{tmp / 'leaderboard.sqlite3'}"
            uid = seed(url)
            env = {"REPTILE_TANK_DB_URL": url, "REPTILE_TANK_HOME": str(tmp / "home")}
            with serve_app(env) as base, sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                w, h = WIDTHS[width]
                page = browser.new_page(viewport={"width": w, "height": h})
                page.goto(f"{base}/?night={uid}")  # the night's invite link
                wait_idle(page)
                try:
                    journey(page, args.out, width, tmp)
                except Exception:
                    page.screenshot(path=str(tmp.parent / "screenshots-failure.png"))
                    print(f"failed; see {tmp.parent / 'screenshots-failure.png'}")
                    raise
                finally:
                    browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
