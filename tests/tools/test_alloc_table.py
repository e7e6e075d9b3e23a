"""Adding an allocator is one file plus one table entry (docs/allocators.md).

In a scratch copy of the tree (the working tree's tracked files, build
outputs copied with their times so only what changed rebuilds), bitmap.c is
copied as mm/alloc/nextfit.c under the new name, one X(nextfit) line goes
into mm/alloc/table.h, and nothing else is edited: the kernel links it, the
host conformance suite runs its suite (test_alloc -k nextfit), the per-CPU
benchmark links, and the tools' table names it.

    python3 -m unittest tests/tools/test_alloc_table.py -v
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
from mbtools import facts as here  # noqa: E402

TIMEOUT_S = 900   # generous: a cold build on a loaded 2-core machine


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def tracked():
    out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT,
                         capture_output=True, check=True).stdout
    return [p for p in out.decode().split("\0") if p]


def copy_tracked(root):
    """The tracked files that exist (a deletion not yet committed is not
    copied) into @root, as a scratch copy of the tree."""
    for rel in tracked():
        src = os.path.join(REPO_ROOT, rel)
        if os.path.isfile(src):
            dst = os.path.join(root, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)


def add_allocator(root, name, like="bitmap"):
    """The two edits a newcomer makes: the file and the table line (last)."""
    src = read(os.path.join(root, "mm", "alloc", like + ".c"))
    src = src.replace("%s_alloc_ops" % like, "%s_alloc_ops" % name)
    src = src.replace('.name = "%s"' % like, '.name = "%s"' % name)
    with open(os.path.join(root, "mm", "alloc", name + ".c"), "w") as f:
        f.write(src)
    table = os.path.join(root, "mm", "alloc", "table.h")
    lines = read(table).split("\n")
    last = max(i for i, line in enumerate(lines) if re.match(r"\tX\(\w+\)", line))
    if not lines[last].rstrip().endswith("\\"):
        lines[last] = lines[last].rstrip() + " \\"
    lines.insert(last + 1, "\tX(%s)" % name)
    with open(table, "w") as f:
        f.write("\n".join(lines))


class OneFileOneEntry(unittest.TestCase):

    def test_new_allocator_needs_nothing_else(self):
        scratch = tempfile.mkdtemp(prefix="memboot-alloc-table-")
        try:
            root = os.path.join(scratch, "tree")
            copy_tracked(root)
            build = os.path.join(REPO_ROOT, "build")
            if os.path.isdir(build):
                shutil.copytree(build, os.path.join(root, "build"), symlinks=True,
                                ignore=shutil.ignore_patterns("*.iso", "*.img", "fuzz"))
            add_allocator(root, "nextfit")
            facts = subprocess.run(
                [sys.executable, "-c", "import sys; sys.path.insert(0, 'tools'); "
                 "from mbtools import facts; print(','.join(facts.ALLOCATORS))"],
                cwd=root, capture_output=True, text=True, check=True)
            self.assertEqual(facts.stdout.strip().split(","), list(here.ALLOCATORS) + ["nextfit"])
            run = subprocess.run(
                ["make", "-j2", "Q=@", "kernel", "build/host/test_alloc", "build/bench/pcp_bench"],
                cwd=root, capture_output=True, text=True, timeout=TIMEOUT_S)
            self.assertEqual(run.returncode, 0, run.stdout[-3000:] + run.stderr[-3000:])
            # `make kernel` builds build/$MODE (debug unless the environment
            # says otherwise); other build directories copied from the tree
            # may hold older kernels.
            elf = os.path.join(root, "build", os.environ.get("MODE", "debug"), "memboot.elf")
            self.assertTrue(os.path.isfile(elf), "no memboot.elf built")
            self.assertIn(b"nextfit_alloc_ops", subprocess.run(
                ["nm", elf], capture_output=True, check=True).stdout)
            suite = subprocess.run([os.path.join(root, "build", "host", "test_alloc"),
                                    "-k", "nextfit"], cwd=root, capture_output=True,
                                   text=True, timeout=TIMEOUT_S)
            self.assertEqual(suite.returncode, 0, suite.stdout[-3000:] + suite.stderr[-3000:])
            # Its suite, alone and with the per-CPU lists in front.
            self.assertEqual(suite.stdout.count("[==========] 11 test(s) run."), 2, suite.stdout)
            self.assertIn("test_alloc: 1 allocator(s), 0 suite(s) failed", suite.stdout)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def test_add_allocator_edits_only_two_files(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "mm", "alloc"))
            for f in ("bitmap.c", "table.h"):
                shutil.copy2(os.path.join(REPO_ROOT, "mm", "alloc", f),
                             os.path.join(d, "mm", "alloc", f))
            add_allocator(d, "nextfit")
            text = read(os.path.join(d, "mm", "alloc", "table.h"))
            self.assertRegex(text, r"X\(llfree\)\s*\\\n\tX\(nextfit\)\n")
            self.assertIn('.name = "nextfit"',
                          read(os.path.join(d, "mm", "alloc", "nextfit.c")))


if __name__ == "__main__":
    unittest.main()
