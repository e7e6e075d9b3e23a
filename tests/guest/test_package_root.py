"""The package on a Debian 12 root, piuparts-style: debootstrap a minimal
bookworm (python3, grub-common, grub2-common: update-grub and the scripts
of /etc/grub.d), then in a chroot

  1. `apt-get install ./memboot_*.deb`, then `apt-get purge memboot`:
     /etc and /boot exactly as before (every file's bytes and mode, every
     directory and link);
  2. the package installed, `memboot install --once` (update-grub really
     runs: grub-mkconfig and Debian's /etc/grub.d scripts), then `apt-get
     purge memboot`: its prerm runs `memboot uninstall`, and /etc/grub.d,
     /etc/default/grub, grub.cfg (bytes and mode) and grubenv are as before
     the package came.

The chroot is a directory, not a disk: grub-probe has no device to probe
there, so the chroot's /usr/sbin/grub-probe is diverted (dpkg-divert) to a
script that answers for one (an ext4 root on /dev/vda2), the only
stand-in; grub-mkconfig calls it by that path. The debootstrapped tree is
cached as a tarball in ~/.cache/memboot/ (the first run downloads about 60
packages through the machine's own apt sources).

Needs root (chroot, debootstrap). Wall time on the 2-core development host:
about 5 minutes the first time, then about 1 minute. Runs in `make
test-spare` and in CI (.ci/run), not in a plain `make test`."""

import glob
import os
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import unittest

from guest import ROOT, spare_tests_only

sys.path.insert(0, os.path.join(ROOT, "tools"))
from mbtools import rehearse  # noqa: E402

CACHE = os.path.join(os.path.expanduser("~"), ".cache", "memboot", "debootstrap")
SUITE = "bookworm"
INCLUDE = "python3,grub-common,grub2-common"
FAKE_GRUB_PROBE = """#!/bin/sh
# The test's stand-in: the chroot is a directory, not a disk (see the test).
for a in "$@"; do
    case "$a" in
    --target=device) echo /dev/vda2; exit 0 ;;
    --target=fs) echo ext2; exit 0 ;;
    --target=fs_uuid) echo 0f0e0d0c-0b0a-4908-8706-050403020100; exit 0 ;;
    --target=partmap) echo gpt; exit 0 ;;
    --target=abstraction) exit 0 ;;
    --target=compatibility_hint) echo hd0,gpt2; exit 0 ;;
    --target=drive) echo '(hd0)'; exit 0 ;;
    --target=hints_string) echo; exit 0 ;;
    --target=disk) echo /dev/vda; exit 0 ;;
    esac
done
exit 0
"""


def apt_mirror():
    """The URI of this machine's own Debian source for bookworm."""
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        with open(path) as f:
            for stanza in f.read().split("\n\n"):
                uris = re.search(r"^URIs:\s*(\S+)", stanza, re.M)
                suites = re.search(r"^Suites:(.*)$", stanza, re.M)
                if uris and suites and SUITE in suites.group(1).split():
                    return uris.group(1)
    if os.path.exists("/etc/apt/sources.list"):
        with open("/etc/apt/sources.list") as f:
            for line in f:
                m = re.match(r"deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+%s\s" % SUITE, line)
                if m:
                    return m.group(1)
    return None


def debian_root(dst):
    """A minimal Debian 12 root at @dst (from the cached tarball)."""
    tarball = os.path.join(CACHE, "%s-%s.tar" % (SUITE, INCLUDE.replace(",", "+")))
    if not os.path.exists(tarball):
        mirror = apt_mirror()
        if not mirror or not shutil.which("debootstrap"):
            raise unittest.SkipTest("debootstrap or a bookworm apt source missing")
        os.makedirs(CACHE, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="memboot-debootstrap-") as tmp:
            target = os.path.join(tmp, "root")
            proc = subprocess.run(["debootstrap", "--variant=minbase", "--include=" + INCLUDE,
                                   SUITE, target, mirror], capture_output=True, text=True,
                                  timeout=1800)
            if proc.returncode != 0:
                raise unittest.SkipTest("debootstrap failed: %s" % proc.stderr[-500:])
            with tarfile.open(tarball + ".tmp", "w") as t:
                t.add(target, arcname=".")
            os.replace(tarball + ".tmp", tarball)
    os.makedirs(dst)
    subprocess.run(["tar", "-xpf", tarball, "-C", dst], check=True)


