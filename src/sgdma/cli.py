"""The ``sgdma`` command: thin wrappers over the applications."""
from __future__ import annotations

import json
import sys

import click

from . import presets


def _core_constants() -> dict:
    from . import _core

    return _core.constants


def _write_json(path: str | None, data) -> None:
    if path:
        with open(path, "w") as f:
            json.dump(data, f, indent=2)
            f.write("\n")


def _print_selftest(res, title: str) -> None:
    click.echo(title)
    click.echo(f"  board                 {res.board} (seed {res.seed})")
    click.echo(f"  SG loopback           {res.packets} packets, {res.mm2s_bds} MM2S BDs -> {res.s2mm_bds} S2MM BDs")
    click.echo(f"  simple mode           {res.simple_transfers} transfers")
    click.echo(f"  bytes verified        {res.bytes}")
    click.echo(f"  first-word latency    {res.first_word_latency_ns:.0f} ns (tail write -> first MM2S beat)")
    click.echo(f"  stream throughput     {res.stream_throughput_mbps:.0f} MB/s (64 x 4 KiB BDs, payload / "
               "(last beat - first beat))")
    click.echo(f"  virtual time          {res.virtual_ns / 1e3:.1f} us simulated in {res.wall_s:.2f} s wall")
    if res.ok:
        click.echo("  result                PASS: every byte and every length matched")
    else:
        click.echo("  result                FAIL")
        for m in res.mismatches:
            click.echo(f"    - {m}")


@click.group()
@click.version_option(package_name="sgdma")
def main() -> None:
    """sgdma: scatter-gather DMA toolkit for FPGA SoCs (PG021 driver core + virtual board)."""


def _playback_options(f):
    f = click.option("--board", default="zcu111", show_default=True, help="board preset")(f)
    f = click.option("--mailbox", type=click.Choice(["gpio", "rpmsg"]), default="gpio", show_default=True,
                     help="APU -> RPU hand-off of the ring address")(f)
    f = click.option("--fifo-depth", default=64, show_default=True, type=click.IntRange(1, 1 << 20),
                     help="DAC FIFO in the PL, in stream words")(f)
    f = click.option("--gate-time", default="1us", show_default=True,
                     help="duration of a gate of the circuit's median length (e.g. 1us, 250ns)")(f)
    f = click.option("--passes", default=1, show_default=True, type=click.IntRange(1, 1 << 20),
                     help="play the circuit this many times from one closed ring (cyclic mode)")(f)
    f = click.option("--seed", default=0, show_default=True, type=int)(f)
    f = click.option("--out", "out_dir", default=None, type=click.Path(file_okay=False),
                     help="directory for report.html, report.png, timeline.vcd, timeline.json")(f)
    f = click.option("--json", "json_path", type=click.Path(dir_okay=False), help="write the summary as JSON")(f)
    return f


def _play(circuit, title, board, mailbox, fifo_depth, gate_time, passes, seed, out_dir, json_path) -> None:
    from .demo import run_circuit
    from .playback import PlaybackConfig
    from .sequence import SequenceError

    cfg = PlaybackConfig(mailbox=mailbox, fifo_depth=fifo_depth, gate_time_ns=parse_time_ns(gate_time),
                         passes=passes, seed=seed)
    out_dir = out_dir or "sgdma-out"
    try:
        data = run_circuit(circuit, board, cfg, out_dir, seed, title)
    except (SequenceError, ValueError) as e:
        raise click.UsageError(str(e))
    click.echo(title)
    click.echo(f"  board                {data['board']}; {data['gates']} gates in {data['bds']} BDs "
               f"(one AXI-Stream packet per gate)")
    click.echo(f"  segments             {data['segments_unique']} stored, {data['segments_referenced']} referenced"
               f" (dedup {data['dedup_ratio']:.1f}x); memory used {data['memory_bytes']} bytes")
    click.echo(f"  APU ring build       {data['apu_build_ns'] / 1e3:.1f} us")
    if data["mailbox"] in ("gpio", "rpmsg"):
        click.echo(f"  hand-off             {data['mailbox_latency_ns']:.0f} ns, APU -> RPU through {data['mailbox']}")
    else:
        click.echo("  hand-off             none: one CPU builds the ring and starts the DMA")
    click.echo(f"  first-word latency   {data['latency_ns']:.0f} ns (S0's definition: the RPU's tail write -> "
               "first word at the PL)")
    click.echo(f"  throughput           {data['throughput_mbps']:.1f} MB/s at the DAC's pace "
               f"({data['dac_word_ns']:.0f} ns per word, gate time {data['gate_time_ns']:.0f} ns)")
    click.echo(f"  underflows           {data['underflows']}")
    click.echo(f"  deadline misses      {data['deadline_misses']}")
    click.echo(f"  timing engine        setup {data['csm']['setup']} / latency {data['csm']['latency']} / "
               f"throughput {data['csm']['throughput']} PL clocks")
    click.echo(f"  virtual time         {data['virtual_time_ns'] / 1e3:.1f} us in {data['wall_s']:.2f} s wall")
    click.echo(f"  wrote                {', '.join(data['outputs'].values())}")
    _write_json(json_path, data)


