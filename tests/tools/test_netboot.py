"""tools/memboot netboot DIR: the TFTP tree (real grub-mknetdir), its
grub.cfg as GRUB's own grub-script-check reads it, a second run replacing
the first, and bad input: a clear message, 64 (refused) or 69 (a step
failed), DIR exactly as it was. Also `run --netboot DIR`'s QEMU command.
The boots themselves are tests/guest/test_netboot.py."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO_ROOT, "tools", "memboot")
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
from mbtools import facts, netboot  # noqa: E402
from test_install import (ENV, fake_grub_bin, fake_kernel, snapshot,  # noqa: E402
                          terminate_when_started)

HAVE = all(shutil.which(t) for t in ("grub-mknetdir", "grub-script-check")) and all(
    os.path.isfile(os.path.join("/usr/lib/grub", p, "moddep.lst"))
    for p in netboot.ARCH_PLATFORMS["x86_64"])


def fake_net_loader(path, kernel, size=None):
    """A file shaped like memboot's network loader (boot/efi/embed.S): an MZ
    header, then the head (magic, @size or the kernel's, 8 bytes), @kernel
    and the tail magic. The loader's own copy of the magic (its check's
    string) comes first, as in the real image."""
    import struct
    with open(kernel, "rb") as f:
        elf = f.read()
    data = (b"MZ" + bytes(126) + netboot.EMBED_MAGIC + b"\0" * 16 + netboot.EMBED_MAGIC
            + struct.pack("<QQ", len(elf) if size is None else size, 0) + elf
            + netboot.EMBED_MAGIC + bytes(64))
    with open(path, "wb") as f:
        f.write(data)
    return path


@unittest.skipUnless(HAVE, "grub-mknetdir, grub-pc-bin or grub-efi-amd64-bin missing")
class Netboot(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="memboot-netboot-")
        self.dir = os.path.join(self.tmp.name, "tftp")
        self.elf = fake_kernel(os.path.join(self.tmp.name, "memboot.elf"))
        self.immutable = []

    def tearDown(self):
        for path in self.immutable:
            subprocess.run(["chattr", "-i", path], capture_output=True)
            os.chmod(path, 0o755)
        self.tmp.cleanup()

    def tool(self, *argv, env=None):
        proc = subprocess.run([sys.executable, TOOL] + list(argv), capture_output=True,
                              text=True, timeout=300, env=env or ENV)
        self.assertNotIn("Traceback", proc.stderr)
        return proc

    def netboot(self, *extra, env=None):
        return self.tool("netboot", self.dir, "--elf", self.elf, *extra, env=env)

    def assert_status(self, proc, status, text):
        self.assertEqual(proc.returncode, status, proc.stdout + proc.stderr)
        self.assertIn(text, proc.stderr)

    def checked_cfg(self):
        """The tree's grub.cfg, once GRUB's own grub-script-check took it."""
        cfg = os.path.join(self.dir, "boot", "grub", "grub.cfg")
        self.assertEqual(subprocess.run(["grub-script-check", cfg]).returncode, 0)
        with open(cfg) as f:
            return f.read()

    def test_tree(self):
        proc = self.netboot("--append", "memboot.init=serial",
                            "--mac", "52:54:00:AB:cd:01=memboot.exit=halt quiet")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for p in netboot.ARCH_PLATFORMS["x86_64"]:
            self.assertTrue(os.path.isfile(os.path.join(self.dir, netboot.bootfile(p))), p)
            self.assertIn(netboot.bootfile(p), proc.stdout)
        text = self.checked_cfg()
        self.assertIn("set default=memboot\n", text)
        self.assertIn("set memboot_args='memboot.init=serial'\n", text)
        self.assertIn("if [ \"$net_default_mac\" = 52:54:00:ab:cd:01 ]; then "
                      "set memboot_args='memboot.exit=halt quiet'; fi\n", text)
        self.assertIn('multiboot2 "${mb_dir}/memboot/memboot.elf" $memboot_args\n', text)
        with open(os.path.join(self.dir, "boot", "memboot", "memboot.elf"), "rb") as f:
            self.assertEqual(f.read()[:4], b"\x7fELF")
        # No staging directory left behind.
        self.assertEqual(os.listdir(self.dir), ["boot"])

        # A second run replaces the tree, other files in DIR stay.
        with open(os.path.join(self.dir, "other.txt"), "w") as f:
            f.write("lab file\n")
        proc = self.netboot("--platform", "i386-pc")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "boot", "grub", "x86_64-efi")))
        self.assertTrue(os.path.exists(os.path.join(self.dir, "other.txt")))
        self.assertNotIn("net_default_mac\" =", self.checked_cfg())
        self.assertEqual(sorted(os.listdir(self.dir)), ["boot", "other.txt"])

    def test_dry_run_changes_nothing(self):
        os.mkdir(self.dir)
        proc = self.netboot("--mac", "52:54:00:12:34:56=quiet", "--dry-run")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(os.listdir(self.dir), [])
        for text in ("grub-mknetdir --net-directory=%s --subdir=boot/grub -d "
                     "/usr/lib/grub/i386-pc" % self.dir, "/usr/lib/grub/x86_64-efi",
                     "boot/grub/grub.cfg:", "52:54:00:12:34:56", "boot/memboot/memboot.elf"):
            self.assertIn(text, proc.stdout)

    def make_unwritable(self, path):
        if os.geteuid() == 0:
            if subprocess.run(["chattr", "+i", path], capture_output=True).returncode != 0:
                self.skipTest("running as root on a filesystem without chattr +i")
        else:
            os.chmod(path, 0o555)
        self.immutable.append(path)

    def test_unwritable_tftp_dir(self):
        os.mkdir(self.dir)
        self.make_unwritable(self.dir)
        self.assert_status(self.netboot(), facts.EXIT_USAGE,
                           "the TFTP directory: cannot write in %s" % self.dir)
        self.assertEqual(os.listdir(self.dir), [])

    def test_refusals(self):
        os.makedirs(os.path.join(self.dir, "boot", "grub"))
        before = snapshot(self.dir)
        self.assert_status(self.netboot(), facts.EXIT_USAGE, "was not written by memboot netboot")
        self.assertEqual(snapshot(self.dir), before)
        for bad, text in (("52:54:00:12:34=quiet", "expected MAC=WORDS"),
                          ("52:54:00:12:34:56", "expected MAC=WORDS")):
            self.assert_status(self.netboot("--mac", bad), facts.EXIT_USAGE, text)
        self.assert_status(self.netboot("--platform", "pc98"), facts.EXIT_USAGE,
                           "platforms are i386-pc, x86_64-efi, arm64-efi")
        # arm64's platform is --arch arm64's, whose payload is not --elf.
        self.assert_status(self.netboot("--platform", "arm64-efi"), facts.EXIT_USAGE,
                           "--platform arm64-efi is not x86_64's")
        self.assert_status(self.netboot("--arch", "arm64"), facts.EXIT_USAGE,
                           "--elf: the arm64 tree's kernel is the one inside the network loader")
        self.assert_status(self.netboot("--arch", "x86_64", "--platform", "i386-pc,pc98"),
                           facts.EXIT_USAGE, "platforms are i386-pc, x86_64-efi, arm64-efi")
        empty = os.path.join(self.tmp.name, "lib")
        os.mkdir(empty)
        self.assert_status(self.netboot(env=dict(ENV, MEMBOOT_GRUB_LIB=empty)),
                           facts.EXIT_USAGE, "no GRUB modules for i386-pc")
        with open(self.elf, "wb") as f:
            f.write(b"junk")
        self.assert_status(self.netboot(), facts.EXIT_USAGE, "is not an ELF file")
        self.assert_status(self.tool("netboot", self.dir, "--elf", "/bin/ls"),
                           facts.EXIT_USAGE, "/bin/ls is not a memboot kernel")
        self.assertEqual(snapshot(self.dir), before)
        self.assert_status(self.tool("netboot", os.path.join(self.tmp.name, "no", "dir")),
                           facts.EXIT_USAGE, "does not exist")

    def arm64(self, *extra, env=None):
        return self.tool("netboot", self.dir, "--arch", "arm64", *extra, env=env)

    def test_arm64_loader_refusals(self):
        os.mkdir(self.dir)
        arm_elf = fake_kernel(os.path.join(self.tmp.name, "arm.elf"), machine=183)
        plain = os.path.join(self.tmp.name, "BOOTAA64.EFI")
        with open(plain, "wb") as f:   # the plain loader: a head saying no kernel
            f.write(b"MZ" + bytes(126) + netboot.EMBED_MAGIC + bytes(16) + netboot.EMBED_MAGIC)
        for loader, text in (
                (plain, "has no kernel inside: it is not memboot's network loader"),
                # A head whose size does not end at the tail: damaged or cut.
                (fake_net_loader(os.path.join(self.tmp.name, "short.efi"), arm_elf,
                                 size=0x1000), "has no kernel inside"),
                (fake_net_loader(os.path.join(self.tmp.name, "x86.efi"), self.elf),
                 "carries a kernel for ELF machine 62, not arm64's (183)"),
                (self.elf, "is not a UEFI application (no MZ header)"),
                (os.path.join(self.tmp.name, "none.efi"), "No such file")):
            self.assert_status(self.arm64("--loader", loader), facts.EXIT_USAGE, text)
        good = fake_net_loader(os.path.join(self.tmp.name, "net.efi"), arm_elf)
        empty = os.path.join(self.tmp.name, "lib")
        os.mkdir(empty)
        self.assert_status(self.arm64("--loader", good, env=dict(ENV, MEMBOOT_GRUB_LIB=empty)),
                           facts.EXIT_USAGE, "no GRUB modules for arm64-efi in %s/arm64-efi "
                           "(Debian package grub-efi-arm64-bin:arm64, which make ARCH=arm64 "
                           "unpacks there)" % empty)
        self.assert_status(self.netboot("--loader", good), facts.EXIT_USAGE,
                           "--loader: the x86_64 tree's GRUB loads the kernel itself")
        self.assertEqual(os.listdir(self.dir), [])

    def test_arm64_tree(self):
        lib = netboot.grub_lib("arm64-efi")
        if not os.path.isfile(os.path.join(lib, "arm64-efi", "moddep.lst")):
            self.skipTest("no GRUB arm64-efi modules in %s: make ARCH=arm64" % lib)
        loader = fake_net_loader(os.path.join(self.tmp.name, "net.efi"),
                                 fake_kernel(os.path.join(self.tmp.name, "arm.elf"),
                                             machine=183))
        proc = self.arm64("--loader", loader, "--append", "memboot.init=serial",
                          "--mac", "52:54:00:AB:cd:01=memboot.exit=halt")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("UEFI arm64 PXE clients: DHCP boot file boot/grub/arm64-efi/core.efi",
                      proc.stdout)
        with open(os.path.join(self.dir, "boot", "grub", "arm64-efi", "core.efi"), "rb") as f:
            self.assertEqual(f.read(2), b"MZ")
        text = self.checked_cfg()
        self.assertIn('chainloader "${mb_dir}/memboot/memboot-net.efi" $memboot_args\n', text)
        self.assertNotIn("multiboot2", text)
        self.assertIn("set memboot_args='memboot.exit=halt'; fi\n", text)
        with open(os.path.join(self.dir, "boot", "memboot", "memboot-net.efi"), "rb") as f, \
                open(loader, "rb") as g:
            self.assertEqual(f.read(), g.read())
        self.assertEqual(sorted(os.listdir(os.path.join(self.dir, "boot"))), ["grub", "memboot"])
        self.assertFalse(os.path.exists(os.path.join(self.dir, "boot", "grub", "i386-pc")))

    def test_failing_grub_mknetdir_leaves_the_old_tree(self):
        self.assertEqual(self.netboot("--platform", "i386-pc").returncode, 0)
        before = snapshot(self.dir)
        fake = self.fake_mknetdir("echo 'grub-mknetdir: error: disk full' >&2\nexit 1\n")
        proc = self.netboot(env=dict(ENV, MEMBOOT_GRUB_BIN=fake))
        self.assert_status(proc, facts.EXIT_GRUB_FAILED, "disk full")
        self.assertIn("left as it was", proc.stderr)
        self.assertEqual(snapshot(self.dir), before)

    # -- issue 44: hostile trees and words ------------------------------------

    def test_boot_link_out_of_the_directory(self):
        outside = os.path.join(self.tmp.name, "outside")
        os.mkdir(outside)
        os.mkdir(self.dir)
        os.symlink(outside, os.path.join(self.dir, "boot"))
        before, there = snapshot(self.dir), snapshot(outside)
        self.assert_status(self.netboot(), facts.EXIT_USAGE,
                           "%s leads out of %s (to %s)" % (os.path.join(self.dir, "boot"),
                                                          self.dir, outside))
        self.assertEqual(snapshot(self.dir), before)
        self.assertEqual(snapshot(outside), there)

    def test_staging_left_by_a_kill_is_removed(self):
        os.mkdir(self.dir)
        stale = os.path.join(self.dir, ".memboot-netboot-k1ll3d_x")
        os.makedirs(os.path.join(stale, "boot", "memboot"))
        with open(os.path.join(stale, "boot", "memboot", "memboot.elf"), "wb") as f:
            f.write(bytes(1000))
        proc = self.netboot("--platform", "i386-pc")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("removed %s (left by a netboot that was killed)" % stale, proc.stdout)
        self.assertEqual(os.listdir(self.dir), ["boot"])

    def fake_mknetdir(self, then):
        """A grub-mknetdir that starts a tree in its directory, then runs
        the shell text @then."""
        return fake_grub_bin(os.path.join(self.tmp.name, "bin"), {
            "grub-mknetdir": "mkdir -p \"${1#--net-directory=}/boot/grub/half\"\n" + then})

    def test_sigterm_leaves_the_directory_as_it_was(self):
        self.assertEqual(self.netboot("--platform", "i386-pc").returncode, 0)
        before = snapshot(self.dir)
        started = os.path.join(self.tmp.name, "started")
        fake = self.fake_mknetdir("touch %s\nexec sleep 60\n" % started)
        status, out, err = terminate_when_started(
            ["netboot", self.dir, "--elf", self.elf], dict(ENV, MEMBOOT_GRUB_BIN=fake), started)
        self.assertEqual(status, facts.EXIT_TERMINATED, out + err)
        self.assertIn("terminated (SIGTERM); %s left as it was" % self.dir, err)
        self.assertEqual(snapshot(self.dir), before)

    def test_words_grub_would_change_or_the_kernel_would_cut(self):
        os.mkdir(self.dir)
        # Was: accepted; GRUB passed a\"b and the kernel swallowed every
        # later word ("unknown parameter 'a\\b memboot.selftest'").
        proc = self.netboot("--append", 'memboot.init=serial a"b memboot.selftest=pt')
        self.assert_status(proc, facts.EXIT_USAGE, "--append word 'a\"b' has an unbalanced")
        self.assertIn("every later word, memboot.selftest=pt included", proc.stderr)
        self.assert_status(self.netboot("--mac", "52:54:00:12:34:56=x=a'b"), facts.EXIT_USAGE,
                           "--mac 52:54:00:12:34:56 word \"x=a'b\": GRUB puts a backslash")
        long = " ".join("memboot.x%d=%s" % (i, "y" * 40) for i in range(60))
        self.assert_status(self.netboot("--append", long), facts.EXIT_USAGE,
                           "the kernel keeps 2047 bytes of its command line")
        self.assertEqual(os.listdir(self.dir), [])


class RunNetboot(unittest.TestCase):
    def run_tool(self, *argv):
        return subprocess.run([sys.executable, TOOL, "run"] + list(argv), capture_output=True,
                              text=True, timeout=60, env=ENV)

    def test_command_line(self):
        with tempfile.TemporaryDirectory() as d:
            for fw, image in (("bios", "i386-pc/core.0"), ("uefi", "x86_64-efi/core.efi")):
                path = os.path.join(d, "boot", "grub", image)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                open(path, "w").close()
                proc = self.run_tool("--netboot", d, "--firmware", fw, "--dry-run")
                self.assertEqual(proc.returncode, 0, proc.stderr)
                self.assertIn("-netdev user,id=n0,tftp=%s,bootfile=boot/grub/%s -device "
                              "e1000,netdev=n0 -boot n" % (d, image), proc.stdout)
                self.assertNotIn("-net none", proc.stdout)
                self.assertNotIn("-cdrom", proc.stdout)

    def test_disk(self):
        with tempfile.TemporaryDirectory() as d:
            img = os.path.join(d, "disk,1.img")
            with open(img, "wb") as f:
                f.truncate(1 << 20)
            proc = self.run_tool("--disk", img, "--firmware", "uefi", "--dry-run")
            self.assertEqual(proc.returncode, 0, proc.stderr)
            # Writable (no readonly=on), the comma doubled for QEMU.
            self.assertIn("-drive format=raw,if=virtio,file=%s " % img.replace(",", ",,"),
                          proc.stdout.replace("'", ""))
            self.assertNotIn("-cdrom", proc.stdout)
            proc = self.run_tool("--disk", os.path.join(d, "none.img"))
            self.assertEqual(proc.returncode, facts.EXIT_USAGE)
            self.assertIn("--disk %s: No such file" % os.path.join(d, "none.img"), proc.stderr)
            proc = self.run_tool("--disk", img, "--netboot", d)
            self.assertEqual(proc.returncode, facts.EXIT_USAGE)
            self.assertIn("--disk boots the disk image", proc.stderr)

    def test_arm64_command_line(self):
        with tempfile.TemporaryDirectory() as d:
            proc = self.run_tool("--arch", "arm64", "--netboot", d, "--dry-run")
            self.assertEqual(proc.returncode, 0, proc.stderr)
            # AAVMF boots from its own virtio-net driver, first in QEMU's
            # boot order; no x86 option ROM, no -boot n, no ESP.
            self.assertIn("-netdev user,id=n0,tftp=%s,bootfile=boot/grub/arm64-efi/core.efi "
                          "-device virtio-net-pci,netdev=n0,romfile=,bootindex=0 " % d,
                          proc.stdout)
            self.assertIn("AAVMF_CODE.fd", proc.stdout)
            for absent in ("-boot n", "e1000", "-net none", "memboot-esp.img", "-kernel"):
                self.assertNotIn(absent, proc.stdout)
            proc = self.run_tool("--arch", "arm64", "--netboot", d)
            self.assertEqual(proc.returncode, facts.EXIT_USAGE)
            self.assertIn("boot/grub/arm64-efi/core.efi (the arm64-efi image); run "
                          "'tools/memboot netboot %s --arch arm64' first" % d, proc.stderr)
            # An x86 tree (or one missing the loader) is not an arm64 tree.
            core = os.path.join(d, "boot", "grub", "arm64-efi", "core.efi")
            os.makedirs(os.path.dirname(core))
            open(core, "w").close()
            proc = self.run_tool("--arch", "arm64", "--netboot", d)
            self.assertEqual(proc.returncode, facts.EXIT_USAGE)
            self.assertIn("boot/memboot/memboot-net.efi (the network loader with the kernel "
                          "inside)", proc.stderr)
            proc = self.run_tool("--arch", "arm64", "--netboot", d, "--firmware", "bios")
            self.assertEqual(proc.returncode, facts.EXIT_USAGE)
            self.assertIn("--netboot on arm64: its firmware is UEFI's", proc.stderr)

    def test_bad_netboot_options(self):
        with tempfile.TemporaryDirectory() as d:
            proc = self.run_tool("--netboot", d)
            self.assertEqual(proc.returncode, facts.EXIT_USAGE)
            self.assertIn("run 'tools/memboot netboot %s' first" % d, proc.stderr)
            proc = self.run_tool("--netboot", d, "--boot", "pvh")
            self.assertEqual(proc.returncode, facts.EXIT_USAGE)
            self.assertIn("--netboot boots GRUB from the network", proc.stderr)


if __name__ == "__main__":
    unittest.main()
