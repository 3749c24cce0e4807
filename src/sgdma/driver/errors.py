"""Exceptions raised by the driver: one class per driver status, all carrying
the decoded DMACR/DMASR/CURDESC/TAILDESC snapshot when hardware was involved.

Every exception has: ``code`` (driver status name), ``rule`` (what was broken),
``fix``, ``direction``, ``bd_index``, ``value``, ``limit`` and ``snapshot``.
"""
from __future__ import annotations

from sgdma import _core


class DmaError(_core.DriverError):
    """Base class of every sgdma driver error."""

    code: str = ""
    snapshot: dict | None = None


class ConfigError(DmaError, ValueError):
    """The channel configuration does not match the IP build."""


class ArgumentError(DmaError, ValueError):
    """An argument broke a PG021 rule; nothing was written."""


class AlignmentError(ArgumentError):
    """A BD or buffer is not aligned as PG021 requires."""


class LengthError(ArgumentError):
    """A length is zero or exceeds the buffer-length register width."""


class StreamWidthError(ArgumentError):
    """A non-last BD of a packet is not a multiple of the stream width."""


class AddressError(ArgumentError):
    """An address the DMA cannot reach."""


class RingFullError(DmaError):
    """No free BD left in the ring."""


class RingEmptyError(DmaError):
    """Nothing was filled to submit."""


class PacketOpenError(ArgumentError):
    """A submission ends inside a packet."""


class NotHaltedError(DmaError):
    """A register that may only change while halted was written while running."""


class TailError(ArgumentError):
    """The tail descriptor is not a BD of the ring."""


class ModeError(DmaError):
    """The operation does not exist in this build or mode."""


class BusyError(DmaError):
    """The channel is busy."""


class DmaTimeoutError(DmaError, TimeoutError):
    """A bounded wait expired; the snapshot shows where the engine stood."""


class HardwareError(DmaError):
    """The DMA set error bits in DMASR; recover with a soft reset."""


_BY_CODE = {
    "SG_E_ARG": ArgumentError,
    "SG_E_CONFIG": ConfigError,
    "SG_E_ALIGN": AlignmentError,
    "SG_E_LENGTH_ZERO": LengthError,
    "SG_E_LENGTH_WIDTH": LengthError,
    "SG_E_STREAM_MULTIPLE": StreamWidthError,
    "SG_E_ADDR_RANGE": AddressError,
    "SG_E_RING_FULL": RingFullError,
    "SG_E_RING_EMPTY": RingEmptyError,
    "SG_E_PACKET_OPEN": PacketOpenError,
    "SG_E_NOT_HALTED": NotHaltedError,
    "SG_E_TAIL_NOT_IN_RING": TailError,
    "SG_E_MODE": ModeError,
    "SG_E_BUSY": BusyError,
    "SG_E_TIMEOUT": DmaTimeoutError,
    "SG_E_HW": HardwareError,
}


def _register() -> None:
    names = {name for _, name, _, _ in _core.status_table()}
    missing = names - set(_BY_CODE) - {"SG_OK"}
    if missing:
        raise ImportError(f"driver statuses without an exception class: {sorted(missing)}")
    _core.set_error_classes(_BY_CODE)


_register()
