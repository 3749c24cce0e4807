"""What a Linux system offers sgdma: UIO devices and u-dma-buf buffers
(under $SGDMA_SYSROOT when set)."""
from __future__ import annotations

from sgdma import _core


def devices() -> dict:
    """``{"uio": [...], "udmabuf": [...]}``, each entry a dict of its sysfs facts."""
    return {"uio": sorted(_core.linux_list_uio(), key=lambda d: d["index"]),
            "udmabuf": sorted(_core.linux_list_udmabuf(), key=lambda d: d["name"])}
