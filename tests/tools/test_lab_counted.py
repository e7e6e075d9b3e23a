"""Counted figures are the same on every run, and rank a slower design lower.

In a scratch copy of the tree (tracked files, build outputs with their
times), two students' allocators are registered: a first fit (the skeleton
filled by tests/tools/fixtures/lab/firstfit.ops) and the same first fit
searching twice (tests/tools/lab_class_fixture.py's `kit`). `tools/memboot
lab --counted` runs twice, each time with two busy loops beside it (the
host loaded on purpose): every counted figure (instructions, simulated
cache misses, lock acquisitions, per operation) of every row is identical
between the two runs, and on both the slower first fit has the lower index
on every workload, while the timed table may say what it likes.

    python3 -m unittest tests/tools/test_lab_counted.py -v
"""

import json
import os
import shutil
import subprocess
import sys
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
import lab_class_fixture  # noqa: E402
from mbtools import lab, lab_kit  # noqa: E402
from test_alloc_table import read  # noqa: E402
from test_lab_kit import scratch_tree  # noqa: E402

STUDENTS = {"myalloc": "ada", "slowfit": "kit"}
BUILD_TIMEOUT_S = 900

CALLGRIND_OUT = """# callgrind format
version: 1
positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
fl=bench/lab.c
fn=lab_counted_alloc
420 10 5
cfi=mm/alloc/x.c
cfn=x_alloc
calls=4 207
420 1000 100 50 1 2 3 0 1 2

fn=lab_counted_free
425 8
cfn=x_free
calls=4 229
425 400 40 20 0 1
fn=worker
cfn=lab_counted_alloc
calls=4 420
811 1010 105
"""


class Counted(unittest.TestCase):

    def test_parse_callgrind(self):
        c = lab.parse_callgrind(CALLGRIND_OUT)
        self.assertEqual(c["lab_counted_alloc"]["calls"], 4)
        self.assertEqual(c["lab_counted_alloc"]["Ir"], 1010)   # its own line and its call's
        self.assertEqual(c["lab_counted_alloc"]["D1mw"], 3)
        self.assertEqual(c["lab_counted_free"]["Ir"], 408)
        self.assertNotIn("worker", c)
        f = lab.counted_figures({"lock": {"acquired": 8}, "pages": 100}, c)
        self.assertEqual(f["ir_per_op"], (1010 + 408) / 8)
        self.assertEqual(f["alloc_ir"], 1010 / 4)
        self.assertEqual(f["locks_per_op"], 1.0)
        self.assertEqual(f["est_cycles_per_op"], (1418 + 10 * (1 + 2 + 3 + 1) + 100 * (1 + 2)) / 8)

    def test_same_on_every_run_and_the_slower_ranks_lower(self):
        if not shutil.which("valgrind"):
            self.skipTest("valgrind is not installed (tools/setup-deps.sh)")
        root = scratch_tree()
        table = os.path.join(root, "mm", "alloc", "table.h")
        for name, student in STUDENTS.items():
            with open(os.path.join(root, "mm", "alloc", name + ".c"), "w") as f:
                f.write(lab_class_fixture.submission(student))
            text = lab_kit.table_with(root, name)
            with open(table, "w") as f:
                f.write(text)
        r = subprocess.run(["make", "-s", "-j2", "build/bench/lab", "build/bench/lab-counted"],
                           cwd=root, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr[-2000:])
        runs = []
        for i in range(2):
            busy = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(2)]
            try:
                out = os.path.join(root, "run%d" % i)
                r = subprocess.run([os.path.join(root, "tools", "memboot"), "lab",
                                    "--allocators", "myalloc,slowfit",
                                    "--workloads", "kbuild,random", "--threads", "2",
                                    "--ops", "20000", "--mib", "64", "--counted", "--no-plot",
                                    "--out", out], cwd=root, capture_output=True, text=True,
                                   timeout=1800)
            finally:
                for b in busy:
                    b.kill()
                    b.wait()
            self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:])
            self.assertIn("counted (the deterministic run under callgrind", r.stdout)
            rows = json.loads(read(out + ".json"))["rows"]
            runs.append({(x["allocator"], x["workload"], x["threads"]): x["counted"]
                         for x in rows})
        self.assertEqual(sorted(runs[0]), sorted(runs[1]))
        for key in runs[0]:
            self.assertEqual(runs[0][key], runs[1][key], key)
        for counted in runs:
            for w in ("kbuild", "random"):
                slow, fast = counted[("slowfit", w, 2)], counted[("myalloc", w, 2)]
                self.assertGreater(slow["alloc_ir"], 1.3 * fast["alloc_ir"], w)
                self.assertLess(slow["index"], fast["index"], w)
        print("\n      counted twice beside two busy loops, identical: %s" % "; ".join(
            "%s %s x%d: %.0f instr/op, %.3f D1 misses/op, index %.0f" % (
                a, w, t, c["ir_per_op"], c["d1_miss_per_op"], c["index"])
            for (a, w, t), c in sorted(runs[0].items())), file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
