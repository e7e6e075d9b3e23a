"""make deb: memboot as a Debian package for a server, built with dpkg-deb.

The anchor is Debian's memtest86+ package: the binaries under /usr/lib, a
GRUB entry from a script in /etc/grub.d, update-grub run only when the user
asks. What the package holds (LAYOUT):

  /usr/lib/memboot/memboot.elf     the kernel (Multiboot2, BIOS and UEFI x86_64)
  /usr/lib/memboot/memboot.efi     memboot's own UEFI loader (BOOTX64.EFI of
                                   `make esp`), for `install --bootnext` and
                                   the Secure Boot way (docs/spare-metal.md)
  /usr/lib/memboot/arm64/          arm64's kernel, where one is built (none
                                   yet: the package for arm64 is refused)
  /usr/lib/memboot/tools/mbtools/  the modules of install, uninstall and
                                   efivars, and built_facts.json: what
                                   tools/mbtools/facts.py reads from the kernel
                                   tree, generated from the tree at build time
  /usr/bin/memboot                 install, uninstall, efivars (servercmd.py)

The package itself writes nothing in /etc or /boot: `memboot install` does
(the script /etc/grub.d/42_memboot with the user's words, the kernel in
/boot/memboot, update-grub), so no conffile is ever edited by a command. Its
prerm runs `memboot uninstall` when an install is in place, so removing or
purging the package puts /etc and /boot back as they were
(tests/guest/test_package_root.py checks bytes and modes in a debootstrapped
Debian 12).

  python3 tools/mbtools/package.py --elf ELF --loader EFI --out DIR [--version V]

Standard library and dpkg-deb only.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)

from mbtools import facts  # noqa: E402

PACKAGE = "memboot"
LIB = "/usr/lib/memboot"
# The modules /usr/bin/memboot needs (install, uninstall, efivars and what
# they import); tests/tools/test_package.py imports them with nothing else.
MODULES = ("__init__", "facts", "inputs", "records", "install", "efivars",
           "secureboot", "bootnext", "servercmd")
# The kernels by Debian architecture: (file in the package, what `make deb`
# gives for it). arm64 has its place and no kernel yet.
KERNELS = {
    "amd64": (("memboot.elf", "--elf"), ("memboot.efi", "--loader")),
    "arm64": (("arm64/memboot.elf", "--elf"),),
}
BUILT_ARCH = ("amd64",)
DEPENDS = "python3 (>= 3.9), grub-common"
RECOMMENDS = "efibootmgr, mokutil"
SUGGESTS = "sbsigntool"

FRONT_END = """#!/usr/bin/python3
# memboot's command on a server: install, uninstall, efivars (docs/spare-metal.md).
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))),
                                "lib", "memboot", "tools"))
from mbtools import servercmd
sys.exit(servercmd.main())
"""

# prerm: a `memboot install` in place is undone before the package goes, so
# that the GRUB entry never names a command or kernel that is gone. A failed
# uninstall stops the removal (dpkg keeps the package; nothing half-done).
PRERM = """#!/bin/sh
set -e
case "$1" in
remove|deconfigure)
	if [ -e /etc/grub.d/42_memboot ] || [ -e /boot/memboot ] || [ -e /boot/efi/EFI/memboot ]; then
		echo "memboot: undoing 'memboot install' before the package is removed"
		/usr/bin/memboot uninstall
	fi
	;;
esac
exit 0
"""

COPYRIGHT = """memboot: a freestanding x86_64 kernel that brings up a machine's memory
per NUMA node and reports how long each part took.

