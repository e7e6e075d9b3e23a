"""tools/memboot lab's trace reader: tracefs and trace-cmd report lines,
frees of pages allocated before the trace counted and skipped, each trace
CPU its own thread; and the shipped fixture reads.

    python3 -m unittest tests/tools/test_lab.py -v
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))

from mbtools import lab  # noqa: E402

TRACE = """# tracer: nop
             cc1-1 [003] .....   1.000001: mm_page_free: page=000000001 pfn=0x500 order=0
             cc1-1 [003] .....   1.000002: mm_page_alloc: page=000000002 pfn=0x1000 order=2 migratetype=1 gfp_flags=GFP_KERNEL
              sh-2 [001] d..1.   1.000003: mm_page_alloc: page=000000003 pfn=0x2000 order=0 migratetype=0 gfp_flags=GFP_USER
              sh-2 [001] d..1.   1.000004: mm_page_free_batched: page=000000003 pfn=0x2000 order=0
             cc1-1 [003] .....   1.000005: mm_page_free: page=000000002 pfn=0x1000 order=2
             cc1-1 [003] 1.000006: mm_page_alloc: page=000000004 pfn=0x3000 order=0 migratetype=0 gfp_flags=GFP_USER
             cc1-1 [003] 1.000007: mm_page_alloc: page=000000004 pfn=0x3000 order=0 migratetype=0 gfp_flags=GFP_USER
