#!/usr/bin/env python3
"""check-includes: fail when an #include breaks memboot's layering.

The layer of a file is its directory (docs/design.md, "Layout"); no file is
listed by name. The arrows point one way:

    kernel/init/        main.c and the boot phases: the only code that joins layers
      -> kernel/selftest/, bench/, fault/   handed the boot's state
        -> kernel/vm/       address spaces: mm/pt tables on the MMU, #PF, shootdowns
          -> mm/, boot/     pure memory code; the boot protocols filling bootinfo
            -> kernel/firmware/   pure parsers of firmware bytes (ACPI, SMBIOS, ...)
              -> kernel/services/   runtime services: console, records, cmdline, jobs, time
                -> arch/    the architecture interface (arch/include/arch/) and
                            each architecture's code (arch/NAME/)

Rules, by the directory of the including file (the ALLOWED table below):
  kernel/init/      (phase) may include anything of the kernel but an
                    architecture's own headers.
  kernel/selftest/, kernel/bench/, kernel/fault/  (selftest) vm, mm,
                    firmware, services, the interface: never a phase.
  kernel/vm/        (vm) mm, services, the interface.
  kernel/services/  (services) only services and the interface: never mm/,
                    boot/, the firmware parsers, a phase, a self-test or vm.
  kernel/firmware/  (firmware) only itself and services.
  mm/               (mm) mm/, services, the firmware parsers (parsed tables)
                    and the interface: never boot/ (it gets ranges, not a
                    bootinfo), never a phase.
  boot/             (boot) boot/ and its protocols' parsers, the firmware
                    parsers (a device tree a protocol hands over), services
                    and the interface: never mm/.
  boot/NAME/        (bootproto) a boot protocol: what boot/ may, and the own
                    headers of the architecture it belongs to (NAME_BOOT in
                    arch/ARCH/arch.mk).
  arch/include/     (interface) the interface's headers: each other, the
                    architectures' inline parts (asm/SUBJECT.h) and
                    ARCH_SERVICES.
  arch/NAME/        (arch) its own code and headers, the interface and
                    ARCH_SERVICES, a short list: never another architecture;
                    the code ports share (arch/common/, "port/NAME.h") may be
                    included by any port, and includes no port's own headers.
  any               nothing in the kernel includes tools/ or tests/: code only
                    a host tool uses lives with that tool.

Generic code (every layer but arch and the boot protocols) reaches the
machine only through the interface, "arch/NAME.h": never an architecture's
own headers ("x86/...", "asm/..."). No file spells an include by a full
architecture path ("arch/x86_64/include/x86/cpu.h"): architecture code writes
"x86/cpu.h", everyone else uses the interface.

A new file is held to the rule of the directory it is dropped into. Known
violations being fixed may be listed in EXCEPTIONS below, each with the
reason; an exception that no longer occurs is reported too, so the list only
shrinks. Exit status: 0 clean, 1 violations, 64 bad usage.

    tools/check-includes.py [--root DIR] [-v] [--upward]

--upward prints the include graph's arrows between layer directories that
run up the order above (a file including one of a higher layer), with
their count, and exits 0: the ones the rules allow (architecture code's
ARCH_SERVICES) are marked so.
"""

import argparse
import os
import re
import subprocess
import sys

