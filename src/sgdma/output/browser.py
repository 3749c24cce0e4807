"""Open a report in headless Chromium over the DevTools protocol and check it: no console errors,
every plot drew (non-empty SVG/canvas), no horizontal scroll at 1280 px; write a screenshot.
Used by the tests and CI; needs the `chromium` binary and the websocket-client package."""
from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--remote-debugging-port=0", "--window-size=1280,900")


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class _Cdp:
    def __init__(self, ws_url: str):
        import websocket

        self.ws = websocket.create_connection(ws_url, timeout=30, suppress_origin=True)
        self.n = 0
        self.events: list[dict] = []

    def call(self, method: str, **params) -> dict:
        self.n += 1
        self.ws.send(json.dumps({"id": self.n, "method": method, "params": params}))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.n:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)
        raise TimeoutError(f"DevTools call {method} got no answer in 60 s")

    def js(self, expr: str):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        return r.get("result", {}).get("value")


def check(html_path: str | Path, screenshot: str | Path | None = None, width: int = 1280) -> dict:
    """Render the page and return {console_errors, plots, drawn, scroll_width, width, screenshot, first_screen,
    verdict: {text, bottom, visible} of the headline's first line}."""
    with Browser() as b:
        return b.check(html_path, screenshot, width)


class Browser:
    """One headless Chromium for several pages (`with Browser() as b: b.check(page)`): its start-up is paid once."""

    def __enter__(self) -> "Browser":
        exe = chromium()
        if exe is None:
            raise FileNotFoundError("chromium is not installed (apt-get install -y chromium)")
        # Chromium's helper processes may still touch the profile as the browser exits: stop the whole process
        # group, and let the profile's removal tolerate a file written at the last moment.
        self._profile = tempfile.TemporaryDirectory(prefix="sgdma-chromium-", ignore_cleanup_errors=True)
        profile = self._profile.name
        self.proc = subprocess.Popen([exe, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            for _ in range(300):
                if port_file.exists() and port_file.read_text().count("\n") >= 1:
                    break
                time.sleep(0.1)
            else:
                raise TimeoutError("chromium did not open its DevTools port in 30 s")
            self.port = port_file.read_text().split()[0]
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        _stop_group(self.proc)
        self._profile.cleanup()

    def check(self, html_path: str | Path, screenshot: str | Path | None = None, width: int = 1280) -> dict:
        """One page in a fresh tab: see `check`."""
        import urllib.request

        html_path = Path(html_path).resolve()
        screenshot = Path(screenshot) if screenshot else html_path.with_name("report_screenshot.png")
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}/json/new?about:blank", method="PUT")
        page = json.loads(urllib.request.urlopen(req, timeout=10).read())
        cdp = _Cdp(page["webSocketDebuggerUrl"])
        try:
            return _inspect(cdp, html_path, screenshot, width)
        finally:
            cdp.ws.close()
            urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/close/{page['id']}", timeout=10).read()


def _inspect(cdp: "_Cdp", html_path: Path, screenshot: Path, width: int) -> dict:
    cdp.call("Runtime.enable")
    cdp.call("Log.enable")
    cdp.call("Page.enable")
    cdp.call("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1, mobile=False)
    cdp.call("Page.navigate", url=html_path.as_uri())
    n_plots = 0
    for _ in range(300):
        state = cdp.js("document.readyState + ' ' + (window.sgdmaPlots||0) + ' ' + "
                       "document.querySelectorAll('.plot').length")
        if state:
            ready, drawn_count, n_plots = state.split()
            if ready == "complete" and int(drawn_count) >= int(n_plots):
                break
        time.sleep(0.1)
    drawn = cdp.js("""Array.from(document.querySelectorAll('.plot')).map(d => {
        const svg = d.querySelectorAll('svg.main-svg path, svg.main-svg rect.nsewdrag').length;
        const gl = Array.from(d.querySelectorAll('canvas')).some(c => c.width > 0 && c.height > 0);
        const pts = d.querySelectorAll('.scatterlayer .trace, .barlayer .trace, .heatmaplayer image').length;
        return {id: d.id, nonempty: (svg > 0 || gl) && (pts > 0 || gl)};
    })""") or []
    scroll = cdp.js("[document.documentElement.scrollWidth, window.innerWidth]")
    # the verdict line as the reader sees it: its text and where it ends on the first screen
    verdict = cdp.js("""(() => { const p = document.querySelector('.verdict p');
        if (!p) return null; const r = p.getBoundingClientRect();
        return {text: p.innerText, bottom: r.bottom, visible: r.height > 0 && r.width > 0}; })()""")
    errors = [e for e in cdp.events if
              (e.get("method") == "Runtime.exceptionThrown") or
              (e.get("method") == "Runtime.consoleAPICalled" and e["params"].get("type") == "error") or
              (e.get("method") == "Log.entryAdded" and e["params"]["entry"].get("level") == "error")]
    full_h = cdp.js("Math.min(document.documentElement.scrollHeight, 3000)")
    cdp.call("Emulation.setDeviceMetricsOverride", width=width, height=int(full_h or 900), deviceScaleFactor=1,
             mobile=False)
    time.sleep(0.5)
    shot = cdp.call("Page.captureScreenshot", format="png")
    screenshot.write_bytes(base64.b64decode(shot["data"]))
    first = cdp.call("Page.captureScreenshot", format="png",
                     clip={"x": 0, "y": 0, "width": width, "height": 900, "scale": 1})
    first_path = screenshot.with_name(screenshot.stem + "_first_screen.png")
    first_path.write_bytes(base64.b64decode(first["data"]))
    return {"console_errors": [json.dumps(e)[:300] for e in errors], "plots": int(n_plots), "drawn": drawn,
            "scroll_width": scroll[0], "width": scroll[1], "screenshot": str(screenshot), "verdict": verdict,
            "first_screen": str(first_path)}


def _stop_group(proc: subprocess.Popen) -> None:
    """Terminate the browser and every helper it started (its own session), bounded in time."""
    import os
    import signal

    for sig, wait_s in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue
