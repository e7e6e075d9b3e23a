"""arm64 under QEMU virt (GICv3, -cpu max): the flat Image through QEMU
-kernel with the device tree in x0 (`--arch arm64`, `--boot image`,
docs/boot-paths.md). Every CPU runs (PSCI CPU_ON, tests/guest/test_arm64_smp.py),
each node's memory is initialised by its own CPUs.

About a second a boot under TCG. The Image is build/arm64/debug/Image
(`make ARCH=arm64`; `make test` builds it), or $MEMBOOT_IMAGE.
"""
import json
import os
import re
import subprocess
import tempfile
import unittest

from guest import MEMBOOT, ROOT, Boot, facts, mbboot

GIB = 1 << 30
IMAGE = os.environ.get("MEMBOOT_IMAGE") or os.path.join(ROOT, "build", "arm64", "debug", "Image")
ESP = os.path.join(ROOT, "build", "arm64", "debug", "memboot-esp.img")
# AAVMF's variable flash (QEMU virt's second pflash): EFI_MEMORY_WC|RUNTIME
# MMIO in its memory map, not RAM.
AAVMF_FLASH = (0x04000000, 0x08000000)
# QEMU's distance matrix for four nodes in a line (-numa dist), the tree's
# /distance-map as QEMU writes it.
LINE_DISTANCES = [[10, 21, 31, 41], [21, 10, 21, 31], [31, 21, 10, 21], [41, 31, 21, 10]]


def boot_arm64(nodes=1, append="", qemu_args=(), timeout=60, cpus_per_node=1,
               mem_per_node="1G"):
    if not os.path.exists(IMAGE):
        raise unittest.SkipTest("no arm64 Image at %s: make ARCH=arm64" % IMAGE)
    argv = mbboot.run_argv(arch="arm64", image=IMAGE, nodes=nodes, cpus_per_node=cpus_per_node,
                           mem_per_node=mem_per_node, append=append, timeout=timeout,
                           qemu_args=qemu_args)
    return mbboot.boot(argv, timeout=timeout, strict=True, cwd=ROOT, boot_class=Boot)


def boot_arm64_efi(nodes=1, append="", qemu_args=(), timeout=120, cpus_per_node=1,
                   mem_per_node="256M", tool_args=()):
    """BOOTAA64.EFI from the ESP image under AAVMF (`--boot efi`): ACPI and
    SMBIOS 3.0 as QEMU virt installs them through fw_cfg. About 10 s a boot
    under TCG. tool_args: more options of memboot run (--vars FILE)."""
    if not os.path.exists(ESP):
        raise unittest.SkipTest("no arm64 ESP image at %s: make ARCH=arm64" % ESP)
    argv = mbboot.run_argv(arch="arm64", boot_path="efi", nodes=nodes,
                           cpus_per_node=cpus_per_node, mem_per_node=mem_per_node,
                           append=append, timeout=timeout, qemu_args=qemu_args)
    at = argv.index("--") if "--" in argv else len(argv)
    argv[at:at] = list(tool_args)
    return mbboot.boot(argv, timeout=timeout, strict=True, cwd=ROOT, boot_class=Boot)


def check_census(b):
    for c in b.all("census"):
        assert c["lost"] == 0 and c["bad"] == 0, c


def test_arm64_boots_to_done_from_the_device_tree():
    b = boot_arm64()
    done = b.expect_ok()
    # No ACPI is no fault where a device tree describes the machine.
    assert done["warnings"] == 0 and done["errors"] == 0, (done, b.all("warning"))
    boot = b.one("boot")
    assert boot["boot_path"] == "dt" and boot["map_source"] == "dt-memory", boot
    # CNTFRQ_EL0: 1 GHz on QEMU 10's virt, given (not measured).
    assert boot["tsc_method"] == "cntfrq" and boot["tsc_hz"] == 1000000000, boot
    # ... and nothing checks it: the record says so, and no clock_check
    # claims a measurement.
    assert boot["tsc_known"] == "given" and boot["tsc_checked"] is False, boot
    assert b.all("clock_check") == [], b.all("clock_check")
    usable = [r for r in b.all("mem_range") if r["type"] == "usable"]
    # The 1 GiB at 0x40000000 less the tree QEMU puts 128 MiB in (reserved).
    assert int(usable[0]["start"], 16) == 0x40000000, usable
    assert int(usable[-1]["end"], 16) == 0x80000000, usable
    assert any(r["type"] == "reserved" and int(r["start"], 16) <= 0x48000000 < int(r["end"], 16)
               for r in b.all("mem_range")), b.all("mem_range")
    assert b.one("numa")["source"] == "none"
    check_census(b)
    assert len(b.all("census")) == 2


