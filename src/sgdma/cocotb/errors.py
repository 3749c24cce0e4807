"""The bridge's verdict on a DUT that breaks the AXI protocol."""


class AxiProtocolError(RuntimeError):
    """A DUT broke AXI on a bridged port: the message names the channel, the signal and the clock."""
