"""A course in one command: docs/teaching.md's "Running a course" as written.

The section's commands are taken from the document itself (its ```sh
blocks) and run, one after the other, in a scratch copy of the tree (its
tracked files and build, file times kept): they make the example class
(tests/tools/lab_class_fixture.py: eleven students, right and wrong) and
grade it with `tools/memboot lab grade --class`, each student in the
sandbox. Every student must get the verdict the fixture gives it, with the
first failure in words; the report files exist and hold every check's
output; the slower first fit ranks below the first fit; and the whole run
stays within the bound the limits set: the shared build, then at most
ceil(students / jobs) students' limits one after the other.

Bad input to --class is refused before anything is built (exit 64).

    python3 -m unittest tests/tools/test_lab_course.py -v
"""

import atexit
import csv
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
import lab_class_fixture  # noqa: E402
from test_alloc_table import copy_tracked, read  # noqa: E402

SECTION = "## Running a course"
# What each example student's first failure says (the check, then words).
FIRST = {
    "cyd": r"^suite: FAILED: allocator myalloc \(alone\), test_every_order .*free pages after",
    "dot": r"^suite: panic: mm/alloc/mybuddy\.c:\d+: mybuddy_free: assertion",
    # A race is caught where the threads first meet in its window.
    "eli": r"^(suite: .*(FAILED|panic)|lab: myalloc x2|stress: myalloc x4)",
    "fay": r"^(suite: .*(FAILED|panic)|lab: mybuddy x2|stress: mybuddy x4)",
    "gil": r"^suite: FAILED: allocator myalloc \(alone\), test_exhaustion: did not finish "
           r"within 10 s",
    "hap": r"^suite: mm/alloc/myalloc\.c:\d+:\d+: runtime error: member access within null "
           r"pointer",
    "ivo": r"^build: mm/alloc/myalloc\.c:\d+:\d+: error: .search. defined but not used",
    "jan": r"^suite: FAILED: allocator myalloc \(alone\), test_every_order .*expected a block, "
           r"found none",
}
SHARED_BUILD_BOUND_S = 1800    # a cold shared build on a loaded 2-core machine


def section(text, title):
    start = text.index(title)
    end = text.find("\n## ", start + len(title))
    return text[start:end if end >= 0 else len(text)]


def documented_commands():
    """Each command line of the section's ```sh blocks."""
    text = section(read(os.path.join(REPO_ROOT, "docs", "teaching.md")), SECTION)
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    return [shlex.split(line) for b in blocks for line in b.splitlines()
            if line.strip() and not line.startswith("#")]


def scratch_tree():
    root = tempfile.mkdtemp(prefix="memboot-lab-course-")
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    copy_tracked(root)
    build = os.path.join(REPO_ROOT, "build")
    for part in ("host", "bench", "debug"):
        if os.path.isdir(os.path.join(build, part)):
            shutil.copytree(os.path.join(build, part), os.path.join(root, "build", part),
                            symlinks=True, ignore=shutil.ignore_patterns("*.iso", "*.img"))
    for part in ("newlib", ".deps-ok", ".host-deps-ok"):
        if os.path.lexists(os.path.join(build, part)):
            if os.path.islink(os.path.join(build, part)):
                os.symlink(os.readlink(os.path.join(build, part)),
                           os.path.join(root, "build", part))
            else:
                shutil.copy2(os.path.join(build, part), os.path.join(root, "build", part))
    return root


def option(argv, name):
    return argv[argv.index(name) + 1] if name in argv else None