def test_arm64_two_nodes_from_the_device_tree_each_initialised():
    b = boot_arm64(nodes=2)
    b.expect_ok()
    numa = b.one("numa")
    assert numa["source"] == "dt" and numa["nodes"] == 2 and numa["possible_cpus"] == 2, numa
    nodes = sorted(b.all("node"), key=lambda n: n["node"])
    for i, n in enumerate(nodes):
        # Node 0 loses the reserved tree; node 1 has its whole GiB.
        assert GIB - 256 * facts.PAGE_SIZE_BYTES * 1024 < n["mem_bytes"] <= GIB, n
        assert n["cpus"] == [i], n
    inits = sorted(b.all("node_init"), key=lambda r: r["node"])
    assert [r["node"] for r in inits] == [0, 1], inits
    assert all(r["pages"] > 0 for r in inits), inits
    # Both CPUs up (PSCI CPU_ON), nothing to warn about.
    assert b.one("smp")["cpus"] == 2 and b.one("smp")["failed"] == 0, b.one("smp")
    assert "not started" not in b.console, b.tail()
    assert b.one("done")["warnings"] == 0, b.all("warning")
    check_census(b)


def test_arm64_four_nodes_with_the_tree_distances():
    dist = []
    for i in range(4):
        for j in range(i + 1, 4):
            dist += ["-numa", "dist,src=%d,dst=%d,val=%d" % (i, j, LINE_DISTANCES[i][j])]
    b = boot_arm64(nodes=4, qemu_args=dist)
    b.expect_ok()
    assert b.one("numa")["nodes"] == 4
    rows = [n["distance"] for n in sorted(b.all("node"), key=lambda n: n["node"])]
    assert rows == LINE_DISTANCES, rows
    assert "node distances (device tree)" in b.console
    check_census(b)


def test_arm64_bad_command_line_keys():
    b = boot_arm64(append="bogus=1 memboot.clock_ms=abc")
    done = b.expect_ok()
    assert done["warnings"] >= 1 and done["errors"] == 1, done
    assert "unknown parameter 'bogus'" in b.console
    assert "bad value 'abc' for 'memboot.clock_ms'" in b.console


def test_arm64_faults_are_reported_with_the_syndrome():
    # fault name -> what the report says (ESR_EL1's class, FAR for aborts)
    cases = [("ud", "undefined instruction", None),
             ("pf", "data abort", "(FAR) 0x100000000000: kernel read, translation fault"),
             ("df", "data abort", "kernel write, translation fault"),
             ("write-text", "data abort", "kernel write, permission fault")]
    for fault, what, detail in cases:
        b = boot_arm64(append="memboot.fault=" + fault)
        done = b.expect_status(2)
        assert what in done["reason"], (fault, done)
        assert "Call Trace" in b.console and "ESR 0x" in b.console, b.tail()
        if detail:
            assert detail in b.console, (fault, b.tail())


