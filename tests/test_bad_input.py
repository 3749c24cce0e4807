"""Bad input: refused up front with the rule named, or flagged by the model with exactly PG021's bits."""
import numpy as np
import pytest

import sgdma
from sgdma.hw import pg021 as P


@pytest.fixture
def rig():
    board = sgdma.VirtualBoard("zcu111", seed=0, loopback=True)
    dma = sgdma.AxiDma(board)
    dma.reset()
    return board, dma


def bd_bytes(ring):
    return bytes(np.asarray(ring.memory))


def test_misaligned_ring_memory_refused(rig):
    board, dma = rig
    with pytest.raises(sgdma.AlignmentError) as e:
        sgdma._core.Ring(dma.mm2s._c, board.allocate(256).physical_address + 32, 2)
    assert "64" in str(e.value) and e.value.code == "SG_E_ALIGN"


def test_zero_length_refused_before_writing(rig):
    board, dma = rig
    ring = dma.mm2s.ring(4)
    before = bd_bytes(ring)
    buf = board.allocate(128)
    with pytest.raises(sgdma.LengthError) as e:
        ring.fill([buf.physical_address] * 2, [64, 0])
    assert e.value.bd_index == 1 and "zero" in str(e.value)
    assert bd_bytes(ring) == before and ring.free == 4


def test_length_over_width_refused_with_limit():
    board = sgdma.VirtualBoard("pg021")              # length width 14: 16 383 bytes
    dma = sgdma.AxiDma(board)
    ring = dma.mm2s.ring(2)
    buf = board.allocate(16384)
    ring.fill([buf.physical_address], [16383])
    with pytest.raises(sgdma.LengthError) as e:
        ring.fill([buf.physical_address], [16384])
    assert e.value.value == 16384 and e.value.limit == 16383
    assert "split" in str(e.value)                  # the fix is named


def test_buffer_outside_memory_refused_or_decerr(rig):
    board, dma = rig
    ring = dma.mm2s.ring(2)
    # 0xA000_0000 is the DMA's own register window: no DDR there.
    ring.fill([0xA000_0000], [64])
    ring.submit()
    with pytest.raises(sgdma.HardwareError) as e:
        ring.wait()
    assert e.value.snapshot["dmasr"] & P.SR_DMADECERR
    assert "DMADecErr" in str(e.value)
    assert e.value.snapshot["curdesc"] == ring.bd_address(0)


def test_address_over_addr_width_refused(rig):
    board, dma = rig
    ring = dma.mm2s.ring(2)
    with pytest.raises(sgdma.AddressError):
        ring.fill([0x8_0000_0000], [64])           # 32-bit DMA cannot form it


def test_bd_outside_memory_sets_sgdecerr(rig):
    board, dma = rig
    ring = dma.mm2s.ring(2, closed=False)          # open ring: last NXTDESC = 0
    buf = board.allocate(64)
    ring.fill([buf.physical_address] * 2, [64, 64])
    ring.bds["nxtdesc"][0] = 0xC000_0000           # nothing mapped there
    ring.submit()
    with pytest.raises(sgdma.HardwareError) as e:
        ring.wait()
    assert e.value.snapshot["dmasr"] & P.SR_SGDECERR
    assert e.value.snapshot["curdesc"] == 0xC000_0000


def test_tail_not_in_ring_refused(rig):
    board, dma = rig
    ring = dma.mm2s.ring(4)
    with pytest.raises(sgdma.TailError) as e:
        ring.kick(ring.address + 4 * 64)
    assert e.value.value == ring.address + 256


def test_cyclic_bit_change_while_running_refused(rig):
    board, dma = rig
    ring = dma.mm2s.ring(2)
    buf = board.allocate(64)
    ring.fill([buf.physical_address] * 2, [64, 64])
    ring.start_cyclic()
    with pytest.raises(sgdma.NotHaltedError):
        dma.mm2s.set_cyclic(False)
    # and the hardware ignores it too when a raw write tries
    cr = dma.mm2s._c.read(P.DMACR)
    dma.mm2s._c.write(P.DMACR, cr & ~P.CR_CYCLIC)
    assert dma.mm2s._c.read(P.DMACR) & P.CR_CYCLIC


def test_curdesc_while_running_refused(rig):
    board, dma = rig
    ring = dma.mm2s.ring(2)
    ring.fill([board.allocate(64).physical_address], [64])
    ring.submit()
    with pytest.raises(sgdma.NotHaltedError):
        dma.mm2s.set_curdesc(ring.address)


