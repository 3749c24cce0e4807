"""``sgdma rtl``: the gateware's include generation, lint, synthesis and tests."""
from __future__ import annotations

import sys

import click

from sgdma.rtl import tools


def _dir(rtl_dir):
    try:
        return tools.rtl_dir(rtl_dir)
    except FileNotFoundError as e:
        raise click.UsageError(str(e)) from None


@click.group()
def rtl():
    """S0's timing engine and the DAC streamer in Verilog (rtl/)."""


@rtl.command()
@click.option("--rtl-dir", type=click.Path(file_okay=False), default=None, help="the rtl/ folder")
@click.option("--check", is_flag=True, help="only check that the committed include is current (exit 1 if not)")
def regs(rtl_dir, check):
    """Generate rtl/generated/sgdma_csm_regs.vh and README's map from csrc/include/sgdma/csm.h."""
    from sgdma.rtl import regs as r

    d = _dir(rtl_dir)
    path = d / "generated" / r.INCLUDE
    if check:
        current = path.exists() and path.read_text() == r.render() and r.readme_current(d / "README.md")
        click.echo(f"{path}, README map: {'current' if current else 'STALE: run sgdma rtl regs'}")
        sys.exit(0 if current else 1)
    click.echo(f"wrote {r.write(d)}")
    r.write_readme(d / "README.md")
    click.echo(f"updated the register map in {d / 'README.md'}")


@rtl.command()
@click.option("--rtl-dir", type=click.Path(file_okay=False), default=None, help="the rtl/ folder")
@click.option("--no-cosim", is_flag=True, help="skip the co-simulation against the virtual board")
def test(rtl_dir, no_cosim):
    """Lint (Verilator), synthesize (yosys), run the cocotb unit tests and the co-simulation.

    Exit 0 all pass, 1 a check failed, 3 a tool is missing or broke."""
    from sgdma.rtl import cosim, regs as r, sim

    d = _dir(rtl_dir)
    bad = 0
    try:
        ok = (d / "generated" / r.INCLUDE).read_text() == r.render()
        click.echo(f"register include from csm.h  {'current' if ok else 'STALE (sgdma rtl regs)'}")
        bad += not ok
        msgs = tools.lint(d)
        click.echo(f"verilator --lint-only -Wall   {'clean' if not msgs else 'FAILED'}")
        for m in msgs:
            click.echo("  " + m.replace("\n", "\n  "))
        bad += bool(msgs)
        msgs = tools.lint_tb(d)
        click.echo(f"  the testbench tops (rtl/tb)  {'clean' if not msgs else 'FAILED'}")
        for m in msgs:
            click.echo("  " + m.replace("\n", "\n  "))
        bad += bool(msgs)
        for b in tools.BLOCKS:
            s = tools.synth(b, d)
            click.echo(f"yosys {b:<17}       {s.total} cells, {s.flops} flip-flops, {s.latches} latches")
            bad += s.latches > 0
        for tb, top, src, params in (
                ("test_csm_unit", "sgdma_csm", ["sgdma_csm.v"], None),
                ("test_dac_unit", "sgdma_dac_stream", ["sgdma_dac_stream.v"],
                 dict(DATA_WIDTH=16, FIFO_DEPTH=4, GATE_CLOCKS=5, LEAD_CLOCKS=3))):
            o = sim.run(tb, top, src, params=params, d=d)
            click.echo(f"cocotb {tb:<16}       {len(o.passed)} passed, {len(o.failed)} failed")
            for name, msg in o.failed:
                click.echo(f"  {name}: {msg[:300]}")
            bad += not o.ok
        if not no_cosim:
            click.echo("co-simulation against the virtual board (RTL vs model, PL clocks):")
            for sc in cosim.default_scenarios():
                c = cosim.run(sc, build_dir=d / "build")
                cnt = ", ".join(f"{k} {v}" for k, v in c.model["counters"].items())
                uf = f"; underflows {c.model['underflow_count']}" if "underflow_count" in c.model else ""
                click.echo(f"  {c.scenario}: {cnt}{uf}: {'all equal' if c.equal else 'MISMATCH'}")
                for m in c.mismatches:
                    click.echo(f"    {m}")
                bad += not c.equal
            bad += _live(d)
    except tools.ToolMissing as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(3)
    except RuntimeError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(3)
    sys.exit(1 if bad else 0)


def _live(d) -> int:
    """The live co-simulation examples (sgdma.cocotb, docs/cosim.md); the number that failed."""
    from sgdma.rtl import live

    click.echo("live co-simulation (RTL against the timed board through sgdma.cocotb):")
    bad = 0
    for case in live.CASES:
        o, res = live.run(case, d / "build" / "live", d=d)
        lat = ""
        if res and "latency_clocks" in res:
            lat = f": burst latency {res['latency_clocks']} clocks, model {res['model_clocks']}"
        elif res and "counters" in res:
            got = ", ".join(f"{k} {v}" for k, v in res["counters"].items())
            lat = f": {got} (model {', '.join(str(v) for v in res['model_counters'].values())})"
        err = live.protocol_error(o)
        click.echo(f"  {case.name}: {'pass' if o.ok else 'FAILED'}{lat}" + (f"\n    {err}" if err else ""))
        for name, msg in o.failed:
            click.echo(f"    {name}: {msg[:300]}")
        bad += not o.ok
    return bad
