"""arm64's console from the device tree: /chosen's stdout-path names the
UART QEMU virt's ttyAMA0 already drives (not added twice), and QEMU's own
tree given back with that node's reg moved onto the PL031 RTC (no PL011
answers there): refused with the reason, ttyAMA0 kept, done status 0.

About 3 s, one boot at a time, under TCG on a 2-core host.
"""
import struct
import tempfile

from test_arm64 import boot_arm64, check_census
from test_arm64_smp import _patched_tree

LINE = "dt: stdout-path /pl011@9000000: console UART at MMIO 0x%x"


def test_arm64_console_from_the_tree_stdout_path():
    b = boot_arm64(nodes=1, cpus_per_node=1, mem_per_node="512M")
    b.expect_ok()
    assert LINE % 0x9000000 in b.console, b.tail()
    assert "dt: stdout-path /pl011@9000000: the UART at MMIO 0x9000000 is a console already" \
        in b.console, b.tail()
    assert b.one("console")["serial"] == ["ttyAMA0"]
    # console= wins: the tree's UART is named, not added.
    b = boot_arm64(nodes=1, cpus_per_node=1, mem_per_node="512M", append="console=ttyAMA0")
    b.expect_ok()
    assert "dt: stdout-path /pl011@9000000: console= chose the consoles; this UART is not added" \
        in b.console, b.tail()


def test_arm64_tree_console_where_no_pl011_answers_is_refused():
    old = struct.pack(">IIII", 0, 0x9000000, 0, 0x1000)
    new = struct.pack(">IIII", 0, 0x9010000, 0, 0x1000)   # virt's PL031 RTC
    with tempfile.TemporaryDirectory() as tmp:
        b = boot_arm64(nodes=1, cpus_per_node=2, mem_per_node="512M",
                       qemu_args=["-dtb", _patched_tree(tmp, old, new)])
        done = b.expect_ok()
    assert done["status"] == 0, done
    assert LINE % 0x9010000 in b.console, b.tail()
    assert "dt: stdout-path /pl011@9000000: no PL011 answers at MMIO 0x9010000" in b.console, b.tail()
    assert b.one("console")["serial"] == ["ttyAMA0"]
    check_census(b)
