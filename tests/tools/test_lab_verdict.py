"""A broken allocator is reported in words, not hung on, and never timed.

In a scratch copy of the tree (tracked files, build outputs copied with their
times so only what changed rebuilds), bitmap.c is copied twice with one bug
each and registered in mm/alloc/table.h, as a student's allocator would be:

  misalign  the search steps by one page instead of aligning up: blocks that
            are not naturally aligned
  twice     the last page of every block is left free: a page handed out in
            two blocks (an order-0 request gets the same page again and again)
  stuck     a free keeps the zone's lock: the next allocation spins for ever
  nothing   alloc always says no memory: a contract the lab checks too

The host suite (build/host/test_alloc -k NAME) must fail each within 60 s,
its messages naming the allocator, the test and what was violated; the lab
(tools/memboot lab) must mark every row of the broken allocator FAILED with
its first message and no figures, while buddy's rows beside them pass, and
stop running an allocator at its first row that hangs.

Two submissions of the example class (tests/tools/lab_class_fixture.py) are
registered too, with their right versions: a first fit whose alloc takes no
lock (racy) and a buddy that writes a taken block's head after dropping the
lock (late). The lab's stress build (build/bench/lab-stress --stress) must
fail both on every seed tried, and pass the right ones and the tree's own.

    python3 -m unittest tests/tools/test_lab_verdict.py -v
"""

import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
import lab_class_fixture  # noqa: E402
from test_alloc_table import add_allocator, copy_tracked, read  # noqa: E402

BUGS = {
    "misalign": ("uint64_t i = ((base + from + n - 1) & ~(n - 1)) - base;   /* aligned up */",
                 "uint64_t i = from + 0 * base;   /* the bug: not aligned up */"),
    "twice": ("\tset_bits(z->bits, i, n, false);\n\tz->free_pages -= n;",
              "\tset_bits(z->bits, i, n - 1, false);   /* the bug: last page left free */\n"
              "\tz->free_pages -= n - 1;"),
    # Not in the issue: a lock a free never releases, so the next allocation
    # spins for ever: the per-test timeout must fail it, named.
    "stuck": ("\tz->free_pages += n;\n\tspin_unlock(&z->lock);\n}",
              "\tz->free_pages += n;\n}   /* the bug: the lock stays held */"),
    "nothing": ("\tint top = flags & ALLOC_DMA32 ? PAGE_ZONE_DMA32 : PAGE_NR_ZONES - 1;\n",
                "\tint top = flags & ALLOC_DMA32 ? PAGE_ZONE_DMA32 : PAGE_NR_ZONES - 1;\n"
                "\treturn ALLOC_NO_PFN + 0 * (uint64_t)top;   /* the bug: never any memory */\n"),
}
# name: (example class student, what it is)
STUDENTS = {"racy": ("eli", "no lock in alloc"), "late": ("fay", "head written after the lock"),
            "ffok": ("ada", "first fit, right"), "budok": ("bob", "buddy, right")}
BUILD_TIMEOUT_S = 900   # a cold build on a loaded 2-core machine
HANG_LIMIT_S = 60


def scratch_tree():
    root = tempfile.mkdtemp(prefix="memboot-lab-verdict-")
    copy_tracked(root)
    build = os.path.join(REPO_ROOT, "build")
    for sub in ("host", "bench"):
        if os.path.isdir(os.path.join(build, sub)):
            shutil.copytree(os.path.join(build, sub), os.path.join(root, "build", sub),
                            symlinks=True)
    for name, (good, bad) in BUGS.items():
        add_allocator(root, name)
        path = os.path.join(root, "mm", "alloc", name + ".c")
        text = read(path)
        assert good in text, "bitmap.c changed: update the bug of %s" % name
        with open(path, "w") as f:
            f.write(text.replace(good, bad))
    for name, (student, _) in STUDENTS.items():
        add_allocator(root, name)
        with open(os.path.join(root, "mm", "alloc", name + ".c"), "w") as f:
            f.write(lab_class_fixture.submission(student, name))
    return root


_ROOT = []


