"""``sgdma rtio``: ARTIQ-style real-time I/O on the virtual board - initiator bench, analyzer dumps to VCD, demo."""
from __future__ import annotations

import math
import sys

import numpy as np
from pathlib import Path

import click

from sgdma.cli.common import InPath, OutPath, _write_json, _write_record

INITIATORS = ("csr", "acp", "acp-batch", "fifo")


def _board(name: str, option: str = "--board"):
    from sgdma.board.virtual import VirtualBoard

    try:
        board = VirtualBoard(name)
        board.rtio
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint=option)
    return board


@click.group()
def rtio() -> None:
    """ARTIQ-style RTIO: event submission over GP/ACP/credit FIFO, event DMA, analyzer."""


@rtio.command()
@click.option("--initiator", type=click.Choice(INITIATORS + ("all",)), default="all", show_default=True)
@click.option("--board", default="zc706", show_default=True, help="board preset with an [rtio] section")
@click.option("--baseline", default="kc705_softcore", show_default=True,
              help="softcore preset measured with the CSR initiator alongside ('' to skip)")
@click.option("--batch", default=64, show_default=True, type=click.IntRange(1, 1 << 16), help="events per ACPKI batch")
@click.option("--json", "json_path", type=OutPath(), help="write the results as JSON")
@click.option("--plot", "plot_dir", type=OutPath(directory=True), help="write the interval bar chart here")
@click.option("--out", "out_dir", type=OutPath(directory=True), default=None,
              help="write the report here (report.html, figures); adds what binds each initiator, from replays "
                   "with one resource relaxed at a time")
def bench(initiator: str, board: str, baseline: str, batch: int, json_path, plot_dir, out_dir) -> None:
    """Sustained event interval (shortest pulse period without underflow) per initiator (seed 001 Fig. 2)."""
    from sgdma.rtio import bench as B

    if batch < 1:
        raise click.BadParameter(f"{batch}: at least 1 event per batch", param_hint="--batch")
    which = INITIATORS if initiator == "all" else (initiator,)
    rows = []
    _board(board)
    if baseline:
        _board(baseline, "--baseline")                  # both checked before either is measured
    for ini in which:
        try:
            rows.append(B.kernel_interval(_board(board), ini, batch=batch))
        except B.NotSustained as e:                     # the search found no interval: a result, not a crash
            rows.append(e.row)
    if baseline:
        rows.append(B.kernel_interval(_board(baseline, "--baseline"), "csr"))
    sustained = [r for r in rows if r["sustained"]]
    unsustained = [r for r in rows if not r["sustained"]]
    click.echo(f"{'board':<16} {'initiator':<10} {'interval':>10} {'GP rd/ev':>9} {'GP wr/ev':>9} {'sev/ev':>7}")
    for r in sustained:
        click.echo(f"{r['board']:<16} {r['initiator']:<10} {r['interval_ns']:>8.1f}ns {r['gp_reads_per_event']:>9.2f} "
                   f"{r['gp_writes_per_event']:>9.2f} {r['sev_per_event']:>7.3f}")
    for r in unsustained:
        click.echo(f"NOT SUSTAINED {r['initiator']} on {r['board']}: {r['reason']}"
                   + (" (use a smaller --batch)" if r["initiator"] == "acp-batch" else ""))
    vb = _board(board)
    click.echo(f"gateware limit (one CRI write per {int(vb.option('rtio.cri_write_cycles'))} RTIO cycles): "
               f"{B.gateware_limit_ns(vb):.1f} ns" + (f"; resolution of each interval: "
                                                      f"{max(r['resolution_mu'] for r in sustained):.2f} mu"
                                                      if sustained else ""))
    _write_json(json_path, rows)
    if plot_dir:
        from sgdma.output.rtio_plots import intervals

        Path(plot_dir).mkdir(parents=True, exist_ok=True)
        click.echo(f"wrote {intervals(rows, Path(plot_dir) / 'rtio_intervals.png')}")
    if out_dir:
        from sgdma.experiments.limits.rtio import analyse
        from sgdma.output import report

        rec = {"kind": "rtio", "version": 1, "mode": "bench", "board": board, "batch": batch, "rows": rows,
               "limits": analyse(rows, batch)}
        click.echo(f"report: {report.write(rec, out_dir)['report_html']}")
    if unsustained:
        sys.exit(1)


