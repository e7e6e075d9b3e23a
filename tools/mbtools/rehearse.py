"""tools/memboot rehearse: the unattended loop of docs/spare-metal.md on a
simulated server, before anyone touches a real machine.

The server is a GPT disk image (built without root: sfdisk on the file, the
EFI system partition written with mtools) booted under OVMF:

  EFI/BOOT/BOOTX64.EFI     GRUB (grub-mkimage, prefix /boot/grub); with
                           --secure-boot Debian's signed shim, with Debian's
                           signed GRUB beside it (EFI/BOOT/grubx64.efi,
                           EFI/debian/grub.cfg pointing at /boot/grub)
  boot/grub/grub.cfg       grub-mkconfig's header (it boots grubenv's
                           next_entry once and clears it), then the OS
  boot/grub/grubenv        GRUB's environment block
  boot/vmlinuz             Debian's Linux cloud kernel (the package
                           compare-linux fetches; signed by Debian)
  boot/initrd.img          busybox and efivarfs.ko of the same kernel: the
                           machine's own OS, which prints every
                           MembootResults variable efivarfs shows, as hex

memboot goes on it with the package's own command (`make deb`, unpacked):
`memboot install --root ESP --once`. Then each boot is a new QEMU on the
same disk and variable store (QEMU's -no-reboot: a reboot ends it):

  boot 1  GRUB boots next_entry, memboot's entry (and clears next_entry);
          memboot keeps its results in UEFI variables and reboots;
  boot 2  GRUB's default, Linux, prints the variables; the package's
          `memboot efivars` reads them;
  boot 3  Linux again: the one-shot is spent.

--secure-boot: OVMF's Secure Boot build with Microsoft's keys (run
--secure-boot): GRUB refuses memboot's unsigned kernel and boot 1 falls back
to Linux by itself. --secure-boot --sign: a key made for the rehearsal
(openssl) is enrolled as a machine owner key in the variable store
(virt-fw-vars --add-mok: shim reads MokList as MokManager would have left
it, so no key press), memboot's loader is signed with it (install
--sign-key) and GRUB chainloads it: boot 1 is memboot's.

The packages are fetched once with `apt-get download` into
~/.cache/memboot/rehearse (--cache). Standard library, Debian's tools.
"""

import glob
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

from mbtools import boot as mbboot, efivars, inputs, linux

DEFAULT_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "memboot", "rehearse")
REPO_ROOT = mbboot.REPO_ROOT
GRUB_MODULES = ("normal configfile linux multiboot2 echo test regexp all_video loadenv fat "
                "part_gpt part_msdos gzio sleep reboot halt search chain").split()
# The simulated server's architecture: Debian's name, GRUB's platform and
# the package of its modules (None: the host's grub-efi-amd64-bin, in
# /usr/lib/grub; another architecture's is unpacked from the cache, never
# installed), the removable-media boot file (UEFI 2.10, 3.5.1.1), the
# modules GRUB's image holds (arm64-efi has no multiboot2: memboot's entry
# chainloads its UEFI loader), Linux's serial console.
ARCHES = {
    "x86_64": {"debarch": "amd64", "platform": "x86_64-efi", "grub_package": None,
               "boot_efi": "BOOTX64.EFI", "modules": GRUB_MODULES, "console": "ttyS0"},
    "arm64": {"debarch": "arm64", "platform": "arm64-efi", "grub_package": "grub-efi-arm64-bin",
              "boot_efi": "BOOTAA64.EFI",
              "modules": [m for m in GRUB_MODULES if m != "multiboot2"], "console": "ttyAMA0"},
}
ESP_MIB = 64
ESP_START = 2048                 # sectors: the partition starts at 1 MiB
ESP_TYPE = "C12A7328-F81F-11D2-BA4B-00A0C93EC93B"
ESP_UUID = "4D454D42-4F4F-5452-9E53-000000000001"
MARK = "SPARE"
SHIM = "usr/lib/shim/shimx64.efi.signed"
SIGNED_GRUB = "usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed"
MOK_OWNER = "4d454d42-4f4f-5452-9e53-6d6f6b000001"
# Machine and memory of the simulated server's boots.
NODES, MEM_PER_NODE = 2, "512M"

INIT = """#!/bin/sh
bb=/bin/busybox
$bb mount -t proc proc /proc
# Console log level 1: a kernel message printed in the middle of a var line
# would split its hex (the kernel writes to ttyS0 between two of our writes).
echo 1 > /proc/sys/kernel/printk
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

# The grub.cfg of the server: grub-mkconfig's header (the next_entry lines
# of /etc/grub.d/00_header), then its OS, the default. no_timer_check, as
# cloud images boot: on a loaded host TCG's timer misses Linux's IO-APIC
# check and Linux panics ("IO-APIC + timer doesn't work").
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
	linux /boot/vmlinuz console=ttyS0,115200 rdinit=/init panic=-1 no_timer_check
	initrd /boot/initrd.img
}
"""


