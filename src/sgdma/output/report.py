"""A playback's report: summary JSON, a PNG, an HTML page, timeline.vcd and timeline.json."""
from __future__ import annotations

import base64
import html
import json
from pathlib import Path

import numpy as np


def summary(result, extra: dict | None = None) -> dict:
    """The --json record of `sgdma demo` / `sgdma run`."""
    d = {
        "board": result.board,
        "gates": result.gates,
        "bds": result.bds,
        "latency_ns": result.latency_ns,
        "throughput_mbps": result.throughput_mbps,
        "underflows": len(result.underflows),
        "deadline_misses": result.deadline_misses,
        "mailbox": result.mailbox,
        "mailbox_latency_ns": result.mailbox_latency_ns,
        "apu_build_ns": result.apu_build_ns,
        "dac_word_ns": result.dac_word_ns,
        "csm": result.csm,
        "underflow_list": [{"gate": u.gate, "gate_name": u.gate_name, "time_ns": u.time_ns, "late_ns": u.late_ns}
                           for u in result.underflows[:1000]],
    }
    d.update(extra or {})
    return d


def plot(result, path: Path) -> Path:
    from sgdma.output.plots import pyplot, save

    plt = pyplot()
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 6.5))
    n = len(result.gate_first_ns)
    idx = np.arange(n)
    slack = (result.gate_deadline_ns - result.gate_first_ns) / 1e3
    ax1.plot(idx, slack, ".", ms=2, label="slack: slot - first word at the PL (us)")
    late = [u.gate for u in result.underflows]
    if late:
        ax1.plot(late, np.zeros(len(late)), "rx", ms=5, label=f"underflow ({len(late)})")
    ax1.axhline(0, color="k", lw=0.8)
    ax1.set_xlabel("gate")
    ax1.set_ylabel("us")
    ax1.set_title(f"{result.gates} gates on {result.board}: {len(result.underflows)} underflows, "
                  f"{result.deadline_misses} deadline misses")
    ax1.legend(fontsize=8)
    t = np.sort(np.r_[result.gate_first_ns, result.gate_play_ns]) / 1e3
    arrived = np.searchsorted(np.sort(result.gate_first_ns) / 1e3, t, side="right")
    played = np.searchsorted(np.sort(result.gate_play_ns) / 1e3, t, side="right")
    ax2.step(t, arrived, where="post", label="gates delivered by the DMA")
    ax2.step(t, played, where="post", label="gates played by the DAC")
    ax2.set_xlabel("virtual time (us)")
    ax2.set_ylabel("gates")
    ax2.legend(fontsize=8)
    return save(fig, path, dpi=110)


def write(result, out_dir: str | Path, title: str, extra: dict | None = None) -> dict:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "report_html": out / "report.html",
        "report_png": plot(result, out / "report.png"),
        "timeline_vcd": result.timeline.write_vcd(out / "timeline.vcd"),
        "timeline_json": result.timeline.write_perfetto(out / "timeline.json"),
    }
    data = summary(result, extra)
    data["outputs"] = {k: str(v) for k, v in files.items()}
    rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(_fmt(v))}</td></tr>"
                   for k, v in data.items() if k not in ("underflow_list", "outputs", "csm"))
    png = base64.b64encode(Path(files["report_png"]).read_bytes()).decode()
    under = "".join(f"<tr><td>{u.gate}</td><td>{html.escape(u.gate_name)}</td><td>{u.time_ns:.0f}</td>"
                    f"<td>{u.late_ns:.0f}</td></tr>" for u in result.underflows[:200])
    files["report_html"].write_text(f"""<!doctype html><html><head><meta charset="utf-8">
<title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}table{{border-collapse:collapse}}
th,td{{border:1px solid #ccc;padding:2px 8px;text-align:left}}</style></head><body>
<h1>{html.escape(title)}</h1>
<table>{rows}</table>
<h2>Timing engine counters (PL clocks)</h2><pre>{html.escape(json.dumps(result.csm, indent=1))}</pre>
<img src="data:image/png;base64,{png}" alt="gate timing" style="max-width:100%">
<h2>Underflows</h2><table><tr><th>gate</th><th>name</th><th>time (ns)</th><th>late by (ns)</th></tr>{under}</table>
<p>Timeline: <code>timeline.vcd</code> (GTKWave), <code>timeline.json</code> (ui.perfetto.dev or chrome://tracing).</p>
</body></html>""")
    return data


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)