@main.command()
@_playback_options
def demo(board, mailbox, fifo_depth, gate_time, passes, seed, out_dir, json_path) -> None:
    """A trapped-ion circuit streamed through the virtual ZCU111 (no arguments, no board needed)."""
    from .demo import demo_circuit

    _play(demo_circuit(), "sgdma demo: Bell pair + randomized benchmarking on a virtual trapped-ion controller",
          board, mailbox, fifo_depth, gate_time, passes, seed, out_dir or "sgdma-demo", json_path)


@main.command("run")
@click.argument("circuit_file", type=click.Path(exists=True, dir_okay=False))
@_playback_options
def run_cmd(circuit_file, board, mailbox, fifo_depth, gate_time, passes, seed, out_dir, json_path) -> None:
    """Compile CIRCUIT_FILE (TOML or JSON) with its gate library and stream it on the virtual board."""
    _play(circuit_file, f"sgdma run {circuit_file}", board, mailbox, fifo_depth, gate_time, passes, seed, out_dir,
          json_path)


@main.command("selftest")
@click.option("--board", default="zcu111", show_default=True, help="board preset")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--rounds", default=4, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--packets", default=32, show_default=True, type=click.IntRange(1, 100_000), help="packets per round")
@click.option("--max-packet", default=3000, show_default=True, type=click.IntRange(1, 1 << 26),
              help="largest packet in bytes")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="write the result as JSON")
def selftest_cmd(board: str, seed: int, rounds: int, packets: int, max_packet: int, json_path: str | None) -> None:
    """MM2S -> S2MM loopback with random packet sizes and BD splits; non-zero exit on any mismatch."""
    from . import selftest

    try:
        res = selftest.run(board, seed, rounds=rounds, packets=packets, max_packet=max_packet)
    except ValueError as e:
        raise click.UsageError(str(e))
    _print_selftest(res, "sgdma selftest")
    _write_json(json_path, res.as_dict())
    sys.exit(0 if res.ok else 1)


def _list_option(name: str, default: str, help: str):
    return click.option(name, default=default, show_default=True, help=help + " (e.g. 32,64 or 2^5..2^13)")


@main.group(invoke_without_command=True)
@click.option("--board", default="zcu111", show_default=True, help="board preset")
@_list_option("--bytes-per-bd", "2^5..2^13", "bytes per BD")
@_list_option("--bds", "4,16,1024", "BDs per ring")
@_list_option("--cycles", "1", "ring cycles (> 1: cyclic mode)")
@click.option("--mode", type=click.Choice(["sg", "simple"]), default="sg", show_default=True)
@click.option("--placement", type=click.Choice(["sequential", "random"]), default="sequential", show_default=True)
@click.option("--direction", type=click.Choice(["mm2s", "s2mm"]), default="mm2s", show_default=True)
@click.option("--port", default=None, help="PS port on PS-DDR boards (zynq7000: hp, acp, gp; zcu102: hp, hpc, acp)")
@click.option("--trials", type=click.IntRange(1, 1_000_000), default=None,
              help="seeded trials per point [default: 10; 100 with --preset s0]")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--timing-only/--functional", default=None,
              help="timing only: no payload bytes move [default: functional; timing only with --preset s0]")
@click.option("--preset", type=click.Choice(["s0"]), default=None,
              help="s0: S0's Table II sweep (bytes/BD x BDs, plus ring cycles) on its board")
