"""tools/memboot topo on the table sources a user has on a running Linux
machine: /sys/firmware/acpi/tables (files named by signature, no extension,
SSDT1 for a second SSDT) and `acpidump` text, and the line that names the
format it recognised.

The binary tables come from a captured QEMU acpidump (two nodes with a SLIT)
through acpixtract, renamed the way sysfs names them. Needs `make topo`
(build/host/memboot-topo, also built by `make host-tests`) and acpixtract.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO_ROOT, "tools", "memboot")
DUMP = os.path.join(REPO_ROOT, "tests", "host", "fixtures", "acpi", "q35-numa2-slit.acpidump")


TABLES_C = os.path.join(REPO_ROOT, "kernel", "firmware", "acpi", "tables.c")


def kernel_warning(ending):
    """A regex for the kernel's own warning about a table, taken from the
    format string in kernel/firmware/acpi/tables.c that contains @ending."""
    with open(TABLES_C) as f:
        text = f.read()
    formats = [f for f in re.findall(r'"(ACPI: %s 0x%016llX \(%s\): [^"]*)"', text)
               if ending in f]
    assert len(formats) == 1, formats
    pattern = re.escape(formats[0])
    for conv, rx in (("%016llX", "[0-9A-F]{16}"), ("%02X", "[0-9A-F]{2}"),
                     ("%X", "[0-9A-F]+"), ("%u", "[0-9]+"), ("%s", "[^ ]+")):
        pattern = pattern.replace(re.escape(conv), rx)
    return pattern


def corrupt(path, offset=-1):
    """Change one byte: the table's checksum no longer holds."""
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        data[offset] ^= 0x5a
        f.seek(0)
        f.write(data)


def topo(source, json_only=False):
    argv = [TOOL, "topo"] + (["--json"] if json_only else []) + [source]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60)


