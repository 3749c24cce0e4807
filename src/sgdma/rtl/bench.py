"""Benchmark of the live bridge: pl_mem_reader.v reading BURSTS x 128 bytes from cocotbext-axi's
untimed AxiRam and from the board through sgdma.cocotb.PsMemoryPort, in one Icarus run.

    python -m sgdma.rtl.bench [BURSTS]

Prints simulated clocks per wall-clock second for both and the ratio of the time per clock.
The two runs simulate different clock counts (the board's DDR latency makes the reader wait),
so clocks per second, not run time, is the comparison."""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from . import sim


def run(bursts: int = 200) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.jsonl"
        o = sim.run("bench_cosim_memport", "pl_mem_reader", ["pl_mem_reader.v"], params={"BURSTS": bursts},
                    env={"SGDMA_BENCH_OUT": str(out), "BURSTS": str(bursts)}, build_dir=Path(tmp))
        if not o.ok:
            raise RuntimeError(f"benchmark failed: {o.failed}")
        return [json.loads(line) for line in out.read_text().splitlines()]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    bursts = int(argv[0]) if argv else 200
    rows = run(bursts)
    for r in rows:
        r["cps"] = r["clocks"] / r["wall_s"]
        print(f"{r['name']:<28} {r['clocks']:>7} clocks  {r['wall_s']:7.3f} s  {r['cps']:>9.0f} clocks/s")
    ram, bridge = rows
    print(f"bridge / AxiRam time per clock: {ram['cps'] / bridge['cps']:.2f}x  ({bursts} bursts of 128 bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