def test_s2mm_packet_longer_than_armed_bds(rig):
    board, dma = rig
    rx = dma.s2mm.ring(2)
    dst = board.allocate(128)
    rx.fill([dst.physical_address, dst.physical_address + 64], [64, 64])
    rx.submit()
    board.s2mm_source.send(bytes(range(200)))      # 200 > 128 armed
    with pytest.raises(sgdma.HardwareError) as e:
        rx.wait()
    assert e.value.snapshot["dmasr"] & P.SR_DMAINTERR
    assert e.value.snapshot["curdesc"] == rx.bd_address(1)
    assert e.value.snapshot["cur_bd_status"] & P.BD_STS_INTERR


def test_non_multiple_middle_bd_refused(rig):
    board, dma = rig
    ring = dma.mm2s.ring(4)
    buf = board.allocate(256)
    with pytest.raises(sgdma.StreamWidthError) as e:
        ring.fill([buf.physical_address, buf.physical_address + 64], [40, 64],
                  flags=[P.SG_BD_SOF, P.SG_BD_EOF])
        ring.submit()
    assert e.value.limit == 32 and e.value.bd_index == 0


def test_non_multiple_middle_bd_hardware_bits(rig):
    """Written behind the driver's back, the model flags DMAIntErr on the BD."""
    board, dma = rig
    ring = dma.mm2s.ring(2)
    buf = board.allocate(256)
    ring.fill([buf.physical_address, buf.physical_address + 64], [64, 64],
              flags=[P.SG_BD_SOF, P.SG_BD_EOF])
    ring.bds["control"][0] = 40 | P.BD_CTRL_TXSOF
    with pytest.raises(sgdma.StreamWidthError):
        ring.submit()                              # the driver re-reads BD memory at submit
    ch = dma.mm2s
    ch.set_curdesc(ring.address)                   # raw start, as a careless driver would
    ch._c.write(P.DMACR, ch._c.read(P.DMACR) | P.CR_RS)
    ch.write_tail(ring.bd_address(1))
    with pytest.raises(sgdma.HardwareError) as e:
        ch.wait_idle()
    assert e.value.snapshot["dmasr"] & P.SR_DMAINTERR
    assert ring.bds["status"][0] & P.BD_STS_INTERR


def test_packet_without_eof_refused(rig):
    board, dma = rig
    ring = dma.mm2s.ring(2)
    buf = board.allocate(64)
    ring.fill([buf.physical_address], [64], flags=[P.SG_BD_SOF])
    with pytest.raises(sgdma.PacketOpenError):
        ring.submit()


def test_ring_full(rig):
    board, dma = rig
    ring = dma.mm2s.ring(2)
    buf = board.allocate(64)
    with pytest.raises(sgdma.RingFullError):
        ring.fill([buf.physical_address] * 3, [64] * 3)
    assert ring.free == 2


def test_wait_is_bounded_and_dumps_registers(rig):
    board, dma = rig
    rx = dma.s2mm.ring(1)
    rx.fill([board.allocate(64).physical_address], [64])
    rx.submit()                                    # no stream data ever arrives
    with pytest.raises(sgdma.DmaTimeoutError) as e:
        rx.wait(timeout_ns=50_000)
    assert "DMASR" in str(e.value) and e.value.snapshot is not None
    assert board.now_ns < 1e6                      # bounded in virtual time


def test_recover_after_error(rig):
    board, dma = rig
    ring = dma.mm2s.ring(2)
    ring.fill([0xA000_0000], [64])
    ring.submit()
    with pytest.raises(sgdma.HardwareError):
        ring.wait()
    snap = dma.mm2s.recover()
    assert snap["dmasr"] & P.SR_DMADECERR         # the pre-reset picture is kept
    assert dma.mm2s.halted and not dma.mm2s.registers()["dmasr"] & P.SR_ERR_ALL
    assert ring.free == 2 and ring.check()
    buf = board.allocate(64)
    ring.fill([buf.physical_address], [64])
    ring.submit()
    ring.wait()
    assert len(ring.reclaim()) == 1


def test_unknown_board_option():
    with pytest.raises(TypeError, match="unknown board option"):
        sgdma.VirtualBoard("zcu111", warp_drive=True)
    with pytest.raises(ValueError, match="length_width"):
        sgdma.VirtualBoard("zcu111", length_width=30)
    with pytest.raises(ValueError, match="unknown board preset"):
        sgdma.VirtualBoard("zcu999")


def test_allocation_failure_is_precise():
    board = sgdma.VirtualBoard("pg021")
    with pytest.raises(MemoryError, match="largest hole"):
        board.allocate(1 << 30)
