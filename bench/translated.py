#!/usr/bin/env python3
"""Instructions translated before memory is usable: a boot's cost under QEMU's
TCG counted, not timed.

Usage (make bench-translated runs the defaults):
  bench/translated.py [--nodes 2] [--cpus-per-node 2] [--mem-per-node 1G]
                      [--config NAME=ELF[,prealloc][,append=WORDS]]...

Under TCG the first run of any code is translated first, and on a 2-core
host most of a phase's time before `meminit` is that (docs/measuring.md,
"Translation"); the time itself moves with the host by tens of per cent
from minute to minute, the count does not. Each --config (as in
bench/usable.py) is booted once through PVH with QEMU's translation log
(`-d in_asm`, written to a file of a temporary directory): every guest
instruction QEMU translates, in the order it does, all vCPUs together.
Each instruction is the kernel's when its address lies in one of the ELF's
functions (`nm`); the rest (firmware, the AP trampoline copied below 1 MiB)
is counted apart. A phase's share runs from the first translation of the
function its line in kernel/init/main.c calls, PHASE(name, fn(...)), to
the next phase's; an AP's code falls in the phase in which it ran first.
"before usable" is every kernel instruction before the phase after
`meminit`. The same kernel gives the same count within a few dozen
instructions on a quiet host (14,477-14,505 in five boots); a busy one
adds a few hundred now and then (a retaken calibration window, a CPU late
to a job: 14,729 once, beside a test run). Compare kernels by it where the median of 15 timed boots cannot tell them
apart. Prints markdown; writes no file (the log's directory is removed).
"""
import argparse
import bisect
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from mbtools import boot as mbboot  # noqa: E402  (after its path)
from usable import checked_configs  # noqa: E402

MAIN_C = os.path.join(ROOT, "kernel", "init", "main.c")
DEFAULT_CONFIGS = ("release=build/release/memboot.elf,prealloc",
                   "debug=build/debug/memboot.elf,prealloc")
USABLE_AFTER = "meminit"       # memory is usable when this phase ends

# PHASE(name, fn(...)) or PHASE(name, var = fn(...)) in main.c (the name
# quoted in trees before the phase table, kernel/init/phases.h).
PHASE_RE = re.compile(r'\bPHASE\(\s*"?(\w+)"?\s*,\s*(?:[\w.]+\s*=\s*)?(\w+)\s*\(')
# A line of QEMU's in_asm log: "0x00100000:  fa   cli".
IN_ASM_RE = re.compile(r"^0x([0-9a-fA-F]+):")
OUTSIDE = "outside the kernel"


def phase_calls(source):
    """[(phase, function)] of main.c's PHASE lines, in boot order."""
    out = []
    for m in PHASE_RE.finditer(source):
        if m.group(1) not in [p for p, _ in out]:
            out.append((m.group(1), m.group(2)))
    return out


def parse_in_asm(text):
    """The guest address of every translated instruction, in order."""
    return [int(m.group(1), 16) for m in map(IN_ASM_RE.match, text.splitlines()) if m]


# An assembly label has no size: it runs to the next symbol, this far at most.
LABEL_MAX_BYTES = 4096


def parse_nm(text):
    """Sorted [(address, size, name)] of the text symbols of `nm -nS` output;
    a symbol without a size (an assembly label such as the entry code's)
    reaches the next symbol, LABEL_MAX_BYTES at most."""
    out, sizeless = [], set()
    for line in text.splitlines():
        f = line.split()
        try:
            if len(f) == 4 and f[2] in "tTwW":
                out.append((int(f[0], 16), int(f[1], 16), f[3]))
            elif len(f) == 3 and f[1] in "tTwW":
                out.append((int(f[0], 16), 0, f[2]))
                sizeless.add(f[2])
        except ValueError:
            continue
    out.sort()
    for k, (addr, size, name) in enumerate(out):
        if name in sizeless:
            nxt = next((a for a, _, _ in out[k + 1:] if a > addr), addr + LABEL_MAX_BYTES)
            out[k] = (addr, min(nxt - addr, LABEL_MAX_BYTES), name)
    return out


class Symbols:
    def __init__(self, syms):
        self.syms = syms
        self.starts = [s[0] for s in syms]

    def name(self, pc):
        i = bisect.bisect(self.starts, pc) - 1
        if i >= 0 and pc < self.syms[i][0] + max(self.syms[i][1], 1):
            return self.syms[i][2]
        return None


def count(pcs, symbols, phases, usable_at=None):
    """{row: instructions} of one boot: each phase of @phases ([(phase, fn)])
    from the first translation of its function on (the first phase from
    kernel_main's when its function was inlined), "before <first phase>"
    the kernel's entry code before it, OUTSIDE what is not the kernel's,
    and "before usable" the kernel's before the phase after USABLE_AFTER,
    or before the first translation of function @usable_at after that
    phase began if that comes first (kernels whose meminit phase went on
    after memory was usable; for others it changes nothing). A phase whose function never ran, or was inlined (no symbol),
    is absent: its instructions count in the row before it."""
    names = [symbols.name(pc) for pc in pcs]
    known = {s[2] for s in symbols.syms}
    starts, at = [], 0
    for k, (phase, fn) in enumerate(phases):
        if fn not in known and k == 0:
            fn = "kernel_main"
        i = next((x for x in range(at, len(names)) if names[x] == fn), None)
        if i is None:
            continue
        starts.append((i, phase))
        at = i
    out = {OUTSIDE: sum(1 for n in names if n is None)}
    first = "before " + (phases[0][0] if phases else "the phases")
    bounds = [(0, first)] + starts + [(len(names), None)]
    for (i, row), (j, _) in zip(bounds, bounds[1:]):
        out[row] = sum(1 for n in names[i:j] if n is not None)
    order = [p for _, p in starts]
    cut = len(names)
    if USABLE_AFTER in order:
        k = order.index(USABLE_AFTER)
        if k + 1 < len(order):
            cut = starts[k + 1][0]
        if usable_at:
            cut = next((x for x in range(starts[k][0], cut) if names[x] == usable_at), cut)
    out["before usable"] = sum(1 for n in names[:cut] if n is not None)
    return out