class Course(unittest.TestCase):

    def test_the_documented_class(self):
        commands = documented_commands()
        self.assertEqual([c[:2] for c in commands], [["python3", "tests/tools/lab_class_fixture.py"],
                                                     ["tools/memboot", "lab"]], commands)
        grade = commands[1]
        root = scratch_tree()
        t0 = time.monotonic()
        for argv in commands:
            r = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=7200)
            self.assertEqual(r.returncode, 0, (argv, r.stdout[-3000:], r.stderr[-3000:]))
            self.assertNotIn("Traceback", r.stdout + r.stderr)
        wall = time.monotonic() - t0
        out = r.stdout
        rows = {row["student"]: row for row in csv.DictReader(
            open(os.path.join(root, option(grade, "--csv")), encoding="utf-8"))}
        doc = json.load(open(os.path.join(root, option(grade, "--json")), encoding="utf-8"))
        self.assertEqual(sorted(rows), sorted(lab_class_fixture.STUDENTS))
        for student, (_, name, _, verdict, what) in lab_class_fixture.STUDENTS.items():
            row = rows[student]
            self.assertEqual(row["allocator"], name, row)
            self.assertEqual(row["result"], verdict, (student, what, row))
            if verdict == "FAIL":
                self.assertRegex(row["first_failure"], FIRST[student], (student, what))
            else:
                self.assertEqual(row["first_failure"], "")
                self.assertEqual(row["passed"], row["checks"], row)
                self.assertEqual(row["hidden"], "PASS", row)
                self.assertGreater(float(row["perf_index"]), 0, row)
            report = read(row["report"])
            self.assertIn("memboot lab grade %s" % name, report)
            self.assertIn("result: %s" % verdict, report)
        # Each failure stays in its own row: the broken build is ivo's alone.
        self.assertEqual([s for s, row in rows.items() if row["build"] == "FAIL"], ["ivo"])
        # The hang is named and nothing else runs the allocator.
        self.assertEqual([rows["gil"][k] for k in ("lab", "stress", "guest")], ["SKIP"] * 3)
        self.assertIn("test_exhaustion: did not finish within 10 s", read(rows["gil"]["report"]))
        # A race is told apart: seen only with several threads.
        self.assertIn("seen only with several threads", read(rows["fay"]["report"]))
        # The slower first fit ranks below the first fit.
        self.assertLess(float(rows["kit"]["perf_index"]), float(rows["ada"]["perf_index"]))
        self.assertGreater(int(rows["kit"]["rank"]), int(rows["ada"]["rank"]))
        # The sandbox, its limits and the table on stdout.
        self.assertIn(doc["sandbox"]["method"], ("bwrap", "unshare", "none"))
        if doc["sandbox"]["method"] != "bwrap":
            self.assertTrue(doc["sandbox"]["warning"])
        self.assertRegex(out, r"11 students graded in \d+ s \(\d+ at a time on \d+ CPUs")
        # The bound the limits set (the shared build aside).
        limit = int(option(grade, "--student-limit-s"))
        bound = doc["shared_build_s"] + 120 + math.ceil(11 / doc["jobs"]) * limit
        self.assertLess(doc["wall_s"], bound)
        self.assertLess(wall, SHARED_BUILD_BOUND_S + bound)
        print("\n      the example class: %d students in %.0f s (%d at a time; shared build "
              "%.0f s)" % (len(rows), doc["wall_s"], doc["jobs"], doc["shared_build_s"]),
              file=sys.stderr)

    def test_stopped_grader_leaves_nothing(self):
        """SIGTERM while a student hangs: every command is killed, the
        scratch trees are removed, the exit status says so."""
        d = tempfile.mkdtemp(prefix="memboot-lab-course-stop-")
        atexit.register(shutil.rmtree, d, ignore_errors=True)
        klass = lab_class_fixture.make_class(os.path.join(d, "class"), ["gil"])
        p = subprocess.Popen([os.path.join(REPO_ROOT, "tools", "memboot"), "lab", "grade",
                              "--class", klass, "--csv", os.path.join(d, "g.csv"), "--no-guest"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        base = None
        for line in p.stderr:
            m = re.search(r"shared build \d+ s \((\S+)/base\)", line)
            base = base or (m and m.group(1))
            if base and "counted" in line:
                break
        self.assertIsNotNone(base, "no shared build line")
        time.sleep(5)               # the student's build has started
        t0 = time.monotonic()
        p.terminate()
        rc = p.wait(timeout=120)
        self.assertEqual(rc, 143)
        self.assertLess(time.monotonic() - t0, 60)
        self.assertFalse(os.path.exists(base), "the scratch trees are removed")

    def test_bad_input_is_refused_before_any_build(self):
        d = tempfile.mkdtemp(prefix="memboot-lab-course-bad-")
        atexit.register(shutil.rmtree, d, ignore_errors=True)
        klass = os.path.join(d, "class")
        os.makedirs(klass)
        with open(os.path.join(klass, "a.c"), "w") as f:
            f.write("/* empty */\n")
        os.makedirs(os.path.join(d, "empty"))
        hidden = os.path.join(d, "hidden")
        os.makedirs(hidden)
        with open(os.path.join(hidden, "checks"), "w") as f:
            f.write("random 2 seed=1\nrandom two\n")
        fifo_hidden = os.path.join(d, "fifo")
        os.makedirs(fifo_hidden)
        os.mkfifo(os.path.join(fifo_hidden, "checks"))
        csv_path = os.path.join(d, "g.csv")
        for args, words in (
                (["--class", os.path.join(d, "nope"), "--csv", csv_path], "not a directory"),
                (["--class", os.path.join(d, "empty"), "--csv", csv_path], "no STUDENT.c file"),
                (["--class", klass], "--class needs --csv FILE"),
                (["--class", klass, "--csv", os.path.join(d, "no", "g.csv")],
                 "does not exist"),
                (["--class", klass, "--csv", csv_path, "--hidden", hidden],
                 "checks line 2: the second word is the thread count"),
                (["--class", klass, "--csv", csv_path, "--hidden", fifo_hidden],
                 "is not a regular file"),
                (["--class", klass, "--csv", csv_path, "--sandbox", "bwrap", "--user",
                  "no-such-user-here"], "no such user"),
        ):
            if "--user" in args and os.geteuid() != 0:
                continue   # only root changes user
            t0 = time.monotonic()
            r = subprocess.run([os.path.join(REPO_ROOT, "tools", "memboot"), "lab", "grade"] +
                               args, capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 64, (args, r.stdout, r.stderr))
            self.assertIn(words, r.stderr)
            self.assertNotIn("Traceback", r.stderr)
            self.assertLess(time.monotonic() - t0, 60, "refused before any build")
            self.assertFalse(os.path.exists(csv_path))


if __name__ == "__main__":
    unittest.main()
