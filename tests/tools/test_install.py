"""tools/memboot install / uninstall on trees that stand for a Debian machine
(--root DIR with boot/grub/grub.cfg as grub-mkconfig writes it, a grubenv,
etc/grub.d), no root needed. GRUB's own tools judge the results:
grub-script-check must accept every grub.cfg left behind, grub-editenv reads
the grubenv. Bad input: a clear message, status 64 (refused, nothing
touched) or 69 (a step failed, everything undone), never a traceback, and
the tree exactly as it was."""

import os
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
    """{relative path: bytes, or 'dir'} of everything under @root."""
    out = {}
    for folder, dirs, files in os.walk(root):
        for d in dirs:
            out[os.path.relpath(os.path.join(folder, d), root)] = "dir"
        for f in files:
            p = os.path.join(folder, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


def script_check(path):
    return subprocess.run(["grub-script-check", path], capture_output=True, text=True)


def grubenv(path):
    out = subprocess.run(["grub-editenv", path, "list"], capture_output=True, text=True,
                         check=True)
    return install.parse_grubenv(out.stdout)


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
        self.elf = os.path.join(self.tmp.name, "memboot.elf")
        with open(self.elf, "wb") as f:
            f.write(b"\x7fELF" + bytes(range(256)) * 4)
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
        words = ["a'b", "x;y", "$HOME", "memboot.selftest=pt,alloc"]
        self.assertEqual(install.grub_word("memboot.selftest=pt,alloc"),
                         "memboot.selftest=pt,alloc")
        self.assertEqual(install.grub_word("a'b"), "'a'\\''b'")
        self.assertEqual(self.install("--append=" + " ".join(words)).returncode, 0)
        self.assertEqual(script_check(self.cfg).returncode, 0, script_check(self.cfg).stderr)
        with open(self.cfg) as f:
            self.assertIn("'a'\\''b' 'x;y' '$HOME' memboot.selftest=pt,alloc", f.read())

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
        d = os.path.join(self.tmp.name, "fakebin")
        os.makedirs(d, exist_ok=True)
        for t in GRUB_TOOLS:
            target = os.path.join(d, t)
            if os.path.lexists(target):
                os.unlink(target)
            if t == failing:
                with open(target, "w") as f:
                    f.write("#!/bin/sh\necho \"%s: error: cannot open file\" >&2\nexit 1\n" % t)
                os.chmod(target, 0o755)
            else:
                os.symlink(shutil.which(t), target)
        return d

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
