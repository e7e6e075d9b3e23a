#!/usr/bin/env python3
"""Time to usable memory: boot each configuration several times, interleaved
boot by boot, and print every phase's median beside `done.usable_ns`.

Usage (make bench-usable runs the defaults):
  bench/usable.py [--boots 7] [--nodes 2] [--cpus-per-node 2] [--mem-per-node 1G]
                  [--config NAME=ELF[,prealloc][,append=WORDS]]...

Each --config is one column: the kernel ELF booted through PVH, with
`tools/memboot run --prealloc` when `prealloc` is given (host first-touch
page faults kept out of the guest's timings, docs/measuring.md) and extra
command-line words after `append=` (the rest of the value). Without
--config: the release and the debug kernel under build/, both preallocated.
Boots run in turn (configuration after configuration, then again, the
order reversed every other round), so a slow spell of the host hits every
column alike. With more than one configuration each column after the first
gets a second one, "NAME - FIRST": the median over the rounds of the
difference between the two configurations' boots of the same round, which
follows the host's drifts (a shared host's speed moves by tens of per cent
within minutes) far better than the difference of two medians does.
Prints markdown; writes no file. Under TCG the times are the emulator's (the
first run of any code is translated), so compare columns of one run, never
runs of different days.
"""
import argparse
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from mbtools import boot as mbboot, hostinfo, inputs  # noqa: E402  (after its path)
from mbtools.stats import median_ci  # noqa: E402

# The key of figures() under which the rows that end after memory is usable
# are listed (not a figure: the table leaves it out).
AFTER_USABLE = "_after_usable"

DEFAULT_CONFIGS = ("release=build/release/memboot.elf,prealloc",
                   "debug=build/debug/memboot.elf,prealloc")


def parse_config(text):
    """NAME=ELF[,prealloc][,append=WORDS] -> (name, elf, prealloc, append)."""
    name, sep, rest = text.partition("=")
    if not sep or not name or not rest:
        raise ValueError("%r is not NAME=ELF[,prealloc][,append=WORDS]" % text)
    elf, _, opts = rest.partition(",")
    prealloc, append = False, ""
    while opts:
        if opts.startswith("append="):
            append = opts[len("append="):]
            break
        opt, _, opts = opts.partition(",")
        if opt == "prealloc":
            prealloc = True
        else:
            raise ValueError("%r: unknown option %r (prealloc or append=WORDS)" % (text, opt))
    if not elf:
        raise ValueError("%r names no ELF" % text)
    return name, elf, prealloc, append


def figures(b):
    """The figures of one boot, by row name; None when it did not finish."""
    done = b.done
    if b.status != 0 or not done:
        return None
    out = {"usable": done.get("usable_ns", 0) / 1e6, "total": done["total_ns"] / 1e6}
    phases = b.all("phase")
    if phases and "start_ns" in phases[0]:
        # Kernel entry to the first phase: the entry code, .bss, the boot map.
        out["before early"] = phases[0]["start_ns"] / 1e6
    # Phases that end after memory is usable add nothing to usable_ns: a
    # slow boot's excess is looked for in the others only (slow_boots()).
    after = set()
    for r in phases:
        out["phase " + r["name"]] = r["ns"] / 1e6
        if "start_ns" in r and r["start_ns"] + r["ns"] > done.get("usable_ns", 0):
            after.add("phase " + r["name"])
    out[AFTER_USABLE] = after
    for r in b.all("node_init"):
        if "wait_ns" in r:
            out["node %d wait" % r["node"]] = r["wait_ns"] / 1e6
    for r in b.all("tsc"):
        out["tsc calibration"] = r["ns"] / 1e6
    for r in b.all("smp"):
        if "tsc_sync_ns" in r:
            # The TSC check's own time: phase smp's in kernels before phase
            # tscsync, which runs it after memory is usable.
            out["tsc_sync check"] = r["tsc_sync_ns"] / 1e6
            if "phase tscsync" in after:
                after.add("tsc_sync check")
    for r in b.all("summary"):
        out["outside phases"] = r.get("outside_ns", 0) / 1e6
        after.add("outside phases")
    return out


def checked_configs(ap, texts):
    """[(name, absolute ELF path, prealloc, append)] of the --config @texts,
    every problem a usage error of @ap (argparse) naming it."""
    configs = []
    for text in texts:
        try:
            name, elf, prealloc, append = parse_config(text)
        except ValueError as e:
            ap.error("--config %s" % e)
        if any(c[0] == name for c in configs):
            ap.error("--config: the name %r is given twice" % name)
        path = elf if os.path.isabs(elf) else os.path.join(ROOT, elf)
        if not os.path.isfile(path):
            ap.error("--config %s: no kernel at %s (make, make MODE=release)" % (name, path))
        problem = inputs.cmdline_problem(append)
        if problem:
            ap.error("--config %s: append=%s" % (name, problem))
        configs.append((name, path, prealloc, append))
    return configs