@rtio.command()
@click.argument("dump", type=InPath())
@click.option("--vcd", "vcd_path", type=OutPath(), required=True, help="VCD file to write")
@click.option("--ref-period-ns", default=1.0, show_default=True, help="the core's reference period (mu)")
@click.option("--wide", default="8", show_default=True, help="comma-separated channels drawn as 64-bit data")
def analyze(dump: str, vcd_path: str, ref_period_ns: float, wide: str) -> None:
    """Convert an analyzer DUMP (ARTIQ's format) into a VCD with one signal per channel and the slack trace."""
    from sgdma.rtio.analyzer import decode_dump, summary, to_vcd

    if not (ref_period_ns > 0 and math.isfinite(ref_period_ns)):
        raise click.BadParameter(f"{ref_period_ns}: must be > 0", param_hint="--ref-period-ns")
    try:
        wide_set = {int(x) for x in wide.split(",") if x.strip()}
    except ValueError:
        raise click.BadParameter(f"{wide!r}: channel numbers separated by commas", param_hint="--wide") from None
    from sgdma.output.records import RecordError, read_bounded

    try:
        d = decode_dump(read_bounded(dump, 1 << 30, "analyzer dump"))
    except RecordError as e:
        raise click.BadParameter(str(e), param_hint="DUMP") from None
    except ValueError as e:
        raise click.BadParameter(f"{dump}: {e}", param_hint="DUMP") from None
    s = summary(d)
    info = to_vcd(d, vcd_path, ref_period_ns * 1e-9, wide_channels=wide_set)
    click.echo(f"{s['messages']} messages ({s['outputs']} outputs, {s['exceptions']} exceptions), "
               f"{s['total_bytes']} bytes written in total")
    for note in info["notes"]:
        click.echo(f"WARNING: {note}")
    click.echo(f"wrote {vcd_path} ({info['signals']} channels, {info['end_mu']} mu)")


@rtio.command()
@click.option("--board", default="zc706", show_default=True)
@click.option("--pulses", default=2000, show_default=True, type=click.IntRange(1, 1 << 20),
              help="pulses in the recorded train")
@click.option("--period-ns", default=200.0, show_default=True, type=click.FloatRange(0, 1e9, min_open=True),
              help="pulse period of the recorded train")
