"""The page-table entry format of every architecture (arch/mmu.h with each
arch/NAME/include/asm/mmu.h) decodes back what it encodes and matches the
manuals: tests/host/mmu_check.c built natively for x86_64 and with Debian's
cross compilers for arm64 and ppc64le (tools/setup-deps.sh installs them
and qemu-user), run under qemu-user.

    python3 -m unittest tests/tools/test_mmu_encoding.py -v
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = os.path.join("tests", "host", "mmu_check.c")
# name: (compiler, arch/NAME, how to run the binary)
ARCHES = {
    "x86_64": ("gcc", "x86_64", []),
    "arm64": ("aarch64-linux-gnu-gcc", "arm64", ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"]),
    "ppc64le": ("powerpc64le-linux-gnu-gcc", "ppc64le",
                ["qemu-ppc64le", "-L", "/usr/powerpc64le-linux-gnu"]),
}
SUMMARY = re.compile(r"^mmu_check (\S+): (\d+) checks, (\d+) failed$", re.M)


def build_and_run(name, root=REPO_ROOT):
    """(exit status, output) of mmu_check built from @root for @name."""
    cc, arch_dir, runner = ARCHES[name]
    for tool in [cc] + runner[:1]:
        if not shutil.which(tool):
            raise AssertionError("%s is missing: run tools/setup-deps.sh" % tool)
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "mmu_check")
        build = subprocess.run(
            [cc, "-std=gnu11", "-O2", "-Wall", "-Wextra", "-Werror", "-static", "-I.",
             "-Iarch/include", "-Iarch/%s/include" % arch_dir, SOURCE, "-o", exe],
            cwd=root, capture_output=True, text=True, timeout=300)
        assert build.returncode == 0, build.stderr[-3000:]
        run = subprocess.run(runner + [exe], capture_output=True, text=True, timeout=120)
        return run.returncode, run.stdout + run.stderr


class EntryFormat(unittest.TestCase):
    def check_arch(self, name):
        rc, out = build_and_run(name)
        m = SUMMARY.search(out)
        self.assertTrue(m, out[-3000:])
        self.assertEqual(m.group(1), name, out[-3000:])
        # Every leaf level x 32 rights x 7 checks, the tables, the empty
        # entry and the hand-worked values: hundreds, none failed.
        self.assertGreater(int(m.group(2)), 3 * 32 * 7, out[-3000:])
        self.assertEqual(m.group(3), "0", out[-3000:])
        self.assertEqual(rc, 0, out[-3000:])

    def test_x86_64(self):
        self.check_arch("x86_64")

    def test_arm64(self):
        self.check_arch("arm64")

    def test_ppc64le(self):
        self.check_arch("ppc64le")

    def test_a_wrong_bit_fails(self):
        """The check can fail: a copy of the tree whose arm64 encoding
        forgets the access flag is caught."""
        with tempfile.TemporaryDirectory() as tmp:
            for d in ("arch", os.path.join("tests", "host")):
                shutil.copytree(os.path.join(REPO_ROOT, d), os.path.join(tmp, d))
            hdr = os.path.join(tmp, "arch", "arm64", "include", "asm", "mmu.h")
            with open(hdr) as f:
                text = f.read()
            planted = text.replace("A64_SH_INNER | A64_AF;", "A64_SH_INNER;")
            self.assertNotEqual(planted, text)
            with open(hdr, "w") as f:
                f.write(planted)
            rc, out = build_and_run("arm64", root=tmp)
        self.assertEqual(rc, 1, out[-3000:])
        self.assertIn("FAIL leaf accessed preset", out)
        self.assertIn("FAIL 1 GiB kernel data", out)


if __name__ == "__main__":
    unittest.main()
