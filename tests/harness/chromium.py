"""A headless Chromium driven over the Chrome DevTools protocol, just enough to test pages.

One browser process, one page; the DevTools port is the one Chromium picks and writes to
``DevToolsActivePort`` in its profile (no fixed port to collide on). Console errors, uncaught
exceptions and failed loads are collected as events while the page runs.

    python -m tests.harness.chromium PAGE.html SHOT.png   # a screenshot of what a person sees
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import websocket

EXECUTABLES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
START_SECONDS = 60.0  # generous: a loaded two-CPU machine starts Chromium slowly
CALL_SECONDS = 60.0


def find_chromium() -> str | None:
    return next((path for path in map(shutil.which, EXECUTABLES) if path), None)


class ChromiumError(RuntimeError):
    pass


class Chromium:
    def __init__(self, executable: str, width: int = 1400, height: int = 900) -> None:
        self.profile = Path(tempfile.mkdtemp(prefix="patchconf-chromium-"))
        self.log = (self.profile / "chromium.log").open("wb")
        self.process = subprocess.Popen(
            [executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio",
             "--remote-debugging-port=0", f"--user-data-dir={self.profile}", f"--window-size={width},{height}",
             "about:blank"],
            stdout=subprocess.DEVNULL, stderr=self.log)
        self.events: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self.socket: websocket.WebSocket | None = None
        try:
            self.socket = websocket.create_connection(self._browser_url(), timeout=CALL_SECONDS,
                                                      suppress_origin=True)
            target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log"):
                self.call(f"{domain}.enable", session=self.session)
            self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                             "deviceScaleFactor": 1, "mobile": False},
                      session=self.session)
        except BaseException:
            self.close()
            raise

    def _browser_url(self) -> str:
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ChromiumError(f"chromium exited with {self.process.returncode}: {self._log_tail()}")
            lines = port_file.read_text().split() if port_file.is_file() else []
            if len(lines) == 2:
                return f"ws://127.0.0.1:{lines[0]}{lines[1]}"
            time.sleep(0.1)
        raise ChromiumError(f"chromium did not open its DevTools port in {START_SECONDS:.0f}s: {self._log_tail()}")

    def _log_tail(self) -> str:
        self.log.flush()
        return (self.profile / "chromium.log").read_text(errors="replace")[-2000:]

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        message_id = next(self._ids)
        message: dict[str, Any] = {"id": message_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        if self.socket is None:
            raise ChromiumError("not connected")
        self.socket.send(json.dumps(message))
        while True:
            answer = self._receive()
            if answer.get("id") == message_id:
                if "error" in answer:
                    raise ChromiumError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def _receive(self) -> dict[str, Any]:
        assert self.socket is not None
        answer = json.loads(self.socket.recv())
        if "method" in answer:
            self.events.append(answer)
        return answer

    def open(self, url: str) -> None:
        """Navigate and wait for the load event."""
        seen = len(self.events)
        result = self.call("Page.navigate", {"url": url}, session=self.session)
        if result.get("errorText"):
            raise ChromiumError(f"{url}: {result['errorText']}")
        deadline = time.monotonic() + CALL_SECONDS
        while not any(e["method"] == "Page.loadEventFired" for e in self.events[seen:]):
            if time.monotonic() > deadline:
                raise ChromiumError(f"{url} did not load in {CALL_SECONDS:.0f}s")
            self._receive()

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, session=self.session)
        if "exceptionDetails" in result:
            raise ChromiumError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions and failed loads the page has reported so far."""
        found = []
        for event in self.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.exceptionThrown":
                found.append(f"exception: {params['exceptionDetails'].get('text')} "
                             f"{params['exceptionDetails'].get('exception', {}).get('description', '')}")
            elif event["method"] == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(f"console.{params['type']}: {[a.get('value') for a in params.get('args', [])]}")
            elif event["method"] == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}")
        return found

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", params, session=self.session)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        try:
            if self.socket is not None:
                with contextlib.suppress(ChromiumError, OSError, websocket.WebSocketException):
                    self.call("Browser.close")  # a clean exit, so that its profile can be removed
                self.socket.close()
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        finally:
            self.log.close()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def main(argv: list[str]) -> int:
    page, shot = Path(argv[0]).resolve(), Path(argv[1])
    executable = find_chromium()
    if executable is None:
        print("no chromium on PATH", file=sys.stderr)
        return 2
    with Chromium(executable) as browser:
        browser.open(page.as_uri() + (argv[2] if len(argv) > 2 else ""))
        browser.screenshot(shot)
        for problem in browser.problems():
            print(problem, file=sys.stderr)
    print(shot)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
