"""Where traces live: the runtime's alignment per preset (artiq-rtio.md sec. 2.3: 128 B on Zynq, 64 B on the softcore
runtime) and the DMA reader at the end of readable memory (sec. 3.3: the reader fetches whole bursts; an AXI error on
bytes the slicer needs stops playback with a bus error, bytes it never needs do not)."""
import struct

import numpy as np
import pytest

import sgdma
from sgdma.rtio import Core, CoreDMA, TTLOut


def record(channel, ts, level):
    return bytes([14]) + channel.to_bytes(3, "little") + struct.pack("<q", ts) + bytes([0, level])


@pytest.mark.parametrize("preset,align", [("zc706", 128), ("kc705_softcore", 64)])
def test_trace_alignment_follows_the_preset_runtime(preset, align):
    b = sgdma.VirtualBoard(preset)
    core = Core(b)
    dma = CoreDMA(core)
    ttl = TTLOut(core, 0)
    for name, pulses in (("a", 1), ("b", 3), ("c", 5)):
        with dma.record(name):
            for _ in range(pulses):
                ttl.pulse_mu(10)
                core.delay_mu(10)
    for name, pulses in (("a", 1), ("b", 3), ("c", 5)):
        _, _, ptr, _ = dma.get_handle(name)
        stored = dma.trace_bytes(name)
        body = 2 * pulses * 14 + 1                    # 14-byte records and the end marker
        assert ptr % align == 0
        assert len(stored) == -(-body // align) * align   # padded up to the alignment, no further


def test_reader_needs_unreadable_bytes_bus_error():
    b = sgdma.VirtualBoard("zc706")
    core = Core(b)
    _, base, size = b.regions[0]
    end = base + size
    # 9 whole records end 2 bytes before the end of DDR; the 10th record's header starts there and runs off it
    ptr = end - 128
    buf = b.allocate(128, physical_address=ptr, align=128)
    core.break_realtime(50_000)
    t0 = core.now_mu()
    recs = b"".join(record(0, 1000 + 100 * i, i % 2 == 0) for i in range(9))
    buf[:] = np.frombuffer(recs + bytes([14, 0]), np.uint8)
    res = b.rtio.playback(ptr, 10**10)
    assert res["bus_error"] and not res["timeout"]
    assert res["records"] == 9                        # everything before the unreadable bytes was played
    b.rtio.drain(10**10)
    assert list(b.rtio.edges()["t_mu"]) == [t0 + 1000 + 100 * i for i in range(9)]


def test_trace_ending_at_the_end_of_readable_memory_plays_cleanly():
    b = sgdma.VirtualBoard("zc706")
    core = Core(b)
    _, base, size = b.regions[0]
    ptr = base + size - 128
    buf = b.allocate(128, physical_address=ptr, align=128)
    core.break_realtime(50_000)
    recs = b"".join(record(0, 1000 + 100 * i, i % 2 == 0) for i in range(9))
    buf[:] = 0
    buf[:len(recs)] = np.frombuffer(recs, np.uint8)      # the end marker is the byte after the last record
    res = b.rtio.playback(ptr, 10**10)
    assert not res["bus_error"] and res["records"] == 9 and res["error"] == 0

