"""memboot netboot DIR: a TFTP tree from which a lab's machines boot memboot
over the network, through GRUB (iPXE boots only Multiboot 1; memboot is a
Multiboot2 kernel, so GRUB's own network images load it).

  DIR/boot/grub/i386-pc/core.0       BIOS PXE clients  (grub-mknetdir, grub-pc-bin)
  DIR/boot/grub/x86_64-efi/core.efi  UEFI x86-64 clients (grub-efi-amd64-bin)
  DIR/boot/grub/grub.cfg             memboot's entry, the default, no menu
                                     wait; a machine's own words (--mac) where
                                     $net_default_mac matches
  DIR/boot/memboot/memboot.elf       the kernel
  DIR/boot/grub/memboot-netboot      says the tree is this command's, so a
                                     second run may replace it

--arch arm64 writes the arm64 tree instead: GRUB for arm64-efi has no
multiboot2, so its entry chainloads memboot's network loader, the UEFI
loader with the kernel inside (make ARCH=arm64: efi/memboot-net.efi), and
passes the words as the loader's load options.

  DIR/boot/grub/arm64-efi/core.efi   UEFI arm64 clients (GRUB's modules from
                                     Debian's grub-efi-arm64-bin:arm64, which
                                     make ARCH=arm64 unpacks into the build)
  DIR/boot/memboot/memboot-net.efi   the loader with the kernel inside

GRUB's netboot $prefix is (tftp,SERVER)/boot/grub, so the entry is the one
`memboot install` writes (tools/mbtools/install.py: the kernel beside
$prefix), with the words in $memboot_args. The tree is built in a staging
directory inside DIR and moved into place with renames: a failure, or a
SIGTERM, SIGINT or SIGHUP, leaves DIR as it was (a staging directory a
SIGKILL left behind is removed by the next run). Standard library only.
"""

import argparse
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile

from mbtools import facts, inputs, install

# platform: (the image grub-mknetdir makes, the Debian package of its
# modules, what boots it)
PLATFORMS = {
    "i386-pc": ("core.0", "grub-pc-bin", "BIOS PXE"),
    "x86_64-efi": ("core.efi", "grub-efi-amd64-bin", "UEFI x86-64 PXE"),
    "arm64-efi": ("core.efi", "grub-efi-arm64-bin:arm64, which make ARCH=arm64 unpacks "
                  "there", "UEFI arm64 PXE"),
}
# --arch: the platforms of an architecture's clients.
ARCH_PLATFORMS = {"x86_64": ("i386-pc", "x86_64-efi"), "arm64": ("arm64-efi",)}
# GRUB's modules for a platform the host's packages do not have (Debian
# builds grub-efi-arm64-bin only for arm64): the copy make unpacks into the
# build (arch/arm64/arch.mk NETBOOT_GRUB, boot/efi/efi.mk).
BUILD_GRUB_LIB = {"arm64-efi": os.path.join(install.REPO_ROOT, "build", "arm64", "debug",
                                            "efi", "grub", "usr", "lib", "grub")}
# The arm64 tree's payload: the UEFI loader with the kernel inside
# (boot/efi/embed.S), GRUB's chainloader gives it its words.
NET_LOADER_NAME = "memboot-net.efi"
DEFAULT_NET_LOADER = os.path.join(install.REPO_ROOT, "build", "arm64", "debug", "efi",
                                  NET_LOADER_NAME)
EMBED_MAGIC = b"memboot-kernel-1"   # boot/efi/embed.h: before the size and after the kernel
MAX_NET_LOADER_BYTES = 64 << 20
SUBDIR = "boot/grub"
KERNEL_DIR = "boot/memboot"
MARKER = "memboot-netboot"           # under SUBDIR
STAGE_PREFIX = ".memboot-netboot-"
STAGE_RE = re.compile(re.escape(STAGE_PREFIX) + r"[a-z0-9_]{8}")
MAC_RE = re.compile(r"([0-9a-fA-F]{2})(?:[:-]([0-9a-fA-F]{2})){5}")

EXIT_USAGE = facts.EXIT_USAGE
EXIT_GRUB_FAILED = facts.EXIT_GRUB_FAILED


def grub_lib(platform="i386-pc"):
    """The directory holding GRUB's @platform modules: $MEMBOOT_GRUB_LIB,
    else the host's, else the build's copy (BUILD_GRUB_LIB)."""
    if os.environ.get("MEMBOOT_GRUB_LIB"):
        return os.environ["MEMBOOT_GRUB_LIB"]
    if platform in BUILD_GRUB_LIB and not os.path.isdir(os.path.join("/usr/lib/grub",
                                                                     platform)):
        return BUILD_GRUB_LIB[platform]
    return "/usr/lib/grub"


