"""The unattended loop on a machine that stands for a spare server, end to
end, with a real Linux as the reader of memboot's results.

The disk (built without root: mtools on a FAT image, the whole disk one
EFI system partition) holds GRUB (grub-mkimage, x86_64-efi, prefix
/boot/grub), a grub.cfg whose header consumes grubenv's next_entry as
grub-mkconfig's does, Debian's Linux cloud kernel (the package
compare-linux uses) with a small initramfs (busybox-static, efivarfs.ko of
the same kernel package: CONFIG_EFIVAR_FS=m) as the machine's own OS, and
memboot put there by `tools/memboot install --root TREE --once`.

Under OVMF, each boot a new QEMU on the same disk and variable-store files
(QEMU runs with -no-reboot, so a reboot ends it):
  boot 1  GRUB boots next_entry, memboot (and clears next_entry); memboot
          keeps its results in UEFI variables and reboots (memboot.exit=reboot);
  boot 2  GRUB's default, Linux: mounts efivarfs and prints every
          MembootResults file as hex on the serial line;
  boot 3  Linux again: next_entry was consumed;
  boot 4  after `tools/memboot uninstall --root` (grub.cfg as before the
          install, grub-script-check accepts it), Linux, the default.
`tools/memboot efivars` on the bytes Linux printed gives the node_init
(node, pages, ns) and done records memboot printed on its own serial line;
the same bytes with one digit changed do not."""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

from guest import MEMBOOT, ROOT, boot

sys.path.insert(0, os.path.join(ROOT, "tools"))
from mbtools import efivars, linux  # noqa: E402

GRUB_MODULES = ("normal configfile linux multiboot2 echo test regexp all_video loadenv fat "
                "part_gpt part_msdos gzio sleep reboot halt search").split()
DISK_MIB = 48
MARK = "SPARE"
INIT = """#!/bin/sh
bb=/bin/busybox
$bb mount -t proc proc /proc
$bb mount -t sysfs sysfs /sys
$bb insmod /efivarfs.ko
$bb mount -t efivarfs efivarfs /sys/firmware/efi/efivars
echo "%(mark)s linux up"
for f in /sys/firmware/efi/efivars/%(prefix)s*-%(guid)s; do
    [ -e "$f" ] || continue
    echo "%(mark)s var $($bb basename $f) $($bb od -An -v -tx1 $f | $bb tr -d ' \\n')"
done
echo "%(mark)s end"
$bb poweroff -f
""" % {"mark": MARK, "prefix": efivars.PREFIX, "guid": efivars.GUID}

# The grub.cfg of the machine: grub-mkconfig's header (the next_entry
# lines of /etc/grub.d/00_header), then its OS, the default.
GRUB_CFG = """if [ -s $prefix/grubenv ]; then
  set have_grubenv=true
  load_env
fi
if [ "${next_entry}" ] ; then
   set default="${next_entry}"
   set next_entry=
   save_env next_entry
   set boot_once=true
else
   set default="0"
fi
set timeout=0
menuentry 'Debian GNU/Linux' --id linux {
	linux /boot/vmlinuz console=ttyS0,115200 rdinit=/init panic=-1
	initrd /boot/initrd.img
}
"""


def _need(path, what):
    if not path or not os.path.exists(path):
        raise unittest.SkipTest("%s missing (%s)" % (what, path))
    return path


def _cpio_newc(entries):
    """A newc cpio archive (the initramfs format) of [(name, mode, data)]."""
    out = bytearray()
    for ino, (name, mode, data) in enumerate(entries + [("TRAILER!!!", 0, b"")], 1):
        nb = name.encode() + b"\0"
        hdr = "070701" + "".join("%08x" % v for v in (
            ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(nb), 0))
        out += hdr.encode() + nb
        out += b"\0" * (-len(out) % 4) + data
        out += b"\0" * (-len(out) % 4)
    return bytes(out)


