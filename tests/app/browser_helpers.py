"""Helpers of the real-browser tests: Debian's Chromium through Playwright, phone-sized."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest
from serve import CHROMIUM, CHROMIUM_ARGS, goto_page, serve_app, wait_idle

from vision.models import DEFAULT_MODEL, model_files

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = [ROOT / "reptile_tank" / "samples" / f"sample_{i}.jpg" for i in (1, 2, 3)]
MODEL = model_files(DEFAULT_MODEL).onnx
#: A phone: 390 x 844 CSS pixels, touch.
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
LAPTOP = {"viewport": {"width": 1280, "height": 900}}
#: True when the page is no wider than the screen (the document element only).
NO_SIDEWAYS_SCROLL = (
    "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
)

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "goto_page", "wait_idle"]


def require_browser(*, model: bool = True) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Debian's Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (dev extra)")
    if model and not MODEL.exists():
        pytest.skip(f"the card reader's model is missing: {MODEL.relative_to(ROOT)}")
    if model and not SAMPLES[0].exists():
        pytest.skip("the sample photos are missing")


def launch(pw, *extra_args: str):
    """Debian's Chromium with the app's flags (and ``extra_args`` after them)."""
    return pw.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, *extra_args])


def env_for(tmp_path) -> dict[str, str]:
    """The server's environment: a throw-away SQLite database and user folder in ``tmp_path``."""
    return {
        "REPTILE_TANK_DB_URL": f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}",
        "REPTILE_TANK_HOME": str(tmp_path / "home"),
    }


@contextmanager
def app_page(
    tmp_path,
    *,
    device: Mapping = PHONE,
    args: Iterable[str] = (),
    permissions: Iterable[str] = (),
    env: Mapping[str, str] | None = None,
    on_request: Callable | None = None,
) -> Iterator:
    """Serve the app (``env``, by default :func:`env_for`), open it in Chromium in a new
    context of ``device`` and yield the page once its first script run has finished;
    ``on_request`` (if given) hears every request from before the first page load.

    On an exception the page is saved to ``tmp_path / "failure.png"`` and the exception goes
    on; the browser is closed and the server stopped when the block ends.
    """
    from playwright.sync_api import sync_playwright

    with serve_app(env_for(tmp_path) if env is None else env) as url, sync_playwright() as pw:
        browser = launch(pw, *args)
        context = browser.new_context(**device)
        if permissions:
            context.grant_permissions(list(permissions))
        page = context.new_page()
        if on_request is not None:
            page.on("request", on_request)
        try:
            page.goto(url)
            wait_idle(page)
            yield page
        except Exception:
            page.screenshot(path=str(tmp_path / "failure.png"), full_page=True)
            raise
        finally:
            browser.close()


def button(page, key: str):
    """The visible button with widget key ``key`` (a button with help text is drawn twice)."""
    return page.locator(f".st-key-{key} button").locator("visible=true").first


def tap(page, key: str) -> None:
    button(page, key).click()
    wait_idle(page)


def pick_player(page, key: str, name: str) -> None:
    """Tap ``name`` in the radio buttons with widget key ``key``."""
    page.locator(f".st-key-{key} label").filter(has_text=name).first.click()
    wait_idle(page)


def create_night(page, name: str = "Friday") -> None:
    """Create a game night named ``name`` on the setup page."""
    page.locator(".st-key-setup_new_session input").fill(name)
    page.get_by_role("button", name="Create").click()
    wait_idle(page)


def start_game(page, players: str = "Ann\nBen") -> None:
    """Type the players on the setup page and tap Start."""
    page.locator(".st-key-setup_players textarea").fill(players)
    tap(page, "setup_start")


def create_night_and_start(page, name: str, players: str) -> str:
    """Create a game night and start a game; return the night's uid from the URL."""
    create_night(page, name)
    page.locator(".st-key-setup_players textarea").fill(players)
    page.locator(".st-key-setup_players textarea").blur()
    wait_idle(page)
    tap(page, "setup_start")
    page.get_by_text("Game started with").first.wait_for()
    return night_of(page)


def night_of(page) -> str:
    from urllib.parse import parse_qs, urlparse

    for _ in range(40):
        found = parse_qs(urlparse(page.url).query).get("night")
        if found:
            return found[0]
        page.wait_for_timeout(100)
    raise AssertionError(f"no ?night= in {page.url}")


def upload(page, player: str, photo: Path, timeout_ms: int = 90_000) -> None:
    """Upload ``photo`` for ``player`` on the photo page and wait for its read."""
    page.locator(f".st-key-photo_upload_{player} input[type=file]").set_input_files(str(photo))
    wait_idle(page)
    # the page moves on to the next player (or the table's check) and says what was read
    page.get_by_text(f"{player}'s terrarium is read", exact=False).first.wait_for(
        timeout=timeout_ms
    )


def settled(page, timeout_ms: int = 60_000) -> None:
    """Wait until the app's script run has finished (``notRunning`` twice, 100 ms apart):
    :func:`wait_idle` with shorter pauses, for journeys that time their waiting."""
    script = """() => {
        const app = document.querySelector('[data-testid="stApp"]');
        return app && app.getAttribute('data-test-script-state') === 'notRunning';
    }"""
    for _ in range(2):
        page.wait_for_timeout(100)
        page.wait_for_function(script, timeout=timeout_ms)


def cell_text(page, row: int, col: int) -> str:
    return button(page, f"check_cell_{row}_{col}").inner_text()


def no_sideways_scroll(page) -> None:
    """The page never scrolls sideways (``scrollWidth <= clientWidth`` of the page and of the
    app's scrolling container)."""
    widths = page.evaluate(
        """() => {
        const out = [];
        for (const el of [document.documentElement,
                          document.querySelector('[data-testid="stMain"]'),
                          document.querySelector('[data-testid="stAppViewContainer"]')]) {
            if (el) out.push([el.scrollWidth, el.clientWidth]);
        }
        return out;
    }"""
    )
    for scroll, client in widths:
        assert scroll <= client, (page.url, widths)


def image_box(page, key: str):
    """The bounding box (viewport px) of the image inside the component with widget ``key``."""
    page.locator(f".st-key-{key} iframe").scroll_into_view_if_needed()
    image = page.frame_locator(f".st-key-{key} iframe").locator("img#image")
    image.wait_for(timeout=30_000)
    page.wait_for_function(
        "k => { const f = document.querySelector(`.st-key-${k} iframe`);"
        " const i = f && f.contentDocument && f.contentDocument.querySelector('img#image');"
        " return i && i.complete && i.naturalWidth > 0 && i.width > 100; }",
        arg=key,
        timeout=30_000,
    )
    box = image.bounding_box()
    assert box and box["width"] > 100, box
    return box


def tap_on(page, key: str, x: float, y: float, width: float, height: float) -> None:
    """Tap the component image ``key`` at photo point ``(x, y)`` of a width x height frame."""
    box = image_box(page, key)
    page.touchscreen.tap(box["x"] + x / width * box["width"], box["y"] + y / height * box["height"])
    wait_idle(page)