# The directory is the layer; no file is listed by name. The first prefix
# that matches wins.
#   kernel/init/      main.c and the boot phases: the only code that joins layers
#   kernel/selftest/  the self-tests and their table (bench/, fault/ alike)
#   kernel/vm/        the kernel's address spaces: mm/pt tables on this CPU's
#                     MMU, the #PF handler, TLB shootdowns
#   kernel/firmware/  pure parsers of firmware bytes: ACPI, SMBIOS, the
#                     device tree
#   kernel/services/  runtime services: console, records, cmdline, jobs, time, ...
#   boot/NAME/        a boot protocol; boot/ itself the protocol-neutral part
#   arch/include/     the architecture interface; arch/NAME/ one architecture
LAYER_DIRS = (
    ("kernel/init/", "phase"),
    ("kernel/selftest/", "selftest"),
    ("kernel/bench/", "selftest"),
    ("kernel/fault/", "selftest"),
    ("kernel/vm/", "vm"),
    ("kernel/firmware/", "firmware"),
    ("kernel/services/", "services"),
    # fc446e3's layout, before the services and parsers had directories of
    # their own (for --upward on an older checkout).
    ("kernel/acpi/", "firmware"),
    ("kernel/", "services"),
    ("mm/", "mm"),
    ("boot/", "boot"),
    ("arch/include/", "interface"),
    ("arch/", "arch"),
    ("tools/", "tools"),
    ("tests/", "tests"),
)

GENERIC_ARCH = {"interface"}
# arch/common/: code several ports share (NAME_COMMON in their arch.mk).
SHARED_ARCH = "common"
ALLOWED = {
    "phase": {"phase", "selftest", "vm", "services", "boot", "mm", "firmware"} | GENERIC_ARCH,
    "selftest": {"selftest", "vm", "services", "mm", "firmware"} | GENERIC_ARCH,
    "vm": {"vm", "services", "mm"} | GENERIC_ARCH,
    "services": {"services"} | GENERIC_ARCH,
    "mm": {"mm", "services", "firmware"} | GENERIC_ARCH,
    "firmware": {"firmware", "services"},
    "boot": {"boot", "bootproto", "services", "firmware"} | GENERIC_ARCH,
    "bootproto": {"boot", "bootproto", "services", "firmware", "interface", "arch"},
    "interface": {"interface", "arch", "services"},
    "arch": {"arch", "interface", "services"},
}

# The services architecture code (and the interface) may include, each for
# one reason; nothing else of kernel/:
ARCH_SERVICES = {
    "kernel/services/log.h": "it prints",
    "kernel/services/panic.h": "it stops on what cannot go on",
    "kernel/services/spinlock.h": "it takes locks",
    "kernel/services/limits.h": "the limits everyone shares (nodes, CPUs, page size)",
    "kernel/services/mem_range.h": "the memory ranges its direct map takes",
    "kernel/services/report/record.h": "the records only it can make (`tsc`, `apic`)",
    "kernel/services/cmdline.h": "the key tables of its own command-line keys",
    "kernel/services/percpu.h": "the generic per-CPU state its per-CPU area points to",
    "kernel/services/clock/clockcal.h": "the pure arithmetic of a counter measured against "
                                        "a reference, which its calibration runs",
    "kernel/services/clock/time.h": "the waits its hardware's protocols require (x86's "
                                    "INIT-SIPI-SIPI delays, a PSCI CPU_ON poll)",
}

# The order of the layers for --upward: an arrow into a higher rank runs up.
RANK = {"phase": 7, "selftest": 6, "vm": 5, "mm": 4, "boot": 4, "bootproto": 4,
        "firmware": 3, "services": 2, "interface": 1, "arch": 1}

# (including file, included file): why it is still allowed. Empty: the
# architecture interface is complete for x86_64. A violation being fixed may
# be listed here with its reason while it lasts; one that no longer occurs
# is reported, so the table only shrinks back to empty.
EXCEPTIONS = {}

INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)
FULL_ARCH_PATH = re.compile(r"^arch/[^/]+/")
SOURCE_DIRS = ("arch", "boot", "kernel", "mm")


def layer_of(path):
    """The layer of a repository path, or None when it has no rule. A file in
    a directory of boot/ is a boot protocol's ("bootproto")."""
    for prefix, layer in LAYER_DIRS:
        if path.startswith(prefix):
            if layer == "boot" and "/" in path[len(prefix):]:
                return "bootproto"
            return layer
    return None


