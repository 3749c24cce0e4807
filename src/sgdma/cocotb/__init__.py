"""Live co-simulation of a user's PL design against the timed virtual board (cocotb).

``PsMemoryPort`` answers the DUT's AXI master on a PS port (S_AXI_HP/HPC/ACP) from the
board's interconnect, DDR controller and DRAM at the simulator's time; ``DmaStreamSource`` and
``DmaStreamSink`` are the AXI DMA's MM2S and S2MM streams; ``GpPort`` and
``PlInterrupt`` are the CPU's MMIO to a DUT's registers and its interrupt; ``Software`` runs the
board's own API (AxiDma, MMIO) in step with HDL time (docs/cosim.md).
Needs the ``[rtl]`` extra (cocotb, cocotbext-axi).
"""
from sgdma.cocotb.errors import AxiProtocolError
from sgdma.cocotb.gp import GpPort, PlInterrupt
from sgdma.cocotb.memport import PsMemoryPort, port_spec
from sgdma.cocotb.software import Software
from sgdma.cocotb.source import DmaStreamSource
from sgdma.cocotb.stream import DmaStreamSink

__all__ = ["AxiProtocolError", "DmaStreamSink", "DmaStreamSource", "GpPort", "PlInterrupt", "PsMemoryPort", "Software",
           "port_spec"]
