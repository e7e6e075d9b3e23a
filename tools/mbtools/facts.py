"""facts: what the kernel and the tools must agree on, read from the kernel's
own headers so that each fact has one source.

  EXIT_STATUS      {status: name}, from EXIT_STATUS_TABLE in kernel/services/exit.h
  EXIT_SYMBOLS     {status: enum name}, e.g. 5: "EXIT_CENSUS"
  QEMU_EXIT_BASE   the kernel writes QEMU_EXIT_BASE + status to isa-debug-exit
  EVENTS           record event names, from RECORD_EVENT_TABLE in
                   kernel/services/report/events.h, in table order
  LIMITS           {name: int} from the `#define NAME number` lines of
                   kernel/services/limits.h (MEMBOOT_MAX_NODES, PAGE_SHIFT, ...)
  PAGE_SIZE_BYTES  1 << PAGE_SHIFT of kernel/services/limits.h
  DESC_BYTES       the page descriptor's default size, MEMMAP_DESC_BYTES of
                   mm/page.h; DESC_BYTES_CHOICES the sizes its #if allows
  fw_cfg_cmdline_file()  the fw_cfg file the kernel reads its command line
                   from (FWCFG_CMDLINE_FILE, a boot/ #define)
  fw_cfg_replay_file()   the same for memboot.selftest=replay's trace
                   (FWCFG_REPLAY_FILE)
  TOOL_STATUS      statuses of tools/memboot itself (not the kernel's)
  ALLOCATORS       the page allocators memboot.alloc can name, from
                   ALLOC_TABLE in mm/alloc/table.h, in table order
                   ([0] the default)
  architectures()  {name: Arch} from every arch/NAME/arch.mk: whether it is a
                   port (boots), its QEMU and QEMU's machines (the default
                   first); DEFAULT_ARCH the Makefile's (ARCH ?= x86_64)

tests/tools/test_facts.py checks that docs/exit-status.md and docs/records.md
agree with these. Standard library only.
"""

import os
import re

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
EXIT_H = os.path.join(REPO_ROOT, "kernel", "services", "exit.h")
EVENTS_H = os.path.join(REPO_ROOT, "kernel", "services", "report", "events.h")
LIMITS_H = os.path.join(REPO_ROOT, "kernel", "services", "limits.h")
ALLOC_TABLE_H = os.path.join(REPO_ROOT, "mm", "alloc", "table.h")
PHASES_H = os.path.join(REPO_ROOT, "kernel", "init", "phases.h")
SELFTEST_LIST_H = os.path.join(REPO_ROOT, "kernel", "selftest", "list.h")
PAGE_H = os.path.join(REPO_ROOT, "mm", "page.h")
ARCH_DIR = os.path.join(REPO_ROOT, "arch")
MAKEFILE = os.path.join(REPO_ROOT, "Makefile")
# Where FWCFG_CMDLINE_FILE is defined: boot/fwcfg_files.h, the header of the fw_cfg
# reader, is its home; boot/boot.c defines it until it moves there.
FWCFG_SOURCES = (os.path.join(REPO_ROOT, "boot", "fwcfg_files.h"),
                 os.path.join(REPO_ROOT, "boot", "boot.c"))

# Statuses of tools/memboot that are not kernel statuses. They sit above any
# kernel status and follow the shell's conventions (124 timeout, 125 could
# not start, 128 + signal), as timeout(1) does.
EXIT_USAGE = 64
EXIT_STRICT = 65         # run --strict: status 0 but warnings or errors
EXIT_NO_DONE = 66        # run: the boot ended without a done record
EXIT_GRUB_FAILED = 69    # install, uninstall, netboot: a GRUB command failed, undone
EXIT_TIMEOUT = 124
EXIT_QEMU_FAILED = 125
EXIT_NO_STATUS = 126
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143    # 128 + SIGTERM
TOOL_STATUS = {
    EXIT_USAGE: "bad usage",
    EXIT_STRICT: "warnings or errors under --strict",
    EXIT_NO_DONE: "the boot ended without a done record",
    EXIT_GRUB_FAILED: "install, uninstall, netboot: a step failed and was undone",
    EXIT_TIMEOUT: "timeout",
    EXIT_QEMU_FAILED: "QEMU could not start",
    EXIT_NO_STATUS: "QEMU stopped without a kernel status",
    EXIT_INTERRUPTED: "interrupted",
    EXIT_TERMINATED: "terminated",
}


class FactsError(Exception):
    """A kernel header could not be read or does not have the expected form."""


def _read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise FactsError("cannot read %s: %s" % (path, e.strerror)) from None


