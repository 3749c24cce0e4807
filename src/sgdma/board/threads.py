"""One thread per board: concurrent use is detected and refused, not silently interleaved.

A board, its DMA channels and rings form one piece of hardware state driven through multi-step protocols
(fill, submit, wait, reclaim); locking each call would still let two threads interleave those steps and get
wrong loopbacks.  So a board belongs to the thread that created it; any call of its public API from another
thread raises ``ConcurrentUseError``.  ``board.adopt()`` hands the board to the calling thread once the old
one has stopped using it; a forked child process owns its copy.  Since only the owner can call in, two
threads are never inside the C model of one board at once, even when a long simulation releases the GIL.
"""
from __future__ import annotations

import functools
import os
import threading


class ConcurrentUseError(RuntimeError):
    """A board (or its DMA, rings, MMIO windows) used from a thread that does not own it."""


class Owner:
    __slots__ = ("thread", "name", "pid")

    def __init__(self):
        self.adopt()

    def adopt(self) -> None:
        self.thread, self.name, self.pid = threading.get_ident(), threading.current_thread().name, os.getpid()

    def check(self, what: str) -> None:
        if self.thread == threading.get_ident():
            return
        if self.pid != os.getpid():             # a forked child: the only thread that can reach its copy
            self.adopt()
            return
        raise ConcurrentUseError(
            f"{what} called from thread {threading.current_thread().name!r}, but this board belongs to thread "
            f"{self.name!r}: a board is driven by one thread at a time; create one board per thread, or call "
            "board.adopt() in the new thread after the old one has stopped using it")


def single_threaded(get_owner):
    """Class decorator: every public method and property of the class checks ``get_owner(self)`` first."""

    def wrap(fn, label):
        @functools.wraps(fn)
        def checked(self, *args, **kwargs):
            get_owner(self).check(label)
            return fn(self, *args, **kwargs)
        return checked

    def decorate(cls):
        for name, attr in list(vars(cls).items()):
            if name.startswith("_") or name == "adopt":
                continue
            label = f"{cls.__name__}.{name}"
            if isinstance(attr, property):
                setattr(cls, name, property(wrap(attr.fget, label) if attr.fget else None,
                                            wrap(attr.fset, label) if attr.fset else None, attr.fdel, attr.__doc__))
            elif callable(attr) and not isinstance(attr, (staticmethod, classmethod, type)):
                setattr(cls, name, wrap(attr, label))
        return cls

    return decorate
