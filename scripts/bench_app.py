"""Time the app as a player feels it, in a real browser (Debian's Chromium, Playwright).

Three timings, each the median of ``--n`` runs against one ``streamlit run`` server on a
throw-away database:

- first page: ``goto`` until the setup page's script run has finished (a new tab each time);
- photo → read shown: the upload until "Read in … ms" is on the page (each run a differently
  encoded copy of a sample photo, so nothing comes from a cache);
- one fix → pad updated: the tap on the card in the picker until the total bar names the cell.

Usage: ``python scripts/bench_app.py [--n 10] [--json]``
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "app"))

from browser_helpers import (  # noqa: E402
    SAMPLES,
    button,
    cell_text,
    create_night_and_start,
    goto_page,
    launch,
    tap,
    wait_idle,
)
from serve import serve_app  # noqa: E402


def variants(n: int, folder: Path) -> list[Path]:
    """``n`` photos: the samples re-encoded at slightly different JPEG qualities."""
    out = []
    for i in range(n):
        image = Image.open(SAMPLES[i % len(SAMPLES)])
        buffer = io.BytesIO()
        image.save(buffer, format="JPEG", quality=90 - i)
        path = folder / f"photo_{i}.jpg"
        path.write_bytes(buffer.getvalue())
        out.append(path)
    return out


def settled(page, timeout_ms: int = 60_000) -> None:
    """Wait until the script run is over (one check, no settle pauses: this is timed)."""
    page.wait_for_function(
        """() => { const a = document.querySelector('[data-testid="stApp"]');
                   return a && a.getAttribute('data-test-script-state') === 'notRunning'; }""",
        timeout=timeout_ms,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    first, read, fix = [], [], []
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        photos = variants(args.n, tmp)
        env = {
            "REPTILE_TANK_DB_URL": f"sqlite:///{tmp / 'lb.sqlite3'}",
            "REPTILE_TANK_HOME": str(tmp / "home"),
        }
        with serve_app(env) as url, sync_playwright() as pw:
            browser = launch(pw)
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            warm = context.new_page()
            warm.goto(url)
            wait_idle(warm)
            for _ in range(args.n):
                page = context.new_page()
                start = time.perf_counter()
                page.goto(url)
                page.get_by_text("Game setup").first.wait_for()
                settled(page)
                first.append((time.perf_counter() - start) * 1000)
                page.close()
            page = warm
            create_night_and_start(page, "Bench", "Ann\nBen")
            goto_page(page, "Photograph")
            for photo in photos:
                field = page.locator(".st-key-photo_upload_Ann input[type=file]")
                shown = page.get_by_text("Read in", exact=False)
                before = shown.first.inner_text() if shown.count() else ""
                start = time.perf_counter()
                field.set_input_files(str(photo))
                page.wait_for_function(
                    """(before) => [...document.querySelectorAll('[data-testid="stAlert"]')]
                        .some(e => e.innerText.includes('Read in') && e.innerText !== before)""",
                    arg=before,
                    timeout=90_000,
                )
                settled(page)
                read.append((time.perf_counter() - start) * 1000)
                wait_idle(page)
            goto_page(page, "Check the read")
            for i in range(args.n):
                r, c = divmod(i, 5)
                label = "rock" if "Rock" not in cell_text(page, r, c) else "hollow_log"
                tap(page, f"check_cell_{r}_{c}")
                pick = button(page, f"check_pick_{label}")
                start = time.perf_counter()
                pick.click()
                page.locator(".st-key-check_total").get_by_text(
                    f"row {r + 1}, column {c + 1}:"
                ).first.wait_for()
                settled(page)
                fix.append((time.perf_counter() - start) * 1000)
                wait_idle(page)
            browser.close()
    result = {
        name: {"median_ms": round(statistics.median(values), 1), "runs": len(values)}
        for name, values in (("first_page", first), ("photo_to_read", read), ("fix_to_pad", fix))
    }
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for name, value in result.items():
            print(f"{name:15s} median {value['median_ms']:8.1f} ms over {value['runs']} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