def test_arm64_uefi_device_tree_board_two_nodes_from_the_tree():
    """A device-tree board's UEFI (AAVMF on virt with acpi=off, about 9 s
    under TCG): no ACPI, the firmware's tree from the EFI configuration
    table gives the nodes, PSCI and the GIC, while memory comes from the
    EFI map; the tree's bytes are reserved, census lost 0."""
    b = boot_arm64_efi(nodes=2, cpus_per_node=2, qemu_args=("-machine", "acpi=off"))
    done = b.expect_ok()
    assert done["warnings"] == 0 and done["errors"] == 0, (done, b.all("warning"))
    boot = b.one("boot")
    assert (boot["boot_path"], boot["map_source"], boot["rsdp"]) == ("efi", "efi-mmap", False), boot
    m = re.search(r"ACPI: no RSDP: the device tree at (0x[0-9a-f]+) \((\d+) bytes\)", b.console)
    assert m, b.tail()
    dtb, size = int(m.group(1), 16), int(m.group(2))
    assert any(r["type"] != "usable" and int(r["start"], 16) <= dtb
               and int(r["end"], 16) >= dtb + size for r in b.all("mem_range")), b.all("mem_range")
    numa = b.one("numa")
    assert (numa["source"], numa["nodes"], numa["cpus"]) == ("dt", 2, 4), numa
    smp = b.one("smp")
    assert (smp["cpus"], smp["failed"]) == (4, 0), smp
    for r in b.all("node_init"):
        assert r["cpu_node"] == r["node"] and r["cpus"] == 2 and r["lost_cpus"] == 0, r
    assert sorted(r["node"] for r in b.all("node_init")) == [0, 1]
    check_census(b)


def test_arm64_uefi_four_nodes_from_the_srat_flash_kept_out_results_kept():
    """BOOTAA64.EFI under AAVMF (about 12 s under TCG): the tables' 4 nodes,
    every CPU started by the FADT's PSCI conduit with the MADT's GIC, the
    firmware's flash out of RAM, census lost 0, fw_cfg at virt's fixed
    place (--append read), and the results kept in the variable store
    (runtime services' SetVariable works on arm64)."""
    with tempfile.TemporaryDirectory(prefix="memboot-vars-") as tmp:
        vars_file = os.path.join(tmp, "vars.fd")
        b = boot_arm64_efi(nodes=4, cpus_per_node=2, append="memboot.smp_timeout_ms=20000",
                           tool_args=["--vars", vars_file])
        done = b.expect_ok()
        kept = subprocess.run([MEMBOOT, "efivars", vars_file, "--json"], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
    boot = b.one("boot")
    assert boot["boot_path"] == "efi" and boot["map_source"] == "efi-mmap", boot
    # fw_cfg (--append's route) only in the DSDT's AML: virt's fixed place,
    # since the tables are QEMU's.
    assert "the ACPI tables' OEM ID is QEMU's \"BOCHS \": QEMU virt's fixed place, " \
        "MMIO 0x9020000" in b.console, b.tail()
    assert "fw_cfg: the device at MMIO 0x9020000 (QEMU virt's fixed place)" in b.console, b.tail()
    assert "memboot.smp_timeout_ms=20000" in boot["cmdline"], boot
    numa = b.one("numa")
    assert numa["source"] == "srat" and numa["nodes"] == 4 and numa["possible_cpus"] == 8, numa
    smp = b.one("smp")
    assert (smp["cpus"], smp["failed"], smp["nodes"]) == (8, 0, 4), smp
    ups = sorted(b.all("cpu_up"), key=lambda r: r["cpu"])
    assert [(r["cpu"], r["apic_id"], r["node"]) for r in ups] == \
        [(i, i, i // 2) for i in range(8)], ups
    ranges = b.all("mem_range")
    flash = [r for r in ranges if int(r["start"], 16) <= AAVMF_FLASH[0]
             and int(r["end"], 16) >= AAVMF_FLASH[1]]
    assert flash and flash[0]["type"] == "reserved", ranges
    assert not any(r["type"] == "usable" and int(r["start"], 16) < AAVMF_FLASH[1]
                   and int(r["end"], 16) > AAVMF_FLASH[0] for r in ranges), ranges
    nodes = sorted(b.all("node"), key=lambda n: n["node"])
    assert [n["node"] for n in nodes] == [0, 1, 2, 3], nodes
    for n in nodes[1:]:
        assert n["mem_bytes"] == 256 << 20, n
    check_census(b)
    assert kept.returncode == 0, kept.stderr
    records = [json.loads(line) for line in kept.stdout.splitlines()]
    assert records and records[-1] == done, (records[-1:], done)