def grub_cfg(arch="x86_64"):
    """The server's grub.cfg: GRUB_CFG, with Linux on its architecture's
    serial console."""
    return GRUB_CFG.replace("console=ttyS0,115200", "console=%s,115200"
                            % ARCHES[arch]["console"])
# What grub-install leaves beside Debian's signed GRUB (its prefix is
# /EFI/debian): the way to the real grub.cfg.
SIGNED_GRUB_CFG = "set prefix=($root)/boot/grub\nconfigfile $prefix/grub.cfg\n"


class RehearsalError(Exception):
    """A step of the rehearsal failed; the message says which and why."""


def _run(argv, what, **kw):
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, **kw)
    except OSError as e:
        raise RehearsalError("%s: %s could not run: %s" % (what, argv[0], e.strerror)) from None
    if proc.returncode != 0:
        raise RehearsalError("%s: %s failed (status %d): %s" % (
            what, shlex.join(argv), proc.returncode, (proc.stderr or proc.stdout).strip()[-500:]))
    return proc


def _candidate(spec):
    """apt's candidate version of @spec (name:arch), or None."""
    try:
        out = subprocess.run(["apt-cache", "policy", spec], capture_output=True, text=True,
                             timeout=60).stdout
    except OSError:
        return None
    for line in out.splitlines():
        if line.strip().startswith("Candidate:"):
            v = line.split(":", 1)[1].strip()
            return None if v == "(none)" else v
    return None


def _deb_version(path):
    """The version in a .deb's file name (apt-get download's NAME_VERSION_ARCH.deb,
    the epoch's colon written %3a)."""
    return os.path.basename(path).split("_")[1].replace("%3a", ":")


def fetch_package(name, cache, debarch="amd64"):
    """The unpacked tree of Debian package @name for @debarch (apt-get
    download once into @cache, dpkg-deb -x): the .deb of that architecture
    and of apt's candidate version, never another one a glob would sort
    first. amd64's tree is CACHE/NAME, another's CACHE/NAME_ARCH."""
    root = os.path.join(cache, name if debarch == "amd64" else "%s_%s" % (name, debarch))
    stamp = os.path.join(root, ".unpacked")
    if os.path.exists(stamp):
        return root
    os.makedirs(cache, exist_ok=True)
    spec = "%s:%s" % (name, debarch)

    def debs():
        return sorted(glob.glob(os.path.join(cache, "%s_*_%s.deb" % (name, debarch)))
                      + glob.glob(os.path.join(cache, "%s_*_all.deb" % name)))
    want = _candidate(spec)
    have = [d for d in debs() if want is None or _deb_version(d) == want]
    if not have:
        dl = subprocess.run(["apt-get", "download", spec if want is None else
                             "%s=%s" % (spec, want)], cwd=cache, capture_output=True,
                            text=True, timeout=600)
        have = [d for d in debs() if want is None or _deb_version(d) == want]
        if not have:
            raise RehearsalError("could not download Debian package %s (offline? run "
                                 "apt-get update; another architecture's needs dpkg "
                                 "--add-architecture %s): %s" % (
                                     spec, debarch, (dl.stderr or dl.stdout).strip()[-300:]))
    if len(have) > 1:
        raise RehearsalError("%s: %s in %s, and apt names no candidate version to choose "
                             "between them: remove all but one"
                             % (spec, ", ".join(os.path.basename(d) for d in have), cache))
    os.makedirs(root, exist_ok=True)
    _run(["dpkg-deb", "-x", have[0], root], "unpacking " + spec)
    open(stamp, "w").close()
    return root


def cpio_newc(entries):
    """A newc cpio archive (the initramfs format) of [(name, mode, data)]."""
    out = bytearray()
    for ino, (name, mode, data) in enumerate(list(entries) + [("TRAILER!!!", 0, b"")], 1):
        nb = name.encode() + b"\0"
        hdr = "070701" + "".join("%08x" % v for v in (
            ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(nb), 0))
        out += hdr.encode() + nb
        out += b"\0" * (-len(out) % 4) + data
        out += b"\0" * (-len(out) % 4)
    return bytes(out)


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def initramfs(kernel_modules, cache, init=INIT, extra=(), debarch="amd64"):
    """busybox (busybox-static of @debarch), efivarfs.ko of the kernel
    package and @init as /init; @extra more (name, mode, data) entries."""
    bb = fetch_package("busybox-static", cache, debarch)
    ko = glob.glob(os.path.join(kernel_modules, "kernel", "fs", "efivarfs", "efivarfs.ko"))
    if not ko:
        raise RehearsalError("no efivarfs.ko in the kernel's modules under %s" % kernel_modules)
    dirs = [(d, 0o40755, b"") for d in ("bin", "proc", "sys", "dev")]
    return cpio_newc(dirs + [("bin/busybox", 0o100755, _read(os.path.join(bb, "bin",
                                                                          "busybox"))),
                             ("bin/sh", 0o120777, b"busybox"),
                             ("efivarfs.ko", 0o100644, _read(ko[0])),
                             ("init", 0o100755, init.encode())] + list(extra))


