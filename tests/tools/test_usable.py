"""Tests for bench/usable.py (make bench-usable): its configuration syntax,
its refusals, and the figures it takes from a boot's records. No QEMU."""

import contextlib
import io
import os
import unittest

from script_module import load_script

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
usable = load_script(os.path.join(REPO_ROOT, "bench", "usable.py"), "usable_bench")


class FakeBoot:
    """What figures() reads of mbtools.boot.Boot."""

    def __init__(self, status, records):
        self.status = status
        self.records = records

    @property
    def done(self):
        return next((r for r in self.records if r["event"] == "done"), None)

    def all(self, event):
        return [r for r in self.records if r["event"] == event]


def usage_error(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            usable.main(argv)
        except SystemExit as e:
            return e.code, err.getvalue()
    raise AssertionError("no usage error for %r" % (argv,))


class Configs(unittest.TestCase):

    def test_forms(self):
        self.assertEqual(usable.parse_config("r=build/release/memboot.elf"),
                         ("r", "build/release/memboot.elf", False, ""))
        self.assertEqual(usable.parse_config("r=k.elf,prealloc"), ("r", "k.elf", True, ""))
        # append= takes the rest, commas and spaces included.
        self.assertEqual(usable.parse_config("q=k.elf,prealloc,append=quiet a=1,2"),
                         ("q", "k.elf", True, "quiet a=1,2"))

    def test_bad_forms_are_named(self):
        for text, msg in (("k.elf", "is not NAME=ELF"), ("=k.elf", "is not NAME=ELF"),
                          ("r=", "is not NAME=ELF"), ("r=k.elf,fast", "unknown option 'fast'"),
                          ("r=,prealloc", "names no ELF")):
            with self.assertRaises(ValueError) as cm:
                usable.parse_config(text)
            self.assertIn(msg, str(cm.exception), text)

    def test_refusals_are_usage_errors(self):
        code, err = usage_error(["--config", "a=/nonexistent/memboot.elf"])
        self.assertEqual(code, 2)
        self.assertIn("no kernel at /nonexistent/memboot.elf", err)
        code, err = usage_error(["--boots", "0"])
        self.assertEqual((code, "--boots 0: at least 1" in err), (2, True))
        elf = os.path.join(REPO_ROOT, "bench", "usable.py")   # any file will do
        code, err = usage_error(["--config", "a=%s" % elf, "--config", "a=%s" % elf])
        self.assertIn("the name 'a' is given twice", err)
        code, err = usage_error(["--config", "a=%s,append=\x00" % elf])
        self.assertEqual(code, 2)
        self.assertNotIn("Traceback", err)


class Figures(unittest.TestCase):

    def test_figures_of_a_boot(self):
        recs = [
            {"event": "tsc", "ns": 1400000},
            {"event": "phase", "name": "early", "start_ns": 1200000, "ns": 4800000},
            {"event": "phase", "name": "meminit", "ns": 3500000},
            {"event": "smp", "tsc_sync_ns": 900000},
            {"event": "node_init", "node": 0, "wait_ns": 700000},
            {"event": "node_init", "node": 1, "wait_ns": 900000},
            {"event": "summary", "outside_ns": 50000000},
            {"event": "done", "usable_ns": 33000000, "total_ns": 85000000},
        ]
        f = usable.figures(FakeBoot(0, recs))
        self.assertEqual(f["usable"], 33.0)
        self.assertEqual(f["total"], 85.0)
        self.assertEqual(f["phase early"], 4.8)
        self.assertEqual(f["before early"], 1.2)
        self.assertEqual(f["node 1 wait"], 0.9)
        self.assertEqual(f["tsc_sync check"], 0.9)
        self.assertEqual(f["tsc calibration"], 1.4)
        # Inside phase smp here: a slow boot may be blamed on it.
        self.assertNotIn("tsc_sync check", f[usable_after()])
        # In phase tscsync, after memory is usable: not among the causes.
        later = recs[:3] + [{"event": "phase", "name": "tscsync", "start_ns": 34000000,
                             "ns": 900000}] + recs[3:]
        f = usable.figures(FakeBoot(0, later))
        self.assertEqual(f["tsc_sync check"], 0.9)
        self.assertIn("tsc_sync check", f[usable_after()])
        self.assertIn("phase tscsync", f[usable_after()])
        # A boot that failed, or never said done, gives nothing.
        self.assertIsNone(usable.figures(FakeBoot(5, recs)))
        self.assertIsNone(usable.figures(FakeBoot(0, recs[:-1])))

    def test_table_puts_usable_last_and_marks_missing(self):
        res = {"a": [{"phase early": 1.0, "usable": 30.0, "total": 80.0},
                     {"phase early": 3.0, "usable": 32.0, "total": 90.0}],
               "b": [{"usable": 40.0, "total": 99.0}, None]}
        lines = usable.table(["a", "b"], res, 2)
        self.assertEqual(lines[0], "| figure (median of 2, ms) | a | b | b - a |")
        self.assertEqual(lines[2], "| phase early | 2.00 | - | - |")
        # b's second boot failed: the difference is of the first round only.
        self.assertEqual(lines[-2], "| usable | 31.00 | 40.00 | +10.00 |")
        self.assertEqual(lines[-1], "| total | 85.00 | 99.00 | +19.00 |")

    def test_paired_difference_follows_the_host_not_the_medians(self):
        # The host slows down from round to round; b is always 1 ms faster
        # than a in the same round. The medians differ by 3 ms, because
        # b's failed round was a fast one; the paired median says -1.
        a = [{"usable": 30.0}, {"usable": 40.0}, {"usable": 50.0}, {"usable": 60.0}]
        b = [None, {"usable": 39.0}, {"usable": 49.0}, {"usable": 59.0}]
        self.assertEqual(usable.paired_median(a, b, "usable"), -1.0)
        lines = usable.table(["a", "b"], {"a": a, "b": b}, 4)
        self.assertEqual(lines[-2], "| usable | 45.00 | 49.00 | -1.00 |")
        self.assertIsNone(usable.paired_median(a, [None] * 4, "usable"))


class SlowBoots(unittest.TestCase):

    @staticmethod
    def boot(usable, smp, census=1.5, after=("phase census",)):
        return {"phase smp": smp, "phase early": 5.0, "phase census": census,
                "usable": usable, "total": usable + 60, usable_after(): set(after)}

    def test_a_slow_boot_is_named_by_its_phase(self):
        figs = [self.boot(28.0, 4.0), self.boot(28.5, 4.1), None,
                self.boot(36.0, 11.5, census=9.0), self.boot(29.0, 4.2)]
        slow = usable.slow_boots(figs)
        # Boot 4 (the third finished): 7.5 ms over the median of 28.75, all
        # of it in smp; census ends after usable and is not blamed.
        self.assertEqual(len(slow), 1)
        n, ms, excess, rows = slow[0]
        self.assertEqual((n, ms), (4, 36.0))
        self.assertAlmostEqual(excess, 7.25)
        self.assertEqual([r for r, _ in rows], ["phase smp"])
        self.assertAlmostEqual(rows[0][1], 11.5 - 4.15)

    def test_no_slow_boot_no_failed_boot(self):
        self.assertEqual(usable.slow_boots([self.boot(28.0, 4.0), self.boot(29.5, 4.0)]), [])
        self.assertEqual(usable.slow_boots([None, None]), [])

    def test_figures_lists_the_phases_after_usable(self):
        recs = [
            {"event": "phase", "name": "meminit", "start_ns": 20000000, "ns": 5000000},
            {"event": "phase", "name": "census", "start_ns": 70000000, "ns": 1000000},
            {"event": "done", "usable_ns": 25000000, "total_ns": 90000000},
        ]
        f = usable.figures(FakeBoot(0, recs))
        self.assertEqual(f[usable_after()], {"phase census"})
        # The table shows figures only.
        lines = usable.table(["a"], {"a": [f]}, 1)
        self.assertFalse(any(usable_after() in line for line in lines), lines)


def usable_after():
    return usable.AFTER_USABLE


if __name__ == "__main__":
    unittest.main()
