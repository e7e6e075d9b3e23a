"""The kmem trace reader lab and run --replay share (tools/mbtools/kmemtrace.py):
every line lands in exactly one count, a pfn or order that is not a number
is an unparsed line (never order 0), a trace of only skipped events says
what was skipped, and a trace with more CPUs than can be replayed is refused
naming its count and the limit (issue case 11).

    python3 -m unittest tests/tools/test_kmem_trace.py -v
"""
import os
import shutil
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
from mbtools import kmemtrace, lab  # noqa: E402

ALLOC = "cc1-1 [%03d] .....   1.000001: mm_page_alloc: page=1 pfn=%s order=%s migratetype=0\n"
FREE = "cc1-1 [%03d] .....   1.000002: mm_page_free: page=1 pfn=%s order=%s\n"
COUNTS = ("alloc", "free", "unparsed") + kmemtrace.REPLAY_SKIPS[:-1]


class Reader(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="memboot-kmem-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def parse(self, text, reader=kmemtrace.parse_trace):
        path = os.path.join(self.dir, "t.trace")
        with open(path, "w") as f:
            f.write(text)
        return reader(path)

    def test_order_not_a_number_is_unparsed(self):
        text = (ALLOC % (0, "0x10", "-1") + ALLOC % (0, "0x20", "q") +
                ALLOC % (0, "0x30", "1e20") + ALLOC % (0, "0x40", "") +
                ALLOC % (0, "0xZZ", "0") + FREE % (0, "0x50", "x") +
                ALLOC % (0, "0x60", "2") + FREE % (0, "0x60", "2"))
        events, rep = self.parse(text)
        self.assertEqual(rep["unparsed"], 6)
        self.assertEqual(events, [(0, 0, 2, 0), (0, 1, 2, 0)])
        self.assertEqual(sum(rep[k] for k in COUNTS), rep["lines"])

    def test_only_skipped_events_say_why(self):
        text = (FREE % (0, "0x10", "0") + FREE % (1, "0x20", "0") +
                ALLOC % (0, "0x30", "100000000000000000000") + "junk line\n")
        with self.assertRaises(kmemtrace.TraceError) as e:
            self.parse(text)
        self.assertEqual(
            str(e.exception),
            "trace %s has nothing to replay: each of its 4 lines was skipped (2 frees of "
            "pages allocated before the trace, 1 orders above 10, 1 unparsed lines)"
            % os.path.join(self.dir, "t.trace"))
        with self.assertRaisesRegex(kmemtrace.TraceError,
                                    "has no kmem:mm_page_alloc/mm_page_free events "
                                    "\\(1 lines, none of them an event\\)"):
            self.parse("junk line\n")

    def test_300_cpus_in_the_lab(self):
        text = "".join(ALLOC % (c, hex(c + 1), 0) for c in range(300))
        self.assertEqual(kmemtrace.lab_max_threads(), 256)
        with self.assertRaises(lab.LabError) as e:
            self.parse(text, lab.parse_trace)
        self.assertIn("has events of 300 CPUs; the lab runs a thread per trace CPU "
                      "(bench/lab.c MAX_THREADS), at most 256", str(e.exception))
        # The guest's replay file holds them.
        events, rep = self.parse(text, kmemtrace.parse_replay_trace)
        self.assertEqual(rep["cpus"], 300)
        self.assertEqual(max(e[0] for e in events), 299)

    def test_replay_file_refuses_what_it_cannot_hold(self):
        rep = {"cpus": 65536}
        with self.assertRaisesRegex(kmemtrace.TraceError, "65536 trace CPUs: the replay "
                                                          "file holds at most 65535"):
            kmemtrace.write_replay([], rep, os.path.join(self.dir, "r.bin"))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "r.bin")))


if __name__ == "__main__":
    unittest.main()