@click.option("--jobs", type=click.IntRange(1, 64), default=None, help="worker processes [default: 2 cores]")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="write records as JSON")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), help="write records as CSV")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), help="write figures (PNG) here")
@click.pass_context
def characterize(ctx, board, bytes_per_bd, bds, cycles, mode, placement, direction, port, trials, seed,
                 timing_only, preset, jobs, json_path, csv_path, plot_dir):
    """Latency/throughput sweeps on the timed virtual board (S0's experiment)."""
    if ctx.invoked_subcommand is not None:
        return
    from . import characterize as ch

    try:
        if preset == "s0":
            points = ch.s0_points()
            trials = trials or 100
            timing_only = True if timing_only is None else timing_only
        else:
            points = [ch.Point(b, n, c) for b in ch.parse_list(bytes_per_bd) for n in ch.parse_list(bds)
                      for c in ch.parse_list(cycles)]
            trials = trials or 10
            timing_only = False if timing_only is None else timing_only
        setup = ch.Setup(board=board, mode=mode, direction=direction, placement=placement, trials=trials,
                         seed=seed, timing_only=timing_only, port=port)
        records = []
        with click.progressbar(length=len(points), label=f"{len(points)} points x {trials} trials",
                               show_pos=True, file=sys.stderr) as bar:
            for rec in ch.sweep(setup, points, jobs or ch.default_jobs()):
                records.append(rec.as_dict())
                bar.update(1)
    except (ch.SweepError, ValueError) as e:
        raise click.UsageError(str(e))
    if preset == "s0":
        _print_s0_summary(records)
    else:
        _print_sweep(records)
    _write_json(json_path, records)
    if csv_path:
        _write_csv(csv_path, records)
    if plot_dir:
        from . import plots

        for path in plots.s0_figures(records, plot_dir):
            click.echo(f"wrote {path}")


@characterize.command("bd-create")
@click.option("--board", default="zcu111", show_default=True)
@click.option("--cpu", "cpus", type=click.Choice(["apu", "rpu", "both"]), default="both", show_default=True)
@_list_option("--bds", "1,16,256,4096", "BDs per ring")
@click.option("--samples", default=100_000, show_default=True, type=click.IntRange(1, 10_000_000))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="write records as JSON")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), help="write S0 Figs. 8-10 style plots here")
def bd_create(board, cpus, bds, samples, seed, json_path, plot_dir):
    """Time to create BD rings on the APU (A53, Linux) and the RPU (R5, bare metal), as S0 measured it."""
    from . import bdcreate
    from . import characterize as ch

    wanted = ["apu", "rpu"] if cpus == "both" else [cpus]
    records = []
    try:
        for cpu in wanted:
            records += bdcreate.run(board, cpu, ch.parse_list(bds), samples, seed)
    except ValueError as e:
        raise click.UsageError(str(e))
    click.echo(f"{'cpu':<4} {'BDs':>6}  {'per BD ns: min':>15} {'median':>8} {'p99':>8} {'max':>9}")
    for r in records:
        q = r["per_bd_ns"]
        click.echo(f"{r['cpu']:<4} {r['bds']:>6}  {q['min']:>15.0f} {q['median']:>8.0f} {q['p99']:>8.0f} "
                   f"{q['max']:>9.0f}")
    if len(wanted) == 2:
        for c in bdcreate.compare([r for r in records if r["cpu"] == "apu"],
                                  [r for r in records if r["cpu"] == "rpu"]):
            click.echo(f"APU median {c['apu_speedup']:.1f}x faster than the RPU at {c['bds']} BDs")
    _write_json(json_path, records)
    if plot_dir:
        for path in bdcreate.plot(records, plot_dir):
            click.echo(f"wrote {path}")


def _flat(rec: dict) -> dict:
    out = {}
    for k, v in rec.items():
        if isinstance(v, dict):
            out.update({f"{k}_{kk}": vv for kk, vv in v.items()})
        else:
            out[k] = v
    return out