def arch_of(path, protocols):
    """The architecture a file belongs to: arch/NAME/..., or a boot protocol
    NAME_BOOT of arch/NAME/arch.mk names; None for anything else."""
    parts = path.split("/")
    if parts[0] == "arch" and len(parts) > 2 and parts[1] != "include":
        return parts[1]
    if parts[0] == "boot" and len(parts) > 2:
        return protocols.get(parts[1])
    return None


def boot_protocols(root):
    """{protocol: architecture} from the NAME_BOOT lines of arch/*/arch.mk."""
    found = {}
    arch_dir = os.path.join(root, "arch")
    for name in sorted(os.listdir(arch_dir)) if os.path.isdir(arch_dir) else ():
        path = os.path.join(arch_dir, name, "arch.mk")
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            m = re.search(r"^%s_BOOT\s*:?=(.*)$" % re.escape(name), f.read(), re.M)
        for proto in (m.group(1).split() if m else ()):
            found[proto] = name
    return found


def arch_include_dirs(root):
    return sorted(d for d in os.listdir(os.path.join(root, "arch"))
                  if d != "include" and os.path.isdir(os.path.join(root, "arch", d, "include"))) \
        if os.path.isdir(os.path.join(root, "arch")) else []


def resolve(name, including, root, own_arch=None, arches=()):
    """The repository path an include names: relative to the repository
    (-I.), to the arch interface's directory (-Iarch/include), to the
    including file's architecture's (-Iarch/NAME/include) or, for generic
    code and the interface, any architecture's (the first that has it, x86_64
    first), or to the including file's directory."""
    order = ([own_arch] if own_arch else []) + \
        sorted(arches, key=lambda a: (a != "x86_64", a))
    cands = [name, os.path.join("arch/include", name)]
    cands += [os.path.join("arch", a, "include", name) for a in dict.fromkeys(order)]
    cands.append(os.path.normpath(os.path.join(os.path.dirname(including), name)))
    for cand in cands:
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return name


