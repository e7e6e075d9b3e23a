"""64-bit little-endian POWER as a PowerNV machine: QEMU powernv10 under
skiboot (OPAL), the kernel ELF through QEMU -kernel (`--arch ppc64le
--boot powernv`, docs/boot-paths.md). skiboot runs the ELF where it loaded
it; the entry copies it to its link address and takes the flattened tree
in r3 and OPAL's base and entry in r8 and r9. The console is OPAL's
CONSOLE_WRITE, every CPU is started by OPAL START_CPU, the kernel (the
hypervisor here) turns the radix MMU on through its own partition table,
one chip per node (ibm,chip-id). The boot ends with OPAL CEC_POWER_DOWN,
which exits QEMU; the runner takes the status from the done record.

4-15 s a boot under TCG on a shared 2-CPU host, skiboot's own start
included (about 2 s of guest time before the kernel); one boot for the
topology and one for a fault: 12-25 s in all. The ELF is
build/ppc64le/debug/memboot.elf (`make ARCH=ppc64le`), or $MEMBOOT_IMAGE.
"""
import os
import unittest

from guest import ROOT, Boot, mbboot
from mbtools import records

GIB = 1 << 30
IMAGE = os.environ.get("MEMBOOT_IMAGE") or os.path.join(
    ROOT, "build", "ppc64le", "debug", "memboot.elf")


def boot_powernv(nodes=1, cpus_per_node=1, append="", timeout=120):
    if not os.path.exists(IMAGE):
        raise unittest.SkipTest("no ppc64le kernel at %s: make ARCH=ppc64le" % IMAGE)
    argv = mbboot.run_argv(arch="ppc64le", boot_path="powernv", image=IMAGE, nodes=nodes,
                           cpus_per_node=cpus_per_node, mem_per_node="1G", append=append,
                           timeout=timeout)
    return mbboot.boot(argv, timeout=timeout, strict=False, cwd=ROOT, boot_class=Boot)


def test_powernv_two_chips_each_node_by_its_own_cpus():
    """2 chips x 2 CPUs: done 0 with no warning, the tree's chip-id NUMA,
    every CPU up through OPAL, each node initialised by its own CPUs,
    census lost 0, and the boot ends by powering QEMU off."""
    b = boot_powernv(nodes=2, cpus_per_node=2, append="memboot.selftest=jobs")
    done = b.expect_ok()
    assert done["errors"] == 0 and done["warnings"] == 0, (done, b.all("warning"))
    # skiboot's own line, then memboot's: the kernel came in through OPAL.
    assert "INIT: Starting kernel at 0x20001000" in b.console, b.tail()
    assert "smp: OPAL START_CPU" in b.console, b.tail()
    assert "OPAL: Shutdown request" in b.console, b.tail()
    boot = b.one("boot")
    assert boot["boot_path"] == "dt" and boot["map_source"] == "dt-memory", boot
    assert boot["tsc_method"] == "timebase-frequency" and boot["tsc_hz"] == 512000000, boot
    # /chosen bootargs: QEMU's -append through skiboot's tree.
    assert "memboot.selftest=jobs" in boot["cmdline"], boot
    # skiboot's own memory (at 768 MiB of chip 0) is reserved, not handed out.
    ranges = b.all("mem_range")
    assert any(r["type"] == "reserved" and int(r["start"], 16) == 0x30000000
               for r in ranges), ranges
    numa = b.one("numa")
    assert (numa["source"], numa["nodes"], numa["cpus"]) == ("dt", 2, 4), numa
    nodes = sorted(b.all("node"), key=lambda n: n["node"])
    # skiboot starts the kernel on whichever thread won its boot race, on
    # either chip: the boot CPU is CPU 0 and its chip node 0 (ids in order
    # of first appearance, the boot CPU first: docs/discovery.md), the other
    # chip's two CPUs are node 1's.
    assert sorted(n["pxm"] for n in nodes) == [0, 1], nodes
    assert 0 in nodes[0]["cpus"] and [len(n["cpus"]) for n in nodes] == [2, 2], nodes
    assert sorted(nodes[0]["cpus"] + nodes[1]["cpus"]) == [0, 1, 2, 3], nodes
    chip = {n["pxm"]: n for n in nodes}
    # Chip 1's memory starts at 1 GiB (QEMU splits -m between the chips).
    assert int(chip[0]["mem"][0][0], 16) == 0, nodes
    assert int(chip[1]["mem"][0][0], 16) >= GIB, nodes
    assert b.one("direct_map")["bytes_1g"] > 0, b.one("direct_map")
    smp = b.one("smp")
    assert (smp["cpus"], smp["failed"]) == (4, 0), smp
    assert records.cpu_list(smp["online"]) == [0, 1, 2, 3], smp
    inits = {r["node"]: r for r in b.all("node_init")}
    assert sorted(inits) == [0, 1], inits
    for node, r in inits.items():
        assert r["cpu_node"] == node and r["cpus"] == 2, r
        assert r["lost_cpus"] == 0 and r["pages"] > 0, r
    # Jobs ran on polled CPUs too.
    jobs = b.all("job")
    assert jobs and all(j["bad_units"] == 0 for j in jobs), jobs
    assert any(j["threads"] > 1 for j in jobs if j["size"] >= 4096), jobs
    censuses = b.all("census")
    assert [c["when"] for c in censuses][::len(censuses) - 1] == ["boot", "end"], censuses
    for c in censuses:
        assert c["lost"] == 0 and c["bad"] == 0, c


def test_powernv_illegal_instruction_is_reported_not_hung():
    """The kernel is the hypervisor: an illegal instruction arrives at the
    hypervisor's 0xe40 (HSRR0/HSRR1), reported with a trace, status 2."""
    b = boot_powernv(append="memboot.fault=ud", timeout=90)
    done = b.expect_status(2)
    assert "hypervisor emulation assistance" in done["reason"], done
    assert "Call Trace" in b.console and b.console.count("  [<0000000000") >= 3, b.tail()