def _table(text, macro, path):
    """The body of `#define MACRO(X) ...` up to its last continued line."""
    m = re.search(r"^#define\s+%s\(X\)[^\n]*\\\n((?:[^\n]*\\\n)*[^\n]*)" % macro,
                  text, re.M)
    if not m:
        raise FactsError("%s: no #define %s(X)" % (path, macro))
    return m.group(1)


def parse_exit_statuses(text, path=EXIT_H):
    """[(value, symbol, name)] from the EXIT_STATUS_TABLE of exit.h text."""
    body = _table(text, "EXIT_STATUS_TABLE", path)
    rows = [(int(v), sym, name) for v, sym, name in re.findall(
        r'X\(\s*(\d+)\s*,\s*(\w+)\s*,\s*"([^"]*)"\s*\)', body)]
    if not rows:
        raise FactsError("%s: EXIT_STATUS_TABLE has no X(value, NAME, \"name\")"
                         % path)
    return rows


def parse_events(text, path=EVENTS_H):
    """Event names, in order, from the RECORD_EVENT_TABLE of kernel/services/report/events.h."""
    names = re.findall(r"X\(\s*(\w+)\s*\)", _table(text, "RECORD_EVENT_TABLE",
                                                     path))
    if not names:
        raise FactsError("%s: RECORD_EVENT_TABLE has no X(name)" % path)
    return names


def parse_allocators(text, path=ALLOC_TABLE_H):
    """Allocator names, in order, from the ALLOC_TABLE of mm/alloc/table.h."""
    names = re.findall(r"X\(\s*(\w+)\s*\)", _table(text, "ALLOC_TABLE", path))
    if not names:
        raise FactsError("%s: ALLOC_TABLE has no X(name)" % path)
    return names


def _c_string(text):
    """The value of a C string literal's body (\\" and \\\\ unescaped)."""
    return re.sub(r'\\(.)', r'\1', text)


def parse_phases(text, path=PHASES_H):
    """[(name, when, takes, builds)], in boot order, from the BOOT_PHASES
    table of kernel/init/phases.h; @when is "ALWAYS", "WITH_KEY" or "STEP"."""
    string = r'"((?:[^"\\]|\\.)*)"'
    rows = [(name, when, _c_string(takes), _c_string(builds)) for name, when, takes, builds
            in re.findall(r"X\(\s*(\w+)\s*,\s*(ALWAYS|WITH_KEY|STEP)\s*,\s*\\?\s*%s\s*,\s*\\?\s*%s\s*\)"
                          % (string, string), _table(text, "BOOT_PHASES", path))]
    if not rows:
        raise FactsError("%s: BOOT_PHASES has no X(name, when, \"takes\", \"builds\")" % path)
    return rows


def parse_selftests(text, path=SELFTEST_LIST_H):
    """Self-test names, in run order, from the SELFTEST_LIST of
    kernel/selftest/list.h."""
    names = re.findall(r'X\(\s*\w+\s*,\s*"([a-z0-9_]+)"', _table(text, "SELFTEST_LIST", path))
    if not names:
        raise FactsError("%s: SELFTEST_LIST has no X(ID, \"name\", ...)" % path)
    return names


def parse_defines(text):
    """{NAME: int} for each `#define NAME <integer>` line of a header."""
    return {name: int(value, 0) for name, value in re.findall(
        r"^#define\s+(\w+)\s+(0x[0-9a-fA-F]+|\d+)[uUlL]*\s*(?:/\*.*)?$",
        text, re.M)}


# A package of the tools (tools/mbtools/package.py) has no kernel tree: it
# carries the facts below as they were read from the tree at build time
# (BUILT_FACTS), and tests/tools/test_package.py checks that they are equal.
BUILT_FACTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "built_facts.json")
_built = None
if not os.path.exists(EXIT_H) and os.path.exists(BUILT_FACTS):
    import json
    with open(BUILT_FACTS, encoding="utf-8") as _f:
        _built = json.load(_f)


def _value(name, compute):
    """Fact @name: from the kernel tree, or from the package's built copy."""
    if _built is None:
        return compute()
    try:
        return _built["facts"][name]
    except KeyError:
        raise FactsError("%s has no %s: a package built by another version"
                         % (BUILT_FACTS, name)) from None


