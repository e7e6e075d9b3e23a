#!/usr/bin/env python3
"""Run the memmap benchmark binaries and print their tables (markdown).

Usage:
  bench/memmap_results.py --bin-dir build/bench [--results docs/results.md] \
      [--command "make results"] -- [memmap_bench options]

Runs build/bench/memmap_bench_{16,32,64} with the options after "--", reads
their "memmap-bench key=value ..." lines and prints the tables. Only with
--results (`make results`) does it replace the text between
<!-- memmap-bench begin --> and <!-- memmap-bench end --> in that file
(appending the section if the markers are missing), leaving every other
section as it was; `make bench` never writes a tracked file. Exits non-zero
if a binary fails (its self-check included).
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tools"))
from mbtools import hostinfo  # noqa: E402  (after the path it lives on)
from mbtools.stats import median_ci  # noqa: E402

BEGIN = "<!-- memmap-bench begin -->"
END = "<!-- memmap-bench end -->"
SIZES = (16, 32, 64)
LIMITS = ("lim_memset", "lim_store", "lim_nt", "lim_ntdq")


def ratio_cell(paired):
    """init/limit of a memmap-bench-ratio line: the median, and the median's
    confidence interval where the line lists the repetitions' ratios."""
    cell = f(float(paired["init_over_limit"]))
    ratios = [float(x) for x in paired.get("ratios", "").split(",") if x]
    ci = median_ci(ratios)
    return "%s (%s-%s)" % (cell, f(ci[0]), f(ci[1])) if ci else cell


def run(bin_dir, args):
    rows = {}
    cmds = []
    cpu = {}
    ratios = {}
    probes = {}
    budgets = {}
    t0 = time.monotonic()
    for i, size in enumerate(SIZES):
        cmd = [os.path.join(bin_dir, "memmap_bench_%d" % size)] + args
        cmds.append(" ".join(cmd))
        # Larger descriptors take about twice as long as the size before.
        left = ""
        if i:
            spent = time.monotonic() - t0
            left = ", about %.0f s left" % (spent / (2 ** i - 1) * (2 ** len(SIZES) - 2 ** i))
        print("  RUN     [%d/%d] %s%s" % (i + 1, len(SIZES), " ".join(cmd), left),
              file=sys.stderr, flush=True)
        out = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        if out.returncode != 0:
            sys.exit("%s failed with status %d" % (cmd[0], out.returncode))
        for line in out.stdout.splitlines():
            if line.startswith("memmap-bench-cpu "):
                kv = dict(f.split("=", 1) for f in line.split()[1:])
                cpu[int(kv["desc"])] = kv
            if line.startswith("memmap-bench-probe "):
                kv = dict(f.split("=", 1) for f in line.split()[1:])
                probes[(int(kv["desc"]), int(kv["threads"]))] = kv
            if line.startswith("memmap-bench-budget "):
                kv = dict(f.split("=", 1) for f in line.split()[1:])
                budgets[(int(kv["desc"]), int(kv["threads"]))] = kv
            if line.startswith("memmap-bench-ratio "):
                kv = dict(f.split("=", 1) for f in line.split()[1:])
                ratios[(int(kv["desc"]), int(kv["threads"]))] = kv
            if not line.startswith("memmap-bench "):
                continue
            kv = dict(f.split("=", 1) for f in line.split()[1:])
            key = (int(kv["desc"]), int(kv["threads"]), kv["what"])
            rows[key] = kv
    rows["cpu"] = cpu
    rows["ratios"] = ratios
    rows["probes"] = probes
    rows["budgets"] = budgets
    return rows, cmds


def machine():
    model = hostinfo.cpu_model()
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = "%.0f GiB RAM" % (int(line.split()[1]) / (1 << 20))
                    break
    except OSError:
        pass
    cc = subprocess.run(["gcc", "--version"], stdout=subprocess.PIPE, text=True).stdout
    cc = cc.splitlines()[0] if cc else "gcc ?"
    return "%d CPUs (nproc), %s, %s, Linux %s, %s" % (
        os.cpu_count() or 0, model, mem, platform.release(), cc)