def arch_of(platform):
    return next(a for a, ps in ARCH_PLATFORMS.items() if platform in ps)


def run_platform(arch, firmware):
    """The platform `run --netboot` boots on @arch under @firmware."""
    if arch == "x86_64":
        return "x86_64-efi" if firmware == "uefi" else "i386-pc"
    return ARCH_PLATFORMS[arch][0]


def qemu_args(arch, firmware, tftp):
    """QEMU's user network serving the tree @tftp and the NIC the firmware
    boots from. x86_64: an e1000 (QEMU's iPXE ROM) and -boot n. arm64: a
    virtio-net-pci NIC through AAVMF's own driver (romfile= empty: QEMU's ROM
    for it is x86 code), first in the boot order (bootindex=0; AAVMF takes
    QEMU's boot order, not -boot)."""
    netdev = ["-netdev", "user,id=n0,tftp=%s,bootfile=%s"
              % (tftp.replace(",", ",,"), bootfile(run_platform(arch, firmware)))]
    if arch == "x86_64":
        return netdev + ["-device", "e1000,netdev=n0", "-boot", "n"]
    return netdev + ["-device", "virtio-net-pci,netdev=n0,romfile=,bootindex=0"]


def tree_problem(tftp, arch, firmware):
    """Why `run --netboot @tftp` cannot boot @arch from it, or None."""
    platform = run_platform(arch, firmware)
    need = [(bootfile(platform), "the %s image" % platform)]
    if arch != "x86_64":
        need.append(("%s/%s" % (KERNEL_DIR, NET_LOADER_NAME),
                     "the network loader with the kernel inside"))
    for rel, what in need:
        path = os.path.join(tftp, rel)
        if not os.path.isfile(path):
            return ("--netboot %s: no %s (%s); run 'tools/memboot netboot %s%s' first"
                    % (tftp, path, what, tftp, "" if arch == "x86_64" else " --arch " + arch))
    return None


def embedded_kernel(data):
    """(offset, size) of the kernel ELF inside a network loader's bytes, or
    None: a head (EMBED_MAGIC, a nonzero little-endian size, 8 bytes) whose
    size ends at the tail's EMBED_MAGIC, with an ELF between them."""
    at = data.find(EMBED_MAGIC)
    while at >= 0:
        start = at + len(EMBED_MAGIC) + 16
        if start <= len(data):
            (size,) = struct.unpack_from("<Q", data, at + len(EMBED_MAGIC))
            end = start + size
            if size and data[end:end + len(EMBED_MAGIC)] == EMBED_MAGIC and \
                    data[start:start + 4] == b"\x7fELF":
                return start, size
        at = data.find(EMBED_MAGIC, at + 1)
    return None


def net_loader_problem(path, arch):
    """Why @path is not memboot's network loader for @arch, or None."""
    try:
        data = inputs.read_input(path, "--loader", MAX_NET_LOADER_BYTES)
    except inputs.InputError as e:
        return str(e)
    if data[:2] != b"MZ":
        return "--loader %s is not a UEFI application (no MZ header)" % path
    found = embedded_kernel(data)
    if found is None:
        return ("--loader %s has no kernel inside: it is not memboot's network loader "
                "(make ARCH=%s builds it: %s)" % (path, arch, DEFAULT_NET_LOADER))
    start, _ = found
    machine = struct.unpack_from("<H", data, start + 18)[0] if len(data) >= start + 20 else -1
    want = install.ARCHES[arch]["elf_machine"]
    if machine != want:
        return ("--loader %s carries a kernel for ELF machine %d, not %s's (%d)"
                % (path, machine, arch, want))
    return None


def bootfile(platform):
    """The image a DHCP server names for @platform's clients, relative to
    the TFTP root."""
    return "%s/%s/%s" % (SUBDIR, platform, PLATFORMS[platform][0])


def mac_name(mac):
    """'52:54:00:AB:cd:01' -> '52-54-00-ab-cd-01', or None if not a MAC
    (dashes: a word GRUB's lexer and a file name take as it is)."""
    if not MAC_RE.fullmatch(mac):
        return None
    return "-".join(re.split(r"[:-]", mac.lower()))


def grub_value(text):
    """@text as one single-quoted GRUB word."""
    return "'" + text.replace("'", "'\\''") + "'"


