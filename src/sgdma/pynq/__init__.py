"""PYNQ's buffer and MMIO API (``pynq.allocate``, ``pynq.MMIO``, ``DefaultIP``) over an sgdma board, virtual
or Linux, so PYNQ notebooks and PYNQ's own DMA driver (``pynq/lib/dma.py``) run unmodified, with no overlay
or bitstream::

    import sgdma, sgdma.pynq
    board = sgdma.VirtualBoard("zcu111", loopback=True)
    sgdma.pynq.install(board)                # the one line: `import pynq` now means this module
    from pynq import allocate, MMIO
    from pynq.lib.dma import DMA             # PYNQ's driver file, from the installed pynq package
    dma = DMA(sgdma.pynq.description(board))

``allocate`` hands out zeroed memory, as PYNQ's CMA allocations are (its SG channel relies on fresh
descriptor memory holding no stale Cmplt bit).
"""
from __future__ import annotations

import importlib.util
import sys
import types

from sgdma.pynq.buffer import PynqBuffer
from sgdma.pynq.buffer import allocate as _allocate
from sgdma.pynq.mmio import MMIO

__all__ = ["MMIO", "DefaultIP", "PynqBuffer", "UnsupportedConfiguration", "allocate", "description", "install",
           "uninstall", "use"]

_current = None


class UnsupportedConfiguration(Exception):
    """An IP configuration the driver does not support (as ``pynq.UnsupportedConfiguration``)."""


def use(board) -> None:
    """The board ``allocate``/``MMIO`` use when no ``target``/``device`` is given."""
    global _current
    _current = board


def _board(device):
    board = device if device is not None else _current
    if board is None:
        raise RuntimeError("no board: call sgdma.pynq.use(board) (or install(board)) first, or pass "
                           "target=/device=")
    return board


def allocate(shape, dtype="u4", target=None, **kwargs) -> PynqBuffer:
    """``pynq.allocate(shape, dtype='u4', target=None, cacheable=True)``: a zeroed, physically contiguous
    buffer in board memory."""
    return _allocate(_board(target), shape, dtype, **kwargs)


class DefaultIP:
    """``pynq.DefaultIP``: ``self.mmio`` over the description's register window."""

    def __init__(self, description: dict):
        self.description = description
        self.mmio = MMIO(description["phys_addr"], description["addr_range"], device=description.get("device"))

    def read(self, offset: int = 0) -> int:
        return self.mmio.read(offset)

    def write(self, offset: int, value: int) -> None:
        self.mmio.write(offset, value)


def description(board, name: str = "axi_dma_0") -> dict:
    """The IP description PYNQ would read from the overlay's .hwh, from the board's DMA build."""
    blk = board.axi_dma
    p = {"C_INCLUDE_SG": blk.include_sg, "C_SG_LENGTH_WIDTH": blk.length_width, "C_INCLUDE_MM2S": 1,
         "C_INCLUDE_MM2S_DRE": blk.has_dre, "C_M_AXI_MM2S_DATA_WIDTH": blk.data_width, "C_INCLUDE_S2MM": 1,
         "C_INCLUDE_S2MM_DRE": blk.has_dre, "C_M_AXI_S2MM_DATA_WIDTH": blk.data_width, "C_MICRO_DMA": 0,
         "C_MM2S_BURST_SIZE": blk.max_burst, "C_S2MM_BURST_SIZE": blk.max_burst, "C_ADDR_WIDTH": blk.addr_width}
    params = {k: str(int(v)) for k, v in p.items()}
    params.update({k.lower(): v for k, v in params.items()})   # PYNQ looks names up in lower case
    return {"fullpath": name, "type": "xilinx.com:ip:axi_dma:7.1", "phys_addr": blk.base, "addr_range": 0x10000,
            "device": board, "parameters": params, "interrupts": {}, "registers": {}, "driver": None}


_real_pynq_spec = None     # the installed pynq package, found before install() took its name


def _pynq_dma_module() -> types.ModuleType:
    """PYNQ's own ``pynq/lib/dma.py`` from the installed pynq package, loaded against this module.  Only the
    file is used: importing the pynq package itself wants a board image (an overlay, /dev/xlnk or XRT)."""
    spec = _real_pynq_spec
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("pynq.lib.dma is PYNQ's driver file, from the pynq package, which is not installed: "
                          "pip install --no-deps pynq (only its lib/dma.py is read, so its numpy<2 pin "
                          "need not apply)")
    path = f"{spec.submodule_search_locations[0]}/lib/dma.py"
    # dma.py needs only ReprDict (a dict subclass) from pynqutils, whose own imports want a board image
    if "pynqutils.runtime.repr_dict" not in sys.modules:
        for name in ("pynqutils", "pynqutils.runtime"):
            sys.modules.setdefault(name, types.ModuleType(name))
        rd = types.ModuleType("pynqutils.runtime.repr_dict")
        rd.ReprDict = type("ReprDict", (dict,), {})
        sys.modules["pynqutils.runtime.repr_dict"] = rd
    mod_spec = importlib.util.spec_from_file_location("pynq.lib.dma", path)
    mod = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(mod)
    return mod


class _DmaFinder:
    """Serves ``import pynq.lib.dma`` while installed: PYNQ's file, loaded against sgdma.pynq."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "pynq.lib.dma" or sys.modules.get("pynq") is not sys.modules[__name__]:
            return None
        return importlib.util.spec_from_loader(name, _DmaFinder)

    @staticmethod
    def create_module(spec):
        return _pynq_dma_module()

    @staticmethod
    def exec_module(module):
        pass


_FINDER = _DmaFinder()
_NAMES = ("pynq", "pynq.lib", "pynq.lib.dma")


def install(board=None) -> None:
    """Make ``import pynq`` (``from pynq import allocate, MMIO``, ``from pynq.lib.dma import DMA``) mean
    sgdma's PYNQ layer for the rest of the process, and ``board`` the default target."""
    global _real_pynq_spec
    if board is not None:
        use(board)
    me = sys.modules[__name__]
    if sys.modules.get("pynq") is me:
        return
    if "pynq" not in sys.modules:
        _real_pynq_spec = importlib.util.find_spec("pynq")
    else:
        _real_pynq_spec = getattr(sys.modules["pynq"], "__spec__", None)
    lib = types.ModuleType("pynq.lib")
    lib.__path__ = []                      # a package: `import pynq.lib.dma` asks the finders for its child
    for name in _NAMES:
        sys.modules.pop(name, None)
    sys.modules["pynq"] = me
    sys.modules["pynq.lib"] = lib
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def uninstall() -> None:
    """Give ``pynq`` back (a later ``import pynq`` finds the real package, if any)."""
    for name in _NAMES:
        if name == "pynq" and sys.modules.get(name) is not sys.modules[__name__]:
            continue
        sys.modules.pop(name, None)
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
