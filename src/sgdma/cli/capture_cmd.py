"""``sgdma capture``: continuous S2MM capture."""
from __future__ import annotations

import click

from sgdma.cli.common import (SEED_MAX, Bandwidth, InPath, OutPath, Rate, Size, Time, _write_record, cpu_load_option,
                              exit_verdict, refuse_ignored)
from sgdma.cli.executor import TrialProgress, executor_options, open_executor


@click.command("capture")
@click.option("--board", default="zynq7000", show_default=True,
              help="board preset, or linux:dma=NAME,buffers=NAME for a real board's S2MM stream (docs/boards.md)")
@click.option("--rate", default="40e6", show_default=True, type=Rate(), help="ADC sample rate (samples/s)")
@click.option("--sample-bytes", default=4, show_default=True, type=click.IntRange(1, 8))
@click.option("--buffer-size", default="128KiB", show_default=True, type=Size(), help="bytes per DMA buffer (e.g. 4096, 128KiB)")
@click.option("--buffers", default=16, show_default=True, type=click.IntRange(1, 65536), help="buffers kept armed")
@click.option("--api", type=click.Choice(["copy", "zerocopy", "batch"]), default="zerocopy", show_default=True,
              help="copy: read() copies out; zerocopy: one ioctl per buffer to take it and one to give it back; "
                   "batch: one read() lends every completed buffer, one write() gives them back, the interrupt "
                   "masked while the application works (seed 004)")
@click.option("--cache", type=click.Choice(["sync", "uncached", "writecombine", "coherent"]), default=None,
              help="the DMA buffers' mapping: sync (cached, clean/invalidate), uncached (strongly ordered: "
                   "pgprot_noncached, one access at a time), writecombine (Normal non-cacheable: "
                   "dma_alloc_coherent / pgprot_writecombine, loads overlap, stores merge), coherent (ACP/HPC) "
                   "[default: sync; writecombine with --dma-mode simple, whose driver allocates with "
                   "dma_alloc_coherent]")
@click.option("--mode", type=click.Choice(["continuous", "burst"]), default="continuous", show_default=True)
@click.option("--consumer-rate", default=None, type=Bandwidth(), help="the application's own processing rate in bytes/s, e.g. 100MB/s (default: free)")
@click.option("--seconds", default=None, type=Time(),
              help="virtual seconds to capture [default: at least 50 ms or four laps of the ring, up to 2 s]; "
                   "wall seconds on a linux: board [default: 1 s]")
@click.option("--fifo-bytes", default=None, type=Size(), help="PL FIFO between the ADC and the DMA [default: the capture layer's]")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, SEED_MAX))
@cpu_load_option
@click.option("--irq-threshold", default=1, show_default=True, type=click.IntRange(1, 255),
              help="buffers per IOC interrupt (PG021 IRQThreshold)")
@click.option("--irq-delay", default=None, type=Time(),
              help="delay-timer interrupt after the last buffer, e.g. 20us (PG021 IRQDelay; needed with a threshold > 1)")
@click.option("--consumer", type=click.Choice(["none", "touch", "copy", "file"]), default="none", show_default=True,
              help="what the application does with each buffer: nothing, read every byte, copy it, write it to a "
                   "file (at the costs' file_write_mbps); each is CPU time and DRAM traffic")
@click.option("--cpu-costs", "cpu_costs", type=InPath(exists=False), default=None,
              help="TOML file of host-path cost items replacing the preset's (e.g. syscall_ns = 2000)")
@click.option("--dma-mode", type=click.Choice(["sg", "simple"]), default="sg", show_default=True,
              help="sg: a BD ring of buffers; simple: direct-register buffer swapping from the interrupt handler "
                   "(api copy = read(), zerocopy = mmap + ioctl)")
@click.option("--sweep", type=click.Choice(["buffer-size"]), default=None,
              help="throughput and packets/s against buffer size, per API and cache policy")
@click.option("--find-max-rate", is_flag=True, help="bisect the highest sample rate sustained without overflow")
@click.option("--plot", "plot_dir", type=OutPath(directory=True), default="sgdma-capture-sweep",
              show_default=True, help="where --sweep writes its plot")
@executor_options(cache=False)
@click.option("--json", "json_path", type=OutPath(), help="write the result as JSON")
@click.option("--out", "out_dir", type=OutPath(directory=True), default=None,
              help="write the report here (report.html, figures); adds the highest sustained rate, the margin and "
                   "the binding resource, from extra runs of the model with each resource relaxed")
