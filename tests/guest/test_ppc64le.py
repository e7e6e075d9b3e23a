"""64-bit little-endian POWER under QEMU pseries (-cpu power9) with its
Open Firmware, VOF: the kernel ELF through QEMU -kernel, the firmware's
tree read through the client interface and flattened before the kernel
starts (`--arch ppc64le`, `--boot vof`, docs/boot-paths.md). Every CPU is
started through RTAS start-cpu (wake-ups polled), RTAS being instantiated
through the client interface and entered at its entry (the hypervisor
call only as the fallback), the radix MMU maps all
RAM, each node's memory is initialised by its own CPUs. pseries has no exit device: the runner takes the status from the
done record after the kernel powers off through RTAS.

About a second a boot under TCG with VOF, 10-20 s with SLOF. The ELF is
build/ppc64le/debug/memboot.elf (`make ARCH=ppc64le`), or $MEMBOOT_IMAGE.
"""
import os
import re
import subprocess
import sys
import unittest

from guest import MEMBOOT, ROOT, Boot, mbboot
from mbtools import records

GIB = 1 << 30
IMAGE = os.environ.get("MEMBOOT_IMAGE") or os.path.join(
    ROOT, "build", "ppc64le", "debug", "memboot.elf")


def boot_ppc64le(nodes=1, append="", qemu_args=(), timeout=60, cpus_per_node=1,
                 mem_per_node="1G"):
    if not os.path.exists(IMAGE):
        raise unittest.SkipTest("no ppc64le kernel at %s: make ARCH=ppc64le" % IMAGE)
    argv = mbboot.run_argv(arch="ppc64le", image=IMAGE, nodes=nodes,
                           cpus_per_node=cpus_per_node, mem_per_node=mem_per_node, append=append, timeout=timeout,
                           qemu_args=qemu_args)
    return mbboot.boot(argv, timeout=timeout, strict=False, cwd=ROOT, boot_class=Boot)


def check_census(b):
    censuses = b.all("census")
    # The boot's and the end's, and one after each self-test that asks.
    assert [c["when"] for c in censuses][::len(censuses) - 1] == ["boot", "end"], censuses
    for c in censuses:
        assert c["lost"] == 0 and c["bad"] == 0, c


def test_ppc64le_two_nodes_from_ibm_associativity():
    b = boot_ppc64le(nodes=2, append="memboot.exit=qemu")
    done = b.expect_ok()
    assert done["errors"] == 0 and done["warnings"] == 0, (done, b.all("warning"))
    assert "RTAS start-cpu (token 0x2006)" in b.console, b.tail()
    check_rtas_instantiated(b)
    boot = b.one("boot")
    assert boot["boot_path"] == "dt" and boot["map_source"] == "dt-memory", boot
    # The tree's timebase-frequency: 512 MHz on QEMU's pseries, given.
    assert boot["tsc_method"] == "timebase-frequency" and boot["tsc_hz"] == 512000000, boot
    # ... and nothing checks it: the record says so.
    assert boot["tsc_known"] == "given" and boot["tsc_checked"] is False, boot
    assert b.all("clock_check") == [], b.all("clock_check")
    # /chosen bootargs: --append arrives through the tree.
    assert "memboot.exit=qemu" in b.console, b.tail()
    ranges = b.all("mem_range")
    # The firmware's memory below the kernel (VOF, the vectors) reserved.
    assert ranges[0]["type"] == "reserved" and int(ranges[0]["start"], 16) == 0, ranges
    assert int(ranges[-1]["end"], 16) == 2 * GIB, ranges
    numa = b.one("numa")
    assert numa["source"] == "dt" and numa["nodes"] == 2, numa
    nodes = sorted(b.all("node"), key=lambda n: n["node"])
    assert [n["cpus"] for n in nodes] == [[0], [1]], nodes
    # Node 1's whole GiB at 1 GiB: beyond the real mode area, reached
    # through the radix map.
    assert nodes[1]["mem_bytes"] == GIB, nodes
    inits = sorted(b.all("node_init"), key=lambda r: r["node"])
    assert [r["node"] for r in inits] == [0, 1], inits
    assert all(r["pages"] > 0 for r in inits), inits
    check_census(b)


