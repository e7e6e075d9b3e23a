"""tools/check-includes.py: the repository follows the include rules, and a
bad include in a small tree of its own is found and named.

    python3 -m unittest tests/tools/test_check_includes.py -v
"""

import io
import contextlib
import os
import subprocess
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO_ROOT, "tools", "check-includes.py")
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
from script_module import load_script  # noqa: E402

ci = load_script(SCRIPT, "check_includes")


class Repository(unittest.TestCase):

    def test_repository_follows_the_rules(self):
        proc = subprocess.run([sys.executable, SCRIPT], capture_output=True,
                              text=True, cwd=REPO_ROOT)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("follow the include rules", proc.stdout)


class SmallTree(unittest.TestCase):
    """A tree of a few files, one layer each, checked without git."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="memboot-includes-")
        self.root = self.tmp.name
        self.write("kernel/services/log.h", "#pragma once\n")
        self.write("kernel/firmware/acpi/acpi.h", '#include "kernel/services/log.h"\n')
        self.write("boot/bootinfo.h", '#include "kernel/services/log.h"\n')
        self.write("mm/page.h", '#include "kernel/services/log.h"\n#include <stdint.h>\n')
        self.write("arch/x86_64/include/x86/cpu.h", '#include "kernel/services/log.h"\n')
        self.write("kernel/init/main.c", '#include "boot/bootinfo.h"\n#include "mm/page.h"\n'
                   '#include "arch/cpu.h"\n#include "kernel/firmware/acpi/acpi.h"\n')

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def run_check(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = ci.main(["--root", self.root])
        return code, out.getvalue()

    def violations(self):
        found, _ = ci.check(self.root, ci.sources(self.root))
        return [(path, line, target) for path, line, target, _, _ in found]

    def test_good_tree_passes(self):
        # Checked against an exception list of the test's own, so the result
        # does not depend on what the repository still lists.
        saved = dict(ci.EXCEPTIONS)
        try:
            ci.EXCEPTIONS.clear()
            self.assertEqual(self.violations(), [])
            code, out = self.run_check()
            self.assertEqual(code, 0, out)
            self.assertIn("follow the include rules", out)
            # An exception the tree no longer needs fails the check.
            ci.EXCEPTIONS[("mm/numa.c", "boot/bootinfo.h")] = "a stale exception"
            code, out = self.run_check()
            self.assertEqual(code, 1)
            self.assertIn("exception (mm/numa.c, boot/bootinfo.h) no longer needed", out)
        finally:
            ci.EXCEPTIONS.clear()
            ci.EXCEPTIONS.update(saved)

    def test_each_rule(self):
        self.write("kernel/services/spinlock.h", '#include <stdint.h>\n\n#include "boot/bootinfo.h"\n')
        self.write("kernel/services/clock/time.c", '#include "mm/page.h"\n')
        self.write("mm/memmap.c", '#include "kernel/firmware/acpi/acpi.h"\n#include "boot/bootinfo.h"\n')
        self.write("arch/x86_64/apic.c", '#include "mm/page.h"\n')
        self.write("boot/boot.c", '#include "x86/cpu.h"\n#include "mm/page.h"\n')
        self.write("kernel/firmware/acpi/srat.c", '#include "x86/cpu.h"\n')
        self.write("kernel/services/console/out/render.c", '#include "tools/topo/dump.h"\n')
        self.write("tools/topo/dump.h", "\n")
        self.assertEqual(sorted(self.violations()), [
            ("arch/x86_64/apic.c", 1, "mm/page.h"),
            ("boot/boot.c", 2, "mm/page.h"),
            ("kernel/firmware/acpi/srat.c", 1, "arch/x86_64/include/x86/cpu.h"),
            ("kernel/services/clock/time.c", 1, "mm/page.h"),
            ("kernel/services/console/out/render.c", 1, "tools/topo/dump.h"),
            ("kernel/services/spinlock.h", 3, "boot/bootinfo.h"),
            ("mm/memmap.c", 2, "boot/bootinfo.h"),
        ])
        code, out = self.run_check()
        self.assertEqual(code, 1)
        self.assertIn("kernel/services/spinlock.h:3: includes boot/bootinfo.h: services code "
                      "may not include boot code", out)

    def test_phase_files_may_include_anything(self):
        self.write("kernel/init/meminit.c", '#include "boot/bootinfo.h"\n#include "mm/page.h"\n')
        self.assertEqual(self.violations(), [])

    def test_the_directory_is_the_layer(self):
        # The same include, allowed or not by where the file lies: a file of
        # kernel/init/ may include mm/, one at kernel/'s root (a service)
        # may not, whatever its name.
        self.write("kernel/init/newphase.c", '#include "mm/page.h"\n')
        self.write("kernel/services/newphase.c", '#include "mm/page.h"\n')
        self.write("kernel/vm/vm.c", '#include "mm/page.h"\n#include "arch/cpu.h"\n')
        self.assertEqual(self.violations(), [("kernel/services/newphase.c", 1, "mm/page.h")])
        self.assertEqual(ci.layer_of("kernel/init/newphase.c"), "phase")
        self.assertEqual(ci.layer_of("kernel/services/newphase.c"), "services")
        self.assertEqual(ci.layer_of("kernel/selftest/x.c"), "selftest")
        self.assertEqual(ci.layer_of("kernel/vm/x.c"), "vm")
        self.assertEqual(ci.layer_of("kernel/firmware/acpi/x.c"), "acpi")
        self.assertEqual(ci.layer_of("mm/alloc/x.c"), "mm")

    def test_a_new_selftest_may_not_reach_into_the_phases(self):
        # A new file dropped into kernel/selftest/ is a self-test: it may
        # use vm, mm and services, but what it needs of the boot it is
        # handed, so a phase header is a violation.
        self.write("kernel/init/meminit.h", '#include "mm/page.h"\n')
        self.write("kernel/vm/vm.h", '#include "mm/page.h"\n')
        self.write("kernel/selftest/newtest.c", '#include "kernel/vm/vm.h"\n#include "mm/page.h"\n'
                   '#include "kernel/services/log.h"\n#include "kernel/init/meminit.h"\n')
        self.assertEqual(self.violations(), [("kernel/selftest/newtest.c", 4,
                                              "kernel/init/meminit.h")])
        code, out = self.run_check()
        self.assertEqual(code, 1)
        self.assertIn("kernel/selftest/newtest.c:4: includes kernel/init/meminit.h: selftest "
                      "code may not include phase code", out)
        # vm and services may not include a self-test either.
        self.write("kernel/selftest/selftest.h", "\n")
        self.write("kernel/vm/vm.c", '#include "kernel/selftest/selftest.h"\n')
        self.write("kernel/services/clock/time.c", '#include "kernel/selftest/selftest.h"\n')
        self.assertIn(("kernel/vm/vm.c", 1, "kernel/selftest/selftest.h"), self.violations())
        self.assertIn(("kernel/services/clock/time.c", 1, "kernel/selftest/selftest.h"), self.violations())

    def test_exceptions_are_honoured_and_must_be_used(self):
        # An exception of its own: the real list shrinks to nothing as the
        # violations are fixed.
        pair = ("kernel/services/params.h", "mm/hugetlb/hugetlb.h")
        self.write("kernel/services/params.h", '#include "mm/hugetlb/hugetlb.h"\n')
        self.write("mm/hugetlb/hugetlb.h", "\n")
        saved = dict(ci.EXCEPTIONS)
        ci.EXCEPTIONS[pair] = "a test's own exception"
        try:
            found, used = ci.check(self.root, ci.sources(self.root))
        finally:
            ci.EXCEPTIONS.clear()
            ci.EXCEPTIONS.update(saved)
        self.assertEqual(found, [])
        self.assertIn(pair, used)

    def test_bad_usage(self):
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual(ci.main(["--root", os.path.join(self.root, "none")]), 64)
            self.assertEqual(ci.main(["--bogus"]), 64)


if __name__ == "__main__":
    unittest.main()
