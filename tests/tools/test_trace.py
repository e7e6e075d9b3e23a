"""tools/memboot trace and plot, and mbtools.hostclock, on a synthetic boot log."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO_ROOT, "tools", "memboot")
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
from mbtools import hostclock, plot, trace  # noqa: E402

# Two nodes of two CPUs; node 1's chunks all on CPU 3 (so 1 of 2 threads).
LOG = [
    "SeaBIOS noise",
    '[    0.001] x MEMBOOT {"event":"cpu_up","cpu":0,"node":0}',
    'MEMBOOT {"event":"cpu_up","cpu":1,"node":0}',
    'MEMBOOT {"event":"cpu_up","cpu":2,"node":1}',
    '@0.5 MEMBOOT {"event":"cpu_up","cpu":3,"node":1}',
    'MEMBOOT {"event":"phase","name":"early","start_ns":1000000,"ns":4000000}',
    'MEMBOOT {"event":"phase","name":"meminit","start_ns":10000000,"ns":9000000}',
    'MEMBOOT {"event":"chunk","node":0,"cpu":0,"start_pfn":0,"end_pfn":512,"start_ns":11000000,"ns":2000000}',
    'MEMBOOT {"event":"chunk","node":0,"cpu":1,"start_pfn":512,"end_pfn":1024,"start_ns":11000000,"ns":3000000}',
    'MEMBOOT {"event":"chunk","node":1,"cpu":3,"start_pfn":1024,"end_pfn":1536,"start_ns":11500000,"ns":1000000}',
    'MEMBOOT {"event":"chunk","node":1,"cpu":3,"start_pfn":1536,"end_pfn":2048,"start_ns":12600000,"ns":1000000}',
    'MEMBOOT {"event":"node_init","node":0,"policy":"deferred","threads":2,"cpus":2,"pages":1024,"start_ns":11000000,"end_ns":14000000,"early_ns":500000,"ns":3000000}',
    'MEMBOOT {"event":"node_init","node":1,"policy":"deferred","threads":1,"cpus":2,"pages":1024,"start_ns":11500000,"end_ns":13600000,"early_ns":0,"ns":2100000}',
    'MEMBOOT {"event":"hugetlb","node":1,"size_bytes":2097152,"start_ns":15000000,"ns":1000000,"allocated":8,"zeroed":true}',
    'MEMBOOT {"event":"broken"',
    'MEMBOOT {"event":"done","ok":true,"status":0,"total_ns":20000000}',
]


class TraceTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="memboot-trace-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.log = os.path.join(self.dir, "boot.log")
        with open(self.log, "w") as f:
            f.write("\n".join(LOG) + "\n")

    def test_read_records_skips_noise_and_broken_lines(self):
        recs = trace.read_records(self.log)
        self.assertEqual([r["event"] for r in recs][:4], ["cpu_up"] * 4)
        self.assertEqual(recs[-1]["event"], "done")
        self.assertEqual(len(recs), 14)

    def test_build_tracks_and_nesting(self):
        tr = trace.build(trace.read_records(self.log))
        names = {e["tid"]: e["args"]["name"] for e in tr["traceEvents"]
                 if e["name"] == "thread_name"}
        self.assertEqual(names, {0: "CPU 0 (node 0)", 1: "CPU 1 (node 0)",
                                 2: "CPU 2 (node 1)", 3: "CPU 3 (node 1)"})
        xs = [e for e in tr["traceEvents"] if e["ph"] == "X"]
        phases = [e for e in xs if e["cat"] == "phase"]
        self.assertEqual([(e["name"], e["tid"], e["ts"], e["dur"]) for e in phases],
                         [("early", 0, 1000.0, 4000.0), ("meminit", 0, 10000.0, 9000.0)])
        # node 1's job appears only on the CPU that did its chunks
        n1 = [e for e in xs if e["name"] == "node 1 init"]
        self.assertEqual([e["tid"] for e in n1], [3])
        n0 = sorted(e["tid"] for e in xs if e["name"] == "node 0 init")
        self.assertEqual(n0, [0, 1])
        early = [e for e in xs if e["name"] == "node 0 early"]
        self.assertEqual([(e["tid"], e["ts"], e["dur"]) for e in early], [(0, 10500.0, 500.0)])
        # every chunk nests in its node's slice on the same track
        for c in (e for e in xs if e["cat"] == "chunk"):
            node = c["args"]["node"]
            outer = [e for e in xs if e["name"] == f"node {node} init" and e["tid"] == c["tid"]]
            self.assertEqual(len(outer), 1, c)
            self.assertLessEqual(outer[0]["ts"], c["ts"])
            self.assertLessEqual(c["ts"] + c["dur"], outer[0]["ts"] + outer[0]["dur"])
        pool = [e for e in xs if e["cat"] == "hugetlb"]
        # No chunk of the pool's job: the pool is on the boot CPU (the
        # kernel's hugetlb record names no CPU).
        self.assertEqual([(e["name"], e["tid"]) for e in pool], [("hugetlb 2M n1", 0)])

    def test_cli_writes_json(self):
        out = os.path.join(self.dir, "trace.json")
        r = subprocess.run([sys.executable, TOOL, "trace", self.log, "-o", out],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("slices on 4 CPU tracks", r.stdout)
        with open(out) as f:
            tr = json.load(f)
        self.assertEqual(tr["displayTimeUnit"], "ms")
        self.assertEqual(sum(1 for e in tr["traceEvents"] if e["ph"] == "X"), 11)

    def test_cli_no_records(self):
        empty = os.path.join(self.dir, "empty.log")
        with open(empty, "w") as f:
            f.write("nothing here\n")
        r = subprocess.run([sys.executable, TOOL, "trace", empty, "-o",
                            os.path.join(self.dir, "t.json")], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no MEMBOOT records", r.stderr)

    def test_plot_png_and_svg(self):
        if plot.import_pyplot() is None:
            self.skipTest("python3-matplotlib is not installed")
        for ext, magic in (("png", b"\x89PNG"), ("svg", b"<?xml")):
            out = os.path.join(self.dir, "boot." + ext)
            r = subprocess.run([sys.executable, TOOL, "plot", self.log, "-o", out],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("2 nodes, 4 CPUs", r.stdout)
            with open(out, "rb") as f:
                self.assertTrue(f.read(8).startswith(magic))


class HostClockTest(unittest.TestCase):
    def test_conditions(self):
        with mock.patch.object(hostclock, "host_cpus", return_value=2), \
                mock.patch.object(hostclock, "load_average", return_value=0.1):
            self.assertEqual(hostclock.conditions(2), [])
            notes = hostclock.conditions(4)
            self.assertEqual(len(notes), 1)
            self.assertIn("4 vCPUs on 2 host CPUs", notes[0])
        with mock.patch.object(hostclock, "host_cpus", return_value=8), \
                mock.patch.object(hostclock, "load_average", return_value=7.0):
            notes = hostclock.conditions(4)
            self.assertEqual(len(notes), 1)
            self.assertIn("load average 7.00 on 8 CPUs", notes[0])
            self.assertEqual(hostclock.conditions(1), [])

    def test_host_tsc_hz_is_plausible(self):
        hz = hostclock.host_tsc_hz(0.05)
        if hz is None:
            self.skipTest("no TSC readable here")
        self.assertGreater(hz, 100e6)
        self.assertLess(hz, 10e9)


if __name__ == "__main__":
    unittest.main()