def debian_kernel(cache=linux.DEFAULT_CACHE, arch="x86_64"):
    """(vmlinuz, its modules' directory) of Debian's cloud kernel for
    @arch. The cache's package root may hold other architectures' kernels
    too (compare-linux --arch arm64): the modules are this kernel's
    version's."""
    try:
        vmlinuz = linux.find_vmlinuz(cache, arch) or linux.fetch_kernel(cache, arch=arch)
    except linux.LinuxError as e:
        raise RehearsalError("Debian's Linux kernel: %s" % e) from None
    version = os.path.basename(vmlinuz)[len("vmlinuz-"):]
    return vmlinuz, os.path.join(cache, "root", "lib", "modules", version)


class Server:
    """The simulated server: its ESP as a tree, and the disk built from it."""

    def __init__(self, workdir, secure_boot=False, cache=DEFAULT_CACHE, log=None,
                 arch="x86_64"):
        if secure_boot and arch != "x86_64":
            raise RehearsalError("--secure-boot rehearses OVMF's Secure Boot build with "
                                 "Debian's signed shim for x86_64; %s has none here" % arch)
        self.dir = workdir
        self.arch = arch
        self.secure_boot = secure_boot
        self.cache = cache
        self.log = log or (lambda text: None)
        self.esp = os.path.join(workdir, "esp")
        self.disk = os.path.join(workdir, "disk.img")
        self.vars = os.path.join(workdir, "vars.fd")
        self.vmlinuz, self.kernel_modules = debian_kernel(arch=arch)

    def build_tree(self):
        for d in ("EFI/BOOT", "boot/grub", "etc/grub.d"):
            os.makedirs(os.path.join(self.esp, d), exist_ok=True)
        a = ARCHES[self.arch]
        boot_efi = os.path.join(self.esp, "EFI", "BOOT", a["boot_efi"])
        if self.secure_boot:
            shim = fetch_package("shim-signed", self.cache)
            grub = fetch_package("grub-efi-amd64-signed", self.cache)
            shutil.copyfile(os.path.join(shim, SHIM), boot_efi)
            shutil.copyfile(os.path.join(grub, SIGNED_GRUB),
                            os.path.join(self.esp, "EFI", "BOOT", "grubx64.efi"))
            os.makedirs(os.path.join(self.esp, "EFI", "debian"), exist_ok=True)
            with open(os.path.join(self.esp, "EFI", "debian", "grub.cfg"), "w") as f:
                f.write(SIGNED_GRUB_CFG)
        else:
            modules = os.path.join("/usr/lib/grub", a["platform"])
            if a["grub_package"]:
                modules = os.path.join(fetch_package(a["grub_package"], self.cache,
                                                     a["debarch"]), "usr/lib/grub", a["platform"])
            _run(["grub-mkimage", "-O", a["platform"], "-d", modules, "-p", "/boot/grub",
                  "-o", boot_efi] + a["modules"], "grub-mkimage")
            # What grub-install leaves in /boot/grub/PLATFORM (the lists; the
            # modules the entries use are in the image): how `memboot install`
            # tells the machine's architecture.
            os.makedirs(os.path.join(self.esp, "boot", "grub", a["platform"]), exist_ok=True)
            for lst in glob.glob(os.path.join(modules, "*.lst")):
                shutil.copy(lst, os.path.join(self.esp, "boot", "grub", a["platform"]))
        shutil.copyfile(self.vmlinuz, os.path.join(self.esp, "boot", "vmlinuz"))
        self.set_initrd(initramfs(self.kernel_modules, self.cache, debarch=a["debarch"]))
        with open(os.path.join(self.esp, "boot", "grub", "grub.cfg"), "w") as f:
            f.write(grub_cfg(self.arch))
        _run(["grub-editenv", os.path.join(self.esp, "boot", "grub", "grubenv"), "create"],
             "grub-editenv")

    def set_initrd(self, data):
        with open(os.path.join(self.esp, "boot", "initrd.img"), "wb") as f:
            f.write(data)

    def _img(self):
        return "%s@@%d" % (self.disk, ESP_START * 512)

    def write_disk(self):
        """The GPT disk with the tree as its ESP (etc/ stays out: the
        grub.d script is for update-grub only)."""
        with open(self.disk, "wb") as f:
            f.truncate((ESP_MIB + 2) << 20)
        table = "label: gpt\nstart=%d, size=%d, type=%s, uuid=%s, name=\"EFI System\"\n" % (
            ESP_START, ESP_MIB << 11, ESP_TYPE, ESP_UUID)
        _run(["sfdisk", "--quiet", self.disk], "sfdisk", input=table)
        _run(["mformat", "-i", self._img(), "-T", str(ESP_MIB << 11), "-h", "64", "-s", "32",
              "-F", "::"], "mformat")
        names = [os.path.join(self.esp, n) for n in sorted(os.listdir(self.esp)) if n != "etc"]
        _run(["mcopy", "-s", "-i", self._img()] + names + ["::/"], "mcopy")

    def put(self, relpath):
        """Copy the tree's @relpath onto the disk (replacing it)."""
        _run(["mcopy", "-o", "-i", self._img(), os.path.join(self.esp, relpath),
              "::/" + relpath], "mcopy")

    def delete(self, relpath):
        _run(["mdeltree", "-i", self._img(), "::/" + relpath], "mdeltree")

    def get(self, relpath):
        """The bytes of @relpath on the disk."""
        with tempfile.TemporaryDirectory(prefix="memboot-get-") as tmp:
            out = os.path.join(tmp, "f")
            _run(["mcopy", "-i", self._img(), "::/" + relpath, out], "mcopy")
            return _read(out)

    def grubenv(self):
        """{name: value} of the disk's grubenv, as grub-editenv lists it."""
        with tempfile.TemporaryDirectory(prefix="memboot-env-") as tmp:
            out = os.path.join(tmp, "grubenv")
            with open(out, "wb") as f:
                f.write(self.get("boot/grub/grubenv"))
            listing = _run(["grub-editenv", out, "list"], "grub-editenv").stdout
        return dict(line.split("=", 1) for line in listing.splitlines() if "=" in line)

    def enroll_mok(self, cert_pem):
        """The certificate as a machine owner key in the variable store."""
        if shutil.which("virt-fw-vars") is None:
            raise RehearsalError("virt-fw-vars not found (Debian package python3-virt-firmware, "
                                 "bookworm-backports)")
        if not os.path.exists(self.vars):
            shutil.copyfile(vars_template(self.secure_boot), self.vars)
        _run(["virt-fw-vars", "--inplace", self.vars, "--add-mok", MOK_OWNER, cert_pem],
             "virt-fw-vars --add-mok")

    def boot(self, timeout=300, boot_class=mbboot.Boot, strict=False):
        """One boot of the disk under OVMF (Secure Boot with --secure-boot)."""
        argv = mbboot.run_argv(nodes=NODES, mem_per_node=MEM_PER_NODE, firmware="uefi",
                               timeout=timeout, arch=self.arch)
        argv += ["--disk", self.disk, "--vars", self.vars]
        if self.secure_boot:
            argv.append("--secure-boot")
        return mbboot.boot(argv, timeout=timeout, strict=strict, boot_class=boot_class)


