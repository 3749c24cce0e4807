"""sgdma.pynq: PYNQ's own DMA driver (pynq/lib/dma.py, if the pynq package is
installed) runs unmodified on the virtual board in simple and SG mode."""
import importlib.util
import sys
import types

import numpy as np
import pytest

import sgdma
import sgdma.pynq as spynq


def test_allocate_is_zeroed_after_reuse():
    board = sgdma.VirtualBoard("zcu111")
    spynq.use(board)
    a = spynq.allocate((64, 16), dtype=np.uint32)
    a[:] = 0xFFFFFFFF
    addr = a.physical_address
    a.freebuffer()
    del a
    b = spynq.allocate((64, 16), dtype=np.uint32, target=board)
    assert b.physical_address == addr and not b.any()


def test_mmio_and_default_ip_reach_the_dma():
    board = sgdma.VirtualBoard("zcu111")
    ip = spynq.DefaultIP(spynq.description(board))
    assert ip.read(0x04) & sgdma.pg021.SR_SGINCLD
    with pytest.raises(RuntimeError, match="call sgdma.pynq.use"):
        spynq.use(None) or spynq.allocate(4)


def _pynq_dma():
    spec = importlib.util.find_spec("pynq")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("the pynq package is not installed (optional: pip install --no-deps pynq pynqutils)")
    path = f"{spec.submodule_search_locations[0]}/lib/dma.py"
    saved = {k: sys.modules.get(k) for k in ("pynq", "pynqutils", "pynqutils.runtime", "pynqutils.runtime.repr_dict")}
    sys.modules["pynq"] = spynq
    # dma.py needs only ReprDict (a dict subclass) from pynqutils, whose own imports want a board image
    for name in ("pynqutils", "pynqutils.runtime"):
        sys.modules[name] = types.ModuleType(name)
    rd = types.ModuleType("pynqutils.runtime.repr_dict")
    rd.ReprDict = type("ReprDict", (dict,), {})
    sys.modules["pynqutils.runtime.repr_dict"] = rd
    try:
        mod_spec = importlib.util.spec_from_file_location("pynq_lib_dma_on_sgdma", path)
        mod = importlib.util.module_from_spec(mod_spec)
        mod_spec.loader.exec_module(mod)
        return mod
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


@pytest.mark.parametrize("include_sg", [False, True])
def test_pynq_dma_driver_unmodified(include_sg):
    dma_mod = _pynq_dma()
    board = sgdma.VirtualBoard("zcu111", loopback=True, include_sg=include_sg)
    spynq.use(board)
    dma = dma_mod.DMA(spynq.description(board))
    rng = np.random.default_rng(3)
    for n in (4096, 1000 * 32, 64):                      # SG: from the second transfer on too
        src = spynq.allocate(n, dtype=np.uint8)
        dst = spynq.allocate(n, dtype=np.uint8)
        src[:] = rng.integers(0, 256, n)
        dma.recvchannel.transfer(dst)
        dma.sendchannel.transfer(src)
        dma.sendchannel.wait()
        dma.recvchannel.wait()
        assert np.array_equal(dst, src)
        del src, dst
