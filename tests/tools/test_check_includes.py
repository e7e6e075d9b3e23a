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
        # The repository's temporary exceptions name real files of the tree:
        # each test here starts with none.
        self.saved_exceptions = dict(ci.EXCEPTIONS)
        ci.EXCEPTIONS.clear()
        self.tmp = tempfile.TemporaryDirectory(prefix="memboot-includes-")
        self.root = self.tmp.name
        self.write("kernel/services/log.h", "#pragma once\n")
        self.write("kernel/firmware/acpi/acpi.h", '#include "kernel/services/log.h"\n')
        self.write("boot/bootinfo.h", '#include "kernel/services/log.h"\n')
        self.write("mm/page.h", '#include "kernel/services/log.h"\n#include <stdint.h>\n')
        # The interface, x86_64's inline part and own header, arm64's inline
        # part; x86_64's boot protocol mb2 (arch/x86_64/arch.mk).
        self.write("arch/include/arch/cpu.h", '#include "asm/cpu.h"\n')
        self.write("arch/x86_64/include/asm/cpu.h", '#include "x86/cpu.h"\n')
        self.write("arch/x86_64/include/x86/cpu.h", '#include "kernel/services/log.h"\n')
        self.write("arch/x86_64/cpu.c", '#include "arch/cpu.h"\n#include "x86/cpu.h"\n'
                   '#include "kernel/services/spinlock.h"\n')
        self.write("arch/x86_64/arch.mk", "x86_64_PORT := yes\nx86_64_BOOT := mb2 pvh\n")
        self.write("arch/arm64/include/asm/cpu.h", '#include "kernel/services/limits.h"\n')
        self.write("arch/arm64/arch.mk", "arm64_CC := aarch64-linux-gnu-gcc\n")
        self.write("boot/mb2/mb2.c", '#include "boot/bootinfo.h"\n#include "x86/cpu.h"\n')
        self.write("kernel/init/main.c", '#include "boot/bootinfo.h"\n#include "mm/page.h"\n'
                   '#include "arch/cpu.h"\n#include "kernel/firmware/acpi/acpi.h"\n')

    def tearDown(self):
        ci.EXCEPTIONS.clear()
        ci.EXCEPTIONS.update(self.saved_exceptions)
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
        return [(path, line, target) for path, line, target, _, _, _ in found]

    def why(self, path):
        found, _ = ci.check(self.root, ci.sources(self.root))
        return [w for p, _, _, _, _, w in found if p == path]

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
            ("boot/boot.c", 1, "arch/x86_64/include/x86/cpu.h"),
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
        self.assertIn("boot/boot.c:1: includes arch/x86_64/include/x86/cpu.h: generic code "
                      "includes only the architecture interface (arch/include/arch/)", out)

    def test_generic_code_includes_only_the_interface(self):
        # An architecture's own header ("x86/...") and its inline part
        # ("asm/...") are for architecture code: generic code of every layer,
        # kernel/init/ too, reaches them through arch/NAME.h.
        self.write("kernel/init/smp.c", '#include "arch/cpu.h"\n#include "x86/cpu.h"\n')
        self.write("mm/memmap.c", '#include "asm/cpu.h"\n')
        self.write("kernel/services/spinlock.h", '#include "arch/cpu.h"\n')
        self.assertEqual(sorted(self.violations()), [
            ("kernel/init/smp.c", 2, "arch/x86_64/include/x86/cpu.h"),
            ("mm/memmap.c", 1, "arch/x86_64/include/asm/cpu.h")])

    def test_no_include_by_a_full_arch_path(self):
        # Spelled whole, even where the header itself would be allowed.
        self.write("kernel/init/smp.c", '#include "arch/x86_64/include/x86/cpu.h"\n')
        self.write("arch/x86_64/smp.c", '#include "arch/x86_64/include/x86/cpu.h"\n')
        self.assertEqual(sorted(self.violations()), [
            ("arch/x86_64/smp.c", 1, "arch/x86_64/include/x86/cpu.h"),
            ("kernel/init/smp.c", 1, "arch/x86_64/include/x86/cpu.h")])
        self.assertIn("write it from the architecture's include directory",
                      self.why("arch/x86_64/smp.c")[0])
        self.assertIn("use the interface, arch/NAME.h", self.why("kernel/init/smp.c")[0])

    def test_arch_code_includes_a_short_list_of_services(self):
        # log, panic, spinlock, limits, mem_range, record, cmdline, percpu,
        # the calibration arithmetic, the delays: nothing else of kernel/ (the
        # jobs service here), and never
        # another architecture's headers.
        self.write("arch/x86_64/tsc.c", '#include "kernel/services/report/record.h"\n'
                   '#include "kernel/services/jobs/job.h"\n#include "mm/page.h"\n')
        self.write("arch/include/arch/clock.h", '#include "kernel/services/console.h"\n'
                   '#include "x86/cpu.h"\n#include "asm/cpu.h"\n')
        self.write("arch/arm64/timer.c", '#include "x86/cpu.h"\n#include "asm/cpu.h"\n')
        self.assertEqual(sorted(self.violations()), [
            ("arch/arm64/timer.c", 1, "arch/x86_64/include/x86/cpu.h"),
            ("arch/include/arch/clock.h", 1, "kernel/services/console.h"),
            ("arch/include/arch/clock.h", 2, "arch/x86_64/include/x86/cpu.h"),
            ("arch/x86_64/tsc.c", 2, "kernel/services/jobs/job.h"),
            ("arch/x86_64/tsc.c", 3, "mm/page.h")])
        self.assertIn("only the services of ARCH_SERVICES", self.why("arch/x86_64/tsc.c")[0])
        self.assertIn("architecture code includes only its own architecture's headers "
                      "(arm64's, not x86_64's)", self.why("arch/arm64/timer.c")[0])
        self.assertIn("only each architecture's inline part, asm/SUBJECT.h",
                      self.why("arch/include/arch/clock.h")[1])
        self.assertEqual(sorted(ci.ARCH_SERVICES), [
            "kernel/services/clock/clockcal.h", "kernel/services/clock/time.h",
            "kernel/services/cmdline.h", "kernel/services/limits.h", "kernel/services/log.h",
            "kernel/services/mem_range.h", "kernel/services/panic.h", "kernel/services/percpu.h",
            "kernel/services/report/record.h", "kernel/services/spinlock.h"])

    def test_a_boot_protocol_includes_its_own_architectures_headers(self):
        # mb2 is x86_64's (x86_64_BOOT); a protocol of no architecture, or
        # of another, may not reach x86's headers; boot/ itself never.
        self.write("boot/dt/dt.c", '#include "x86/cpu.h"\n#include "boot/bootinfo.h"\n')
        self.write("boot/boot.c", '#include "boot/mb2/mb2.h"\n')
        self.write("boot/mb2/mb2.h", '#include "arch/cpu.h"\n')
        self.assertEqual(self.violations(), [("boot/dt/dt.c", 1, "arch/x86_64/include/x86/cpu.h")])
        self.assertIn("boot protocol code includes only its own architecture's headers "
                      "(None's, not x86_64's)", self.why("boot/dt/dt.c")[0])
        self.assertEqual(ci.layer_of("boot/mb2/mb2.c"), "bootproto")
        self.assertEqual(ci.layer_of("boot/bootinfo.c"), "boot")

    def test_upward_arrows(self):
        # x86_64's code including a service of the list is allowed, one
        # beyond it is not; both run up, both are printed and counted.
        self.write("arch/x86_64/tsc.c", '#include "kernel/services/log.h"\n'
                   '#include "kernel/services/jobs/job.h"\n')
        self.write("kernel/services/jobs/job.h", "\n")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = ci.main(["--root", self.root, "--upward"])
        self.assertEqual(code, 0)
        lines = out.getvalue().splitlines()
        self.assertIn("arch/x86_64/ -> kernel/services/: 2 includes, allowed: ARCH_SERVICES "
                      "(arch/x86_64/cpu.c:3, arch/x86_64/tsc.c:1)", lines)
        self.assertIn("arch/x86_64/ -> kernel/services/jobs/: 1 include (arch/x86_64/tsc.c:2)",
                      lines)
        self.assertEqual(lines[-1], "check-includes: 4 upward arrows between directories "
                         "(5 includes, 4 of them architecture code's ARCH_SERVICES)")

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
        # A firmware parser is pure: no interface either.
        self.write("kernel/firmware/dt.c", '#include "arch/cpu.h"\n')
        self.assertIn(("kernel/firmware/dt.c", 1, "arch/include/arch/cpu.h"), self.violations())
        self.assertEqual(ci.layer_of("kernel/init/newphase.c"), "phase")
        self.assertEqual(ci.layer_of("kernel/services/newphase.c"), "services")
        self.assertEqual(ci.layer_of("kernel/selftest/x.c"), "selftest")
        self.assertEqual(ci.layer_of("kernel/vm/x.c"), "vm")
        self.assertEqual(ci.layer_of("kernel/firmware/acpi/x.c"), "firmware")
        self.assertEqual(ci.layer_of("kernel/firmware/dt.c"), "firmware")
        self.assertEqual(ci.layer_of("arch/include/arch/cpu.h"), "interface")
        self.assertEqual(ci.layer_of("arch/arm64/include/asm/cpu.h"), "arch")
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
