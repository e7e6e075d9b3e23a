#!/usr/bin/env python3
"""check-includes: fail when an #include breaks memboot's layering.

The layer of a file is its directory (docs/design.md, "Layout"); no file is
listed by name. The arrows point one way:

    kernel/init/        main.c and the boot phases: the only code that joins layers
      -> kernel/selftest/   the self-tests, handed the boot's state (struct selftest_ctx)
        -> kernel/vm/       address spaces: mm/pt tables on the MMU, #PF, shootdowns
          -> mm/, kernel/firmware/acpi/   pure memory code and pure ACPI parsers
            -> kernel/ (root)    runtime services: console, records, cmdline, jobs, time, ...
              -> arch/

Rules, by the directory of the including file (the ALLOWED table below):
  kernel/init/      (phase) may include anything of the kernel.
  kernel/selftest/  (selftest) vm, mm, acpi, services, arch: never a phase
                    (what a test needs from the boot, it is handed).
  kernel/vm/        (vm) mm, services, arch.
  kernel/ root      (services) only services and arch/: never mm/, boot/,
                    kernel/firmware/acpi/, a phase, a self-test or vm.
  kernel/firmware/acpi/      (acpi) only itself and services.
  mm/               (mm) mm/, services, kernel/firmware/acpi/ (parsed tables) and
                    arch's public headers (PTE bits, the cache facts): never
                    boot/ (it gets ranges, not a bootinfo), never a phase.
  boot/             (boot) boot/, services and arch/: never mm/.
  arch/             (arch) arch/ and services.
  any               nothing in the kernel includes tools/ or tests/: code only
                    a host tool uses lives with that tool.

A new file is held to the rule of the directory it is dropped into. Known
violations being fixed may be listed in EXCEPTIONS below, each with the
reason; an exception that no longer occurs is reported too, so the list only
shrinks. Exit status: 0 clean, 1 violations, 64 bad usage.

    tools/check-includes.py [--root DIR] [-v]
"""

import argparse
import os
import re
import subprocess
import sys

# The directory is the layer; no file is listed by name.
#   kernel/init/      main.c and the boot phases: the only code that joins layers
#   kernel/selftest/  the self-tests and their table
#   kernel/vm/        the kernel's address spaces: mm/pt tables on this CPU's
#                     MMU, the #PF handler, TLB shootdowns
#   kernel/firmware/acpi/      pure parsers of ACPI tables
#   kernel/ (rest)    runtime services: console, records, cmdline, jobs, time, ...
LAYER_DIRS = (
    ("kernel/init/", "phase"),
    ("kernel/selftest/", "selftest"),
    ("kernel/bench/", "selftest"),
    ("kernel/fault/", "selftest"),
    ("kernel/vm/", "vm"),
    ("kernel/firmware/", "acpi"),
    ("kernel/services/", "services"),
    ("mm/", "mm"),
    ("boot/", "boot"),
    ("arch/", "arch"),
    ("tools/", "tools"),
    ("tests/", "tests"),
)

ALLOWED = {
    "phase": {"phase", "selftest", "vm", "services", "arch", "boot", "mm", "acpi"},
    "selftest": {"selftest", "vm", "services", "arch", "mm", "acpi"},
    "vm": {"vm", "services", "arch", "mm"},
    "services": {"services", "arch"},
    "mm": {"mm", "services", "acpi", "arch"},
    "acpi": {"acpi", "services"},
    "boot": {"boot", "services", "arch"},
    "arch": {"arch", "services"},
}

# (including file, included file): why it is still allowed. Remove a line
# when its include goes; the check then keeps it out.
EXCEPTIONS = {
}

INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)
SOURCE_DIRS = ("arch", "boot", "kernel", "mm")


def layer_of(path):
    """The layer of a repository path, or None when it has no rule."""
    for prefix, layer in LAYER_DIRS:
        if path.startswith(prefix):
            return layer
    return None


def resolve(name, including, root):
    """The repository path an include names: relative to the repository
    (-I.), to the arch interface's directory (-Iarch/include), to an
    architecture's own (-Iarch/x86_64/include) or to the including file's
    directory."""
    for cand in (name, os.path.join("arch/include", name), os.path.join("arch/x86_64/include", name),
                 os.path.normpath(os.path.join(os.path.dirname(including), name))):
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


def check(root, files=None):
    """(violations, used_exceptions): violations are (file, line, included,
    from_layer, to_layer)."""
    violations, used = [], set()
    for path in files if files is not None else sources(root):
        src = layer_of(path)
        if src not in ALLOWED:
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for m in INCLUDE_RE.finditer(text):
            target = resolve(m.group(1), path, root)
            dst = layer_of(target)
            if dst is None or dst in ALLOWED[src]:
                continue
            if (path, target) in EXCEPTIONS:
                used.add((path, target))
                continue
            line = text.count("\n", 0, m.start()) + 1
            violations.append((path, line, target, src, dst))
    return violations, used


def main(argv=None):
    ap = argparse.ArgumentParser(prog="check-includes",
                                 description="Check memboot's include rules.")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), help="repository root (default: this one)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="also list the temporary exceptions still in use")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 64 if e.code else 0
    if not os.path.isdir(args.root):
        print("check-includes: no directory %s" % args.root, file=sys.stderr)
        return 64
    violations, used = check(args.root)
    for path, line, target, src, dst in violations:
        print("%s:%d: includes %s: %s code may not include %s code (%s)"
              % (path, line, target, src, dst, rule_text(src)))
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