def _write_csv(path: str, records: list[dict]) -> None:
    import csv

    rows = [_flat(r) for r in records]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def _print_s0_summary(records: list[dict]) -> None:
    """S0's sweep in one screen: latency over all rings, throughput for rings 4/16/1024, cycles."""
    flat = [r for r in records if r["cycles"] == 1]
    by = {(r["bytes_per_bd"], r["bds"]): r for r in flat}
    click.echo(f"{'B/BD':>6}  {'latency ns: median [min, max] over all rings':<44}"
               f"{'MB/s, 4 BDs':>13}{'16 BDs':>10}{'1024 BDs':>10}")
    for bpb in sorted({r["bytes_per_bd"] for r in flat}):
        rows = [r for r in flat if r["bytes_per_bd"] == bpb]
        med = sorted(r["latency_ns"]["median"] for r in rows)[len(rows) // 2]
        lo = min(r["latency_ns"]["min"] for r in rows)
        hi = max(r["latency_ns"]["max"] for r in rows)
        thr = [by.get((bpb, n), {}).get("throughput_mbps", {}).get("median", float("nan")) for n in (4, 16, 1024)]
        click.echo(f"{bpb:>6}  {med:7.0f} [{lo:6.0f}, {hi:6.0f}]{'':<26}{thr[0]:>13.0f}{thr[1]:>10.0f}{thr[2]:>10.0f}")
    cyc = [r for r in records if r["cycles"] > 1]
    worst = max((abs(r["throughput_mbps"]["median"] / by[(r["bytes_per_bd"], r["bds"] * r["cycles"])]
                     ["throughput_mbps"]["median"] - 1), r) for r in cyc
                if (r["bytes_per_bd"], r["bds"] * r["cycles"]) in by) if cyc else None
    if worst:
        r = worst[1]
        click.echo(f"cyclic mode: N cycles of a k-BD ring vs one ring of N*k BDs differ by at most "
                   f"{worst[0] * 100:.1f} % ({r['bds']} BDs x {r['cycles']} cycles, {r['bytes_per_bd']} B/BD)")
    sim = sum(r["simulated_ns"] for r in records) / 1e9
    wall = sum(r["wall_s"] for r in records)
    click.echo(f"{len(records)} points; {sim:.2f} s of virtual time simulated in {wall:.2f} s of worker time")


def _print_sweep(records: list[dict]) -> None:
    sim = sum(r["simulated_ns"] for r in records) / 1e9
    wall = sum(r["wall_s"] for r in records)
    click.echo(f"{'B/BD':>6} {'BDs':>5} {'cyc':>5}  {'latency ns (med [min, max])':<28} "
               f"{'throughput MB/s (med [min, max])':<34}")
    for r in records:
        lat, thr = r["latency_ns"], r["throughput_mbps"]
        click.echo(f"{r['bytes_per_bd']:>6} {r['bds']:>5} {r['cycles']:>5}  "
                   f"{lat['median']:7.0f} [{lat['min']:6.0f}, {lat['max']:6.0f}]       "
                   f"{thr['median']:9.1f} [{thr['min']:9.1f}, {thr['max']:9.1f}]")
    click.echo(f"{len(records)} points; {sim:.2f} s of virtual time simulated in {wall:.2f} s of worker time")


def parse_time_ns(text: str) -> float:
    """'1us', '250ns', '2.5 us', '1e-6' (seconds) -> ns."""
    t = text.strip().lower().replace(" ", "")
    try:
        for unit, scale in (("ns", 1.0), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9)):
            if t.endswith(unit):
                return float(t[: -len(unit)]) * scale
        return float(t) * 1e9
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a time: use e.g. 1us, 250ns, 2ms") from None


@main.command("plan")
@click.option("--gate-time", required=True, help="time per gate, e.g. 1us or 250ns")
@click.option("--bytes-per-gate", required=True, type=click.IntRange(1, 1 << 26))
@click.option("--channels", default=1, show_default=True, type=click.IntRange(1, 1024),
              help="gate streams multiplexed on one AXI DMA")
@click.option("--board", default="zcu111", show_default=True)
@click.option("--fifo-depth", default=64, show_default=True, type=click.IntRange(1, 1 << 20),
              help="DAC FIFO in stream words")
@click.option("--trials", default=20, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="write the plan as JSON")
def plan_cmd(gate_time, bytes_per_gate, channels, board, fifo_depth, trials, seed, json_path):
    """Feasible or not, the margin, and a recommended BD size and ring, from short runs of the timed model."""
    from . import plan as pl

    try:
        p = pl.plan(parse_time_ns(gate_time), bytes_per_gate, channels, board, fifo_depth, trials, seed)
    except ValueError as e:
        raise click.UsageError(str(e))
    click.echo(f"{'FEASIBLE' if p.feasible else 'NOT FEASIBLE'} on {p.board}: need {p.required_mbps:.1f} MB/s, "
               f"worst trial {p.achieved_mbps:.1f} MB/s (margin {p.margin:.2f}x)")
    click.echo(f"  recommended: {p.recommended_bytes_per_bd} bytes per BD ({p.recommended_gates_per_bd} gate(s) "
               f"per BD), rings of {p.recommended_ring_bds or '-'} BDs")
    click.echo(f"  why: {p.reason}")
    _write_json(json_path, p.as_dict())
    sys.exit(0 if p.feasible else 2)