def vars_template(secure_boot):
    return "/usr/share/OVMF/OVMF_VARS_4M.ms.fd" if secure_boot else \
        "/usr/share/OVMF/OVMF_VARS_4M.fd"


def linux_vars(console):
    """{efivarfs file name: bytes} the server's Linux printed, or None when
    it did not get to its end line."""
    lines = [l.strip() for l in console.splitlines() if l.strip().startswith(MARK + " ")]
    if MARK + " linux up" not in lines or not lines or lines[-1] != MARK + " end":
        return None
    found = {}
    for l in lines:
        parts = l.split()
        if parts[1] != "var" or len(parts) < 3:
            continue
        try:
            found[parts[2]] = bytes.fromhex(parts[3] if len(parts) > 3 else "")
        except ValueError:
            # Something else wrote into the line: the variable is named as
            # unreadable rather than decoded wrong.
            found[parts[2]] = None
    return found


def damaged_vars(files):
    """Names whose printed bytes could not be read back."""
    return sorted(n for n, v in files.items() if v is None)


def make_key(workdir):
    """A key and certificate made for the rehearsal (openssl), PEM; the
    certificate also in DER, as mokutil --import takes it."""
    key, cert = os.path.join(workdir, "mok.key"), os.path.join(workdir, "mok.crt")
    _run(["openssl", "req", "-new", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30",
          "-subj", "/CN=memboot rehearsal key/", "-keyout", key, "-out", cert],
         "openssl req (the rehearsal's key)")
    _run(["openssl", "x509", "-in", cert, "-outform", "DER", "-out", cert + ".der"],
         "openssl x509")
    return key, cert


# ---------------------------------------------------------------------------
# A server whose firmware boots Linux itself (no GRUB): install --bootnext
# ---------------------------------------------------------------------------

STUB_DIR = "EFI/linux"
STUB_ENTRY = 0x0080
STUB_WORDS = "console=ttyS0,115200 rdinit=/init panic=-1 no_timer_check"
# The ESP's disk and its modules, in load order (the cloud kernel has them
# as modules), and the Python and efibootmgr the package's command needs.
DISK_MODULES = ("drivers/virtio/virtio_ring.ko", "drivers/virtio/virtio.ko",
                "drivers/virtio/virtio_pci_legacy_dev.ko",
                "drivers/virtio/virtio_pci_modern_dev.ko", "drivers/virtio/virtio_pci.ko",
                "drivers/block/virtio_blk.ko", "fs/fat/fat.ko", "fs/fat/vfat.ko",
                "fs/nls/nls_cp437.ko", "fs/nls/nls_ascii.ko")
