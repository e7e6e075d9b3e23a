"""Checks of what a user hands the tools, made before QEMU starts.

Every check returns None when the input is fine, else one sentence naming the
problem, so the caller can turn it into a usage error (exit 64) without
starting a guest that would only fail or wait for its timeout.
"""

import os
import re
import stat

# ASCII digits only: Python's int() and float() also take "1_0" and digits of
# other scripts (e.g. Arabic-Indic), which no user means as a count.
ASCII_UINT_RE = re.compile(r"[0-9]+", re.ASCII)
ASCII_SECONDS_RE = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", re.ASCII)

# A timeout is handed to select() in milliseconds as a C int: more than
# about 24 days overflows it. A week is more than any boot needs.
MAX_TIMEOUT_S = 7 * 24 * 3600

# ISO 9660: the primary volume descriptor is at sector 16 (byte 0x8000); its
# standard identifier "CD001" follows the type byte.
ISO9660_ID_OFFSET = 0x8001
ISO9660_ID = b"CD001"
# A FAT boot sector and an MBR (or the protective MBR of GPT) both end their
# first sector with the signature 0x55 0xAA at byte 510.
BOOT_SIGNATURE_OFFSET = 510
BOOT_SIGNATURE = b"\x55\xaa"
ELF_MAGIC = b"\x7fELF"


def parse_uint(text):
    """A decimal count of ASCII digits, or None."""
    if not ASCII_UINT_RE.fullmatch(text):
        return None
    return int(text, 10)


def parse_seconds(text):
    """Seconds as ASCII decimal (fractions allowed), or None."""
    if not ASCII_SECONDS_RE.fullmatch(text):
        return None
    return float(text)


def cmdline_problem(text):
    """Why a kernel command-line string cannot be passed on, or None.

    The words travel as a file (fw_cfg) or a C string (-append): they must
    be valid UTF-8 (bytes that are not arrive from the shell as surrogate
    escapes) and hold no NUL, which would end the string early."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        bad = text[e.start]
        code = ord(bad)
        byte = code - 0xdc00 if 0xdc80 <= code <= 0xdcff else code
        return "byte 0x%02x at offset %d is not valid UTF-8" % (byte, e.start)
    if "\0" in text:
        return "a NUL byte at offset %d would end the command line" \
            % text.index("\0")
    return None


# ---------------------------------------------------------------------------
# Reading a user's file: one rule for every tool
# ---------------------------------------------------------------------------
#
# Only regular files are read. A FIFO would block (open() itself waits for a
# writer), a device may never end (/dev/zero), a directory is not data: each
# is refused with a message naming what it is, from fstat() of a descriptor
# opened with O_NONBLOCK, so nothing is ever waited on or read. A file is
# read up to a cap, as tools/topo/memboot-topo.c does (TOPO_MAX_FILE_BYTES,
# the same 64 MiB: tests/tools/test_file_rule.py checks they agree), so a
# 4 GiB sparse file is refused from its size before a byte is read, and a
# file that grows while being read stops at the cap. Compressed input (.gz,
# .xz) is capped after decompression too, and its damage named ("corrupt
# gzip data"). Errors of the system are named in words ("permission
# denied"), never a traceback.

MAX_INPUT_BYTES = 64 << 20
# A kmem trace is streamed line by line, never held whole: what is kept is
# its events (about 100 bytes of text each), so it may be larger. Its text,
# after decompression, is capped at 8 times the rule's cap: about 4 million
# events, a few hundred MiB of memory for the reader.
MAX_TRACE_BYTES = 8 * MAX_INPUT_BYTES
# A line of a trace is at most a few hundred bytes; one longer is not an
# event (and a file of NUL bytes without a newline must not become one line
# of gigabytes in memory).
MAX_LINE_BYTES = 4096


class InputError(Exception):
    """A user's file that the tools do not read: one sentence naming the
    file and the problem."""


def _kind(mode):
    """What a file that is not regular is, in words."""
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"


def _mib(n):
    return "%d MiB" % (n >> 20) if n % (1 << 20) == 0 else "%d bytes" % n


def os_error_text(e):
    """An OSError in the system's words: "Permission denied", "No such file
    or directory"."""
    return e.strerror or str(e)


