"""The boot's watchdogs (docs/spare-metal.md, "A hung boot").

- The machine's: on q35 memboot arms the ICH9's TCO timer; a boot hung on
  purpose (memboot.fault=hang: the boot CPU stops, interrupts off) is reset
  by it, GRUB boots its default entry again, and that boot's `watchdog`
  record says the watchdog ended the previous one. With memboot.watchdog=off
  the same hang is still hanging when the host gives up.
- The self-tests': an allocator whose order-10 allocation never returns
  (memboot.fault=alloc-loop) hangs the alloc self-test on every CPU; the
  boot's watch tick ends it at memboot.selftest_deadline_ms, names it, and
  the boot ends with status 4 and its `done` record.
- A watchdog the firmware describes in an ACPI WDAT (QEMU adds one with
  -acpitable: the q35 TCO's registers as WDAT instructions) is used before
  the chipset's own; an unusable WDAT is not replaced by it.
"""
import os
import struct
import tempfile

from guest import boot
from mbtools import facts


def test_tco_resets_a_hung_boot_into_the_default_entry():
    # QEMU resets the guest on the watchdog's reset instead of exiting
    # (tools/memboot passes -no-reboot): GRUB runs again, and its default
    # entry is memboot with the same line, which hangs again.
    b = boot(append="memboot.fault=hang memboot.watchdog=5", timeout=45,
             qemu_args=("-action", "reboot=reset"))
    b.expect_status(facts.EXIT_TIMEOUT)
    assert not b.all("done"), b.tail()
    boots, dogs = b.all("boot"), b.all("watchdog")
    assert len(boots) >= 2, "the hung boot was not reset\n" + b.tail()
    assert len(dogs) == len(boots) or len(dogs) == len(boots) - 1, b.tail()
    for d in dogs:
        assert d["device"] == "tco" and d["armed"] is True, d
        assert d["source"] == "memboot.watchdog", d
        assert d["seconds"] == 6 and d["hw_seconds"] == 6 and d["pets"] is False, d
        assert d["max_seconds"] == 1227, d
    # The first boot found it idle; every later one finds it fired.
    assert dogs[0]["fired_before"] is False, dogs[0]
    assert all(d["fired_before"] is True for d in dogs[1:]), dogs
    assert [r["cmdline"] for r in boots] == [boots[0]["cmdline"]] * len(boots)


def test_watchdog_off_leaves_a_hung_boot_hung():
    b = boot(append="memboot.fault=hang memboot.watchdog=off", timeout=30,
             qemu_args=("-action", "reboot=reset"))
    b.expect_status(facts.EXIT_TIMEOUT)
    assert len(b.all("boot")) == 1, b.tail()
    d = b.one("watchdog")
    assert d["device"] == "none" and d["armed"] is False, d
    assert d["reason"] == "memboot.watchdog=off: not looked for", d
    assert not b.all("done"), b.tail()


def _hung_selftest(cpus):
    b = boot(cpus_per_node=cpus, timeout=120,
             append="memboot.selftest=alloc memboot.fault=alloc-loop "
                    "memboot.selftest_deadline_ms=3000 memboot.watchdog=off")
    selftest_failed = [v for v, name in facts.EXIT_STATUS.items() if name == "self-test failed"]
    done = b.expect_status(selftest_failed[0])
    t = b.one("selftest")
    assert t["name"] == "alloc" and t["ok"] is False and t["hung"] is True, t
    assert t["deadline_ms"] == 3000, t
    assert done["reason"] == "self-test alloc did not finish within 3000 ms", done
    assert not b.all("alloc_test"), b.tail()


def test_a_hung_selftest_is_ended_and_named():
    # Every CPU loops in the allocator; the boot CPU among them.
    _hung_selftest(2)


def test_a_hung_selftest_on_one_cpu_is_ended_too():
    # No other CPU to watch it: the tick reaches the one CPU anyway.
    _hung_selftest(1)


def _wdat_body(entries, period_ms=600, min_count=4, max_count=1023):
    """WDAT bytes after the 36-byte header: the watchdog header (not a PCI
    device), then each (action, instruction, space, bit offset, access
    size, address, value, mask) as a 24-byte entry."""
    body = struct.pack("<IHBBB3xIIIB3xI", 32, 0xFFFF, 0xFF, 0xFF, 0xFF, period_ms,
                       max_count, min_count, 1, len(entries))
    for action, instr, space, bit, access, addr, value, mask in entries:
        body += struct.pack("<BB2xBBBBQII", action, instr, space, 8 << (access - 1), bit,
                            access, addr, value, mask)
    return body


# The q35 TCO as a WDAT describes it: the firmware's PM base 0x600 (TCO at
# 0x660), its root complex block at 0xfed1c000 (GCS at +0x3410). Count in
# TCO_TMR (0x672), reload by TCO_RLD (0x660), halt bit 11 of TCO1_CNT
# (0x668), reboot allowed by clearing GCS's NO_REBOOT (bit 5).
Q35_TCO_WDAT = [
    (0x11, 0x82, 0, 5, 3, 0xFED1F410, 0, 1),      # SET_REBOOT
    (0x06, 0x83, 1, 0, 2, 0x672, 0, 0x3FF),       # SET_COUNTDOWN_PERIOD
    (0x01, 0x02, 1, 0, 2, 0x660, 1, 0xFFFF),      # RESET
    (0x09, 0x82, 1, 11, 2, 0x668, 0, 1),          # SET_RUNNING_STATE
    (0x0B, 0x82, 1, 11, 2, 0x668, 1, 1),          # SET_STOPPED_STATE
]


def _boot_with_wdat(entries, append, timeout):
    with tempfile.TemporaryDirectory(prefix="memboot-wdat-") as tmp:
        path = os.path.join(tmp, "wdat.bin")
        with open(path, "wb") as f:
            f.write(_wdat_body(entries))
        return boot(append=append, timeout=timeout,
                    qemu_args=["-acpitable", "sig=WDAT,rev=1,data=" + path])


def test_wdat_watchdog_is_preferred_and_resets():
    # One count of 600 ms: memboot.watchdog=5 is 9 counts, 5 s as the
    # table tells it (the TCO itself counts it twice before the reset).
    b = _boot_with_wdat(Q35_TCO_WDAT, "memboot.fault=hang memboot.watchdog=5", 60)
    b.expect_status(facts.EXIT_NO_STATUS)
    d = b.one("watchdog")
    assert d["device"] == "wdat" and d["armed"] is True, d
    assert d["hw_seconds"] == 5 and d["max_seconds"] == 613, d
    assert "device_id" not in d, d


def test_unusable_wdat_is_not_replaced():
    # No SET_STOPPED_STATE: the table is refused, and the TCO it stands for
    # is not driven behind its back.
    b = _boot_with_wdat(Q35_TCO_WDAT[:4], "", 60)
    b.expect_ok()
    d = b.one("watchdog")
    assert d["device"] == "none" and d["armed"] is False, d
    assert d["reason"] == "the ACPI WDAT has no SET_STOPPED_STATE action", d
