"""The local APIC mode. QEMU 7.2 under TCG gives at most 255 APIC IDs and no
x2APIC at all (`-cpu max,+x2apic` only warns), so a boot here checks the
decision's inputs and the fallback; with a QEMU or accelerator that has
x2APIC the same test checks that every CPU comes up in x2APIC mode. The
decision itself and the ICR encodings are host-tested
(tests/host/test_apic_mode.c)."""
from guest import boot, records


def test_auto_mode_with_small_ids():
    """Small IDs: xAPIC, except on a virtual CPU with x2APIC (QEMU 10's TCG
    `max`), which takes x2APIC; a physical-looking CPU is checked with
    -cpu max,-hypervisor."""
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="512M")
    b.expect_ok()
    apic = b.one("apic")
    assert (apic["max_apic_id"], apic["madt_x2apic"], apic["unreachable"]) == (3, False, 0), apic
    if apic["cpu_x2apic"] and apic["hypervisor"]:
        assert (apic["mode"], apic["reason"]) == ("x2apic", "a virtual CPU with x2APIC"), apic
    else:
        assert (apic["mode"], apic["reason"]) == ("xapic", "all APIC IDs fit xAPIC"), apic
    assert records.cpu_list(b.one("smp")["online"]) == [0, 1, 2, 3]
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="512M", cpu="max,-hypervisor")
    b.expect_ok()
    apic = b.one("apic")
    assert (apic["mode"], apic["reason"], apic["hypervisor"]) == \
        ("xapic", "all APIC IDs fit xAPIC", False), apic
    assert records.cpu_list(b.one("smp")["online"]) == [0, 1, 2, 3]


def test_x2apic_requested():
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="512M", cpu="max,+x2apic",
             append="memboot.apic=x2apic memboot.selftest=jobs")
    done = b.expect_ok()
    apic = b.one("apic")
    if apic["cpu_x2apic"]:
        # Every CPU started and woken (job IPIs) through 64-bit ICR writes.
        assert apic["mode"] == "x2apic", apic
    else:
        # No x2APIC in this CPU: refused with a warning, xAPIC instead.
        assert apic["mode"] == "xapic" and "no x2APIC" in apic["reason"], apic
        assert done["warnings"] >= 1, done
    assert records.cpu_list(b.one("smp")["online"]) == [0, 1, 2, 3]
    assert all(j["bad_units"] == 0 for j in b.all("job")), b.all("job")
    assert b.one("selftest")["ok"] is True
