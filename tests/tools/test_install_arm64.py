"""tools/memboot install / uninstall for an arm64 machine (--root trees
that stand for one): GRUB for arm64-efi has no multiboot2, so memboot's
entry chainloads its UEFI loader (BOOTAA64.EFI) from the EFI system
partition, and the loader reads the kernel and the words beside it
(EFI/memboot/). The architecture is --arch, or the one whose GRUB modules
grub-install put in /boot/grub; contradictions are refused with the tree
left as it was. The boot itself: tests/guest/test_spare_roundtrip_arm64.py."""

import os
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
from mbtools import bootnext, install  # noqa: E402
import test_install  # noqa: E402
from test_install import HAVE_GRUB, Tree, fake_kernel, grubenv, script_check, snapshot  # noqa: E402,E501

AARCH64 = 183


@unittest.skipUnless(HAVE_GRUB, "grub-script-check / grub-editenv (grub-common) missing")
class InstallArm64(Tree):
    def setUp(self):
        super().setUp()
        self.elf = fake_kernel(os.path.join(self.tmp.name, "arm64.elf"), machine=AARCH64)
        self.x86_elf = fake_kernel(os.path.join(self.tmp.name, "x86.elf"))
        self.loader = os.path.join(self.tmp.name, "BOOTAA64.EFI")
        with open(self.loader, "wb") as f:
            f.write(b"MZ" + bytes(510))
        self.esp = os.path.join(self.root, "boot", "efi")
        os.makedirs(os.path.join(self.esp, "EFI", "debian"))
        # What grub-install --target=arm64-efi leaves: the modules' directory.
        self.platform = os.path.join(self.root, "boot", "grub", "arm64-efi")
        os.makedirs(self.platform)

    def install(self, *extra, env=None):
        return self.tool("install", "--root", self.root, "--elf", self.elf, "--loader",
                         self.loader, *extra, env=env)

    def test_detected_arm64_chainloads_the_loader_then_uninstall(self):
        before = snapshot(self.root)
        proc = self.install("--once", "--append", "memboot.init=serial")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(script_check(self.cfg).returncode, 0, script_check(self.cfg).stderr)
        with open(self.cfg) as f:
            cfg = f.read()
        self.assertIn("\tsearch --no-floppy --file --set=mb_esp /EFI/memboot/memboot.efi\n"
                      "\tchainloader ($mb_esp)/EFI/memboot/memboot.efi\n", cfg)
        self.assertIn("through its UEFI loader", cfg)
        self.assertNotIn("multiboot2", cfg)
        d = os.path.join(self.esp, "EFI", "memboot")
        for name, src in (("memboot.efi", self.loader), ("memboot.elf", self.elf)):
            with open(os.path.join(d, name), "rb") as f, open(src, "rb") as g:
                self.assertEqual(f.read(), g.read(), name)
        with open(os.path.join(d, "cmdline.txt")) as f:
            self.assertEqual(f.read(), "memboot.init=serial memboot.exit=reboot\n")
        self.assertEqual(grubenv(self.env_file), {"next_entry": "memboot"})

        proc = self.tool("uninstall", "--root", self.root)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(grubenv(self.env_file), {})
        after = snapshot(self.root)
        after.pop("boot/grub/grubenv"), before.pop("boot/grub/grubenv")
        self.assertEqual(after, before)

    def test_arch_given_without_grub_modules(self):
        os.rmdir(self.platform)
        proc = self.install("--arch", "arm64")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(self.cfg) as f:
            self.assertIn("chainloader ($mb_esp)/EFI/memboot/memboot.efi", f.read())
        # Without --arch and without modules: x86_64, which refuses the
        # arm64 kernel and names the option.
        self.assertEqual(self.tool("uninstall", "--root", self.root).returncode, 0)
        before = snapshot(self.root)
        self.assert_refused(self.install(), "an ELF for machine 183, not x86-64 (62): arm64's "
                                            "kernel (install --arch arm64)")
        self.assertEqual(snapshot(self.root), before)

    def test_refusals_change_nothing(self):
        before = snapshot(self.root)
        self.assert_refused(self.install("--arch", "x86_64"),
                            "--arch x86_64, but the GRUB under %s is arm64's (%s)"
                            % (self.root, self.platform))
        self.assert_refused(self.tool("install", "--root", self.root, "--elf", self.x86_elf,
                                      "--loader", self.loader),
                            "not AArch64 (183): x86_64's kernel (install --arch x86_64)")
        self.assert_refused(self.install("--loader", os.path.join(self.tmp.name, "none.efi")),
                            "none.efi: No such file or directory")
        self.assert_refused(self.install("--loader", self.elf),
                            "is not a UEFI application (no PE/COFF 'MZ' header)")
        self.assert_refused(self.install("--esp", os.path.join(self.root, "etc")),
                            "is not an EFI system partition (no EFI directory)")
        self.assertEqual(snapshot(self.root), before)
        os.makedirs(os.path.join(self.root, "boot", "grub", "x86_64-efi"))
        before = snapshot(self.root)
        self.assert_refused(self.install(), "holds GRUB's modules for arm64 (%s) and x86_64"
                            % self.platform)
        self.assertEqual(snapshot(self.root), before)

    def test_built_kernels(self):
        built = install.default_elf("arm64")
        if not os.path.exists(built):
            self.skipTest("no %s (make ARCH=arm64)" % built)
        self.assertIsNone(install.kernel_problem(built, "arm64"))
        self.assertIn("not x86-64 (62): arm64's kernel", install.kernel_problem(built))


