"""The course kit: `tools/memboot lab new NAME` writes a skeleton that
builds, is registered, and fails `lab grade` with messages that name what is
missing; the same skeleton with its TODO(lab) ops filled by a working design
(tests/tools/fixtures/lab/firstfit.ops, first fit) passes the grade, with
its counted figures. A name that is a C keyword or would declare what the
tree declares is refused before anything is written.

Both in a scratch copy of the tree (tracked files, build outputs copied with
their times so only what changed rebuilds). The grade runs with --no-guest
here (a kernel build and a boot are minutes; docs/teaching.md shows the
whole grade).

    python3 -m unittest tests/tools/test_lab_kit.py -v
"""

import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
from lab_class_fixture import fill_todos  # noqa: E402
from test_alloc_table import copy_tracked, read  # noqa: E402


def scratch_tree():
    root = tempfile.mkdtemp(prefix="memboot-lab-kit-")
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    copy_tracked(root)
    for sub in ("host", "bench"):
        if os.path.isdir(os.path.join(REPO_ROOT, "build", sub)):
            shutil.copytree(os.path.join(REPO_ROOT, "build", sub),
                            os.path.join(root, "build", sub), symlinks=True)
    return root


def memboot(root, *args, timeout=900):
    return subprocess.run([os.path.join(root, "tools", "memboot")] + list(args), cwd=root,
                          capture_output=True, text=True, timeout=timeout)