def check_rtas_instantiated(b):
    """RTAS instantiated through the client interface (instantiate-rtas) and
    entered at its entry: the record says so, the range is page aligned,
    below 4 GiB, holds rtas-size and is a reserved range of the map."""
    rtas = b.one("rtas")
    assert rtas["entry"] == "instantiated" and "reason" not in rtas, rtas
    assert "rtas: entered at its instantiated entry" in b.console, b.tail()
    base, bytes_ = int(rtas["base"], 16), rtas["bytes"]
    assert base % 4096 == 0 and bytes_ % 4096 == 0 and base + bytes_ <= 4 * GIB, rtas
    assert 0 < rtas["rtas_size"] <= bytes_, rtas
    assert int(rtas["entry_point"], 16) != 0, rtas
    assert any(r["type"] == "reserved" and int(r["start"], 16) <= base and
               base + bytes_ <= int(r["end"], 16) for r in b.all("mem_range")), b.all("mem_range")


def check_every_cpu_up(b, nodes, cpus_per_node):
    """Every CPU up, each node's memory initialised by its own CPUs, the
    census clean: the node_init records by node."""
    n = nodes * cpus_per_node
    smp = b.one("smp")
    assert (smp["cpus"], smp["failed"]) == (n, 0), smp
    assert records.cpu_list(smp["online"]) == list(range(n)), smp
    ups = b.all("cpu_up")
    assert sorted(c["cpu"] for c in ups) == list(range(n)), ups
    for node in range(nodes):
        assert sum(1 for c in ups if c["node"] == node) == cpus_per_node, ups
    inits = {r["node"]: r for r in b.all("node_init")}
    assert sorted(inits) == list(range(nodes)), inits
    for node, r in inits.items():
        # Offered the node's own CPUs (which of them took which chunk is
        # the host's timing: not asserted).
        assert r["cpu_node"] == node and r["cpus"] == cpus_per_node, r
        assert r["lost_cpus"] == 0 and r["pages"] > 0, r
    check_census(b)


def test_ppc64le_every_cpu_up_two_by_two():
    b = boot_ppc64le(nodes=2, cpus_per_node=2, mem_per_node="512M")
    done = b.expect_ok()
    assert done["errors"] == 0 and done["warnings"] == 0, (done, b.all("warning"))
    check_rtas_instantiated(b)
    check_every_cpu_up(b, 2, 2)


def test_ppc64le_rtas_by_hypervisor_call_when_asked():
    """memboot.rtas=hcall: RTAS entered by QEMU's KVMPPC_H_RTAS instead of
    the instantiated entry (the fallback where instantiation fails), named
    on the log and in the record; every CPU still comes up through
    start-cpu and power-off still ends the boot with its status. About 2 s."""
    b = boot_ppc64le(nodes=2, cpus_per_node=2, mem_per_node="512M",
                     append="memboot.rtas=hcall")
    done = b.expect_ok()
    assert done["errors"] == 0 and done["warnings"] == 0, (done, b.all("warning"))
    rtas = b.one("rtas")
    assert rtas["entry"] == "hcall" and rtas["reason"] == "memboot.rtas=hcall", rtas
    # Instantiated all the same: the range stays reserved, the entry unused.
    assert int(rtas["base"], 16) % 4096 == 0 and rtas["bytes"] >= rtas["rtas_size"], rtas
    assert ("rtas: entered by the hypervisor call KVMPPC_H_RTAS (memboot.rtas=hcall)"
            in b.console), b.tail()
    check_every_cpu_up(b, 2, 2)


def test_ppc64le_every_cpu_up_four_by_four_and_jobs_on_polled_cpus():
    """4 x 4: all 16 started through RTAS; the job self-test's jobs run on
    more than one CPU (idle CPUs poll their mailboxes)."""
    b = boot_ppc64le(nodes=4, cpus_per_node=4, timeout=120,
                     append="memboot.selftest=jobs")
    done = b.expect_ok()
    assert done["errors"] == 0 and done["warnings"] == 0, (done, b.all("warning"))
    check_every_cpu_up(b, 4, 4)
    jobs = b.all("job")
    assert jobs and all(j["bad_units"] == 0 for j in jobs), jobs
    assert any(j["threads"] > 1 for j in jobs if j["size"] >= 4096), jobs
    assert b.one("selftest") == {"event": "selftest", "name": "jobs", "ok": True}


