"""The documentation's example reports: one small run of each report kind, written by the command itself
(its --out), so the site shows what a user gets.  Used by the site build (scripts/docs_hooks.py) and by
scripts/docs-screenshots."""
from __future__ import annotations

from pathlib import Path

# page name -> (title, the command's words after `sgdma`, without --out); small runs: seconds each
EXAMPLES = {
    "demo": ("sgdma demo", ["demo"]),
    "capture": ("sgdma capture", ["capture", "--rate", "40e6", "--buffer-size", "4096", "--api", "copy",
                                  "--seconds", "2ms"]),
    "characterize": ("sgdma characterize", ["characterize", "--bytes-per-bd", "32,128,512,2048,8192",
                                            "--bds", "4,64,1024", "--cycles", "1,4", "--trials", "4"]),
    "plan": ("sgdma plan", ["plan", "--gate-time", "100ns", "--bytes-per-gate", "512", "--trials", "4"]),
    "validate": ("sgdma validate", ["validate", "--trials", "3"]),
    "rtio-bench": ("sgdma rtio bench", ["rtio", "bench"]),
    "rtio-demo": ("sgdma rtio demo", ["rtio", "demo", "--pulses", "200"]),
    "pcie-sweep": ("sgdma pcie sweep", ["pcie", "sweep", "--link", "gen2x4", "--packet-size", "64..1M",
                                        "--endpoint-dma"]),
    "pcie-latency": ("sgdma pcie latency", ["pcie", "latency", "--packet-size", "64,1K,16K,64K",
                                            "--iterations", "2"]),
}


# the compare view's example: the capture example beside the same capture with zero-copy 16 KiB buffers
COMPARE_WITH = ["capture", "--rate", "40e6", "--buffer-size", "16KiB", "--seconds", "2ms"]


def run(out_dir: Path, names=None) -> dict[str, Path]:
    """Run the examples (in this process) into out_dir/<name>/; returns name -> report.html (and "compare" ->
    the compare view of the capture example and a zero-copy capture).  A command's
    negative verdict (exit 1: validate with a figure out of band) still wrote its report; any other exit
    is an error."""
    from click.testing import CliRunner

    from sgdma.cli import main

    out = {}
    for name in names or EXAMPLES:
        _, argv = EXAMPLES[name]
        target = Path(out_dir) / name
        res = CliRunner().invoke(main, [*argv, "--out", str(target)], catch_exceptions=False)
        if res.exit_code not in (0, 1) or not (target / "report.html").exists():
            raise RuntimeError(f"example {name} (sgdma {' '.join(argv)}) failed, exit {res.exit_code}:\n"
                               f"{res.output}")
        out[name] = target / "report.html"
    if "capture" in out:
        other = Path(out_dir) / "capture-zerocopy"
        res = CliRunner().invoke(main, [*COMPARE_WITH, "--out", str(other)], catch_exceptions=False)
        cmp = CliRunner().invoke(main, ["report", str(Path(out_dir) / "capture" / "result.json"),
                                        str(other / "result.json"), "--out", str(Path(out_dir) / "compare")],
                                 catch_exceptions=False)
        if res.exit_code or cmp.exit_code:
            raise RuntimeError(f"the compare example failed:\n{res.output}\n{cmp.output}")
        out["compare"] = Path(out_dir) / "compare" / "compare.html"
    return out