def built_tree():
    """The scratch tree, built once for every test of this file (tests/run.py
    runs each test alone, without class fixtures); removed at exit."""
    if not _ROOT:
        root = scratch_tree()
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        run = subprocess.run(["make", "-j2", "-s", "build/host/test_alloc", "build/bench/lab",
                              "build/bench/lab-stress"],
                             cwd=root, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
        if run.returncode != 0:
            raise AssertionError(run.stdout[-3000:] + run.stderr[-3000:])
        _ROOT.append(root)
    return _ROOT[0]


class BrokenAllocators(unittest.TestCase):

    def setUp(self):
        self.root = built_tree()

    def suite(self, name, env=None):
        t0 = time.monotonic()
        r = subprocess.run([os.path.join(self.root, "build", "host", "test_alloc"), "-k", name],
                           cwd=self.root, capture_output=True, text=True,
                           timeout=HANG_LIMIT_S + 30, env=dict(os.environ, **(env or {})))
        secs = time.monotonic() - t0
        self.assertNotEqual(r.returncode, 0, r.stdout[-2000:])
        self.assertLess(secs, HANG_LIMIT_S, "the suite took %.0f s" % secs)
        self.assertIn("test_alloc: 1 allocator(s), 2 suite(s) failed", r.stdout)
        return r.stderr

    def test_suite_names_a_misaligned_block(self):
        err = self.suite("misalign")
        # The front's check, then the allocator's own line shown with it.
        self.assertIn("FAILED: allocator misalign (alone), test_every_order", err)
        self.assertRegex(err, r"alloc: misalign: block pfn 0x[0-9a-f]+ order \d+ is not "
                              r"aligned to \d+ pages")
        self.assertIn("what the allocator and the front logged during the test", err)

    def test_suite_names_a_page_handed_out_twice(self):
        err = self.suite("twice")
        self.assertIn("FAILED: allocator twice (alone), test_every_order", err)
        self.assertIn("free pages after one block of order 0 was handed out (the counter "
                      "must drop by 2^order): found 12272", err)
        self.assertRegex(err, r"test_exhaustion \(tests/host/test_alloc.c:\d+\): page pfn "
                              r"0x[0-9a-f]+ handed out twice")
        # The loop that hung before the timeout: bounded, and said in words.
        self.assertRegex(err, r"test_flags .*more than its pages: pages handed out twice")

    def test_suite_times_out_a_hang_and_names_it(self):
        err = self.suite("stuck", {"MEMBOOT_TEST_TIMEOUT_S": "2"})
        # The TAP line tests/run.py reports it by.
        tap = subprocess.run([os.path.join(self.root, "build", "host", "test_alloc"), "-k",
                              "stuck"], cwd=self.root, capture_output=True, text=True,
                             timeout=HANG_LIMIT_S, env=dict(os.environ, CMOCKA_MESSAGE_OUTPUT="TAP",
                                                            MEMBOOT_TEST_TIMEOUT_S="2"))
        self.assertIn("not ok 1 - test_every_order (allocator stuck (alone): timed out)",
                      tap.stdout)
        self.assertIn("FAILED: allocator stuck (alone), test_every_order: did not finish "
                      "within 2 s (a hang", err)
        # The suite with the lists in front still ran after the first hung.
        self.assertIn("FAILED: allocator stuck (per-CPU lists in front), ", err)

    def lab(self, name):
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run(
                [os.path.join(self.root, "tools", "memboot"), "lab", "--allocators",
                 "buddy," + name, "--threads", "1", "--workloads", "kbuild,random",
                 "--ops", "20000", "--mib", "64", "--no-plot", "--timeout", "60",
                 "--out", os.path.join(d, "o")],
                cwd=self.root, capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        for wl in ("kbuild", "random"):
            self.assertRegex(r.stdout, r"\| host \| buddy \| %s \| 1 \| [0-9.]+ \|.*\| yes \|" % wl)
            self.assertRegex(r.stdout, r"\| host \| %s \| %s \| 1 \| - \|.*\| FAILED \|" %
                             (name, wl))
        self.assertIn("2 row(s) FAILED the checks (not timed)", r.stderr)
        return r.stderr

    def test_lab_fails_the_misaligned_rows(self):
        err = self.lab("misalign")
        self.assertRegex(err, r"misalign x1 kbuild: the front's check of every block failed: "
                              r"alloc: misalign: block pfn 0x[0-9a-f]+ order \d+ is not aligned")

    def test_lab_fails_the_rows_of_pages_handed_out_twice(self):
        err = self.lab("twice")
        self.assertRegex(err, r"twice x1 (kbuild|random): (the allocator panicked|twice "
                              r"handed out block)")

    def test_lab_fails_an_allocator_that_hands_out_nothing(self):
        """Before: every row passed (no block is a wrong block)."""
        err = self.lab("nothing")
        self.assertRegex(err, r"nothing x1 kbuild: nothing found no block of order \d+ on any "
                              r"node while its free_blocks\(\) counts \d+ free block")
        # A run that races (no serial run to check each refusal) fails too.
        r = subprocess.run([os.path.join(self.root, "build", "bench", "lab"), "--alloc",
                            "nothing", "--threads", "2", "--workload", "random", "--ops", "5000",
                            "--mib", "64"], capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("nothing handed out no block in the whole run", r.stdout)

    def test_lab_stops_at_the_first_row_that_hangs(self):
        """Before: every row of the stuck allocator waited its whole --timeout
        (lab grade loopy --no-guest: 8 rows x 120 s)."""
        t0 = time.monotonic()
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run(
                [os.path.join(self.root, "tools", "memboot"), "lab", "--allocators",
                 "stuck,buddy", "--threads", "1,2", "--workloads", "kbuild,random",
                 "--ops", "20000", "--mib", "64", "--no-plot", "--timeout", "5", "--out",
                 os.path.join(d, "o")], cwd=self.root, capture_output=True, text=True,
                timeout=300)
        secs = time.monotonic() - t0
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stderr, r"stuck x1 kbuild: did not finish within 5 s: a hang")
        for t, w in ((2, "kbuild"), (1, "random"), (2, "random")):
            self.assertIn("stuck x%d %s: not run: stuck x1 kbuild did not finish within 5 s "
                          "(a hang), so no other row of stuck was run" % (t, w), r.stderr)
        self.assertRegex(r.stdout, r"\| host \| buddy \| random \| 2 \| [0-9.]+ \|")
        self.assertLess(secs, 5 * 4, "one hang waited for, not one per row")

    def stressed(self, name, seeds=5, tries=1):
        """How many of @seeds stressed runs (4 threads, kbuild and random in
        turn) fail, and the first message. With @tries, a seed whose run
        passed is run again (up to @tries runs): which thread the host runs
        next is its scheduler's, so a stressed run is likely, not certain,
        to catch a race (about 1 in 100 of one seed's runs missed on a
        loaded 2-core host); a correct allocator passes every try."""
        failed, first = 0, None
        for seed in range(1, seeds + 1):
            w = ("kbuild", "random")[seed % 2]
            for _ in range(tries):
                r = subprocess.run([os.path.join(self.root, "build", "bench", "lab-stress"),
                                    "--alloc", name, "--threads", "4", "--workload", w,
                                    "--ops", "30000", "--mib", "64", "--seed", str(seed),
                                    "--stress", "300"], capture_output=True, text=True,
                                   timeout=HANG_LIMIT_S * 2)
                if r.returncode != 0:
                    failed += 1
                    first = first or (r.stderr.strip().splitlines() or ["?"])[-1]
                    break
        return failed, first

    def test_stress_fails_the_racy_every_time(self):
        for name in ("racy", "late"):
            failed, first = self.stressed(name, tries=3)
            self.assertEqual(failed, 5, name)
            self.assertRegex(first, r"one page in two blocks|assertion|census|check\(\)")
        for name in ("ffok", "budok", "buddy", "bitmap", "llfree"):
            self.assertEqual(self.stressed(name, 3), (0, None), name)


if __name__ == "__main__":
    unittest.main()