PYTHON = "/usr/bin/python3.11"
PY_LIB = "/usr/lib/python3.11"
PY_LEAVE_OUT = ("test", "tests", "idlelib", "tkinter", "turtledemo", "lib2to3", "ensurepip",
                "pydoc_data", "distutils", "dist-packages", "site-packages", "venv",
                "__pycache__", "config-3.11-x86_64-linux-gnu", "sqlite3", "curses",
                "unittest", "asyncio", "email", "http", "xml", "xmlrpc", "multiprocessing",
                "concurrent", "ctypes", "wsgiref", "urllib", "dbm", "html")

STAGE_INIT = """#!/bin/sh
bb=/bin/busybox
$bb mkdir -p /proc /sys /dev /tmp /boot/efi /var/lib
$bb mount -t proc proc /proc
# Console log level 1: a kernel message printed in the middle of a var line
# would split its hex (the kernel writes to ttyS0 between two of our writes).
echo 1 > /proc/sys/kernel/printk
$bb mount -t sysfs sysfs /sys
$bb mount -t devtmpfs devtmpfs /dev
$bb insmod /efivarfs.ko
$bb mount -t efivarfs efivarfs /sys/firmware/efi/efivars
for m in %(modules)s; do $bb insmod /modules/$m; done
n=0
while [ ! -b /dev/vda1 ] && [ $n -lt 50 ]; do $bb sleep 0.2; n=$((n + 1)); done
$bb mount -t vfat /dev/vda1 /boot/efi
echo "%(mark)s linux up"
for f in /sys/firmware/efi/efivars/%(prefix)s*-%(guid)s; do
    [ -e "$f" ] || continue
    echo "%(mark)s var $($bb basename $f) $($bb od -An -v -tx1 $f | $bb tr -d ' \\n')"
done
export PATH=/usr/bin:/bin
%(commands)s
$bb umount /boot/efi
$bb sync
echo "%(mark)s end"
$bb poweroff -f
"""


def _elf_libs(path):
    """The shared objects @path loads, as ldd names them."""
    out = _run(["ldd", path], "ldd " + path).stdout
    libs = []
    for line in out.splitlines():
        m = line.split("=>")
        name = (m[1] if len(m) > 1 else m[0]).split("(")[0].strip()
        if name.startswith("/"):
            libs.append(name)
    return libs


def _file_entries(paths):
    """cpio entries for files at their own paths, with their directories."""
    dirs, files = set(), []
    for p in paths:
        parts = p.strip("/").split("/")
        for i in range(1, len(parts)):
            dirs.add("/".join(parts[:i]))
        mode = 0o100755 if os.access(p, os.X_OK) else 0o100644
        files.append((p.strip("/"), mode, _read(os.path.realpath(p))))
    return [(d, 0o40755, b"") for d in sorted(dirs)] + files


def python_and_efibootmgr():
    """Debian's Python (the standard library the tools use) and efibootmgr,
    with their libraries, for a busybox initramfs."""
    for p in (PYTHON, "/usr/bin/efibootmgr"):
        if not os.path.exists(p):
            raise RehearsalError("%s missing (Debian packages python3, efibootmgr)" % p)
    paths = {PYTHON, "/usr/bin/efibootmgr"}
    for exe in (PYTHON, "/usr/bin/efibootmgr"):
        paths.update(_elf_libs(exe))
    for folder, dirs, files in os.walk(PY_LIB):
        dirs[:] = [d for d in dirs if d not in PY_LEAVE_OUT]
        for f in files:
            p = os.path.join(folder, f)
            if f.endswith(".py") or (f.endswith(".so") and folder.endswith("lib-dynload")
                                     and f.startswith(("_json", "_struct", "_uuid",
                                                       "_bz2", "_lzma", "math", "select",
                                                       "fcntl", "array", "binascii",
                                                       "zlib", "_posixsubprocess",
                                                       "_opcode", "_contextvars"))):
                paths.add(p)
    for so in [p for p in paths if p.endswith(".so")]:
        paths.update(_elf_libs(so))
    entries = _file_entries(sorted(paths))
    return entries + [("usr/bin/python3", 0o120777, b"python3.11")]