def _size(text: str) -> int:
    from .characterize import parse_size

    try:
        return parse_size(text)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise click.BadParameter(f"{what} {text!r} is not a number (e.g. 40e6)") from None


@main.command("capture")
@click.option("--board", default="zynq7000", show_default=True)
@click.option("--rate", default="40e6", show_default=True, help="ADC sample rate (samples/s)")
@click.option("--sample-bytes", default=4, show_default=True, type=click.IntRange(1, 8))
@click.option("--buffer-size", default="128KiB", show_default=True, help="bytes per DMA buffer (e.g. 4096, 128KiB)")
@click.option("--buffers", default=16, show_default=True, type=click.IntRange(1, 65536), help="buffers kept armed")
@click.option("--api", type=click.Choice(["copy", "zerocopy"]), default="zerocopy", show_default=True)
@click.option("--cache", type=click.Choice(["sync", "uncached", "coherent"]), default="sync", show_default=True)
@click.option("--mode", type=click.Choice(["continuous", "burst"]), default="continuous", show_default=True)
@click.option("--consumer-rate", default=None, help="the application's own processing rate, bytes/s (default: free)")
@click.option("--seconds", default=None, type=float,
              help="virtual seconds to capture [default: at least 50 ms or four laps of the ring, up to 2 s]")
@click.option("--fifo-bytes", default=None, help="PL FIFO between the ADC and the DMA [default: the capture layer's]")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--sweep", type=click.Choice(["buffer-size"]), default=None,
              help="throughput and packets/s against buffer size, per API and cache policy")
@click.option("--find-max-rate", is_flag=True, help="bisect the highest sample rate sustained without overflow")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), default="sgdma-capture-sweep",
              show_default=True, help="where --sweep writes its plot")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="write the result as JSON")
def capture_cmd(board, rate, sample_bytes, buffer_size, buffers, api, cache, mode, consumer_rate, seconds, fifo_bytes,
                seed, sweep, find_max_rate, plot_dir, json_path):
    """Continuous S2MM capture from an ADC through a PL FIFO into DMA buffers and the application."""
    from . import capture

    opts = dict(board=board, rate=_number(rate, "--rate"), sample_bytes=sample_bytes,
                buffer_bytes=_size(buffer_size), buffers=buffers, api=api, cache=cache, mode=mode,
                consumer_rate=_number(consumer_rate, "--consumer-rate") if consumer_rate else None, seconds=seconds,
                seed=seed)
    if fifo_bytes:
        opts["fifo_bytes"] = _size(fifo_bytes)
    try:
        if sweep:
            records = capture.cli_sweep(**{**opts, "api": None, "cache": None}, plot_dir=plot_dir)  # every API, policy
            _print_capture_sweep(records)
            if records and records[0].get("plot"):
                click.echo(f"wrote {records[0]['plot']}")
            _write_json(json_path, records)
            return
        if find_max_rate:
            res = capture.cli_find_max_rate(**opts)
            click.echo(f"highest rate sustained without overflow: {res['max_rate']:.4g} samples/s "
                       f"({res['max_rate'] * sample_bytes / 1e6:.1f} MB/s) with {api}/{cache}, "
                       f"{buffers} x {opts['buffer_bytes']} B buffers on {board}")
            _write_json(json_path, res)
            return
        res = capture.cli_run(**opts)
    except ValueError as e:
        raise click.UsageError(str(e))
    click.echo(f"capture on {board}: {float(rate):.4g} samples/s x {sample_bytes} B, {buffers} x "
               f"{opts['buffer_bytes']} B buffers, {api} API, {cache} cache, {mode}")
    click.echo(f"  sustained            {'yes' if res['sustained'] else 'NO'}")
    click.echo(f"  overflows            {res['overflows']} samples dropped")
    click.echo(f"  throughput           {res['throughput_mbps']:.1f} MB/s to the application")
    click.echo(f"  CPU load             {res['cpu_load'] * 100:.1f} %")
    click.echo(f"  buffers delivered    {res['buffers_delivered']}")
    _write_json(json_path, res)
    sys.exit(0 if res["sustained"] else 3)


