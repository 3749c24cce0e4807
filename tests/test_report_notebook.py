"""A report's notebook face carries plotly.js once per kernel, not once per output, and still draws offline."""
from __future__ import annotations

import html
import json
import time
import urllib.request

import pytest
from plotly.offline import get_plotlyjs

from sgdma.output import report

REC = {"kind": "demo_points", "version": 1, "title": "two points",
       "figures": [{"title": "line", "series": [{"x": [1, 2, 3], "y": [3, 1, 2], "name": "a"}]},
                   {"title": "bars", "series": [{"kind": "bar", "x": [1, 2], "y": [2, 5], "name": "b"}]}]}
LIB = get_plotlyjs()[:200]                    # the bundle's licence header, unique to the library's text


@pytest.fixture(autouse=True)
def fresh_kernel(monkeypatch):
    monkeypatch.setattr(report.Report, "_plotly_shown", False)


def test_first_output_carries_plotly_the_next_do_not():
    first, second = report.Report(REC)._repr_html_(), report.Report(REC)._repr_html_()
    lib = json.dumps(LIB)[1:-1].replace("</", "<\\/")       # as the first output holds it: a JS string
    assert lib in first and lib not in second and LIB not in html.unescape(second)
    assert len(second) < len(first) / 50
    assert "window.parent.sgdmaPlotlySource" in html.unescape(second)     # the iframe runs the page's copy


def test_inline_puts_plotly_in_this_output_anyway():
    report.Report(REC)._repr_html_()
    assert "sgdmaPlotlySource = " in report.Report(REC, plotly="inline")._repr_html_()


def test_the_file_report_stays_self_contained(tmp_path):
    files = report.write(REC, tmp_path, static=False)
    page = open(files["report_html"]).read()
    assert LIB in page and "<script src" not in page


def test_unknown_plotly_mode_refused():
    with pytest.raises(ValueError, match="'once'"):
        report.Report(REC, plotly="cdn")


def test_a_notebook_of_two_reports_draws_both_offline(tmp_path):
    # two outputs as a notebook page holds them; only the first carries plotly.js, both iframes draw with it
    from sgdma.output import browser

    if browser.chromium() is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium); the browser check needs it")
    pytest.importorskip("websocket", reason="websocket-client is not installed (pip install websocket-client)")
    page = tmp_path / "notebook.html"
    page.write_text("<!doctype html><html><body>" + report.Report(REC)._repr_html_()
                    + report.Report(REC)._repr_html_() + "</body></html>")
    with browser.Browser() as b:
        req = urllib.request.Request(f"http://127.0.0.1:{b.port}/json/new?about:blank", method="PUT")
        tab = json.loads(urllib.request.urlopen(req, timeout=10).read())
        cdp = browser._Cdp(tab["webSocketDebuggerUrl"])
        try:
            cdp.call("Page.enable")
            cdp.call("Page.navigate", url=page.as_uri())
            drawn = None
            for _ in range(200):                            # bounded: 20 s
                drawn = cdp.js("Array.from(document.querySelectorAll('iframe'))"
                               ".map(f => (f.contentWindow && f.contentWindow.sgdmaPlots) || 0)")
                if drawn == [2, 2]:
                    break
                time.sleep(0.1)
            svgs = cdp.js("Array.from(document.querySelectorAll('iframe'))"
                          ".map(f => f.contentDocument.querySelectorAll('svg.main-svg').length)")
        finally:
            cdp.ws.close()
    assert drawn == [2, 2] and all(n > 0 for n in svgs), (drawn, svgs)