this line is not an event
"""


class TraceReader(unittest.TestCase):

    def parse(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".trace", delete=False) as f:
            f.write(text)
        try:
            return lab.parse_trace(f.name)
        finally:
            os.unlink(f.name)

    def test_events_and_skips(self):
        events, rep = self.parse(TRACE)
        # CPUs 1 and 3 become threads 0 and 1; ids pair frees with allocs.
        self.assertEqual(events, [(1, 0, 2, 0), (0, 0, 0, 1), (0, 1, 0, 1), (1, 1, 2, 0),
                                  (1, 0, 0, 2)])
        self.assertEqual(rep["skipped_free_before_trace"], 1)
        self.assertEqual(rep["skipped_alloc_of_held_pfn"], 1)
        self.assertEqual(rep["unparsed"], 1)
        self.assertEqual(rep["cpus"], 2)
        self.assertEqual(rep["held_at_end"], 1)
        self.assertEqual((rep["alloc"], rep["free"]), (3, 2))

    def test_no_events_is_an_error(self):
        with self.assertRaises(lab.LabError):
            self.parse("# nothing\nnot an event\n")

    def test_missing_file_is_an_error(self):
        with self.assertRaises(lab.LabError):
            lab.parse_trace("/nonexistent/trace.xz")

    def test_fixture(self):
        events, rep = lab.parse_trace(lab.DEFAULT_TRACE)
        self.assertGreater(rep["alloc"], 10000)
        self.assertEqual(rep["unparsed"], 0)
        self.assertEqual(len(events), rep["alloc"] + rep["free"])


if __name__ == "__main__":
    unittest.main()


class LabRun(unittest.TestCase):
    """A small end-to-end run: table, JSON, CSV, the replay's counts."""

    def test_small_run(self):
        with tempfile.TemporaryDirectory() as d:
            trace = os.path.join(d, "t.trace")
            with open(trace, "w") as f:
                f.write(TRACE)
            out = os.path.join(d, "lab")
            r = subprocess.run(
                [os.path.join(REPO_ROOT, "tools", "memboot"), "lab", "--allocators",
                 "buddy,llfree", "--threads", "1,2", "--workloads", "repeat,trace",
                 "--trace", trace, "--ops", "20000", "--mib", "64", "--out", out, "--no-plot",
                 "--nodes", "2", "--lazy", "--split"],
                capture_output=True, text=True, timeout=600)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("| buddy | repeat | 2 |", r.stdout)
            self.assertIn("| llfree | trace | 2 |", r.stdout)
            self.assertIn("1 frees of pages allocated before the trace", r.stderr)
            with open(out + ".json") as f:
                data = json.load(f)
            rows = data["rows"]
            # repeat and trace (its 2 CPUs on 1 and 2 threads: --threads given), x2 each.
            self.assertEqual(len(rows), 8)
            self.assertEqual({(r["nodes"], r["lazy"], r["split"]) for r in rows},
                             {(2, True, True)})
            for row in rows:
                self.assertTrue(row["check"], row)
                self.assertGreater(row["ops"], 0)
                self.assertIn("p99_ns", row["latency"]["alloc_all"])
            traced = [row for row in rows if row["workload"] == "trace"]
            # 3 allocations and 2 frees replayed by every allocator.
            self.assertEqual({row["replayed"] for row in traced}, {5})
            self.assertTrue(os.path.exists(out + ".csv"))

    def test_bad_arguments(self):
        # Usage errors exit 64 (docs/tools.md), named, before any run (no
        # "[1/N]" progress line) and without a traceback.
        for args, words in (
                (["--allocators", "nosuch"], "unknown allocator nosuch"),
                (["--threads", "x"], "--threads 'x'"),
                (["--threads", "1,,2"], "an empty item"),
                (["--threads", "0"], "1 to 256"),
                (["--workloads", "dance"], "unknown workload dance"),
                (["--workloads", "trace", "--trace", "/nonexistent.xz"], "--trace"),
                (["--nodes", "9"], "--nodes '9'"),
                (["--sample", "-5"], "--sample '-5'"),
                (["--ops", "10"], "--ops '10'"),
                (["--repeat", "0"], "--repeat '0'"),
                (["--out", "/nonexistent/dir/o"], "/nonexistent/dir does not exist"),
                (["--out", "/proc/o"], "cannot write /proc/o.json"),
                (["--guest", "--workloads", "kbuild"], "--guest replays the trace")):
            r = subprocess.run([os.path.join(REPO_ROOT, "tools", "memboot"), "lab"] + args,
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 64, (args, r.stderr))
            self.assertIn(words, r.stderr, args)
            self.assertNotIn("Traceback", r.stderr)
            self.assertNotIn("[1/", r.stderr, args)

    def test_views(self):
        """--columns (a slide table of medians), --orders (per-order tables
        with Linux's two indices for every order), the --threads note for
        a trace, and the JSON's indices at every order."""
        with tempfile.TemporaryDirectory() as d:
            trace = os.path.join(d, "t.trace")
            with open(trace, "w") as f:
                f.write(TRACE)
            out = os.path.join(d, "v")
            r = subprocess.run(
                [os.path.join(REPO_ROOT, "tools", "memboot"), "lab", "--allocators", "buddy",
                 "--threads", "1,4", "--workloads", "random,trace", "--trace", trace,
                 "--ops", "20000", "--mib", "64", "--columns", "allocator,thr,mops,unusable_9",
                 "--orders", "--out", out, "--no-plot"], capture_output=True, text=True,
                timeout=300)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("| allocator | thr | Mops/s | unusable@9 |\n", r.stdout)
            self.assertRegex(r.stdout, r"\| buddy \| 4 \| [0-9]+\.[0-9]{2} \| 0\.[0-9]{3} \|")
            self.assertNotIn("timed (median", r.stdout)
            self.assertIn("fragmentation index by order at the end (Linux's extfrag_index",
                          r.stdout)
            self.assertIn("| allocator | workload | thr | o0 | o1 | o2 | o3 | o4 | o5 | o6 | "
                          "o7 | o8 | o9 | o10 |", r.stdout)
            # --threads is honoured for a trace: its 2 CPUs on 1 and on 4 threads.
            self.assertIn("trace: 2 trace CPUs replayed on --threads 1,4 (trace CPU c on "
                          "thread c mod N)", r.stderr)
            self.assertRegex(r.stdout, r"\| buddy \| 1 \| [0-9.]+ \| [0-9.]+ \|")
            self.assertIn("--ops 20000: for kbuild, deep and net the allocations of all "
                          "threads together", r.stdout)
            with open(out + ".json") as f:
                rows = json.load(f)["rows"]
            traced = [row for row in rows if row["workload"] == "trace"]
            self.assertEqual([row["threads"] for row in traced], [1, 4])
            self.assertEqual({row["replayed"] for row in traced}, {5})
            for row in rows:
                d = row["deterministic"]
                self.assertEqual(len(d["unusable_end"]), 11)
                self.assertEqual(len(d["extfrag_end"]), 11)
                self.assertEqual(len(d["allocs_by_order"]), 11)
        bad = subprocess.run([os.path.join(REPO_ROOT, "tools", "memboot"), "lab", "--columns",
                              "allocator,nosuch"], capture_output=True, text=True, timeout=60)
        self.assertEqual(bad.returncode, 64, bad.stderr)
        self.assertIn("unknown --columns nosuch", bad.stderr)

    def test_plot_style_and_gaps(self):
        # One colour per allocator in every panel, a style per thread count;
        # a missing sample breaks the line.
        a1, a2 = lab.style("buddy", 1, {1, 2}), lab.style("buddy", 2, {1, 2})
        self.assertEqual(a1["color"], a2["color"])
        self.assertNotEqual(a1["linestyle"], a2["linestyle"])
        self.assertNotEqual(lab.style("bitmap", 1, {1})["color"], a1["color"])
        xs, ys = lab.with_gaps([0, 10, 20, 30, 70, 80], [1, 2, 3, 4, 5, 6])
        self.assertEqual(xs, [0, 10, 20, 30, None, 70, 80])
        self.assertEqual(ys, [1, 2, 3, 4, None, 5, 6])

    def test_harness_refuses_bad_numbers(self):
        lab.build(quiet=True)
        for args in (["--sample", "-5"], ["--threads", "1,,2"], ["--ops", "1x"],
                     ["--lazy", "2"], ["--threads", "99999999999"], ["--mib", ""]):
            r = subprocess.run([lab.LAB_BIN, "--alloc", "buddy", "--workload", "repeat"] + args,
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 64, (args, r.stderr))
            self.assertIn("lab: %s " % args[0], r.stderr)
            self.assertEqual(r.stdout, "")

    def test_a_stopped_run_leaves_no_scratch(self):
        """SIGTERM, SIGHUP or ^C in the middle of a run: the harness stops,
        the scratch directory (the trace's events) is removed and the exit
        status says which signal. Before: Python's default SIGTERM ended the
        run with no clean-up, leaving /tmp/memboot-lab-* behind."""
        lab.build(quiet=True)
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            with tempfile.TemporaryDirectory() as d:
                tmp = os.path.join(d, "tmp")
                os.mkdir(tmp)
                trace = os.path.join(d, "t.trace")
                with open(trace, "w") as f:
                    f.write(TRACE)
                p = subprocess.Popen(
                    [os.path.join(REPO_ROOT, "tools", "memboot"), "lab", "--allocators",
                     "buddy", "--threads", "1", "--workloads", "trace,random", "--trace", trace,
                     "--ops", "100000000", "--mib", "64", "--repeat", "5", "--no-plot",
                     "--out", os.path.join(d, "o")], stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, text=True, env=dict(os.environ, TMPDIR=tmp))
                # Started: its scratch directory holds the trace's events.
                deadline = time.monotonic() + 120
                while not any(os.path.exists(os.path.join(tmp, x, "events.bin"))
                              for x in os.listdir(tmp)) and time.monotonic() < deadline:
                    self.assertIsNone(p.poll(), p.stderr.read() if p.poll() is not None else "")
                    time.sleep(0.2)
                time.sleep(1)
                p.send_signal(sig)
                out, err = p.communicate(timeout=60)
                self.assertEqual(p.returncode, 128 + sig, err)
                self.assertIn("memboot lab: stopped by %s" % signal.Signals(sig).name, err)
                self.assertNotIn("Traceback", err)
                self.assertEqual(os.listdir(tmp), [], sig)
                self.assertFalse(os.path.exists(os.path.join(d, "o.json")))

    def test_deterministic_columns_repeat(self):
        """Two invocations, two threads: the deterministic figures are equal
        (the runs in which the threads take turns); the timed ones come with
        one value per --repeat run and an interval."""
        def run(d, name):
            trace = os.path.join(d, "t.trace")
            with open(trace, "w") as f:
                f.write(TRACE)
            out = os.path.join(d, name)
            r = subprocess.run(
                [os.path.join(REPO_ROOT, "tools", "memboot"), "lab", "--allocators",
                 "buddy,bitmap", "--threads", "2", "--workloads", "kbuild,random,trace",
                 "--trace", trace, "--ops", "20000", "--mib", "64", "--repeat", "2",
                 "--out", out, "--no-plot"], capture_output=True, text=True, timeout=600)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(out + ".json") as f:
                return json.load(f)["rows"], r.stdout
        with tempfile.TemporaryDirectory() as d:
            a, text = run(d, "a")
            b, _ = run(d, "b")
        self.assertEqual(len(a), 6)
        for x, y in zip(a, b):
            self.assertTrue(x["check"])
            self.assertEqual(x["deterministic"], y["deterministic"], x["allocator"])
            if x["workload"] != "trace":   # 5 events: no sample
                self.assertGreater(len(x["deterministic"]["frag"]), 0)
            self.assertEqual(x["timed"]["mops"]["n"], 2)
            self.assertEqual(len(x["timed"]["alloc_p99_ns"]["values"]), 2)
            self.assertLessEqual(x["timed"]["mops"]["lo"], x["timed"]["mops"]["median"])
        self.assertIn("deterministic (one --serial run per row", text)
        self.assertRegex(text, r"\| host \| buddy \| kbuild \| 2 \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \|")