def inside_root(root, path):
    """@path with its symbolic links resolved, if that stays under @root (a
    tree that stands for a machine's '/', such as install's --root); else
    InputError naming the path and where it leads. A link inside the tree
    is followed; one that leads out of it is not, so an image whose /boot
    is a link to /boot never gets this machine's /boot read or written.
    The path itself need not exist."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise InputError("%s leads out of --root %s (to %s): a symbolic link out of the "
                         "tree is not followed" % (path, root, real))
    return real


def open_input(path, what="file", max_bytes=MAX_INPUT_BYTES, root=None):
    """@path opened for reading in binary, if it is a regular file of at most
    @max_bytes; else InputError naming it (@what: "trace", "variable store").
    With @root, a path that leads out of that tree is refused too
    (inside_root())."""
    target = path if root is None else inside_root(root, path)
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
                     | (os.O_NOFOLLOW if root is not None else 0))
    except OSError as e:
        raise InputError("cannot read %s %s: %s" % (what, path, os_error_text(e))) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputError("%s %s is not a regular file (it is %s): only regular files "
                             "are read" % (what, path, _kind(st.st_mode)))
        if st.st_size > max_bytes:
            raise InputError("%s %s: %d bytes, larger than the %s read at most"
                             % (what, path, st.st_size, _mib(max_bytes)))
        # A regular file never blocks; plain reads from here on.
        os.set_blocking(fd, True)
        f = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return f


def read_input(path, what="file", max_bytes=MAX_INPUT_BYTES, root=None):
    """The bytes of @path under the file rule (open_input()); a file that
    grew past @max_bytes while being read is refused too. Read with read()
    until its end, never a seek: efivarfs files cannot seek ("Illegal
    seek"), and may say a size that is not theirs."""
    with open_input(path, what, max_bytes, root) as f:
        parts, total = [], 0
        try:
            while total <= max_bytes:
                part = os.read(f.fileno(), min(1 << 20, max_bytes + 1 - total))
                if not part:
                    break
                parts.append(part)
                total += len(part)
        except OSError as e:
            raise InputError("cannot read %s %s: %s" % (what, path, os_error_text(e))) from None
        data = b"".join(parts)
    if len(data) > max_bytes:
        raise InputError("%s %s: larger than the %s read at most" % (what, path,
                                                                     _mib(max_bytes)))
    return data


class _CappedLines:
    """The lines of a (possibly compressed) binary stream, decoded, each cut
    at MAX_LINE_BYTES (the rest of it dropped and the line flagged), the
    whole capped at @max_bytes of decompressed text; the decompressor's
    complaints become InputError."""

    def __init__(self, raw, stream, path, what, kind, max_bytes):
        self.raw, self.stream, self.path, self.what = raw, stream, path, what
        self.kind, self.max_bytes, self.total = kind, max_bytes, 0

    def _read(self, fn, *a):
        import lzma
        import zlib
        try:
            return fn(*a)
        except (EOFError, zlib.error, lzma.LZMAError) as e:
            raise InputError("%s %s: corrupt %s data (%s)"
                             % (self.what, self.path, self.kind, e)) from None
        except OSError as e:
            # gzip.BadGzipFile is an OSError without an errno.
            if e.errno is None and self.kind != "text":
                raise InputError("%s %s: corrupt %s data (%s)"
                                 % (self.what, self.path, self.kind, e)) from None
            raise InputError("cannot read %s %s: %s"
                             % (self.what, self.path, os_error_text(e))) from None

    def __iter__(self):
        """(line text, cut?) for each line."""
        while True:
            line = self._read(self.stream.readline, MAX_LINE_BYTES + 1)
            if not line:
                return
            self._count(len(line))
            cut = len(line) > MAX_LINE_BYTES and not line.endswith(b"\n")
            while cut:
                rest = self._read(self.stream.readline, 1 << 16)
                if not rest:
                    break
                self._count(len(rest))
                if rest.endswith(b"\n"):
                    break
            yield line[:MAX_LINE_BYTES].decode("utf-8", "replace"), cut

    def _count(self, n):
        self.total += n
        if self.total > self.max_bytes:
            raise InputError("%s %s: more than %s of text%s, more than is read"
                             % (self.what, self.path, _mib(self.max_bytes),
                                "" if self.kind == "text" else
                                " once decompressed (%s)" % self.kind))

    def close(self):
        try:
            self.stream.close()
        finally:
            self.raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def open_lines(path, what="file", max_bytes=MAX_TRACE_BYTES):
    """The lines of a text file under the file rule, read as .xz or .gz
    when its name says so: iterate for (text, cut?) pairs. The file and its
    decompressed text are each capped at @max_bytes."""
    import gzip
    import lzma
    raw = open_input(path, what, max_bytes)
    if path.endswith(".gz"):
        kind, stream = "gzip", gzip.GzipFile(fileobj=raw, mode="rb")
    elif path.endswith(".xz"):
        kind, stream = "xz", lzma.LZMAFile(raw, "rb")
    else:
        kind, stream = "text", raw
    return _CappedLines(raw, stream, path, what, kind, max_bytes)


def _head(path, offset, length):
    # The signature of an image (an ISO of any size): only its head is read.
    with open_input(path, max_bytes=1 << 62) as f:
        f.seek(offset)
        return f.read(length)


def regular_file_problem(path, what):
    """None if path is a readable regular file, else why not (the file rule,
    checked without opening it: an argument's check)."""
    try:
        st = os.stat(path)
    except OSError as e:
        return "%s %s: %s" % (what, path, os_error_text(e))
    if not stat.S_ISREG(st.st_mode):
        return "%s %s is not a regular file (it is %s): only regular files are read" \
            % (what, path, _kind(st.st_mode))
    if not os.access(path, os.R_OK):
        return "cannot read %s %s: Permission denied" % (what, path)
    return None


def lstat_problem(path):
    """None if nothing is at @path or a regular file is (not a link to
    one); else "PATH is not a regular file (it is a FIFO)": what a tool
    that writes or removes @path must not replace by mistake."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        return "cannot read %s: %s" % (path, os_error_text(e))
    if stat.S_ISREG(st.st_mode):
        return None
    kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else _kind(st.st_mode)
    return "%s is not a regular file (it is %s)" % (path, kind)


def _signature_problem(path, what, offset, signature, missing):
    """None if path is a readable regular file holding @signature at byte
    @offset; else a message (@missing, formatted with the path)."""
    problem = regular_file_problem(path, what)
    if problem:
        return problem
    if _head(path, offset, len(signature)) != signature:
        return missing % path
    return None


def iso_problem(path):
    """None if path looks like an ISO 9660 image."""
    return _signature_problem(
        path, "ISO", ISO9660_ID_OFFSET, ISO9660_ID,
        "%s is not an ISO 9660 image (no CD001 volume descriptor at byte 0x8001)")


def esp_problem(path):
    """None if path looks like a FAT image or a partitioned disk."""
    return _signature_problem(
        path, "ESP image", BOOT_SIGNATURE_OFFSET, BOOT_SIGNATURE,
        "%s is not a FAT image or a disk image (no boot signature 0x55AA at byte 510)")


def elf_problem(path):
    """None if path starts like an ELF file."""
    return _signature_problem(path, "kernel ELF", 0, ELF_MAGIC, "%s is not an ELF file")


# Linux's arm64 Image header: "ARM\x64" at byte 0x38 (booting.rst).
ARM64_IMAGE_MAGIC = b"ARM\x64"


def image_problem(path):
    """None if path is a flat arm64 Image (its header's magic)."""
    return _signature_problem(path, "kernel Image", 0x38, ARM64_IMAGE_MAGIC,
                              "%s is not an arm64 Image (no \"ARM\\x64\" at 0x38)")


# A ppc64le ELF: 64-bit (EI_CLASS 2), little-endian (EI_DATA 1), e_machine
# EM_PPC64 (21) at byte 18: Linux's vmlinux for pseries, booted as it is.
PPC64LE_ELF_HEAD = (4, b"\x02\x01"), (18, b"\x15\x00")


def ppc64le_elf_problem(path):
    """None if path is a 64-bit little-endian POWER ELF (a vmlinux)."""
    problem = elf_problem(path)
    if problem:
        return problem
    if any(_head(path, off, len(want)) != want for off, want in PPC64LE_ELF_HEAD):
        return "%s is not a ppc64le ELF (64-bit, little-endian, EM_PPC64)" % path
    return None


def output_problem(path):
    """None if a file can be created at path (its directory exists and is
    writable), so a long run does not end in a write error."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return "cannot write %s: directory %s does not exist" % (path, folder)
    if not os.access(folder, os.W_OK | os.X_OK):
        return "cannot write %s: directory %s is not writable" % (path, folder)
    if os.path.isdir(path):
        return "cannot write %s: it is a directory" % path
    return None


# ---------------------------------------------------------------------------
# Sizes, as QEMU and the kernel take them
# ---------------------------------------------------------------------------

MIB = 1 << 20
SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
# QEMU needs NUMA memory backends in multiples of 2 MiB; also a sane minimum.
NUMA_ALIGN = 2 * MIB
SIZE_RE = re.compile(r"\s*([0-9]+)\s*([KkMmGgTt]?)(?:i?[Bb])?\s*", re.ASCII)


def size_problem(text):
    """(bytes, None) for a node memory size, or (None, why not)."""
    m = SIZE_RE.fullmatch(text)
    if not m:
        return None, ("invalid size %r (use bytes or a K/M/G/T suffix, e.g. "
                      "512M, 1G)" % text)
    value = int(m.group(1)) * SIZE_UNITS[m.group(2).upper()]
    if value < NUMA_ALIGN:
        return None, "invalid size %r: must be at least 2M" % text
    if value % NUMA_ALIGN:
        return None, "invalid size %r: must be a multiple of 2M" % text
    return value, None


def format_size(value):
    """Bytes -> QEMU size string with the largest exact binary suffix."""
    for suffix in ("T", "G", "M", "K"):
        unit = SIZE_UNITS[suffix]
        if value % unit == 0:
            return "%d%s" % (value // unit, suffix)
    return str(value)


def word_problem(text, what):
    """Why @text cannot be one kernel command-line word (or a part of one),
    or None: a space would make it several words."""
    if not text:
        return "%s is empty" % what
    bad = next((c for c in text if c.isspace()), None)
    if bad is not None:
        return "%s %r contains whitespace (%r): it would become several kernel words" \
            % (what, text, bad)
    problem = cmdline_problem(text)
    return "%s %r: %s" % (what, text, problem) if problem else None


# Linux boot protocol (Documentation/arch/x86/boot.rst): the real-mode header
# has the boot flag 0xAA55 at 0x1FE and the magic "HdrS" at 0x202.
BZIMAGE_FLAG_OFFSET = 0x1FE
BZIMAGE_MAGIC_OFFSET = 0x202
BZIMAGE_MAGIC = b"HdrS"


def bzimage_problem(path):
    """None if path is a Linux kernel image (boot protocol header)."""
    problem = regular_file_problem(path, "kernel")
    if problem:
        return problem
    head = _head(path, 0, BZIMAGE_MAGIC_OFFSET + 4)
    if (head[BZIMAGE_FLAG_OFFSET:BZIMAGE_FLAG_OFFSET + 2] != BOOT_SIGNATURE
            or head[BZIMAGE_MAGIC_OFFSET:] != BZIMAGE_MAGIC):
        return ("%s is not a Linux kernel image (no boot protocol header: "
                "0xAA55 at 0x1FE and \"HdrS\" at 0x202)" % path)
    return None


# ---------------------------------------------------------------------------
# argparse types shared by every subcommand: each checks its value when the
# options are parsed, before any work starts, and a bad one is a usage error
# (exit 64, docs/exit-status.md).
# ---------------------------------------------------------------------------

def _argument_error(message):
    import argparse
    return argparse.ArgumentTypeError(message)


def _accepted(value, problem):
    """@value for argparse, or its error naming @problem (if not None)."""
    if problem:
        raise _argument_error(problem)
    return value


def positive_int(text):
    """A count of at least 1 (ASCII digits)."""
    value = parse_uint(text)
    if value is None:
        raise _argument_error("invalid count %r: not an integer" % text)
    if value < 1:
        raise _argument_error("invalid count %r: must be >= 1" % text)
    return value


def positive_seconds(text):
    value = parse_seconds(text)
    if value is None:
        raise _argument_error("invalid timeout %r: not a number" % text)
    if not value > 0:
        raise _argument_error("invalid timeout %r: must be > 0" % text)
    if value > MAX_TIMEOUT_S:
        raise _argument_error("invalid timeout %r: must be at most %d (a week)"
                              % (text, MAX_TIMEOUT_S))
    return value


def arch_arg(text):
    """An architecture memboot boots on (arch/NAME/arch.mk with NAME_PORT):
    only x86_64 until the ports come; another is refused by name."""
    from mbtools import facts
    try:
        problem = facts.arch_problem(text, facts.architectures())
    except facts.FactsError as e:
        problem = str(e)
    return _accepted(text, problem and "%s: %s" % (text, problem))


def size_arg(text):
    return _accepted(*size_problem(text))


def size_text_arg(text):
    """A node memory size, checked, kept as the text the user wrote."""
    size_arg(text)
    return text.strip()


def input_file(text):
    """A regular, readable file (a console log, a bench JSON...)."""
    return _accepted(text, regular_file_problem(text, "file"))


def output_file(text):
    """A file that can be written: its directory exists and is writable."""
    return _accepted(text, output_problem(text))


def output_with_extension(*extensions):
    """An output_file() type whose name must end in one of @extensions."""
    def check(text):
        if not text.lower().endswith(tuple("." + e for e in extensions)):
            raise _argument_error(
                "%s: unsupported output format %r (use %s)"
                % (text, os.path.splitext(text)[1] or "no extension",
                   ", ".join("." + e for e in extensions)))
        return output_file(text)
    return check


def output_prefix(text):
    """A path prefix files PREFIX-NAME.EXT are written beside."""
    problem = output_problem(text + "-x")
    if problem:
        raise _argument_error(problem.replace(text + "-x", text + "-*"))
    return text


def linux_kernel(text):
    """A Linux kernel of a kind compare-linux boots (an x86 bzImage, an
    arm64 Image or a ppc64le vmlinux ELF); which one --arch needs is checked
    once both are known."""
    problem = bzimage_problem(text)
    if problem and (image_problem(text) is None or ppc64le_elf_problem(text) is None):
        problem = None
    return _accepted(text, problem)