@click.option("--out", "out_dir", default="rtio_demo", show_default=True, type=OutPath(directory=True))
def demo(board: str, pulses: int, period_ns: float, out_dir: str) -> None:
    """Record a pulse train with CoreDMA, play it back with the analyzer on, write the VCD and a plot, and print
    the sustained DMA event interval with and without the analyzer."""
    from sgdma.output.rtio_plots import waveform
    from sgdma.rtio import Core, CoreDMA, RTIOUnderflow, TTLOut
    from sgdma.rtio.layout import HEADER_BYTES
    from sgdma.rtio import bench as B
    from sgdma.rtio.analyzer import Analyzer, decode_dump, summary, to_vcd

    if not math.isfinite(period_ns):
        raise click.BadParameter(f"{period_ns}: must be a finite number of ns", param_hint="--period-ns")
    vb = _board(board)
    core = Core(vb, "csr")
    period = core.seconds_to_mu(period_ns * 1e-9)
    if period < 2:
        raise click.BadParameter(f"{period_ns} ns is under 2 mu: a pulse needs an on and an off edge",
                                 param_hint="--period-ns")
    span_s = (pulses * period + DEMO_SLACK_MU) * core.ref_period
    if span_s > PLAYBACK_LIMIT_S:
        raise click.UsageError(f"--pulses {pulses} x --period-ns {period_ns:g} is a train of {span_s:.4g} s of board "
                               f"time, over the playback's limit of {PLAYBACK_LIMIT_S:g} s: fewer --pulses or a "
                               f"shorter --period-ns")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ttl = TTLOut(core, 0)
    # the DMA region sized to the train: two records (on, off) of a header and one data word per pulse
    dma = CoreDMA(core, region_bytes=max(1 << 24, 2 * pulses * (HEADER_BYTES + 4) + (1 << 12)))
    an = Analyzer(core)
    with dma.record("train"):
        for _ in range(pulses):
            ttl.pulse_mu(period // 2)
            core.delay_mu(period - period // 2)
    core.break_realtime(DEMO_SLACK_MU)
    try:
        dma.playback("train", limit_s=PLAYBACK_LIMIT_S)
    except RTIOUnderflow as e:
        click.echo(f"playback underflowed: {e}", err=True)
        sys.exit(1)
    vb.rtio.drain(int(span_s * 1e12) + int(1e12))           # past the train's last edge, plus a second
    dump = an.dump()
    (out / "analyzer.dump").write_bytes(dump)
    d = decode_dump(dump)
    s = summary(d)
    info = to_vcd(d, str(out / "rtio.vcd"), core.ref_period, channel_names={0: "ttl0"})
    png = waveform(vb.rtio.edges(), out / "rtio_waveform.png", channels=(0,), window_mu=20 * period)
    pb = dma.last_playback
    click.echo(f"played {pb['records']} events ({pulses} pulses, period {period} mu) in "
               f"{(pb['t_end_ps'] - pb['t_start_ps']) / 1e3:.0f} ns of engine time")
    click.echo(f"analyzer: {s['messages']} messages, overflow {s['overflow']}, ring wrapped {s['wrapped']}")
    without = B.dma_interval(_board(board), analyzer=False)
    with_an = B.dma_interval(_board(board), analyzer=True)
    click.echo(f"sustained DMA event interval: {without['interval_ns']:.1f} ns without the analyzer, "
               f"{with_an['interval_ns']:.1f} ns with it (analyzer lost {with_an['analyzer_lost']} messages at that "
               f"rate); the DMA gateware's own limit {without['gateware_limit_ns']:.1f} ns")
    click.echo(f"wrote {out / 'analyzer.dump'}, {info['path']}, {png}")
    from sgdma.output import report

    from sgdma.rtio.analyzer import MSG_OUTPUT

    m = d.messages[d.messages["type"] == MSG_OUTPUT]
    m = m[np.argsort(m["timestamp"], kind="stable")][:MAX_MESSAGES]
    rec = {"kind": "rtio", "version": 1, "mode": "demo", "board": board, "pulses": pulses, "period_mu": period,
           "ref_period_ns": core.ref_period * 1e9, "summary": {k: v for k, v in s.items()
                                                              if isinstance(v, (int, float, bool, str))},
           "analyzer": {"timestamp_mu": m["timestamp"].tolist(), "rtio_counter_mu": m["rtio_counter"].tolist(),
                        "channel": m["channel"].tolist(), "data": m["data"].tolist()},
           "dma_interval": {"without_analyzer": without, "with_analyzer": with_an}}
    click.echo(f"report: {report.write(rec, out)['report_html']}")


@rtio.command()
@click.option("--board", default="zc706", show_default=True, help="board preset with an [rtio] section")
@click.option("--events", default=1_000_000, show_default=True, type=click.IntRange(1, 1 << 24),
              help="events in the pulse train (alternating on/off on TTL channel 0)")
@click.option("--interval-mu", default=0, show_default=True, type=click.IntRange(0, 1 << 30),
              help="event spacing in machine units (0: the event DMA's own rate, its densest sustained load)")
@click.option("--analyzer/--no-analyzer", default=False, show_default=True,
              help="the analyzer writes every event to its DDR ring (exact fidelity only)")
@click.option("--fidelity", type=click.Choice(("exact", "fast", "functional")), default="exact", show_default=True,
              help="exact: the reference; functional: ideal memory path (the same edges whenever exact does not "
                   "underflow; no analyzer); fast: refused (no validated estimator for event traces)")
@click.option("--json", "json_path", type=OutPath(), help="write the record as JSON")
def playback(board: str, events: int, interval_mu: int, analyzer: bool, fidelity: str, json_path) -> None:
    """Event-DMA playback of a long pulse train: outcome, virtual time over CPU time, fidelity fields.  Exit 1 when
    an event was lost (an underflow, a collision or a sequence error)."""
    from sgdma.board.fidelity import FidelityError
    from sgdma.rtio import playback as P
    from sgdma.rtio.bench import dma_limit_ns, pulse_train

    try:
        P.check_fidelity(fidelity, analyzer)
    except FidelityError as e:
        raise click.UsageError(str(e)) from None
    vb = _board(board)
    if interval_mu == 0:
        mu_ns = 1e3 / vb.option("rtio.clock_mhz") / (1 << int(vb.option("rtio.fine_bits")))   # coarse / 2^fine
        interval_mu = int(math.ceil(dma_limit_ns(vb) / mu_ns))
    mu_s = 1e-6 / vb.option("rtio.clock_mhz") / (1 << int(vb.option("rtio.fine_bits")))
    vb.close()
    span_s = (events * interval_mu + SLACK_MU) * mu_s
    if span_s > PLAYBACK_LIMIT_S:                  # the DMA would still be playing when the bounded wait ends
        raise click.UsageError(f"--events {events} x --interval-mu {interval_mu} is a train of {span_s:.4g} s of "
                               f"board time, over the playback's limit of {PLAYBACK_LIMIT_S:g} s; at most "
                               f"{int(PLAYBACK_LIMIT_S / mu_s) - SLACK_MU} mu in all: fewer --events or a smaller "
                               f"--interval-mu")
    rec, _ = P.play(board, pulse_train(events, interval_mu), events * interval_mu, fidelity, analyzer,
                    slack_mu=SLACK_MU, limit_s=PLAYBACK_LIMIT_S)
    rec["interval_mu"] = interval_mu
    click.echo(f"{rec['records']} records played on {board} ({fidelity}), one every {interval_mu} mu: "
               f"{rec['edges']} edges, {rec['dropped']} dropped, {rec['underflows']} underflows, "
               f"{rec['collisions']} collisions, {rec['sequence_errors']} sequence errors")
    click.echo(f"{rec['simulated_s'] * 1e3:.3f} ms simulated in {rec['cpu_s']:.3f} CPU s "
               f"({rec['sim_over_cpu']:.3f}x real time)")
    if rec["fidelity_note"]:
        click.echo(f"fidelity {rec['fidelity_note']}")
    _write_record(json_path, "rtio_playback", {k: v for k, v in rec.items() if k != "kind"})
    if rec["raised"]:
        click.echo(rec["raised"], err=True)
    lost = rec["underflows"] + rec["collisions"] + rec["sequence_errors"]
    if rec["raised"] or lost:
        sys.exit(1)


SLACK_MU = 20_000            # the playback starts this far ahead of the RTIO counter (rtio.playback.play's default)
DEMO_SLACK_MU = 20_000       # the demo's break_realtime before its playback
PLAYBACK_LIMIT_S = 10.0      # board time the CLI waits for the DMA to finish a train (bounded wait)


MAX_MESSAGES = 20_000        # output messages kept in the demo's record, by timestamp (the dump keeps them all)