def snapshot(root, tops=("etc", "boot")):
    """{path: (kind, mode, bytes or link target)} under @root's @tops."""
    out = {}
    for top in tops:
        base = os.path.join(root, top)
        for folder, dirs, files in os.walk(base):
            for name in dirs + files:
                p = os.path.join(folder, name)
                st = os.lstat(p)
                rel = os.path.relpath(p, root)
                if stat.S_ISLNK(st.st_mode):
                    out[rel] = ("link", None, os.readlink(p))
                elif stat.S_ISDIR(st.st_mode):
                    out[rel] = ("dir", stat.S_IMODE(st.st_mode), None)
                else:
                    with open(p, "rb") as f:
                        out[rel] = ("file", stat.S_IMODE(st.st_mode), f.read())
    return out


def diff(before, after):
    keys = sorted(set(before) | set(after))
    return [(k, before.get(k, ("absent",))[:2], after.get(k, ("absent",))[:2])
            for k in keys if before.get(k) != after.get(k)]


def chroot(root, *argv):
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
           "DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C"}
    return subprocess.run(["chroot", root] + list(argv), capture_output=True, text=True,
                          timeout=600, env=env)


def test_install_and_purge_leave_etc_and_boot_as_they_were():
    spare_tests_only()
    if os.geteuid() != 0:
        raise unittest.SkipTest("needs root (chroot)")
    with tempfile.TemporaryDirectory(prefix="memboot-pkgroot-") as tmp:
        deb = rehearse.build_deb(tmp)
        root = os.path.join(tmp, "root")
        debian_root(root)
        # What grub-install and a first update-grub leave on a server: a Linux
        # kernel and its initrd too, so that 10_linux writes the entries a
        # server has (memboot install refuses to become grub.cfg's default:
        # with memboot's entry the only one, every boot would be memboot's).
        os.makedirs(os.path.join(root, "boot", "grub"), exist_ok=True)
        for name in ("vmlinuz-6.1.0-28-amd64", "initrd.img-6.1.0-28-amd64"):
            with open(os.path.join(root, "boot", name), "wb") as f:
                f.write(b"\0" * 4096)
        proc = chroot(root, "dpkg-divert", "--local", "--rename", "--add", "/usr/sbin/grub-probe")
        assert proc.returncode == 0, proc.stderr
        probe = os.path.join(root, "usr", "sbin", "grub-probe")
        with open(probe, "w") as f:
            f.write(FAKE_GRUB_PROBE)
        os.chmod(probe, 0o755)
        for argv in (["grub-editenv", "/boot/grub/grubenv", "create"], ["update-grub"]):
            proc = chroot(root, *argv)
            assert proc.returncode == 0, (argv, proc.stderr)
        shutil.copyfile(deb, os.path.join(root, "tmp", os.path.basename(deb)))
        in_root = "/tmp/" + os.path.basename(deb)
        before = snapshot(root)
        assert "boot/grub/grub.cfg" in before and "etc/grub.d/10_linux" in before
        assert b"vmlinuz-6.1.0-28-amd64" in before["boot/grub/grub.cfg"][2]

        # 1. Installed and purged.
        proc = chroot(root, "apt-get", "install", "-y", "--no-install-recommends", in_root)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert chroot(root, "memboot", "--help").returncode == 0
        assert diff(before, snapshot(root)) == []      # installing touched nothing
        proc = chroot(root, "apt-get", "purge", "-y", "memboot")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert diff(before, snapshot(root)) == []

        # 2. Installed, memboot installed for one boot, the package purged.
        proc = chroot(root, "apt-get", "install", "-y", "--no-install-recommends", in_root)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        proc = chroot(root, "memboot", "install", "--once", "--append", "console=ttyS0,115200")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        during = snapshot(root)
        assert "boot/memboot/memboot.elf" in during and "etc/grub.d/42_memboot" in during
        assert b"--id memboot" in during["boot/grub/grub.cfg"][2]
        assert b"next_entry=memboot" in during["boot/grub/grubenv"][2]
        proc = chroot(root, "apt-get", "purge", "-y", "memboot")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "undoing 'memboot install'" in proc.stdout, proc.stdout
        assert diff(before, snapshot(root)) == [], diff(before, snapshot(root))
