"""UEFI's own one-shot for memboot install: where GRUB is not what the
firmware boots (systemd-boot, rEFInd, Windows Boot Manager or a kernel's EFI
stub first in BootOrder), grubenv's next_entry is never read. The firmware
itself has a one-shot, BootNext (UEFI 2.10, 3.1.2): install --bootnext puts
memboot's loader on the EFI system partition

  ESP/EFI/memboot/memboot.efi    the loader (signed with --sign-key if given)
  ESP/EFI/memboot/memboot.elf    the kernel it reads from its own volume
  ESP/EFI/memboot/cmdline.txt    the words (with memboot.exit=reboot)

adds a Boot#### entry for it that is not in BootOrder (efibootmgr
--create-only) and sets BootNext to it. The firmware deletes BootNext before
it boots the entry, so the boot after memboot's is BootOrder's again.
uninstall deletes every Boot#### entry whose file is memboot's loader (as
`efibootmgr -v` lists them: nothing is kept on the machine's own disk, so
a machine whose root is gone or read-only is cleaned up the same), a
BootNext naming one, and the files.

  boot_current()   BootCurrent and its Boot#### load option (description and
                   file path, UEFI 2.10 3.1.3 EFI_LOAD_OPTION and 10.3.5.4
                   the media file path node)
  grub_boots()     whether that entry is GRUB (shim or GRUB's image, by path,
                   or, for the removable path \\EFI\\BOOT\\BOOTX64.EFI, by
                   the file on the ESP)

Standard library only; efibootmgr is run for every change of a variable.
"""

import os
import re
import struct

from mbtools import secureboot

ESP_DIR = "EFI/memboot"                      # relative to the ESP
LOADER_NAME = "memboot.efi"
LOADER_PATH = "\\EFI\\memboot\\memboot.efi"  # as the firmware names it
LABEL = "memboot"
DEFAULT_ESP = "boot/efi"                    # relative to the root
# The removable-media paths (UEFI 2.10, 3.5.1.1) of x86_64 and arm64.
REMOVABLE = ("\\EFI\\BOOT\\BOOTX64.EFI", "\\EFI\\BOOT\\BOOTAA64.EFI")
GRUB_NAMES = re.compile(r"(shim|grub)[a-z0-9]*\.efi$", re.I)


def parse_load_option(data):
    """(description, file path or None) of an EFI_LOAD_OPTION: UINT32
    attributes, UINT16 FilePathListLength, a NUL-terminated UCS-2
    description, then the device path; the file path is the text of its
    media file path nodes (type 4, subtype 4), joined."""
    if len(data) < 6:
        raise ValueError("%d bytes: shorter than a load option's header" % len(data))
    _, fpl = struct.unpack_from("<IH", data)
    i = 6
    chars = []
    while True:
        if i + 2 > len(data):
            raise ValueError("the description has no terminating NUL")
        c, = struct.unpack_from("<H", data, i)
        i += 2
        if c == 0:
            break
        chars.append(chr(c))
    end = i + fpl
    if end > len(data):
        raise ValueError("FilePathListLength %d runs past the option's %d bytes"
                         % (fpl, len(data)))
    parts = []
    while i + 4 <= end:
        typ, sub, length = struct.unpack_from("<BBH", data, i)
        if length < 4 or i + length > end:
            raise ValueError("a device path node of length %d at offset %d" % (length, i))
        if typ == 0x7F:
            break
        if typ == 4 and sub == 4:
            parts.append(data[i + 4:i + length].decode("utf-16-le", "replace").rstrip("\0"))
        i += length
    return "".join(chars), ("".join(parts) or None)


def boot_current(efivarfs):
    """(Boot#### number, description, file path) the firmware booted, or None
    when efivarfs has no BootCurrent (BIOS, efivarfs not mounted)."""
    cur = secureboot.read_var(efivarfs, "BootCurrent")
    if cur is None or len(cur) < 2:
        return None
    num, = struct.unpack_from("<H", cur)
    opt = secureboot.read_var(efivarfs, "Boot%04X" % num)
    if opt is None:
        return num, None, None
    try:
        desc, path = parse_load_option(opt)
    except ValueError:
        return num, None, None
    return num, desc, path