def f(x, digits=2):
    return ("%%.%df" % digits) % x


def section(rows, cmds, command):
    cpu = rows.pop("cpu", {})
    ratios = rows.pop("ratios", {})
    probes = rows.pop("probes", {})
    budgets = rows.pop("budgets", {})
    threads = sorted({t for (_, t, _) in rows})
    sample = next(iter(rows.values()))
    out = [BEGIN, "## Page descriptor init and boot-time buddy free (memmap-bench)", ""]
    out.append("- Date: %s" % datetime.datetime.now(datetime.timezone.utc)
               .strftime("%Y-%m-%d %H:%M UTC"))
    out.append("- Machine: %s" % machine())
    out.append("- Command: `%s`, which ran:" % command)
    for c in cmds:
        out.append("  `%s`" % c)
    out.append("- Simulated RAM: %s pages per descriptor size (the arrays' own pages "
               "excluded), %s nodes; median of %s repetitions, each on cold (flushed) "
               "descriptor memory; per page of RAM." % (
                   sample["pages"], sample["nodes"],
                   ("at most %s" % next(iter(budgets.values()))["max_reps"]) if budgets
                   else sample["reps"]))
    if budgets:
        b = next(iter(budgets.values()))
        out.append("- Time bound: `--budget-s %s` per descriptor size; the arrays stay at "
                   "four times the LLC and the repetitions shrink instead (at least 3, an odd "
                   "count). Repetitions each row got: %s." % (
                       b["budget_s"], ", ".join(
                           "%d B x %d: %s" % (d, t, budgets[(d, t)]["reps"])
                           for (d, t) in sorted(budgets))))
    out.append("")
    out.append("### Descriptor init against the store limit")
    out.append("")
    if cpu:
        c = next(iter(cpu.values()))
        out.append("CPU caches (CPUID %s): last-level cache %d MiB, vendor %s. Per-node "
                   "arrays: %s." % (
                       c["llc_source"], int(c["llc_bytes"]) >> 20, c["vendor"],
                       ", ".join("%d B: %d MiB" % (d, int(cpu[d]["node_array_bytes"]) >> 20)
                           for d in sorted(cpu))))
        out.append("")
    margin = int(next(iter(probes.values()))["plain_margin_pct"]) if probes else 0
    out.append("`init` is `memmap_init_range()`, the kernel's code, with the store "
               "`memmap_store_choose()` picks (plain for an array that fits the last-level "
               "cache; for a larger one the kind `memmap_store_probe()` picks, run as the "
               "kernel runs it at boot, before every repetition, on as many CPUs at once as the "
               "row's threads: "
               "after an LLC's worth of plain stores, a pass of each kind over half an LLC, "
               "non-temporal unless plain was at least %d %% faster; the last column); "
               "`init_plain` and `init_nt` force each kind. The limit " % margin +
               "is the fastest of `memset()` of a non-zero byte (glibc, vector stores), a "
               "plain 8-byte store loop, a `movnti` (8-byte) and a `movntdq` (16-byte) "
               "non-temporal loop over the same bytes (the loops writing the descriptors' own "
               "words) with the same threads, measured in the same run. init/limit is the median over the "
               "repetitions of init against the limit loop (the one with the lowest median) "
               "of the same repetition (1.00: init runs at the store limit; pairs share the "
               "machine's moment, which two medians taken at different moments do not), with "
               "that median's 95 % confidence interval in brackets (order statistics of the "
               "repetitions' ratios; on a shared host they spread by tens of per cent, and a "
               "row whose interval reaches 1.00 is not shown to differ from the limit); "
               "best/best compares the fastest repetitions, which "
               "a busy shared host disturbs least. Medians, with the fastest repetition in "
               "brackets.")
    out.append("")
    out.append("| desc bytes | threads | init ns/page | init GB/s | limit ns/page | limit GB/s "
               "| init/limit | best/best | init_plain ns/page | init_nt ns/page | memset "
               "| store loop | movnti loop | movntdq loop "
               "| store: plain picks of probes (last probe: plain, nt ms) |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for size in SIZES:
        for t in threads:
            get = lambda w: rows.get((size, t, w))
            init = get("init")
            if not init:
                continue
            lims = [(float(get(w)["ns_per_page"]), w) for w in LIMITS if get(w)]
            lim = min(lims) if lims else None
            ns = float(init["ns_per_page"])
            cells = [str(size), str(t), "%s (%s)" % (f(ns), f(float(init["min_ns_per_page"]))),
                     f(size / ns, 1)]
            if lim:
                best_lim = min(float(get(w)["min_ns_per_page"]) for w in LIMITS if get(w))
                paired = ratios.get((size, t))
                cells += ["%s (%s)" % (f(lim[0]), lim[1][4:]), f(size / lim[0], 1),
                          ratio_cell(paired) if paired else f(ns / lim[0]),
                          f(float(init["min_ns_per_page"]) / best_lim)]
            else:
                cells += ["-", "-", "-", "-"]
            for w in ("init_plain", "init_nt") + LIMITS:
                r = get(w)
                cells.append("%s (%s)" % (f(float(r["ns_per_page"])),
                                          f(float(r["min_ns_per_page"]))) if r else "-")
            p = probes.get((size, t))
            cells.append("plain %s of %s (%s, %s)" % (
                p["plain_picks"], p["probes"], f(int(p["plain_ns"]) / 1e6),
                f(int(p["nt_ns"]) / 1e6)) if p else "-")
            out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out.append("### Boot work per page: eager against lazy")
    out.append("")
    out.append("Eager: `memmap_init_range()` then `buddy_free_range()` per chunk (chunks "
               "cut by `kernel/services/jobs/plan.c`, aligned to 2^BUDDY_MAX_ORDER pages). Lazy: "
               "`memmap_init_heads()` (one head per 4 MiB block) then "
               "`buddy_free_range()`; tails are written when a block is allocated. "
               "`free` alone runs on descriptors already initialised. ns/page, medians.")
    out.append("")
    out.append("| desc bytes | threads | init_range | buddy_free_range | eager: init + free "
               "| init_heads | lazy: heads + free | eager / lazy |")
    out.append("|---|---|---|---|---|---|---|---|")
    for size in SIZES:
        for t in threads:
            get = lambda w: rows.get((size, t, w))
            vals = {w: float(get(w)["ns_per_page"]) for w in
                    ("init", "free", "boot_eager", "heads", "boot_lazy") if get(w)}
            if not vals:
                continue
            cell = lambda w, d=3: f(vals[w], d) if w in vals else "-"
            ratio = (f(vals["boot_eager"] / vals["boot_lazy"], 0)
                     if "boot_eager" in vals and "boot_lazy" in vals else "-")
            out.append("| %d | %d | %s | %s | %s | %s | %s | %s |" % (
                size, t, cell("init"), cell("free", 4), cell("boot_eager"),
                cell("heads", 4), cell("boot_lazy", 4), ratio))
    out.append("")
    out.append(END)
    return "\n".join(out) + "\n"


def splice(path, text):
    old = ""
    if os.path.exists(path):
        with open(path) as fh:
            old = fh.read()
    if BEGIN in old and END in old:
        a = old.index(BEGIN)
        b = old.index(END) + len(END)
        if b < len(old) and old[b] == "\n":
            b += 1
        new = old[:a] + text + old[b:]
    elif old:
        new = old.rstrip("\n") + "\n\n" + text
    else:
        new = "# Results\n\nBenchmark figures, each section with the command that made it.\n\n" + text
    with open(path, "w") as fh:
        fh.write(new)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--results", help="rewrite this file's memmap-bench section")
    ap.add_argument("--command", default="make bench")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    rows, cmds = run(a.bin_dir, args)
    if not rows:
        sys.exit("no measurements")
    text = section(rows, cmds, a.command)
    if a.results:
        splice(a.results, text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
