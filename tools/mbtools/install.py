"""memboot install / uninstall: memboot as a menu entry of a machine's own
GRUB (Debian/Ubuntu layout: /boot/grub/grub.cfg written by grub-mkconfig from
the scripts of /etc/grub.d), so that the next boot can be memboot's without a
stick or anyone at the console.

  install    copies the kernel to /boot/memboot/memboot.elf, writes the
             script /etc/grub.d/42_memboot (it prints memboot's menu entry),
             regenerates grub.cfg, and with --once sets grubenv's next_entry
             to the entry's id, as grub-reboot does: the grub.cfg header that
             grub-mkconfig writes boots next_entry once and clears it.
  uninstall  clears next_entry if it names memboot, removes the script and
             the kernel, and regenerates grub.cfg.

The entry is never the default: it sorts after 40_custom and 41_custom, so a
numeric GRUB_DEFAULT still counts the same entries, and nothing else in
grub.cfg changes.

With --root DIR every path is under DIR (a mounted image or a tree that
stands for one). grub-mkconfig cannot run there (it probes the running
machine's devices), so grub.cfg under DIR is edited instead: the entry goes
between the same "### BEGIN /etc/grub.d/42_memboot ###" / "### END ..."
lines grub-mkconfig puts around a script's output, at the end of the file,
and the script stays for the next update-grub run inside DIR. The entry
itself finds the kernel from GRUB's $prefix, so it needs no device probed
at install time.

Every file is written to a temporary name beside it and renamed; the new
grub.cfg is checked with grub-script-check before it replaces the old one.
A failure undoes what was done (status 69, EXIT_GRUB_FAILED); a refusal
before anything is touched exits 64. Standard library only.
"""

import argparse
import contextlib
import os
import re
import shlex
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile

from mbtools import bootnext, facts, inputs, secureboot

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_ELF = os.path.join(REPO_ROOT, "build", "debug", "memboot.elf")
DEFAULT_LOADER = os.path.join(REPO_ROOT, "build", "debug", "efi", "BOOTX64.EFI")

# The machines install puts memboot on. elf_machine: the kernel's ELF
# machine; platforms: GRUB's directories for it, which grub-install copies
# into /boot/grub/ (they tell a root's architecture); uname: os.uname()'s
# machine of a running one; multiboot2: whether GRUB loads the kernel itself
# (x86_64) or chainloads memboot's UEFI loader from the EFI system
# partition (arm64: GRUB has no multiboot2 there); elf and loader: this
# tree's build (make ARCH=NAME).
ARCHES = {
    "x86_64": {"elf_machine": 62, "machine_name": "x86-64",
               "platforms": ("x86_64-efi", "i386-pc"), "uname": "x86_64", "multiboot2": True},
    "arm64": {"elf_machine": 183, "machine_name": "AArch64", "platforms": ("arm64-efi",),
              "uname": "aarch64", "multiboot2": False,
              "elf": os.path.join(REPO_ROOT, "build", "arm64", "debug", "memboot.elf"),
              "loader": os.path.join(REPO_ROOT, "build", "arm64", "debug", "efi",
                                     "BOOTAA64.EFI")},
}


def default_elf(arch):
    return DEFAULT_ELF if arch == "x86_64" else ARCHES[arch]["elf"]


def default_loader(arch):
    return DEFAULT_LOADER if arch == "x86_64" else ARCHES[arch]["loader"]

ENTRY_ID = "memboot"
ENTRY_TITLE = "memboot: memory bring-up test"
SCRIPT_NAME = "42_memboot"
KERNEL_DIR = "boot/memboot"          # relative to the root
KERNEL_NAME = "memboot.elf"
GRUB_DIR = "boot/grub"
GRUB_D = "etc/grub.d"
DEFAULT_EXIT = "memboot.exit=reboot"
BLOCK_BEGIN = "### BEGIN /etc/grub.d/%s ###" % SCRIPT_NAME
BLOCK_END = "### END /etc/grub.d/%s ###" % SCRIPT_NAME
# Filesystems and device layers GRUB reads but never writes: its save_env
# would fail, next_entry would stay set and every boot would be memboot's
# (GRUB manual, "Environment block").
NO_SAVE_ENV_FS = ("btrfs", "zfs")
NO_SAVE_ENV_ABSTRACTION = ("lvm", "raid", "mdraid", "cryptodisk", "luks", "luks2", "geli")

EXIT_USAGE = facts.EXIT_USAGE
EXIT_GRUB_FAILED = facts.EXIT_GRUB_FAILED


class Refused(Exception):
    """The machine or the options are not what install can work on;
    nothing was changed (exit 64)."""


class Failed(Exception):
    """A step failed after work began; what was done is undone (exit 69)."""


# ---------------------------------------------------------------------------
# What is written
# ---------------------------------------------------------------------------

