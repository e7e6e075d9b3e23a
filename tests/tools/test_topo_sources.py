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
import shutil
import subprocess
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO_ROOT, "tools", "memboot")
DUMP = os.path.join(REPO_ROOT, "tests", "host", "fixtures", "acpi", "q35-numa2-slit.acpidump")


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


if __name__ == "__main__":
    unittest.main()
