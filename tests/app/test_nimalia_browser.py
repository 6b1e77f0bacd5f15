"""Nimalia in a real browser on a phone (390 x 844, touch): choose Nimalia for the game night,
upload a photo of a reserve, fix one square with two taps and see the goals' points change.

The photo is a synthetic reserve of the stand-in deck (``vision.nimalia.scene``), drawn in the
test; its truth is known, and the goals are picked so that the fix moves two of them:
goal 3 (2 per jungle zone) and goal 8 (polar bear groups).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from browser_helpers import (
    app_page,
    button,
    create_night,
    goto_page,
    image_box,
    no_sideways_scroll,
    require_browser,
    tap,
    tap_on,
    wait_idle,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]
#: The reserve in the photo (scene seed 0, 6 cards): row 1 holds a panda at column 2.
TRUTH = [
    ["S:ott\\", "J:pan", "I:bea", "I:bea", "I:pen"],
    ["I:bea", "I:pen", "J:gor", "S:lio", "S:gir"],
]
GOALS = {
    "blue": "3. Jungle zones",
    "green": "8. Polar bear groups",
    "yellow": "1. Same animals",
    "red": "13. Few giraffes",
}


def reserve_photo(path: Path) -> Path:
    pytest.importorskip("cv2")
    from PIL import Image

    from vision.nimalia.scene import render_reserve

    image, truth = render_reserve(0, n_cards=6, size=(1600, 1200), distractors=False)
    assert truth["squares"] == TRUTH
    Image.fromarray(image).save(path, quality=92)
    return path


def choose(page, key: str, text: str) -> None:
    box = page.locator(f".st-key-{key} input[role='combobox']").first
    box.click()
    box.fill(text)
    page.get_by_role("option").filter(has_text=text).first.click()
    wait_idle(page)


def segment(page, key: str, text: str) -> None:
    page.locator(f".st-key-{key} button").filter(has_text=text).first.click()
    wait_idle(page)


def set_up_game(page) -> None:
    """A new night playing Nimalia, players Ann and Ben, one goal of each colour (:data:`GOALS`),
    the game not started yet."""
    create_night(page)
    goto_page(page, "Nimalia")
    segment(page, "night_game", "Nimalia")
    page.get_by_text("This game night plays Nimalia").first.wait_for()
    page.locator(".st-key-nim_players textarea").fill("Ann\nBen")
    page.locator(".st-key-nim_players textarea").blur()
    wait_idle(page)
    for colour, text in GOALS.items():
        choose(page, f"nim_goal_{colour}", text)


def goal_points(page) -> dict[int, int]:
    text = page.locator(".st-key-nim_points").inner_text()
    return {int(g): int(v) for g, v in re.findall(r"Goal (\d+)\s*\n\s*(-?\d+)", text)}


def shot(page, tmp_path: Path, name: str, anchor: str | None = None) -> None:
    folder = Path(os.environ.get("NIMALIA_SHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    if anchor:
        page.locator(anchor).first.scroll_into_view_if_needed()
    page.screenshot(path=str(folder / f"{name}.png"))


def test_photo_fix_changes_goal_points(tmp_path):
    require_browser(model=True)
    photo = reserve_photo(tmp_path / "reserve.jpg")
    with app_page(tmp_path) as page:
        set_up_game(page)
        shot(page, tmp_path, "nimalia_setup")
        tap(page, "nim_start")
        page.get_by_text("Nimalia started with 2 players").first.wait_for()

        segment(page, "nim_mode", "Photo")
        page.locator(".st-key-nim_photo_0_1 input[type=file]").set_input_files(str(photo))
        wait_idle(page)
        page.get_by_text("Photo read:").first.wait_for(timeout=90_000)
        assert "🐼" in button(page, "nim_sq_0_1").inner_text()
        assert goal_points(page) == {3: 4, 8: 3}
        shot(page, tmp_path, "nimalia_read", ".st-key-nim_points")

        # Fix the panda (row 1, column 2) to a polar bear: two taps.
        tap(page, "nim_sq_0_1")
        tap(page, "nim_pick_6")  # I:bea
        assert "🐻" in button(page, "nim_sq_0_1").inner_text()
        # One jungle zone fewer (4 -> 2), the bears join into one group of 3 (3 -> 5).
        assert goal_points(page) == {3: 2, 8: 5}
        page.get_by_text("panda on jungle → polar bear on snow").first.wait_for()
        no_sideways_scroll(page)

        # A reason rings its squares: the bear group's line.
        page.locator(".st-key-nim_show label").filter(has_text="Goal 8").first.click()
        wait_idle(page)
        shot(page, tmp_path, "nimalia_fixed", ".st-key-nim_points")
        no_sideways_scroll(page)


#: Fresh seed 620032: the automatic reader takes a wrong lattice (6 x 2 for a 2 x 3 reserve).
WRONG_SEED = 620032


def test_tapping_one_cards_corners_reads_the_reserve(tmp_path):
    """A photo the automatic reader gets wrong: "Squares in the wrong place?", the 4 corners of
    the last card laid tapped in any order (with one magnifier tap), and the reserve is read."""
    require_browser(model=True)
    pytest.importorskip("cv2")
    from PIL import Image

    from vision.nimalia.scene import render_reserve

    image, truth = render_reserve(WRONG_SEED, max_size=(1600, 1200))
    path = tmp_path / "wrong.jpg"
    Image.fromarray(image).save(path, quality=92)
    height, width = image.shape[:2]
    p = truth["placements"][-1]
    q = truth["square_quads"]
    r, c = p["row"] - truth["bbox"][0], p["col"] - truth["bbox"][1]
    tl, tr, br, bl = q[r][c][0], q[r][c + 1][1], q[r + 1][c + 1][2], q[r + 1][c][3]
    with app_page(tmp_path) as page:
        set_up_game(page)
        tap(page, "nim_start")
        page.get_by_text("Nimalia started with 2 players").first.wait_for()
        segment(page, "nim_mode", "Photo")
        page.locator(".st-key-nim_photo_0_1 input[type=file]").set_input_files(str(path))
        wait_idle(page)
        page.get_by_text("Photo read:").first.wait_for(timeout=90_000)
        shot(page, tmp_path, "nimalia_card_1_wrong_read", ".st-key-nim_tap_card_0_1")
        tap(page, "nim_tap_card_0_1")
        frame = "nim_corners_0_1_tap"
        box = image_box(page, frame)  # the photo at its true aspect
        assert abs(box["width"] / box["height"] - width / height) < 0.02, box
        page.get_by_text("0 of 4 placed").first.wait_for()
        shot(page, tmp_path, "nimalia_card_2_ask", ".st-key-nim_corners_0_1_tap")
        tap_on(page, frame, *br, width, height)  # any order
        tap_on(page, frame, *tl, width, height)
        tap_on(page, frame, *tr, width, height)
        off = (bl[0] + 25, bl[1] - 20)  # the fourth tap a little off...
        tap_on(page, frame, *off, width, height)
        page.get_by_text("All four corners placed").first.wait_for()
        # ...and put exactly on the corner in the magnifier (on the last corner)
        side = max(width, height) / 8
        left = min(max(off[0] - side / 2, 0), width - side)
        top = min(max(off[1] - side / 2, 0), height - side)
        tap_on(page, "nim_corners_0_1_zoom", bl[0] - left, bl[1] - top, side, side)
        shot(page, tmp_path, "nimalia_card_3_placed", ".st-key-nim_corners_0_1_tap")
        no_sideways_scroll(page)
        tap(page, "nim_corners_0_1_done")
        page.get_by_text("one card's corners").first.wait_for(timeout=60_000)
        shot(page, tmp_path, "nimalia_card_4_read", ".st-key-nim_points")
        from service.nimalia.game import square_text

        wrong = []
        for r, row in enumerate(truth["squares"]):
            for c, token in enumerate(row):
                text = button(page, f"nim_sq_{r}_{c}").inner_text().strip()
                if text != square_text(token).strip():
                    wrong.append((r, c, token, text))
        assert not wrong, wrong
        no_sideways_scroll(page)
