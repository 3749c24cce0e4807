"""``--board linux:dma=axi_dma_0,buffers=udmabuf0`` on the command line."""
from __future__ import annotations

PREFIX = "linux:"
KEYS = {"dma", "buffers", "cache", "mm2s_irq", "s2mm_irq", "preset"}


def is_linux_spec(text: str) -> bool:
    return text == "linux" or text.startswith(PREFIX)


def parse_spec(text: str) -> dict:
    """Keyword arguments of LinuxBoard from ``linux:key=value,...`` (ValueError names the bad part)."""
    if not is_linux_spec(text):
        raise ValueError(f"{text!r} is not a linux: board (want linux:dma=NAME,buffers=NAME)")
    out: dict[str, str] = {}
    body = text[len(PREFIX):] if text.startswith(PREFIX) else ""
    for part in filter(None, body.split(",")):
        key, eq, value = part.partition("=")
        if not eq or not value:
            raise ValueError(f"--board {text}: {part!r} is not key=value")
        if key not in KEYS:
            raise ValueError(f"--board {text}: unknown key {key!r}; known: {', '.join(sorted(KEYS))}")
        out[key] = value
    return out


def open_board(text: str, **extra):
    """A LinuxBoard for a ``linux:...`` spec (dma and buffers are required)."""
    from .board import LinuxBoard

    kw = parse_spec(text)
    missing = [k for k in ("dma", "buffers") if k not in kw]
    if missing:
        raise ValueError(f"--board {text}: give {' and '.join(missing)} (e.g. linux:dma=axi_dma_0,buffers=udmabuf0; "
                         "`sgdma info --board linux:` lists what this system has)")
    kw.update(extra)
    return LinuxBoard(**kw)
