"""tools/memboot topo on a copy of /sys/firmware: the ACPI tables of
acpi/tables (here QEMU's for `-machine hmat=on` with two CPU nodes and two
memory-only nodes, the fixture q35-hmat-4nodes.acpidump written out as sysfs
names them) give the HMAT's figures and tiers as the kernel's `hmat` and
`node_perf` records, and dmi/tables (smbios_entry_point, DMI: the tables
tests/fuzz/make_seeds.py builds as QEMU lays them out) the `machine`,
`dimm` and `node_dimms` records. Needs `make topo`."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO_ROOT, "tools", "memboot")
DUMP = os.path.join(REPO_ROOT, "tests", "host", "fixtures", "acpi", "q35-hmat-4nodes.acpidump")
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "fuzz"))
import make_seeds  # noqa: E402


def write_sysfs_tables(dump, out):
    """Each table of acpidump text @dump as a file named by its signature."""
    os.makedirs(out)
    sig, data, seen = None, bytearray(), {}

    def flush():
        if sig and sig != "RSDP":
            n = seen.get(sig, 0)
            seen[sig] = n + 1
            with open(os.path.join(out, sig + (str(n) if n else "")), "wb") as f:
                f.write(bytes(data))
    for line in open(dump):
        m = re.match(r"^(\S{4}) @ 0x[0-9A-Fa-f]+$", line.strip())
        if m:
            flush()
            sig, data = m.group(1), bytearray()
            continue
        m = re.match(r"^\s+[0-9A-Fa-f]+: ((?:[0-9A-Fa-f]{2} )+)", line)
        if m and sig:
            data += bytes(int(b, 16) for b in m.group(1).split())
    flush()


def topo(source):
    return subprocess.run([TOOL, "topo", "--json", source], capture_output=True, text=True,
                          timeout=60)


class TopoFirmwareCopy(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="memboot-fw-")
        self.addCleanup(shutil.rmtree, self.tmp)
        write_sysfs_tables(DUMP, os.path.join(self.tmp, "acpi", "tables"))
        self.dmi = os.path.join(self.tmp, "dmi", "tables")
        os.makedirs(self.dmi)
        table = make_seeds.smbios_qemu_like(2 << 30, speed=3200)
        with open(os.path.join(self.dmi, "DMI"), "wb") as f:
            f.write(table)
        with open(os.path.join(self.dmi, "smbios_entry_point"), "wb") as f:
            f.write(make_seeds.smbios_ep3(len(table))[:24])

    def records(self, out):
        return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]

    def test_hmat_and_dmi_from_a_firmware_copy(self):
        out = topo(self.tmp)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("format: ACPI tables by signature", out.stderr)
        self.assertIn("format: SMBIOS 3.0 tables (/sys/firmware/dmi/tables)", out.stderr)
        recs = self.records(out)
        perf = {r["node"]: r for r in recs if r["event"] == "node_perf"}
        self.assertEqual([(perf[n]["tier"], perf[n]["init_node"], perf[n]["read_latency_ns"],
                           perf[n]["read_bandwidth_mbs"]) for n in range(4)],
                         [(4, 0, 10, 20000), (4, 1, 10, 20000), (72, 0, 40, 5000),
                          (72, 1, 40, 5000)])
        (h,) = [r for r in recs if r["event"] == "hmat"]
        self.assertEqual((h["figures"], h["tiers"], h["warnings"]), (16, 2, 0))
        (m,) = [r for r in recs if r["event"] == "machine"]
        self.assertEqual((m["sys_vendor"], m["product"], m["source"]), ("Acme", "Roadrunner", "sysfs"))
        (d,) = [r for r in recs if r["event"] == "dimm"]
        self.assertEqual((d["size_bytes"], d["speed_mts"], d["node"]), (2 << 30, 3200, -2))

    def test_unreadable_dmi_is_named(self):
        os.remove(os.path.join(self.dmi, "DMI"))
        out = topo(self.tmp)
        self.assertEqual(out.returncode, 1)
        self.assertIn("dmi/tables/DMI", out.stderr)
        self.assertNotIn("Traceback", out.stderr)

    def test_corrupt_dmi_is_a_warning(self):
        with open(os.path.join(self.dmi, "smbios_entry_point"), "r+b") as f:
            f.seek(7)
            f.write(b"\x09")                 # checksum no longer holds
        out = topo(self.tmp)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertFalse([r for r in self.records(out) if r["event"] == "machine"])
        plain = subprocess.run([TOOL, "topo", self.tmp], capture_output=True, text=True, timeout=60)
        self.assertEqual(plain.returncode, 0, plain.stderr)
        self.assertIn("DMI: 3.0 entry point: checksum does not sum to 0", plain.stdout + plain.stderr)
        self.assertTrue([r for r in self.records(out) if r["event"] == "node_perf"])

    def test_a_plain_tables_directory_still_works(self):
        out = topo(os.path.join(self.tmp, "acpi", "tables"))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertFalse([r for r in self.records(out) if r["event"] == "machine"])


if __name__ == "__main__":
    unittest.main()
