"""tools/memboot run refuses a guest smaller than its boot path boots with
(MIN_MEM_PER_NODE, measured by bisection; docs/tools.md), before QEMU
starts, with exit 64 and the least that boots; the least itself is taken.
The guest side (the least boots, one step below the kernel says the guest
is too small) is tests/guest/test_bad_kernel_input.py.

    python3 -m unittest tests/tools/test_min_memory.py -v
"""
import contextlib
import io
import os
import sys
import unittest
from unittest import mock

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOL = os.path.join(REPO_ROOT, "tools", "memboot")
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
from script_module import load_script  # noqa: E402

mb = load_script(TOOL, "memboot_tool_min_memory")
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith("MEMBOOT_")}
PATHS = {("grub", "bios"): [], ("pvh", "bios"): ["--boot", "pvh"],
         ("efi", "uefi"): ["--boot", "efi"], ("grub", "uefi"): ["--firmware", "uefi"],
         ("powernv", "bios"): ["--arch", "ppc64le", "--boot", "powernv"]}


def parse(argv):
    """(exit code or None, stderr, args) of parsing `run ARGV`."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), \
            mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
        try:
            return None, err.getvalue(), mb.parse_args(["run"] + argv)
        except SystemExit as e:
            return e.code, err.getvalue(), None


class MinMemory(unittest.TestCase):

    def test_every_path_has_a_least(self):
        self.assertEqual(set(mb.MIN_MEM_PER_NODE), set(PATHS))

    def test_below_the_least_is_refused(self):
        for path, flags in PATHS.items():
            least = mb.MIN_MEM_PER_NODE[path]
            for size in ("2M", "4M", "%dM" % ((least >> 20) - 2)):
                code, err, _ = parse(flags + ["--mem-per-node", size])
                self.assertEqual(code, 64, (path, size, err))
                # powernv has no --firmware to name, and its floor is whole GiB.
                self.assertIn("too small to boot with --boot %s" % path[0], err)
                if path[0] != "powernv":
                    self.assertIn("--firmware %s" % path[1], err)
                self.assertTrue(
                    "the least that boots there is %dM" % (least >> 20) in err
                    or "the least that boots there is %dG" % (least >> 30) in err, err)
                self.assertNotIn("Traceback", err)

    def test_the_least_is_taken(self):
        for path, flags in PATHS.items():
            least = mb.MIN_MEM_PER_NODE[path]
            code, err, args = parse(flags + ["--mem-per-node", "%dM" % (least >> 20)])
            self.assertIsNone(code, (path, err))
            self.assertEqual(args.mem_per_node, least)

    def test_raw_memory_flags_skip_the_check(self):
        code, err, args = parse(["--mem-per-node", "2M", "--", "-m", "64M"])
        self.assertIsNone(code, err)

    def test_documented(self):
        with open(os.path.join(REPO_ROOT, "docs", "tools.md")) as f:
            doc = f.read()
        row = [line for line in doc.splitlines() if line.startswith("| `--mem-per-node")][0]
        for (boot, fw), least in mb.MIN_MEM_PER_NODE.items():
            self.assertIn("`%dM`" % (least >> 20), row, (boot, fw))


if __name__ == "__main__":
    unittest.main()
