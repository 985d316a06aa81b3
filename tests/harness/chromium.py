"""The machine's own headless Chromium, driven by Playwright, to test pages as a person sees them.

Playwright starts the Chromium found on PATH (``executable_path``): no browser of its own is
downloaded. One browser, one page of a person's window size; console errors and assertions,
uncaught exceptions and failed loads (which Chromium logs as console errors) are collected
while the page runs.

    python -m tests.harness.chromium PAGE.html SHOT.png   # a screenshot of what a person sees
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import ConsoleMessage, Error, Page, sync_playwright

EXECUTABLES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
TIMEOUT_MS = 60_000  # generous: a loaded two-CPU machine starts Chromium slowly
WIDTH, HEIGHT = 1400, 900


def find_chromium() -> str | None:
    return next((path for path in map(shutil.which, EXECUTABLES) if path), None)


class Problems(list[str]):
    """What the page reported going wrong, in the order it happened."""

    def watch(self, page: Page) -> None:
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.append(f"exception: {error.name}: {error.message}"))

    def _console(self, message: ConsoleMessage) -> None:
        if message.type in ("error", "assert"):
            where = message.location.get("url", "")
            self.append(f"console.{message.type}: {message.text}" + (f" ({where})" if where else ""))


@contextmanager
def chromium_page(executable: str) -> Iterator[tuple[Page, Problems]]:
    """A page in a headless Chromium started from ``executable``, and the problems it reports."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, timeout=TIMEOUT_MS)
        try:
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=1)
            page.set_default_timeout(TIMEOUT_MS)
            problems = Problems()
            problems.watch(page)
            yield page, problems
        finally:
            browser.close()


def main(argv: list[str]) -> int:
    page_path, shot = Path(argv[0]).resolve(), Path(argv[1])
    executable = find_chromium()
    if executable is None:
        print(f"no chromium on PATH (looked for {', '.join(EXECUTABLES)})", file=sys.stderr)
        return 2
    try:
        with chromium_page(executable) as (page, problems):
            page.goto(page_path.as_uri() + (argv[2] if len(argv) > 2 else ""))
            page.screenshot(path=shot)
    except Error as exc:
        print(f"chromium ({executable}): {exc.message}", file=sys.stderr)
        return 1
    for problem in problems:
        print(problem, file=sys.stderr)
    print(shot)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
