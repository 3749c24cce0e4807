"""Bounded reads of input files: presets, gate libraries, circuits, cost files and result records are read only
when they are regular files within a size limit, so a FIFO never waits on a writer and /dev/zero (or a link to it)
never fills the memory.  The error names the file and the rule."""
from __future__ import annotations

import os
import stat

MAX_INPUT_BYTES = 256 << 20        # far above any preset, library, circuit or record a command writes


class InputFileError(ValueError):
    """An input file that is not a regular file, is too large, or cannot be read."""


def read_bounded(path, limit: int = MAX_INPUT_BYTES, what: str = "input file",
                 error: type[Exception] = InputFileError) -> bytes:
    """The bytes of the regular file ``path`` of at most ``limit`` bytes; ``error(message)`` when it is not a
    regular file or is larger.  A file that cannot be opened or read raises OSError, as open() does."""
    p = os.fspath(path)
    fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{p}: not a regular file (a pipe, device or socket); the {what} must be a file")
        if st.st_size > limit:
            raise error(f"{p}: {st.st_size} bytes, more than the {limit}-byte limit for a {what}")
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:                          # it grew while it was read
        raise error(f"{p}: more than the {limit}-byte limit for a {what}")
    return data
