"""SMP bring-up and the parallel job runner, on several topologies.
Correctness only: no test asserts a speedup (the host has 2 cores)."""
from guest import boot, records


def _smp(b):
    return b.one("smp")


def test_four_cpus_one_node_all_online():
    b = boot(cpus_per_node=4)
    b.expect_ok()
    smp = _smp(b)
    assert smp["cpus"] == 4 and smp["failed"] == 0 and smp["skipped"] == 0, smp
    assert records.cpu_list(smp["online"]) == [0, 1, 2, 3]
    # QEMU's CPU has the hypervisor bit: no 10 ms INIT wait, whatever family
    # TCG's "max" model reports (AMD family 6 would keep it on metal).
    assert smp["init_delay"] is False, smp
    # Every AP checked against the boot CPU, in at least one wave and at
    # most one wave an AP.
    assert 1 <= smp["tsc_sync_waves"] <= 3, smp
    checked = sum(t["checked"] for t in b.all("tsc_sync"))
    assert checked == 3, b.all("tsc_sync")


def test_apic_id_gaps_six_cpus():
    # -smp 6,sockets=2,cores=3 numbers APIC IDs 0,1,2,4,5,6.
    b = boot(qemu_args=["-m", "1G", "-smp", "6,sockets=2,cores=3"])
    b.expect_ok()
    smp = _smp(b)
    assert smp["cpus"] == 6 and smp["failed"] == 0, smp


def test_eight_cpus_two_nodes_job_selftest():
    b = boot(nodes=2, cpus_per_node=4, mem_per_node="512M",
             append="memboot.selftest=jobs")
    b.expect_ok()
    assert _smp(b)["cpus"] == 8
    jobs = b.all("job")
    assert len(jobs) >= 6, jobs
    assert all(j["bad_units"] == 0 for j in jobs), jobs
    # Every job ran with more than one thread once the range allowed it.
    assert any(j["threads"] > 1 for j in jobs if j["size"] >= 4096)
    assert b.one("selftest") == {"event": "selftest", "name": "jobs", "ok": True}


def test_maxcpus_and_nosmp_leave_cpus_down():
    b = boot(cpus_per_node=4, append="maxcpus=2")
    b.expect_ok()
    smp = _smp(b)
    assert (smp["cpus"], smp["skipped"], records.cpu_list(smp["online"])) == (2, 2, [0, 1]), smp
    b = boot(cpus_per_node=4, append="nosmp memboot.selftest=jobs")
    b.expect_ok()
    smp = _smp(b)
    assert (smp["cpus"], smp["skipped"]) == (1, 3), smp
    assert all(j["threads"] == 1 and j["bad_units"] == 0 for j in b.all("job"))


def test_cpu_that_never_answers_is_left_out():
    # APIC 2 is never sent its SIPIs: after the timeout it is reported by
    # APIC ID and the boot goes on with the other three.
    b = boot(cpus_per_node=4,
             append="memboot.smp_skip_apic=2 memboot.smp_timeout_ms=500 memboot.selftest=jobs")
    done = b.expect_ok()
    smp = _smp(b)
    assert (smp["cpus"], smp["failed"], records.cpu_list(smp["online"])) == (3, 1, [0, 1, 3]), smp
    assert "(APIC 0x2) did not answer within 500 ms" in b.console
    assert done["errors"] == 1, done
    assert all(j["bad_units"] == 0 for j in b.all("job"))


def test_fault_on_an_application_processor_is_reported():
    # A fault on an AP, inside a job, ends in a clean report, not a hang.
    b = boot(cpus_per_node=2, append="memboot.fault=ap-ud")
    assert b.expect_status(2)["reason"].startswith("#UD")
    assert "on CPU 1" in b.console, b.tail()


def test_ap_stack_guard_page_is_unmapped():
    # Each AP's stack sits above an unmapped guard page: touching it faults
    # with CR2 just below the stack.
    b = boot(cpus_per_node=2, append="memboot.fault=ap-guard")
    assert b.expect_status(2)["reason"].startswith("#PF")
    import re
    m = re.search(r"reading its stack guard page at (0x[0-9a-f]+)", b.console)
    assert m, b.tail()
    assert f"(CR2) {m.group(1)}" in b.console, b.tail()