_exit_rows = _value("exit_rows", lambda: parse_exit_statuses(_read(EXIT_H)))
EXIT_STATUS = {v: name for v, _, name in _exit_rows}
EXIT_SYMBOLS = {v: sym for v, sym, _ in _exit_rows}
QEMU_EXIT_BASE = _value("QEMU_EXIT_BASE", lambda: parse_defines(_read(EXIT_H))["EXIT_QEMU_BASE"])
EVENTS = tuple(_value("EVENTS", lambda: parse_events(_read(EVENTS_H))))
LIMITS = _value("LIMITS", lambda: parse_defines(_read(LIMITS_H)))
ALLOCATORS = tuple(_value("ALLOCATORS", lambda: parse_allocators(_read(ALLOC_TABLE_H))))
PHASE_TABLE = tuple(tuple(r) for r in _value("PHASE_TABLE", lambda: parse_phases(_read(PHASES_H))))
SELFTESTS = tuple(_value("SELFTESTS", lambda: parse_selftests(_read(SELFTEST_LIST_H))))
# The phases every boot runs, in order (the others only with their key).
PHASES = tuple(name for name, when, _, _ in PHASE_TABLE if when == "ALWAYS")
MAX_NODES = LIMITS["MEMBOOT_MAX_NODES"]
PAGE_SIZE_BYTES = 1 << LIMITS["PAGE_SHIFT"]


def parse_desc_bytes(text, path=PAGE_H):
    """(default, allowed sizes) of MEMMAP_DESC_BYTES in mm/page.h text: its
    `#define MEMMAP_DESC_BYTES N` and the sizes of its `#if ... != N && ...`
    check."""
    default = parse_defines(text).get("MEMMAP_DESC_BYTES")
    m = re.search(r"^#if\s+(MEMMAP_DESC_BYTES\s*!=\s*\d+(?:\s*&&\s*MEMMAP_DESC_BYTES"
                  r"\s*!=\s*\d+)*)\s*$", text, re.M)
    if default is None or not m:
        raise FactsError("%s: no #define MEMMAP_DESC_BYTES N and #if MEMMAP_DESC_BYTES "
                         "!= N && ... check" % path)
    choices = tuple(int(n) for n in re.findall(r"!=\s*(\d+)", m.group(1)))
    return default, choices


DESC_BYTES, DESC_BYTES_CHOICES = _value("DESC_BYTES", lambda: parse_desc_bytes(_read(PAGE_H)))
DESC_BYTES_CHOICES = tuple(DESC_BYTES_CHOICES)


def kernel_define(path, name):
    """`#define NAME number` of the kernel source @path (the tree's, or the
    package's built copy, keyed by the path relative to the tree)."""
    if _built is None:
        return parse_defines(_read(path))[name]
    return _value("define %s %s" % (os.path.relpath(path, REPO_ROOT), name), lambda: None)


def parse_string_define(text, name):
    """The string of `#define NAME "..."` in C text, or None."""
    m = re.search(r'^#define\s+%s\s+"([^"\\]*)"' % name, text, re.M)
    return m.group(1) if m else None


def fw_cfg_cmdline_file():
    """The fw_cfg file name through which `run --append` reaches the kernel:
    FWCFG_CMDLINE_FILE as boot/ defines it (FactsError if no file does)."""
    for path in FWCFG_SOURCES:
        if os.path.exists(path):
            name = parse_string_define(_read(path), "FWCFG_CMDLINE_FILE")
            if name:
                return name
    raise FactsError('no #define FWCFG_CMDLINE_FILE "..." in %s: the kernel\'s '
                     "fw_cfg command-line file must be defined there"
                     % " or ".join(os.path.relpath(p, REPO_ROOT) for p in FWCFG_SOURCES))


def fw_cfg_replay_file():
    """The fw_cfg file name of `run --replay`'s trace: FWCFG_REPLAY_FILE as
    boot/ defines it (FactsError if no file does)."""
    for path in FWCFG_SOURCES:
        if os.path.exists(path):
            name = parse_string_define(_read(path), "FWCFG_REPLAY_FILE")
            if name:
                return name
    raise FactsError('no #define FWCFG_REPLAY_FILE "..." in %s'
                     % " or ".join(os.path.relpath(p, REPO_ROOT) for p in FWCFG_SOURCES))


def qemu_rc(status):
    """QEMU's exit code when the kernel leaves with @status: the device exits
    with (value << 1) | 1 for the value written."""
    return ((QEMU_EXIT_BASE + status) << 1) | 1


