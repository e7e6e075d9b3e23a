"""Hostile input to trace, plot, bench-plot, bench and compare-linux: each
case ends in a clear message and the documented exit status
(docs/exit-status.md: 64 for bad usage), never a traceback, and bad options
and paths are refused before any work starts (no boot, no file written).

    python3 -m unittest tests/tools/test_tool_inputs.py -v

No QEMU is started: the bench and compare-linux cases are refused while
their options are parsed, or run against a fake QEMU that records that it
ran.
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
from mbtools import facts, inputs, plot  # noqa: E402

CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith("MEMBOOT_")}
CLEAN_ENV["MEMBOOT_HOST_NOTES"] = "off"

GOOD_LOG = [
    'MEMBOOT {"event":"cpu_up","cpu":0,"node":0}',
    'MEMBOOT {"event":"phase","name":"early","start_ns":1000,"ns":4000}',
    'MEMBOOT {"event":"node_init","node":0,"policy":"serial","threads":1,"cpus":1,'
    '"pages":10,"start_ns":5000,"end_ns":9000,"early_ns":0,"ns":4000}',
    'MEMBOOT {"event":"chunk","job":"meminit","node":0,"cpu":0,"start_pfn":0,"end_pfn":10,'
    '"start_ns":5000,"ns":4000}',
    'MEMBOOT {"event":"done","ok":true,"status":0,"total_ns":10000}',
]

# Records of the wrong shape: each is skipped with a line naming it.
BAD_RECORDS = [
    ('MEMBOOT {"event":"phase","name":"x","start_ns":"5","ns":1}', "'start_ns' is a string"),
    ('MEMBOOT {"event":"phase","start_ns":5}', "phase record without 'name'"),
    ('MEMBOOT {"event":"phase","name":"x","start_ns":5}', "phase record without 'ns'"),
    ('MEMBOOT {"event":"node_init","node":1,"start_ns":5}', "node_init record without 'ns'"),
    ('MEMBOOT {"event":"chunk","node":1,"start_ns":5,"ns":1}', "chunk record without 'cpu'"),
    ('MEMBOOT {"event":"chunk","node":"1","cpu":0,"start_ns":5,"ns":1}', "'node' is a string"),
    ('MEMBOOT {"event":"cpu_up","cpu":[],"node":0}', "'cpu' is a list"),
    ('MEMBOOT {"event":"hugetlb","node":0,"size_bytes":null,"start_ns":1,"ns":1,'
     '"allocated":1}', "'size_bytes' is null"),
    ('MEMBOOT {"event":"phase","name":"x","start_ns":NaN,"ns":1}', "NaN is not JSON"),
    ('MEMBOOT {"event":"phase","name":"x","start_ns":1,"ns":Infinity}', "Infinity is not JSON"),
    ('MEMBOOT {"event":"phase","name":"x","start_ns":1,"ns":1e400}', "too large"),
    ('MEMBOOT {"event":"x","a":' + "[" * 50000 + "}", "nested too deeply"),
]


def tool(*argv, env=None, timeout=60):
    return subprocess.run([sys.executable, TOOL] + list(argv), capture_output=True,
                          text=True, timeout=timeout, env=env or CLEAN_ENV)


class Workdir(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="memboot-inputs-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def write(self, name, lines):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def assertClean(self, r):
        self.assertNotIn("Traceback", r.stderr)
        self.assertNotIn("Traceback", r.stdout)

    def assertUsage(self, r, *texts):
        self.assertClean(r)
        self.assertEqual(r.returncode, facts.EXIT_USAGE, r.stderr)
        for text in texts:
            self.assertIn(text, r.stderr)


class TraceAndPlot(Workdir):
    """Issue 25 item 6."""

    def test_bad_records_are_named_and_skipped(self):
        # One log: the good records, then each bad one on its own line.
        log = self.write("b.log", GOOD_LOG[:2] + [line for line, _ in BAD_RECORDS]
                         + GOOD_LOG[2:])
        out = os.path.join(self.dir, "t.json")
        r = tool("trace", log, "-o", out)
        self.assertClean(r)
        self.assertEqual(r.returncode, 0, r.stderr)
        problems = r.stderr.splitlines()
        for number, (_, problem) in enumerate(BAD_RECORDS, 3):
            with self.subTest(problem=problem):
                mine = [p for p in problems if p.startswith("memboot trace: %s:%d: " % (log, number))]
                self.assertEqual(len(mine), 1, r.stderr)
                self.assertIn(problem, mine[0])
                self.assertTrue(mine[0].endswith("; skipped"), mine[0])
        with open(out) as f:
            tr = json.load(f)
        # The good records still give their slices: a phase, the node's job
        # and its chunk.
        self.assertEqual(sorted(e["name"] for e in tr["traceEvents"] if e["ph"] == "X"),
                         ["chunk n0", "early", "node 0 init"])

    def test_only_bad_records_is_no_records(self):
        log = self.write("b.log", [line for line, _ in BAD_RECORDS])
        r = tool("trace", log, "-o", os.path.join(self.dir, "t.json"))
        self.assertClean(r)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no MEMBOOT records", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "t.json")))

    def test_trace_output_is_strict_json(self):
        log = self.write("b.log", GOOD_LOG + [line for line, _ in BAD_RECORDS])
        out = os.path.join(self.dir, "t.json")
        self.assertEqual(tool("trace", log, "-o", out).returncode, 0)
        with open(out) as f:
            text = f.read()

        def refuse(name):
            raise AssertionError("%s in the trace" % name)
        json.loads(text, parse_constant=refuse)
        for word in ("NaN", "Infinity"):
            self.assertNotIn(word, text)

    def test_missing_log_directory_log_and_unwritable_output(self):
        log = self.write("b.log", GOOD_LOG)
        out = os.path.join(self.dir, "t.json")
        for cmd in ("trace", "plot"):
            with self.subTest(cmd=cmd):
                ext = ".json" if cmd == "trace" else ".svg"
                self.assertUsage(tool(cmd, os.path.join(self.dir, "nope.log"), "-o", out + ext),
                                 "nope.log: No such file or directory")
                self.assertUsage(tool(cmd, self.dir, "-o", out + ext),
                                 "is not a regular file")
                # The output is checked when the options are parsed, before
                # the log is read.
                self.assertUsage(tool(cmd, log, "-o",
                                      os.path.join(self.dir, "no", "dir", "t" + ext)),
                                 "directory %s does not exist" % os.path.join(self.dir, "no",
                                                                             "dir"))
                self.assertUsage(tool(cmd, log, "-o", self.dir + "/"),
                                 "it is a directory" if cmd == "trace"
                                 else "unsupported output format")

    def test_plot_refuses_an_unsupported_extension(self):
        log = self.write("b.log", GOOD_LOG)
        r = tool("plot", log, "-o", os.path.join(self.dir, "out.txt"))
        self.assertUsage(r, "unsupported output format '.txt' (use .png, .svg, .pdf)")
        self.assertFalse(os.path.exists(os.path.join(self.dir, "out.txt")))

    def test_plot_skips_bad_records(self):
        if plot.import_pyplot() is None:
            self.skipTest("python3-matplotlib is not installed")
        log = self.write("b.log", GOOD_LOG + [line for line, _ in BAD_RECORDS[:4]])
        out = os.path.join(self.dir, "b.svg")
        r = tool("plot", log, "-o", out)
        self.assertClean(r)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("memboot plot: %s:6: phase record: 'start_ns' is a string" % log,
                      r.stderr)
        self.assertIn("1 nodes, 1 CPUs", r.stdout)


class BenchPlot(Workdir):
    """Issue 25 item 7."""

    ROW = {"config": {"topo": "2x2x1G", "threads": "1"}, "node": 0,
           "ms_median": 2.0, "ms_min": 1.0, "ms_max": 3.0}

    def bench_plot(self, data, *argv):
        path = os.path.join(self.dir, "b.json")
        with open(path, "w") as f:
            f.write(data if isinstance(data, str) else json.dumps(data))
        return tool("bench-plot", path, "--text", *argv)

    def test_wrong_shapes(self):
        for data, text in (([1, 2], "expected an object with \"rows\""),
                           ({"rows": 5}, "\"rows\" is int, expected a list"),
                           ({"runs": []}, "\"rows\" is missing"),
                           ("null", "found NoneType"),
                           ("{\"rows\": [", "is not JSON"),
                           ("{\"rows\": [NaN]}", "NaN is not JSON"),
                           ("[" * 50000, "nested too deeply")):
            with self.subTest(data=str(data)[:40]):
                self.assertUsage(self.bench_plot(data), text)

    def test_bad_rows_are_named_and_skipped(self):
        row2 = dict(self.ROW, config={"topo": "2x2x1G", "threads": "node"}, ms_median=4.0)
        rows = [self.ROW, row2, {"node": 0}, "x", dict(self.ROW, ms_median="2"),
                dict(self.ROW, config={"threads": 1}), dict(self.ROW, node=None, ms_min=None),
                dict(self.ROW, node="0")]
        r = self.bench_plot({"rows": rows})
        self.assertClean(r)
        self.assertEqual(r.returncode, 0, r.stderr)
        for i, text in ((2, "'config' is missing or not an object"), (3, "not an object"),
                        (4, "'ms_median' is not a number"),
                        (5, "config value 'threads' is not a string"),
                        (7, "'node' is not an integer or null")):
            self.assertIn("rows[%d]: %s; skipped" % (i, text), r.stderr)
        self.assertIn("topo=2x2x1G node 0: 1: 2.00, node: 4.00", r.stdout)

    def test_unwritable_output_prefix(self):
        path = os.path.join(self.dir, "b.json")
        with open(path, "w") as f:
            json.dump({"rows": [self.ROW]}, f)
        r = tool("bench-plot", path, "--out", os.path.join(self.dir, "no", "fig"))
        self.assertUsage(r, "does not exist")


class Bench(Workdir):
    """Issue 25 item 8: refused before any boot, also with --dry-run."""

    def test_boots_zero_refused(self):
        for argv in (["bench", "--boots", "0", "--dry-run"],
                     ["bench", "--scale", "--boots", "0"],
                     ["bench", "--seed", "000", "--boots", "0"]):
            with self.subTest(argv=argv):
                self.assertUsage(tool(*argv), "--boots: invalid count '0': must be >= 1")

    def test_unwritable_csv_and_json_refused_first(self):
        bad = os.path.join(self.dir, "no", "rows.csv")
        self.assertUsage(tool("bench", "--csv", bad), "argument --csv", "does not exist")
        self.assertUsage(tool("bench", "--json", self.dir), "argument --json",
                         "it is a directory")

    def test_bad_topologies_refused(self):
        for value, text in (("0x0x0", "0 nodes; the kernel tracks 1 to %d" % facts.MAX_NODES),
                            ("1x0x1G", "0 CPUs per node"),
                            ("2x2x3M", "must be a multiple of 2M"),
                            ("2x2x1M", "must be at least 2M"),
                            ("99999x1x1G", "99999 nodes"),
                            ("2x5000x1G", "1 to %d CPUs in all"
                             % facts.LIMITS["MEMBOOT_MAX_CPUS"]),
                            ("2x2", "expected NODESxCPUSxMEM")):
            with self.subTest(value=value):
                self.assertUsage(tool("bench", "--dry-run", "--axis", "topo=" + value),
                                 "topo '%s'" % value, text)

    def test_axis_values_are_single_words(self):
        r = tool("bench", "--dry-run", "--axis", "init=lazy memboot.fault=df")
        self.assertUsage(r, "axis init value 'lazy memboot.fault=df' contains whitespace")
        self.assertUsage(tool("bench", "--dry-run", "--axis", "memboot.a b=1"),
                         "axis name 'memboot.a b' contains whitespace")
        self.assertUsage(tool("bench", "--dry-run", "--axis", "init=a\tb"), "whitespace")
        # A good value still reaches the kernel as one word.
        r = tool("bench", "--dry-run", "--axis", "init=lazy", "--axis", "topo=1x1x1G")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("'--append=memboot.init=lazy memboot.init_threads=1'", r.stdout)


class CompareLinux(Workdir):
    """Issue 25 item 9."""

    def test_boots_zero_refused(self):
        self.assertUsage(tool("compare-linux", "--boots", "0"), "invalid count '0'")

    def test_not_a_linux_kernel(self):
        for name, data in (("elf", b"\x7fELF" + b"\0" * 1000), ("short", b"MZ"),
                           ("flag-only", b"\0" * 0x1FE + b"\x55\xaa" + b"\0" * 100)):
            with self.subTest(name=name):
                path = os.path.join(self.dir, name)
                with open(path, "wb") as f:
                    f.write(data)
                self.assertUsage(tool("compare-linux", "--kernel", path),
                                 "%s is not a Linux kernel image" % path)
        self.assertUsage(tool("compare-linux", "--kernel", self.dir), "is not a regular file")

    def test_a_bzimage_header_passes_the_check(self):
        path = os.path.join(self.dir, "vmlinuz")
        with open(path, "wb") as f:
            f.write(b"\0" * 0x1FE + b"\x55\xaa" + b"\xeb\x66" + b"HdrS" + b"\0" * 64)
        self.assertIsNone(inputs.bzimage_problem(path))

    def test_a_ppc64le_vmlinux_passes_and_another_elf_does_not(self):
        path = os.path.join(self.dir, "vmlinux")
        head = b"\x7fELF\x02\x01\x01" + b"\0" * 11
        with open(path, "wb") as f:
            f.write(head + b"\x15\x00" + b"\0" * 64)          # EM_PPC64, little-endian
        self.assertIsNone(inputs.ppc64le_elf_problem(path))
        self.assertEqual(inputs.linux_kernel(path), path)
        for name, data in (("x86-64", head + b"\x3e\x00"),
                           ("big-endian", b"\x7fELF\x02\x02\x01" + b"\0" * 11 + b"\x00\x15"),
                           ("32-bit", b"\x7fELF\x01\x01\x01" + b"\0" * 11 + b"\x15\x00")):
            with self.subTest(name=name):
                with open(path, "wb") as f:
                    f.write(data + b"\0" * 64)
                self.assertIn("is not a ppc64le ELF", inputs.ppc64le_elf_problem(path))
                self.assertUsage(tool("compare-linux", "--kernel", path),
                                 "%s is not a Linux kernel image" % path)

    def test_unwritable_log_refused_before_the_first_boot(self):
        path = os.path.join(self.dir, "vmlinuz")
        with open(path, "wb") as f:
            f.write(b"\0" * 0x1FE + b"\x55\xaa" + b"\xeb\x66" + b"HdrS" + b"\0" * 64)
        started = os.path.join(self.dir, "started")
        qemu = os.path.join(self.dir, "qemu")
        with open(qemu, "w") as f:
            f.write("#!/bin/sh\ntouch %s\n" % started)
        os.chmod(qemu, 0o755)
        env = dict(CLEAN_ENV, MEMBOOT_QEMU=qemu)
        r = tool("compare-linux", "--kernel", path, "--log",
                 os.path.join(self.dir, "no", "linux.log"), env=env)
        self.assertUsage(r, "argument --log", "does not exist")
        self.assertFalse(os.path.exists(started))


if __name__ == "__main__":
    unittest.main()
