"""tools/memboot install / uninstall on trees that stand for a Debian machine
(--root DIR with boot/grub/grub.cfg as grub-mkconfig writes it, a grubenv,
etc/grub.d), no root needed. GRUB's own tools judge the results:
grub-script-check must accept every grub.cfg left behind, grub-editenv reads
the grubenv. Bad input: a clear message, status 64 (refused, nothing
touched) or 69 (a step failed, everything undone), never a traceback, and
the tree exactly as it was."""

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO_ROOT, "tools", "memboot")
FIXTURE_CFG = os.path.join(REPO_ROOT, "tests", "tools", "fixtures", "grub-mkconfig.cfg")
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
from mbtools import facts, install, secureboot  # noqa: E402

GRUB_TOOLS = ("grub-script-check", "grub-editenv")
HAVE_GRUB = all(shutil.which(t) for t in GRUB_TOOLS)
ENV = {k: v for k, v in os.environ.items() if not k.startswith("MEMBOOT_")}


def snapshot(root):
    """{relative path: what is there} of everything under @root: a file's
    mode and bytes, a directory's mode, a link's target, the kind of a
    special file (a FIFO is never opened)."""
    out = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            p = os.path.join(folder, name)
            st = os.lstat(p)
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                what = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                what = ("dir", mode)
            elif stat.S_ISREG(st.st_mode):
                with open(p, "rb") as fh:
                    what = ("file", mode, fh.read())
            else:
                what = ("special", stat.S_IFMT(st.st_mode), mode)
            out[os.path.relpath(p, root)] = what
    return out


# The parts of a kernel that install and netboot check (install.kernel_problem):
# an x86-64 ELF executable, a Multiboot2 header in its first 32 KiB and
# memboot's ELF note, each where the headers say.
MB2_MAGIC = 0xE85250D6


def fake_kernel(path, note_type=0x6d620001, size=0x2000, machine=62):
    """A small file that has every part of a memboot kernel install checks
    (@machine: the ELF's, 62 x86-64, 183 AArch64)."""
    import struct
    ehdr = struct.pack("<4sBBBB8xHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 2, machine, 1, 0x100000,
                       64, 0, 0, 64, 56, 2, 64, 0, 0)
    phdrs = struct.pack("<IIQQQQQQ", 1, 5, 0x1000, 0x100000, 0x100000, 0x1000, 0x1000,
                        0x1000)
    phdrs += struct.pack("<IIQQQQQQ", 4, 4, 0x1100, 0x100100, 0x100100, 36, 36, 4)
    mb2 = struct.pack("<IIII", MB2_MAGIC, 0, 24, (-(MB2_MAGIC + 24)) & 0xFFFFFFFF) + \
        struct.pack("<HHI", 0, 0, 8)
    note = struct.pack("<III", 8, 16, note_type) + b"memboot\0" + struct.pack(
        "<QII", 0x100040, 1, 0)
    data = bytearray(size)
    data[:len(ehdr)] = ehdr
    data[64:64 + len(phdrs)] = phdrs
    data[0x1000:0x1000 + len(mb2)] = mb2
    data[0x1100:0x1100 + len(note)] = note
    with open(path, "wb") as f:
        f.write(data)
    return path


def script_check(path):
    return subprocess.run(["grub-script-check", path], capture_output=True, text=True)


def grubenv(path):
    out = subprocess.run(["grub-editenv", path, "list"], capture_output=True, text=True,
                         check=True)
    return install.parse_grubenv(out.stdout)


def fake_grub_bin(folder, scripts):
    """A directory for MEMBOOT_GRUB_BIN: the real grub-script-check and
    grub-editenv, except those @scripts ({name: shell text}) stand in for,
    and any other tool of @scripts."""
    os.makedirs(folder, exist_ok=True)
    for t in GRUB_TOOLS + tuple(scripts):
        path = os.path.join(folder, t)
        if os.path.lexists(path):
            os.unlink(path)
        if t in scripts:
            with open(path, "w") as f:
                f.write("#!/bin/sh\n" + scripts[t])
            os.chmod(path, 0o755)
        else:
            os.symlink(shutil.which(t), path)
    return folder