def grub_cfg(words, macs=(), arch="x86_64"):
    """boot/grub/grub.cfg: memboot at once, with @words, or a machine's own
    words from @macs [(mac name, words)]. The machines are told apart
    inside this file: GRUB's `test -f` cannot see files over TFTP (it has
    no directory listing), so a file per machine could not be looked for."""
    lines = [
        "# Written by memboot's tools/memboot netboot; a second run replaces it.",
        "set timeout=0",
        "set default=%s" % install.ENTRY_ID,
        "set memboot_args=%s" % grub_value(" ".join(words)),
    ]
    if macs:
        lines.append("# One machine's words (--mac): $net_default_mac is the MAC address of "
                     "the NIC\n# GRUB booted from, lower case with colons.")
    for name, mac_words in macs:
        lines.append("if [ \"$net_default_mac\" = %s ]; then set memboot_args=%s; fi"
                     % (name.replace("-", ":"), grub_value(" ".join(mac_words))))
    if arch == "x86_64":
        entry = install.menu_entry([], more="$memboot_args")
    else:
        # The words become the loader's load options (boot/efi/loader.c).
        entry = install.menu_entry([], more="$memboot_args", command="chainloader",
                                   name=NET_LOADER_NAME)
    return "\n".join(lines) + "\n" + entry


def mac_arg(text):
    """--mac MAC=WORDS."""
    mac, sep, words = text.partition("=")
    name = mac_name(mac)
    if not sep or name is None:
        raise argparse.ArgumentTypeError(
            "%r: expected MAC=WORDS with a MAC of six hex octets (52:54:00:12:34:56)" % text)
    problem = inputs.cmdline_problem(words)
    if problem:
        raise argparse.ArgumentTypeError("%s: %s" % (mac, problem))
    return name, words.split()


class Refused(Exception):
    pass


def check(args):
    """Everything that can be refused before anything is written; the
    payload: the kernel (x86_64) or the network loader (arm64)."""
    if args.arch == "x86_64":
        if args.loader:
            raise Refused("--loader: the x86_64 tree's GRUB loads the kernel itself (--elf)")
        elf = args.elf or install.DEFAULT_ELF
        problem = install.kernel_problem(elf)
    else:
        if args.elf:
            raise Refused("--elf: the %s tree's kernel is the one inside the network loader "
                          "(make ARCH=%s builds it into %s); give that file with --loader"
                          % (args.arch, args.arch, NET_LOADER_NAME))
        elf = args.loader or DEFAULT_NET_LOADER
        problem = net_loader_problem(elf, args.arch)
    if problem:
        raise Refused(problem)
    for what, words in [("--append", args.words)] + [
            ("--mac %s" % name.replace("-", ":"), w) for name, w in args.mac]:
        problem = install.words_problem(words, what)
        if problem:
            raise Refused(problem)
    if install.which("grub-mknetdir") is None:
        raise Refused("grub-mknetdir not found (Debian package grub-common)")
    if install.which("grub-script-check") is None:
        raise Refused("grub-script-check not found (Debian package grub-common)")
    for p in args.platform:
        if not os.path.isfile(os.path.join(grub_lib(p), p, "moddep.lst")):
            raise Refused("no GRUB modules for %s in %s (Debian package %s), or leave it "
                          "out: --platform %s" % (p, os.path.join(grub_lib(p), p),
                                                  PLATFORMS[p][1],
                                                  ",".join(q for q in args.platform if q != p)
                                                  or "..."))
    d = args.dir
    if os.path.lexists(d) and not os.path.isdir(d):
        raise Refused("%s exists and is not a directory" % d)
    parent = os.path.dirname(os.path.abspath(d))
    if not os.path.isdir(d):
        if not os.path.isdir(parent):
            raise Refused("cannot create %s: %s does not exist" % (d, parent))
        problem = install.writable_problem(parent)
    else:
        problem = install.writable_problem(d)
    if problem:
        raise Refused("the TFTP directory: " + problem)
    for sub in ("boot", SUBDIR, KERNEL_DIR, os.path.join(SUBDIR, MARKER)):
        try:
            inputs.inside_root(d, os.path.join(d, sub))
        except inputs.InputError as e:
            raise Refused(str(e).replace("--root ", "")) from None
    for sub in (SUBDIR, KERNEL_DIR):
        path = os.path.join(d, sub)
        if os.path.lexists(path) and not os.path.isfile(os.path.join(d, SUBDIR, MARKER)):
            raise Refused("%s exists and was not written by memboot netboot; remove it or "
                          "choose another directory" % path)
    if os.path.exists(os.path.join(d, "boot")):
        problem = install.writable_problem(os.path.join(d, "boot"))
        if problem:
            raise Refused("the TFTP directory: " + problem)
    return elf