class CourseKit(unittest.TestCase):

    def test_skeleton_fails_then_filled_passes(self):
        root = scratch_tree()
        r = memboot(root, "lab", "new", "student")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("the ops to write: free_range, alloc, free, count_free, check, "
                      "free_blocks", r.stdout)
        self.assertIn("\tX(student)\n", read(os.path.join(root, "mm", "alloc", "table.h")))
        self.assertIn("`llfree`, `student` (the allocators",
                      read(os.path.join(root, "docs", "cmdline.md")))
        # A second `new` of the same name is a usage error.
        again = memboot(root, "lab", "new", "student")
        self.assertEqual(again.returncode, 64, again.stderr)
        self.assertIn("student exists already", again.stderr)

        r = memboot(root, "lab", "grade", "student", "--no-guest")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("[FAIL] mm/alloc/student.c: no TODO(lab) left", r.stdout)
        self.assertIn("still to write: free_range, alloc, free, count_free, check, "
                      "free_blocks", r.stdout)
        self.assertIn("[PASS] build", r.stdout)
        self.assertRegex(r.stdout, r"\[FAIL\] conformance suite.*\n.*FAILED: allocator student "
                                   r"\(alone\), test_every_order .*free pages once memory init "
                                   r"handed every page over \(free_range")
        self.assertRegex(r.stdout, r"\[FAIL\] checked lab.*\n.*student x1 kbuild \(threads "
                                   r"taking turns\): 32768 pages were given to student; 0 are "
                                   r"free")
        self.assertIn("result: FAIL", r.stdout)
        # The docs quote this failure: its line of test_alloc.c is the one printed.
        line = re.search(r"test_every_order \(tests/host/test_alloc.c:(\d+)\)", r.stdout)
        self.assertIsNotNone(line, r.stdout)
        self.assertIn("test_every_order (tests/host/test_alloc.c:%s)" % line.group(1),
                      read(os.path.join(REPO_ROOT, "docs", "teaching.md")))

        path = os.path.join(root, "mm", "alloc", "student.c")
        filled = fill_todos(read(path), "student")
        with open(path, "w") as f:
            f.write(filled)
        r = memboot(root, "lab", "grade", "student", "--no-guest", "--report",
                    os.path.join(root, "report.txt"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout.count("[PASS]"), 5, r.stdout)
        self.assertIn("[SKIP] guest boot (--no-guest)", r.stdout)
        self.assertIn("result: PASS (5 of 6 checks passed, 1 skipped)", r.stdout)
        # Counted figures and an index against the reference designs.
        self.assertRegex(r.stdout, r"\[INFO\] performance, counted .*\n\s+\d+ instructions, "
                                   r"[0-9.]+ D1 and [0-9.]+ LL misses")
        self.assertRegex(r.stdout, r"performance index \d+ \(100: as cheap as the best of "
                                   r"buddy, bitmap, llfree")
        report = read(os.path.join(root, "report.txt"))
        self.assertIn("==== suite: the whole output", report)
        self.assertIn("[       OK ] test_census_while_held", report)

    def test_bad_names(self):
        for args, words in ((["new", "Bad-Name"], "a lower-case letter"),
                            (["new", "buddy"], "buddy exists already"),
                            (["grade", "nosuch"], "no allocator nosuch in mm/alloc/table.h"),
                            (["grade"], "the course kit takes"),
                            (["sideways", "x"], "the course kit takes"),
                            (["new", "x", "--class", "d"], "--class DIR goes with `grade` alone"),
                            (["grade", "buddy", "--csv", "f.csv"], "--csv goes with --class")):
            r = memboot(REPO_ROOT, "lab", *args, timeout=60)
            self.assertEqual(r.returncode, 64, (args, r.stderr))
            self.assertIn(words, r.stderr)
            self.assertNotIn("Traceback", r.stderr)

    def test_names_that_would_not_build(self):
        """A C keyword, or a name whose skeleton declarations the tree has
        (struct page, struct memmap): refused, nothing written
        (before the fix, `lab new if` exited 0 and broke the whole build)."""
        root = tempfile.mkdtemp(prefix="memboot-lab-names-")
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        copy_tracked(root)
        table = read(os.path.join(root, "mm", "alloc", "table.h"))
        doc = read(os.path.join(root, "docs", "cmdline.md"))
        for name, words in (("if", "'if' is a C keyword"),
                            ("int", "'int' is a C keyword"),
                            ("page", "the skeleton would declare `page"),
                            ("memmap", "the skeleton would declare `memmap`"),
                            ("memmap_node", "the skeleton would declare `memmap_node`")):
            r = memboot(root, "lab", "new", name, timeout=60)
            self.assertEqual(r.returncode, 64, (name, r.stdout, r.stderr))
            self.assertIn(words, r.stderr)
            if name not in ("if", "int"):
                self.assertRegex(r.stderr, r"which the tree already has \((mm|kernel)/\S+\.h\)")
            self.assertFalse(os.path.exists(os.path.join(root, "mm", "alloc", name + ".c")))
            self.assertEqual(read(os.path.join(root, "mm", "alloc", "table.h")), table)
            self.assertEqual(read(os.path.join(root, "docs", "cmdline.md")), doc)
        # A name clear of the tree still goes through.
        r = memboot(root, "lab", "new", "pagefit", timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)


sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
from mbtools import lab_kit, sandbox  # noqa: E402

# What cmocka's own assertions print (no FAILED: line of the suite's).
CMOCKA_OUT = """[==========] Running 11 test(s).
[ RUN      ] test_every_order
[  ERROR   ] --- 0xffffffffffffffff != 0x100000
[   LINE   ] --- tests/host/test_alloc.c:451: error: Failure!
[  FAILED  ] test_every_order
[ RUN      ] test_exhaustion
[       OK ] test_exhaustion
"""
PANIC_ERR = """panic: mm/alloc/x.c:12: x_free: assertion 'p' failed: x: pfn 0x10 order 0: already free
FAILED: allocator x (alone), test_flags: a panic or an abort (the line above says which check)
  what the allocator and the front logged during the test:
    x: one
    x: two
allocator x: suite "x" died of signal 6 (a panic or crash; the lines above name the test and the check)
"""


class Runner:
    """A runner whose every command ran out of time (a guest that hangs)."""
    python = sys.executable

    def run(self, argv, timeout_s, mem_mib=None, env=None):
        log = argv[argv.index("--log") + 1]
        with open(log, "w") as f:
            f.write("[    0.1] phase pcp: done\n[    0.2] selftest alloc: order 10\n")
        return sandbox.Result(None, "", "", True, timeout_s)


class Pieces(unittest.TestCase):

    def test_cmocka_failures_are_named(self):
        """Before: the grade showed only lines starting "FAILED: ", none here."""
        lines, hang = lab_kit.suite_detail(CMOCKA_OUT, "")
        self.assertEqual(lines, ["[  FAILED  ] test_every_order: 0xffffffffffffffff != "
                                 "0x100000; tests/host/test_alloc.c:451: error: Failure!"])
        self.assertFalse(hang)

    def test_the_panic_line_comes_with_the_failure(self):
        lines, _ = lab_kit.suite_detail("", PANIC_ERR)
        self.assertEqual(lines[0], PANIC_ERR.splitlines()[0])
        self.assertTrue(lines[1].startswith("FAILED: allocator x (alone), test_flags"))
        self.assertEqual(lines[2:4], ["    x: one", "    x: two"])
        self.assertEqual(len(max(lines, key=len)), len(PANIC_ERR.splitlines()[-1]),
                         "no line cut")

    def test_a_guest_boot_that_hangs_is_named(self):
        d = tempfile.mkdtemp(prefix="memboot-lab-guest-")
        atexit.register(shutil.rmtree, d, ignore_errors=True)
        c = lab_kit.Check("guest", "guest boot")
        lab_kit.guest_boot(c, "loopy", REPO_ROOT, Runner(), d, 30)
        self.assertEqual(c.verdict, "FAIL")
        self.assertEqual(c.detail, ["the guest boot did not end within 30 s: a hang (its "
                                    "console's last line: [    0.2] selftest alloc: order 10)"])

    def test_ops_name(self):
        self.assertEqual(lab_kit.ops_name("const struct alloc_ops ab_c_alloc_ops = {\n"
                                          "\t.name = \"ab_c\","), "ab_c")
        for text, words in (("int x;", "no `const struct alloc_ops NAME_alloc_ops"),
                            ("const struct alloc_ops a_alloc_ops = {};\nconst struct alloc_ops "
                             "b_alloc_ops = {};", "2 ops tables"),
                            ("const struct alloc_ops a_alloc_ops = { .name = \"b\" };",
                             "the two must be the same name")):
            with self.assertRaises(lab_kit.KitError) as e:
                lab_kit.ops_name(text)
            self.assertIn(words, str(e.exception))

    def test_default_output_is_under_build(self):
        """Before: memboot-lab.csv and .json landed in the directory the
        command was typed in (the checkout root, untracked)."""
        d = tempfile.mkdtemp(prefix="memboot-lab-cwd-")
        atexit.register(shutil.rmtree, d, ignore_errors=True)
        r = subprocess.run([os.path.join(REPO_ROOT, "tools", "memboot"), "lab", "--allocators",
                            "buddy", "--workloads", "kbuild", "--threads", "1", "--ops", "2000",
                            "--mib", "16", "--no-plot"], cwd=d, capture_output=True, text=True,
                           timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(os.listdir(d), [])
        out = os.path.join(REPO_ROOT, "build", "lab", "memboot-lab")
        self.assertIn("wrote %s.json, %s.csv" % (out, out), r.stdout)


if __name__ == "__main__":
    unittest.main()