def _initramfs(tmp, kernel_root):
    debs = sorted(glob.glob("/var/cache/apt/archives/busybox-static_*.deb"))
    if not debs:
        cache = os.path.join(os.path.expanduser("~"), ".cache", "memboot", "busybox")
        os.makedirs(cache, exist_ok=True)
        subprocess.run(["apt-get", "download", "busybox-static"], cwd=cache,
                       capture_output=True, timeout=300)
        debs = sorted(glob.glob(os.path.join(cache, "busybox-static_*.deb")))
    if not debs:
        raise unittest.SkipTest("busybox-static .deb not available")
    bb_root = os.path.join(tmp, "busybox")
    subprocess.run(["dpkg-deb", "-x", debs[-1], bb_root], check=True)
    ko = _need((glob.glob(os.path.join(kernel_root, "lib", "modules", "*", "kernel", "fs",
                                       "efivarfs", "efivarfs.ko")) or [None])[0],
               "efivarfs.ko of the kernel package")
    with open(os.path.join(bb_root, "bin", "busybox"), "rb") as f:
        busybox = f.read()
    with open(ko, "rb") as f:
        module = f.read()
    dirs = [(d, 0o40755, b"") for d in ("bin", "proc", "sys", "dev")]
    return _cpio_newc(dirs + [("bin/busybox", 0o100755, busybox),
                              ("bin/sh", 0o120777, b"busybox"),
                              ("efivarfs.ko", 0o100644, module),
                              ("init", 0o100755, INIT.encode())])


def _build_disk(tmp, vmlinuz, kernel_root, elf):
    tree = os.path.join(tmp, "esp")
    for d in ("EFI/BOOT", "boot/grub", "etc/grub.d"):
        os.makedirs(os.path.join(tree, d))
    subprocess.run(["grub-mkimage", "-O", "x86_64-efi", "-p", "/boot/grub", "-o",
                    os.path.join(tree, "EFI", "BOOT", "BOOTX64.EFI")] + GRUB_MODULES,
                   check=True, capture_output=True)
    shutil.copyfile(vmlinuz, os.path.join(tree, "boot", "vmlinuz"))
    with open(os.path.join(tree, "boot", "initrd.img"), "wb") as f:
        f.write(_initramfs(tmp, kernel_root))
    with open(os.path.join(tree, "boot", "grub", "grub.cfg"), "w") as f:
        f.write(GRUB_CFG)
    subprocess.run(["grub-editenv", os.path.join(tree, "boot", "grub", "grubenv"), "create"],
                   check=True)
    inst = subprocess.run([MEMBOOT, "install", "--root", tree, "--once", "--elf", elf,
                           "--append", "memboot.init=deferred"],
                          capture_output=True, text=True, timeout=120)
    assert inst.returncode == 0, inst.stderr
    disk = os.path.join(tmp, "disk.img")
    with open(disk, "wb") as f:
        f.truncate(DISK_MIB << 20)
    sectors = (DISK_MIB << 20) // 512
    subprocess.run(["mformat", "-i", disk, "-T", str(sectors), "-h", "64", "-s", "32", "::"],
                   check=True, capture_output=True)
    # etc/grub.d stays in the tree: its script is for update-grub only.
    subprocess.run(["mcopy", "-s", "-i", disk, os.path.join(tree, "EFI"),
                    os.path.join(tree, "boot"), "::/"], check=True, capture_output=True)
    return disk, tree


