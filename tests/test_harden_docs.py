"""The README's promises against the program: every option the README shows for a command is in that command's
--help; S0-S4 are defined; the calibration document the help texts and presets cite is in the repository."""
from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from sgdma.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _bullets(text: str) -> list[str]:
    """The README's list items that mention an `sgdma ...` command, each with its continuation lines."""
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith("- "):
            cur = [line]
            out.append(cur)
        elif cur is not None and line.startswith("  ") and line.strip():
            cur.append(line)
        else:
            cur = None
    return [" ".join(b) for b in out if "`sgdma " in " ".join(b)]


def _command(words: list[str]) -> tuple[list[str], click.Command]:
    cmd, path = main, []
    ctx = click.Context(main)
    for w in words:
        sub = cmd.get_command(ctx, w) if isinstance(cmd, click.Group) else None
        if sub is None:
            break
        cmd, path = sub, path + [w]
    return path, cmd


def _mentions() -> list[tuple[tuple[str, ...], str]]:
    """(command path, option) for every --option the README shows after an `sgdma CMD` mention."""
    out = []
    for b in _bullets(README):
        path = None
        for m in re.finditer(r"`sgdma ((?:[a-z][a-z-]* ?)+)|(?<![\w-])(--[a-z][a-z0-9-]*)", b):
            if m.group(1):
                path, _ = _command(m.group(1).split())
            elif path:
                out.append((tuple(path), m.group(2)))
    return sorted(set(out))


MENTIONS = _mentions()


def test_the_readme_shows_options_at_all():
    assert len(MENTIONS) > 40 and any(p == ("capture",) for p, _ in MENTIONS)


@pytest.mark.parametrize("path,option", MENTIONS, ids=[f"{' '.join(p)} {o}" for p, o in MENTIONS])
def test_readme_option_is_in_help(path, option):
    r = CliRunner().invoke(main, [*path, "--help"])
    assert r.exit_code == 0, r.output
    assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", r.output), \
        f"README shows `sgdma {' '.join(path)} {option}` but its --help has no {option}"


def test_s0_to_s4_are_defined_in_the_readme():
    table = README[README.index("## The publications behind it"):]
    for label in ("S0", "S1", "S2", "S3", "S4"):
        assert re.search(rf"^\| {label} \| \S", table, re.M), label


def test_the_calibration_document_cited_is_in_the_repository():
    r = CliRunner().invoke(main, ["validate", "--help"])
    assert "docs/calibration.md" in r.output
    doc = ROOT / "docs" / "calibration.md"
    text = doc.read_text()
    # it holds the figures validate checks (the constants in experiments/validate.py)
    from sgdma.experiments import validate as v

    for figure in (v.S0_LATENCY_MIN_NS, v.S0_LATENCY_MAX_NS, v.S0_REFRESH_STALL_NS):
        assert f"{figure:g}" in text, figure
    assert "10.6 GB/s" in text and "7.8 us" in text