def stage_initramfs(kernel_modules, cache, package_root, commands):
    """The busybox initramfs with the ESP's modules, Python, efibootmgr
    and memboot's package, running @commands (shell) once the ESP is
    mounted at /boot/efi; their output goes to the console."""
    mods = []
    for rel in DISK_MODULES:
        found = glob.glob(os.path.join(kernel_modules, "kernel", rel))
        if not found:
            raise RehearsalError("no %s in the kernel package" % rel)
        mods.append(("modules/" + os.path.basename(rel), 0o100644, _read(found[0])))
    pkg = []
    for folder, _, files in os.walk(package_root):
        for f in files:
            p = os.path.join(folder, f)
            rel = os.path.relpath(p, package_root)
            pkg.append((rel, 0o100755 if os.access(p, os.X_OK) else 0o100644, _read(p)))
    pkg_dirs = sorted({os.path.dirname(n) for n, _, _ in pkg if os.path.dirname(n)})
    dir_entries = []
    for d in pkg_dirs:
        parts = d.split("/")
        for i in range(1, len(parts) + 1):
            dir_entries.append(("/".join(parts[:i]), 0o40755, b""))
    init = STAGE_INIT % {"mark": MARK, "prefix": efivars.PREFIX, "guid": efivars.GUID,
                         "modules": " ".join(os.path.basename(r) for r in DISK_MODULES),
                         "commands": commands}
    entries = ([("modules", 0o40755, b"")] + mods + python_and_efibootmgr()
               + list(dict.fromkeys(dir_entries)) + pkg)
    seen, unique = set(), []
    for e in entries:
        if e[0] not in seen:
            seen.add(e[0])
            unique.append(e)
    import gzip
    return gzip.compress(initramfs(kernel_modules, cache, init=init, extra=unique), 6)


def load_option(desc, path, words=""):
    """An EFI_LOAD_OPTION for a file found by its path alone (a short-form
    File Path, which the firmware expands), with @words as its optional
    data (UCS-2, the command line of a Linux EFI stub)."""
    import struct
    name = (path + "\0").encode("utf-16-le")
    dp = struct.pack("<BBH", 4, 4, 4 + len(name)) + name + struct.pack("<BBH", 0x7F, 0xFF, 4)
    return (struct.pack("<IH", 1, len(dp)) + (desc + "\0").encode("utf-16-le") + dp
            + (words.encode("utf-16-le") if words else b""))


class StubServer(Server):
    """A server whose firmware boots Linux's EFI stub itself (Boot0080 first
    in BootOrder, with initrd= and the words as its load options): no GRUB
    anywhere, as on a machine with systemd-boot or a UKI."""

    def build_tree(self):
        os.makedirs(os.path.join(self.esp, STUB_DIR), exist_ok=True)
        shutil.copyfile(self.vmlinuz, os.path.join(self.esp, STUB_DIR, "vmlinuz.efi"))
        self.set_initrd(initramfs(self.kernel_modules, self.cache))
        if shutil.which("virt-fw-vars") is None:
            raise RehearsalError("virt-fw-vars not found (Debian package "
                                 "python3-virt-firmware, bookworm-backports)")
        import json
        words = "initrd=\\%s\\initrd.img %s" % (STUB_DIR.replace("/", "\\"), STUB_WORDS)
        data = load_option("Debian (Linux EFI stub)",
                           "\\%s\\vmlinuz.efi" % STUB_DIR.replace("/", "\\"), words)
        js = os.path.join(self.dir, "bootorder.json")
        with open(js, "w") as f:
            json.dump({"version": 2, "variables": [
                {"name": "Boot%04X" % STUB_ENTRY, "guid": GLOBAL_GUID, "attr": 7,
                 "data": data.hex()},
                {"name": "BootOrder", "guid": GLOBAL_GUID, "attr": 7,
                 "data": STUB_ENTRY.to_bytes(2, "little").hex()}]}, f)
        _run(["virt-fw-vars", "-i", vars_template(False), "--set-json", js, "-o", self.vars],
             "virt-fw-vars --set-json")

    def set_initrd(self, data):
        with open(os.path.join(self.esp, STUB_DIR, "initrd.img"), "wb") as f:
            f.write(data)


GLOBAL_GUID = "8be4df61-93ca-11d2-aa0d-00e098032b8c"


# ---------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------

def package_command(workdir, deb):
    """The package's memboot command, unpacked from @deb."""
    root = os.path.join(workdir, "package")
    _run(["dpkg-deb", "-x", deb, root], "dpkg-deb -x " + deb)
    return [sys.executable, os.path.join(root, "usr", "bin", "memboot")]


def build_deb(workdir):
    """memboot's package from this tree's build (what `make deb` makes), in
    @workdir: never a stale one."""
    from mbtools import package
    o = os.path.join(REPO_ROOT, "build", "debug")
    files = {"--elf": os.path.join(o, "memboot.elf"),
             "--loader": os.path.join(o, "efi", "BOOTX64.EFI")}
    version = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=REPO_ROOT,
                             capture_output=True, text=True).stdout.strip() or "0"
    try:
        return package.build(files, os.path.join(workdir, "deb"), version)
    except package.PackageError as e:
        raise RehearsalError("memboot's package: %s" % e) from None


