"""Start the app as a headless ``streamlit run`` subprocess and drive it with a real browser.

Used by the real-browser test and by ``scripts/screenshots.py``; nothing here runs at import.
The browser is Debian's Chromium through Playwright (no browser download).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_healthy(base_url: str, timeout_s: float = 60.0) -> None:
    """Wait until ``/_stcore/health`` answers ``ok``; raise ``TimeoutError`` otherwise."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base_url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    raise TimeoutError(f"the app at {base_url} did not become healthy in {timeout_s:.0f} s")


@contextmanager
def serve_app(env: Mapping[str, str], *, port: int | None = None) -> Iterator[str]:
    """Run ``streamlit run app.py`` headless with extra ``env``; yield its base URL.

    The server is stopped (terminate, then kill) when the block ends; its output goes to a log
    file beside the database given in ``env`` (or is discarded).
    """
    port = port or free_port()
    full_env = {**os.environ, **env, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "app.py"),
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
    ]
    log = open(os.devnull, "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen(command, cwd=ROOT, env=full_env, stdout=log, stderr=log)
    base_url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base_url)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        log.close()


def wait_idle(page, timeout_ms: int = 60_000) -> None:
    """Wait for the app's script run to finish and the page to settle.

    Streamlit marks its root element with ``data-test-script-state`` (``running``,
    ``rerunRequested``, ``notRunning``, ...); a run may only just have been requested when this
    is called, so the state must read ``notRunning`` twice, a moment apart.

    Parameters
    ----------
    page : playwright.sync_api.Page
    """
    script = """() => {
        const app = document.querySelector('[data-testid="stApp"]');
        return app && app.getAttribute('data-test-script-state') === 'notRunning';
    }"""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout_ms)
    for _ in range(2):
        page.wait_for_timeout(250)
        page.wait_for_function(script, timeout=timeout_ms)
    page.wait_for_timeout(150)


def goto_page(page, title: str) -> None:
    """Navigate within the app (keeping the session) by the sidebar link with ``title``."""
    nav = page.locator('[data-testid="stSidebarNav"]')
    if not nav.is_visible():
        page.locator('[data-testid="stExpandSidebarButton"]').click()
    page.locator('[data-testid="stSidebarNav"] a', has_text=title).first.click()
    wait_idle(page)
    if page.viewport_size and page.viewport_size["width"] < 640:
        collapse = page.locator('[data-testid="stSidebarCollapseButton"] button')
        if collapse.count() and collapse.first.is_visible():
            collapse.first.click()
            page.wait_for_timeout(300)
