"""Tests for bench/memmap_results.py (make bench, make results): the median's
confidence interval it prints beside init/limit, and the way it reads the
benchmark binaries' lines into the table. Fake binaries; no benchmark runs."""

import math
import os
import stat
import tempfile
import textwrap
import unittest

from script_module import load_script

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
results = load_script(os.path.join(REPO_ROOT, "bench", "memmap_results.py"), "memmap_results")


def below(n, k):
    """P(B < k) for B ~ Binomial(n, 1/2), exactly."""
    return sum(math.comb(n, i) for i in range(k)) / 2 ** n


class MedianCI(unittest.TestCase):
    def test_published_ranks(self):
        # The ranks (1-based) of the 95 % interval in the usual tables of
        # the sign test's confidence interval for a median.
        for n, lo, hi in ((6, 1, 6), (9, 2, 8), (15, 4, 12), (20, 6, 15), (31, 10, 22)):
            self.assertEqual(results.median_ci(range(1, n + 1)), (lo, hi), n)

    def test_coverage_is_95_and_no_narrower_pair_has_it(self):
        for n in range(6, 64):
            lo, hi = results.median_ci(range(n))          # the values are their ranks - 1
            self.assertEqual(lo + hi, n - 1, n)           # symmetric
            self.assertGreaterEqual(1 - 2 * below(n, lo + 1), 0.95, n)
            if lo + 1 <= hi - 1:
                self.assertLess(1 - 2 * below(n, lo + 2), 0.95, n)

    def test_few_values_give_the_extremes(self):
        self.assertEqual(results.median_ci([1.2]), (1.2, 1.2))
        self.assertEqual(results.median_ci([1.3, 0.9, 1.0]), (0.9, 1.3))
        self.assertEqual(results.median_ci([5, 1, 4, 2, 3]), (1, 5))
        self.assertIsNone(results.median_ci([]))

    def test_unsorted_input(self):
        self.assertEqual(results.median_ci([15, 3, 9, 1, 12, 7, 5, 14, 2, 8, 11, 4, 13, 6, 10]),
                         (4, 12))

    def test_cell(self):
        line = {"init_over_limit": "1.0600", "ratios": ",".join(
            "%.4f" % (0.90 + 0.02 * i) for i in range(15))}
        self.assertEqual(results.ratio_cell(line), "1.06 (0.96-1.12)")
        # A line of an older binary, without the ratios: the median alone.
        self.assertEqual(results.ratio_cell({"init_over_limit": "1.0312"}), "1.03")


FAKE = """\
#!/bin/sh
echo "memmap-bench-cpu desc=%(d)d vendor=amd llc_bytes=33554432 llc_source=leaf0x8000001d node_array_bytes=67108864"
echo "memmap-bench-probe desc=%(d)d threads=1 store=nt probes=5 plain_picks=2 warm_bytes=33554432 bytes=16644096 plain_ns=752237 nt_ns=842662 plain_margin_pct=15"
echo "memmap-bench-ratio desc=%(d)d threads=1 limit=lim_nt init_over_limit=1.0700 min=0.9000 max=1.4000 reps=5 ratios=0.9000,1.0000,1.0700,1.1000,1.4000"
echo "memmap-bench desc=%(d)d threads=1 what=init ns_per_page=0.8000 gbps=20.0 min_ns_per_page=0.7000 max_ns_per_page=0.9000 pages=1000 nodes=2 chunks=8 reps=5"
echo "memmap-bench desc=%(d)d threads=1 what=lim_nt ns_per_page=0.7500 gbps=21.3 min_ns_per_page=0.7000 max_ns_per_page=0.8000 pages=1000 nodes=2 chunks=8 reps=5"
"""


class Table(unittest.TestCase):
    def test_the_row_shows_the_interval_from_the_binaries_lines(self):
        with tempfile.TemporaryDirectory() as d:
            for size in results.SIZES:
                path = os.path.join(d, "memmap_bench_%d" % size)
                with open(path, "w") as fh:
                    fh.write(textwrap.dedent(FAKE % {"d": size}))
                os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
            rows, cmds = results.run(d, ["--quick"])
        self.assertEqual(len(cmds), len(results.SIZES))
        text = results.section(rows, cmds, "make bench")
        lines = [l for l in text.splitlines() if l.startswith("| 16 | 1 | 0.80 (0.70)")]
        self.assertEqual(len(lines), 1, text)
        cells = [c.strip() for c in lines[0].strip("|").split("|")]
        # desc, threads, init, init GB/s, limit, limit GB/s, init/limit ...
        self.assertEqual(cells[4], "0.75 (nt)")
        self.assertEqual(cells[6], "1.07 (0.90-1.40)")
        self.assertIn("95 % confidence interval", text)


if __name__ == "__main__":
    unittest.main()
