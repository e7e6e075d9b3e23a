"""The debugging flow of tools/memboot: `run --gdb [PORT]` and call traces
symbolized through addr2line (tools/mbtools/debug.py). No QEMU needed: the
QEMU command line is checked as built, addr2line is a fake script.
"""
import contextlib
import io
import os
import stat
import sys
import tempfile
import unittest
from unittest import mock

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))

from mbtools import debug  # noqa: E402
from test_memboot import CLEAN_ENV, mb, usage_error  # noqa: E402


def parse(*argv):
    with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
        return mb.parse_args(["run", "--iso", "/x/memboot.iso"] + list(argv))


class GdbOption(unittest.TestCase):
    def test_default_port_halts_and_listens_on_loopback(self):
        args = parse("--gdb")
        self.assertEqual(args.gdb, 1234)
        cmd = mb.build_qemu_command(args)
        at = cmd.index("-gdb")
        self.assertEqual(cmd[at + 1], "tcp:127.0.0.1:1234")
        self.assertIn("-S", cmd)

    def test_explicit_port(self):
        cmd = mb.build_qemu_command(parse("--gdb", "4321", "--nodes", "2"))
        self.assertEqual(cmd[cmd.index("-gdb") + 1], "tcp:127.0.0.1:4321")

    def test_without_gdb_no_stub(self):
        cmd = mb.build_qemu_command(parse())
        self.assertNotIn("-gdb", cmd)
        self.assertNotIn("-S", cmd)

    def test_bad_ports_are_usage_errors(self):
        for bad in ("0", "65536", "abc"):
            code, err = usage_error(["run", "--gdb", bad])
            self.assertEqual(code, 64, bad)
            self.assertIn("invalid gdb port", err)

    def test_gdb_command_names_elf_target_and_breakpoint(self):
        line = debug.gdb_command("/b/memboot.elf", 4321)
        self.assertTrue(line.startswith("gdb /b/memboot.elf "), line)
        self.assertIn("'target remote 127.0.0.1:4321'", line)
        self.assertIn("'hbreak kernel_main'", line)

    def test_run_prints_the_gdb_command_and_has_no_timeout(self):
        with tempfile.TemporaryDirectory() as d:
            qemu = os.path.join(d, "qemu")
            seen = os.path.join(d, "argv")
            # Sleeps past --timeout: with --gdb the tool must wait for it.
            with open(qemu, "w") as f:
                f.write("#!/bin/sh\necho \"$@\" > %s\nsleep 1.5\n"
                        "echo 'MEMBOOT {\"event\":\"done\",\"ok\":true,\"status\":0}'\n"
                        "exit 33\n" % seen)
            os.chmod(qemu, stat.S_IRWXU)
            iso = os.path.join(d, "memboot.iso")
            elf = os.path.join(d, "memboot.elf")
            open(elf, "w").close()
            # The tool checks the ISO 9660 volume descriptor first.
            with open(iso, "wb") as f:
                f.write(b"\0" * 0x8001 + b"CD001")
            err = io.StringIO()
            env = dict(CLEAN_ENV, MEMBOOT_QEMU=qemu)
            with mock.patch.dict(os.environ, env, clear=True), \
                    contextlib.redirect_stderr(err), \
                    contextlib.redirect_stdout(io.StringIO()):
                rc = mb.main(["run", "--iso", iso, "--timeout", "0.5", "--gdb", "2345"])
            self.assertEqual(rc, 0, err.getvalue())
            self.assertIn("gdb %s " % elf, err.getvalue())
            self.assertIn("target remote 127.0.0.1:2345", err.getvalue())
            with open(seen) as f:
                self.assertIn("-S -gdb tcp:127.0.0.1:2345", f.read())


class Symbolize(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.calls = os.path.join(self.tmp.name, "calls")
        self.tool = os.path.join(self.tmp.name, "addr2line")
        # Answers like addr2line -f -i -p: one known address, others unknown.
        with open(self.tool, "w") as f:
            f.write("#!/bin/sh\necho \"$@\" >> %s\n"
                    "case \"$6\" in 0x1090c0) echo 'fault_inject at /src/kernel/selftest/selftest.c:154';;\n"
                    "0x104f76) echo 'kernel_main at /src/kernel/init/main.c:81';;\n"
                    "*) echo '?? ??:0';; esac\n" % self.calls)
        os.chmod(self.tool, stat.S_IRWXU)
        self.sym = debug.Symbolizer("/b/memboot.elf", addr2line=self.tool, root="/src")

    def test_faulting_instruction_is_looked_up_as_is(self):
        line = "[    0.06]  [<00000000001090c0>] (faulting instruction)"
        self.assertEqual(self.sym.line(line), line + " fault_inject at kernel/selftest/selftest.c:154")

    def test_return_address_is_looked_up_one_byte_back(self):
        line = "[    0.06]  [<0000000000104f77>]"
        self.assertEqual(self.sym.line(line), line + " kernel_main at kernel/init/main.c:81")
        with open(self.calls) as f:
            self.assertIn("-e /b/memboot.elf 0x104f76", f.read())

    def test_unknown_address_and_other_lines_are_unchanged(self):
        for line in ("[    0.06]  [<0000000000200000>]", "[    0.06] Memory: 1M usable",
                     'MEMBOOT {"event":"done"}'):
            self.assertEqual(self.sym.line(line), line)

    def test_each_address_is_looked_up_once(self):
        line = "[    0.06]  [<0000000000104f77>]"
        self.sym.line(line)
        self.sym.line(line)
        with open(self.calls) as f:
            self.assertEqual(len(f.read().splitlines()), 1)

    def test_without_elf_nothing_changes(self):
        sym = debug.Symbolizer(None, addr2line=self.tool)
        line = "[    0.06]  [<0000000000104f77>]"
        self.assertEqual(sym.line(line), line)


if __name__ == "__main__":
    unittest.main()