def slow_boots(figs, over_ms=2.0, row_ms=1.0, top=3):
    """The boots of one configuration (@figs: one entry a boot, None where it
    failed) whose usable_ns is more than @over_ms above the median boot's,
    each as (boot number from 1, usable ms, excess ms, [(row, excess ms)]):
    the rows on the way to usable memory that exceed their own median by
    more than @row_ms, the largest first, at most @top. A slow boot's time
    is then named: a host stall in one phase, or vCPUs taking turns in the
    parallel ones (docs/measuring.md)."""
    done = [f for f in figs if f]
    if not done:
        return []
    med = {}
    for f in done:
        for row, v in f.items():
            if row != AFTER_USABLE:
                med.setdefault(row, []).append(v)
    med = {row: statistics.median(v) for row, v in med.items()}
    out = []
    for i, f in enumerate(figs):
        if not f or f["usable"] - med["usable"] <= over_ms:
            continue
        skip = f.get(AFTER_USABLE, set()) | {"usable", "total", AFTER_USABLE}
        rows = sorted(((f[r] - med[r], r) for r in f if r not in skip and r in med
                       and f[r] - med[r] > row_ms), reverse=True)[:top]
        out.append((i + 1, f["usable"], f["usable"] - med["usable"],
                    [(r, d) for d, r in rows]))
    return out


def paired_median(first, other, row):
    """The median over rounds of other's figure less first's (None: no round
    where both boots finished and have the figure)."""
    d = [b[row] - a[row] for a, b in zip(first, other)
         if a is not None and b is not None and row in a and row in b]
    return statistics.median(d) if d else None


def table(names, results, boots):
    """@results[name]: one entry a round, None where that boot failed."""
    rows = []
    # The boot with the most figures sets the order (a kernel without a
    # phase adds nothing to place it by).
    figs = sorted((f for n in names for f in results[n] if f), key=len, reverse=True)
    for fig in figs:
        for key in fig:
            if key not in rows and key != AFTER_USABLE:
                rows.append(key)
    # usable and total last, the phases in boot order (first seen).
    rows = [r for r in rows if r not in ("usable", "total")] + ["usable", "total"]
    diffs = ["%s - %s" % (n, names[0]) for n in names[1:]]
    out = ["| figure (median of %d, ms) | %s |" % (boots, " | ".join(names + diffs)),
           "|---|" + "---|" * (len(names) + len(diffs))]
    for row in rows:
        cells = []
        for name in names:
            vals = [f[row] for f in results[name] if f and row in f]
            cells.append("%.2f" % statistics.median(vals) if vals else "-")
        for name in names[1:]:
            d = paired_median(results[names[0]], results[name], row)
            cells.append("%+.2f" % d if d is not None else "-")
        out.append("| %s | %s |" % (row, " | ".join(cells)))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boots", type=int, default=7, help="boots per configuration (default 7)")
    ap.add_argument("--nodes", type=int, default=2)
    ap.add_argument("--cpus-per-node", type=int, default=2)
    ap.add_argument("--mem-per-node", default="1G")
    ap.add_argument("--config", action="append", metavar="NAME=ELF[,prealloc][,append=WORDS]",
                    help="a column (more than once); default: %s" % " ".join(DEFAULT_CONFIGS))
    a = ap.parse_args(argv)
    if a.boots < 1:
        ap.error("--boots %d: at least 1" % a.boots)
    if a.nodes < 1 or a.cpus_per_node < 1:
        ap.error("--nodes and --cpus-per-node must be at least 1")
    configs = checked_configs(ap, a.config or DEFAULT_CONFIGS)
    names = [c[0] for c in configs]
    results = {n: [] for n in names}
    failed = {n: 0 for n in names}
    load_before = os.getloadavg()[0]
    for i in range(a.boots):
        for name, path, prealloc, append in (configs if i % 2 == 0 else configs[::-1]):
            print("usable: boot %d/%d: %s" % (i + 1, a.boots, name), file=sys.stderr, flush=True)
            b = mbboot.boot(mbboot.run_argv(nodes=a.nodes, cpus_per_node=a.cpus_per_node,
                                            mem_per_node=a.mem_per_node, boot_path="pvh",
                                            elf=path, append=append, prealloc=prealloc,
                                            timeout=120))
            fig = figures(b)
            if fig is None:
                failed[name] += 1
                print("usable: %s: boot %d ended with status %s; left out"
                      % (name, i + 1, b.status), file=sys.stderr)
            results[name].append(fig)
    if not any(f for v in results.values() for f in v):
        sys.exit("usable: no boot finished")
    print("## Time to usable memory (%d x %d x %s, PVH)" % (a.nodes, a.cpus_per_node,
                                                            a.mem_per_node))
    print()
    print("- Host: %s, %d CPUs; load average %.2f before, %.2f after"
          % (hostinfo.cpu_model(), os.cpu_count() or 0, load_before, os.getloadavg()[0]))
    for note in hostinfo.memory_notes():
        print("- Host memory: %s" % note)
    for name, path, prealloc, append in configs:
        print("- %s: `%s`%s%s%s" % (name, os.path.relpath(path, ROOT),
                                   ", --prealloc" if prealloc else "",
                                   ", append `%s`" % append if append else "",
                                   ", %d boot(s) failed" % failed[name] if failed[name] else ""))
    print()
    for line in table(names, results, a.boots):
        print(line)
    print()
    for name in names:
        vals = [f["usable"] for f in results[name] if f]
        if not vals:
            print("- %s: no boot finished" % name)
            continue
        lo, hi = median_ci(vals)
        print("- %s usable_ns, ms: %s (median %.1f, its 95 %% interval %.1f-%.1f)"
              % (name, " ".join("%.1f" % f["usable"] if f else "-" for f in results[name]),
                 statistics.median(vals), lo, hi))
    for name in names:
        for n, ms, excess, rows in slow_boots(results[name]):
            print("- %s boot %d, usable %.1f ms (+%.1f over the median): %s"
                  % (name, n, ms, excess, ", ".join("%s +%.1f" % (r, d) for r, d in rows)
                     or "no one row more than 1 ms over its median"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