def grub_word(word):
    """@word quoted for GRUB's script lexer: single quotes keep everything
    literal, and a quote itself is closed, escaped and reopened."""
    if re.fullmatch(r"[A-Za-z0-9_./:=,+@%-]+", word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def menu_entry(words, kernel_dir="/memboot", more="", prologue="", command="multiboot2",
               name=KERNEL_NAME):
    """memboot's menu entry as GRUB reads it. The kernel lies beside GRUB's
    own directory: $prefix is (DEVICE)DIR/grub with DIR /boot when /boot is
    part of the root filesystem, empty when /boot is a filesystem of its own
    (or a TFTP tree's boot/grub), so the entry needs no device named at
    install time. @kernel_dir is the kernel's directory relative to DIR;
    @more is GRUB script text put after the words as it is (netboot's
    $memboot_args, which GRUB splits into words); @prologue is GRUB script
    run first (secureboot.fallback_lines()); @command and @name are what
    loads what from @kernel_dir (netboot's arm64 tree: chainloader and the
    network loader)."""
    args = " ".join([grub_word(w) for w in words] + ([more] if more else []))
    return "menuentry '%s' --id %s {\n" % (ENTRY_TITLE, ENTRY_ID) + prologue + (
        "\tinsmod all_video\n"
        "\tinsmod regexp\n"
        "\tif regexp --set 1:mb_dev --set 2:mb_dir '^\\((.*)\\)(.*)/grub$' \"$prefix\"; then\n"
        "\t\tset root=\"$mb_dev\"\n"
        "\telse\n"
        "\t\tset mb_dir=/boot\n"
        "\tfi\n"
        "\techo 'Loading memboot ...'\n"
        "\t%s \"${mb_dir}%s/%s\"%s\n"
        "\tboot\n"
        "}\n" % (command, kernel_dir, name, " " + args if args else ""))


def grub_d_script(words, made_grubenv=False, entry=None):
    """/etc/grub.d/42_memboot: prints the entry (@entry, or the multiboot2
    one of @words) for grub-mkconfig while the kernel is there.
    @made_grubenv: install --once created grubenv, which a comment line says
    for uninstall (MADE_GRUBENV)."""
    return (
        "#!/bin/sh\n"
        "# Written by memboot's tools/memboot install; removed by tools/memboot uninstall.\n"
        "# Prints memboot's menu entry. It is never the default: install --once\n"
        "# picks it for one boot through grubenv's next_entry.\n"
        "%s"
        "set -e\n"
        "[ -f /%s/%s ] || exit 0\n"
        "cat <<'MEMBOOT_ENTRY'\n"
        "%s"
        "MEMBOOT_ENTRY\n" % (MADE_GRUBENV + "\n" if made_grubenv else "", KERNEL_DIR,
                             KERNEL_NAME, entry or menu_entry(words)))


# ---------------------------------------------------------------------------
# grub.cfg as text: lines, markers, menu entries, the default
# ---------------------------------------------------------------------------
#
# grub.cfg is edited as the bytes it is (decoded with surrogate escapes, no
# newline translation): CRLF lines stay CRLF, a missing final newline stays
# missing, and install then uninstall gives back the same bytes.

MARKER_RE = re.compile(r"### (BEGIN|END) (.+) ###")
MEMBOOT_SCRIPT_PATH = "/etc/grub.d/" + SCRIPT_NAME
MARKER_RULE = ("; install and uninstall edit grub.cfg only where it holds one well-formed pair "
               "of memboot's markers outside any other script's block, or none: fix the file "
               "by hand, or regenerate it (update-grub)")


def split_lines(text):
    """@text's lines, each with its "\n" (the last one without, if the
    text does not end with one). Only "\n" ends a line, as for GRUB."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def line_body(line):
    """A line without its ending ("\n" or "\r\n")."""
    line = line[:-1] if line.endswith("\n") else line
    return line[:-1] if line.endswith("\r") else line


def newline_of(text):
    """The line ending @text uses (its first line's): "\r\n" or "\n"."""
    i = text.find("\n")
    return "\r\n" if i > 0 and text[i - 1] == "\r" else "\n"


def find_block(text, where, planned=False):
    """(first line, last line) (0-based) of memboot's block in grub.cfg
    text, or None without one. Refused (naming the line) unless memboot's
    markers are one well-formed pair outside any other script's block, or
    none. @planned: the text is the one install would write."""
    lines = [line_body(l) for l in split_lines(text)]

    def refuse(i, why):
        raise Refused("%s, line %d: %s%s" % (where, i + 1, why, MARKER_RULE))

    last_end = {}
    for i, body in enumerate(lines):
        m = MARKER_RE.fullmatch(body)
        if m and m.group(1) == "END":
            last_end[m.group(2)] = i

    def closes_later(i, name):
        return last_end.get(name, -1) > i

    open_other = []                 # [(script, line)] of BEGINs, in order
    open_by_name = {}               # script: [its BEGINs' places in open_other]
    ended = set()                   # places in open_other whose END came
    begin = None
    block = None
    for i, body in enumerate(lines):
        m = MARKER_RE.fullmatch(body)
        if not m:
            if MEMBOOT_SCRIPT_PATH in body and MARKER_RE.fullmatch(body.strip()):
                refuse(i, "a damaged memboot marker %r (grub-mkconfig writes %r)"
                       % (body, BLOCK_BEGIN if "BEGIN" in body else BLOCK_END))
            continue
        kind, name = m.groups()
        if name == MEMBOOT_SCRIPT_PATH and kind == "BEGIN":
            if begin is not None:
                refuse(i, "memboot's BEGIN marker inside memboot's block (its BEGIN at "
                          "line %d)" % (begin + 1))
            if block is not None:
                refuse(i, "a second pair of memboot's markers (the first begins at line %d)"
                       % (block[0] + 1))
            if not closes_later(i, name):
                refuse(i, "memboot's BEGIN marker has no END marker after it")
            while open_other and len(open_other) - 1 in ended:
                ended.discard(len(open_other) - 1)
                open_other.pop()
            if open_other:
                other, at = open_other[-1]
                refuse(i, "memboot's block %s inside %s's block (its BEGIN at line %d%s)"
                       % ("would be" if planned else "is", other, at + 1,
                          "" if closes_later(i, other) else ", no END"))
            begin = i
        elif name == MEMBOOT_SCRIPT_PATH:
            if begin is None:
                refuse(i, "memboot's END marker has no BEGIN marker before it")
            block, begin = (begin, i), None
        elif begin is not None:
            refuse(i, "%s's marker inside memboot's block (its BEGIN at line %d)"
                   % (name, begin + 1))
        elif kind == "BEGIN":
            open_by_name.setdefault(name, []).append(len(open_other))
            open_other.append((name, i))
        elif open_by_name.get(name):
            ended.add(open_by_name[name].pop())
    return block


def remove_block(text, block):
    """@text without memboot's block @block (find_block()) and the empty
    line before it, as add_block() put them there."""
    lines = split_lines(text)
    first, last = block
    nl = "\r\n" if lines[first].endswith("\r\n") else "\n"
    start = first - 1 if first > 0 and lines[first - 1] in ("\n", "\r\n") else first
    head, tail = lines[:start], lines[last + 1:]
    if not tail and not lines[last].endswith("\n") and head and head[-1].endswith(nl):
        # add_block() ended the file's last line itself: it had no newline.
        head[-1] = head[-1][:-len(nl)]
    return "".join(head + tail)


def add_block(text, entry):
    """@text (without memboot's block) with the block holding @entry at its
    end, after an empty line as grub-mkconfig writes one, in the file's own
    line endings; a file without a final newline ends without one again."""
    nl = newline_of(text)
    block = ("%s\n%s%s\n" % (BLOCK_BEGIN, entry, BLOCK_END)).replace("\n", nl)
    if not text or text.endswith("\n"):
        return text + nl + block
    return text + nl + nl + block[:-len(nl)]


def splice_block(cfg, entry, where="grub.cfg"):
    """grub.cfg text with memboot's block replaced by one holding @entry,
    or (@entry None) removed."""
    block = find_block(cfg, where)
    if block is not None:
        cfg = remove_block(cfg, block)
    return cfg if entry is None else add_block(cfg, entry)


def grub_code(text):
    """[(line number, code, depth)] of GRUB script @text: each line with its
    comment left out (a '#' that begins a word outside quotes), and the
    brace depth (menu entries, functions) it starts at; a brace counts only
    as a word of its own outside quotes, as GRUB's lexer reads it."""
    out = []
    quote = None
    depth = 0
    for n, line in enumerate(split_lines(text), 1):
        body = line_body(line)
        code = []
        start_depth = depth
        word_start = quote is None
        i = 0
        while i < len(body):
            c = body[i]
            if c == "\\" and quote != "'":
                code.append(body[i:i + 2])
                i += 2
                word_start = False
                continue
            if quote:
                if c == quote:
                    quote = None
            elif c in "'\"":
                quote = c
            elif c == "#" and word_start:
                break
            elif c in "{}" and word_start and body[i + 1:i + 2] in ("", " ", "\t", ";"):
                depth = depth + 1 if c == "{" else max(0, depth - 1)
            code.append(c)
            word_start = quote is None and c in " \t;"
            i += 1
        out.append((n, "".join(code), start_depth))
    return out


def unquote(word):
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
        return word[1:-1]
    return word


ENTRY_RE = re.compile(r"\s*(menuentry|submenu)\s+('[^']*'|\"[^\"]*\"|\S+)(.*)")
ID_RE = re.compile(r"(?:--id|\$menuentry_id_option|\$\{menuentry_id_option\})\s+"
                   r"('[^']*'|\"[^\"]*\"|\S+)")
DEFAULT_RE = re.compile(r"(?:^|[\s;])((?:set\s+)?default=('[^']*'|\"[^\"]*\"|[^\s;]*))")


def menu_entries(text, code=None):
    """[(line, title, id)] of the menu entries and submenus at grub.cfg's
    top level, in menu order (what a numeric default counts). @code:
    grub_code(text), if made already."""
    entries = []
    for n, code, depth in code or grub_code(text):
        m = ENTRY_RE.match(code)
        if m and depth == 0:
            i = ID_RE.search(m.group(3))
            entries.append((n, unquote(m.group(2)), unquote(i.group(1)) if i else None))
    return entries


def default_problem(text, grubenv_vars):
    """Why memboot's entry would be grub.cfg's default (GRUB picks it with
    no one at the console), or None. Each `set default=` is read as GRUB
    reads it: a number counts top-level entries from 0 (a submenu path
    "1>2" by its first number), anything else names an entry's id or title;
    one GRUB finds no entry for falls back to entry 0. ${next_entry} is the
    one-shot boot (--once) and ${saved_entry} is grubenv's. Only the top
    level counts: a `set default=` inside an entry (memboot's own sets the
    machine's default back, secureboot.fallback_lines()) or a function runs
    when they do, not when GRUB picks the entry to boot."""
    lines = grub_code(text)
    entries = menu_entries(text, lines)
    mine = next((k for k, (_, title, ident) in enumerate(entries)
                 if ident == ENTRY_ID or title == ENTRY_TITLE), None)
    if mine is None:
        return None
    for n, code, depth in lines:
        if depth:
            continue    # inside an entry or a function: it runs when they do, not at the menu
        for m in DEFAULT_RE.finditer(code):
            value = unquote(m.group(2))
            if "$" in value:
                name = value.strip("${}")
                if name != "saved_entry" or not grubenv_vars.get("saved_entry"):
                    continue
                value = grubenv_vars["saved_entry"]
            first = value.split(">")[0]
            if re.fullmatch(r"[0-9]+", first, re.ASCII):
                k = int(first) if int(first) < len(entries) else 0
            else:
                k = next((j for j, (_, title, ident) in enumerate(entries)
                          if first in (title, ident)), 0)
            if k == mine:
                return ("memboot's entry would be grub.cfg's default (%s on line %d picks "
                        "entry %d, and memboot's would be entry %d%s)"
                        % (m.group(1), n, k, mine, ", the only one" if len(entries) == 1
                           else ""))
    if mine == 0:
        return ("memboot's entry would be grub.cfg's default: it would be the first menu "
                "entry (line %d), the one GRUB falls back to" % entries[0][0])
    return None


def once_problem(text):
    """Why grub.cfg @text would not boot grubenv's next_entry once (it must
    load grubenv, take next_entry as the default and clear it, as
    grub-mkconfig's header does, in code rather than comments), or None."""
    code = " ".join(c for _, c, _ in grub_code(text))
    if not re.search(r"\bload_env\b", code) or not re.search(
            r"default=[\"']?\$\{?next_entry\b", code):
        return ("never reads grubenv's next_entry (no load_env and set "
                "default=\"${next_entry}\" outside comments; it was not written by "
                "grub-mkconfig), so the one-shot boot would not happen")
    if not re.search(r"\bsave_env\s+(?:\S+\s+)*next_entry\b", code):
        return ("reads grubenv's next_entry but never clears it (save_env next_entry): "
                "every boot would be memboot's")
    return None


def parse_grubenv(text):
    """{name: value} of a grubenv block (grub-editenv list's lines, or the
    file itself: '# GRUB Environment Block' then NAME=VALUE lines, '#' fill)."""
    env = {}
    for line in text.splitlines():
        if line.startswith("#") or "=" not in line:
            continue
        name, value = line.split("=", 1)
        env[name] = value
    return env


# ---------------------------------------------------------------------------
# The kernel and its words
# ---------------------------------------------------------------------------

# The ELF note memboot's kernel carries (the 64-bit entry the UEFI loader
# reads; HANDOFF_NOTE_NAME and HANDOFF_NOTE_ENTRY64 of the kernel's handoff
# header: tests/tools/test_install.py checks they agree).
KERNEL_NOTE_NAME = "memboot"
KERNEL_NOTE_TYPE = 0x6d620001
# Multiboot2 (spec 3.1.1): a header of magic, architecture, length and
# checksum, 8-byte aligned within the image's first 32768 bytes.
MB2_HEADER_MAGIC = 0xE85250D6
MB2_SEARCH_BYTES = 32768
# More than any memboot kernel (a debug build is a few MiB).
MAX_KERNEL_BYTES = 256 << 20
MAX_NOTE_BYTES = 1 << 16
# More than any grub.cfg grub-mkconfig writes (a few hundred KiB with many
# kernels and other systems): the file is read whole and scanned.
MAX_CFG_BYTES = 4 << 20
ELF_TYPES = {0: "none", 1: "relocatable", 2: "executable", 3: "shared object", 4: "core"}
# The kernel keeps BOOTINFO_CMDLINE_BYTES - 1 bytes of its command line and
# drops the words past them (docs/cmdline.md; checked against the kernel's
# header by tests/tools/test_install.py).
CMDLINE_KEEP_BYTES = 2047
# GRUB's multiboot2 command passes each word to the kernel with a backslash
# before each of these (grub_create_loader_cmdline()); memboot's command
# line reads '"' as a quote and keeps the backslashes.
GRUB_ESCAPED = "\\'\""


def kernel_problem(path, arch="x86_64"):
    """None if @path is a memboot kernel for @arch that GRUB's multiboot2
    (x86_64) or memboot's UEFI loader (arm64) can load, else why not. Only
    its headers are read (never the whole file): the ELF header (64-bit,
    little-endian, the architecture's machine, an executable), every
    program and section header inside the file (a truncated copy is
    named), memboot's ELF note and, for multiboot2, a Multiboot2 header in
    the first 32 KiB."""
    problem = inputs.regular_file_problem(path, "kernel")
    if problem:
        return problem
    try:
        with inputs.open_input(path, "kernel", MAX_KERNEL_BYTES) as f:
            fd = f.fileno()
            size = os.fstat(fd).st_size
            head = os.pread(fd, MB2_SEARCH_BYTES, 0)
            problem = _elf_problem(fd, size, head, ARCHES[arch])
    except inputs.InputError as e:
        return str(e)
    except OSError as e:
        return "cannot read kernel %s: %s" % (path, inputs.os_error_text(e))
    return "%s %s" % (path, problem) if problem else None


def _elf_problem(fd, size, head, arch):
    if len(head) < 64 or head[:4] != b"\x7fELF":
        return "is not an ELF file"
    if head[4] != 2 or head[5] != 1:
        return ("is not a memboot kernel: not a 64-bit little-endian ELF (class %d, data %d)"
                % (head[4], head[5]))
    (e_type, e_machine, _, _, e_phoff, e_shoff, _, _, e_phentsize, e_phnum, e_shentsize,
     e_shnum, _) = struct.unpack_from("<HHIQQQIHHHHHH", head, 16)
    if e_type != 2:
        return ("is not a memboot kernel: an ELF of type %d (%s), not an executable"
                % (e_type, ELF_TYPES.get(e_type, "unknown")))
    if e_machine != arch["elf_machine"]:
        return "is not a memboot kernel: an ELF for machine %d, not %s (%d)%s" % (
            e_machine, arch["machine_name"], arch["elf_machine"], next(
                (": %s's kernel" % name for name, a in ARCHES.items()
                 if a["elf_machine"] == e_machine), ""))
    if e_phentsize != 56 or not 0 < e_phnum <= 64:
        return ("is not a memboot kernel: %d program headers of %d bytes (an %s "
                "executable has 1 to 64 of 56)" % (e_phnum, e_phentsize, arch["machine_name"]))
    for what, end in (("program headers", e_phoff + e_phnum * 56),
                      ("section headers", e_shoff + e_shnum * e_shentsize if e_shoff else 0)):
        if end > size:
            return "is truncated: its %s end at byte %d, the file has %d bytes" % (
                what, end, size)
    table = os.pread(fd, e_phnum * 56, e_phoff)
    notes = []
    for k in range(e_phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", table, k * 56)
        if p_offset + p_filesz > size:
            return ("is truncated: its program header %d ends at byte %d, the file has %d "
                    "bytes" % (k + 1, p_offset + p_filesz, size))
        if p_type == 4:
            notes.append((p_offset, min(p_filesz, MAX_NOTE_BYTES)))
    if not any(_has_memboot_note(os.pread(fd, n, off)) for off, n in notes):
        return ("has no memboot ELF note (name \"%s\", type 0x%08x, which memboot's kernel "
                "carries): it is not a memboot kernel" % (KERNEL_NOTE_NAME, KERNEL_NOTE_TYPE))
    if not arch["multiboot2"]:
        return None
    for off in range(0, len(head) - 15, 8):
        magic, arch, length, checksum = struct.unpack_from("<IIII", head, off)
        if magic == MB2_HEADER_MAGIC and (magic + arch + length + checksum) & 0xFFFFFFFF == 0:
            return None
    return ("has no Multiboot2 header in its first %d KiB: GRUB's multiboot2 command cannot "
            "load it" % (MB2_SEARCH_BYTES >> 10))


def _has_memboot_note(data):
    off = 0
    while off + 12 <= len(data):
        namesz, descsz, n_type = struct.unpack_from("<III", data, off)
        name = data[off + 12:off + 12 + namesz].rstrip(b"\0")
        if n_type == KERNEL_NOTE_TYPE and name == KERNEL_NOTE_NAME.encode():
            return True
        off += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
    return False


def grub_passed(word):
    """@word as GRUB's multiboot2 hands it to the kernel."""
    return "".join("\\" + c if c in GRUB_ESCAPED else c for c in word)


def words_problem(words, what="--append"):
    """Why @words (the whole command line of memboot's entry) cannot go to
    the kernel through GRUB as they are, or None: a word GRUB would change
    (a backslash before each \, ' and "), and above all one with an
    unbalanced " (the kernel would read the rest of the line as one quoted
    word, memboot.exit=reboot included); or more than the kernel keeps."""
    for k, word in enumerate(words):
        if not any(c in word for c in GRUB_ESCAPED):
            continue
        if word.count('"') % 2:
            later = words[k + 1:]
            return ("%s word %r has an unbalanced \": GRUB's multiboot2 passes it as %r (a "
                    "backslash before each \\, ' and \"), and memboot reads \" as the start "
                    "of a quoted part that runs to the end of the line, so it would swallow "
                    "%s" % (what, word, grub_passed(word),
                            "every later word, %s included" % later[-1] if later
                            else "the word's end"))
        return ("%s word %r: GRUB puts a backslash before each \\, ' and \" of a word it "
                "passes to a Multiboot2 kernel, so memboot would see %r; leave them out "
                "(memboot's keys and values never need them)"
                % (what, word, grub_passed(word)))
    length = len(" ".join(grub_passed(w) for w in words).encode("utf-8", "surrogateescape"))
    if length > CMDLINE_KEEP_BYTES:
        return ("%s: the command line would be %d bytes as GRUB passes it; the kernel keeps "
                "%d bytes of its command line and drops the words past them, %s among them"
                % (what, length, CMDLINE_KEEP_BYTES, words[-1]))
    return None


# ---------------------------------------------------------------------------
# The machine
# ---------------------------------------------------------------------------

class Layout:
    """The paths of one root ('/' or --root DIR)."""

    def __init__(self, root):
        self.root = root
        self.host = root is None
        # MEMBOOT_HOST_ROOT: where '/' is for the running-machine path
        # (update-grub, grub-probe), so tests can run it on a tree.
        base = root or os.environ.get("MEMBOOT_HOST_ROOT") or "/"
        self.base = base
        self.boot = os.path.join(base, "boot")
        self.kernel_dir = os.path.join(base, KERNEL_DIR)
        self.kernel = os.path.join(self.kernel_dir, KERNEL_NAME)
        self.grub_dir = os.path.join(base, GRUB_DIR)
        self.grub_cfg = os.path.join(self.grub_dir, "grub.cfg")
        self.grubenv = os.path.join(self.grub_dir, "grubenv")
        self.grub_d = os.path.join(base, GRUB_D)
        self.script = os.path.join(self.grub_d, SCRIPT_NAME)

    def real(self, path):
        """@path with its links resolved, inside the root; else Refused."""
        try:
            return inputs.inside_root(self.base, path)
        except inputs.InputError as e:
            raise Refused(str(e)) from None

    def read(self, path, what, max_bytes=inputs.MAX_INPUT_BYTES):
        """The bytes of @path under the file rule, inside the root."""
        try:
            return inputs.read_input(path, what, max_bytes, root=self.base)
        except inputs.InputError as e:
            raise Refused(str(e)) from None

    def read_text(self, path, what, max_bytes=inputs.MAX_INPUT_BYTES):
        return self.read(path, what, max_bytes).decode("utf-8", "surrogateescape")

    def check_inside(self):
        """Every path install and uninstall read or write leads to a place
        inside the root (Refused if not)."""
        for path in (self.boot, self.kernel_dir, self.kernel, self.grub_dir, self.grub_cfg,
                     self.grubenv, self.grub_d, self.script):
            self.real(path)


def which(name):
    """A GRUB program: $MEMBOOT_GRUB_BIN/NAME if set (tests), else PATH
    and the sbin directories (grub-mkconfig lives in /usr/sbin)."""
    override = os.environ.get("MEMBOOT_GRUB_BIN")
    if override:
        path = os.path.join(override, name)
        return path if os.access(path, os.X_OK) else None
    return shutil.which(name, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")


def writable_problem(folder):
    """None if a file can be created in @folder (tried, not guessed: root
    ignores permission bits, not a read-only mount or an immutable dir)."""
    try:
        fd, probe = tempfile.mkstemp(prefix=PROBE_PREFIX, dir=folder)
    except OSError as e:
        return "cannot write in %s: %s" % (folder, e.strerror)
    os.close(fd)
    os.unlink(probe)
    return None


def check_layout(lay, need_tools):
    """Refuse (Refused) a root that is not a Debian-style GRUB layout."""
    if not os.path.isdir(lay.base):
        raise Refused("--root %s is not a directory" % lay.base)
    lay.check_inside()
    if not os.path.isdir(lay.boot):
        raise Refused("no %s: not a Linux root filesystem" % lay.boot)
    if not os.path.isdir(lay.grub_dir):
        if os.path.isdir(os.path.join(lay.boot, "grub2")):
            raise Refused("%s/grub2 is a GRUB layout (Fedora, RHEL, SUSE) install does not "
                          "know; only Debian/Ubuntu's /boot/grub with /etc/grub.d is supported"
                          % lay.boot)
        raise Refused("GRUB is missing: no %s" % lay.grub_dir)
    if not os.path.lexists(lay.grub_cfg):
        raise Refused("GRUB is missing: no %s (GRUB not installed or never configured)"
                      % lay.grub_cfg)
    problem = inputs.regular_file_problem(lay.real(lay.grub_cfg), "grub.cfg")
    if problem:
        raise Refused(problem)
    if not os.path.isdir(lay.grub_d):
        raise Refused("no %s: grub.cfg is not generated by grub-mkconfig here, a layout "
                      "install does not know" % lay.grub_d)
    if os.path.lexists(lay.kernel_dir) and not os.path.isdir(lay.kernel_dir):
        raise Refused("%s exists and is not a directory" % lay.kernel_dir)
    for path in (lay.script, lay.kernel):
        problem = inputs.lstat_problem(path)
        if problem:
            raise Refused(problem + ": install writes, and uninstall removes, only the "
                                    "regular file install makes; move it away first")
    missing = [t for t in need_tools if which(t) is None]
    if missing:
        raise Refused("GRUB's tools are missing: %s not found (Debian package grub-common)"
                      % ", ".join(missing))
    if lay.host and which("update-grub") is None and which("grub-mkconfig") is None:
        raise Refused("neither update-grub nor grub-mkconfig found: cannot regenerate %s"
                      % lay.grub_cfg)


def check_save_env(lay, layer_fs=None):
    """--once on the running machine: GRUB must be able to clear next_entry
    again, or memboot would boot (and reboot) forever."""
    probe = which("grub-probe")
    if probe is None:
        return
    found = []
    for target in ("fs", "abstraction"):
        try:
            out = subprocess.run([probe, "--target=" + target, lay.grub_dir],
                                 capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.returncode == 0:
            found += out.stdout.split()
    bad = [w for w in found if w in NO_SAVE_ENV_FS or w in NO_SAVE_ENV_ABSTRACTION]
    if bad:
        raise Refused("--once: %s is on %s, where GRUB cannot write grubenv; next_entry "
                      "would never be cleared and every boot would be memboot's"
                      % (lay.grub_dir, " and ".join(bad)))


# /etc/default/grub is shell, sourced by grub-mkconfig (then
# /etc/default/grub.d/*.cfg) under `set -e`: it is read the same way, by a
# shell with an empty environment, for at most this long.
SHELL_TIMEOUT_S = 5
SHELL_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
SOURCE_SCRIPT = ('set -e; for f do . "$f"; done </dev/null >/dev/null 2>&1; '
                 'printf "%s:%s" "${GRUB_DEFAULT+set}" "${GRUB_DEFAULT-}"')


def default_files(lay):
    """The files grub-mkconfig sources for its settings, in its order."""
    files = []
    main = os.path.join(lay.base, "etc", "default", "grub")
    if os.path.lexists(main):
        files.append(main)
    d = os.path.join(lay.base, "etc", "default", "grub.d")
    if os.path.isdir(lay.real(d)):
        files += sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".cfg"))
    return files


def _run_shell(argv, what):
    """(status, stdout) of a shell run with an empty environment, in a
    session of its own so that nothing it started outlives it; Refused when
    it does not finish in SHELL_TIMEOUT_S."""
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env={"PATH": SHELL_PATH}, cwd="/",
                                start_new_session=True)
    except OSError as e:
        raise Refused("cannot run sh to read %s: %s" % (what, e.strerror)) from None
    try:
        out, err = proc.communicate(timeout=SHELL_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        out = err = None
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
    if out is None:
        raise Refused("sourcing %s did not finish in %d s: grub-mkconfig, which sources it, "
                      "would not finish either" % (what, SHELL_TIMEOUT_S))
    return proc.returncode, out.decode("utf-8", "surrogateescape"), \
        err.decode("utf-8", "replace").strip()


def grub_default(lay):
    """GRUB_DEFAULT as grub-mkconfig sees it, from /etc/default/grub and
    /etc/default/grub.d/*.cfg sourced by a shell as it sources them (so
    comments, quotes, export, ';' and variables count as the shell counts
    them), or None when they leave it unset."""
    files = default_files(lay)
    if not files:
        return None
    real = []
    for f in files:
        lay.read(f, "GRUB settings file", 1 << 20)      # regular, inside the root
        real.append(lay.real(f))
        status, _, err = _run_shell(["sh", "-n", real[-1]], f)
        if status != 0:
            raise Refused("%s: the shell cannot read it (%s); grub-mkconfig, which sources "
                          "it, would fail too" % (f, " / ".join(err.splitlines()[-3:])))
    status, out, _ = _run_shell(["sh", "-c", SOURCE_SCRIPT, "sh"] + real, " and ".join(files))
    if status != 0 or ":" not in out:
        raise Refused("sourcing %s as grub-mkconfig does (sh, set -e) ended with status %d "
                      "before GRUB_DEFAULT could be read: grub-mkconfig would fail too"
                      % (" and ".join(files), status))
    is_set, value = out.split(":", 1)
    return value if is_set else None


# What grub-mkconfig leaves out of /etc/grub.d (grub-mkconfig_lib's
# grub_file_is_not_garbage, and editors' backup files).
GARBAGE_RE = re.compile(r".*~|#.*#|.*\.dpkg-.*|.*\.rpmsave|.*\.rpmnew|README.*|.*\.sig",
                        re.S)


def later_scripts(lay):
    """The scripts grub-mkconfig runs after 42_memboot: every executable
    regular file of /etc/grub.d it does not skip, sorting after it in the
    shell's glob order (byte order, or a UTF-8 locale's, which ignores
    punctuation and case: either counts)."""
    def loose(name):
        return re.sub(r"[^0-9a-z]", "", name.lower())
    later = []
    for name in sorted(os.listdir(lay.grub_d)):
        if name == SCRIPT_NAME or GARBAGE_RE.fullmatch(name):
            continue
        if name <= SCRIPT_NAME and loose(name) <= loose(SCRIPT_NAME):
            continue
        path = os.path.join(lay.grub_d, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            later.append(name)
    return later


def check_default_kept(lay):
    """A numeric GRUB_DEFAULT counts menu entries: memboot's entry must not
    come before the one it names. Only scripts sorting after 42_memboot can
    put entries after it."""
    value = grub_default(lay)
    first = (value or "").split(">")[0].strip()
    if not re.fullmatch(r"[0-9]+", first, re.ASCII) or int(first) == 0:
        return
    later = later_scripts(lay)
    if later:
        raise Refused("GRUB_DEFAULT=%s counts menu entries, and %s come after memboot's "
                      "entry (%s): the default would become another entry; set GRUB_DEFAULT "
                      "to an entry's id or title, or to saved" % (
                          value, ", ".join("/etc/grub.d/" + n for n in later), SCRIPT_NAME))


GRUBENV_SIGNATURE = b"# GRUB Environment Block\n"


def grubenv_entries(lay):
    """grubenv's variables, {} when there is none; Refused when it is not a
    regular file inside the root or not a GRUB environment block."""
    if not os.path.lexists(lay.grubenv):
        return {}
    data = lay.read(lay.grubenv, "GRUB environment block", 1 << 20)
    if not data.startswith(GRUBENV_SIGNATURE):
        raise Refused("%s is not a GRUB environment block (it does not begin with \"# GRUB "
                      "Environment Block\"): GRUB and grub-editenv would refuse it too"
                      % lay.grubenv)
    return parse_grubenv(data.decode("utf-8", "surrogateescape"))


# Temporary files install makes beside what it writes: mkstemp's names
# (".NAME." and 8 characters) and the writability probe's. A kill leaves
# them; install and uninstall remove them.
PROBE_PREFIX = ".memboot-probe-"
TEMP_SUFFIX_RE = r"[a-z0-9_]{8}"


def leftovers(lay):
    """Temporary files of an earlier install or uninstall that was killed."""
    found = []
    for folder, name in ((lay.kernel_dir, KERNEL_NAME), (lay.grub_d, SCRIPT_NAME),
                         (lay.grub_dir, os.path.basename(lay.real(lay.grub_cfg))),
                         (lay.grub_dir, "grub.cfg")):
        if not os.path.isdir(folder):
            continue
        pattern = re.compile(r"(?:\.%s\.|%s)%s" % (re.escape(name), re.escape(PROBE_PREFIX),
                                                   TEMP_SUFFIX_RE))
        for entry in sorted(os.listdir(folder)):
            path = os.path.join(folder, entry)
            if pattern.fullmatch(entry) and path not in found and \
                    inputs.lstat_problem(path) is None:
                found.append(path)
    return found


# ---------------------------------------------------------------------------
# Steps, each with its undo
# ---------------------------------------------------------------------------

class Interrupted(Exception):
    """A signal (SIGTERM, SIGINT, SIGHUP) arrived while work was under way."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class Plan:
    """Runs (or, with dry_run, prints) steps; undo() reverts those done."""

    def __init__(self, dry_run, out=None):
        self.dry_run = dry_run
        self.out = out or sys.stdout
        self.undo_steps = []

    def say(self, text):
        print(("memboot: would " if self.dry_run else "memboot: ") + text, file=self.out)

    @staticmethod
    def _old(path, max_bytes=inputs.MAX_INPUT_BYTES):
        """(bytes, mode, uid, gid) of the regular file @path, or None."""
        if not os.path.lexists(path):
            return None
        try:
            with inputs.open_input(path, "file", max_bytes) as f:
                st = os.fstat(f.fileno())
            data = inputs.read_input(path, "file", max_bytes)
        except inputs.InputError as e:
            raise Failed(str(e)) from None
        return data, stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid

    @staticmethod
    def _put(path, data, mode, owner=None):
        """@data to @path through a temporary file beside it and a rename;
        the temporary file is gone whatever happens."""
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".",
                                   dir=os.path.dirname(path))
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            if owner is not None and os.geteuid() == 0:
                os.chown(tmp, *owner)
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        try:
            dfd = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:
            pass

    def write_file(self, path, data, mode=None, show=True, max_old=inputs.MAX_INPUT_BYTES):
        """@data (bytes) to @path (a real path, no link) through a temporary
        file and a rename. An existing file keeps its mode and owner unless
        @mode is given (new files: @mode or 0644)."""
        if self.dry_run:
            self.say("write %s (mode %04o, %d bytes)%s" % (path, mode or 0o644, len(data),
                                                           ":" if show else ""))
            if show:
                for line in data.decode("utf-8", "replace").splitlines():
                    print("    " + line, file=self.out)
            return
        old = self._old(path, max_old)
        try:
            self._put(path, data, mode or (old[1] if old else 0o644),
                      old[2:] if old else None)
        except OSError as e:
            raise Failed("cannot write %s: %s" % (path, e.strerror)) from None
        self.say("wrote %s" % path)
        self.undo_steps.append(lambda: self._restore(path, old))

    def _restore(self, path, old):
        if old is None:
            if os.path.lexists(path):
                os.unlink(path)
        else:
            self._put(path, old[0], old[1], old[2:])

    def mkdir(self, path):
        if os.path.isdir(path):
            return
        if self.dry_run:
            self.say("create directory %s" % path)
            return
        try:
            os.mkdir(path, 0o755)
        except OSError as e:
            raise Failed("cannot create %s: %s" % (path, e.strerror)) from None
        self.undo_steps.append(lambda: os.rmdir(path) if os.path.isdir(path)
                               and not os.listdir(path) else None)

    def remove(self, path, max_old=inputs.MAX_INPUT_BYTES):
        if not os.path.lexists(path):
            return
        if self.dry_run:
            self.say("remove %s" % path)
            return
        old = self._old(path, max_old)
        try:
            os.unlink(path)
        except OSError as e:
            raise Failed("cannot remove %s: %s" % (path, e.strerror)) from None
        self.say("removed %s" % path)
        self.undo_steps.append(lambda: self._restore(path, old))

    def command(self, argv, undo_argv=None, what=None):
        """Run @argv; a non-zero status fails the plan with its output."""
        if self.dry_run:
            self.say("run: %s" % shlex.join(argv))
            return
        self.say("running %s" % shlex.join(argv))
        try:
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                                  text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise Failed("%s could not run: %s" % (argv[0], getattr(e, "strerror", None) or e)) \
                from None
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
            raise Failed("%s failed (status %d)%s" % (
                what or shlex.join(argv), proc.returncode,
                ": " + " / ".join(tail) if tail else ""))
        if undo_argv:
            self.undo_steps.append(lambda: subprocess.run(undo_argv, capture_output=True))

    def undo(self):
        for step in reversed(self.undo_steps):
            try:
                step()
            except (OSError, Failed) as e:
                print("memboot: while undoing: %s" % e, file=sys.stderr)
        self.undo_steps = []


def check_cfg_text(text, label):
    """grub-script-check on @text (a whole grub.cfg); Failed on a refusal."""
    checker = which("grub-script-check")
    fd, tmp = tempfile.mkstemp(prefix="memboot-grubcfg-", suffix=".cfg")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
            f.write(text)
        proc = subprocess.run([checker, tmp], capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(tmp)
    if proc.returncode != 0:
        raise Failed("grub-script-check refuses %s: %s"
                     % (label, (proc.stderr or proc.stdout).strip().replace("\n", " / ")))


def planned_cfg(lay, entry, env):
    """(old text, new text) of grub.cfg under --root: memboot's block
    replaced by one holding @entry (None: removed). Refused, before
    anything is written, when memboot's markers are not one well-formed
    pair (or none), and when memboot's entry would be the default."""
    old = lay.read_text(lay.grub_cfg, "grub.cfg", MAX_CFG_BYTES)
    block = find_block(old, lay.grub_cfg)
    base = old if block is None else remove_block(old, block)
    if entry is None:
        return old, base
    new = add_block(base, entry.replace("\n", newline_of(base)))
    find_block(new, lay.grub_cfg, planned=True)
    problem = default_problem(new, env)
    if problem:
        raise Refused("%s: %s: every boot would be memboot's" % (lay.grub_cfg, problem))
    return old, new


def write_cfg(plan, lay, old, new):
    """--root: grub.cfg (through its link, if it is one) with @new."""
    if new == old:
        return
    target = lay.real(lay.grub_cfg)
    if not plan.dry_run:
        check_cfg_text(new, "the new " + lay.grub_cfg)
    else:
        plan.say("(--root: grub-mkconfig is not run, it would probe this machine's "
                 "devices; %s is edited)" % lay.grub_cfg)
    plan.write_file(target, new.encode("utf-8", "surrogateescape"), show=False)
    if plan.dry_run:
        lines = [line_body(l) for l in split_lines(new)]
        block = find_block(new, lay.grub_cfg)
        if block is not None:
            print("".join("    " + l + "\n" for l in lines[block[0]:block[1] + 1]),
                  end="", file=plan.out)
        else:
            plan.say("(the lines from %s to %s are left out)" % (BLOCK_BEGIN, BLOCK_END))


def regenerate_host(plan, lay, entry, once, env):
    """The running machine: grub.cfg regenerated by update-grub (or
    grub-mkconfig), then checked: memboot's entry there (install), never the
    default, and with --once a header that boots next_entry once. A check
    that fails puts the old grub.cfg back (Failed)."""
    tool = which("update-grub")
    argv = [tool] if tool else [which("grub-mkconfig"), "-o", lay.grub_cfg]
    target = lay.real(lay.grub_cfg)
    old = None if plan.dry_run else Plan._old(target)
    plan.command(argv, what="regenerating %s (%s)" % (lay.grub_cfg, os.path.basename(argv[0])))
    if old is not None:
        plan.undo_steps.append(lambda: plan._restore(target, old))
    if plan.dry_run:
        return
    new = lay.read_text(lay.grub_cfg, "grub.cfg", MAX_CFG_BYTES)
    if entry is None:
        return
    if ("--id %s " % ENTRY_ID) not in new:
        raise Failed("%s has no memboot entry after %s (is /etc/grub.d/%s executable?)"
                     % (lay.grub_cfg, argv[0], SCRIPT_NAME))
    problem = default_problem(new, env) or (once and once_problem(new))
    if problem:
        raise Failed("the %s %s wrote: %s" % (lay.grub_cfg, os.path.basename(argv[0]), problem))


def set_next_entry(plan, lay, env):
    editenv = which("grub-editenv")
    if env.get("next_entry"):
        undo = [editenv, lay.grubenv, "set", "next_entry=" + env["next_entry"]]
    else:
        undo = [editenv, lay.grubenv, "unset", "next_entry"]
    plan.command([editenv, lay.grubenv, "set", "next_entry=" + ENTRY_ID], undo_argv=undo)


def remove_leftovers(plan, lay):
    for path in leftovers(lay):
        if plan.dry_run:
            plan.say("remove %s (left by an install or uninstall that was killed)" % path)
            continue
        try:
            os.unlink(path)
        except OSError as e:
            raise Failed("cannot remove %s: %s" % (path, e.strerror)) from None
        plan.say("removed %s (left by an install or uninstall that was killed)" % path)


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

# The script's line saying grubenv is install's (--once made it): uninstall
# removes grubenv again while it holds no variable.
MADE_GRUBENV = "# install --once created /%s/grubenv; uninstall removes it while it is empty." \
    % GRUB_DIR


def install_words(args):
    words = args.append.split() if args.append else []
    if not args.no_exit_reboot and not any(w.startswith("memboot.exit=") for w in words):
        words.append(DEFAULT_EXIT)
    return words


SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


@contextlib.contextmanager
def signals_raise():
    """While the block runs, SIGTERM, SIGINT and SIGHUP raise Interrupted,
    the first one only: later ones are ignored while what was done is
    undone. The handlers before are put back after."""
    def interrupted(signum, frame):
        for s in SIGNALS:
            signal.signal(s, signal.SIG_IGN)
        raise Interrupted(signum)
    saved = {s: signal.signal(s, interrupted) for s in SIGNALS}
    try:
        yield
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)


def interrupted_text(e, name, rest):
    """(message, status) for an Interrupted: 128 + the signal, as the shell
    counts it."""
    how = "interrupted" if e.signum == signal.SIGINT else "terminated"
    return ("memboot %s: %s (%s); %s" % (name, how, signal.Signals(e.signum).name, rest),
            128 + e.signum)


def run_plan(name, args, steps):
    """@steps(lay, plan) under the rule of both commands: a refusal changes
    nothing (exit 64); a step that fails after work began is undone (69),
    and so is the work a SIGTERM, SIGINT or SIGHUP interrupts (128 + the
    signal)."""
    lay = Layout(args.root)
    plan = Plan(args.dry_run)
    with signals_raise():
        try:
            return steps(lay, plan)
        except Refused as e:
            print("memboot %s: %s; nothing changed" % (name, e), file=sys.stderr)
            return EXIT_USAGE
        except Failed as e:
            plan.undo()
            print("memboot %s: %s; everything done so far is undone" % (name, e),
                  file=sys.stderr)
            return EXIT_GRUB_FAILED
        except Interrupted as e:
            plan.undo()
            text, status = interrupted_text(e, name, "everything done so far is undone")
            print(text, file=sys.stderr)
            return status


def cmd_install(args):
    return run_plan("install", args, lambda lay, plan: install_steps(args, lay, plan))


def script_made_grubenv(lay):
    """Whether the installed script says install --once created grubenv."""
    if not os.path.lexists(lay.script):
        return False
    return MADE_GRUBENV in lay.read_text(lay.script, "script").splitlines()


def target_arch(args, lay):
    """The architecture memboot is installed for: --arch, else the one whose
    GRUB modules grub-install put in the root's /boot/grub/PLATFORM, else
    (the running machine) os.uname()'s, else x86_64. Refused when --arch
    contradicts the root's GRUB, or the root holds two architectures'."""
    found = {}
    for name, a in ARCHES.items():
        for platform in a["platforms"]:
            if os.path.isdir(os.path.join(lay.grub_dir, platform)):
                found.setdefault(name, os.path.join(lay.grub_dir, platform))
    arch = getattr(args, "arch", None)
    if arch:
        if found and arch not in found:
            name, path = sorted(found.items())[0]
            raise Refused("--arch %s, but the GRUB under %s is %s's (%s): memboot would not "
                          "boot there" % (arch, lay.base, name, path))
        return arch
    if len(found) > 1:
        raise Refused("%s holds GRUB's modules for %s: say which machine this is with --arch"
                      % (lay.grub_dir, " and ".join("%s (%s)" % kv for kv in
                                                    sorted(found.items()))))
    if found:
        return next(iter(found))
    if lay.host:
        machine = os.uname().machine
        for name, a in ARCHES.items():
            if a["uname"] == machine:
                return name
    return "x86_64"


def install_steps(args, lay, plan):
    arch = target_arch(args, lay)
    args.arch = arch
    elf = args.elf or default_elf(arch)
    problem = kernel_problem(elf, arch)
    other = next((name for name in ARCHES if name != arch and problem and
                  problem.endswith(": %s's kernel" % name)), None)
    if other:
        raise Refused("%s (install --arch %s)" % (problem, other))
    if problem:
        raise Refused(problem + ("; run 'make%s' first" % (
            "" if arch == "x86_64" else " ARCH=" + arch) if elf == default_elf(arch)
            and not os.path.exists(elf) else ""))
    words = install_words(args)
    problem = words_problem(words)
    if problem:
        raise Refused(problem)
    if args.bootnext:
        return bootnext.install_steps(args, lay, plan, elf, words)
    chain = not ARCHES[arch]["multiboot2"]
    bootnext.check_boot_manager(args, lay, plan)
    check_layout(lay, ["grub-script-check"] + (["grub-editenv"] if args.once else []))
    env = grubenv_entries(lay)
    if args.once and env.get("next_entry") not in (None, "", ENTRY_ID, ENTRY_TITLE):
        raise Refused("--once: %s already holds next_entry=%s, a one-shot boot set (by "
                      "grub-reboot) and not yet taken; memboot's would replace it: boot it "
                      "first, or clear it (grub-editenv %s unset next_entry)"
                      % (lay.grubenv, env["next_entry"], lay.grubenv))
    made_grubenv = script_made_grubenv(lay) or (args.once and not os.path.lexists(lay.grubenv))
    entry = bootnext.firmware_checks(args, lay, plan, elf, words, grub_default(lay), chain)
    old_cfg = new_cfg = None
    if not lay.host:
        old_cfg, new_cfg = planned_cfg(lay, entry, env)
        problem = args.once and once_problem(old_cfg)
        if problem:
            raise Refused("--once: %s %s" % (lay.grub_cfg, problem))
    if args.once and lay.host:
        check_save_env(lay)
    for folder in (lay.kernel_dir if os.path.isdir(lay.kernel_dir) else lay.boot,
                   lay.grub_d, lay.grub_dir):
        problem = writable_problem(lay.real(folder))
        if problem:
            raise Refused(problem)
    check_default_kept(lay)
    kernel = read_kernel(elf)
    if lay.root and args.dry_run:
        plan.say("install under %s (not this machine's /)" % lay.root)
    remove_leftovers(plan, lay)
    bootnext.write_esp_files(args, lay, plan, elf, words, force=chain)
    plan.mkdir(lay.real(lay.kernel_dir))
    plan.write_file(lay.real(lay.kernel), kernel, mode=0o644, show=False,
                    max_old=MAX_KERNEL_BYTES)
    plan.write_file(lay.real(lay.script),
                    grub_d_script(words, made_grubenv, entry).encode("utf-8"), mode=0o755)
    if lay.host:
        regenerate_host(plan, lay, entry, args.once, env)
    else:
        write_cfg(plan, lay, old_cfg, new_cfg)
    if args.once:
        set_next_entry(plan, lay, env)
    if args.dry_run:
        return 0
    print("memboot: installed: menu entry '%s' (id %s)%s" % (
        ENTRY_TITLE, ENTRY_ID,
        "; the next boot is memboot's, then GRUB's default again" if args.once
        else "; not the default (install --once, or grub-reboot %s, picks it for one boot)"
        % ENTRY_ID))
    return 0


def read_kernel(elf):
    """The kernel's bytes (kernel_problem() has checked its size)."""
    try:
        return inputs.read_input(elf, "kernel", MAX_KERNEL_BYTES)
    except inputs.InputError as e:
        raise Refused(str(e)) from None


def cmd_uninstall(args):
    return run_plan("uninstall", args, lambda lay, plan: uninstall_steps(args, lay, plan))


def uninstall_steps(args, lay, plan):
    uefi = bootnext.uninstall_steps(args, lay, plan)
    if uefi and not os.path.isdir(lay.grub_d):
        return 0
    check_layout(lay, ["grub-script-check", "grub-editenv"])
    env = grubenv_entries(lay)
    made_grubenv = script_made_grubenv(lay)
    old_cfg = new_cfg = None
    if not lay.host:
        old_cfg, new_cfg = planned_cfg(lay, None, env)
    present = [p for p in (lay.script, lay.kernel) if os.path.lexists(p)]
    clear = env.get("next_entry") in (ENTRY_ID, ENTRY_TITLE)
    left = leftovers(lay)
    if not present and new_cfg == old_cfg and not clear and not left:
        if not uefi:
            print("memboot uninstall: memboot is not installed under %s; nothing to do"
                  % lay.base)
        return 0
    for folder in (lay.grub_d, lay.grub_dir, lay.kernel_dir if os.path.isdir(
            lay.kernel_dir) else lay.boot):
        problem = writable_problem(lay.real(folder))
        if problem:
            raise Refused(problem)
    if clear:
        # First, so that no boot picks an entry that is going away.
        plan.command([which("grub-editenv"), lay.grubenv, "unset", "next_entry"],
                     undo_argv=[which("grub-editenv"), lay.grubenv, "set",
                                "next_entry=" + env["next_entry"]])
    plan.remove(lay.real(lay.script))
    if lay.host:
        regenerate_host(plan, lay, None, False, env)
    else:
        write_cfg(plan, lay, old_cfg, new_cfg)
    plan.remove(lay.real(lay.kernel), max_old=MAX_KERNEL_BYTES)
    remove_leftovers(plan, lay)
    # GRUB's header clears next_entry by saving it empty ("next_entry=").
    kept = [n for n, v in env.items() if not (n == "next_entry" and (clear or not v))]
    if made_grubenv and not kept:
        plan.remove(lay.real(lay.grubenv))
    kernel_dir = lay.real(lay.kernel_dir)
    if not args.dry_run and os.path.isdir(kernel_dir) and not os.listdir(kernel_dir):
        os.rmdir(kernel_dir)
    elif args.dry_run and os.path.isdir(kernel_dir):
        plan.say("remove directory %s if empty" % kernel_dir)
    if not args.dry_run:
        print("memboot: uninstalled from %s" % lay.base)
    return 0


def root_arg(text):
    """--root DIR: an existing directory."""
    if not os.path.isdir(text):
        raise argparse.ArgumentTypeError("%s is not a directory" % text)
    return os.path.abspath(text)


def add_parser(sub):
    p = sub.add_parser(
        "install", allow_abbrev=False,
        help="add memboot to this machine's GRUB menu (--once: for the next boot only)",
        description="Copy the kernel to /boot/memboot/, write /etc/grub.d/%s (a Multiboot2 "
                    "menu entry, never the default), regenerate /boot/grub/grub.cfg and, with "
                    "--once, make only the next boot memboot's (grubenv next_entry, as "
                    "grub-reboot does). On arm64 (--arch) the entry chainloads memboot's "
                    "UEFI loader, put on the EFI system partition with the kernel. "
                    "Debian/Ubuntu GRUB layout only; anything else is "
                    "refused with nothing changed (exit 64). A failing step is undone "
                    "(exit %d)." % (SCRIPT_NAME, EXIT_GRUB_FAILED))
    p.add_argument("--elf", metavar="PATH",
                   help="kernel to install (default: build/debug/memboot.elf)")
    p.add_argument("--append", action="append", default=[], metavar="ARGS",
                   help="kernel command-line words for the entry; may be given more than "
                        "once (%s is added unless a memboot.exit= word is given or "
                        "--no-exit-reboot)" % DEFAULT_EXIT)
    p.add_argument("--no-exit-reboot", action="store_true",
                   help="do not add %s (the machine then halts with the result on its "
                        "screen)" % DEFAULT_EXIT)
    p.add_argument("--once", action="store_true",
                   help="the next boot only: grub-editenv grubenv set next_entry=%s" % ENTRY_ID)
    p.add_argument("--arch", choices=sorted(ARCHES),
                   help="the machine's architecture (default: the one whose GRUB modules "
                        "are in /boot/grub, else this machine's); arm64: GRUB chainloads "
                        "memboot's UEFI loader (BOOTAA64.EFI) from the EFI system "
                        "partition, which reads the kernel beside it")
    bootnext.add_options(p)
    _common(p)
    p.set_defaults(func=cmd_install, subparser=p)

    u = sub.add_parser(
        "uninstall", allow_abbrev=False,
        help="remove what install added (and a next_entry naming memboot)",
        description="Clear grubenv's next_entry if it names memboot, remove "
                    "/etc/grub.d/%s and /boot/memboot/%s, and regenerate grub.cfg."
                    % (SCRIPT_NAME, KERNEL_NAME))
    bootnext.add_uninstall_options(u)
    _common(u)
    u.set_defaults(func=cmd_uninstall, subparser=u)


def _common(p):
    p.add_argument("--root", type=root_arg, metavar="DIR",
                   help="work on the tree under DIR (a mounted image or chroot) instead "
                        "of /: grub.cfg under DIR is edited, not regenerated by "
                        "grub-mkconfig, which would probe this machine")
    p.add_argument("--dry-run", action="store_true",
                   help="print every file and command, change nothing")
