"""The allocator lab is not x86-only: built with Debian's arm64 cross
compiler (no TSC: the lab's clock is cntvct_el0 there) and run under
qemu-user, it gives the same deterministic figures as the host's own build
for the same seed, every block checked.

    python3 -m unittest tests/tools/test_lab_portable.py -v
"""
import json
import os
import subprocess
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CROSS_CC = "aarch64-linux-gnu-gcc"
SYSROOT = "/usr/aarch64-linux-gnu"
ARM_O = os.path.join("build", "bench-arm64")
RUN = ["--threads", "2", "--workload", "kbuild", "--ops", "20000", "--mib", "64", "--seed", "7",
       "--sample", "1000", "--nodes", "1", "--lazy", "0", "--split", "0", "--serial", "1",
       "--pin", "0"]
# What a fixed seed decides: the same on any machine the lab runs on.
DETERMINISTIC = ("ops", "failed", "allocs_by_order", "failed_by_order", "check")


def build(*argv):
    r = subprocess.run(["make", "-s", "-C", REPO_ROOT] + list(argv), capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]


def lab_row(cmd, alloc):
    r = subprocess.run(cmd + ["--alloc", alloc] + RUN, capture_output=True, text=True,
                       timeout=300, cwd=REPO_ROOT)
    assert r.returncode == 0, (cmd, r.returncode, r.stderr[-2000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


class LabOnArm64(unittest.TestCase):
    def test_arm64_build_gives_the_hosts_deterministic_figures(self):
        build("lab-build")
        build("CC=" + CROSS_CC, "LAB_MARCH=", "BENCH_O=" + ARM_O, ARM_O + "/lab")
        native = [os.path.join(REPO_ROOT, "build", "bench", "lab")]
        arm = ["qemu-aarch64", "-L", SYSROOT, os.path.join(REPO_ROOT, ARM_O, "lab")]
        for alloc in ("buddy", "llfree"):
            a, b = lab_row(native, alloc), lab_row(arm, alloc)
            self.assertEqual(b["clock"], "cntvct", b)
            self.assertTrue(b["check"], b)
            self.assertEqual({k: a[k] for k in DETERMINISTIC}, {k: b[k] for k in DETERMINISTIC},
                             alloc)


if __name__ == "__main__":
    unittest.main()