This package holds memboot's kernel, its UEFI loader and the tools'
install, uninstall and efivars commands, built from the project's tree.
"""


class PackageError(Exception):
    """The package cannot be built; the message says why."""


def built_facts(version):
    """What facts.py (and efivars.py through facts.kernel_define) read from
    the kernel tree, as the package carries it."""
    from mbtools import efivars
    defines = {}
    for path, name in ((efivars.RESULTS_H, "RESULTS_MAX_CHUNKS"),
                       (efivars.RESULTS_C, "EFI_VARIABLE_NV_BS_RT")):
        key = "define %s %s" % (os.path.relpath(path, facts.REPO_ROOT), name)
        defines[key] = facts.kernel_define(path, name)
    rows = [[v, facts.EXIT_SYMBOLS[v], name] for v, name in sorted(facts.EXIT_STATUS.items())]
    out = {
        "exit_rows": rows,
        "QEMU_EXIT_BASE": facts.QEMU_EXIT_BASE,
        "EVENTS": list(facts.EVENTS),
        "LIMITS": facts.LIMITS,
        "ALLOCATORS": list(facts.ALLOCATORS),
        "PHASE_TABLE": [list(r) for r in facts.PHASE_TABLE],
        "SELFTESTS": list(facts.SELFTESTS),
        "DESC_BYTES": [facts.DESC_BYTES, list(facts.DESC_BYTES_CHOICES)],
    }
    out.update(defines)
    return {"from": "memboot %s, generated from the kernel tree by tools/mbtools/package.py"
                    % version, "facts": out}


def deb_version(text):
    """A Debian version from `git describe` text (fc446e3-dirty -> 0~git.fc446e3.dirty,
    v1.2 -> 1.2): digits first, only the characters Debian allows, no revision."""
    clean = re.sub(r"[^A-Za-z0-9.+~]+", ".", text.strip()).strip(".")
    if not clean:
        raise PackageError("empty version")
    # A release tag (1.2, v1.2) is the version; anything else (a commit)
    # sorts below every release.
    tag = re.fullmatch(r"v?(\d+(?:\.\d+)+)", clean)
    return tag.group(1) if tag else "0~git." + clean


def _copy(src, dst, mode):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)
    os.chmod(dst, mode)


def _write(dst, text, mode=0o644):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(dst, mode)


def stage(root, files, version, arch):
    """The package's tree under @root; @files {"--elf": path, ...}."""
    lib = root + LIB
    for name, option in KERNELS[arch]:
        _copy(files[option], os.path.join(lib, name), 0o644)
    mb = os.path.join(lib, "tools", "mbtools")
    for m in MODULES:
        _copy(os.path.join(TOOLS, "mbtools", m + ".py"), os.path.join(mb, m + ".py"), 0o644)
    _write(os.path.join(mb, "built_facts.json"),
           json.dumps(built_facts(version), indent=1, sort_keys=True) + "\n")
    _write(root + "/usr/bin/memboot", FRONT_END, 0o755)
    _write(root + "/usr/share/doc/memboot/copyright", COPYRIGHT)
    debian = os.path.join(root, "DEBIAN")
    size_kib = 0
    sums = []
    for d, _, names in sorted(os.walk(root)):
        if d.startswith(debian):
            continue
        for n in sorted(names):
            p = os.path.join(d, n)
            size_kib += (os.path.getsize(p) + 1023) // 1024
            with open(p, "rb") as f:
                sums.append("%s  %s\n" % (hashlib.md5(f.read()).hexdigest(),
                                          os.path.relpath(p, root)))
    _write(os.path.join(debian, "control"), (
        "Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: memboot <memboot@localhost>\n"
        "Installed-Size: %d\nDepends: %s\nRecommends: %s\nSuggests: %s\nSection: admin\n"
        "Priority: optional\n"
        "Description: memory bring-up test kernel for a spare server, booted once\n"
        " memboot brings up a machine's memory per NUMA node and reports how long\n"
        " each part took. 'memboot install --once' makes the next boot memboot's\n"
        " (GRUB's next_entry, or UEFI's BootNext with --bootnext); the boot after\n"
        " it is the machine's own, where 'memboot efivars' prints the results kept\n"
        " in UEFI variables.\n") % (PACKAGE, version, arch, size_kib, DEPENDS, RECOMMENDS,
                                    SUGGESTS))
    _write(os.path.join(debian, "md5sums"), "".join(sums))
    _write(os.path.join(debian, "prerm"), PRERM, 0o755)


def build(files, out_dir, version, arch="amd64"):
    """Build the .deb into @out_dir; returns its path."""
    if arch not in KERNELS:
        raise PackageError("no package layout for architecture %s (known: %s)"
                           % (arch, ", ".join(sorted(KERNELS))))
    if arch not in BUILT_ARCH:
        raise PackageError("no %s kernel is built yet; its place in the package is %s/%s"
                           % (arch, LIB, KERNELS[arch][0][0]))
    for _, option in KERNELS[arch]:
        path = files.get(option)
        if not path or not os.path.isfile(path):
            raise PackageError("%s %s: no such file (run 'make' first)" % (option, path))
    if shutil.which("dpkg-deb") is None:
        raise PackageError("dpkg-deb not found (Debian package dpkg)")
    version = deb_version(version)
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, "%s_%s_%s.deb" % (PACKAGE, version, arch))
    with tempfile.TemporaryDirectory(prefix="memboot-deb-") as tmp:
        root = os.path.join(tmp, "root")
        os.umask(0o022)
        stage(root, files, version, arch)
        proc = subprocess.run(["dpkg-deb", "--root-owner-group", "-Zxz", "--build", root,
                               out + ".tmp"], capture_output=True, text=True)
        if proc.returncode != 0:
            raise PackageError("dpkg-deb failed: %s" % (proc.stderr or proc.stdout).strip())
    os.replace(out + ".tmp", out)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="package.py", description="Build memboot's .deb.")
    p.add_argument("--elf", required=True, help="the kernel ELF")
    p.add_argument("--loader", help="memboot's UEFI loader (BOOTX64.EFI of make esp)")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--version", default="0", help="the version (git describe text)")
    p.add_argument("--arch", default="amd64", choices=sorted(KERNELS))
    args = p.parse_args(argv)
    try:
        path = build({"--elf": args.elf, "--loader": args.loader}, args.out, args.version,
                     args.arch)
    except PackageError as e:
        print("memboot deb: %s" % e, file=sys.stderr)
        return 1
    print("memboot deb: %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
