"""Time a whole Reptile Tank table as the players tap it, in a real browser (issue 31).

A 4-player table (the test photos of ``tests/app/table_photos.py``: two synthetic photos with
one card blurred each, so the reader flags exactly two cells, and two that read with no flag)
is set up, photographed, checked and saved at phone size (390 x 844, touch), counting taps
(a field filled, a button tapped, a photo chosen: one each) and the seconds spent waiting for
the app (from each tap until its script run is over and what it leads to shows).

``--flow table`` is the app's flow (Start opens Photograph, each read moves on, one check
page, one Save); ``--flow pages`` is the page-by-page flow of the app before issue 31 (menu to
Photograph, pick each player, menu to Check, pick each flagged player, menu to Confirm), to
be run with ``--root`` naming a checkout of that version (``git archive <rev> | tar -x``).

Usage: ``python scripts/bench_table.py [--flow table|pages] [--root PATH] [--n 3] [--json]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE / "tests" / "app"))

import serve  # noqa: E402
from browser_helpers import PHONE, env_for, launch  # noqa: E402
from table_photos import table_photos  # noqa: E402

PLAYERS = ["Ann", "Ben", "Cara", "Dan"]


def settled(page, timeout_ms: int = 60_000) -> None:
    script = """() => { const a = document.querySelector('[data-testid="stApp"]');
        return a && a.getAttribute('data-test-script-state') === 'notRunning'; }"""
    for _ in range(2):
        page.wait_for_timeout(100)
        page.wait_for_function(script, timeout=timeout_ms)


class Journey:
    def __init__(self, page):
        self.page, self.taps, self.waited = page, 0, 0.0

    def act(self, action, done=None, taps: int = 1) -> None:
        self.taps += taps
        start = time.monotonic()
        action()
        settled(self.page)
        if done is not None:
            done.first.wait_for(timeout=60_000)
            settled(self.page)
        self.waited += time.monotonic() - start

    def menu(self, title: str) -> None:
        """Open the phone's side menu and tap a page (two taps)."""
        page = self.page
        self.act(lambda: page.locator('[data-testid="stExpandSidebarButton"]').click())
        self.act(
            lambda: page.locator('[data-testid="stSidebarNav"] a', has_text=title).first.click()
        )
        collapse = page.locator('[data-testid="stSidebarCollapseButton"] button')
        if collapse.count() and collapse.first.is_visible():
            collapse.first.click()
            page.wait_for_timeout(300)


def setup(j: Journey, photos_done) -> None:
    page = j.page
    night = page.locator(".st-key-setup_new_session input")
    j.act(lambda: night.fill("Friday"))
    j.act(
        lambda: page.get_by_role("button", name="Create").click(),
        page.locator(".st-key-setup_players textarea"),
    )
    players = page.locator(".st-key-setup_players textarea")
    j.act(lambda: (players.fill("\n".join(PLAYERS)), players.blur()))
    j.act(lambda: page.locator(".st-key-setup_start button").click(), photos_done)


def table_flow(j: Journey, photos, flagged) -> None:
    page = j.page
    setup(j, page.locator(".st-key-photo_upload_Ann"))
    for seat, (name, (photo, _rows)) in enumerate(zip(PLAYERS, photos, strict=True)):
        box = page.locator(f".st-key-photo_upload_{name} input[type=file]")
        nxt = (
            page.locator(f".st-key-photo_upload_{PLAYERS[seat + 1]}")
            if seat + 1 < len(PLAYERS)
            else page.locator(".st-key-check_total")
        )
        j.act(lambda box=box, photo=photo: box.set_input_files(str(photo)), nxt)
    for seat, r, c in flagged:
        truth = photos[seat][1][r][c]
        guess = page.locator(f".st-key-check_flag_{seat}_{r}_{c}_{truth} button")
        j.act(lambda guess=guess: guess.locator("visible=true").first.tap())
    j.act(
        lambda: page.locator(".st-key-check_save button").first.tap(),
        page.get_by_text("saved to the leaderboard"),
    )


def pages_flow(j: Journey, photos, flagged) -> None:
    page = j.page
    setup(j, page.get_by_text("Game started with"))
    j.menu("Photograph")
    for seat, (name, (photo, _rows)) in enumerate(zip(PLAYERS, photos, strict=True)):
        if seat:
            j.act(
                lambda name=name: (
                    page.locator(".st-key-photo_player label").filter(has_text=name).first.click()
                )
            )
        box = page.locator(f".st-key-photo_upload_{name} input[type=file]")
        j.act(
            lambda box=box, photo=photo: box.set_input_files(str(photo)),
            page.get_by_text("Read in", exact=False),
        )
    j.menu("Check the read")
    for seat, r, c in flagged:
        name = PLAYERS[seat]
        j.act(
            lambda name=name: (
                page.locator(".st-key-check_player label").filter(has_text=name).first.click()
            )
        )
        truth = photos[seat][1][r][c]
        j.act(
            lambda r=r, c=c: (
                page.locator(f".st-key-check_cell_{r}_{c} button")
                .locator("visible=true")
                .first.tap()
            )
        )
        j.act(
            lambda t=truth: (
                page.locator(f".st-key-check_pick_{t} button").locator("visible=true").first.tap()
            )
        )
    j.menu("Confirm")
    j.act(
        lambda: page.locator(".st-key-confirm_save button").first.tap(),
        page.get_by_text("saved to the leaderboard"),
    )


#: The cells the reader flags on these photos: (seat, row, col), measured with the shipped
#: reader (the journey test asserts the table flow lists exactly these).
FLAGGED = [(0, 1, 2), (1, 1, 2)]


def run_once(flow: str, folder: Path) -> dict:
    from playwright.sync_api import sync_playwright

    photos = table_photos(folder)
    with serve.serve_app(env_for(folder)) as url, sync_playwright() as pw:
        browser = launch(pw)
        page = browser.new_context(**PHONE).new_page()
        page.goto(url)
        settled(page)
        j = Journey(page)
        (table_flow if flow == "table" else pages_flow)(j, photos, FLAGGED)
        browser.close()
    return {"taps": j.taps, "waiting_s": round(j.waited, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flow", choices=("table", "pages"), default="table")
    parser.add_argument("--root", type=Path, help="checkout whose app.py is served")
    parser.add_argument("--n", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.root:
        serve.ROOT = args.root.resolve()
    runs = []
    for _ in range(args.n):
        with tempfile.TemporaryDirectory() as tmp:
            runs.append(run_once(args.flow, Path(tmp)))
    report = {
        "flow": args.flow,
        "root": str(serve.ROOT),
        "runs": runs,
        "taps": runs[0]["taps"],
        "median_waiting_s": statistics.median(r["waiting_s"] for r in runs),
    }
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(
            f"{args.flow}: {report['taps']} taps, median {report['median_waiting_s']:.1f} s "
            f"waiting over {args.n} runs ({[r['waiting_s'] for r in runs]})"
        )


if __name__ == "__main__":
    main()