def run_checked(argv):
    try:
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise install.Failed("%s could not run: %s" % (argv[0], e)) from None
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        raise install.Failed("%s failed (status %d): %s" % (shlex.join(argv), proc.returncode,
                                                           " / ".join(tail)))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def build(args, elf, stage):
    """The whole tree under @stage."""
    for p in args.platform:
        run_checked([install.which("grub-mknetdir"), "--net-directory=" + stage,
                     "--subdir=" + SUBDIR, "-d", os.path.join(grub_lib(p), p)])
    cfg = os.path.join(stage, SUBDIR, "grub.cfg")
    text = grub_cfg(args.words, args.mac, args.arch)
    write(cfg, text)
    install.check_cfg_text(text, cfg)
    write(os.path.join(stage, SUBDIR, MARKER),
          "Written by memboot's tools/memboot netboot; a second run replaces %s and %s.\n"
          % (SUBDIR, KERNEL_DIR))
    os.makedirs(os.path.join(stage, KERNEL_DIR))
    try:
        kernel = inputs.read_input(elf, "kernel", install.MAX_KERNEL_BYTES
                                   if args.arch == "x86_64" else MAX_NET_LOADER_BYTES)
    except inputs.InputError as e:
        raise install.Failed(str(e)) from None
    with open(os.path.join(stage, KERNEL_DIR, payload_name(args.arch)), "wb") as f:
        f.write(kernel)


def payload_name(arch):
    return install.KERNEL_NAME if arch == "x86_64" else NET_LOADER_NAME


def swap_in(d, stage):
    """Move @stage's boot/grub and boot/memboot into @d, replacing a
    previous run's; on a failure (or a signal) the old ones go back."""
    made_boot = not os.path.isdir(os.path.join(d, "boot"))
    os.makedirs(os.path.join(d, "boot"), exist_ok=True)
    done = []
    try:
        for sub in (SUBDIR, KERNEL_DIR):
            target = os.path.join(d, sub)
            old = os.path.join(stage, "old-" + os.path.basename(sub))
            had_old = os.path.lexists(target)
            if had_old:
                os.rename(target, old)
            done.append((target, old, had_old))
            os.rename(os.path.join(stage, sub), target)
    except BaseException as e:
        for target, old, had_old in reversed(done):
            # What is at @target now is the new tree, if its rename happened.
            if os.path.lexists(old) or not had_old:
                shutil.rmtree(target, ignore_errors=True)
            if had_old and os.path.lexists(old):
                os.rename(old, target)
        if made_boot:
            try:
                os.rmdir(os.path.join(d, "boot"))
            except OSError:
                pass
        if isinstance(e, OSError):
            raise install.Failed("cannot move the tree into %s: %s" % (d, e.strerror)) \
                from None
        raise


def remove_stale_stages(d):
    """Staging directories of a netboot that was killed (SIGKILL), which
    would otherwise be served over TFTP for ever."""
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        if STAGE_RE.fullmatch(name) and os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
            print("memboot: removed %s (left by a netboot that was killed)" % path)


