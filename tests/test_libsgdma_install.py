"""libsgdma installs as a C library does: `make install PREFIX= DESTDIR=` puts the versioned shared object
(soname libsgdma.so.0) with its links, the static library, the public headers and sgdma.pc in place; a program
compiled with pkg-config's flags from that install links -lsgdma and runs, resolving a Vivado label through a
device tree laid out as Linux lays it out.  Cross builds install the same way into a sysroot."""
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VERSION = next(line.split('"')[1] for line in (ROOT / "pyproject.toml").read_text().splitlines()
               if line.startswith("version = "))

pytestmark = pytest.mark.skipif(not all(shutil.which(t) for t in ("make", "cc", "pkg-config", "readelf")),
                                reason="needs make, cc, pkg-config and readelf")


def _install(tmp_path: Path, cc: str, arch: str) -> Path:
    dest = tmp_path / f"sysroot-{arch}"
    build = tmp_path / f"build-{arch}"
    for target in ([], ["install"]):
        r = subprocess.run(["make", "-s", *target, f"CC={cc}", f"BUILD={build}", "PREFIX=/usr", f"DESTDIR={dest}"],
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
    lib = dest / "usr/lib"
    assert os.readlink(lib / "libsgdma.so") == "libsgdma.so.0"
    assert os.readlink(lib / "libsgdma.so.0") == f"libsgdma.so.{VERSION}"
    assert (lib / "libsgdma.a").is_file()
    soname = subprocess.run(["readelf", "-d", str(lib / f"libsgdma.so.{VERSION}")], capture_output=True, text=True)
    assert "Library soname: [libsgdma.so.0]" in soname.stdout
    for h in ("driver.h", "platform_linux.h", "pg021.h", "sg_contract.h", "platform.h"):
        assert (dest / "usr/include/sgdma" / h).is_file(), h
    pc = (lib / "pkgconfig/sgdma.pc").read_text()
    assert "prefix=/usr\n" in pc and f"Version: {VERSION}" in pc and "Libs: -L${libdir} -lsgdma" in pc
    return dest


def _link(dest: Path, cc: str, out: Path) -> None:
    env = os.environ | {"PKG_CONFIG_LIBDIR": str(dest / "usr/lib/pkgconfig"), "PKG_CONFIG_SYSROOT_DIR": str(dest),
                        "PKG_CONFIG_ALLOW_SYSTEM_CFLAGS": "1", "PKG_CONFIG_ALLOW_SYSTEM_LIBS": "1"}
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "sgdma"], env=env, capture_output=True,
                           text=True, check=True).stdout.split()
    r = subprocess.run([cc, "-std=c11", "-Wall", "-Werror", str(ROOT / "examples/linux-uio/loopback.c"), *flags,
                        "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    needed = subprocess.run(["readelf", "-d", str(out)], capture_output=True, text=True).stdout
    assert "Shared library: [libsgdma.so.0]" in needed


def test_host_install_links_and_resolves_a_label(tmp_path):
    dest = _install(tmp_path, "cc", "host")
    prog = tmp_path / "loopback"
    _link(dest, "cc", prog)
    # A board as Linux shows it: the UIO device is "dma" (the node name), the program asks for axi_dma_0.
    sysroot = tmp_path / "board"
    uio = sysroot / "sys/class/uio/uio0"
    (uio / "maps/map0").mkdir(parents=True)
    (uio / "name").write_text("dma\n")
    (uio / "maps/map0/addr").write_text("0x0000000040400000\n")
    (uio / "maps/map0/size").write_text("0x0000000000010000\n")
    (uio / "maps/map0/offset").write_text("0x0\n")
    dt = sysroot / "sys/firmware/devicetree/base"
    node = dt / "amba_pl/dma@40400000"
    node.mkdir(parents=True)
    (dt / "amba_pl/#address-cells").write_bytes(struct.pack(">I", 1))
    (dt / "amba_pl/#size-cells").write_bytes(struct.pack(">I", 1))
    (node / "reg").write_bytes(struct.pack(">II", 0x4040_0000, 0x10000))
    (dt / "__symbols__").mkdir()
    (dt / "__symbols__/axi_dma_0").write_bytes(b"/amba_pl/dma@40400000\0")
    env = os.environ | {"LD_LIBRARY_PATH": str(dest / "usr/lib"), "SGDMA_SYSROOT": str(sysroot)}
    r = subprocess.run([str(prog), "axi_dma_0", "udmabuf0"], env=env, capture_output=True, text=True, timeout=60)
    # the label found uio0; the program then stops at the device node this fake root lacks
    assert r.returncode != 0 and f'cannot open {sysroot}/dev/uio0 (UIO device "dma")' in r.stdout + r.stderr


@pytest.mark.parametrize("arch,cc", [("aarch64", "aarch64-linux-gnu-gcc"), ("armhf", "arm-linux-gnueabihf-gcc")])
def test_cross_install_into_a_sysroot(tmp_path, arch, cc):
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed (scripts/build-linux installs it)")
    dest = _install(tmp_path, cc, arch)
    prog = tmp_path / f"loopback-{arch}"
    _link(dest, cc, prog)
    machine = subprocess.run(["readelf", "-h", str(prog)], capture_output=True, text=True).stdout
    assert ("AArch64" if arch == "aarch64" else "ARM") in machine