def boot_count(elf, prealloc, append, nodes, cpus_per_node, mem_per_node, phases, usable_at):
    """count() of one boot of @elf, or a string saying why there is none."""
    nm = subprocess.run(["nm", "-nS", elf], capture_output=True, text=True)
    if nm.returncode != 0:
        return "nm %s failed: %s" % (elf, nm.stderr.strip())
    symbols = Symbols(parse_nm(nm.stdout))
    tmp = tempfile.mkdtemp(prefix="memboot-translated-")
    try:
        log = os.path.join(tmp, "in_asm.log")
        b = mbboot.boot(mbboot.run_argv(nodes=nodes, cpus_per_node=cpus_per_node,
                                        mem_per_node=mem_per_node, boot_path="pvh", elf=elf,
                                        prealloc=prealloc, append=append, timeout=300,
                                        qemu_args=["-d", "in_asm", "-D", log]))
        if b.status != 0 or not b.done:
            return "the boot did not finish (status %s)" % b.status
        if not os.path.exists(log):
            return "QEMU wrote no translation log (-d in_asm -D)"
        with open(log, errors="replace") as f:
            pcs = parse_in_asm(f.read())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not pcs:
        return "the translation log holds no instruction"
    return count(pcs, symbols, phases, usable_at)


def table(names, results):
    rows = []
    for n in names:
        for key in results[n]:
            if key not in rows:
                rows.append(key)
    rows = [r for r in rows if r not in ("before usable", OUTSIDE)] + ["before usable", OUTSIDE]
    diffs = ["%s - %s" % (n, names[0]) for n in names[1:]]
    out = ["| instructions translated | %s |" % " | ".join(names + diffs),
           "|---|" + "---|" * (len(names) + len(diffs))]
    for row in rows:
        cells = ["%d" % results[n][row] if row in results[n] else "-" for n in names]
        for n in names[1:]:
            a, b = results[names[0]].get(row), results[n].get(row)
            cells.append("%+d" % (b - a) if a is not None and b is not None else "-")
        out.append("| %s | %s |" % (row, " | ".join(cells)))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=2)
    ap.add_argument("--cpus-per-node", type=int, default=2)
    ap.add_argument("--mem-per-node", default="1G")
    ap.add_argument("--config", action="append", metavar="NAME=ELF[,prealloc][,append=WORDS]",
                    help="a column (more than once); default: %s" % " ".join(DEFAULT_CONFIGS))
    ap.add_argument("--usable-at", metavar="FUNCTION",
                    help="memory is usable at the first translation of FUNCTION after meminit "
                         "began, where that comes before the next phase (kernels before "
                         "292399f, whose meminit phase also reported: alloc_report)")
    a = ap.parse_args(argv)
    if a.nodes < 1 or a.cpus_per_node < 1:
        ap.error("--nodes and --cpus-per-node must be at least 1")
    if not shutil.which("nm"):
        ap.error("nm (binutils) is needed to name the kernel's functions")
    configs = checked_configs(ap, a.config or DEFAULT_CONFIGS)
    with open(MAIN_C) as f:
        phases = phase_calls(f.read())
    results, failed = {}, False
    for name, path, prealloc, append in configs:
        print("translated: %s" % name, file=sys.stderr, flush=True)
        r = boot_count(path, prealloc, append, a.nodes, a.cpus_per_node, a.mem_per_node, phases,
                       a.usable_at)
        if isinstance(r, str):
            print("translated: %s: %s" % (name, r), file=sys.stderr)
            failed = True
            continue
        results[name] = r
    names = [c[0] for c in configs if c[0] in results]
    if not names:
        return 1
    print("## Instructions translated before memory is usable (%d x %d x %s, PVH)"
          % (a.nodes, a.cpus_per_node, a.mem_per_node))
    print()
    for name, path, prealloc, append in configs:
        if name in results:
            print("- %s: `%s`%s%s" % (name, os.path.relpath(path, ROOT),
                                      ", --prealloc" if prealloc else "",
                                      ", append `%s`" % append if append else ""))
    print("- phases from kernel/init/main.c (a row runs to the next phase's first function: calls "
          "between phases and the consoles' drain at a phase's end count in the phase before); "
          "an AP's code counts in the phase in which it ran first")
    if a.usable_at:
        print("- memory usable at the first translation of %s after meminit began, where that "
              "comes before the next phase" % a.usable_at)
    print()
    print("\n".join(table(names, results)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
