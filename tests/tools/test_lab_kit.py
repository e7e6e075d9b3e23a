"""The course kit: `tools/memboot lab new NAME` writes a skeleton that
builds, is registered, and fails `lab grade` with messages that name what is
missing; the same skeleton with its TODO(lab) ops filled by a working design
(tests/tools/fixtures/lab/firstfit.ops, first fit) passes the grade.

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
from test_alloc_table import copy_tracked, read  # noqa: E402

SOLUTION = os.path.join(REPO_ROOT, "tests", "tools", "fixtures", "lab", "firstfit.ops")


def fill_todos(path, name, ops_file=SOLUTION):
    """Replace each TODO(lab) region of @path with the body of that op in
    @ops_file: what a student does by hand."""
    sections = re.split(r"^=== (\w+)\n", read(ops_file), flags=re.M)[1:]
    bodies = dict(zip(sections[0::2], sections[1::2]))
    text = read(path)
    for op, body in bodies.items():
        text, n = re.subn(r"\t/\* TODO\(lab\) %s:.*?/\* END TODO\(lab\) %s \*/\n" % (op, op),
                          lambda m: body.replace("@NAME@", name), text, flags=re.S)
        assert n == 1, "no TODO(lab) %s region in %s" % (op, path)
    with open(path, "w") as f:
        f.write(text)


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
        self.assertRegex(r.stdout, r"\[FAIL\] checked lab.*\n.*student x1 kbuild: 65536 pages "
                                   r"were given to student; 0 are free")
        self.assertIn("result: FAIL", r.stdout)

        fill_todos(os.path.join(root, "mm", "alloc", "student.c"), "student")
        r = memboot(root, "lab", "grade", "student", "--no-guest")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout.count("[PASS]"), 4, r.stdout)
        self.assertIn("[SKIP] guest boot (--no-guest)", r.stdout)
        self.assertIn("result: PASS (4 of 5 checks passed, 1 skipped)", r.stdout)

    def test_bad_names(self):
        for args, words in ((["new", "Bad-Name"], "a lower-case letter"),
                            (["new", "buddy"], "buddy exists already"),
                            (["grade", "nosuch"], "no allocator nosuch in mm/alloc/table.h"),
                            (["grade"], "the course kit takes"),
                            (["sideways", "x"], "the course kit takes")):
            r = memboot(REPO_ROOT, "lab", *args, timeout=60)
            self.assertEqual(r.returncode, 64, (args, r.stderr))
            self.assertIn(words, r.stderr)
            self.assertNotIn("Traceback", r.stderr)


if __name__ == "__main__":
    unittest.main()