@click.pass_context
def capture_cmd(ctx, board, rate, sample_bytes, buffer_size, buffers, api, cache, mode, consumer_rate, seconds,
                fifo_bytes, seed, cpu_load, irq_threshold, irq_delay, consumer, cpu_costs, dma_mode, sweep,
                find_max_rate, plot_dir, jobs, executor, scheduler, json_path, out_dir):
    """Continuous S2MM capture from an ADC through a PL FIFO into DMA buffers and the application."""
    from sgdma.board.linux import is_linux_spec
    from sgdma.cli import capture as capture_cli
    from sgdma.models.cpu import CostFileError, load_cost_file

    if is_linux_spec(board):
        _linux_capture(ctx, board, buffer_size, buffers, seconds, json_path)
        return

    costs = None
    if cpu_costs is not None:
        try:
            costs = load_cost_file(cpu_costs)
        except CostFileError as e:
            raise click.UsageError(str(e))

    if not sweep:
        given = [f"--{n}" for n in ("jobs", "executor", "scheduler")
                 if ctx.get_parameter_source(n) is not click.core.ParameterSource.DEFAULT]
        if given:
            raise click.UsageError(f"{', '.join(given)}: where a sweep's points run; they apply to --sweep only")
        refuse_ignored(ctx, ("plot_dir",), "without --sweep (only the sweep draws a plot)")
    else:
        refuse_ignored(ctx, ("rate", "api", "cache", "buffer_size", "find_max_rate", "cpu_load", "irq_threshold",
                             "irq_delay"), "with --sweep (it sweeps the buffer size over every API and cache "
                                           "policy, finding each point's highest rate, with the default "
                                           "interrupt settings)")
    if find_max_rate:
        refuse_ignored(ctx, ("rate", "cpu_load", "irq_threshold", "irq_delay"),
                       "with --find-max-rate (it searches the rate, with the default interrupt settings)")
    elif not sweep:
        fill_s = buffer_size / (rate * sample_bytes)        # the time one buffer takes to fill
        limit_s = 2.0 if seconds is None else seconds / 1e9
        if fill_s > limit_s:
            raise click.UsageError(
                f"one {buffer_size}-byte buffer takes {fill_s:.4g} s to fill at {rate:g} samples/s x {sample_bytes} B, "
                f"longer than the run ({'--seconds' if seconds is not None else 'the 2 s default'} = {limit_s:.4g} s): "
                f"a run that fills no buffer cannot tell whether the capture keeps up; give --seconds of at least "
                f"{fill_s:.4g} s, a smaller --buffer-size or a higher --rate")

    if cache is None:
        from sgdma.capture.session import default_cache

        cache = default_cache(dma_mode)
    opts = dict(board=board, rate=rate, sample_bytes=sample_bytes, buffer_bytes=buffer_size, buffers=buffers,
                api=api, cache=cache, mode=mode, consumer_rate=consumer_rate,
                seconds=None if seconds is None else seconds / 1e9, seed=seed, consumer=consumer, cpu_costs=costs,
                dma_mode=dma_mode)
    if fifo_bytes:
        opts["fifo_bytes"] = fifo_bytes
    irq = dict(irq_threshold=irq_threshold, irq_delay_ns=float(irq_delay) if irq_delay else 0.0)
    run_extra = dict(cpu_load=cpu_load, **irq)
    try:
        if sweep:
            with open_executor(executor, jobs, scheduler) as ex, TrialProgress(0, "capture sweep", "points") as bar:
                records = capture_cli.cli_sweep(**{**opts, "api": None, "cache": None}, plot_dir=plot_dir,
                                                executor=ex, progress=bar.update, **irq)      # every API, policy
            _print_capture_sweep(records)
            if records and records[0].get("plot"):
                click.echo(f"wrote {records[0]['plot']}")
            records = [{k: v for k, v in r.items() if k != "plot"} for r in records]
            _write_record(json_path, "capture", records)
            if out_dir and records:               # what binds the best point, from relaxed replays
                best = max(records, key=lambda r: r["max_rate_sps"])
                _write_report(out_dir, {"records": records, "limits": _limits(best, best["max_rate_sps"], costs)})
            return
        if find_max_rate:
            res = capture_cli.cli_find_max_rate(**opts, **irq)
            click.echo(f"highest rate sustained without overflow: {res['max_rate']:.4g} samples/s "
                       f"({res['max_rate'] * sample_bytes / 1e6:.1f} MB/s) with {api}/{cache}, "
                       f"{buffers} x {opts['buffer_bytes']} B buffers on {board}")
            if out_dir:
                res["limits"] = _limits(res, res["max_rate_sps"], costs)
            _write_record(json_path, "capture", res)
            _write_report(out_dir, res)
            return
        res = capture_cli.cli_run(**opts, **run_extra)
        if out_dir:
            res["limits"] = _limits(res, res["rate_sps"], costs, run_extra)
    except ValueError as e:
        raise click.UsageError(cli_words(str(e)))
    click.echo(f"capture on {board}: {float(rate):.4g} samples/s x {sample_bytes} B, {buffers} x "
               f"{opts['buffer_bytes']} B buffers, {api} API, {cache} cache, {mode}")
    click.echo(f"  sustained            {'yes' if res['sustained'] else 'NO'}")
    click.echo(f"  overflows            {res['overflows']} samples dropped")
    click.echo(f"  throughput           {res['throughput_mbps']:.1f} MB/s to the application")
    click.echo(f"  CPU load             {res['cpu_load'] * 100:.1f} %")
    click.echo(f"  buffers delivered    {res['buffers_delivered']} ({res['interrupts']} interrupts, "
               f"{res['syscalls']} system calls, {dma_mode} mode)")
    click.echo(f"  buffers held         at most {res['held_max']} of the ring's {res['ring_depth']} by the "
               f"application (mean {res['held_mean']:.1f})")
    click.echo(f"  CPU DRAM traffic     {res['cpu_dram_bytes'] / 1e6:.2f} MB (consumer {consumer})")
    _write_record(json_path, "capture", res)
    _write_report(out_dir, res)
    exit_verdict(res["sustained"])


