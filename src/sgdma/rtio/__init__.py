"""ARTIQ-style real-time I/O on the virtual board: kernel API, event DMA, analyzer, initiator benchmarks."""
from sgdma.rtio.core import Core, TTLOut  # noqa: F401
from sgdma.rtio.dma import CoreDMA  # noqa: F401
from sgdma.rtio.errors import DMAError, RTIODestinationUnreachable, RTIOError, RTIOUnderflow  # noqa: F401
