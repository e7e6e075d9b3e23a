"""The host benchmark's self-checks, at every descriptor size (make bench-build).

build/bench/memmap_bench_{16,32,64} are mm/memmap.c and mm/alloc/buddy.c built
the kernel's way (-O2, general registers only) once per descriptor size, the
only build of the 32- and 64-byte store code outside a kernel image. Each init
kind's first run is checked byte for byte against memmap_write_head() on
poisoned descriptors, and the boot-style runs by the buddy checks; a check
that fails makes the binary exit 1. Small simulated RAM (4.6 GiB, so both
zones), one repetition: no timing is looked at.
"""

import os
import subprocess
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH_DIR = os.path.join(REPO_ROOT, "build", "bench")
SIZES = (16, 32, 64)
WHAT = ("init", "init_plain", "init_nt", "boot_eager", "boot_lazy")


class SelfChecks(unittest.TestCase):
    def run_bench(self, size, *args):
        binary = os.path.join(BENCH_DIR, "memmap_bench_%d" % size)
        if not os.access(binary, os.X_OK):
            self.fail("no %s (run `make bench-build`)" % os.path.relpath(binary, REPO_ROOT))
        return subprocess.run([binary] + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=120)

    def test_every_store_writes_every_descriptor_at_every_size(self):
        for size in SIZES:
            with self.subTest(desc_bytes=size):
                out = self.run_bench(size, "--pages", "1200000", "--nodes", "2", "--reps", "1",
                                     "--threads", "1,2", "--what", ",".join(WHAT))
                self.assertEqual(out.returncode, 0, out.stderr)
                self.assertNotIn("FAILED", out.stderr)
                seen = sorted((l.split()[2], l.split()[3]) for l in out.stdout.splitlines()
                              if l.startswith("memmap-bench "))
                self.assertEqual(seen, sorted(("threads=%d" % t, "what=%s" % w)
                                              for t in (1, 2) for w in WHAT), out.stdout)
                self.assertIn("desc=%d " % size, out.stdout)


if __name__ == "__main__":
    unittest.main()
