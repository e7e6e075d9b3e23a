"""Network boot: `tools/memboot netboot DIR` writes the TFTP tree, QEMU's
built-in DHCP and TFTP serve it (`run --netboot DIR`: -netdev user,tftp=DIR,
bootfile=..., an e1000, -boot n) and GRUB's PXE image loads memboot under
SeaBIOS and under OVMF: both reach done with status 0. The words prove which
grub.cfg line chose them: under SeaBIOS a --mac override for the NIC's MAC
(QEMU's default 52:54:00:12:34:56), under OVMF the tree's default words with
an override for another machine. (One OVMF boot: 10-15 s under TCG.)

arm64 (`netboot --arch arm64`): AAVMF's PXE on a virtio NIC boots GRUB's
arm64-efi image, which chainloads memboot's network loader (the UEFI loader
with the kernel inside) with the machine's words as its load options: the
hand-off block's flags say where the kernel and the words came from; a
loader whose head no longer matches the kernel inside is refused by the
loader itself. (About 15 s a boot under TCG.)"""
import os
import struct
import subprocess
import sys
import tempfile
import unittest

from guest import MEMBOOT, ROOT, Boot, boot, mbboot
from test_arm64 import check_census
from test_bootpaths import handoff_header

sys.path.insert(0, os.path.join(ROOT, "tools"))
from mbtools import netboot  # noqa: E402

HANDOFF_F_CMDLINE_FILE = 4          # boot/handoff.h
HANDOFF_F_CMDLINE_OPTIONS = 8
HANDOFF_F_KERNEL_INSIDE = 16
ARM64_NET_LOADER = os.path.join(ROOT, "build", "arm64", "debug", "efi", "memboot-net.efi")

QEMU_DEFAULT_MAC = "52:54:00:12:34:56"


def _elf():
    return os.environ.get("MEMBOOT_ELF") or os.path.join(ROOT, "build", "debug", "memboot.elf")