def test_ppc64le_maxcpus_and_a_cpu_that_never_answers():
    """maxcpus=4 of 2 x 4 keeps two on each node; memboot.smp_skip_apic=2:
    PIR 2 is never started, named after the timeout, the boot goes on."""
    b = boot_ppc64le(nodes=2, cpus_per_node=4, mem_per_node="512M", append="maxcpus=4")
    b.expect_ok()
    smp = b.one("smp")
    assert (smp["cpus"], smp["skipped"]) == (4, 4), smp
    assert sorted(r["node"] for r in b.all("cpu_up")) == [0, 0, 1, 1], b.all("cpu_up")
    b = boot_ppc64le(nodes=2, cpus_per_node=2, mem_per_node="512M",
                     append="memboot.smp_skip_apic=2 memboot.smp_timeout_ms=300")
    done = b.expect_ok()
    smp = b.one("smp")
    assert (smp["cpus"], smp["failed"], records.cpu_list(smp["online"])) == (3, 1, [0, 1, 3]), smp
    assert "(PIR 0x2) did not answer within 300 ms" in b.console, b.tail()
    assert done["errors"] == 1, done
    check_census(b)


def test_ppc64le_faults_are_reported_with_the_vector():
    # The vectors (copied to address 0, entered big-endian and switched to
    # little-endian) report the interrupt and end the boot with status 2.
    cases = [("ud", "program: illegal instruction", None),
             ("pf", "data storage", "(DAR) 0x100000000000: kernel read")]
    for fault, what, detail in cases:
        b = boot_ppc64le(append="memboot.fault=" + fault)
        done = b.expect_status(2)
        assert what in done["reason"], (fault, done)
        # The trace walks r1's back chain up to kernel_main's caller.
        assert "Call Trace" in b.console and b.console.count("  [<0000000000") >= 3, b.tail()
        if detail:
            assert detail in b.console, (fault, b.tail())


def test_ppc64le_under_slof_every_cpu_up():
    """SLOF, pseries's default firmware, enters the ELF as VOF does (the
    same client interface), about 18 s later; 4 nodes x 4 CPUs: all 16
    started through RTAS start-cpu as under VOF, each
    node initialised by its own CPUs. About 25 s."""
    if not os.path.exists(IMAGE):
        raise unittest.SkipTest("no ppc64le kernel at %s: make ARCH=ppc64le" % IMAGE)
    argv = mbboot.run_argv(arch="ppc64le", image=IMAGE, boot_path="slof", nodes=4,
                           cpus_per_node=4, mem_per_node="1G", timeout=180)
    b = mbboot.boot(argv, timeout=180, strict=False, cwd=ROOT, boot_class=Boot)
    done = b.expect_ok()
    assert done["errors"] == 0 and done["warnings"] == 0, (done, b.all("warning"))
    assert "SLOF" in b.console, b.tail()
    numa = b.one("numa")
    assert numa["source"] == "dt" and numa["nodes"] == 4, numa
    check_rtas_instantiated(b)
    check_every_cpu_up(b, 4, 4)


def test_ppc64le_seed_004_table():
    """`bench --seed 004 --arch ppc64le --boots 1`: four boots (about 10 s),
    one thread against the node's CPUs on both pseries shapes; every node
    has a row with the CPUs it was offered and both times."""
    if not os.path.exists(IMAGE) or os.environ.get("MEMBOOT_IMAGE"):
        raise unittest.SkipTest("no ppc64le kernel at build/ppc64le/debug: make ARCH=ppc64le")
    r = subprocess.run([sys.executable, MEMBOOT, "bench", "--seed", "004", "--arch", "ppc64le",
                        "--boots", "1", "--no-build"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    rows = re.findall(r"^\| (2x4x1G|1x8x4G) \| (\d) \| (\d+) \| (\d+) \| ([\d.]+) \| ([\d.]+) \|",
                      r.stdout, re.M)
    assert [(t, n, c) for t, n, c, *_ in rows] == [
        ("2x4x1G", "0", "4"), ("2x4x1G", "1", "4"), ("1x8x4G", "0", "8")], r.stdout
    assert all(int(p) > 0 for *_, p, _, _ in rows), rows
    assert r.stdout.count("| kernel entry to done |") == 2, r.stdout
    assert "boots failed" not in r.stdout, r.stdout