class Say:
    """Readable output: steps, commands and what each boot printed."""

    def __init__(self, out=sys.stdout):
        self.out = out
        self.t0 = time.monotonic()

    def __call__(self, text=""):
        print(text, file=self.out, flush=True)

    def step(self, text):
        self("rehearse: %s" % text)

    def cmd(self, argv, proc):
        shown = ["memboot"] + argv[2:] if len(argv) > 1 and argv[1].endswith("memboot") \
            else argv
        self("$ " + shlex.join(shown))
        for line in (proc.stdout + proc.stderr).splitlines():
            self("  " + line)


def run_cmd(say, argv, what, show=True):
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    if show or proc.returncode != 0:
        say.cmd(argv, proc)
    else:
        say.cmd(argv, subprocess.CompletedProcess(argv, 0, "", ""))
    if proc.returncode != 0:
        raise RehearsalError("%s failed (status %d)" % (what, proc.returncode))
    return proc


def describe_memboot(b):
    done = b.done
    nodes = ["node %d: %d pages in %.3f ms" % (r["node"], r["pages"], r["ns"] / 1e6)
             for r in b.all("node_init")]
    kept = [l.strip() for l in b.console.splitlines() if "results:" in l and "kept" in l]
    return ["memboot: status %d (%s); %s" % (done["status"], done["reason"], "; ".join(nodes)),
            kept[-1].split("] ", 1)[-1] if kept else "memboot: no 'results: ... kept' line"]


def rehearse(args, say):
    if not args.keep:
        with tempfile.TemporaryDirectory(prefix="memboot-rehearse-") as tmp:
            return rehearse_in(args, say, tmp)
    os.makedirs(args.keep, exist_ok=True)
    return rehearse_in(args, say, os.path.abspath(args.keep))


def tree_command(arch):
    """This tree's memboot command with @arch's build as install's kernel
    and loader: the package holds x86_64's only (package.py)."""
    o = os.path.join(REPO_ROOT, "build", arch, "debug")
    for path in (os.path.join(o, "memboot.elf"), os.path.join(o, "efi", "BOOTAA64.EFI")):
        if not os.path.isfile(path):
            raise RehearsalError("no %s: run 'make ARCH=%s' first" % (path, arch))
    return ([sys.executable, os.path.join(REPO_ROOT, "tools", "memboot")],
            ["--elf", os.path.join(o, "memboot.elf"),
             "--loader", os.path.join(o, "efi", "BOOTAA64.EFI")])


