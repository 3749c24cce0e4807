"""Signals and pipes, as a shell user meets them: SIGTERM stops a command as Ctrl-C does (exit 3, one line,
partial results kept, no worker left behind); a closed stdout (`| head`) ends quietly with status 141."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sgdma

# the sgdma under test (built in place, or installed as CI installs it): src/ of an installed run has no extension
SRC = str(Path(sgdma.__file__).resolve().parents[1])


def _env():
    return {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}


@pytest.mark.skipif(sys.platform != "linux", reason="POSIX signals and /proc")
def test_sigterm_is_like_ctrl_c(tmp_path):
    cache = tmp_path / "cache"
    p = subprocess.Popen([sys.executable, "-m", "sgdma.cli", "characterize", "--trials", "3000", "--bds", "4,64,1024",
                          "--jobs", "2", "--cache", str(cache), "--json", str(tmp_path / "r.json")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), text=True)
    # wait (bounded) until the sweep has finished a chunk, then terminate it mid-run
    for _ in range(1200):
        if list(cache.glob("p*.npz")) or p.poll() is not None:
            break
        time.sleep(0.05)
    assert p.poll() is None, "the sweep ended before it could be terminated"
    workers = _children(p.pid)
    p.send_signal(signal.SIGTERM)
    stdout, stderr = p.communicate(timeout=120)
    assert p.returncode == 3, stderr
    assert "terminated (SIGTERM)" in stderr and "Traceback" not in stderr + stdout
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert list(cache.glob("p*.npz"))                           # finished chunks are kept
    for w in workers:                                           # no worker outlives the command
        for _ in range(100):
            if not Path(f"/proc/{w}").exists() or "Z" in _state(w):
                break
            time.sleep(0.05)
        assert not Path(f"/proc/{w}").exists() or "Z" in _state(w), w


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d.name))
            except (OSError, IndexError, ValueError):
                pass
    return out


@pytest.mark.skipif(sys.platform != "linux", reason="pipes")
def test_closed_stdout_is_quiet():
    p = subprocess.Popen([sys.executable, "-m", "sgdma.cli", "info"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=_env())
    p.stdout.close()                # the reader is gone before the first write, as with `| head -c 0`: no race
    err = p.stderr.read().decode()
    p.wait(timeout=60)
    assert p.returncode == 141, err
    assert err == ""