#: The capture layer's refusals name its Python arguments; the command's user typed options.
_CLI_WORDS = [
    (r"\birq_delay_ns=([-+\d.e]+)", lambda m: f"--irq-delay {float(m.group(1)):g}ns"),
    (r"\birq_delay_ns\b", "--irq-delay"),
    (r"\birq_threshold=(\d+)", r"--irq-threshold \1"),
    (r"\birq_threshold\b", "--irq-threshold"),
    (r"\bdma_mode '(\w+)'", r"--dma-mode \1"),
    (r"\bapi '(\w+)'", r"--api \1"),
    (r"\bconsumer '(\w+)'", r"--consumer \1"),
    (r"\bcpu_costs / --cpu-costs\b", "--cpu-costs"),
    (r"\bfifo_bytes=", "--fifo-bytes "),
    (r"\bsample_bytes=", "--sample-bytes "),
    (r"\bconsumer_rate=", "--consumer-rate "),
    (r"\bseconds=", "--seconds "),
]


def cli_words(msg: str) -> str:
    """A capture refusal in the command's words: --irq-threshold 4, not irq_threshold=4."""
    import re

    for pattern, repl in _CLI_WORDS:
        msg = re.sub(pattern, repl, msg)
    return msg


# What a real board's capture takes: the rest describe the virtual board's ADC, FIFO, CPU and sweeps.
LINUX_CAPTURE_OPTIONS = {"board", "buffer_size", "buffers", "seconds", "json_path"}


def _linux_capture(ctx, board: str, buffer_size: int, buffers: int, seconds, json_path) -> None:
    from sgdma.capture.linux import capture
    from sgdma.cli.linux_board import linux_board

    given = sorted("--" + p.name.replace("_", "-") if p.name != "json_path" else "--json" for p in ctx.command.params
                   if p.name not in LINUX_CAPTURE_OPTIONS
                   and ctx.get_parameter_source(p.name) is not click.core.ParameterSource.DEFAULT)
    if given:
        raise click.UsageError(f"{', '.join(given)}: model the virtual board's ADC, FIFO and CPU; on a real board "
                               "(--board linux:...) capture takes --buffer-size, --buffers and --seconds")
    secs = 1.0 if seconds is None else seconds / 1e9
    with linux_board(board) as lb:
        try:
            res = capture(lb, buffer_bytes=buffer_size, buffers=buffers, seconds=secs)
        except ValueError as e:
            raise click.UsageError(str(e))
    click.echo(f"capture on {board}: {buffers} x {buffer_size} B buffers for {res['seconds']:.2f} s (wall)")
    click.echo(f"  buffers delivered    {res['buffers_delivered']} ({res['bytes']} bytes)")
    click.echo(f"  throughput           {res['throughput_mbps']:.1f} MB/s to the application")
    click.echo(f"  ring ran dry         {res['ring_ran_dry']} times (no buffer armed: the stream stalled)")
    click.echo(f"  sustained            {'yes' if res['sustained'] else 'NO'}")
    _write_record(json_path, "capture", res)
    exit_verdict(res["sustained"])


def _limits(res: dict, rate: float, costs: dict | None, extra: dict | None = None) -> dict:
    """Highest sustained rate, margin and binding resource: the model replayed (sgdma.experiments.limits) with
    every option of the run (``extra``: background CPU load, interrupt coalescing)."""
    from sgdma.experiments.limits.capture import analyse

    keys = ("board", "sample_bytes", "buffer_bytes", "buffers", "api", "cache", "mode", "consumer_rate", "fifo_bytes",
            "seed", "consumer", "dma_mode")
    opts = {k: res[k] for k in keys} | {"seconds": None, "cpu_costs": costs} | (extra or {})
    return analyse(opts, rate, res.get("simulated_s"))


def _write_report(out_dir, rec: dict) -> None:
    if out_dir:
        from sgdma.output import report

        files = report.write({"kind": "capture", "version": 1, **rec}, out_dir)
        click.echo(f"report: {files['report_html']}")


def _print_capture_sweep(records: list[dict]) -> None:
    click.echo(f"{'size (B)':>9} {'api':>9} {'cache':>12} {'MB/s':>10} {'packets/s':>12}")
    for r in records:
        click.echo(f"{r['buffer_bytes']:>9} {r['api']:>9} {r['cache']:>12} {r['throughput_mbps']:>10.1f} "
                   f"{r['packets_per_s']:>12.0f}")
