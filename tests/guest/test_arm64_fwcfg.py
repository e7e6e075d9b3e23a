"""arm64's fw_cfg device (the route of `run --append`) where the firmware
says it is: the device tree's "qemu,fw-cfg-mmio" node on the image path
(QEMU's own tree given back with that node moved: onto the PL031 RTC, where
no fw_cfg answers, and into RAM, which is refused), QEMU virt's fixed place
under UEFI with ACPI (asserted in test_arm64.py's UEFI boot).

About 4 s, one boot at a time, under TCG on a 2-core host.
"""
import struct
import tempfile

from test_arm64 import boot_arm64, check_census
from test_arm64_smp import _patched_tree

KEY = "memboot.smp_timeout_ms=20000"
FOUND = "fw_cfg: the device at MMIO 0x%x (the device tree's qemu,fw-cfg-mmio)"
# virt's fw-cfg@9020000: reg <0 0x9020000 0 0x18>.
REG = struct.pack(">IIII", 0, 0x9020000, 0, 0x18)


def test_arm64_fwcfg_from_the_tree():
    b = boot_arm64(nodes=1, cpus_per_node=1, mem_per_node="512M", append=KEY)
    b.expect_ok()
    assert FOUND % 0x9020000 in b.console, b.tail()
    assert KEY in b.one("boot")["cmdline"], b.one("boot")


def test_arm64_fwcfg_where_the_tree_moved_it_is_read_there():
    """The node moved onto the PL031 (0x9010000): looked for there, not at
    virt's fixed place, so --append's key is not found (read at 0x9020000
    it would be); moved into RAM: refused with the range, never written."""
    cases = [(0x9010000, "fw_cfg: no fw_cfg device answers at MMIO 0x9010000 "
                         "(the device tree's qemu,fw-cfg-mmio): not read"),
             (0x40000000, "fw_cfg: the device at MMIO 0x40000000 (the device tree's "
                          "qemu,fw-cfg-mmio) refused: 0x40000000 lies in usable memory")]
    for base, line in cases:
        with tempfile.TemporaryDirectory() as tmp:
            tree = _patched_tree(tmp, REG, struct.pack(">IIII", 0, base, 0, 0x18))
            b = boot_arm64(nodes=1, cpus_per_node=2, mem_per_node="512M", append=KEY,
                           qemu_args=["-dtb", tree])
            done = b.expect_ok()
        assert done["status"] == 0, done
        assert line in b.console, b.tail()
        assert "fw_cfg: the device at" not in b.console.replace(line, ""), b.tail()
        assert KEY not in b.one("boot")["cmdline"], b.one("boot")
        check_census(b)
