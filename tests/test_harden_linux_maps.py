"""The Linux backend checks every mapping before it maps: a short device file, a damaged or negative sysfs value,
a UIO map offset of a page or more, a wrapping carve-out size -- each a clear OSError naming the file, never SIGBUS,
SIGSEGV or "no such device"."""
from __future__ import annotations

import pytest

from sgdma import _core


def _root(tmp_path, monkeypatch, uio=None, buf=None, dev_bytes=0x10000, buf_bytes=1 << 16):
    uio = {"addr": "0x40400000", "size": "0x10000", "offset": "0x0", **(uio or {})}
    buf = {"phys_addr": "0x30000000", "size": str(1 << 16), "sync_mode": "1", "dma_coherent": "0", **(buf or {})}
    m = tmp_path / "sys/class/uio/uio0/maps/map0"
    m.mkdir(parents=True)
    (tmp_path / "sys/class/uio/uio0/name").write_text("axi_dma_0\n")
    for k, v in uio.items():
        (m / k).write_text(v + "\n")
    b = tmp_path / "sys/class/u-dma-buf/udmabuf0"
    b.mkdir(parents=True)
    for k, v in buf.items():
        (b / k).write_text(v + "\n")
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev/uio0").write_bytes(b"\0" * dev_bytes)
    (tmp_path / "dev/udmabuf0").write_bytes(b"\0" * buf_bytes)
    monkeypatch.setenv("SGDMA_SYSROOT", str(tmp_path))


CASES = [
    # (uio attrs, buffer attrs, uio file bytes, buffer file bytes, text the message must hold)
    ({}, {}, 0x100, 1 << 16, "dev/uio0 is 256 bytes, shorter"),
    ({}, {}, 0x10000, 100, "dev/udmabuf0 is 100 bytes, shorter"),
    ({"size": "-1"}, {}, 0x10000, 1 << 16, "map0/size holds \"-1\""),
    ({"size": "lots"}, {}, 0x10000, 1 << 16, "map0/size holds \"lots\""),
    ({"offset": "0x1000"}, {}, 0x10000, 1 << 16, "offset lies within its first page"),
    ({}, {"size": "0x"}, 0x10000, 1 << 16, "udmabuf0/size holds"),
    ({}, {"size": "0"}, 0x10000, 1 << 16, "nothing to map"),
    ({}, {"phys_addr": "12abc"}, 0x10000, 1 << 16, "phys_addr holds"),
]


@pytest.mark.parametrize("uio,buf,dev_bytes,buf_bytes,text", CASES)
def test_bad_mapping_is_a_clear_error(tmp_path, monkeypatch, uio, buf, dev_bytes, buf_bytes, text):
    _root(tmp_path, monkeypatch, uio, buf, dev_bytes, buf_bytes)
    with pytest.raises(OSError, match=text.replace("(", r"\(")):
        _core.LinuxPlatform(dma="axi_dma_0", buffers="udmabuf0")


def test_good_root_maps(tmp_path, monkeypatch):
    _root(tmp_path, monkeypatch)
    p = _core.LinuxPlatform(dma="axi_dma_0", buffers="udmabuf0", cache="uncached")
    p.close()


@pytest.mark.parametrize("spec,text", [("0x1000:99999999999G", "0xADDR:SIZE"), ("0x1000:-4K", "0xADDR:SIZE"),
                                       ("0x1000:0", "0xADDR:SIZE"), ("0x1001:4K", "page boundary")])
def test_carveout_specs(tmp_path, monkeypatch, spec, text):
    _root(tmp_path, monkeypatch)
    with pytest.raises(OSError, match=text):
        _core.LinuxPlatform(dma="axi_dma_0", buffers=spec, cache="uncached")