def rehearse_in(args, say, workdir):
    arch = getattr(args, "arch", None) or "x86_64"
    if arch != "x86_64" and args.deb:
        raise RehearsalError("--deb: memboot's package holds x86_64's kernel only; the %s "
                             "server gets this tree's build" % arch)
    deb = None if arch != "x86_64" else args.deb or build_deb(workdir)
    srv = Server(workdir, secure_boot=args.secure_boot, cache=args.cache, arch=arch)
    say.step("the simulated server in %s: a GPT disk, its EFI system partition with %s, "
             "Debian's %s with a busybox initramfs (efivarfs.ko) as its own OS%s" % (
                 workdir, "Debian's signed shim and GRUB" if args.secure_boot else "GRUB",
                 os.path.basename(srv.vmlinuz),
                 "; OVMF with Secure Boot on (Microsoft's keys)" if args.secure_boot else ""))
    srv.build_tree()
    if deb:
        memboot, files = package_command(workdir, deb), []
        say.step("memboot's package %s, unpacked; its command installs memboot on the server"
                 % os.path.basename(deb))
    else:
        memboot, files = tree_command(arch)
        say.step("this tree's memboot command installs this tree's %s build on the server"
                 % arch)
    inst = memboot + ["install", "--root", srv.esp, "--once", "--esp", srv.esp,
                      "--append", "memboot.init=deferred"] + files
    if args.sign:
        key, cert = make_key(workdir)
        srv.enroll_mok(cert)
        say.step("a key made for the rehearsal, enrolled as a machine owner key in the "
                 "variable store (virt-fw-vars --add-mok; on a machine: mokutil --import "
                 "%s and MokManager once)" % os.path.basename(cert + ".der"))
        inst += ["--sign-key", key, "--sign-cert", cert]
    run_cmd(say, inst, "memboot install")
    srv.write_disk()
    say.step("grubenv: %s" % srv.grubenv())

    say.step("boot 1: GRUB boots next_entry (memboot) once")
    first = srv.boot(timeout=args.timeout)
    if first.done:
        for line in describe_memboot(first):
            say("  " + line)
    elif linux_vars(first.console) is not None:
        say("  GRUB did not boot memboot; it fell back to its default entry: Linux is up")
        refused = [l.strip() for l in first.console.splitlines()
                   if "error:" in l or "secure boot" in l.lower()]
        for line in refused[:4]:
            say("  GRUB: " + line)
    else:
        raise RehearsalError("boot 1 ended with neither memboot's done record nor Linux "
                             "(status %d):\n%s" % (first.status, first.console[-2000:]))
    say.step("grubenv after boot 1: %s" % srv.grubenv())

    say.step("boot 2: GRUB's default, the server's Linux, prints the variables")
    second = srv.boot(timeout=args.timeout)
    files = linux_vars(second.console)
    if files is None:
        raise RehearsalError("boot 2: Linux did not print its variables (status %d):\n%s"
                             % (second.status, second.console[-2000:]))
    if damaged_vars(files):
        raise RehearsalError("boot 2: Linux printed %s, but its line was cut by other console "
                             "output (not hex):\n%s" % (", ".join(damaged_vars(files)),
                                                        second.console[-2000:]))
    say("  Linux: %s" % (", ".join("%s (%d bytes)" % (n.split("-")[0], len(v))
                                   for n, v in sorted(files.items())) or "no MembootResults"))
    if files:
        d = os.path.join(workdir, "efivars")
        os.makedirs(d, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        out = run_cmd(say, memboot + ["efivars", d], "memboot efivars", show=False)
        lines = out.stdout.splitlines()
        records = [l for l in lines if l.startswith(efivars.RECORD_PREFIX)]
        for line in lines:
            if not line.startswith(efivars.RECORD_PREFIX):
                say("  " + line)
        say("  (and %d records, as memboot's own log has them)" % len(records))

    if first.done:
        say.step("boot 3: Linux again (the one-shot is spent)")
        third = srv.boot(timeout=args.timeout)
        if linux_vars(third.console) is None or third.records:
            raise RehearsalError("boot 3 was not the server's Linux:\n%s"
                                 % third.console[-2000:])
        say("  Linux is up")
    # The disk is the server: its grubenv (next_entry cleared by GRUB) back
    # into the tree that uninstall works on.
    with open(os.path.join(srv.esp, "boot", "grub", "grubenv"), "wb") as f:
        f.write(srv.get("boot/grub/grubenv"))
    run_cmd(say, memboot + ["uninstall", "--root", srv.esp, "--esp", srv.esp],
            "memboot uninstall")
    say.step("done: %s" % ("memboot booted once, its results came back in Linux"
                           if first.done else "memboot did not boot (refused), and the "
                           "server came back to its Linux by itself"))
    return 0


def add_parser(sub):
    p = sub.add_parser(
        "rehearse", allow_abbrev=False,
        help="the unattended loop on a simulated server (GRUB, Debian's Linux, OVMF)",
        description="Build a simulated Debian server (a GPT disk: GRUB on its EFI system "
                    "partition, Debian's Linux cloud kernel with an initramfs that prints "
                    "the results variables), install memboot on it with the package's "
                    "command (make deb) and boot it three times under OVMF: memboot once, "
                    "then its Linux, which reads the results. Packages are fetched once "
                    "with apt-get download.")
    p.add_argument("--deb", metavar="FILE", type=inputs.input_file,
                   help="memboot's package (default: one built from build/debug, as "
                        "'make deb' builds it)")
    p.add_argument("--arch", choices=sorted(ARCHES),
                   help="the server's architecture (default x86_64); arm64: GRUB for "
                        "arm64-efi and Debian's cloud-arm64 Linux under AAVMF, memboot from "
                        "this tree's build (make ARCH=arm64)")
    p.add_argument("--secure-boot", action="store_true",
                   help="Secure Boot on (OVMF with Microsoft's keys; Debian's signed shim "
                        "and GRUB on the server)")
    p.add_argument("--sign", action="store_true",
                   help="with --secure-boot: sign memboot's loader with a key made for the "
                        "rehearsal, enrolled as a machine owner key")
    p.add_argument("--keep", metavar="DIR",
                   help="build the server in DIR and keep it (default: a temporary "
                        "directory, removed at the end)")
    p.add_argument("--cache", default=DEFAULT_CACHE, metavar="DIR",
                   help="where the Debian packages are kept (default %s)" % DEFAULT_CACHE)
    p.add_argument("--timeout", type=inputs.positive_seconds, default=300, metavar="S",
                   help="seconds for each boot (default 300)")
    p.set_defaults(func=main, subparser=p)
    return p


def main(args):
    if args.sign and not args.secure_boot:
        args.subparser.error("--sign is the Secure Boot way: it needs --secure-boot")
    if args.arch and args.arch != "x86_64" and args.secure_boot:
        args.subparser.error("--secure-boot rehearses Debian's signed shim and GRUB for "
                             "x86_64 under OVMF's Secure Boot build; --arch %s has none here"
                             % args.arch)
    if args.arch and args.arch != "x86_64" and args.deb:
        args.subparser.error("--deb: memboot's package holds x86_64's kernel only; the %s "
                             "server gets this tree's build (make ARCH=%s)"
                             % (args.arch, args.arch))
    say = Say()
    try:
        return rehearse(args, say)
    except RehearsalError as e:
        print("memboot rehearse: %s" % e, file=sys.stderr)
        return 1
