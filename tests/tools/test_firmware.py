"""memboot install on the running machine's firmware, with a tree standing
for '/' (MEMBOOT_HOST_ROOT) that holds a fake efivarfs, mount table and
sysfs, and fakes of efibootmgr, mokutil and sbsign (MEMBOOT_GRUB_BIN):

  - Secure Boot: what install says for each state of the SecureBoot and
    SetupMode variables (or mokutil's answer), and the entry's fallback to
    GRUB's default with a menu timeout, which grub-script-check accepts;
  - GRUB not what the firmware boots (BootCurrent's Boot#### names
    systemd-boot): --once refused with --bootnext offered;
  - --bootnext: the ESP files, a Boot#### entry outside BootOrder and
    BootNext, all removed by uninstall; a failing step undone;
  - --sign-key: the signed loader on the ESP and a chainloader entry."""

import json
import os
import shutil
import struct
import subprocess
import sys
import unittest

import test_install as ti

sys.path.insert(0, os.path.join(ti.REPO_ROOT, "tools"))
from mbtools import bootnext, facts, install, secureboot  # noqa: E402

GLOBAL = secureboot.GLOBAL_GUID

# efibootmgr as far as install uses it, on a JSON file beside it: the
# listing, --create-only, --bootnext, --delete-bootnext, --delete-bootnum.
# BootNext is also written to the fake efivarfs, where install reads it.
FAKE_EFIBOOTMGR = r"""#!%(python)s
import json, os, struct, sys
state_file = os.path.join(os.path.dirname(os.path.abspath(__file__)), "efiboot.json")
efivarfs = os.path.join(os.environ["MEMBOOT_HOST_ROOT"], "sys/firmware/efi/efivars")
st = json.load(open(state_file)) if os.path.exists(state_file) else {"entries": {}, "next": None}
a = sys.argv[1:]
def opt(name):
    return a[a.index(name) + 1]
if os.environ.get("EFIBOOTMGR_FAILS") and os.environ["EFIBOOTMGR_FAILS"] in a:
    sys.stderr.write("efibootmgr: Could not set variable: No space left on device\n")
    sys.exit(5)
nextvar = os.path.join(efivarfs, "BootNext-%(guid)s")
if "--create-only" in a:
    n = 0x10
    while "%%04X" %% n in st["entries"]:
        n += 1
    st["entries"]["%%04X" %% n] = {"label": opt("--label"), "disk": opt("--disk"),
                                  "part": opt("--part"), "loader": opt("--loader")}
elif "--bootnext" in a:
    st["next"] = opt("--bootnext")
    with open(nextvar, "wb") as f:
        f.write(struct.pack("<IH", 7, int(st["next"], 16)))
elif "--delete-bootnext" in a:
    st["next"] = None
    if os.path.exists(nextvar):
        os.unlink(nextvar)
elif "--delete-bootnum" in a:
    del st["entries"][opt("--bootnum")]
json.dump(st, open(state_file, "w"))
print("BootCurrent: 0001")
for n, e in sorted(st["entries"].items()):
    print("Boot%%s* %%s\tHD(%%s,GPT)/File(%%s)" %% (n, e["label"], e["part"], e["loader"]))
"""

FAKE_MOKUTIL = """#!/bin/sh
case "$1" in
--sb-state) echo "${MOKUTIL_SAYS:-SecureBoot disabled}" ;;
--test-key) echo "$2 is not enrolled" ;;
esac
"""

# sbsign: the input with a marker after it, so the test sees it ran.
FAKE_SBSIGN = """#!/bin/sh
while [ $# -gt 1 ]; do
    case "$1" in --output) out="$2"; shift 2 ;; --key|--cert) shift 2 ;; *) shift ;; esac
done
{ cat "$1"; printf 'SIGNED'; } > "$out"
"""


def load_option(desc, path):
    """An EFI_LOAD_OPTION: attributes, FilePathListLength, the description,
    a hard-drive node (type 4 subtype 1), a file path node and the end."""
    hd = struct.pack("<BBH", 4, 1, 42) + bytes(38)
    name = (path + "\0").encode("utf-16-le")
    fp = struct.pack("<BBH", 4, 4, 4 + len(name)) + name
    end = struct.pack("<BBH", 0x7F, 0xFF, 4)
    dp = hd + fp + end
    return struct.pack("<IH", 1, len(dp)) + (desc + "\0").encode("utf-16-le") + dp


