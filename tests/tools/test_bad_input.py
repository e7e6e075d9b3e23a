"""Bad input to the tools: every case ends in a clear message and the right
exit status before QEMU starts, never a traceback, a hang or a lost status.

Run from the repository root:
    python3 -m unittest tests/tools/test_bad_input.py -v

The runs use fake QEMU scripts (named by MEMBOOT_QEMU); the topo tests need
build/host/memboot-topo (`make topo`) and are skipped without it.
"""

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from unittest import mock

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CAPTURE = os.path.join(REPO_ROOT, "tools", "capture-bootinfo")
TOPO_BIN = os.path.join(REPO_ROOT, "build", "host", "memboot-topo")

sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
# The tool module, CLEAN_ENV (the environment without MEMBOOT_* variables)
# and usage_error() are shared with the front-end unit tests.
from test_memboot import CLEAN_ENV, TOOL, mb, usage_error  # noqa: E402


def write_iso(path):
    """The smallest file that passes the tool's ISO 9660 check."""
    with open(path, "wb") as f:
        f.write(b"\0" * 0x8001 + b"CD001" + b"\0" * 0x7fa)


class Workdir(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="memboot-bad-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.iso = os.path.join(self.dir, "memboot.iso")
        write_iso(self.iso)
        self.started = os.path.join(self.dir, "qemu-started")

    def fake(self, body, name="fakeqemu"):
        """A fake QEMU that first leaves a mark that it ran."""
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write("#!%s\n" % sys.executable)
            f.write("open(%r, 'w').close()\n" % self.started)
            f.write(textwrap.dedent(body))
        os.chmod(path, 0o755)
        return path

    def run_tool(self, qemu, *argv, tool_argv=None, timeout=30, env=None):
        env = dict(CLEAN_ENV, MEMBOOT_QEMU=qemu, **(env or {}))
        argv = tool_argv if tool_argv is not None else \
            ["run", "--iso", self.iso] + list(argv)
        return subprocess.run([sys.executable, TOOL] + argv, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout)

    def ok_fake(self):
        return self.fake("""\
            import sys
            print('[    0.000001] memboot version x')
            print('MEMBOOT {"event":"done","ok":true,"status":0,'
                  '"warnings":0,"errors":0}')
            sys.exit(33)
            """)

    def assert_clean_usage_error(self, r, text):
        self.assertEqual(r.returncode, 64, r.stderr)
        self.assertNotIn(b"Traceback", r.stderr)
        self.assertIn(text.encode(), r.stderr)
        self.assertFalse(os.path.exists(self.started), "QEMU was started")


class Tracebacks(Workdir):
    """Item 12: errors, not tracebacks; checked before QEMU starts."""

    def test_append_invalid_utf8(self):
        r = subprocess.run(
            [sys.executable, TOOL.encode(), b"run", b"--iso",
             self.iso.encode(), b"--append", b"a\xff"],
            env=dict(CLEAN_ENV, MEMBOOT_QEMU=self.ok_fake()),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
        self.assert_clean_usage_error(
            r, "--append: byte 0xff at offset 1 is not valid UTF-8")

    def test_append_nul(self):
        code, err = usage_error(["run", "--append", "a\0b"])
        self.assertEqual(code, 64)
        self.assertIn("NUL byte at offset 1", err)

    def test_huge_timeout(self):
        r = self.run_tool(self.ok_fake(), "--timeout", "1e10")
        self.assert_clean_usage_error(r, "invalid timeout '1e10'")
        r = self.run_tool(self.ok_fake(), "--timeout", "10000000000")
        self.assert_clean_usage_error(r, "must be at most 604800")

    def test_log_full_keeps_status(self):
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        fake = self.fake("""\
            import sys
            print('[    0.000001] memboot version x')
            print('MEMBOOT {"event":"done","ok":false,"status":4}')
            sys.exit(41)
            """)
        r = self.run_tool(fake, "--log", "/dev/full")
        self.assertNotIn(b"Traceback", r.stderr)
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn(b"cannot write log /dev/full: No space left on device",
                      r.stderr)
        self.assertEqual(r.stderr.count(b"cannot write log"), 1)
        self.assertIn(b'"status":4', r.stdout)

    def test_capture_bootinfo_output_dir_checked_first(self):
        fake = self.fake("import sys; sys.exit(33)\n")
        env = dict(CLEAN_ENV, PATH=self.dir + os.pathsep + os.environ["PATH"])
        os.rename(fake, os.path.join(self.dir, "qemu-system-x86_64"))
        start = time.monotonic()
        r = subprocess.run([sys.executable, CAPTURE, "/nonexistent/x.bin",
                            "--iso", self.iso], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=30)
        self.assertLess(time.monotonic() - start, 20)
        self.assert_clean_usage_error(
            r, "cannot write /nonexistent/x.bin: directory /nonexistent "
               "does not exist")


class LooseValidation(Workdir):
    """Item 14."""

    def test_counts_ascii_digits_only(self):
        for value in ("1_0", "\u0661", "\uff11", "+1", " 1"):
            with self.subTest(value=value):
                code, err = usage_error(["run", "--nodes", value])
                self.assertEqual(code, 64)
                self.assertIn("invalid count", err)
        self.assertEqual(mb.parse_args(["run", "--nodes", "10"]).nodes, 10)

    def test_sizes_and_timeouts_ascii_only(self):
        for argv in (["--mem-per-node", "1_0G"],
                     ["--mem-per-node", "\u0661G"],
                     ["--timeout", "1_0"], ["--timeout", "\u0661"],
                     ["--timeout", "nan"], ["--timeout", "inf"]):
            with self.subTest(argv=argv):
                code, err = usage_error(["run"] + argv)
                self.assertEqual(code, 64)
                self.assertIn("invalid", err)
        self.assertEqual(mb.parse_args(["run", "--timeout", ".5"]).timeout,
                         0.5)

    def test_second_append_adds_words(self):
        with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
            args = mb.parse_args(["run", "--append", "a=1",
                                  "--append", "b c", "--append="])
        self.assertEqual(args.append, "a=1 b c")
        with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
            self.assertEqual(mb.parse_args(["run"]).append, "")

    def test_second_append_reaches_kernel(self):
        fake = self.fake("""\
            import sys
            for a in sys.argv:
                if a.startswith("name=opt/memboot/cmdline,file="):
                    print("[    0.000001] cmdline:",
                          open(a.split("file=", 1)[1]).read())
            print('MEMBOOT {"event":"done","ok":true,"status":0}')
            sys.exit(33)
            """)
        r = self.run_tool(fake, "--append", "x=1", "--append", "y=2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"cmdline: x=1 y=2\n", r.stdout)

    def test_no_abbreviations(self):
        for argv in (["run", "--node", "2"], ["run", "--mem", "1G"],
                     ["run", "--app", "x"]):
            with self.subTest(argv=argv):
                code, err = usage_error(argv)
                self.assertEqual(code, 64)
                self.assertIn("unrecognized arguments", err)

    def test_capture_bootinfo_bad_mem_and_timeout(self):
        for argv, text in ((["--mem", "0"], "invalid size '0'"),
                           (["--mem", "1_0G"], "invalid size"),
                           (["--timeout", "-5"], "invalid timeout '-5'"),
                           (["--timeout", "0"], "invalid timeout '0'"),
                           (["--time", "5"], "unrecognized arguments")):
            with self.subTest(argv=argv):
                r = subprocess.run(
                    [sys.executable, CAPTURE,
                     os.path.join(self.dir, "x.bin"), "--iso", self.iso]
                    + argv, env=dict(CLEAN_ENV, PATH="/nonexistent"),
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    timeout=30)
                self.assertEqual(r.returncode, 64, r.stderr)
                self.assertIn(text.encode(), r.stderr)


class NoFullTimeout(Workdir):
    """Item 15."""

    def test_stops_at_done_when_kernel_halts(self):
        fake = self.fake("""\
            import sys, time
            print('[    0.000001] memboot version x')
            print('MEMBOOT {"event":"done","ok":false,"status":4}', flush=True)
            time.sleep(1000)
            """)
        start = time.monotonic()
        r = self.run_tool(fake, "--timeout", "60", timeout=90)
        self.assertLess(time.monotonic() - start, 30)
        self.assertEqual(r.returncode, 4, r.stderr)
        self.assertIn(b"halted after its done record (status 4)", r.stderr)

    def test_not_an_iso(self):
        passwd = os.path.join(self.dir, "passwd")
        with open(passwd, "w") as f:
            f.write("root:x:0:0:root:/root:/bin/bash\n" * 2000)
        r = self.run_tool(self.ok_fake(),
                          tool_argv=["run", "--iso", passwd])
        self.assert_clean_usage_error(r, "is not an ISO 9660 image")
        r = self.run_tool(self.ok_fake(),
                          tool_argv=["run", "--iso", self.dir])
        self.assert_clean_usage_error(r, "is not a regular file")

    def test_not_an_esp_or_elf(self):
        passwd = os.path.join(self.dir, "passwd")
        with open(passwd, "w") as f:
            f.write("root:x:0:0:root:/root:/bin/bash\n" * 100)
        code = os.path.join(self.dir, "CODE.fd")
        open(code, "wb").close()
        env = {"MEMBOOT_OVMF_CODE": code, "MEMBOOT_OVMF_VARS": code}
        r = self.run_tool(self.ok_fake(), env=env, tool_argv=[
            "run", "--boot", "efi", "--esp", passwd])
        self.assert_clean_usage_error(r, "is not a FAT image")
        r = self.run_tool(self.ok_fake(), tool_argv=[
            "run", "--boot", "pvh", "--elf", passwd])
        self.assert_clean_usage_error(r, "is not an ELF file")


class Messages(Workdir):
    """Item 16 and the tool side of item 10."""

    def test_conflict_prints_run_usage(self):
        code, err = usage_error(["run", "--boot", "efi", "--firmware", "bios"])
        self.assertEqual(code, 64)
        self.assertIn("usage: memboot run", err)
        self.assertIn("memboot run: error: --boot efi needs --firmware uefi",
                      err)

    def test_ovmf_env_named(self):
        err = io.StringIO()
        env = dict(CLEAN_ENV, MEMBOOT_OVMF_CODE="/nonexistent/CODE.fd")
        with contextlib.redirect_stderr(err):
            with mock.patch.dict(os.environ, env, clear=True):
                code = mb.main(["run", "--firmware", "uefi", "--dry-run"])
        self.assertEqual(code, 64)
        self.assertIn("/nonexistent/CODE.fd (from MEMBOOT_OVMF_CODE)",
                      err.getvalue())
        self.assertNotIn("install the ovmf package", err.getvalue())

    NOISY = """\
        import sys
        out = sys.stdout.buffer
        out.write(b"\\x1b[2J\\x1b[01;01H\\x1b[=3h\\x1b[2J\\x1b[01;01H"
                  b"BdsDxe: failed to load Boot0001 from PciRoot\\r\\n")
        out.write(b"\\x1b[0m\\x1b[30m\\x1b[40mGRUB loading.\\r\\n")
        out.write(b"[    0.000001] memboot version x\\n")
        out.write(b'MEMBOOT {"event":"done","ok":true,"status":0}\\n')
        sys.exit(33)
        """

    def test_firmware_noise_hidden(self):
        r = self.run_tool(self.fake(self.NOISY))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, b"[    0.000001] memboot version x\n"
                         b'MEMBOOT {"event":"done","ok":true,"status":0}\n')
        self.assertNotIn(b"\x1b", r.stderr)
        log = os.path.join(self.dir, "log")
        r = self.run_tool(self.fake(self.NOISY), "--verbose", "--log", log)
        self.assertIn(b"BdsDxe: failed to load Boot0001", r.stdout)
        self.assertIn(b"GRUB loading.", r.stdout)
        with open(log, "rb") as f:
            self.assertIn(b"BdsDxe", f.read())

    def test_firmware_output_shown_when_kernel_silent(self):
        fake = self.fake("""\
            import sys
            sys.stdout.write("\\x1b[2JSeaBIOS: out of memory\\x07\\n")
            sys.exit(0)
            """)
        r = self.run_tool(fake)
        self.assertEqual(r.returncode, 126)
        self.assertEqual(r.stdout, b"")
        self.assertIn(b"no output from the kernel; the firmware printed:\n"
                      b"  SeaBIOS: out of memory\\x07\n", r.stderr)

    ERRORS = """\
        import sys
        print('[    0.000001] params: bad value')
        print('MEMBOOT {"event":"error","msg":"memboot.init=lazzy: unknown policy"}')
        print('MEMBOOT {"event":"warning","msg":"x"}')
        print('MEMBOOT {"event":"done","ok":true,"status":0,'
              '"warnings":1,"errors":1}')
        sys.exit(33)
        """

    def test_kernel_errors_on_stderr_and_strict(self):
        r = self.run_tool(self.fake(self.ERRORS), "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"memboot: kernel error: memboot.init=lazzy: unknown "
                      b"policy\n", r.stderr)
        r = self.run_tool(self.fake(self.ERRORS), "--json", "--strict")
        self.assertEqual(r.returncode, 65, r.stderr)
        self.assertIn(b"--strict: the kernel reported 1 warning(s) and "
                      b"1 error(s)", r.stderr)
        r = self.run_tool(self.ok_fake(), "--strict")
        self.assertEqual(r.returncode, 0, r.stderr)


@unittest.skipUnless(os.access(TOPO_BIN, os.X_OK),
                     "no build/host/memboot-topo (make topo)")
class TopoInputs(unittest.TestCase):
    """Item 13: topo reads only regular files, and only so much."""

    def topo(self, source):
        return subprocess.run([TOPO_BIN, source], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=20)

    def test_fifo_in_directory_skipped(self):
        with tempfile.TemporaryDirectory() as d:
            os.mkfifo(os.path.join(d, "x.dat"))
            r = self.topo(d)
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"x.dat: not a regular file; skipped", r.stderr)

    def test_fifo_and_device_refused(self):
        with tempfile.TemporaryDirectory() as d:
            fifo = os.path.join(d, "tables.txt")
            os.mkfifo(fifo)
            r = self.topo(fifo)
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"not a regular file", r.stderr)
        r = self.topo("/dev/zero")
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"cannot read /dev/zero: not a regular file", r.stderr)

    def test_size_limit(self):
        with tempfile.TemporaryDirectory() as d:
            big = os.path.join(d, "big.txt")
            with open(big, "wb") as f:
                f.truncate((64 << 20) + 1)
            r = self.topo(big)
        self.assertEqual(r.returncode, 1)
        self.assertIn(b"larger than 64 MiB", r.stderr)


if __name__ == "__main__":
    unittest.main()