def decode_exit(rc):
    """QEMU return code -> (tool exit status, meaning)."""
    if rc < 0:
        return (EXIT_NO_STATUS,
                "QEMU was killed by signal %d without a kernel status" % -rc)
    if rc == 1:
        return (EXIT_QEMU_FAILED, "QEMU failed (rc 1)")
    if rc % 2 == 1 and rc >= qemu_rc(0):
        status = (rc >> 1) - QEMU_EXIT_BASE
        return (status,
                EXIT_STATUS.get(status, "unknown kernel status %d" % status))
    if rc == 0:
        return (EXIT_NO_STATUS,
                "QEMU exited (rc 0) without a kernel status: guest reset, "
                "triple fault or power-off")
    if rc % 2 == 1:
        return (EXIT_NO_STATUS,
                "QEMU exited (rc %d) with a debug-exit value %#x that is not "
                "a kernel status" % (rc, rc >> 1))
    return (EXIT_NO_STATUS,
            "QEMU exited (rc %d) without a kernel status" % rc)


class Arch:
    """One architecture of arch/NAME/arch.mk: name, port (bool), qemu (the
    system emulator, or None) and machines (QEMU's, the default first)."""

    def __init__(self, name, values):
        self.name = name
        self.port = values.get("PORT") == "yes"
        self.qemu = values.get("QEMU") or None
        self.machines = tuple(values.get("QEMU_MACHINES", "").split())
        # tools/memboot run: the default --boot, the QEMU arguments that
        # carry the kernel's exit status, and any others the port needs.
        self.run_boot = values.get("RUN_BOOT") or "grub"
        # The --boot paths it takes (RUN_BOOTS), the default's first; an
        # image port by default only --boot image, any other grub, efi, pvh.
        self.run_boots = tuple(values.get("RUN_BOOTS", "").split()) or (
            ("image",) if self.run_boot == "image" else ("grub", "efi", "pvh"))
        self.qemu_exit = tuple(values.get("QEMU_EXIT", "").split())
        self.qemu_flags = tuple(values.get("QEMU_FLAGS", "").split())
        # --firmware uefi's code and variable-store templates (UEFI_CODE,
        # UEFI_VARS); None: OVMF's, tools/memboot's defaults.
        self.uefi_code = values.get("UEFI_CODE") or None
        self.uefi_vars = values.get("UEFI_VARS") or None
        # The QEMU CPU model a run gets without --cpu, the file `make`
        # builds to boot (NAME_IMAGE), and where the kernel's exit status
        # comes from: QEMU's exit code ("device": isa-debug-exit,
        # semihosting) or the `done` record on the console ("console":
        # a machine with no exit device, whose power-off ends QEMU with 0).
        self.qemu_cpu = values.get("QEMU_CPU") or "max"
        self.image = values.get("IMAGE") or None
        self.exit_from = values.get("EXIT_FROM") or "device"
        # Whether its QEMU machines have a fw_cfg device (NAME_FW_CFG, yes
        # unless "no": pseries has none), the way run --replay's trace
        # reaches the kernel.
        self.fw_cfg = values.get("FW_CFG", "yes") != "no"


def parse_arch_mk(text, name):
    """{VAR: value} of the `NAME_VAR := value` lines of arch/NAME/arch.mk."""
    return {m.group(1): m.group(2).strip() for m in
            re.finditer(r"^%s_([A-Z_]+)\s*:?=[ \t]*(.*)$" % re.escape(name), text, re.M)}


def architectures(arch_dir=ARCH_DIR):
    """{name: Arch} for every arch/NAME/arch.mk (FactsError if none)."""
    found = {}
    try:
        names = sorted(os.listdir(arch_dir))
    except OSError as e:
        raise FactsError("cannot list %s: %s" % (arch_dir, e.strerror or e))
    for name in names:
        path = os.path.join(arch_dir, name, "arch.mk")
        if os.path.isfile(path):
            found[name] = Arch(name, parse_arch_mk(_read(path), name))
    if not found:
        raise FactsError("no arch/NAME/arch.mk in %s" % arch_dir)
    return found


def default_arch(makefile=MAKEFILE):
    """The Makefile's default architecture (`ARCH ?= NAME`)."""
    m = re.search(r"^ARCH\s*\?=\s*(\S+)", _read(makefile), re.M)
    if not m:
        raise FactsError("no `ARCH ?= NAME` line in %s" % makefile)
    return m.group(1)


def arch_problem(name, arches):
    """None if @name is an architecture memboot boots on, else why not."""
    ports = ", ".join(a for a in sorted(arches) if arches[a].port) or "none"
    if name not in arches:
        return ("no such architecture (no arch/%s/arch.mk); the architectures: %s; "
                "the ones that boot: %s" % (name, ", ".join(sorted(arches)), ports))
    if not arches[name].port:
        return ("memboot has no %s port yet (arch/%s holds what `make cross-check` "
                "needs to compile the generic code for it); the ones that boot: %s"
                % (name, name, ports))
    if not arches[name].qemu:
        return "arch/%s/arch.mk names no QEMU (%s_QEMU)" % (name, name)
    return None