def grub_boots(current, esp):
    """True if the entry @current (boot_current()) starts GRUB, False if it
    starts something else, None when it cannot be told."""
    if current is None:
        return None
    _, desc, path = current
    if path is None:
        # A whole-disk entry (OVMF's "UEFI QEMU HARDDISK"): the firmware
        # boots the removable path, its architecture's (the one on the ESP).
        path = next((r for r in REMOVABLE if esp and _find_case(
            esp, ["EFI", "BOOT", r.split("\\")[-1]])), REMOVABLE[0])
    name = path.replace("/", "\\").split("\\")[-1]
    if GRUB_NAMES.search(name):
        return True
    if path.upper() in (r.upper() for r in REMOVABLE) and esp and os.path.isdir(esp):
        f = _find_case(esp, ["EFI", "BOOT", name])
        if f is None:
            return None
        with open(f, "rb") as fh:
            blob = fh.read()
        return b"GNU GRUB" in blob or b"shim_lock" in blob or b"UEFI SHIM" in blob
    return False


def _find_case(root, parts):
    """root/parts matched without regard to case (FAT), or None."""
    here = root
    for p in parts:
        try:
            names = os.listdir(here)
        except OSError:
            return None
        match = [n for n in names if n.upper() == p.upper()]
        if not match:
            return None
        here = os.path.join(here, match[0])
    return here


def describe(current):
    num, desc, path = current
    return "Boot%04X%s%s" % (num, " '%s'" % desc if desc else "",
                             " (%s)" % path if path else "")


def parse_entries(text):
    """{number: (label, device path text)} from `efibootmgr -v`'s listing
    ("Boot0003* memboot\\tHD(1,GPT,...)/File(\\EFI\\memboot\\memboot.efi)")."""
    out = {}
    for m in re.finditer(r"^Boot([0-9A-Fa-f]{4})\*?\s+([^\t\n]*)(?:\t(.*))?$", text, re.M):
        out[int(m.group(1), 16)] = (m.group(2).strip(), m.group(3) or "")
    return out


def memboot_entries(entries):
    """The numbers of the entries that boot memboot's loader."""
    return sorted(n for n, (_, path) in entries.items()
                  if LOADER_PATH.lower() in path.replace("/", "\\").lower())


def esp_device(base, esp):
    """(disk, partition number) of the filesystem mounted at @esp, from the
    mount table (@base/proc/self/mountinfo) and sysfs (@base/sys/class/block),
    @base being '/' or the tree that stands for the machine; None when the
    ESP is not a mounted partition."""
    try:
        with open(os.path.join(base, "proc", "self", "mountinfo")) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    where = os.path.realpath(esp)
    if os.path.realpath(base) != "/":
        where = "/" + os.path.relpath(where, os.path.realpath(base))
    source = None
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        if len(fields) >= 5 and fields[4] == where and len(rest) > 1:
            source = rest[1]
    if not source or not source.startswith("/dev/"):
        return None
    name = os.path.basename(source)
    node = os.path.realpath(os.path.join(base, "sys", "class", "block", name))
    try:
        with open(os.path.join(node, "partition")) as f:
            number = int(f.read().strip())
    except (OSError, ValueError):
        return None
    return "/dev/" + os.path.basename(os.path.dirname(node)), number


# ---------------------------------------------------------------------------
# install and uninstall (called from mbtools.install)
# ---------------------------------------------------------------------------

def _install():
    from mbtools import install
    return install