def _uninstall(disk, tree):
    """`memboot uninstall --root` on the tree, and the disk made to match:
    the new grub.cfg and grubenv copied over, the kernel deleted."""
    out = subprocess.run([MEMBOOT, "uninstall", "--root", tree], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    cfg = os.path.join(tree, "boot", "grub", "grub.cfg")
    check = subprocess.run(["grub-script-check", cfg], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    with open(cfg) as f:
        assert f.read() == GRUB_CFG
    for name in ("grub.cfg", "grubenv"):
        subprocess.run(["mcopy", "-o", "-i", disk, os.path.join(tree, "boot", "grub", name),
                        "::/boot/grub/" + name], check=True, capture_output=True)
    subprocess.run(["mdeltree", "-i", disk, "::/boot/memboot"], check=True,
                   capture_output=True)


def _grubenv(tmp, disk):
    out = os.path.join(tmp, "grubenv.out")
    if os.path.exists(out):
        os.unlink(out)
    subprocess.run(["mcopy", "-i", disk, "::/boot/grub/grubenv", out], check=True,
                   capture_output=True)
    listing = subprocess.run(["grub-editenv", out, "list"], capture_output=True, text=True,
                             check=True).stdout
    return dict(line.split("=", 1) for line in listing.splitlines() if "=" in line)


def _linux_vars(b):
    """{file name: bytes} Linux printed; asserts it got to the end."""
    lines = [l.strip() for l in b.console.splitlines() if l.strip().startswith(MARK + " ")]
    assert MARK + " linux up" in lines and lines[-1] == MARK + " end", b.tail(60)
    found = {}
    for l in lines:
        parts = l.split()
        if parts[1] == "var":
            found[parts[2]] = bytes.fromhex(parts[3] if len(parts) > 3 else "")
    return found


def _read_back(tmp, files, name):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    for fname, data in files.items():
        with open(os.path.join(d, fname), "wb") as f:
            f.write(data)
    return subprocess.run([MEMBOOT, "efivars", d, "--json"], capture_output=True, text=True,
                          timeout=60)


def _node_init(recs):
    return [(r["node"], r["pages"], r["ns"]) for r in recs if r["event"] == "node_init"]


def test_install_once_memboot_then_linux_reads_the_results():
    elf = _need(os.environ.get("MEMBOOT_ELF") or os.path.join(ROOT, "build", "debug",
                                                              "memboot.elf"), "kernel ELF")
    vmlinuz = linux.find_vmlinuz(linux.DEFAULT_CACHE)
    if vmlinuz is None:
        try:
            vmlinuz = linux.fetch_kernel(linux.DEFAULT_CACHE)
        except linux.LinuxError as e:
            raise unittest.SkipTest("Debian's Linux kernel: %s" % e)
    kernel_root = os.path.join(linux.DEFAULT_CACHE, "root")
    with tempfile.TemporaryDirectory(prefix="memboot-spare-") as tmp:
        disk, tree = _build_disk(tmp, vmlinuz, kernel_root, elf)
        assert _grubenv(tmp, disk) == {"next_entry": "memboot"}
        vars_file = os.path.join(tmp, "vars.fd")
        tool = ["--disk", disk, "--vars", vars_file]

        # Boot 1: memboot, once. It reboots, which ends QEMU (-no-reboot).
        first = boot(firmware="uefi", nodes=2, mem_per_node="512M", timeout=180,
                     tool_args=tool)
        done = first.one("done")
        assert done["status"] == 0 and first.one("boot")["cmdline"].startswith(
            "memboot.init=deferred memboot.exit=reboot"), first.tail()
        # save_env leaves the variable empty, as after grub-reboot's boot.
        assert _grubenv(tmp, disk) == {"next_entry": ""}, "GRUB did not clear next_entry"

        # Boot 2: GRUB's default, Linux, prints the variables efivarfs shows.
        second = boot(firmware="uefi", nodes=2, mem_per_node="512M", timeout=240,
                      tool_args=tool)
        assert not second.records, "memboot booted again\n" + second.tail()
        files = _linux_vars(second)
        assert files and all(efivars.GUID in n for n in files), files
        assert all(len(v) > 4 for v in files.values())

        # Boot 3: Linux again.
        third = boot(firmware="uefi", nodes=2, mem_per_node="512M", timeout=240,
                     tool_args=tool)
        assert not third.records and _linux_vars(third) == files, third.tail()

        # Uninstalled, with a next_entry still naming memboot (as if the
        # one-shot had not been used yet): the default, Linux, boots.
        subprocess.run(["grub-editenv", os.path.join(tree, "boot", "grub", "grubenv"), "set",
                        "next_entry=memboot"], check=True)
        _uninstall(disk, tree)
        assert not _grubenv(tmp, disk).get("next_entry")
        fourth = boot(firmware="uefi", nodes=2, mem_per_node="512M", timeout=240,
                      tool_args=tool)
        assert not fourth.records and MARK + " linux up" in fourth.console, fourth.tail()

        out = _read_back(tmp, files, "efivars")
        assert out.returncode == 0, out.stderr
        kept = [json.loads(l) for l in out.stdout.splitlines()]
        assert _node_init(kept) == _node_init(first.records), (kept, first.records)
        assert len(_node_init(kept)) == 2
        assert kept[-1] == done

        # The check can fail: one digit of a node's ns changed.
        name = sorted(files)[0]
        data = files[name]
        ns = str(_node_init(first.records)[0][2]).encode()
        assert ns in data
        changed = dict(files, **{name: data.replace(ns, str(int(ns) + 1).encode(), 1)})
        out = _read_back(tmp, changed, "changed")
        kept = [json.loads(l) for l in out.stdout.splitlines()]
        assert _node_init(kept) != _node_init(first.records)