def _print_capture_sweep(records: list[dict]) -> None:
    click.echo(f"{'size (B)':>9} {'api':>9} {'cache':>9} {'MB/s':>10} {'packets/s':>12}")
    for r in records:
        click.echo(f"{r['buffer_bytes']:>9} {r['api']:>9} {r['cache']:>9} {r['throughput_mbps']:>10.1f} "
                   f"{r['packets_per_s']:>12.0f}")


@main.command()
@click.option("--trials", default=100, show_default=True, type=click.IntRange(1, 10_000),
              help="trials per point of the S0 sweep (the spread checks need enough trials to see refresh)")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--jobs", type=click.IntRange(1, 64), default=None, help="worker processes [default: 2 cores]")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="write the checks as JSON")
def validate(trials: int, seed: int, jobs: int | None, json_path: str | None) -> None:
    """Each public figure (calibration.md) beside the model's value; non-zero exit if one is out of band."""
    from . import characterize as ch
    from . import validate as v

    checks = v.run(trials, seed, jobs or ch.default_jobs())
    width = max(len(c.figure) for c in checks)
    click.echo(f"{'figure':<{width}}  {'published':>10}  {'model':>10}  {'ratio':>7}  {'band':<22} result")
    for c in checks:
        ratio = f"{c.ratio:7.3f}" if c.published else "      -"
        click.echo(f"{c.figure:<{width}}  {c.published:>10.4g}  {c.model:>10.4g}  {ratio}  {c.band:<22} "
                   f"{'ok' if c.ok else 'OUT OF BAND'}{'  (' + c.note + ')' if c.note else ''}")
    failed = [c for c in checks if not c.ok]
    click.echo(f"{len(checks) - len(failed)} of {len(checks)} figures within their bands")
    _write_json(json_path, [c.as_dict() for c in checks])
    sys.exit(1 if failed else 0)


@main.command()
@click.option("--board", default="zcu111", show_default=True, help="board preset name or .toml file")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="write the preset as JSON")
def info(board: str, json_path: str | None) -> None:
    """The preset's address map, clocks, widths, and the source of every number."""
    from .board import VirtualBoard

    try:
        doc = presets.load(board)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--board")
    vb = VirtualBoard(board)
    blk = vb.axi_dma
    click.echo(f"{doc.get('name', board)}: {doc.get('description', '')}")
    click.echo("")
    click.echo("Address map")
    click.echo(f"  AXI DMA registers  0x{blk.base:010x} - 0x{blk.base + _core_constants()['VB_DMA_SPAN'] - 1:010x}")
    span = _core_constants()["CSM_GPIO_SPAN"]
    for i, role in enumerate(("timing engine: handshake", "timing engine: counters", "APU/RPU mailbox")):
        base = vb.gpio_base + i * span
        click.echo(f"  AXI GPIO {chr(65 + i)}         0x{base:010x} - 0x{base + span - 1:010x}  ({role})")
    for name, base, size in vb.regions:
        click.echo(f"  DDR {name:<14} 0x{base:010x} - 0x{base + size - 1:010x}  ({size / 2**20:.0f} MiB)")
    click.echo("")
    click.echo("AXI DMA build")
    click.echo(f"  {'SG engine' if blk.include_sg else 'simple mode only'}; {blk.data_width}-bit data at "
               f"{blk.clock_mhz:g} MHz = {blk.data_bytes * blk.clock_mhz:.0f} MB/s per direction; "
               f"{blk.addr_width}-bit addresses; length width {blk.length_width} "
               f"(max {blk.max_length} bytes per BD); max burst {blk.max_burst} beats")
    click.echo("")
    click.echo("Every number and its source")
    rows = presets.entries(doc)
    width = max(len(k) for k, *_ in rows)
    for key, value, unit, source in rows:
        shown = f"0x{value:x}" if isinstance(value, int) and (key.endswith("base") or key.endswith("size")) else value
        click.echo(f"  {key:<{width}}  {str(shown) + (' ' + unit if unit else ''):<18}  {source}")
    _write_json(json_path, doc)


from .cli_rtl import rtl  # noqa: E402  (the lead moves this into the cli package)

main.add_command(rtl)


if __name__ == "__main__":  # pragma: no cover
    main()