def add_options(p):
    p.add_argument("--bootnext", action="store_true",
                   help="UEFI's own one-shot instead of GRUB's: memboot's loader, kernel and "
                        "words on the EFI system partition (%s/), a Boot#### entry for it "
                        "outside BootOrder and BootNext set to it (efibootmgr); for machines "
                        "whose firmware does not boot GRUB; needs no GRUB" % ESP_DIR)
    p.add_argument("--esp", metavar="DIR",
                   help="the EFI system partition's mount point (default: /%s)" % DEFAULT_ESP)
    p.add_argument("--loader", metavar="PATH",
                   help="memboot's UEFI loader (default: the package's, or "
                        "build/debug/efi/BOOTX64.EFI of 'make esp')")
    p.add_argument("--sign-key", metavar="KEY",
                   help="Secure Boot: sign the loader with this PEM key (sbsign) and boot "
                        "memboot through it: GRUB chainloads it from the ESP (shim checks "
                        "it against the machine owner keys), or the firmware boots it with "
                        "--bootnext (its db must hold the key); with --sign-cert")
    p.add_argument("--sign-cert", metavar="CERT",
                   help="the PEM certificate of --sign-key")


def add_uninstall_options(u):
    u.add_argument("--esp", metavar="DIR",
                   help="the EFI system partition's mount point (default: /%s)" % DEFAULT_ESP)


def esp_dir(args, lay):
    return args.esp if getattr(args, "esp", None) else os.path.join(lay.base, DEFAULT_ESP)


def efivarfs_dir(lay):
    return os.path.join(lay.base, secureboot.EFIVARFS)


def _say(plan, line):
    print("memboot: %s" % line, file=plan.out)


def _signing(args, inst):
    """(key, cert) of --sign-key/--sign-cert, or None; both or neither."""
    key, cert = getattr(args, "sign_key", None), getattr(args, "sign_cert", None)
    if not key and not cert:
        return None
    if not key or not cert:
        raise inst.Refused("--sign-key and --sign-cert go together (the key and its certificate)")
    for what, path in (("--sign-key", key), ("--sign-cert", cert)):
        if not os.path.isfile(path):
            raise inst.Refused("%s %s: no such file" % (what, path))
    if inst.which("sbsign") is None:
        raise inst.Refused("--sign-key: sbsign not found (Debian package sbsigntool)")
    return key, cert


def _loader(args, inst):
    arch = getattr(args, "arch", None) or "x86_64"
    default = inst.default_loader(arch)
    loader = getattr(args, "loader", None) or default
    try:
        with open(loader, "rb") as f:
            head = f.read(2)
    except OSError as e:
        raise inst.Refused("memboot's UEFI loader %s: %s%s" % (
            loader, e.strerror, "; run 'make %s' first" % (
                "esp" if arch == "x86_64" else "ARCH=" + arch) if loader == default
            else "")) from None
    if head != b"MZ":
        raise inst.Refused("%s is not a UEFI application (no PE/COFF 'MZ' header)" % loader)
    return loader


def chain_entry(prologue, signed=True):
    """memboot's GRUB entry through its UEFI loader on the ESP (@signed)."""
    inst = _install()
    return ("menuentry '%s' --id %s {\n%s"
            "\techo 'Loading memboot through its %sUEFI loader ...'\n"
            "\tsearch --no-floppy --file --set=mb_esp /%s/%s\n"
            "\tchainloader ($mb_esp)/%s/%s\n"
            "\tboot\n"
            "}\n" % (inst.ENTRY_TITLE, inst.ENTRY_ID, prologue, "signed " if signed else "",
                     ESP_DIR, LOADER_NAME, ESP_DIR, LOADER_NAME))


def check_boot_manager(args, lay, plan):
    """install through GRUB on the running machine: Refused for --once where
    GRUB is not what the firmware boots (BootCurrent), a note without it.
    Before GRUB's layout is looked at: a machine without GRUB gets this."""
    inst = _install()
    if not lay.host or not os.path.isdir(os.path.join(lay.base, "sys", "firmware", "efi")):
        return
    cur = boot_current(efivarfs_dir(lay))
    if grub_boots(cur, esp_dir(args, lay)) is False:
        msg = ("the firmware booted %s, not GRUB: GRUB's menu and its next_entry are "
               "never read on this machine; install --bootnext makes the next boot "
               "memboot's through UEFI's own BootNext instead" % describe(cur))
        if args.once:
            raise inst.Refused("--once: " + msg)
        _say(plan, "note: " + msg)