@unittest.skipUnless(HAVE_GRUB, "grub-script-check / grub-editenv (grub-common) missing")
class HostArm64(Tree):
    """The running arm64 machine (update-grub and grub-probe faked, the
    tree as '/'): arm64 told from /boot/grub/arm64-efi."""

    def setUp(self):
        super().setUp()
        # test_install.InstallRunningMachine's machine, without its tests.
        self.bin = os.path.join(self.tmp.name, "hostbin")
        test_install.fake_grub_bin(self.bin, {"update-grub": test_install.FAKE_UPDATE_GRUB[10:],
                                              "grub-probe": test_install.FAKE_GRUB_PROBE[10:]})
        self.host_env = dict(test_install.ENV, MEMBOOT_GRUB_BIN=self.bin,
                             MEMBOOT_HOST_ROOT=self.root, FIXTURE_CFG=test_install.FIXTURE_CFG)
        self.elf = fake_kernel(os.path.join(self.tmp.name, "arm64.elf"), machine=AARCH64)
        self.loader = os.path.join(self.tmp.name, "BOOTAA64.EFI")
        with open(self.loader, "wb") as f:
            f.write(b"MZ" + bytes(510))
        self.esp = os.path.join(self.root, "boot", "efi")
        os.makedirs(os.path.join(self.esp, "EFI", "debian"))
        os.makedirs(os.path.join(self.root, "boot", "grub", "arm64-efi"))

    def test_host_install_once_then_uninstall(self):
        proc = test_install.InstallRunningMachine.host(self, "install", "--once", "--loader", self.loader)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(script_check(self.cfg).returncode, 0)
        with open(self.cfg) as f:
            cfg = f.read()
        self.assertIn("### BEGIN /etc/grub.d/42_memboot ###\nmenuentry 'memboot", cfg)
        self.assertIn("chainloader ($mb_esp)/EFI/memboot/memboot.efi", cfg)
        self.assertNotIn("multiboot2", cfg)
        self.assertEqual(sorted(os.listdir(os.path.join(self.esp, "EFI", "memboot"))),
                         ["cmdline.txt", "memboot.efi", "memboot.elf"])
        self.assertEqual(grubenv(self.env_file), {"next_entry": "memboot"})
        proc = test_install.InstallRunningMachine.host(self, "uninstall")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(self.cfg) as f:
            self.assertNotIn("memboot", f.read())
        self.assertEqual(grubenv(self.env_file), {})
        self.assertEqual(os.listdir(os.path.join(self.esp, "EFI")), ["debian"])


class RemovablePath(unittest.TestCase):
    def test_a_whole_disk_entry_boots_the_arm64_removable_path(self):
        # Was: only \EFI\BOOT\BOOTX64.EFI was looked at, so on an arm64
        # machine whose firmware booted the disk install --once could not
        # tell whether GRUB was what it booted (None).
        with tempfile.TemporaryDirectory(prefix="memboot-esp-") as esp:
            os.makedirs(os.path.join(esp, "EFI", "BOOT"))
            path = os.path.join(esp, "EFI", "BOOT", "BOOTAA64.EFI")
            disk = (1, "UEFI Misc Device", None)
            for blob, boots in ((b"MZ..GNU GRUB  version 2.06", True),
                                (b"MZ..systemd-boot", False)):
                with open(path, "wb") as f:
                    f.write(blob)
                self.assertIs(bootnext.grub_boots(disk, esp), boots, blob)
            self.assertIs(bootnext.grub_boots((1, None, "\\EFI\\BOOT\\BOOTAA64.EFI"), esp),
                          False)


if __name__ == "__main__":
    unittest.main()
