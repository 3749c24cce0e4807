"""The driver API: AxiDma / Channel / Ring over the C driver core, and its typed errors."""
from sgdma.driver.axidma import AxiDma, Channel, Completions, Ring  # noqa: F401
