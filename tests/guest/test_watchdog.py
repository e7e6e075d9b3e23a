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
"""
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


def test_a_hung_selftest_is_ended_and_named():
    b = boot(cpus_per_node=2, timeout=120,
             append="memboot.selftest=alloc memboot.fault=alloc-loop "
                    "memboot.selftest_deadline_ms=3000 memboot.watchdog=off")
    selftest_failed = [v for v, name in facts.EXIT_STATUS.items() if name == "self-test failed"]
    done = b.expect_status(selftest_failed[0])
    t = b.one("selftest")
    assert t["name"] == "alloc" and t["ok"] is False and t["hung"] is True, t
    assert t["deadline_ms"] == 3000, t
    assert done["reason"] == "self-test alloc did not finish within 3000 ms", done
    assert not b.all("alloc_test"), b.tail()
