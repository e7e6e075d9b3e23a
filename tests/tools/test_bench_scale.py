"""tools/mbtools/scale.py: the --scale benchmark's parsing, tables and the
host-room check, with a fake booter (no QEMU)."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from mbtools import records, scale  # noqa: E402


def rec(**kw):
    return "MEMBOOT " + json.dumps(kw)


class FakeBooter:
    """ns/page = base + per_gib x node size, status 0, or a failed boot."""

    def __init__(self, ns_per_page, fail_sizes=()):
        self.ns_per_page = ns_per_page
        self.fail_sizes = set(fail_sizes)
        self.calls = []

    def boot(self, nodes, node_gib, policy, cpus_per_node=1):
        self.calls.append((nodes, node_gib, policy))
        pages = node_gib * scale.GIB // scale.PAGE_BYTES
        text = [rec(event="node_init", node=n, policy=policy, threads=1,
                    free_pages=pages - 100,
                    pages=pages - 4000, ns=int((pages - 100) * self.ns_per_page(node_gib, n)))
                for n in range(nodes)]
        status = 5 if node_gib in self.fail_sizes else 0
        text.append(rec(event="done", ok=status == 0, status=status))
        return records.parse_log("\n".join(text)).records


class ScaleTests(unittest.TestCase):

    def test_records_of_a_console(self):
        text = "[ 0.1] hello\nMEMBOOT {\"event\":\"node_init\",\"node\":0,\"ns\":5,\"threads\":1,\"pages\":2}\n" \
               "MEMBOOT {\"event\":\"done\",\"ok\":true,\"status\":0}\nMEMBOOT {broken\n"
        recs = records.parse_log(text).records
        self.assertEqual([r["event"] for r in recs], ["node_init", "done"])
        self.assertTrue(scale.boot_ok(recs))
        self.assertFalse(scale.boot_ok(recs[:1]))

    def test_scale_rows_min_and_median_per_size(self):
        seq = iter([3.0, 5.0, 4.0, 6.0, 9.0, 7.0])
        booter = FakeBooter(lambda gib, n: next(seq))
        rows = scale.scale_table(booter, [2, 8], ["deferred"], 3)
        self.assertEqual([(r["node_gib"], r["boots"]) for r in rows], [(2, 3), (8, 3)])
        self.assertAlmostEqual(rows[0]["min_ns_per_page"], 3.0, places=3)
        self.assertAlmostEqual(rows[0]["median_ns_per_page"], 4.0, places=3)
        self.assertAlmostEqual(rows[1]["min_ns_per_page"], 6.0, places=3)
        self.assertEqual(rows[1]["pages"], 8 * scale.GIB // 4096 - 100)
        table = scale.format_scale(rows)
        self.assertIn("| deferred | 8 GiB | 2097052 | 6.00 | 7.00 | 3 of 3 |", table)

    def test_failed_boots_are_left_out_and_shown(self):
        booter = FakeBooter(lambda gib, n: 2.0, fail_sizes=[32])
        rows = scale.scale_table(booter, [2, 32], ["lazy"], 2)
        self.assertEqual(rows[1]["boots"], 0)
        self.assertIsNone(rows[1]["min_ns_per_page"])
        self.assertIn("| lazy | 32 GiB | 0 | - | - | 0 of 2 |", scale.format_scale(rows))

    def test_seed004_table_beside_the_seed(self):
        booter = FakeBooter(lambda gib, n: 10.0 + n)
        rows = scale.seed004_table(booter, "deferred", 1)
        self.assertEqual(len(rows), 16)
        self.assertEqual(booter.calls, [(16, 128, "deferred")])
        table = scale.format_seed004(rows).splitlines()
        # Node 9 of the seed: 16607461 pages in 280 ms, 16.86 ns/page.
        row9 = next(line for line in table if line.startswith("| 9 |"))
        self.assertIn("| 16607461 | 280 | 16.86 |", row9)
        self.assertIn("| 19.00 |", row9)   # memboot's 19 ns/page for node 9

    def test_host_room(self):
        need = scale.descriptor_bytes(16, 128)
        self.assertEqual(need, 8 * scale.GIB)
        self.assertTrue(scale.host_has_room(16, 128, 12 * scale.GIB))
        self.assertFalse(scale.host_has_room(16, 128, 11 * scale.GIB))
        self.assertFalse(scale.host_has_room(16, 128, None))
        with tempfile.NamedTemporaryFile("w", delete=False) as f:
            f.write("MemTotal: 100 kB\nMemAvailable:   2048 kB\n")
        try:
            self.assertEqual(scale.mem_available_bytes(f.name), 2048 * 1024)
        finally:
            os.unlink(f.name)
        self.assertIsNone(scale.mem_available_bytes("/nonexistent/meminfo"))

    def test_run_prints_tables_and_skips_seed004_without_room(self):
        import argparse
        import io
        booter = FakeBooter(lambda gib, n: 2.0 + gib / 64)
        orig = scale.Booter, scale.mem_available_bytes
        scale.Booter = lambda memboot, elf=None, arch=None: booter
        scale.mem_available_bytes = lambda: 4 * scale.GIB
        try:
            p = argparse.ArgumentParser()
            p.add_argument("--boots", type=int)
            p.add_argument("--json")
            scale.add_arguments(p)
            with tempfile.TemporaryDirectory() as d:
                js = os.path.join(d, "s.json")
                args = p.parse_args(["--scale-sizes", "2,128", "--scale-policies", "lazy",
                                     "--boots", "2", "--json", js])
                out, err = io.StringIO(), io.StringIO()
                self.assertEqual(scale.run(args, "memboot", out=out, err=err), 0)
                with open(js) as f:
                    saved = json.load(f)
            text = out.getvalue()
            self.assertIn("| lazy | 128 GiB | 33554332 | 4.00 | 4.00 | 2 of 2 |", text)
            self.assertIn("skipped: the descriptors need 8.0 GiB", text)
            self.assertIsNone(saved["seed004"])
            self.assertEqual([r["node_gib"] for r in saved["scale"]], [2, 128])
            self.assertEqual(booter.calls, [(1, 2, "lazy")] * 2 + [(1, 128, "lazy")] * 2)
            bad = p.parse_args(["--scale-sizes", "2,0"])
            self.assertEqual(scale.run(bad, "memboot", out=out, err=err), 64)
            self.assertIn("node sizes are 1 to 1024 GiB", err.getvalue())
        finally:
            scale.Booter, scale.mem_available_bytes = orig


if __name__ == "__main__":
    unittest.main()
