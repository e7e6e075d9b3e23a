"""Bad input at the kernel's edges: a PVH command line longer than QEMU's
PVH option ROM holds, a serial speed the 16550's divisor latch cannot make,
the largest memboot.tsc_skew, and guests too small to boot. Each gets a
message naming the problem and the limit, and a safe fallback or a refusal
before any work."""
import os
import subprocess

from guest import ROOT, boot

MEMBOOT = os.path.join(ROOT, "tools", "memboot")


def test_long_pvh_command_line_is_cut_not_written_over_the_start_info():
    for n in (4200, 8000):
        b = boot(boot_path="pvh", append="memboot.exit=auto " + "x" * n)
        b.expect_ok()
        boot_rec = b.one("boot")
        assert boot_rec["cmdline_dropped"].startswith("xxxx"), boot_rec
        assert "cmdline: the PVH command line does not fit in" in b.console, b.tail()
        assert "QEMU's PVH option ROM holds 4096" in b.stderr, b.stderr


def test_baud_the_divisor_latch_cannot_hold_is_refused():
    b = boot(boot_path="pvh", append="console=ttyS0,1")
    done = b.expect_ok()
    assert done["errors"] == 1, done
    assert "16-bit latch" in b.console and "65535" in b.console, b.tail()
    assert "keeping the default" in b.console, b.tail()
    assert b.one("console")["serial"] == ["ttyS0"]