@unittest.skipUnless(ti.HAVE_GRUB, "grub-script-check / grub-editenv (grub-common) missing")
class Firmware(ti.Tree):

    def setUp(self):
        super().setUp()
        self.bin = os.path.join(self.tmp.name, "hostbin")
        os.mkdir(self.bin)
        for t in ti.GRUB_TOOLS:
            os.symlink(shutil.which(t), os.path.join(self.bin, t))
        for name, text in (("update-grub", ti.FAKE_UPDATE_GRUB),
                           ("grub-probe", ti.FAKE_GRUB_PROBE),
                           ("efibootmgr", FAKE_EFIBOOTMGR % {"python": sys.executable,
                                                             "guid": GLOBAL}),
                           ("mokutil", FAKE_MOKUTIL), ("sbsign", FAKE_SBSIGN)):
            self.put(os.path.join(self.bin, name), text, 0o755)
        self.efivarfs = os.path.join(self.root, "sys", "firmware", "efi", "efivars")
        os.makedirs(self.efivarfs)
        self.esp = os.path.join(self.root, "boot", "efi")
        os.makedirs(os.path.join(self.esp, "EFI", "BOOT"))
        # The ESP is /dev/vda1 in the mount table and sysfs of the tree.
        self.put(os.path.join(self.root, "proc", "self", "mountinfo"),
                 "22 1 254:1 / / rw - ext4 /dev/vda2 rw\n"
                 "29 22 254:1 / /boot/efi rw,relatime - vfat /dev/vda1 rw,umask=0077\n")
        part = os.path.join(self.root, "sys", "devices", "virtual", "block", "vda", "vda1")
        self.put(os.path.join(part, "partition"), "1\n")
        os.makedirs(os.path.join(self.root, "sys", "class", "block"))
        os.symlink(part, os.path.join(self.root, "sys", "class", "block", "vda1"))
        self.loader = os.path.join(self.tmp.name, "BOOTX64.EFI")
        with open(self.loader, "wb") as f:
            f.write(b"MZ" + bytes(range(200)))
        self.env = dict(ti.ENV, MEMBOOT_GRUB_BIN=self.bin, MEMBOOT_HOST_ROOT=self.root,
                        FIXTURE_CFG=ti.FIXTURE_CFG)

    def put(self, path, text, mode=0o644):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(text if isinstance(text, bytes) else text.encode())
        os.chmod(path, mode)

    def var(self, name, data, guid=GLOBAL):
        self.put(os.path.join(self.efivarfs, "%s-%s" % (name, guid)),
                 struct.pack("<I", 6) + data)

    def host(self, cmd, *extra, **env):
        argv = [cmd] + (["--elf", self.elf, "--loader", self.loader]
                        if cmd == "install" else []) + list(extra)
        return self.tool(*argv, env=dict(self.env, **env))

    def cfg_text(self):
        with open(self.cfg) as f:
            return f.read()

    def efiboot(self):
        path = os.path.join(self.bin, "efiboot.json")
        if not os.path.exists(path):
            return {"entries": {}, "next": None}
        with open(path) as f:
            return json.load(f)

    # -- Secure Boot ----------------------------------------------------------

    def test_secure_boot_on_is_said_and_the_entry_falls_back(self):
        self.var("SecureBoot", b"\x01")
        self.var("SetupMode", b"\x00")
        proc = self.host("install", "--once")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("memboot: Secure Boot is on: GRUB will refuse memboot's unsigned kernel",
                      proc.stdout)
        self.assertIn("falls back to GRUB's default entry", proc.stdout)
        self.assertIn("ways through: sign memboot with a machine owner key", proc.stdout)
        cfg = self.cfg_text()
        entry = cfg[cfg.index("menuentry 'memboot"):]
        # Before anything that can fail: the default back, its number as
        # fallback, and a timeout for the menu after a refused entry.
        self.assertLess(entry.index("\tset default=0\n\tset fallback=0\n\tset timeout=5\n"),
                        entry.index("multiboot2"))
        self.assertEqual(ti.script_check(self.cfg).returncode, 0)

    def test_each_secure_boot_state_is_said(self):
        cases = (
            ({"SecureBoot": b"\x00"}, {}, "Secure Boot is off (efivarfs): memboot boots as it is"),
            ({"SecureBoot": b"\x01", "SetupMode": b"\x01"}, {}, "Secure Boot is in setup mode"),
            ({}, {"MOKUTIL_SAYS": "SecureBoot enabled"}, "Secure Boot is on: GRUB will refuse"),
            ({}, {"MOKUTIL_SAYS": "EFI variables are not supported"}, "Secure Boot: unknown"),
        )
        for variables, env, text in cases:
            with self.subTest(text=text):
                for name in os.listdir(self.efivarfs):
                    os.unlink(os.path.join(self.efivarfs, name))
                for name, data in variables.items():
                    self.var(name, data)
                proc = self.host("install", **env)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                self.assertIn(text, proc.stdout)
                self.assertEqual(self.host("uninstall").returncode, 0)
        shutil.rmtree(os.path.join(self.root, "sys", "firmware"))
        proc = self.host("install")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("booted through BIOS", proc.stdout)
        self.assertIn("on its console only", proc.stdout)

    def test_the_fallback_follows_grub_default(self):
        cases = (("0", "\tset default=0\n\tset fallback=0\n"),
                 ("2", "\tset default=2\n\tset fallback=2\n"),
                 ("gnulinux-simple-0f0e", "\tset default=gnulinux-simple-0f0e\n\tset timeout"),
                 ("Advanced options>Debian, with Linux 6.1",
                  "\tset default='Advanced options>Debian, with Linux 6.1'\n\tset timeout"),
                 ("saved", 'set default="${saved_entry}"; else set default=0; fi\n'))
        for default, text in cases:
            with self.subTest(default=default):
                self.put(os.path.join(self.root, "etc", "default", "grub"),
                         'GRUB_DEFAULT="%s"\n' % default)
                proc = self.host("install")
                self.assertEqual(proc.returncode, 0, proc.stderr)
                cfg = self.cfg_text()
                self.assertIn(text, cfg)
                self.assertEqual(ti.script_check(self.cfg).returncode, 0,
                                 ti.script_check(self.cfg).stderr)
                self.assertEqual(self.host("uninstall").returncode, 0)

    # -- GRUB not the firmware's boot manager ---------------------------------

    def test_once_is_refused_where_the_firmware_does_not_boot_grub(self):
        self.var("BootCurrent", struct.pack("<H", 4))
        self.var("Boot0004", load_option("Linux Boot Manager",
                                         "\\EFI\\systemd\\systemd-bootx64.efi"))
        before = ti.snapshot(self.root)
        proc = self.host("install", "--once")
        self.assert_refused(proc, "the firmware booted Boot0004 'Linux Boot Manager' "
                                  "(\\EFI\\systemd\\systemd-bootx64.efi), not GRUB")
        self.assertIn("install --bootnext", proc.stderr)
        self.assertEqual(ti.snapshot(self.root), before)
        # GRUB's own entry (shim first), or the removable path with GRUB
        # there, is GRUB: --once goes ahead.
        for path, blob in (("\\EFI\\debian\\shimx64.efi", None),
                           ("\\EFI\\BOOT\\BOOTX64.EFI", b"MZ..GNU GRUB  version 2.06")):
            with self.subTest(path=path):
                self.var("Boot0004", load_option("debian", path))
                if blob:
                    self.put(os.path.join(self.esp, "EFI", "BOOT", "BOOTX64.EFI"), blob)
                proc = self.host("install", "--once")
                self.assertEqual(proc.returncode, 0, proc.stderr)
                self.assertEqual(self.host("uninstall").returncode, 0)
        # The removable path with something else there is not.
        self.put(os.path.join(self.esp, "EFI", "BOOT", "BOOTX64.EFI"), b"MZ..systemd-boot")
        self.assert_refused(self.host("install", "--once"), "not GRUB")

    def test_load_options_that_are_cut_are_told(self):
        good = load_option("x", "\\a.efi")
        self.assertEqual(bootnext.parse_load_option(good), ("x", "\\a.efi"))
        for bad in (good[:5], good[:8], good[:-3], struct.pack("<IH", 1, 4) + b"x\0\0\0" +
                    struct.pack("<BBH", 4, 4, 2)):
            with self.subTest(bad=bad):
                with self.assertRaises(ValueError):
                    bootnext.parse_load_option(bad)

    # -- --bootnext ------------------------------------------------------------

    def test_bootnext_install_then_uninstall(self):
        self.var("SecureBoot", b"\x00")
        before = ti.snapshot(self.root)
        proc = self.host("install", "--bootnext", "--append", "memboot.init=serial")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        d = os.path.join(self.esp, "EFI", "memboot")
        with open(os.path.join(d, "memboot.efi"), "rb") as f, open(self.loader, "rb") as g:
            self.assertEqual(f.read(), g.read())
        with open(os.path.join(d, "memboot.elf"), "rb") as f, open(self.elf, "rb") as g:
            self.assertEqual(f.read(), g.read())
        with open(os.path.join(d, "cmdline.txt")) as f:
            self.assertEqual(f.read(), "memboot.init=serial memboot.exit=reboot\n")
        st = self.efiboot()
        self.assertEqual(st["entries"], {"0010": {"label": "memboot", "disk": "/dev/vda",
                                                  "part": "1",
                                                  "loader": "\\EFI\\memboot\\memboot.efi"}})
        self.assertEqual(st["next"], "0010")
        self.assertIn("installed: Boot0010 'memboot'", proc.stdout)
        # GRUB is not touched.
        self.assertEqual(self.cfg_text(), before["boot/grub/grub.cfg"][2].decode())
        self.assertFalse(os.path.exists(os.path.join(self.root, "etc", "grub.d",
                                                     install.SCRIPT_NAME)))
        # Twice is refused: the entry is there.
        self.assert_refused(self.host("install", "--bootnext"), "Boot0010 is already there")

        proc = self.host("uninstall")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(self.efiboot(), {"entries": {}, "next": None})
        self.assertEqual(ti.snapshot(self.root), before)

    def test_bootnext_failing_step_is_undone(self):
        before = ti.snapshot(self.root)
        proc = self.host("install", "--bootnext", EFIBOOTMGR_FAILS="--bootnext")
        self.assert_refused(proc, "No space left on device", facts.EXIT_GRUB_FAILED)
        self.assertEqual(self.efiboot()["entries"], {})
        self.assertEqual(ti.snapshot(self.root), before)

    def test_bootnext_refusals(self):
        before = ti.snapshot(self.root)
        self.assert_refused(self.install("--bootnext"), "a tree under --root has none")
        os.unlink(os.path.join(self.bin, "efibootmgr"))
        self.assert_refused(self.host("install", "--bootnext"), "efibootmgr not found")
        self.put(os.path.join(self.bin, "efibootmgr"), "#!/bin/sh\n", 0o755)
        self.assert_refused(self.host("install", "--bootnext", "--loader", self.elf),
                            "is not a UEFI application")
        self.assert_refused(self.host("install", "--bootnext", "--esp",
                                      os.path.join(self.root, "boot")),
                            "cannot tell which disk partition is mounted at")
        os.rename(os.path.join(self.esp, "EFI"), os.path.join(self.esp, "NOT-EFI"))
        self.assert_refused(self.host("install", "--bootnext"), "is not an EFI system partition")
        os.rename(os.path.join(self.esp, "NOT-EFI"), os.path.join(self.esp, "EFI"))
        shutil.rmtree(os.path.join(self.root, "sys", "firmware"))
        self.assert_refused(self.host("install", "--bootnext"), "booted through BIOS")
        self.assertEqual(ti.snapshot(self.root).keys() - {"bin"}, before.keys()
                         - {"sys/firmware", "sys/firmware/efi", "sys/firmware/efi/efivars"})

    # -- --sign-key -------------------------------------------------------------

    def test_signed_loader_is_chainloaded_from_the_esp(self):
        self.var("SecureBoot", b"\x01")
        self.var("SetupMode", b"\x00")
        key, cert = (os.path.join(self.tmp.name, n) for n in ("mok.key", "mok.crt"))
        for p in (key, cert):
            self.put(p, "PEM")
        self.assert_refused(self.host("install", "--sign-key", key),
                            "--sign-key and --sign-cert go together")
        before = ti.snapshot(self.root)
        proc = self.host("install", "--once", "--sign-key", key, "--sign-cert", cert)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("memboot's loader is signed with your key", proc.stdout)
        with open(os.path.join(self.esp, "EFI", "memboot", "memboot.efi"), "rb") as f, \
                open(self.loader, "rb") as g:
            self.assertEqual(f.read(), g.read() + b"SIGNED")
        cfg = self.cfg_text()
        self.assertIn("\tsearch --no-floppy --file --set=mb_esp /EFI/memboot/memboot.efi\n"
                      "\tchainloader ($mb_esp)/EFI/memboot/memboot.efi\n", cfg)
        self.assertNotIn("multiboot2", cfg[cfg.index("menuentry 'memboot"):])
        self.assertEqual(ti.script_check(self.cfg).returncode, 0)
        self.assertEqual(self.host("uninstall").returncode, 0)
        after = ti.snapshot(self.root)
        after.pop("boot/grub/grubenv"), before.pop("boot/grub/grubenv")
        self.assertEqual(after, before)


if __name__ == "__main__":
    unittest.main()
