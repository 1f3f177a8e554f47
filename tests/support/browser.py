"""A real headless Chromium driven over the DevTools protocol, for tests of the HTML reports.

Debian's chromium (/usr/bin/chromium) is started with --remote-debugging-pipe: the protocol's JSON
messages go over file descriptors 3 (to the browser) and 4 (from it), each ended by a NUL byte, so
no port is opened and no websocket client is needed. A fresh --user-data-dir per browser, and
every background service off, so the only network request a page can cause is one the page makes.

    with Chromium() as browser:
        page = browser.open(Path("report.html"), screenshot=Path("shot.png"))
        assert page.console_errors == [] and page.requests == []
        page.evaluate("document.title")
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--no-default-browser-check", "--mute-audio",
         "--hide-scrollbars", "--remote-debugging-pipe")
TIMEOUT_S = 60.0


def find_chromium() -> Optional[str]:
    for c in CHROMIUM_CANDIDATES:
        if os.access(c, os.X_OK):
            return c
    return shutil.which("chromium")


class BrowserError(RuntimeError):
    pass


@dataclass
class PageResult:
    url: str
    console: list[dict[str, Any]] = field(default_factory=list)   # every console message and log entry
    exceptions: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)              # every URL requested, the page itself excluded
    failed: list[str] = field(default_factory=list)                # requests that failed (blocked, not found)
    screenshot: Optional[Path] = None
    _browser: Any = None
    _session: str = ""

    @property
    def console_errors(self) -> list[dict[str, Any]]:
        return [m for m in self.console if m["level"] in ("error", "warning", "assert")] + [
            {"level": "exception", "text": e} for e in self.exceptions]

    def element_screenshot(self, selector: str, out: Path, pad: int = 8) -> Path:
        """A PNG of one element (e.g. "#chart-memory"), for the docs."""
        box = self.evaluate(f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
                            " return [r.left + scrollX, r.top + scrollY, r.width, r.height]; })()")
        x, y, w, h = box
        shot = self._browser.call("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": max(0, x - pad), "y": max(0, y - pad), "width": w + 2 * pad, "height": h + 2 * pad, "scale": 1}},
            session=self._session)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(base64.b64decode(shot["data"]))
        return out

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (returned by value)."""
        r = self._browser.call("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                               session=self._session)
        if "exceptionDetails" in r:
            raise BrowserError(f"evaluate failed: {r['exceptionDetails']}")
        return r["result"].get("value")


class Chromium:
    def __init__(self, binary: Optional[str] = None, width: int = 1100, height: int = 900):
        self.binary = binary or find_chromium()
        if self.binary is None:
            raise BrowserError("chromium is not installed (apt-get install chromium)")
        self.width, self.height = width, height
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self._id = 0
        self._buf = b""
        self._events: list[dict[str, Any]] = []
        self._profile: Optional[str] = None

    # ------------------------------------------------------------------ process and pipe

    def __enter__(self) -> "Chromium":
        self._profile = tempfile.mkdtemp(prefix="advisor-chromium-")
        import fcntl

        to_r, self._to_w = os.pipe()       # we write, chromium reads fd 3
        self._from_r, from_w = os.pipe()   # chromium writes fd 4, we read
        # move the child's ends above 4, so that placing them at 3 and 4 cannot overwrite one another
        hi_r, hi_w = fcntl.fcntl(to_r, fcntl.F_DUPFD, 10), fcntl.fcntl(from_w, fcntl.F_DUPFD, 10)
        os.close(to_r)
        os.close(from_w)
        to_r, from_w = hi_r, hi_w

        def fds() -> None:
            os.dup2(to_r, 3)
            os.dup2(from_w, 4)

        self.proc = subprocess.Popen([self.binary, *FLAGS, f"--user-data-dir={self._profile}",
                                      f"--window-size={self.width},{self.height}", "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     preexec_fn=fds, pass_fds=(3, 4))
        os.close(to_r)
        os.close(from_w)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                self._send("Browser.close", {})
            except OSError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self.proc is not None and self.proc.stderr is not None:
            self.proc.stderr.close()
        for fd in (getattr(self, "_to_w", None), getattr(self, "_from_r", None)):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._to_w = self._from_r = None  # type: ignore[assignment]
        if self._profile:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None

    def _send(self, method: str, params: dict[str, Any], session: Optional[str] = None) -> int:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._to_w, json.dumps(msg).encode() + b"\0")
        return self._id

    def _read(self, deadline: float) -> dict[str, Any]:
        import select

        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("chromium did not answer in time")
            r, _, _ = select.select([self._from_r], [], [], left)
            if not r:
                continue
            chunk = os.read(self._from_r, 1 << 20)
            if not chunk:
                err = self.proc.stderr.read().decode(errors="replace")[-2000:] if self.proc and self.proc.stderr else ""
                raise BrowserError(f"chromium closed the pipe: {err}")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, params: Optional[dict[str, Any]] = None, session: Optional[str] = None,
             timeout: float = TIMEOUT_S) -> dict[str, Any]:
        mid = self._send(method, params or {}, session)
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == mid:
                if "error" in m:
                    raise BrowserError(f"{method}: {m['error']}")
                return m.get("result", {})
            self._events.append(m)

    def wait_event(self, method: str, session: str, timeout: float = TIMEOUT_S) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        for i, m in enumerate(self._events):
            if m.get("method") == method and m.get("sessionId") == session:
                return self._events.pop(i)
        while True:
            m = self._read(deadline)
            if m.get("method") == method and m.get("sessionId") == session:
                return m
            self._events.append(m)

    # ------------------------------------------------------------------ pages

    def open(self, path: Path, screenshot: Optional[Path] = None, settle_s: float = 0.3,
             max_height: int = 16000) -> PageResult:
        """Load a file, record console messages, exceptions and requests, and optionally write a
        PNG screenshot of the page from its top, at most `max_height` pixels tall."""
        url = path.resolve().as_uri()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", {}, session=session)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False}, session=session)
        self.call("Page.navigate", {"url": url}, session=session)
        self.wait_event("Page.loadEventFired", session)
        time.sleep(settle_s)
        self.call("Runtime.evaluate", {"expression": "1"}, session=session)  # drain events queued so far
        res = PageResult(url=url, _browser=self, _session=session)
        seen: dict[str, str] = {}
        for m in [e for e in self._events if e.get("sessionId") == session]:
            p = m.get("params", {})
            meth = m.get("method")
            if meth == "Runtime.consoleAPICalled":
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
                res.console.append({"level": {"warning": "warning"}.get(p.get("type"), p.get("type")), "text": text})
            elif meth == "Log.entryAdded":
                e = p.get("entry", {})
                res.console.append({"level": e.get("level"), "text": e.get("text", ""), "url": e.get("url")})
            elif meth == "Runtime.exceptionThrown":
                res.exceptions.append(json.dumps(p.get("exceptionDetails", {}))[:500])
            elif meth == "Network.requestWillBeSent":
                u = p.get("request", {}).get("url", "")
                seen[p.get("requestId", "")] = u
                if u != url:
                    res.requests.append(u)
            elif meth == "Network.loadingFailed":
                res.failed.append(seen.get(p.get("requestId", ""), "?") + ": " + str(p.get("errorText")))
        self._events = [e for e in self._events if e.get("sessionId") != session]
        if screenshot is not None:
            size = self.call("Page.getLayoutMetrics", {}, session=session)["cssContentSize"]
            h = int(min(size["height"], max_height))
            self.call("Emulation.setDeviceMetricsOverride",
                      {"width": self.width, "height": h, "deviceScaleFactor": 1, "mobile": False}, session=session)
            shot = self.call("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": self.width, "height": h, "scale": 1}}, session=session)
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            screenshot.write_bytes(base64.b64decode(shot["data"]))
            res.screenshot = screenshot
        return res

    def pdf(self, path: Path, out: Path) -> int:
        """Print a file to PDF as a user's print dialog would (print CSS applies); returns the bytes written."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", {}, session=session)
        self.call("Page.navigate", {"url": path.resolve().as_uri()}, session=session)
        self.wait_event("Page.loadEventFired", session)
        data = base64.b64decode(self.call("Page.printToPDF", {"printBackground": True}, session=session)["data"])
        out.write_bytes(data)
        return len(data)