def firmware_checks(args, lay, plan, elf, words, default, chain=False):
    """install through GRUB: the Secure Boot notice, and memboot's entry
    (chainloading the loader: signed with --sign-key, and always where
    GRUB has no multiboot2, @chain)."""
    inst = _install()
    signed = _signing(args, inst)
    if signed or chain:
        _loader(args, inst)
    if lay.host:
        st = secureboot.state(lay.base, inst.which)
        for line in secureboot.notice(st, bool(signed), False):
            _say(plan, line)
    prologue = secureboot.fallback_lines(default)
    if signed or chain:
        return chain_entry(prologue, bool(signed))
    return inst.menu_entry(words, prologue=prologue)


def _esp_write(plan, path, data):
    """@data to @path on the ESP: a temporary name and a rename, no chmod
    (FAT has no modes; a vfat mount refuses most chmods)."""
    inst = _install()
    if plan.dry_run:
        plan.say("write %s (%d bytes)" % (path, len(data)))
        return
    old = None
    if os.path.exists(path):
        with open(path, "rb") as f:
            old = f.read()
    tmp = path + ".memboot-new"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise inst.Failed("cannot write %s: %s" % (path, e.strerror)) from None
    plan.say("wrote %s" % path)

    def undo():
        if old is None:
            if os.path.exists(path):
                os.unlink(path)
        else:
            with open(path, "wb") as f:
                f.write(old)
    plan.undo_steps.append(undo)


def _signed_copy(inst, loader, signed):
    """The loader's bytes, signed by sbsign when @signed is (key, cert)."""
    if not signed:
        with open(loader, "rb") as f:
            return f.read()
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory(prefix="memboot-sign-") as tmp:
        out = os.path.join(tmp, LOADER_NAME)
        argv = secureboot.sign_argv(inst.which, signed[0], signed[1], loader, out)
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if proc.returncode != 0 or not os.path.isfile(out):
            raise inst.Failed("sbsign failed (status %d): %s" % (
                proc.returncode, (proc.stderr or proc.stdout).strip().replace("\n", " / ")))
        with open(out, "rb") as f:
            return f.read()


def write_esp_files(args, lay, plan, elf, words, force=False):
    """The loader (signed with --sign-key), the kernel and the words in
    ESP/EFI/memboot/, for GRUB's chainloader or the firmware's BootNext."""
    inst = _install()
    signed = _signing(args, inst)
    if not signed and not force:
        return
    loader = _loader(args, inst)
    esp = esp_dir(args, lay)
    efi = _find_case(esp, ["EFI"])
    if efi is None:
        raise inst.Refused("%s is not an EFI system partition (no EFI directory); give its "
                           "mount point with --esp DIR" % esp)
    d = os.path.join(efi, "memboot")
    problem = inst.writable_problem(efi)
    if problem:
        raise inst.Refused(problem)
    if plan.dry_run and signed:
        plan.say("run: %s" % " ".join(secureboot.sign_argv(
            inst.which, signed[0], signed[1], loader, os.path.join(d, LOADER_NAME))))
    plan.mkdir(d)
    _esp_write(plan, os.path.join(d, LOADER_NAME),
               b"" if plan.dry_run else _signed_copy(inst, loader, signed))
    with open(elf, "rb") as f:
        _esp_write(plan, os.path.join(d, "memboot.elf"), f.read())
    _esp_write(plan, os.path.join(d, "cmdline.txt"), (" ".join(words) + "\n").encode())