def sources(root):
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--"] + list(SOURCE_DIRS),
                             cwd=root, capture_output=True, check=True)
        files = [p for p in out.stdout.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d in SOURCE_DIRS:
            for base, _, names in os.walk(os.path.join(root, d)):
                files += [os.path.relpath(os.path.join(base, n), root) for n in names]
    # Only files that exist: a checkout in the middle of a move is checked
    # as it is on disk.
    return sorted(p for p in files if p.endswith((".c", ".h", ".S"))
                  and os.path.isfile(os.path.join(root, p)))


def includes(root, files=None):
    """Every include of the sources: (file, line, spelled, target, from_layer,
    to_layer, from_arch, to_arch)."""
    protocols = boot_protocols(root)
    arches = arch_include_dirs(root)
    out = []
    for path in files if files is not None else sources(root):
        src = layer_of(path)
        if src is None:
            continue
        own = arch_of(path, protocols)
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for m in INCLUDE_RE.finditer(text):
            target = resolve(m.group(1), path, root, own, arches)
            line = text.count("\n", 0, m.start()) + 1
            out.append((path, line, m.group(1), target, src, layer_of(target), own,
                        arch_of(target, protocols)))
    return out


def problem(src, dst, spelled, target, own, their):
    """Why an include breaks the rules, or None."""
    if FULL_ARCH_PATH.match(spelled):
        return ("an include by a full architecture path: %s"
                % ("write it from the architecture's include directory"
                   if src in ("arch", "bootproto", "interface") else "use the interface, arch/NAME.h"))
    if dst is None or src not in ALLOWED:
        return None
    if dst not in ALLOWED[src]:
        if dst == "arch" and src not in ("interface", "arch", "bootproto"):
            return ("generic code includes only the architecture interface "
                    "(arch/include/arch/), not an architecture's own headers")
        return "%s code may not include %s code (%s)" % (src, dst, rule_text(src))
    if src in ("arch", "interface") and dst == "services" and target not in ARCH_SERVICES:
        return ("architecture code includes only the services of ARCH_SERVICES "
                "(tools/check-includes.py): %s" % ", ".join(
                    os.path.basename(p)[:-2] for p in sorted(ARCH_SERVICES)))
    if src == "interface" and dst == "arch" and "/include/asm/" not in target:
        return "the interface includes only each architecture's inline part, asm/SUBJECT.h"
    if src in ("arch", "bootproto") and dst == "arch" and their not in (own, SHARED_ARCH):
        return "%s code includes only its own architecture's headers (%s's, not %s's)" \
            % ("boot protocol" if src == "bootproto" else "architecture", own, their)
    return None


def check(root, files=None):
    """(violations, used_exceptions): violations are (file, line, included,
    from_layer, to_layer, why)."""
    violations, used = [], set()
    for path, line, spelled, target, src, dst, own, their in includes(root, files):
        why = problem(src, dst, spelled, target, own, their)
        if why is None:
            continue
        if (path, target) in EXCEPTIONS:
            used.add((path, target))
            continue
        violations.append((path, line, target, src, dst, why))
    return violations, used


def upward(root):
    """[(from_dir, to_dir, allowed, [(file, line)])]: the arrows between
    directories whose target's layer ranks above the including file's."""
    arrows = {}
    for path, line, spelled, target, src, dst, own, their in includes(root):
        if src not in RANK or dst not in RANK or RANK[dst] <= RANK[src]:
            continue
        allowed = src in ("arch", "interface") and target in ARCH_SERVICES
        key = (os.path.dirname(path) + "/", os.path.dirname(target) + "/", allowed)
        arrows.setdefault(key, []).append((path, line))
    return [(a, b, ok, sites) for (a, b, ok), sites in sorted(arrows.items())]


def print_upward(root):
    arrows = upward(root)
    for a, b, ok, sites in arrows:
        print("%s -> %s: %d include%s%s (%s)" % (
            a, b, len(sites), "" if len(sites) == 1 else "s",
            ", allowed: ARCH_SERVICES" if ok else "",
            ", ".join("%s:%d" % s for s in sites)))
    n = sum(len(s) for _, _, _, s in arrows)
    allowed = sum(len(s) for _, _, ok, s in arrows if ok)
    print("check-includes: %d upward arrow%s between directories (%d includes, %d of them "
          "architecture code's ARCH_SERVICES)" % (len(arrows), "" if len(arrows) == 1 else "s",
                                                  n, allowed))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="check-includes",
                                 description="Check memboot's include rules.")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), help="repository root (default: this one)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="also list the temporary exceptions still in use")
    ap.add_argument("--upward", action="store_true",
                    help="print the arrows between layer directories that run upward "
                         "and their count, and exit 0")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 64 if e.code else 0
    if not os.path.isdir(args.root):
        print("check-includes: no directory %s" % args.root, file=sys.stderr)
        return 64
    if args.upward:
        print_upward(args.root)
        return 0
    violations, used = check(args.root)
    for path, line, target, src, dst, why in violations:
        print("%s:%d: includes %s: %s" % (path, line, target, why))
    stale = sorted(set(EXCEPTIONS) - used)
    for path, target in stale:
        print("check-includes: exception (%s, %s) no longer needed: remove it "
              "from EXCEPTIONS in tools/check-includes.py" % (path, target))
    if args.verbose:
        for path, target in sorted(used):
            print("exception: %s includes %s: %s" % (path, target,
                                                    EXCEPTIONS[(path, target)]))
    nfiles = len(sources(args.root))
    if violations or stale:
        print("check-includes: %d violation%s, %d stale exception%s in %d files"
              % (len(violations), "" if len(violations) == 1 else "s",
                 len(stale), "" if len(stale) == 1 else "s", nfiles))
        return 1
    print("check-includes: %d files follow the include rules (%d known "
          "exception%s)" % (nfiles, len(used), "" if len(used) == 1 else "s"))
    return 0


def rule_text(layer):
    return "%s may include %s" % (layer, ", ".join(sorted(ALLOWED[layer])))


if __name__ == "__main__":
    sys.exit(main())
