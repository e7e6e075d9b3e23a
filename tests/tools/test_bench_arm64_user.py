"""`make bench-arm64-user`: the host benchmark of descriptor init built for
arm64 and run under qemu-aarch64, a short run of each descriptor size. Its
output is checked, not its figures (qemu-user times its translator): every
measurement of every descriptor size and thread count is there, the store
probe chose one of arm64's stores, the caches are unknown (EL1's registers)
and the bench's own checks of every descriptor passed (exit 0).

    python3 -m unittest tests/tools/test_bench_arm64_user.py -v
"""
import os
import re
import shutil
import subprocess
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WHATS = {"init", "init_plain", "init_nt", "heads", "lim_memset", "lim_store", "lim_nt",
         "lim_ntdq", "free", "boot_eager", "boot_lazy"}


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split()[1:])


class BenchArm64User(unittest.TestCase):
    def test_every_size_and_measurement_under_qemu_user(self):
        for tool in ("aarch64-linux-gnu-gcc", "qemu-aarch64"):
            if not shutil.which(tool):
                self.skipTest("%s missing: tools/setup-deps.sh installs it" % tool)
        r = subprocess.run(["make", "-s", "-C", REPO_ROOT, "bench-arm64-user",
                            "BENCH_ARM64_ARGS=--pages 600000 --reps 1 --threads 1,2"],
                           capture_output=True, text=True, timeout=900)
        self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:])
        lines = r.stdout.splitlines()
        cpus = [fields(ln) for ln in lines if ln.startswith("memmap-bench-cpu ")]
        self.assertEqual(sorted(int(c["desc"]) for c in cpus), [16, 32, 64], lines[:5])
        for c in cpus:
            self.assertEqual((c["vendor"], c["llc_bytes"], c["llc_source"]),
                             ("other", "0", "none"), c)
        probes = [fields(ln) for ln in lines if ln.startswith("memmap-bench-probe ")]
        self.assertEqual(len(probes), 6, probes)
        for p in probes:
            self.assertIn(p["store"], ("plain", "stnp", "dczva"), p)
            self.assertGreater(int(p["plain_ns"]), 0, p)
        rows = [fields(ln) for ln in lines if ln.startswith("memmap-bench ")]
        got = {(int(row["desc"]), int(row["threads"]), row["what"]) for row in rows}
        want = {(d, t, w) for d in (16, 32, 64) for t in (1, 2) for w in WHATS}
        self.assertEqual(got, want)
        for row in rows:
            self.assertRegex(row["ns_per_page"], r"^\d+\.\d+$", row)
            self.assertGreater(float(row["ns_per_page"]), 0, row)
            # The pages the bench measured: 600000 less what alignment takes.
            self.assertTrue(590000 <= int(row["pages"]) <= 600000, row)
        self.assertFalse(re.search(r"(?i)\b(fail|mismatch|error)", r.stderr), r.stderr[-2000:])


if __name__ == "__main__":
    unittest.main()
