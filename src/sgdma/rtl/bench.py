"""Benchmark of the live bridges: pl_mem_reader.v reading BURSTS x 128 bytes from cocotbext-axi's
untimed AxiRam and from the board through sgdma.cocotb.PsMemoryPort, in one Icarus run; and
pl_stream_sink.v fed 16 packets of 4 KiB by cocotbext-axi's AxiStreamSource and by the board's
MM2S through sgdma.cocotb.DmaStreamSource, in another.

    python -m sgdma.rtl.bench [BURSTS]

Prints simulated clocks per wall-clock second for each and the ratio of the time per clock.
The runs simulate different clock counts (the board's DDR latency makes the reader wait, the
DMA's descriptor fetches delay the stream), so clocks per second, not run time, is the comparison."""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from . import sim


def _run(testbench: str, top: str, params: dict, env: dict) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.jsonl"
        o = sim.run(testbench, top, [f"{top}.v"], params=params, env={"SGDMA_BENCH_OUT": str(out), **env},
                    build_dir=Path(tmp))
        if not o.ok:
            raise RuntimeError(f"benchmark failed: {o.failed}")
        return [json.loads(line) for line in out.read_text().splitlines()]


def run(bursts: int = 200) -> list[dict]:
    return _run("bench_cosim_memport", "pl_mem_reader", {"BURSTS": bursts}, {"BURSTS": str(bursts)})


def run_stream() -> list[dict]:
    return _run("bench_cosim_stream", "pl_stream_sink", {}, {})


def _print(rows: list[dict], what: str) -> None:
    for r in rows:
        r["cps"] = r["clocks"] / r["wall_s"]
        print(f"{r['name']:<30} {r['clocks']:>7} clocks  {r['wall_s']:7.3f} s  {r['cps']:>9.0f} clocks/s")
    ref, bridge = rows
    print(f"bridge / {ref['name'].split()[0]} time per clock: {ref['cps'] / bridge['cps']:.2f}x  ({what})")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    bursts = int(argv[0]) if argv else 200
    _print(run(bursts), f"{bursts} bursts of 128 bytes")
    _print(run_stream(), "16 packets of 4 KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
