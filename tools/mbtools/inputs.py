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


def _head(path, offset, length):
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read(length)


def regular_file_problem(path, what):
    """None if path is a readable regular file, else why not."""
    try:
        st = os.stat(path)
    except OSError as e:
        return "%s %s: %s" % (what, path, e.strerror)
    if not stat.S_ISREG(st.st_mode):
        return "%s %s is not a regular file" % (what, path)
    if not os.access(path, os.R_OK):
        return "%s %s is not readable" % (what, path)
    return None


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
    return _accepted(text, bzimage_problem(text))
