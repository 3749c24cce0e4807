"""``sgdma demo`` and ``sgdma run``: a circuit streamed through S0's roles on the virtual board."""
from __future__ import annotations

import click

from sgdma.cli.common import SEED_MAX, InPath, OutPath, Progress, Time, _write_json
from sgdma.cli.fidelity import fidelity_options


def _playback_options(out_help: str, out_default: str | None = None):
    return lambda f: _options(f, out_help, out_default)


def _options(f, out_help: str, out_default: str | None):
    f = click.option("--board", default="zcu111", show_default=True, help="board preset")(f)
    f = click.option("--mailbox", type=click.Choice(["gpio", "rpmsg"]), default="gpio", show_default=True,
                     help="APU -> RPU hand-off of the ring address")(f)
    f = click.option("--fifo-depth", default=64, show_default=True, type=click.IntRange(1, 1 << 20),
                     help="DAC FIFO in the PL, in stream words")(f)
    f = click.option("--gate-time", default="1us", show_default=True, type=Time(),
                     help="duration of a gate of the circuit's median length (e.g. 1us, 250ns)")(f)
    f = click.option("--passes", default=1, show_default=True, type=click.IntRange(1, 1 << 20),
                     help="play the circuit this many times from one closed ring (cyclic mode)")(f)
    f = click.option("--seed", default=0, show_default=True, type=click.IntRange(0, SEED_MAX))(f)
    f = click.option("--out", "out_dir", default=out_default, type=OutPath(directory=True), help=out_help)(f)
    f = click.option("--json", "json_path", type=OutPath(), help="write the summary as JSON")(f)
    return fidelity_options()(f)


def _play(circuit, title, board, mailbox, fifo_depth, gate_time, passes, seed, out_dir, json_path,
          headroom: bool, fidelity: str = "exact") -> None:
    from sgdma.sequence.demo import run_circuit
    from sgdma.sequence.playback import PlaybackConfig
    from sgdma.sequence import SequenceError

    cfg = PlaybackConfig(mailbox=mailbox, fifo_depth=fifo_depth, gate_time_ns=gate_time,
                         passes=passes, seed=seed, fidelity=fidelity)
    with Progress("playing") as bar:
        try:
            data = run_circuit(circuit, board, cfg, out_dir, seed, title, headroom=headroom, progress=bar.update,
                               columns=json_path is not None)         # the summary printed below needs none
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
    h = data.get("headroom")
    if h and h.get("headroom_ns"):
        click.echo(f"  headroom             {h['headroom_ns']:.0f} ns per gate ({h['margin']:.2f}x margin); "
                   f"binding: {h['binding']}")
    click.echo(f"  deadline misses      {data['deadline_misses']}")
    click.echo(f"  timing engine        setup {data['csm']['setup']} / latency {data['csm']['latency']} / "
               f"throughput {data['csm']['throughput']} PL clocks")
    click.echo(f"  virtual time         {data['virtual_time_ns'] / 1e3:.1f} us in {data['wall_s']:.2f} s wall")
    if data["fidelity"] != "exact":
        name, note = data["fidelity"], data["fidelity_note"]
        if not note.startswith(name + ":"):            # functional's note already starts with its name
            note = f"{name}: {note}"
        click.echo(f"  fidelity             {note}")
    if data["outputs"]:
        click.echo(f"  wrote                {', '.join(data['outputs'].values())}")
    _write_json(json_path, data)


FILES = "report.html, result.json, the figures (PNG, SVG), timeline.vcd (GTKWave), timeline.json (Perfetto)"


@click.command()
@_playback_options(out_help=f"directory for {FILES}  [default: sgdma-demo]", out_default="sgdma-demo")
def demo(board, mailbox, fifo_depth, gate_time, passes, seed, out_dir, json_path, fidelity, fast_periods,
         tolerance) -> None:
    """A trapped-ion circuit streamed through the virtual ZCU111 (no arguments, no board needed)."""
    from sgdma.sequence.demo import demo_circuit

    _play(demo_circuit(), "sgdma demo: Bell pair + randomized benchmarking on a virtual trapped-ion controller",
          board, mailbox, fifo_depth, gate_time, passes, seed, out_dir, json_path, headroom=True,
          fidelity=fidelity)


@click.command("run")
@click.argument("circuit_file", type=InPath())
@_playback_options(out_help=f"write {FILES} here  [default: no files; the summary only]")
@click.option("--headroom", is_flag=True,
              help="also find the shortest gate time with zero underflows and what limits it (up to 18 more plays)")
def run_cmd(circuit_file, board, mailbox, fifo_depth, gate_time, passes, seed, out_dir, json_path, headroom,
            fidelity, fast_periods, tolerance) -> None:
    """Compile CIRCUIT_FILE (TOML or JSON) with its gate library and stream it on the virtual board."""
    _play(circuit_file, f"sgdma run {circuit_file}", board, mailbox, fifo_depth, gate_time, passes, seed, out_dir,
          json_path, headroom, fidelity)