class TopoSources(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="memboot-topo-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.assertTrue(shutil.which("acpixtract"), "acpixtract missing (acpica-tools)")
        xdir = os.path.join(self.tmp, "x")
        os.mkdir(xdir)
        proc = subprocess.run(["acpixtract", "-a", DUMP], cwd=xdir, capture_output=True,
                              text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        # The layout of /sys/firmware/acpi/tables: SIGNATURE files, no RSDP,
        # plus the data/ and dynamic/ folders the tool must pass over.
        self.sysfs = os.path.join(self.tmp, "tables")
        os.makedirs(os.path.join(self.sysfs, "data"))
        os.makedirs(os.path.join(self.sysfs, "dynamic"))
        for name in os.listdir(xdir):
            sig = name[:-4].upper()
            if sig in ("RSDP", "RSDT", "XSDT"):
                continue
            shutil.copyfile(os.path.join(xdir, name), os.path.join(self.sysfs, sig))
        # A second DSDT-like table under the numbered name sysfs gives it.
        shutil.copyfile(os.path.join(self.sysfs, "WAET"), os.path.join(self.sysfs, "WAET1"))

    def records(self, out):
        return [json.loads(line) for line in out.splitlines() if line.startswith("{")]

    def test_sysfs_directory_gives_the_two_node_topology(self):
        proc = topo(self.sysfs)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("format: ACPI tables by signature (/sys/firmware/acpi/tables)",
                      proc.stdout)
        proc = topo(self.sysfs, json_only=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        recs = self.records(proc.stdout)
        numa = [r for r in recs if r["event"] == "numa"]
        self.assertEqual(len(numa), 1, proc.stdout)
        self.assertEqual((numa[0]["nodes"], numa[0]["source"], numa[0]["slit"]),
                         (2, "srat", True))
        nodes = [r for r in recs if r["event"] == "node"]
        self.assertEqual([n["distance"] for n in nodes], [[10, 21], [21, 10]])

    def test_sysfs_gives_what_the_acpidump_text_gives(self):
        a = topo(self.sysfs, json_only=True)
        b = topo(DUMP, json_only=True)
        self.assertEqual((a.returncode, b.returncode), (0, 0), a.stderr + b.stderr)
        self.assertEqual(self.records(a.stdout), self.records(b.stdout))
        self.assertIn("format: acpidump text", b.stderr)

    def test_file_whose_signature_is_not_its_name_is_skipped(self):
        os.rename(os.path.join(self.sysfs, "APIC"), os.path.join(self.sysfs, "SRAT1"))
        proc = topo(self.sysfs)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("signature 'APIC' does not match its name", proc.stderr)
        self.assertIn("no usable MADT", proc.stderr)

    def test_bad_checksum_is_skipped_as_the_kernel_skips_it(self):
        corrupt(os.path.join(self.sysfs, "SLIT"))
        proc = topo(self.sysfs)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("anyway", proc.stderr)
        warning = kernel_warning("bad checksum (sum 0x%02X over 0x%X bytes); skipped")
        m = re.search(warning, proc.stderr)
        self.assertTrue(m, proc.stderr)
        self.assertTrue(m.group(0).startswith("ACPI: SLIT 0x0000000000000000 (SLIT): "
                                              "bad checksum"), m.group(0))
        # Without its SLIT the kernel takes the default distances.
        recs = self.records(topo(self.sysfs, json_only=True).stdout)
        numa = [r for r in recs if r["event"] == "numa"]
        self.assertEqual((numa[0]["nodes"], numa[0]["slit"]), (2, False))
        self.assertEqual([r["distance"] for r in recs if r["event"] == "node"],
                         [[10, 20], [20, 10]])

    def test_bad_checksum_in_acpidump_text_names_the_address(self):
        with open(DUMP) as f:
            text = f.read()
        # The first dump line of the APIC table: its first byte 'A' (41)
        # becomes 'B' (42): the sum is off by one.
        head = re.search(r"^APIC @ 0x([0-9a-fA-F]+)\n\s*0000: 41", text, re.M)
        self.assertTrue(head)
        bad = text[:head.end() - 2] + "42" + text[head.end():]
        path = os.path.join(self.tmp, "bad.acpidump")
        with open(path, "w") as f:
            f.write(bad)
        proc = topo(path)
        self.assertEqual(proc.returncode, 1)
        self.assertRegex(proc.stderr, "ACPI: APIC 0x%016X \\(acpidump\\): bad checksum "
                         % int(head.group(1), 16))

    def test_bad_madt_checksum_means_no_madt(self):
        corrupt(os.path.join(self.sysfs, "APIC"), offset=40)
        proc = topo(self.sysfs)
        self.assertEqual(proc.returncode, 1)
        self.assertRegex(proc.stderr, r"ACPI: APIC 0x0+ \(APIC\): bad checksum \(sum 0x[0-9A-F]{2}"
                                      r" over 0x[0-9A-F]+ bytes\); skipped")
        self.assertIn("no usable MADT", proc.stderr)

    def test_symlink_loop_is_named(self):
        os.remove(os.path.join(self.sysfs, "SRAT"))
        os.symlink("SRAT", os.path.join(self.sysfs, "SRAT"))
        proc = topo(self.sysfs)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("cannot read %s: Too many levels of symbolic links"
                      % os.path.join(self.sysfs, "SRAT"), proc.stderr)
        self.assertIn("1 table file of %s could not be read" % self.sysfs, proc.stderr)
        self.assertNotIn("no usable MADT", proc.stderr)
        self.assertNotIn("node 0", proc.stdout)

    def test_folder_without_tables_says_none_recognised(self):
        empty = os.path.join(self.tmp, "empty")
        os.mkdir(empty)
        with open(os.path.join(empty, "notes.txt"), "w") as f:
            f.write("APIC\n")
        proc = topo(empty)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("format: none recognised", proc.stdout)

    def test_apic_mode_of_the_tables(self):
        # QEMU's two-node tables: 8-bit IDs, xAPIC.
        proc = topo(self.sysfs, json_only=True)
        apic = [r for r in self.records(proc.stdout) if r["event"] == "apic"]
        self.assertEqual([(a["mode"], a["madt_x2apic"]) for a in apic], [("xapic", False)])
        # A MADT with x2APIC processors 0x100 and 0x101: x2APIC.
        madt = os.path.join(REPO_ROOT, "tests", "fuzz", "seeds", "fuzz_acpi_madt",
                            "x2apic-online-capable")
        big = os.path.join(self.tmp, "big")
        os.mkdir(big)
        shutil.copyfile(madt, os.path.join(big, "APIC"))
        proc = topo(big, json_only=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        apic = [r for r in self.records(proc.stdout) if r["event"] == "apic"]
        self.assertEqual(apic, [{"event": "apic", "mode": "x2apic",
                                 "reason": "APIC IDs above 254", "madt_x2apic": True,
                                 "max_apic_id": 0x101}])

    def test_text_without_tables_says_none_recognised(self):
        path = os.path.join(self.tmp, "notes.txt")
        with open(path, "w") as f:
            f.write("nothing here\n")
        proc = topo(path)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("format: none recognised", proc.stdout)


DT_DIR = os.path.join(REPO_ROOT, "tests", "host", "fixtures", "dt")
ARM_DUMP = os.path.join(REPO_ROOT, "tests", "host", "fixtures", "acpi",
                        "virt-aavmf-numa2.acpidump")


def json_records(text):
    """The records, with --json or after the console's "MEMBOOT " prefix."""
    return [json.loads(line[line.index("{"):]) for line in text.splitlines()
            if line.startswith("{") or line.startswith("MEMBOOT {")]


class TopoOtherArchitectures(unittest.TestCase):
    """The sources of arm64 boards and POWER machines: a flattened device
    tree (Linux's /sys/firmware/fdt, a .dtb, QEMU's dumpdtb=), read by the
    kernel's own device-tree parser and mm/numa_dt.c; and an arm64 server's
    ACPI tables (GICC entries), which have no APIC to choose a mode for."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="memboot-topo-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def numa(self, proc):
        self.assertEqual(proc.returncode, 0, proc.stderr)
        recs = json_records(proc.stdout)
        numa = [r for r in recs if r["event"] == "numa"]
        self.assertEqual(len(numa), 1, proc.stdout)
        nodes = [r for r in recs if r["event"] == "node"]
        return numa[0], nodes, recs

    def test_arm64_board_tree(self):
        proc = topo(os.path.join(DT_DIR, "virt-4n.dtb"), json_only=True)
        numa, nodes, recs = self.numa(proc)
        self.assertIn("format: flattened device tree (version 17", proc.stderr)
        self.assertEqual((numa["source"], numa["nodes"], numa["cpus"]), ("dt", 4, 8))
        self.assertEqual(numa["mem_bytes"], 4 << 30)
        self.assertEqual([n["distance"] for n in nodes],
                         [[10, 20, 30, 40], [20, 10, 20, 30], [30, 20, 10, 20],
                          [40, 30, 20, 10]])
        self.assertEqual([n["mem"] for n in nodes],
                         [[["0x%x" % (0x40000000 * (i + 1)), "0x%x" % (0x40000000 * (i + 2))]]
                          for i in range(4)])
        # No x86 decision for a machine without an APIC.
        self.assertFalse([r for r in recs if r["event"] == "apic"])

    def test_power_trees(self):
        # pseries: FORM1 associativity, distances doubled per level (40).
        numa, nodes, _ = self.numa(topo(os.path.join(DT_DIR, "pseries-2n.dtb"),
                                        json_only=True))
        self.assertEqual((numa["source"], numa["nodes"], numa["cpus"]), ("dt", 2, 4))
        self.assertEqual([n["distance"] for n in nodes], [[10, 40], [40, 10]])
        # PowerNV: a node per chip (ibm,chip-id), the CPUs on their chip.
        numa, nodes, _ = self.numa(topo(os.path.join(DT_DIR, "powernv10-2chips.dtb"),
                                        json_only=True))
        self.assertEqual((numa["nodes"], numa["cpus"]), (2, 4))
        self.assertEqual([len(n["cpus"]) for n in nodes], [2, 2])
        self.assertEqual([n["mem_bytes"] for n in nodes], [1 << 30, 1 << 30])

    def test_copy_of_sys_firmware_with_fdt_only(self):
        fw = os.path.join(self.tmp, "fw")
        os.mkdir(fw)
        shutil.copyfile(os.path.join(DT_DIR, "virt-4n.dtb"), os.path.join(fw, "fdt"))
        numa, _, _ = self.numa(topo(fw, json_only=True))
        self.assertEqual((numa["source"], numa["nodes"]), ("dt", 4))

    def test_truncated_tree_is_named(self):
        with open(os.path.join(DT_DIR, "virt-4n.dtb"), "rb") as f:
            data = f.read()
        cut = os.path.join(self.tmp, "cut.dtb")
        with open(cut, "wb") as f:
            f.write(data[:len(data) // 2])
        proc = topo(cut)
        self.assertEqual(proc.returncode, 1)
        self.assertRegex(proc.stderr, r"cut\.dtb: not a usable device tree \([a-z ]+")
        self.assertNotIn("Traceback", proc.stderr)
        self.assertNotIn('"event":"numa"', proc.stdout)

    def test_arm64_acpi_tables(self):
        # AAVMF's tables for 2 nodes x 2 CPUs: the CPUs by MPIDR from GICC
        # affinities, no apic record.
        proc = topo(ARM_DUMP)
        numa, nodes, recs = self.numa(proc)
        self.assertEqual((numa["source"], numa["nodes"], numa["cpus"]), ("srat", 2, 4))
        self.assertEqual([n["cpus"] for n in nodes], [[0, 1], [2, 3]])
        self.assertIn("SRAT: PXM 1 -> MPIDR 0x3 -> Node 1", proc.stdout)
        self.assertNotIn("-> APIC", proc.stdout)
        self.assertFalse([r for r in recs if r["event"] == "apic"])


if __name__ == "__main__":
    unittest.main()