def _tree(tftp, *options):
    proc = subprocess.run([MEMBOOT, "netboot", tftp, "--elf", _elf()] + list(options),
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_netboot_seabios_pxe_with_a_machine_override():
    with tempfile.TemporaryDirectory(prefix="memboot-tftp-") as tmp:
        _tree(tmp, "--platform", "i386-pc", "--append", "memboot.init=deferred",
              "--mac", QEMU_DEFAULT_MAC + "=memboot.init=serial memboot.records=on")
        b = boot(mem_per_node="512M", timeout=120, tool_args=["--netboot", tmp])
        b.expect_ok()
    rec = b.one("boot")
    assert rec["boot_path"] == "mb2-bios", rec
    assert rec["cmdline"] == "memboot.init=serial memboot.records=on", rec
    assert all(r["policy"] == "serial" for r in b.all("node_init")), b.all("node_init")


def test_netboot_ovmf_pxe_default_words():
    with tempfile.TemporaryDirectory(prefix="memboot-tftp-") as tmp:
        _tree(tmp, "--platform", "x86_64-efi", "--append", "memboot.init=serial",
              "--mac", "52:54:00:00:00:01=memboot.init=lazy")
        b = boot(firmware="uefi", mem_per_node="512M", timeout=180,
                 tool_args=["--netboot", tmp])
        b.expect_ok()
    rec = b.one("boot")
    assert rec["boot_path"] == "mb2-uefi", rec
    assert rec["cmdline"] == "memboot.init=serial", rec


def test_netboot_words_reach_the_kernel_as_given():
    # Words GRUB's lexer would otherwise read ($, ;) travel quoted in
    # $memboot_args and reach the kernel as written. The words GRUB's
    # multiboot2 would change (a backslash before each \, ' and ") are
    # refused by netboot (tests/tools/test_netboot.py): with a'b the kernel
    # saw a\'b, and with a"b every later word was swallowed.
    words = "memboot.init=serial memmap=4K$0x1000000 memboot.x=a;b"
    with tempfile.TemporaryDirectory(prefix="memboot-tftp-") as tmp:
        _tree(tmp, "--platform", "i386-pc", "--append", words)
        refused = subprocess.run([MEMBOOT, "netboot", tmp, "--elf", _elf(), "--platform",
                                  "i386-pc", "--append", 'a"b ' + words], cwd=ROOT,
                                 capture_output=True, text=True, timeout=300)
        assert refused.returncode == 64, refused.stderr
        assert "has an unbalanced" in refused.stderr, refused.stderr
        b = boot(mem_per_node="512M", timeout=120, tool_args=["--netboot", tmp])
    assert b.one("done")["status"] == 0, b.tail()
    assert b.one("boot")["cmdline"] == words, b.one("boot")
    assert [r for r in b.all("warning") if "memboot.x" in r["msg"]], b.all("warning")
    assert all(r["policy"] == "serial" for r in b.all("node_init")), b.all("node_init")


def test_netboot_arm64_aavmf_chainloads_the_loader_with_the_kernel_inside():
    if not os.path.exists(ARM64_NET_LOADER):
        raise unittest.SkipTest("no arm64 network loader at %s: make ARCH=arm64"
                                % ARM64_NET_LOADER)
    words = "memboot.init=serial memboot.dump_bootinfo"
    with tempfile.TemporaryDirectory(prefix="memboot-tftp-") as tmp:
        proc = subprocess.run([MEMBOOT, "netboot", tmp, "--arch", "arm64", "--append",
                               "memboot.init=deferred", "--mac", QEMU_DEFAULT_MAC + "=" + words],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        argv = mbboot.run_argv(arch="arm64", mem_per_node="512M", timeout=120)
        b = mbboot.boot(argv + ["--netboot", tmp], timeout=120, strict=True, cwd=ROOT,
                        boot_class=Boot)
    b.expect_ok()
    rec = b.one("boot")
    assert rec["boot_path"] == "efi" and rec["loader"].startswith("memboot-efi "), rec
    # The machine's own words (its MAC's line of grub.cfg), through GRUB's
    # chainloader and the loader's load options; nothing came from fw_cfg.
    assert rec["cmdline"] == words, rec
    assert all(r["policy"] == "serial" for r in b.all("node_init")), b.all("node_init")
    flags = handoff_header(b)["flags"]
    assert flags & HANDOFF_F_KERNEL_INSIDE and flags & HANDOFF_F_CMDLINE_OPTIONS, flags
    assert not flags & HANDOFF_F_CMDLINE_FILE, flags
    check_census(b)


def test_netboot_arm64_loader_refuses_a_damaged_kernel_inside():
    # The tree's loader after netboot checked it: its head now says 8 bytes
    # more than lie before the tail (a cut or altered file on the server).
    if not os.path.exists(ARM64_NET_LOADER):
        raise unittest.SkipTest("no arm64 network loader at %s: make ARCH=arm64"
                                % ARM64_NET_LOADER)
    with tempfile.TemporaryDirectory(prefix="memboot-tftp-") as tmp:
        proc = subprocess.run([MEMBOOT, "netboot", tmp, "--arch", "arm64"], cwd=ROOT,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        path = os.path.join(tmp, "boot", "memboot", netboot.NET_LOADER_NAME)
        with open(path, "rb") as f:
            data = bytearray(f.read())
        start, size = netboot.embedded_kernel(bytes(data))
        struct.pack_into("<Q", data, start - 16, size + 8)
        with open(path, "wb") as f:
            f.write(data)
        argv = mbboot.run_argv(arch="arm64", mem_per_node="512M", timeout=120)
        b = mbboot.boot(argv + ["--netboot", tmp], timeout=120, cwd=ROOT, boot_class=Boot)
    done = b.one("done")
    assert done["status"] == 3 and not done["ok"], done
    assert done["reason"] == ("loader: the kernel inside this loader should be %d bytes but "
                              "%d bytes lie before its tail; the image is damaged"
                              % (size + 8, size)), done
    assert b.all("boot") == [], b.all("boot")      # the kernel never ran
