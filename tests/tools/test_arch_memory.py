"""arch/memory.h on all three architectures: each one's asm/memory.h (the
non-temporal stores, the flush, the fences, block zeroing) and mm/memmap.c's
store kinds built with that architecture's compiler and run: natively for
x86_64, under qemu-user for arm64 and ppc64le (Debian's cross compilers and
qemu-user, installed by tools/setup-deps.sh). tests/host/arch_memory_check.c
is the program; every offered kind must write the bytes plain stores write,
for 16- and 64-byte descriptors.

    python3 -m unittest tests/tools/test_arch_memory.py -v
"""
import os
import shutil
import subprocess
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCES = ["tests/host/arch_memory_check.c", "mm/memmap.c", "tests/host/host_support.c",
           "kernel/services/report/record.c"]
CFLAGS = ["-std=gnu11", "-O2", "-I.", "-Iarch/include", "-Wall", "-Wextra",
          "-Wno-unused-parameter", "-Wshadow", "-Wstrict-prototypes", "-Werror",
          "-DMEMBOOT_HOST"]
# arch directory: (compiler, extra flags, how to run the program)
ARCHES = {
    "x86_64": ("gcc", [], []),
    "arm64": ("aarch64-linux-gnu-gcc", ["-static"], ["qemu-aarch64"]),
    "ppc64le": ("powerpc64le-linux-gnu-gcc", ["-static"], ["qemu-ppc64le"]),
}
# What each architecture offers the store probe, as the check prints it.
KINDS = {"x86_64": "plain nt", "arm64": "plain stnp dczva", "ppc64le": "plain dcbz"}


def build_and_run(arch, desc_bytes, out_dir):
    cc, extra, runner = ARCHES[arch]
    for tool in [cc] + runner[:1]:
        if not shutil.which(tool):
            raise AssertionError(f"{tool} not found: tools/setup-deps.sh installs it")
    exe = os.path.join(out_dir, f"check-{arch}-{desc_bytes}")
    cmd = [cc] + extra + CFLAGS + [f"-Iarch/{arch}/include", f"-DMEMMAP_DESC_BYTES={desc_bytes}",
                                   "-o", exe] + SOURCES
    r = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)}:\n{r.stderr[-3000:]}")
    return subprocess.run(runner + [exe], capture_output=True, text=True, timeout=120)


class ArchMemory(unittest.TestCase):
    def test_every_architecture_stores_what_plain_stores_store(self):
        with tempfile.TemporaryDirectory() as d:
            for arch in ARCHES:
                for desc_bytes in (16, 64):
                    with self.subTest(arch=arch, desc_bytes=desc_bytes):
                        r = build_and_run(arch, desc_bytes, d)
                        self.assertEqual(r.returncode, 0, r.stdout + r.stderr[-3000:])
                        self.assertIn(f"kinds {KINDS[arch]}: ok", r.stdout)

    def test_the_check_fails_on_a_planted_store_bug(self):
        # A copy of the tree whose arm64 16-byte store writes its first
        # record's zeros wrong: the check must say so, by the record.
        with tempfile.TemporaryDirectory() as d:
            for top in ("arch", "mm", "kernel", "tests/host"):
                shutil.copytree(os.path.join(REPO_ROOT, top), os.path.join(d, top),
                                ignore=shutil.ignore_patterns("*.o", "*.d", "__pycache__"))
            path = os.path.join(d, "arch/arm64/include/asm/memory.h")
            with open(path) as f:
                text = f.read()
            planted = text.replace("ARCH_ARM64_STNP0(16)", "ARCH_ARM64_STNP(16)", 1)
            self.assertNotEqual(planted, text)
            with open(path, "w") as f:
                f.write(planted)
            cc, extra, runner = ARCHES["arm64"]
            exe = os.path.join(d, "check")
            subprocess.run([cc] + extra + CFLAGS + ["-Iarch/arm64/include", "-o", exe] + SOURCES,
                           cwd=d, check=True, capture_output=True, timeout=300)
            r = subprocess.run(runner + [exe], capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 1, r.stdout)
            self.assertIn("FAILED", r.stdout)
            self.assertIn("nt16_x4 stride 32 record 0 byte 16", r.stderr)


if __name__ == "__main__":
    unittest.main()
