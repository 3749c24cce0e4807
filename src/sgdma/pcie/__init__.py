"""PCIe root-port DMA on Zynq UltraScale+ (XAPP1289): the PS-PCIe DMA's driver API and its experiments."""
from sgdma.driver.pciedma import PcieChannel, PcieDma, PcieDmaError, PcieRun

__all__ = ["PcieDma", "PcieChannel", "PcieDmaError", "PcieRun"]
