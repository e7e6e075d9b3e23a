"""Options of run, bench and bench-plot that contradicted each other or the
input they name, refused with exit 64 before any work (docs/tools.md):
an --vars file that is not a variable store (issue case 8), a preset with a
topology option, an empty preset, `bench --preset list`, bench-plot rows
that must all be skipped, and --replay with a self-test list that leaves
replay out (issue case 12). No QEMU is started: --dry-run, or refused first.

    python3 -m unittest tests/tools/test_run_conflicts.py -v
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO_ROOT, "tools", "memboot")
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
from mbtools import presets  # noqa: E402

OVMF_DIR = "/usr/share/OVMF"
OVMF_VARS = os.path.join(OVMF_DIR, "OVMF_VARS_4M.fd")
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith("MEMBOOT_")}
CLEAN_ENV["MEMBOOT_HOST_NOTES"] = "off"
TRACE = ("cc1-1 [000] .....   1.000001: mm_page_alloc: page=1 pfn=0x10 order=0 migratetype=0\n"
         "cc1-1 [000] .....   1.000002: mm_page_free: page=1 pfn=0x10 order=0\n")


def tool(*argv):
    return subprocess.run([sys.executable, TOOL] + list(argv), capture_output=True,
                          text=True, timeout=60, env=CLEAN_ENV)


class Conflicts(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="memboot-conflicts-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def write(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        return path

    def usage(self, r, *words):
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(r.returncode, 64, r.stdout + r.stderr)
        self.assertEqual(r.stdout, "")
        for w in words:
            self.assertIn(w, r.stderr)

    @unittest.skipUnless(os.path.isfile(OVMF_VARS), "no OVMF_VARS_4M.fd (ovmf package)")
    def test_vars_must_be_a_variable_store(self):
        with open(OVMF_VARS, "rb") as f:
            pristine = f.read()
        rand = self.write("random.fd", os.urandom(len(pristine)))
        self.usage(tool("run", "--boot", "efi", "--vars", rand, "--dry-run"),
                   "--vars %s is not an OVMF variable store: no firmware volume signature"
                   % rand)
        # A firmware volume header with one byte changed: its checksum.
        bad = bytearray(pristine)
        bad[44] ^= 1                # an attribute bit
        self.usage(tool("run", "--boot", "efi", "--vars", self.write("bad.fd", bytes(bad)),
                        "--dry-run"), "firmware volume header checksum")
        small = os.path.join(OVMF_DIR, "OVMF_VARS.fd")
        if os.path.isfile(small) and os.path.getsize(small) != len(pristine):
            with open(small, "rb") as f:
                other = self.write("other.fd", f.read())
            self.usage(tool("run", "--boot", "efi", "--vars", other, "--dry-run"),
                       "but this firmware's variable store (%s) has %d" % (OVMF_VARS,
                                                                           len(pristine)))
        good = self.write("good.fd", pristine)
        r = tool("run", "--boot", "efi", "--vars", good, "--dry-run")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("file=" + good, r.stdout)

    def test_preset_and_a_topology_option(self):
        for opt, value in (("--cpus-per-node", "1"), ("--nodes", "1"),
                           ("--mem-per-node", "1G")):
            self.usage(tool("run", "--preset", "seed004-small", opt, value, "--dry-run"),
                       "leave those out (%s given too)" % opt)
        r = tool("run", "--preset", "seed004-small", "--dry-run")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("-smp 32,sockets=16,cores=2", r.stdout)

    def test_empty_preset_is_unknown(self):
        self.usage(tool("run", "--preset", "", "--dry-run"), "unknown preset ''")
        self.usage(tool("bench", "--preset", "", "--dry-run"), "unknown preset ''")

    def test_bench_preset_list(self):
        r = tool("bench", "--preset", "list")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), presets.listing())
        self.assertEqual(r.stdout, tool("run", "--preset", "list").stdout)

    def test_bench_plot_with_every_row_skipped(self):
        path = self.write("b.json", json.dumps({"rows": [1, {"config": 3}, []]}))
        r = tool("bench-plot", path, "--text")
        self.usage(r, "rows[0]: not an object; skipped",
                   "all 3 rows have the wrong shape (each named above): nothing to plot")

    def test_replay_needs_the_replay_selftest(self):
        trace = self.write("t.trace", TRACE)
        self.usage(tool("run", "--replay", trace, "--append", "memboot.selftest=clock",
                        "--dry-run"),
                   "--append's memboot.selftest=clock does not run the replay self-test",
                   "(memboot.selftest=clock,replay)")
        self.usage(tool("run", "--replay", trace, "--append", "memboot.selftest=replay",
                        "--append", "memboot.selftest=list", "--dry-run"),
                   "prints the self-tests and runs none")
        for append in (["--append", "memboot.selftest=clock,replay"], []):
            r = tool("run", "--replay", trace, "--dry-run", *append)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("name=opt/memboot/replay", r.stdout)
        r = tool("run", "--replay", trace, "--dry-run", "--boot", "pvh")
        self.assertIn("-append memboot.selftest=replay", r.stdout)


if __name__ == "__main__":
    unittest.main()