def cmd_netboot(args):
    args.words = args.append.split() if args.append else []
    args.arch = args.arch or "x86_64"
    wanted = ARCH_PLATFORMS[args.arch]
    if args.platform is None:
        args.platform = list(wanted)
    elif not set(args.platform) <= set(wanted):
        print("memboot netboot: --platform %s is not %s's; nothing changed"
              % (",".join(args.platform), args.arch), file=sys.stderr)
        return EXIT_USAGE
    try:
        elf = check(args)
    except Refused as e:
        print("memboot netboot: %s; nothing changed" % e, file=sys.stderr)
        return EXIT_USAGE
    d = os.path.abspath(args.dir)
    if args.dry_run:
        say = lambda t: print("memboot: would " + t)  # noqa: E731
        for p in args.platform:
            say("run: %s" % shlex.join(["grub-mknetdir", "--net-directory=" + d,
                                        "--subdir=" + SUBDIR, "-d",
                                        os.path.join(grub_lib(p), p)]))
        say("write %s:" % os.path.join(d, SUBDIR, "grub.cfg"))
        for line in grub_cfg(args.words, args.mac, args.arch).splitlines():
            print("    " + line)
        say("copy %s to %s" % (elf, os.path.join(d, KERNEL_DIR, payload_name(args.arch))))
        say("write %s" % os.path.join(d, SUBDIR, MARKER))
        print("memboot: (all of it built in a staging directory inside %s, then renamed "
              "into place)" % d)
        return 0
    created = not os.path.isdir(d)
    stage = None
    with install.signals_raise():
        try:
            try:
                if created:
                    os.mkdir(d)
                else:
                    remove_stale_stages(d)
                stage = tempfile.mkdtemp(prefix=STAGE_PREFIX, dir=d)
            except OSError as e:
                print("memboot netboot: cannot write in %s: %s; nothing changed"
                      % (d, e.strerror), file=sys.stderr)
                return EXIT_USAGE
            build(args, elf, stage)
            swap_in(d, stage)
        except (install.Failed, OSError) as e:
            print("memboot netboot: %s; %s left as it was" % (
                e if isinstance(e, install.Failed) else "cannot write the tree: %s"
                % e.strerror, d), file=sys.stderr)
            return EXIT_GRUB_FAILED
        except install.Interrupted as e:
            text, status = install.interrupted_text(e, "netboot", "%s left as it was" % d)
            print(text, file=sys.stderr)
            return status
        finally:
            if stage:
                shutil.rmtree(stage, ignore_errors=True)
            if created and os.path.isdir(d) and not os.listdir(d):
                os.rmdir(d)
    print("memboot: TFTP tree in %s" % d)
    for p in args.platform:
        print("memboot: %s clients: DHCP boot file %s" % (PLATFORMS[p][2], bootfile(p)))
    for name, words in args.mac:
        print("memboot: machine %s: %s" % (name.replace("-", ":"), " ".join(words)))
    return 0


def platforms_arg(text):
    names = [p for p in text.split(",") if p]
    bad = [p for p in names if p not in PLATFORMS]
    if bad or not names:
        raise argparse.ArgumentTypeError("%r: platforms are %s, comma-separated"
                                         % (text, ", ".join(PLATFORMS)))
    return list(dict.fromkeys(names))


def add_parser(sub):
    p = sub.add_parser(
        "netboot", allow_abbrev=False,
        help="write a TFTP tree from which machines boot memboot over the network "
             "(GRUB's PXE images, BIOS and UEFI; --arch arm64: UEFI arm64)",
        description="Write a TFTP tree in DIR: GRUB's network images (grub-mknetdir) for "
                    "BIOS PXE (boot/grub/i386-pc/core.0) and UEFI (boot/grub/x86_64-efi/"
                    "core.efi), a grub.cfg that boots memboot at once, per-machine words "
                    "(--mac) and the kernel. --arch arm64: GRUB's arm64-efi image "
                    "(boot/grub/arm64-efi/core.efi) chainloading memboot's network loader, "
                    "the UEFI loader with the kernel inside (boot/memboot/memboot-net.efi). "
                    "A previous run's tree is replaced; anything else in DIR is left alone. "
                    "Refusals exit 64, a failed step 69, and DIR is left as it was.")
    p.add_argument("dir", metavar="DIR", help="the TFTP server's root (created if missing)")
    p.add_argument("--elf", metavar="PATH",
                   help="kernel (default: build/debug/memboot.elf); x86_64 only")
    p.add_argument("--loader", metavar="PATH",
                   help="arm64: the network loader, the UEFI loader with the kernel inside "
                        "(default: build/arm64/debug/efi/%s, made by make ARCH=arm64)"
                        % NET_LOADER_NAME)
    p.add_argument("--append", action="append", default=[], metavar="ARGS",
                   help="kernel command-line words of every machine; may be given more "
                        "than once")
    p.add_argument("--mac", action="append", default=[], type=mac_arg, metavar="MAC=WORDS",
                   help="the words of one machine instead (its MAC address, e.g. "
                        "52:54:00:12:34:56=memboot.init=serial); may be given more than once")
    p.add_argument("--platform", type=platforms_arg, default=None, metavar="LIST",
                   help="GRUB platforms, comma-separated (default: --arch's, x86_64: %s)"
                        % ",".join(ARCH_PLATFORMS["x86_64"]))
    p.add_argument("--arch", choices=sorted(ARCH_PLATFORMS),
                   help="the clients' architecture: x86_64 (the default: BIOS and UEFI) or "
                        "arm64 (UEFI: GRUB chainloads memboot's network loader)")
    p.add_argument("--dry-run", action="store_true",
                   help="print every file and command, change nothing")
    p.set_defaults(func=cmd_netboot, subparser=p)
