"""Tests for bench/translated.py (make bench-translated): main.c's phase lines
as it reads them, QEMU's translation log and nm's symbols as it parses them,
and how it splits a boot's translated instructions into phases. No QEMU."""

import contextlib
import io
import os
import re
import unittest

from script_module import load_script

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
tr = load_script(os.path.join(REPO_ROOT, "bench", "translated.py"), "translated_bench")


def read(*path):
    with open(os.path.join(REPO_ROOT, *path), encoding="utf-8") as f:
        return f.read()


class PhaseLines(unittest.TestCase):

    def test_main_c(self):
        calls = tr.phase_calls(read("kernel", "init", "main.c"))
        names = [p for p, _ in calls]
        self.assertEqual(calls[0], ("early", "init_early"))
        self.assertIn(("bootinfo", "init_bootinfo"), calls)     # "boot_ok = f(...)"
        self.assertIn(("meminit", "init_meminit"), calls)
        self.assertIn(tr.USABLE_AFTER, names)
        self.assertLess(names.index(tr.USABLE_AFTER), len(names) - 1)
        # One source: docs/records.md's `phase` record points to the table
        # (kernel/init/phases.h) and names only phases main.c runs
        # (tests/tools/test_phases.py checks every doc the same way).
        row = next(l for l in read("docs", "records.md").splitlines()
                   if l.startswith("| `name` | string |"))
        self.assertIn("kernel/init/phases.h", row)
        documented = re.findall(r"`(\w+)`", row.split("|")[3])
        self.assertTrue(documented)
        self.assertEqual([d for d in documented if d not in names], [])

    def test_forms(self):
        src = '''PHASE(a, f(x));\n  PHASE("b", ok = g(&bs.y, 1));\n PHASE(c, s.t = h());
                 if (z) PHASE("a", f(y));'''
        self.assertEqual(tr.phase_calls(src), [("a", "f"), ("b", "g"), ("c", "h")])


class Logs(unittest.TestCase):

    def test_in_asm(self):
        text = ("----------------\nIN: \n0x000ffff0:  ea 5b e0 00 f0     ljmpw $0xf000:$0xe05b\n\n"
                "----------------\nIN: kernel_main\n0x00100000:  fa   cli\n"
                "0x00100001:  fc   cld\nOBJD-T: 0f0b\n")
        self.assertEqual(tr.parse_in_asm(text), [0xffff0, 0x100000, 0x100001])
        self.assertEqual(tr.parse_in_asm(""), [])

    def test_nm(self):
        text = ("0000000000100000 T arch_entry32\n"
                "0000000000100040 0000000000000010 T kernel_main\n"
                "0000000000100050 0000000000000020 t early_init\n"
                "0000000000200000 0000000000000008 D data\n"
                "0000000000300000 T last_label\n"
                "garbage line\n")
        syms = tr.parse_nm(text)
        # A label reaches the next symbol; the last one LABEL_MAX_BYTES.
        self.assertEqual(syms, [(0x100000, 0x40, "arch_entry32"), (0x100040, 0x10, "kernel_main"),
                                (0x100050, 0x20, "early_init"),
                                (0x300000, tr.LABEL_MAX_BYTES, "last_label")])
        s = tr.Symbols(syms)
        self.assertEqual(s.name(0x10003f), "arch_entry32")
        self.assertEqual(s.name(0x10004f), "kernel_main")
        self.assertIsNone(s.name(0x100070))
        self.assertIsNone(s.name(0xffff0))


class Count(unittest.TestCase):
    # Four functions of 16 bytes; each instruction below is one address.
    SYMS = tr.Symbols([(0x1000, 16, "kernel_main"), (0x1010, 16, "f_early"),
                       (0x1020, 16, "f_mem"), (0x1030, 16, "f_after")])
    PHASES = [("early", "f_early"), ("meminit", "f_mem"), ("after", "f_after")]

    def test_rows(self):
        pcs = [0xfff0, 0xfff1,             # firmware
               0x1000, 0x1001,             # kernel_main before the first phase
               0x1010, 0x1011, 0x90000,    # early (the trampoline: outside)
               0x1020, 0x1012, 0x1021,     # meminit (an AP running early's code)
               0x1030, 0x1031]             # after: past usable
        c = tr.count(pcs, self.SYMS, self.PHASES)
        self.assertEqual(c, {tr.OUTSIDE: 3, "before early": 2, "early": 2, "meminit": 3,
                             "after": 2, "before usable": 7})
        # Old kernels: usable inside meminit, at f_after's first run there.
        c = tr.count(pcs[:9] + [0x1030] + pcs[9:], self.SYMS, self.PHASES[:2],
                     usable_at="f_after")
        self.assertEqual(c["before usable"], 6)
        self.assertEqual(c["meminit"], 6)
        # Where the next phase comes first, usable_at changes nothing.
        self.assertEqual(tr.count(pcs, self.SYMS, self.PHASES, usable_at="f_after"),
                         tr.count(pcs, self.SYMS, self.PHASES))

    def test_inlined_first_phase_starts_at_kernel_main(self):
        pcs = [0x1000, 0x1001, 0x1020, 0x1030]
        c = tr.count(pcs, self.SYMS, [("early", "inlined_away")] + self.PHASES[1:])
        self.assertEqual((c["before early"], c["early"], c["meminit"]), (0, 2, 1))
        self.assertEqual(c["before usable"], 3)

    def test_a_phase_that_never_ran_is_absent(self):
        pcs = [0x1000, 0x1010, 0x1030]
        c = tr.count(pcs, self.SYMS, self.PHASES)
        self.assertNotIn("meminit", c)
        # No meminit: nothing marks usable; every kernel instruction counts.
        self.assertEqual(c["before usable"], 3)


class Refusals(unittest.TestCase):

    def usage_error(self, argv):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            with self.assertRaises(SystemExit) as cm:
                tr.main(argv)
        return cm.exception.code, err.getvalue()

    def test_named(self):
        code, err = self.usage_error(["--config", "a=/nonexistent/memboot.elf"])
        self.assertEqual(code, 2)
        self.assertIn("no kernel at /nonexistent/memboot.elf", err)
        code, err = self.usage_error(["--config", "k.elf"])
        self.assertIn("is not NAME=ELF", err)
        code, err = self.usage_error(["--nodes", "0"])
        self.assertIn("at least 1", err)
        self.assertNotIn("Traceback", err)


if __name__ == "__main__":
    unittest.main()
