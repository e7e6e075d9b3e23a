"""arm64's CPUs under QEMU virt (GICv3, -cpu max, the device tree in x0):
every CPU started through PSCI CPU_ON in parallel and woken by the GIC's
SGI (arch/arm64/smp.c, gic.c), each node's memory initialised by its own
CPUs, the start-up keys (maxcpus=, memboot.smp_skip_apic with an MPIDR), a
CPU lost in the middle of memory init (memboot.fault=ap-park), faults on a
started CPU, and QEMU's own tree given back changed (-dtb): no GICv3, a
wrong redistributor region, a CPU that CPU_ON refuses.

About 21 s in all, one boot at a time, under TCG on a 2-core host (the
128-vCPU boot 3 to 6 s).
"""
import os
import re
import struct
import subprocess
import tempfile

from guest import ROOT, mbboot, records
from mbtools import facts
from test_arm64 import IMAGE, boot_arm64, check_census

CPU_LOST = next(s for s, sym in facts.EXIT_SYMBOLS.items() if sym == "EXIT_CPU_LOST")


def mpidr(cpu):
    """QEMU virt's MPIDR affinity with a GICv3: Aff0 = index mod 16, Aff1 = index / 16."""
    return (cpu // 16) << 8 | cpu % 16


def check_every_cpu_up(b, nodes, per_node):
    n = nodes * per_node
    smp = b.one("smp")
    assert (smp["cpus"], smp["failed"], smp["nodes"]) == (n, 0, nodes), smp
    assert smp["bringup"] == "parallel", smp
    assert records.cpu_list(smp["online"]) == list(range(n)), smp
    ups = sorted(b.all("cpu_up"), key=lambda r: r["cpu"])
    assert [(r["cpu"], r["apic_id"], r["node"]) for r in ups] == \
        [(i, mpidr(i), i // per_node) for i in range(n)], ups
    inits = {r["node"]: r for r in b.all("node_init")}
    assert sorted(inits) == list(range(nodes)), inits
    check_census(b)
    return inits


def test_arm64_every_cpu_up_four_by_four_each_node_by_its_cpus():
    """4 nodes x 4 CPUs x 1 GiB: all 16 up; memboot.trace's chunks each on
    a CPU of the chunk's node, and the node's CPUs offered to it; the
    job self-test's jobs run on more than one CPU (the SGI wakes them)."""
    b = boot_arm64(nodes=4, cpus_per_node=4, timeout=120,
                   append="memboot.trace memboot.selftest=jobs")
    done = b.expect_ok()
    assert done["warnings"] == 0 and done["errors"] == 0, (done, b.all("warning"))
    inits = check_every_cpu_up(b, 4, 4)
    cpu_node = {c["cpu"]: c["node"] for c in b.all("cpu_up")}
    chunks = [c for c in b.all("chunk") if c.get("job") == "meminit"]
    assert chunks
    for c in chunks:
        assert cpu_node[c["cpu"]] == c["node"], c
    # Which of a node's CPUs took its chunks is the host's timing (one CPU
    # may take all seven 4 MiB chunks before the others wake): not asserted.
    for n, r in inits.items():
        assert 3 <= r["cpus"] <= 4 and r["lost_cpus"] == 0, r
    jobs = b.all("job")
    assert jobs and all(j["bad_units"] == 0 for j in jobs), jobs
    assert any(j["threads"] > 1 for j in jobs if j["size"] >= 4096), jobs
    assert b.one("selftest") == {"event": "selftest", "name": "jobs", "ok": True}


def test_arm64_128_cpus_in_four_nodes():
    """QEMU's virt puts 123 redistributors in its first region: CPUs 123
    and up are found in the second one, above 4 GiB."""
    b = boot_arm64(nodes=4, cpus_per_node=32, mem_per_node="256M", timeout=300)
    b.expect_ok()
    check_every_cpu_up(b, 4, 32)
    assert "2 redistributor regions" in b.console, b.tail()


def test_arm64_init_threads_one_against_all():
    b = boot_arm64(nodes=2, cpus_per_node=2, append="memboot.init_threads=1")
    b.expect_ok()
    inits = check_every_cpu_up(b, 2, 2)
    assert all(r["threads"] == 1 for r in inits.values()), inits
    b = boot_arm64(nodes=2, cpus_per_node=2, append="memboot.init_threads=all")
    b.expect_ok()
    inits = check_every_cpu_up(b, 2, 2)
    # As on x86_64 (test_meminit.py): every CPU offered to each node, one AP
    # possibly still busy with the clock check: 3 or 4.
    assert all(3 <= r["cpus"] <= 4 and 1 <= r["threads"] <= r["cpus"]
               for r in inits.values()), inits


def test_arm64_maxcpus_balanced_and_a_cpu_that_never_answers():
    """maxcpus=4 of 2 x 4 keeps two on each node; memboot.smp_skip_apic
    takes an MPIDR: that CPU is never sent CPU_ON, named after the
    timeout, and the boot goes on with the others."""
    b = boot_arm64(nodes=2, cpus_per_node=4, mem_per_node="512M", append="maxcpus=4")
    b.expect_ok()
    smp = b.one("smp")
    assert (smp["cpus"], smp["skipped"]) == (4, 4), smp
    assert sorted(r["node"] for r in b.all("cpu_up")) == [0, 0, 1, 1], b.all("cpu_up")
    b = boot_arm64(nodes=2, cpus_per_node=2, mem_per_node="512M",
                   append="memboot.smp_skip_apic=2 memboot.smp_timeout_ms=300")
    done = b.expect_ok()
    smp = b.one("smp")
    assert (smp["cpus"], smp["failed"], records.cpu_list(smp["online"])) == (3, 1, [0, 1, 3]), smp
    assert "(MPIDR 0x2) did not answer within 300 ms" in b.console, b.tail()
    assert done["errors"] == 1, done
    check_census(b)


def test_arm64_cpu_parked_during_meminit():
    """memboot.fault=ap-park: an AP stops for good in the middle of its
    chunk; the boot ends with status 6 (cpu lost), the CPU named, its chunk
    finished by others, the census clean."""
    b = boot_arm64(nodes=2, cpus_per_node=2, mem_per_node="512M", timeout=120,
                   append="memboot.fault=ap-park memboot.init_deadline_ms=300")
    done = b.expect_status(CPU_LOST)
    assert done["status"] == CPU_LOST == 6, done
    m = re.search(r"fault: CPU (\d+) stops answering in the middle of its meminit chunk", b.console)
    assert m and int(m.group(1)) != 0, b.tail()
    assert re.search(r"job meminit: CPU %s made no progress for \d+ ms" % m.group(1), b.console)
    check_census(b)


def test_arm64_fault_on_a_started_cpu_names_it():
    """An exception on CPU 1 (memboot.fault=ap-ud, ap-guard) is reported as
    CPU 1's, with a backtrace through that CPU's own stack; the guard page
    below its stack is unmapped (FAR the address read)."""
    b = boot_arm64(nodes=1, cpus_per_node=2, mem_per_node="512M", append="memboot.fault=ap-ud")
    assert b.expect_status(2)["reason"] == "undefined instruction"
    assert re.search(r"exception: .*undefined instruction .* on CPU 1(?!\d)", b.console), b.tail()
    trace = b.console.split("Call Trace", 1)[1].split("\n")[1:4]
    assert all("[<" in line for line in trace), trace
    b = boot_arm64(nodes=1, cpus_per_node=2, mem_per_node="512M", append="memboot.fault=ap-guard")
    assert b.expect_status(2)["reason"] == "data abort"
    m = re.search(r"reading its stack guard page at (0x[0-9a-f]+)", b.console)
    assert m, b.tail()
    assert "(FAR) %s: kernel read, translation fault" % m.group(1) in b.console, b.tail()
    assert re.search(r"exception: .*data abort .* on CPU 1(?!\d)", b.console), b.tail()


def _reg_of_cpu_1(blob):
    """A CPU node's reg = <1> in the structure block: FDT_PROP, length 4,
    the offset of "reg" in the strings block, the value."""
    off_strings, = struct.unpack(">I", blob[12:16])
    size_strings, = struct.unpack(">I", blob[32:36])
    strings = blob[off_strings:off_strings + size_strings]
    name = next(i for i in range(len(strings))
                if strings.startswith(b"reg\0", i) and (i == 0 or strings[i - 1] == 0))
    return struct.pack(">IIII", 3, 4, name, 1), struct.pack(">IIII", 3, 4, name, 5)


def _patched_tree(tmp, old, new):
    """QEMU's own tree for 1 node x 2 CPUs (-machine dumpdtb) with the
    bytes @old replaced by @new, the same length: given back with -dtb."""
    path = os.path.join(tmp, "virt.dtb")
    argv = mbboot.run_argv(arch="arm64", image=IMAGE, nodes=1, cpus_per_node=2,
                           mem_per_node="512M", qemu_args=["-machine", "dumpdtb=" + path])
    subprocess.run(argv, cwd=ROOT, capture_output=True, timeout=60)
    with open(path, "rb") as f:
        blob = f.read()
    if old is None:
        old, new = _reg_of_cpu_1(blob)
    assert blob.count(old) == 1 and len(old) == len(new), (old, blob.count(old))
    # Cut to the blocks' end (the dump is padded to 1 MiB, which QEMU's own
    # additions would push past what memboot reads of a tree).
    off_struct, off_strings = struct.unpack(">II", blob[8:16])
    size_strings, size_struct = struct.unpack(">II", blob[32:40])
    used = max(off_struct + size_struct, off_strings + size_strings)
    blob = blob[:4] + struct.pack(">I", used) + blob[8:used]
    bad = os.path.join(tmp, "bad.dtb")
    with open(bad, "wb") as f:
        f.write(blob.replace(old, new))
    return bad


def test_arm64_tree_without_a_gic_or_with_a_wrong_one_starts_one_cpu_named():
    """No GICv3 in the tree (its compatible changed), or a redistributor
    region of 4 GiB: CPU 1 stays down with the reason, the boot goes on.
    (QEMU rewrites /psci in any tree it is given: no case for it.)"""
    gicr = struct.pack(">IIII", 0, 0x80a0000, 0, 0xf60000)
    cases = [(b"arm,gic-v3\0", b"arm,gic-v9\0", "the firmware names no GICv3"),
             (gicr, struct.pack(">IIII", 0, 0x80a0000, 1, 0),
              "a GICv3 redistributor region is larger than 1 GiB")]
    for old, new, why in cases:
        with tempfile.TemporaryDirectory() as tmp:
            b = boot_arm64(nodes=1, cpus_per_node=2, mem_per_node="512M",
                           qemu_args=["-dtb", _patched_tree(tmp, old, new)])
            b.expect_ok()
        smp = b.one("smp")
        assert (smp["cpus"], smp["failed"]) == (1, 0), smp
        assert "MPIDR ID 0x1 is not started: %s" % why in b.console, b.tail()
        assert "smp: 1 CPU cannot be started: %s" % why in b.console, b.tail()
        check_census(b)


def test_arm64_cpu_the_firmware_refuses_is_named_not_waited_for():
    """The tree's second CPU renamed MPIDR 0x5, which QEMU does not have:
    CPU_ON answers INVALID_PARAMETERS, named with the MPIDR, and the CPU
    is left out at once (not after memboot.smp_timeout_ms)."""
    with tempfile.TemporaryDirectory() as tmp:
        b = boot_arm64(nodes=1, cpus_per_node=2, mem_per_node="512M",
                       append="memboot.smp_timeout_ms=20000",
                       qemu_args=["-dtb", _patched_tree(tmp, None, None)])
        done = b.expect_ok()
    assert "smp: PSCI CPU_ON for MPIDR 0x5 failed: INVALID_PARAMETERS (-2)" in b.console, b.tail()
    assert "smp: CPU 1 (MPIDR 0x5) was refused by the firmware; left out" in b.console, b.tail()
    assert "did not answer" not in b.console, b.tail()
    smp = b.one("smp")
    assert (smp["cpus"], smp["failed"]) == (1, 1), smp
    # The wait ended with the refusal, far before the 20 s timeout.
    assert smp["wait_ns"] < 5 * 10**9, smp
    assert done["errors"] == 2, done
    check_census(b)


def test_arm64_entered_at_el2_starts_every_cpu_at_el2_too():
    """virtualization=on: QEMU enters the kernel at EL2, its PSCI is SMC and
    starts each CPU at EL2; a started CPU drops to EL1 as the boot CPU does
    (without that it ran the kernel at EL2, where the wake SGI never reached
    it: memory init lost the CPU, status 5). Entered at EL2 the kernel takes
    itself for hardware: no fw_cfg command line, no semihosting exit."""
    b = boot_arm64(nodes=2, cpus_per_node=2, mem_per_node="512M",
                   qemu_args=["-machine", "virt,gic-version=3,virtualization=on"])
    b.expect_ok()
    assert "PSCI CPU_ON (0xc4000003) over SMC" in b.console, b.tail()
    inits = check_every_cpu_up(b, 2, 2)
    assert all(r["lost_cpus"] == 0 for r in inits.values()), inits