def install_steps(args, lay, plan, elf, words):
    """install --bootnext: the ESP files, a Boot#### entry and BootNext."""
    inst = _install()
    if lay.root:
        raise inst.Refused("--bootnext sets this machine's UEFI variables (a Boot#### entry "
                           "and BootNext); a tree under --root has none: run it on the machine")
    if not os.path.isdir(os.path.join(lay.base, "sys", "firmware", "efi")):
        raise inst.Refused("--bootnext: this machine booted through BIOS (no "
                           "/sys/firmware/efi); BootNext is UEFI's")
    tool = inst.which("efibootmgr")
    if tool is None:
        raise inst.Refused("--bootnext: efibootmgr not found (Debian package efibootmgr)")
    signed = _signing(args, inst)
    _loader(args, inst)
    esp = esp_dir(args, lay)
    dev = esp_device(lay.base, esp)
    if dev is None:
        raise inst.Refused("--bootnext: cannot tell which disk partition is mounted at %s "
                           "(give the ESP's mount point with --esp DIR)" % esp)
    st = secureboot.state(lay.base, inst.which)
    for line in secureboot.notice(st, bool(signed), True):
        _say(plan, line)
    before = _listing(plan, inst, [tool, "-v"])
    if memboot_entries(before):
        raise inst.Refused("memboot's Boot####: Boot%s is already there; run 'memboot "
                           "uninstall' first" % "%04X" % memboot_entries(before)[0])
    write_esp_files(args, lay, plan, elf, words, force=True)
    disk, part = dev
    create = [tool, "--create-only", "--disk", disk, "--part", str(part),
              "--loader", LOADER_PATH, "--label", LABEL]
    if plan.dry_run:
        plan.say("run: %s" % " ".join(create))
        plan.say("run: %s --bootnext XXXX (the new entry's number)" % tool)
        return 0
    plan.command(create, what="efibootmgr --create-only")
    new = [n for n in memboot_entries(_listing(plan, inst, [tool, "-v"])) if n not in before]
    if len(new) != 1:
        raise inst.Failed("efibootmgr made no Boot#### entry labelled %s" % LABEL)
    num = "%04X" % new[0]
    plan.undo_steps.append(lambda: _run_quiet([tool, "--bootnum", num, "--delete-bootnum"]))
    plan.command([tool, "--bootnext", num], undo_argv=[tool, "--delete-bootnext"])
    print("memboot: installed: Boot%s '%s' (%s on %s partition %d), BootNext=%s: the next "
          "boot is memboot's, then BootOrder's again" % (num, LABEL, LOADER_PATH, disk, part,
                                                        num), file=plan.out)
    return 0


def _run_quiet(argv):
    import subprocess
    subprocess.run(argv, capture_output=True)


def _listing(plan, inst, argv):
    import subprocess
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise inst.Failed("%s could not run: %s" % (argv[0], e)) from None
    if proc.returncode != 0:
        raise inst.Failed("%s failed (status %d): %s" % (argv[0], proc.returncode,
                                                        proc.stderr.strip()))
    return parse_entries(proc.stdout)


def uninstall_steps(args, lay, plan):
    """What install --bootnext or --sign-key put in place: BootNext (when
    it names memboot's entry), the entries that boot memboot's loader, the
    ESP files. True if anything was there."""
    inst = _install()
    found = False
    tool = inst.which("efibootmgr")
    if lay.host and tool and os.path.isdir(efivarfs_dir(lay)):
        ours = memboot_entries(_listing(plan, inst, [tool, "-v"]))
        nxt = secureboot.read_var(efivarfs_dir(lay), "BootNext")
        if nxt is not None and len(nxt) >= 2 and struct.unpack_from("<H", nxt)[0] in ours:
            plan.command([tool, "--delete-bootnext"])
        for n in ours:
            found = True
            plan.command([tool, "--bootnum", "%04X" % n, "--delete-bootnum"])
    esp = esp_dir(args, lay)
    efi = _find_case(esp, ["EFI", "memboot"]) if os.path.isdir(esp) else None
    if efi:
        found = True
        for name in (LOADER_NAME, "memboot.elf", "cmdline.txt"):
            plan.remove(os.path.join(efi, name))
        if not plan.dry_run and os.path.isdir(efi) and not os.listdir(efi):
            os.rmdir(efi)
    return found