def terminate_when_started(argv, env, started):
    """tools/memboot ARGV, sent SIGTERM once the file @started exists (a
    fake tool makes it, then sleeps): (status, stdout, stderr)."""
    import signal
    import time
    proc = subprocess.Popen([sys.executable, TOOL] + list(argv), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 60
    while not os.path.exists(started) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


class Tree(unittest.TestCase):
    """A tree that stands for a Debian machine's root, and the tool."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="memboot-install-")
        self.root = os.path.join(self.tmp.name, "root")
        os.makedirs(os.path.join(self.root, "boot", "grub"))
        os.makedirs(os.path.join(self.root, "etc", "grub.d"))
        self.cfg = os.path.join(self.root, "boot", "grub", "grub.cfg")
        self.env_file = os.path.join(self.root, "boot", "grub", "grubenv")
        shutil.copyfile(FIXTURE_CFG, self.cfg)
        subprocess.run(["grub-editenv", self.env_file, "create"], check=True)
        self.elf = fake_kernel(os.path.join(self.tmp.name, "memboot.elf"))
        self.immutable = []

    def tearDown(self):
        for path in self.immutable:
            subprocess.run(["chattr", "-i", path], capture_output=True)
            os.chmod(path, 0o755)
        self.tmp.cleanup()

    def tool(self, *argv, env=None):
        proc = subprocess.run([sys.executable, TOOL] + list(argv), capture_output=True,
                              text=True, timeout=120, env=env or ENV)
        self.assertNotIn("Traceback", proc.stderr)
        return proc

    def install(self, *extra, env=None):
        return self.tool("install", "--root", self.root, "--elf", self.elf, *extra, env=env)

    def assert_refused(self, proc, text, status=facts.EXIT_USAGE):
        self.assertEqual(proc.returncode, status, proc.stdout + proc.stderr)
        self.assertIn(text, proc.stderr)


@unittest.skipUnless(HAVE_GRUB, "grub-script-check / grub-editenv (grub-common) missing")
class InstallRoot(Tree):

    # -- the round trip ------------------------------------------------------

    def test_install_once_then_uninstall(self):
        before = snapshot(self.root)
        proc = self.install("--once", "--append", "memboot.init=serial console=ttyS0,115200")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(self.root, "boot", "memboot", "memboot.elf"), "rb") as f,\
                open(self.elf, "rb") as g:
            self.assertEqual(f.read(), g.read())
        script = os.path.join(self.root, "etc", "grub.d", install.SCRIPT_NAME)
        self.assertTrue(os.stat(script).st_mode & stat.S_IXUSR)
        self.assertEqual(subprocess.run(["sh", "-n", script]).returncode, 0)
        self.assertEqual(script_check(self.cfg).returncode, 0, script_check(self.cfg).stderr)
        with open(self.cfg) as f:
            cfg = f.read()
        # The entry: Multiboot2, the words in order, memboot.exit=reboot added.
        self.assertIn('multiboot2 "${mb_dir}/memboot/memboot.elf" memboot.init=serial '
                      'console=ttyS0,115200 memboot.exit=reboot\n', cfg)
        self.assertIn("--id memboot {", cfg)
        # The default stays the default: the header and every entry before
        # memboot's are unchanged; memboot's is the last.
        with open(FIXTURE_CFG) as f:
            original = f.read()
        self.assertTrue(cfg.startswith(original))
        self.assertEqual(cfg.rstrip().splitlines()[-1], install.BLOCK_END)
        self.assertIn('set default="0"', cfg)
        self.assertEqual(grubenv(self.env_file), {"next_entry": "memboot"})
        # The script prints the same entry grub.cfg has.
        self.assertIn(install.menu_entry(install.install_words(
            type("A", (), {"append": "memboot.init=serial console=ttyS0,115200",
                           "no_exit_reboot": False})()),
            prologue=secureboot.fallback_lines(None)), cfg)

        proc = self.tool("uninstall", "--root", self.root)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(script_check(self.cfg).returncode, 0)
        after = snapshot(self.root)
        # grub-editenv rewrites the block in place: compare what it holds.
        self.assertEqual(grubenv(self.env_file), {})
        after.pop("boot/grub/grubenv"), before.pop("boot/grub/grubenv")
        self.assertEqual(after, before)

    def test_install_without_once_leaves_grubenv(self):
        with open(self.env_file, "rb") as f:
            env_before = f.read()
        proc = self.install("--no-exit-reboot")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(self.env_file, "rb") as f:
            self.assertEqual(f.read(), env_before)
        with open(self.cfg) as f:
            self.assertNotIn("memboot.exit=", f.read())
        # Installing again replaces the block, never doubles it.
        self.assertEqual(self.install("--append", "memboot.exit=halt").returncode, 0)
        with open(self.cfg) as f:
            cfg = f.read()
        self.assertEqual(cfg.count(install.BLOCK_BEGIN), 1)
        self.assertIn("memboot.exit=halt\n", cfg)
        self.assertEqual(script_check(self.cfg).returncode, 0)

    def test_uninstall_keeps_another_next_entry(self):
        self.assertEqual(self.install("--once").returncode, 0)
        subprocess.run(["grub-editenv", self.env_file, "set", "next_entry=gnulinux-simple"],
                       check=True)
        self.assertEqual(self.tool("uninstall", "--root", self.root).returncode, 0)
        self.assertEqual(grubenv(self.env_file), {"next_entry": "gnulinux-simple"})

    def test_uninstall_when_nothing_is_installed(self):
        before = snapshot(self.root)
        proc = self.tool("uninstall", "--root", self.root)
        self.assertEqual(proc.returncode, 0)
        self.assertIn("not installed", proc.stdout)
        self.assertEqual(snapshot(self.root), before)

    def test_dry_run_prints_everything_and_changes_nothing(self):
        before = snapshot(self.root)
        proc = self.install("--once", "--dry-run")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(snapshot(self.root), before)
        for text in ("boot/memboot/memboot.elf", "etc/grub.d/42_memboot", "boot/grub/grub.cfg",
                     "grub-editenv %s set next_entry=memboot" % self.env_file,
                     "multiboot2 ", "grub-mkconfig is not run"):
            self.assertIn(text, proc.stdout)
        self.assertEqual(self.install("--once").returncode, 0)
        before = snapshot(self.root)
        proc = self.tool("uninstall", "--root", self.root, "--dry-run")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(snapshot(self.root), before)
        for text in ("unset next_entry", "remove %s" % os.path.join(self.root, "etc", "grub.d",
                                                                     "42_memboot"),
                     "remove %s" % os.path.join(self.root, "boot", "memboot", "memboot.elf")):
            self.assertIn(text, proc.stdout)

    def test_words_that_need_quoting(self):
        # GRUB's lexer would expand $HOME and end the line at ';': quoted,
        # and GRUB's multiboot2 passes them on as they are.
        words = ["x;y", "$HOME", "memmap=4K$0x30000000", "memboot.selftest=pt,alloc"]
        self.assertEqual(install.grub_word("memboot.selftest=pt,alloc"),
                         "memboot.selftest=pt,alloc")
        self.assertEqual(install.grub_word("a'b"), "'a'\\''b'")
        self.assertEqual(self.install("--append=" + " ".join(words)).returncode, 0)
        self.assertEqual(script_check(self.cfg).returncode, 0, script_check(self.cfg).stderr)
        with open(self.cfg) as f:
            self.assertIn("'x;y' '$HOME' 'memmap=4K$0x30000000' memboot.selftest=pt,alloc",
                          f.read())

    # -- refusals: nothing touched, 64 ---------------------------------------

    def test_missing_grub(self):
        shutil.rmtree(os.path.join(self.root, "boot", "grub"))
        before = snapshot(self.root)
        self.assert_refused(self.install("--once"), "GRUB is missing: no %s"
                            % os.path.join(self.root, "boot", "grub"))
        self.assertEqual(snapshot(self.root), before)
        os.makedirs(os.path.join(self.root, "boot", "grub2"))
        self.assert_refused(self.install(), "a GRUB layout (Fedora, RHEL, SUSE)")
        self.assert_refused(self.tool("uninstall", "--root", self.root), "GRUB layout")

    def test_missing_grub_cfg_or_grub_d(self):
        os.unlink(self.cfg)
        self.assert_refused(self.install(), "no %s" % self.cfg)
        shutil.copyfile(FIXTURE_CFG, self.cfg)
        shutil.rmtree(os.path.join(self.root, "etc", "grub.d"))
        before = snapshot(self.root)
        self.assert_refused(self.install(), "etc/grub.d: grub.cfg is not generated by "
                                            "grub-mkconfig")
        self.assertEqual(snapshot(self.root), before)

    def test_missing_grub_tools(self):
        empty = os.path.join(self.tmp.name, "bin")
        os.mkdir(empty)
        before = snapshot(self.root)
        self.assert_refused(self.install("--once", env=dict(ENV, MEMBOOT_GRUB_BIN=empty)),
                            "grub-script-check, grub-editenv not found")
        self.assertEqual(snapshot(self.root), before)

    def make_unwritable(self, path):
        """@path refuses new files even to root: immutable where the
        filesystem has the attribute (root ignores mode bits), else 0555."""
        if os.geteuid() == 0:
            if subprocess.run(["chattr", "+i", path], capture_output=True).returncode != 0:
                self.skipTest("running as root on a filesystem without chattr +i")
        else:
            os.chmod(path, 0o555)
        self.immutable.append(path)

    def test_unwritable_boot(self):
        before = snapshot(self.root)
        self.make_unwritable(os.path.join(self.root, "boot"))
        self.assert_refused(self.install("--once"), "cannot write in %s"
                            % os.path.join(self.root, "boot"))
        self.assertEqual(snapshot(self.root), before)

    def test_unwritable_grub_d(self):
        before = snapshot(self.root)
        self.make_unwritable(os.path.join(self.root, "etc", "grub.d"))
        self.assert_refused(self.install(), "cannot write in %s"
                            % os.path.join(self.root, "etc", "grub.d"))
        self.assertEqual(snapshot(self.root), before)

    def test_once_needs_a_grub_cfg_that_reads_next_entry(self):
        with open(self.cfg, "w") as f:
            f.write("set timeout=0\nmenuentry 'Linux' {\n\tlinux /vmlinuz\n}\n")
        before = snapshot(self.root)
        self.assert_refused(self.install("--once"), "never reads grubenv's next_entry")
        self.assertEqual(snapshot(self.root), before)

    def test_bad_kernel_and_bad_words(self):
        with open(self.elf, "wb") as f:
            f.write(b"MZ not an ELF")
        before = snapshot(self.root)
        self.assert_refused(self.install(), "is not an ELF file")
        self.assert_refused(self.tool("install", "--root", self.root, "--elf",
                                      os.path.join(self.tmp.name, "none.elf")),
                            "No such file")
        self.assert_refused(self.tool("install", "--root",
                                      os.path.join(self.tmp.name, "nowhere")),
                            "is not a directory")
        self.assertEqual(snapshot(self.root), before)

    # -- failures after work began: 69, undone -------------------------------

    def fake_bin(self, failing):
        """A directory of the real GRUB tools, with @failing replaced by a
        script that fails as a broken tool would."""
        return fake_grub_bin(os.path.join(self.tmp.name, "fakebin"), {
            failing: "echo \"%s: error: cannot open file\" >&2\nexit 1\n" % failing})

    def test_failing_grub_editenv_is_undone(self):
        before = snapshot(self.root)
        proc = self.install("--once", env=dict(ENV, MEMBOOT_GRUB_BIN=self.fake_bin(
            "grub-editenv")))
        self.assert_refused(proc, "everything done so far is undone", facts.EXIT_GRUB_FAILED)
        self.assertIn("cannot open file", proc.stderr)
        self.assertEqual(snapshot(self.root), before)
        self.assertEqual(script_check(self.cfg).returncode, 0)

    def test_grub_cfg_that_grub_would_refuse_is_never_written(self):
        with open(self.cfg, "a") as f:
            f.write("menuentry 'broken' {\n")      # not closed: GRUB's lexer refuses it
        before = snapshot(self.root)
        proc = self.install("--once")
        self.assert_refused(proc, "grub-script-check refuses the new", facts.EXIT_GRUB_FAILED)
        self.assertEqual(snapshot(self.root), before)

    def test_failed_uninstall_is_undone(self):
        self.assertEqual(self.install("--once").returncode, 0)
        before = snapshot(self.root)
        proc = self.tool("uninstall", "--root", self.root, env=dict(
            ENV, MEMBOOT_GRUB_BIN=self.fake_bin("grub-script-check")))
        self.assert_refused(proc, "everything done so far is undone", facts.EXIT_GRUB_FAILED)
        after = snapshot(self.root)
        self.assertEqual(grubenv(self.env_file), {"next_entry": "memboot"})
        after.pop("boot/grub/grubenv"), before.pop("boot/grub/grubenv")
        self.assertEqual(after, before)


class Pieces(unittest.TestCase):
    def test_splice_round_trip(self):
        with open(FIXTURE_CFG) as f:
            cfg = f.read()
        entry = install.menu_entry(["memboot.exit=reboot"])
        once = install.splice_block(cfg, entry)
        self.assertEqual(install.splice_block(once, entry), once)
        self.assertEqual(install.splice_block(once, None), cfg)
        self.assertEqual(install.splice_block("x", None), "x")

    def test_parse_grubenv(self):
        block = "# GRUB Environment Block\nnext_entry=memboot\nsaved_entry=a=b\n" + "#" * 900
        self.assertEqual(install.parse_grubenv(block),
                         {"next_entry": "memboot", "saved_entry": "a=b"})


if __name__ == "__main__":
    unittest.main()


FAKE_UPDATE_GRUB = r"""#!/bin/sh
# Stands for update-grub on the tree $MEMBOOT_HOST_ROOT: the grub.cfg header
# and OS entries of the fixture, then each executable script of etc/grub.d
# between grub-mkconfig's markers (the scripts' absolute paths made the
# tree's), written to grub.cfg.new and renamed, as grub-mkconfig does.
set -e
root="$MEMBOOT_HOST_ROOT"
out="$root/boot/grub/grub.cfg"
{
    cat "$FIXTURE_CFG"
    for s in "$root"/etc/grub.d/*; do
        [ -x "$s" ] || continue
        echo
        echo "### BEGIN /etc/grub.d/$(basename "$s") ###"
        sed "s|\[ -f /boot|[ -f $root/boot|" "$s" | sh
        echo "### END /etc/grub.d/$(basename "$s") ###"
    done
} > "$out.new"
[ -z "$UPDATE_GRUB_FAILS" ] || { echo "update-grub: error: $UPDATE_GRUB_FAILS" >&2; exit 1; }
mv "$out.new" "$out"
"""

FAKE_GRUB_PROBE = """#!/bin/sh
case "$1" in
--target=fs) echo "${PROBE_FS:-ext2}" ;;
--target=abstraction) echo "${PROBE_ABSTRACTION:-}" ;;
esac
"""


@unittest.skipUnless(HAVE_GRUB, "grub-script-check / grub-editenv (grub-common) missing")
class InstallRunningMachine(Tree):
    """The path without --root: update-grub regenerates grub.cfg and
    grub-probe says where grubenv lives. A fake of each (and the tree as
    '/', MEMBOOT_HOST_ROOT) stands in for the machine."""

    def setUp(self):
        super().setUp()
        self.bin = os.path.join(self.tmp.name, "hostbin")
        os.mkdir(self.bin)
        for t in GRUB_TOOLS:
            os.symlink(shutil.which(t), os.path.join(self.bin, t))
        for name, text in (("update-grub", FAKE_UPDATE_GRUB), ("grub-probe", FAKE_GRUB_PROBE)):
            with open(os.path.join(self.bin, name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(self.bin, name), 0o755)
        self.host_env = dict(ENV, MEMBOOT_GRUB_BIN=self.bin, MEMBOOT_HOST_ROOT=self.root,
                             FIXTURE_CFG=FIXTURE_CFG)

    def host(self, cmd, *extra, **env):
        argv = [cmd] + (["--elf", self.elf] if cmd == "install" else []) + list(extra)
        return self.tool(*argv, env=dict(self.host_env, **env))

    def test_host_install_once_then_uninstall(self):
        proc = self.host("install", "--once")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("running %s" % os.path.join(self.bin, "update-grub"), proc.stdout)
        self.assertEqual(script_check(self.cfg).returncode, 0)
        with open(self.cfg) as f:
            cfg = f.read()
        self.assertIn("### BEGIN /etc/grub.d/42_memboot ###\nmenuentry 'memboot", cfg)
        self.assertEqual(grubenv(self.env_file), {"next_entry": "memboot"})
        proc = self.host("uninstall")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(self.cfg) as f:
            self.assertNotIn("memboot", f.read())
        self.assertEqual(grubenv(self.env_file), {})
        self.assertFalse(os.path.exists(os.path.join(self.root, "boot", "memboot")))

    def test_host_refuses_once_where_grub_cannot_save_env(self):
        before = snapshot(self.root)
        for env, word in (({"PROBE_FS": "btrfs"}, "btrfs"),
                          ({"PROBE_ABSTRACTION": "lvm"}, "lvm")):
            proc = self.host("install", "--once", **env)
            self.assert_refused(proc, "is on %s, where GRUB cannot write grubenv" % word)
            self.assertEqual(snapshot(self.root), before)
        # Without --once nothing needs grubenv.
        self.assertEqual(self.host("install", PROBE_FS="btrfs").returncode, 0)

    def test_host_failing_update_grub_is_undone(self):
        before = snapshot(self.root)
        proc = self.host("install", "--once", UPDATE_GRUB_FAILS="disk full")
        self.assert_refused(proc, "update-grub: error: disk full", facts.EXIT_GRUB_FAILED)
        after = snapshot(self.root)
        after.pop("boot/grub/grub.cfg.new", None)
        self.assertEqual(after, before)

    def test_host_needs_update_grub_or_grub_mkconfig(self):
        os.unlink(os.path.join(self.bin, "update-grub"))
        self.assert_refused(self.host("install"), "neither update-grub nor grub-mkconfig")


@unittest.skipUnless(HAVE_GRUB, "grub-script-check / grub-editenv (grub-common) missing")
class DefaultKept(Tree):
    """A numeric GRUB_DEFAULT with entries from scripts after 42_memboot:
    memboot's entry would shift them, so install refuses."""

    def later_script(self):
        path = os.path.join(self.root, "etc", "grub.d", "50_other")
        with open(path, "w") as f:
            f.write("#!/bin/sh\necho \"menuentry 'Other' { true; }\"\n")
        os.chmod(path, 0o755)

    def default(self, value, where="grub"):
        d = os.path.join(self.root, "etc", "default")
        os.makedirs(os.path.join(d, "grub.d"), exist_ok=True)
        with open(os.path.join(d, where), "a") as f:
            f.write("GRUB_TIMEOUT=5\nGRUB_DEFAULT=%s\n" % value)

    def test_numeric_default_with_later_entries_is_refused(self):
        self.later_script()
        self.default("0")
        self.default('"2"', "grub.d/60_site.cfg")
        before = snapshot(self.root)
        self.assert_refused(self.install("--once"), "GRUB_DEFAULT=2 counts menu entries, and "
                                                    "/etc/grub.d/50_other come after")
        self.assertEqual(snapshot(self.root), before)

    def test_defaults_that_stay(self):
        self.later_script()
        for value in ("0", "saved", "gnulinux-simple-0f0e"):
            with self.subTest(value=value):
                self.default(value)
                self.assertEqual(self.install().returncode, 0)
        self.default("3")
        os.chmod(os.path.join(self.root, "etc", "grub.d", "50_other"), 0o644)
        self.assertEqual(self.install().returncode, 0)     # not executable: no entries


# ---------------------------------------------------------------------------
# Hostile trees and options (issue 44): each refused with a message and the
# tree as it was, or done and undone byte for byte and mode for mode.
# ---------------------------------------------------------------------------

MEMBOOT_BEGIN = "### BEGIN /etc/grub.d/42_memboot ###\n"
MEMBOOT_END = "### END /etc/grub.d/42_memboot ###\n"


@unittest.skipUnless(HAVE_GRUB, "grub-script-check / grub-editenv (grub-common) missing")
class Markers(Tree):
    """memboot's BEGIN/END lines in grub.cfg must be one well-formed pair
    at the top level, or none: anything else is refused before a byte is
    written, by install and by uninstall."""

    def cfg_with(self, edit):
        with open(FIXTURE_CFG) as f:
            text = f.read()
        with open(self.cfg, "w") as f:
            f.write(edit(text))

    def refused_both_ways(self, text):
        before = snapshot(self.root)
        for argv in (("install", "--root", self.root, "--elf", self.elf, "--once"),
                     ("install", "--root", self.root, "--elf", self.elf),
                     ("uninstall", "--root", self.root)):
            proc = self.tool(*argv)
            self.assert_refused(proc, text)
            self.assertIn("nothing changed", proc.stderr)
            self.assertEqual(snapshot(self.root), before, argv)

    def test_orphan_begin_before_10_linux(self):
        # Was: install twice exits 0, memboot's entry the only one under
        # set default="0" (every boot memboot's, with memboot.exit=reboot).
        linux = "### BEGIN /etc/grub.d/10_linux ###\n"
        self.cfg_with(lambda t: t.replace(linux, MEMBOOT_BEGIN + linux))
        self.refused_both_ways("line 72: memboot's BEGIN marker has no END marker after it")

    def test_orphan_end(self):
        self.cfg_with(lambda t: t + MEMBOOT_END)
        self.refused_both_ways("line 111: memboot's END marker has no BEGIN marker before it")

    def test_two_pairs(self):
        pair = MEMBOOT_BEGIN + "menuentry 'x' --id memboot {\n\ttrue\n}\n" + MEMBOOT_END
        self.cfg_with(lambda t: t + "\n" + pair + "\n" + pair)
        self.refused_both_ways("line 118: a second pair of memboot's markers (the first "
                               "begins at line 112)")

    def test_nested_pairs(self):
        self.cfg_with(lambda t: t + MEMBOOT_BEGIN + MEMBOOT_BEGIN + MEMBOOT_END + MEMBOOT_END)
        self.refused_both_ways("line 112: memboot's BEGIN marker inside memboot's block "
                               "(its BEGIN at line 111)")

    def test_pair_inside_40_custom(self):
        end = "### END /etc/grub.d/40_custom ###\n"
        self.cfg_with(lambda t: t.replace(end, MEMBOOT_BEGIN + MEMBOOT_END + end))
        self.refused_both_ways("line 102: memboot's block is inside /etc/grub.d/40_custom's "
                               "block (its BEGIN at line 98)")

    def test_another_block_inside_memboots(self):
        self.cfg_with(lambda t: t + MEMBOOT_BEGIN + "### BEGIN /etc/grub.d/50_x ###\n"
                      "### END /etc/grub.d/50_x ###\n" + MEMBOOT_END)
        self.refused_both_ways("line 112: /etc/grub.d/50_x's marker inside memboot's block")

    def test_unclosed_block_of_another_script(self):
        # Appended after it, memboot's block would be inside it.
        self.cfg_with(lambda t: t + "### BEGIN /etc/grub.d/50_x ###\nmenuentry 'x' {\n}\n")
        before = snapshot(self.root)
        proc = self.install()
        self.assert_refused(proc, "memboot's block would be inside /etc/grub.d/50_x's "
                                  "block (its BEGIN at line 111, no END)")
        self.assertEqual(snapshot(self.root), before)

    def test_no_entry_but_memboots_is_refused(self):
        # The header alone: memboot's entry would be the first, and
        # set default="0" picks it on every boot.
        self.cfg_with(lambda t: t[:t.index("### BEGIN /etc/grub.d/10_linux")])
        before = snapshot(self.root)
        proc = self.install()
        self.assert_refused(proc, "memboot's entry would be grub.cfg's default")
        self.assertIn('set default="0"', proc.stderr)
        self.assertEqual(snapshot(self.root), before)

    def test_numeric_default_naming_memboots_place(self):
        self.cfg_with(lambda t: t.replace('set default="0"', 'set default="1"'))
        before = snapshot(self.root)
        self.assert_refused(self.install(), "memboot's entry would be grub.cfg's default "
                                            "(set default=\"1\" on line 19")
        self.assertEqual(snapshot(self.root), before)


@unittest.skipUnless(HAVE_GRUB, "grub-script-check / grub-editenv (grub-common) missing")
class SpecialFiles(Tree):
    """A FIFO, a device, a directory where install reads or writes a file:
    refused at once, never opened for reading (no hang), no traceback."""

    def tool(self, *argv, env=None):
        proc = subprocess.run([sys.executable, TOOL] + list(argv), capture_output=True,
                              text=True, timeout=30, env=env or ENV)
        self.assertNotIn("Traceback", proc.stderr)
        return proc

    def kernel_path(self):
        os.makedirs(os.path.join(self.root, "boot", "memboot"), exist_ok=True)
        return os.path.join(self.root, "boot", "memboot", "memboot.elf")

    def test_fifo_at_the_kernel(self):
        os.mkfifo(self.kernel_path())
        before = snapshot(self.root)
        self.assert_refused(self.install(), "is not a regular file (it is a FIFO)")
        self.assert_refused(self.tool("uninstall", "--root", self.root),
                            "is not a regular file (it is a FIFO)")
        self.assertEqual(snapshot(self.root), before)

    def test_fifo_grubenv_with_once(self):
        os.unlink(self.env_file)
        os.mkfifo(self.env_file)
        before = snapshot(self.root)
        self.assert_refused(self.install("--once"), "grubenv is not a regular file "
                                                    "(it is a FIFO)")
        self.assertEqual(snapshot(self.root), before)

    def test_grubenv_link_to_dev_zero(self):
        os.unlink(self.env_file)
        os.symlink("/dev/zero", self.env_file)
        before = snapshot(self.root)
        # Out of the tree, so not followed (it was read without a limit).
        self.assert_refused(self.install("--once"), "grubenv leads out of --root %s (to "
                                                    "/dev/zero)" % self.root)
        self.assert_refused(self.tool("uninstall", "--root", self.root), "(to /dev/zero)")
        self.assertEqual(snapshot(self.root), before)

    def test_directory_at_the_script_or_the_kernel(self):
        for path in (os.path.join(self.root, "etc", "grub.d", "42_memboot"),
                     self.kernel_path()):
            with self.subTest(path=path):
                os.mkdir(path)
                before = snapshot(self.root)
                self.assert_refused(self.install(), "%s is not a regular file (it is a "
                                                    "directory)" % path)
                self.assert_refused(self.tool("uninstall", "--root", self.root),
                                    "%s is not a regular file (it is a directory)" % path)
                self.assertEqual(snapshot(self.root), before)
                os.rmdir(path)


@unittest.skipUnless(HAVE_GRUB, "grub-script-check / grub-editenv (grub-common) missing")
class OutOfTheRoot(Tree):
    """With --root, a symbolic link that leads out of the root is refused:
    an image whose /boot -> /boot would otherwise get this machine's /boot
    edited."""

    def setUp(self):
        super().setUp()
        self.outside = os.path.join(self.tmp.name, "outside")
        os.rename(os.path.join(self.root, "boot"), self.outside)

    def test_boot_link_out_of_the_root(self):
        os.symlink(self.outside, os.path.join(self.root, "boot"))
        before, outside = snapshot(self.root), snapshot(self.outside)
        for argv in (("install", "--root", self.root, "--elf", self.elf, "--once"),
                     ("uninstall", "--root", self.root)):
            proc = self.tool(*argv)
            self.assert_refused(proc, "%s leads out of --root %s (to %s)"
                                % (os.path.join(self.root, "boot"), self.root, self.outside))
            self.assertEqual(snapshot(self.root), before)
            self.assertEqual(snapshot(self.outside), outside)

    def test_grub_cfg_link_out_of_the_root(self):
        os.rename(self.outside, os.path.join(self.root, "boot"))
        outside_cfg = os.path.join(self.tmp.name, "grub.cfg")
        os.rename(self.cfg, outside_cfg)
        os.symlink(outside_cfg, self.cfg)
        before = snapshot(self.root)
        self.assert_refused(self.install(), "leads out of --root")
        self.assertEqual(snapshot(self.root), before)
        with open(outside_cfg) as f, open(FIXTURE_CFG) as g:
            self.assertEqual(f.read(), g.read())


@unittest.skipUnless(HAVE_GRUB, "grub-script-check / grub-editenv (grub-common) missing")
class AsItWas(Tree):
    """install then uninstall gives the tree back byte for byte and mode for
    mode: links, modes, line endings, a grubenv --once created."""

    def round_trip(self, *extra):
        before = snapshot(self.root)
        proc = self.install(*extra)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(script_check(self.cfg).returncode, 0)
        proc = self.tool("uninstall", "--root", self.root)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(snapshot(self.root), before)

    def test_mode_0600(self):
        os.chmod(self.cfg, 0o600)
        self.assertEqual(self.install().returncode, 0)
        self.assertEqual(stat.S_IMODE(os.stat(self.cfg).st_mode), 0o600)
        os.unlink(os.path.join(self.root, "boot", "memboot", "memboot.elf"))
        os.unlink(os.path.join(self.root, "etc", "grub.d", "42_memboot"))
        os.rmdir(os.path.join(self.root, "boot", "memboot"))
        with open(FIXTURE_CFG, "rb") as f:
            original = f.read()
        self.assertEqual(self.tool("uninstall", "--root", self.root).returncode, 0)
        with open(self.cfg, "rb") as f:
            self.assertEqual(f.read(), original)
        self.assertEqual(stat.S_IMODE(os.stat(self.cfg).st_mode), 0o600)
        self.round_trip()

    def test_symlinked_grub_cfg_stays_a_link(self):
        real = os.path.join(self.root, "boot", "grub", "real.cfg")
        os.rename(self.cfg, real)
        os.symlink("real.cfg", self.cfg)
        self.assertEqual(self.install().returncode, 0)
        self.assertTrue(os.path.islink(self.cfg))
        with open(real) as f:
            self.assertIn(MEMBOOT_BEGIN, f.read())
        self.assertEqual(self.tool("uninstall", "--root", self.root).returncode, 0)
        self.assertTrue(os.path.islink(self.cfg))
        self.round_trip("--once")

    def test_crlf_kept(self):
        with open(FIXTURE_CFG, "rb") as f:
            crlf = f.read().replace(b"\n", b"\r\n")
        with open(self.cfg, "wb") as f:
            f.write(crlf)
        self.assertEqual(self.install().returncode, 0)
        with open(self.cfg, "rb") as f:
            text = f.read()
        self.assertTrue(text.startswith(crlf))
        self.assertNotIn(b"\n", text.replace(b"\r\n", b""))      # every line CRLF
        self.assertEqual(self.tool("uninstall", "--root", self.root).returncode, 0)
        with open(self.cfg, "rb") as f:
            self.assertEqual(f.read(), crlf)
        self.round_trip("--once")

    def test_missing_final_newline_kept(self):
        with open(FIXTURE_CFG, "rb") as f:
            text = f.read().rstrip(b"\n")
        with open(self.cfg, "wb") as f:
            f.write(text)
        self.round_trip()
        self.round_trip("--once")

    def test_grubenv_that_once_created_goes_again(self):
        os.unlink(self.env_file)
        before = snapshot(self.root)
        self.assertEqual(self.install("--once").returncode, 0)
        self.assertEqual(grubenv(self.env_file), {"next_entry": "memboot"})
        # Installing again (without --once) keeps knowing it made grubenv.
        self.assertEqual(self.install().returncode, 0)
        self.assertEqual(self.tool("uninstall", "--root", self.root).returncode, 0)
        self.assertEqual(snapshot(self.root), before)
        # After the one-shot boot: GRUB's header saved next_entry empty.
        self.assertEqual(self.install("--once").returncode, 0)
        subprocess.run(["grub-editenv", self.env_file, "set", "next_entry="], check=True)
        self.assertEqual(grubenv(self.env_file), {"next_entry": ""})
        self.assertEqual(self.tool("uninstall", "--root", self.root).returncode, 0)
        self.assertEqual(snapshot(self.root), before)

    def test_grubenv_with_other_variables_stays(self):
        os.unlink(self.env_file)
        self.assertEqual(self.install("--once").returncode, 0)
        subprocess.run(["grub-editenv", self.env_file, "set", "saved_entry=2"], check=True)
        self.assertEqual(self.tool("uninstall", "--root", self.root).returncode, 0)
        self.assertEqual(grubenv(self.env_file), {"saved_entry": "2"})

    def test_pending_next_entry_is_refused(self):
        subprocess.run(["grub-editenv", self.env_file, "set", "next_entry=2"], check=True)
        before = snapshot(self.root)
        proc = self.install("--once")
        self.assert_refused(proc, "grubenv already holds next_entry=2")
        self.assertEqual(snapshot(self.root), before)
        # Without --once grubenv is not touched.
        self.assertEqual(self.install().returncode, 0)
        self.assertEqual(grubenv(self.env_file), {"next_entry": "2"})

    def test_leftover_temporary_files_are_removed(self):
        # What a kill during the kernel copy leaves (mkstemp's names).
        before = snapshot(self.root)
        kdir = os.path.join(self.root, "boot", "memboot")
        os.mkdir(kdir)
        with open(os.path.join(kdir, ".memboot.elf.k1ll3d_x"), "wb") as f:
            f.write(b"\x7fELF" + bytes(100))
        with open(os.path.join(self.root, "etc", "grub.d", ".42_memboot.ab_cd123"), "w") as f:
            f.write("#!/bin/sh\n")
        proc = self.tool("uninstall", "--root", self.root)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("removed %s" % os.path.join(kdir, ".memboot.elf.k1ll3d_x"), proc.stdout)
        self.assertEqual(snapshot(self.root), before)
        # The same after a whole install.
        self.assertEqual(self.install().returncode, 0)
        with open(os.path.join(kdir, ".memboot.elf.zz_9zz9z"), "wb") as f:
            f.write(b"x")
        self.assertEqual(self.tool("uninstall", "--root", self.root).returncode, 0)
        self.assertEqual(snapshot(self.root), before)

    def test_sigterm_undoes_what_was_done(self):
        started = os.path.join(self.tmp.name, "started")
        fake = fake_grub_bin(os.path.join(self.tmp.name, "slowbin"), {
            "grub-editenv": "touch %s\nexec sleep 60\n" % started})
        before = snapshot(self.root)
        status, out, err = terminate_when_started(
            ["install", "--root", self.root, "--elf", self.elf, "--once"],
            dict(ENV, MEMBOOT_GRUB_BIN=fake), started)
        self.assertEqual(status, facts.EXIT_TERMINATED, out + err)
        self.assertIn("terminated (SIGTERM); everything done so far is undone", err)
        self.assertEqual(snapshot(self.root), before)


@unittest.skipUnless(HAVE_GRUB, "grub-script-check / grub-editenv (grub-common) missing")
class DefaultAsTheShellReadsIt(DefaultKept):
    """GRUB_DEFAULT as grub-mkconfig gets it: /etc/default/grub sourced by a
    shell, not matched with a regular expression."""

    def test_shell_forms_of_a_numeric_default(self):
        self.later_script()
        for line, value in (("GRUB_DEFAULT=2 # x", "2"), ('GRUB_DEFAULT="2"  # x', "2"),
                            ("export GRUB_DEFAULT=2", "2"),
                            ("GRUB_TIMEOUT=5; GRUB_DEFAULT=2", "2"),
                            ('GRUB_DEFAULT="1>2"', "1>2"),
                            ("N=3\nGRUB_DEFAULT=$N", "3")):
            with self.subTest(line=line):
                self.default_file(line + "\n")
                before = snapshot(self.root)
                self.assert_refused(self.install(), "GRUB_DEFAULT=%s counts menu entries"
                                    % value)
                self.assertEqual(snapshot(self.root), before)

    def default_file(self, text):
        os.makedirs(os.path.join(self.root, "etc", "default"), exist_ok=True)
        with open(os.path.join(self.root, "etc", "default", "grub"), "w") as f:
            f.write(text)

    def test_later_script_without_a_digit(self):
        path = os.path.join(self.root, "etc", "grub.d", "custom_extra")
        with open(path, "w") as f:
            f.write("#!/bin/sh\necho \"menuentry 'Other' { true; }\"\n")
        os.chmod(path, 0o755)
        self.default_file("GRUB_DEFAULT=2\n")
        self.assert_refused(self.install(), "/etc/grub.d/custom_extra come after")

    def test_what_grub_mkconfig_skips_is_not_a_later_script(self):
        for name in ("50_other~", "50_other.dpkg-old", "README", "#50_x#", "50_x.sig"):
            path = os.path.join(self.root, "etc", "grub.d", name)
            with open(path, "w") as f:
                f.write("#!/bin/sh\necho \"menuentry 'Other' { true; }\"\n")
            os.chmod(path, 0o755)
        self.default_file("GRUB_DEFAULT=2\n")
        self.assertEqual(self.install().returncode, 0)

    def test_default_file_that_is_not_shell(self):
        self.default_file("GRUB_DEFAULT=\"2\n")
        before = snapshot(self.root)
        self.assert_refused(self.install(), "etc/default/grub: the shell cannot read it")
        self.assertEqual(snapshot(self.root), before)

    def test_default_file_that_never_ends(self):
        self.default_file("while :; do :; done\n")
        before = snapshot(self.root)
        self.assert_refused(self.install(), "did not finish in")
        self.assertEqual(snapshot(self.root), before)

    def test_default_file_that_is_a_fifo(self):
        os.makedirs(os.path.join(self.root, "etc", "default"), exist_ok=True)
        os.mkfifo(os.path.join(self.root, "etc", "default", "grub"))
        self.assert_refused(self.install(), "is not a regular file (it is a FIFO)")


@unittest.skipUnless(HAVE_GRUB, "grub-script-check / grub-editenv (grub-common) missing")
class WordsAndKernel(Tree):
    """What install puts on the kernel's command line, and the kernel
    itself, checked before anything is written."""

    def test_once_with_next_entry_only_in_a_comment(self):
        with open(self.cfg, "w") as f:
            f.write("# load_env, then set default=\"${next_entry}\"; save_env next_entry\n"
                    "set default=0\nmenuentry 'Linux' {\n\tlinux /vmlinuz\n}\n")
        before = snapshot(self.root)
        self.assert_refused(self.install("--once"), "never reads grubenv's next_entry")
        self.assertEqual(snapshot(self.root), before)

    def test_once_where_next_entry_is_never_cleared(self):
        with open(self.cfg, "w") as f:
            f.write("load_env\nset default=\"${next_entry}\"\n"
                    "menuentry 'Linux' {\n\tlinux /vmlinuz\n}\n")
        self.assert_refused(self.install("--once"), "never clears it (save_env next_entry)")

    def test_not_a_memboot_kernel(self):
        before = snapshot(self.root)
        trunc = os.path.join(self.tmp.name, "trunc.elf")
        with open(self.elf, "rb") as f, open(trunc, "wb") as g:
            g.write(f.read()[:0x1080])
        zeros, huge = (os.path.join(self.tmp.name, n) for n in ("zeros.elf", "huge.elf"))
        for path, size in ((zeros, 1 << 20), (huge, 1 << 30)):
            with open(path, "wb") as f:     # sparse: nothing is written but the magic
                f.write(b"\x7fELF")
                f.truncate(size)
        other = fake_kernel(os.path.join(self.tmp.name, "other.elf"), note_type=1)
        for path, text in (("/bin/ls", "/bin/ls is not a memboot kernel: an ELF of type 3 "
                                       "(shared object)"),
                           (trunc, "trunc.elf is truncated: its program header 1 ends at "
                                   "byte 8192, the file has 4224 bytes"),
                           (zeros, "not a memboot kernel: not a 64-bit little-endian ELF"),
                           # Refused from its size: never read (it was, whole).
                           (huge, "1073741824 bytes, larger than the 256 MiB read at most"),
                           (other, "has no memboot ELF note")):
            with self.subTest(path=path):
                self.assert_refused(self.tool("install", "--root", self.root, "--elf", path),
                                    text)
        self.assertEqual(snapshot(self.root), before)

    def test_built_kernel_is_a_memboot_kernel(self):
        built = os.path.join(REPO_ROOT, "build", "debug", "memboot.elf")
        if not os.path.exists(built):
            self.skipTest("no build/debug/memboot.elf (make)")
        self.assertIsNone(install.kernel_problem(built))

    def test_note_and_command_line_are_the_kernels(self):
        # install's copy of the note's name and type and of the command
        # line's length, against the kernel's headers wherever they are.
        import glob
        found = {}
        for h in glob.glob(os.path.join(REPO_ROOT, "**", "*.h"), recursive=True):
            # The build tree's headers (newlib's) are not the kernel's; the
            # checkout itself may lie under a directory named build.
            if os.path.relpath(h, REPO_ROOT).split(os.sep)[0] == "build":
                continue
            with open(h, encoding="utf-8", errors="replace") as f:
                text = f.read()
            found.update(facts.parse_defines(text))
            for name in re.findall(r'^#define\s+HANDOFF_NOTE_NAME\s+"(\w+)"', text, re.M):
                found["HANDOFF_NOTE_NAME"] = name
        self.assertEqual(found.get("HANDOFF_NOTE_ENTRY64"), install.KERNEL_NOTE_TYPE)
        self.assertEqual(found.get("HANDOFF_NOTE_NAME"), install.KERNEL_NOTE_NAME)
        # And the command line the kernel keeps (its buffer, less the NUL).
        self.assertEqual(found.get("BOOTINFO_CMDLINE_BYTES"), install.CMDLINE_KEEP_BYTES + 1)

    def test_command_line_that_does_not_fit(self):
        before = snapshot(self.root)
        long = " ".join("memboot.x%d=%s" % (i, "y" * 40) for i in range(140))
        proc = self.install("--append", long)
        self.assert_refused(proc, "the kernel keeps 2047 bytes of its command line")
        self.assertIn("memboot.exit=reboot", proc.stderr)
        # Exactly 2047 bytes with memboot.exit=reboot fits.
        fill = 2047 - len(" memboot.exit=reboot")
        self.assertEqual(self.install("--append", "x=" + "y" * (fill - 2)).returncode, 0)
        proc = self.install("--append", "x=" + "y" * (fill - 1))
        self.assert_refused(proc, "2048 bytes")
        self.assertEqual(self.tool("uninstall", "--root", self.root).returncode, 0)
        self.assertEqual(snapshot(self.root), before)

    def test_words_grub_would_change(self):
        before = snapshot(self.root)
        proc = self.install("--append", 'a"b memboot.selftest=pt')
        self.assert_refused(proc, "'a\"b'")
        self.assertIn('would swallow every later word, memboot.exit=reboot included',
                      proc.stderr)
        for word in ("a'b", "c\\d", 'x="y"'):
            with self.subTest(word=word):
                self.assert_refused(self.install("--append", word),
                                    "GRUB puts a backslash before each")
        self.assertEqual(snapshot(self.root), before)
