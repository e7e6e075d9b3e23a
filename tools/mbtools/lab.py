"""tools/memboot lab: allocators of mm/alloc/table.h side by side on the host.

    tools/memboot lab --quick --allocators buddy,bitmap,llfree --threads 1,2
    tools/memboot lab --workloads kbuild,trace --trace tests/tools/fixtures/kmem/kbuild.trace.xz

Each allocator x threads x workload runs build/bench/lab (bench/lab.c,
built natively with `make lab-build`, done here on demand) over the same
simulated machine with the same seed, and the results are printed as a
table, written as JSON and CSV, and drawn (latency CDF, fragmentation over
time, throughput against threads) with matplotlib.

Workloads: kbuild, deep, net (mm/alloc/churn.c), bulk, repeat, random,
frag (fill 90% with single pages, free three in four, count the 2 MiB blocks
left), and trace: a Linux kmem trace (tracefs text of kmem:mm_page_alloc,
mm_page_free, mm_page_free_batched, or `trace-cmd report` output; .xz or
.gz is read as such). Each alloc event of the trace becomes an allocation
of its order on the simulated machine; a free is matched to its allocation
by the trace's pfn; frees of pages allocated before the trace started are
counted and skipped, so are allocations of a pfn the trace still holds (a
free missing from it); every skip is reported. Each trace CPU's events run
on a thread of its own, a free waiting for its allocation when that came
from another CPU.

With --guest the same trace is also replayed in the guest (tools/memboot
run --replay, memboot.selftest=replay: every guest CPU, real boot memory,
the per-CPU lists in front) for each allocator, and its `replay` record
becomes a row beside the host's: the same columns, the latencies and the
unusable index computed by the same code (mm/alloc/lab_stats.c). Under TCG
the guest's times are an emulator's, many times the hardware's.
"""
import argparse
import atexit
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from mbtools import facts, hostinfo, inputs, kmemtrace, stats
from mbtools.kmemtrace import (REPLAY_MAGIC, REPLAY_SKIPS, trace_summary,  # noqa: F401
                               write_events, write_replay)

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
LAB_BIN = os.path.join(REPO_ROOT, "build", "bench", "lab")
COUNTED_BIN = os.path.join(REPO_ROOT, "build", "bench", "lab-counted")
STRESS_BIN = os.path.join(REPO_ROOT, "build", "bench", "lab-stress")
# Where PREFIX.json and PREFIX.csv go without --out: under build/, never
# into whatever directory the command was typed in.
DEFAULT_OUT = os.path.join(REPO_ROOT, "build", "lab", "memboot-lab")
DEFAULT_TRACE = os.path.join(REPO_ROOT, "tests", "tools", "fixtures", "kmem",
                             "kbuild.trace.xz")
WORKLOADS = ("kbuild", "deep", "net", "bulk", "repeat", "random", "frag", "trace")

class LabError(Exception):
    pass


class LabUsage(LabError):
    """A bad option or path, found before any run: exit 64 (docs/tools.md)."""


EXIT_USAGE = 64


def parse_trace(path, max_order=10):
    """(events [(cpu, op, order, id)], report dict) from a kmem trace
    (mbtools.kmemtrace), with at most as many CPUs as bench/lab.c has
    threads: each trace CPU runs on a thread of its own."""
    try:
        limit = kmemtrace.lab_max_threads()
        return kmemtrace.parse_trace(
            path, max_order, max_cpus=limit,
            cpus_limit="the lab runs a thread per trace CPU (bench/lab.c MAX_THREADS),")
    except kmemtrace.TraceError as e:
        raise LabError(str(e)) from None


def build(quiet, counted=False):
    targets = [os.path.relpath(LAB_BIN, REPO_ROOT)] + \
        ([os.path.relpath(COUNTED_BIN, REPO_ROOT)] if counted else [])
    r = subprocess.run(["make", "-s", "-C", REPO_ROOT] + targets,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise LabError("make %s failed:\n" % " ".join(targets) + r.stdout[-2000:] +
                       r.stderr[-2000:])


def failed_row(alloc, threads, workload, message, hang=False):
    """The row of a run whose checks failed: the first message, no figures;
    @hang: the run did not end (the lab runs nothing more of @alloc)."""
    return {"on": "host", "allocator": alloc, "workload": workload, "threads": threads,
            "check": False, "failure": message, "hang": hang}


def crash_message(stderr, returncode, timeout):
    """The failure of a run that ended without its row: the allocator's panic
    line (and the error it logged just before), or the signal."""
    lines = [l.strip() for l in (stderr or "").splitlines() if l.strip()]
    panic = [i for i, l in enumerate(lines) if l.startswith("panic:")]
    if panic:
        i = panic[0]
        before = lines[i - 1] + "; " if i and not lines[i - 1].startswith("lab:") else ""
        return "the allocator panicked: %s%s" % (before, lines[i][len("panic:"):].strip())
    sig = -returncode
    try:
        name = signal.Signals(sig).name
    except ValueError:
        name = "signal %d" % sig
    return "the run died of %s%s" % (name, (": " + lines[-1]) if lines else "")


def lab_argv(alloc, threads, workload, ops, mib, seed, sample=0, nodes=1, lazy=False,
             split=False, serial=False, pin=True, events=None, stress=0, binary=LAB_BIN):
    """The command line of one run of the harness (bench/lab.c)."""
    cmd = [binary, "--alloc", alloc, "--threads", str(threads), "--workload", workload,
           "--ops", str(ops), "--mib", str(mib), "--seed", str(seed),
           "--sample", str(sample or max(ops // 50, 100)), "--nodes", str(nodes),
           "--lazy", "1" if lazy else "0", "--split", "1" if split else "0",
           "--serial", "1" if serial else "0", "--pin", "1" if pin else "0"]
    if stress:
        cmd += ["--stress", str(stress)]
    if workload == "trace":
        cmd += ["--events", events]
    return cmd


def local_run(argv, timeout):
    """(status, stdout, stderr, timed out) of @argv on this machine."""
    try:
        r = subprocess.run(argv, capture_output=True, text=True, errors="replace",
                           timeout=timeout)
        return r.returncode, r.stdout, r.stderr, False
    except subprocess.TimeoutExpired as e:
        def text(x):
            return x.decode(errors="replace") if isinstance(x, bytes) else (x or "")
        return None, text(e.stdout), text(e.stderr), True


def run_row(cmd, alloc, threads, workload, timeout, run=local_run):
    """The row of one run of @cmd (lab_argv()); a run whose checks fail,
    that panics, crashes or hangs gives a failed row (failed_row) naming
    what went wrong. @run runs it (lab grade --class: in a sandbox)."""
    rc, out, err, timed_out = run(cmd, timeout)
    if timed_out:
        return failed_row(alloc, threads, workload,
                          "did not finish within %d s: a hang, e.g. a lock never released or "
                          "a search that never ends" % timeout, hang=True)
    if rc is not None and (rc < 0 or 128 < rc < 160):
        # A signal: negative from subprocess, 128 + N through a sandbox.
        return failed_row(alloc, threads, workload,
                          crash_message(err, rc if rc < 0 else 128 - rc, timeout))
    if rc not in (0, 3) or not out.strip():
        raise LabError("%s failed (status %s): %s" % (" ".join(cmd), rc, err.strip()[-500:]))
    try:
        res = json.loads(out.strip().splitlines()[-1])
    except ValueError:
        raise LabError("%s printed no result: %s" % (" ".join(cmd), out[-300:]))
    res.setdefault("on", "host")
    res["status"] = rc
    if rc == 3 or not res.get("check"):
        return failed_row(alloc, threads, workload,
                          res.get("failure") or "the checks at the end of the run failed")
    return res


def run_one(alloc, threads, workload, args, events_path, mib, serial=False):
    """One run's row (run_row) with the options of tools/memboot lab."""
    cmd = lab_argv(alloc, threads, workload, args.ops, mib, args.seed, args.sample,
                   args.nodes, args.lazy, args.split, serial, not args.no_pin, events_path)
    return run_row(cmd, alloc, threads, workload, args.timeout)


# --counted: the deterministic run again, under valgrind's callgrind with a
# simulated cache of a fixed shape (not the host's), collecting only inside
# the allocator's calls (bench/lab.c lab_counted_*). Instructions and
# simulated misses depend on the code and the seed alone: the same on every
# run and every x86-64 host, loaded or idle. The estimate of cycles is
# callgrind's own formula: Ir + 10 x L1 misses + 100 x LL misses.
CACHE = {"I1": (32768, 8, 64), "D1": (32768, 8, 64), "LL": (1048576, 16, 64)}
CALLGRIND = ["valgrind", "--tool=callgrind", "--cache-sim=yes"] + \
    ["--%s=%d,%d,%d" % ((k,) + v) for k, v in sorted(CACHE.items())] + \
    ["--toggle-collect=lab_counted_*", "--compress-strings=no", "--compress-pos=no"]
COUNTED_FNS = ("lab_counted_alloc", "lab_counted_free", "lab_counted_free_range")
COUNTED = (
    ("ir_per_op", "instr/op", 0), ("alloc_ir", "instr/alloc", 0), ("free_ir", "instr/free", 0),
    ("d1_miss_per_op", "D1 miss/op", 2), ("ll_miss_per_op", "LL miss/op", 3),
    ("locks_per_op", "locks/op", 2), ("est_cycles_per_op", "est. cycles/op", 0),
    ("init_ir_per_page", "init instr/page", 2),
)


def parse_callgrind(text):
    """{function: {"calls": N, EVENT: inclusive cost}} of COUNTED_FNS from a
    callgrind output file (--compress-strings=no --compress-pos=no): each
    function's own cost lines plus the cost lines of the calls it made."""
    events, fn, call, out = [], None, None, {}
    for line in text.splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("fn="):
            fn, call = line[3:].strip(), None
        elif line.startswith("calls="):
            call = int(line[6:].split()[0])
        elif line[:1].isdigit() and fn in COUNTED_FNS:
            costs = [int(x) for x in line.split()[1:]]
            f = out.setdefault(fn, dict({"calls": 0}, **{e: 0 for e in events}))
            for e, c in zip(events, costs):
                f[e] += c
            if call is not None:
                f["calls"] += call
            call = None
        elif line[:1].isdigit():
            call = None
    return out


def counted_figures(row, costs):
    """Per operation figures of a counted run: @row its JSON, @costs
    parse_callgrind() of its output."""
    a = costs.get("lab_counted_alloc", {})
    f = costs.get("lab_counted_free", {})
    init = costs.get("lab_counted_free_range", {})
    allocs, frees = a.get("calls", 0), f.get("calls", 0)
    ops = max(allocs + frees, 1)

    def both(*events):
        return sum(a.get(e, 0) + f.get(e, 0) for e in events)
    return {"allocs": allocs, "frees": frees,
            "ir_per_op": both("Ir") / ops,
            "alloc_ir": a.get("Ir", 0) / max(allocs, 1), "free_ir": f.get("Ir", 0) / max(frees, 1),
            "d1_miss_per_op": both("D1mr", "D1mw") / ops,
            "ll_miss_per_op": both("DLmr", "DLmw") / ops,
            "locks_per_op": row["lock"]["acquired"] / ops,
            "est_cycles_per_op": (both("Ir") + 10 * both("I1mr", "D1mr", "D1mw") +
                                  100 * both("ILmr", "DLmr", "DLmw")) / ops,
            "init_ir_per_page": init.get("Ir", 0) / max(row.get("pages") or 1, 1)}


def counted_row(alloc, threads, workload, ops, mib, seed, events, out_file, nodes=1,
                timeout=600, run=local_run, binary=COUNTED_BIN):
    """The deterministic run of one cell under callgrind: {"check": True,
    "counted": {...}} or the failed row. @out_file: where callgrind writes
    (removed afterwards)."""
    cmd = CALLGRIND + ["--callgrind-out-file=" + out_file] + lab_argv(
        alloc, threads, workload, ops, mib, seed, sample=10 * ops, nodes=nodes, serial=True,
        pin=False, events=events, binary=binary)
    row = run_row(cmd, alloc, threads, workload, timeout, run)
    if row["check"]:
        try:
            with open(out_file, encoding="utf-8", errors="replace") as f:
                costs = parse_callgrind(f.read())
        except OSError as e:
            raise LabError("callgrind wrote no %s: %s" % (out_file, e.strerror or e))
        finally:
            if os.path.exists(out_file):
                os.unlink(out_file)
        row["counted"] = counted_figures(row, costs)
    return row


def counted_cache_get(path, key):
    """Counted figures kept in @path under @key (they are the same on every
    run of the same objects), or None."""
    try:
        with open(path, encoding="utf-8") as f:
            kept = json.load(f)
        return kept["figures"] if kept.get("key") == key else None
    except (OSError, ValueError, KeyError, AttributeError):
        return None


def counted_cache_put(path, key, figures):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".part", "w", encoding="utf-8") as f:
            json.dump({"key": key, "figures": figures}, f)
        os.replace(path + ".part", path)
    except OSError:
        pass


def guest_row(alloc, args, rep, mib):
    """Replay --trace in the guest with @alloc: its replay record as a row
    shaped like the host's (run_one)."""
    from mbtools import boot as mbboot
    # One guest CPU per trace CPU; memory for the trace as on the host, and
    # at least 1 GiB (the kernel's own and the per-CPU lists).
    mem = "%dM" % max(1024, 2 * mib)
    # The boot with no firmware: x86_64's PVH, another port's default (arm64's
    # image), each with run's default kernel of that port.
    boot_path = "pvh" if args.arch in (None, "x86_64") else \
        facts.architectures()[args.arch].run_boot
    argv = mbboot.run_argv(nodes=1, cpus_per_node=rep["cpus"], mem_per_node=mem,
                           boot_path=boot_path, replay=args.trace, timeout=args.timeout,
                           append="memboot.alloc=%s memboot.selftest=replay" % alloc,
                           accel=args.accel, arch=args.arch)
    b = mbboot.boot(argv)
    recs = b.all("replay")
    if b.status != 0 or len(recs) != 1:
        raise LabError("guest replay with %s failed (status %s, %d replay records): %s" % (
            alloc, b.status, len(recs), (b.stderr or b.console)[-800:]))
    g = recs[0]
    ok = [t for t in b.all("selftest") if t.get("name") == "replay"]
    census_ok = all(c["lost"] == 0 and c["check"] for c in b.all("census"))
    lat = {}
    for op in ("alloc", "free"):
        lat[op + "_all"] = {"n": g[op + "_n"]}
        lat[op + "_all"].update({k: g["%s_%s" % (op, k)]
                                 for k in ("p50_ns", "p99_ns", "p999_ns", "max_ns")})
    ns = max(g["ns"], 1)
    return {"on": "guest", "accel": args.accel, "allocator": alloc, "workload": "trace",
            "threads": g["threads"], "pages": None, "ops": g["replayed"],
            "failed": g["alloc_failed"], "wall_s": ns / 1e9, "mops": g["replayed"] * 1e3 / ns,
            "check": bool(ok and ok[0]["ok"] and census_ok),
            "init_ns_per_page": 0.0, "bookkeeping_bytes_per_page": 0.0,
            "lock": {"acquired": g["lock_acquired"], "contended": g["lock_contended"],
                     "spin_ns": g["spin_ns"]},
            "replayed": g["replayed"], "replay_alloc_failed": g["alloc_failed"],
            "deferred_frees": g["deferred_frees"], "latency": lat, "frag": [],
            "frag_end": {"unusable_9": g["unusable_9_permille"] / 1000.0,
                         "blocks": g["free_blocks"]},
            "record": g}


# The timed figures of a row: each run's value, then the median and its 95 %
# interval over --repeat runs (tools/mbtools/stats.py).
TIMED = (
    ("mops", "Mops/s", lambda r: r["mops"]),
    ("alloc_p50_ns", "alloc p50 ns", lambda r: r["latency"].get("alloc_all", {}).get("p50_ns", 0)),
    ("alloc_p99_ns", "alloc p99 ns", lambda r: r["latency"].get("alloc_all", {}).get("p99_ns", 0)),
    ("alloc_p999_ns", "alloc p99.9 ns",
     lambda r: r["latency"].get("alloc_all", {}).get("p999_ns", 0)),
    ("alloc_max_ns", "alloc max ns", lambda r: r["latency"].get("alloc_all", {}).get("max_ns", 0)),
    ("alloc_p99_ticks", "alloc p99 ticks",
     lambda r: r["latency"].get("alloc_all", {}).get("p99_ticks", 0)),
    ("free_p50_ns", "free p50 ns", lambda r: r["latency"].get("free_all", {}).get("p50_ns", 0)),
    ("free_p99_ns", "free p99 ns", lambda r: r["latency"].get("free_all", {}).get("p99_ns", 0)),
    ("lock_contended", "lock contended", lambda r: r["lock"]["contended"]),
    ("lock_spin_us", "lock spin us", lambda r: r["lock"]["spin_ns"] / 1e3),
    ("init_ns_per_page", "init ns/page", lambda r: r["init_ns_per_page"]),
)


def summarise(values):
    """{"median", "lo", "hi", "n", "values"}: the median and its 95 % interval."""
    v = sorted(values)
    n = len(v)
    med = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    lo, hi = stats.median_ci(v)
    return {"median": med, "lo": lo, "hi": hi, "n": n, "values": list(values)}


def deterministic(r):
    """The figures of the --serial run that a fixed seed makes identical from
    run to run: what was done, what failed, what is left free and how."""
    end = r.get("frag_end") or {}
    last = r["frag"][-1] if r.get("frag") else end
    d = {"ops": r["ops"], "failed": r["failed"],
         "allocs_by_order": r.get("allocs_by_order"), "failed_by_order": r.get("failed_by_order"),
         "bookkeeping_bytes_per_page": r["bookkeeping_bytes_per_page"],
         # The trace's end: what it still holds held; else the last sample.
         "unusable_9": (end if r["workload"] == "trace" else last).get("unusable_9", 0.0),
         "blocks_end": end.get("blocks"), "unusable_end": end.get("unusable"),
         "extfrag_end": end.get("extfrag"),
         "frag": [{k: s[k] for k in ("ops", "blocks")} for s in r.get("frag", [])]}
    for k in ("replayed", "replay_alloc_failed", "huge_after_scatter", "huge_ideal"):
        if k in r:
            d[k] = r[k]
    return d


def combine(det, timed_runs):
    """One row from the deterministic run and the timed runs (all passed)."""
    by_mops = sorted(timed_runs, key=lambda r: r["mops"])
    row = dict(by_mops[len(by_mops) // 2])     # the median run: its CDF is drawn
    row["timed"] = {key: summarise([f(r) for r in timed_runs]) for key, _, f in TIMED}
    row["mops"] = row["timed"]["mops"]["median"]
    row["deterministic"] = deterministic(det)
    row["frag"] = det.get("frag", [])
    row["frag_end"] = det.get("frag_end", {})
    row["pinned"] = all(r.get("pinned") for r in timed_runs)
    return row


def cell(x, digits=0):
    """A median with its interval: "5.02 [4.91, 5.20]"; one run: the value."""
    f = "%%.%df" % digits
    if x["n"] == 1 or x["lo"] is None:
        return f % x["median"]
    return (f + " [" + f + ", " + f + "]") % (x["median"], x["lo"], x["hi"])


def row_timed(r):
    """A row's timed figures as summaries (a guest row has one run)."""
    if "timed" in r:
        return r["timed"]
    return {key: summarise([f(r)]) for key, _, f in TIMED}


TIMED_COLS = [("mops", 2), ("alloc_p50_ns", 0), ("alloc_p99_ns", 0), ("alloc_p999_ns", 0),
              ("alloc_max_ns", 0), ("free_p50_ns", 0), ("free_p99_ns", 0), ("lock_contended", 0),
              ("lock_spin_us", 0), ("init_ns_per_page", 2)]
TIMED_HEADER = ["on", "allocator", "workload", "thr"] + \
    [dict((k, t) for k, t, _ in TIMED)[k] for k, _ in TIMED_COLS] + ["check"]
DET_HEADER = ["on", "allocator", "workload", "thr", "ops", "failed", "bytes/page",
              "unusable@9", "free blocks o9/o10 at end", "check", "notes"]
HEADER = TIMED_HEADER   # the CSV's first table


def fmt_timed(r):
    head = [r.get("on", "host"), r["allocator"], r["workload"], str(r["threads"])]
    if not r["check"]:
        return head + ["-"] * len(TIMED_COLS) + ["FAILED"]
    t = row_timed(r)
    cells = []
    for key, digits in TIMED_COLS:
        if key == "init_ns_per_page" and r.get("on") == "guest":
            cells.append("-")   # the guest's replay does not time the allocator's start
        else:
            cells.append(cell(t[key], digits))
    return head + cells + ["yes"]


def fmt_det(r):
    head = [r.get("on", "host"), r["allocator"], r["workload"], str(r["threads"])]
    if not r["check"]:
        return head + ["-"] * 5 + ["FAILED", r.get("failure", "")[:160]]
    d = r.get("deterministic") or deterministic(r)
    blocks = d.get("blocks_end") or []
    return head + [str(d["ops"]), str(d["failed"]),
                   "-" if r.get("on") == "guest" else "%.3f" % d["bookkeeping_bytes_per_page"],
                   "%.3f" % d["unusable_9"],
                   "%s/%s" % tuple(blocks[9:11]) if len(blocks) == 11 else "-",
                   "yes", note(r)]


def fmt_row(r):
    """The CSV row: the timed cells, then the deterministic ones."""
    return fmt_timed(r) + fmt_det(r)[4:]


def print_md(header, cells, out):
    print("| " + " | ".join(header) + " |", file=out)
    print("|" + "|".join("---" for _ in header) + "|", file=out)
    for c in cells:
        print("| " + " | ".join(c) + " |", file=out)


def note(r):
    if r.get("on") == "guest":
        return "guest (%s): replayed %d, alloc failed %d, deferred frees %d" % (
            r["accel"], r["replayed"], r["replay_alloc_failed"], r["deferred_frees"])
    if r["workload"] == "trace":
        return "replayed %d, alloc failed %d" % (r.get("replayed", 0),
                                                r.get("replay_alloc_failed", 0))
    if r["workload"] == "frag":
        return "2 MiB blocks after scatter %d (free pages / 512: %d)" % (r.get("huge_after_scatter", 0),
                                                       r.get("huge_ideal", 0))
    return ""


def overlaps(x, y):
    """Whether two summaries' 95 % intervals overlap (None: no interval)."""
    if x["lo"] is None or y["lo"] is None or x["n"] < 2 or y["n"] < 2:
        return None
    return x["lo"] <= y["hi"] and y["lo"] <= x["hi"]


def indistinct(rows, key="mops"):
    """[(workload, threads, [allocators])]: designs of one workload and
    thread count whose timed @key cannot be told apart (their intervals
    overlap); with one run per row, no interval: every design of the cell."""
    cells = {}
    for r in rows:
        if r["check"] and r.get("on", "host") == "host":
            cells.setdefault((r["workload"], r["threads"]), []).append(r)
    out = []
    for (w, t), sel in sorted(cells.items()):
        for i, a in enumerate(sel):
            for b in sel[i + 1:]:
                o = overlaps(row_timed(a)[key], row_timed(b)[key])
                if o is None or o:
                    out.append((w, t, [a["allocator"], b["allocator"]]))
    return out


def print_indistinct(rows, repeat, out=sys.stdout):
    same = indistinct(rows)
    if not same:
        return
    if repeat < 2:
        print("\none timed run per row: no interval, so no two designs can be told apart by a "
              "timed figure (--repeat 5 or more; --counted gives figures that are the same on "
              "every run)", file=out)
        return
    print("\ncannot be told apart by Mops/s (their 95 % intervals overlap): " + "; ".join(
        "%s x%d: %s" % (w, t, " and ".join(names)) for w, t, names in same), file=out)


def with_index(rows):
    """Each counted row's index within its workload and thread count: 100
    times the best estimate of cycles per operation there over its own
    (100: the cheapest design of the cell; 50: twice its cost)."""
    best = {}
    for r in rows:
        if r.get("counted"):
            k = (r["workload"], r["threads"])
            best[k] = min(best.get(k, float("inf")), r["counted"]["est_cycles_per_op"])
    for r in rows:
        if r.get("counted"):
            c = r["counted"]
            c["index"] = 100.0 * best[(r["workload"], r["threads"])] / \
                max(c["est_cycles_per_op"], 1e-9)


def print_counted(rows, out=sys.stdout):
    print("\ncounted (the deterministic run under callgrind, inside the allocator's calls only; "
          "I1/D1 32 KiB 8-way, LL 1 MiB 16-way, 64 B lines, simulated: the same on every run "
          "and host; index: 100 x the cell's cheapest est. cycles/op over this row's):", file=out)
    head = ["allocator", "workload", "thr"] + [t for _, t, _ in COUNTED] + ["index"]
    cells = []
    for r in rows:
        if r.get("on", "host") != "host":
            continue
        c = r.get("counted")
        lead = [r["allocator"], r["workload"], str(r["threads"])]
        if not c:
            cells.append(lead + ["-"] * (len(COUNTED) + 1))
            continue
        cells.append(lead + ["%.*f" % (d, c[k]) for k, _, d in COUNTED] + ["%.0f" % c["index"]])
    print_md(head, cells, out)


def print_table(rows, out=sys.stdout, repeat=1):
    print("\ntimed (median [95 %% interval] of %d run(s) per row; times vary run to run):"
          % repeat, file=out)
    print_md(TIMED_HEADER, [fmt_timed(r) for r in rows], out)
    print_indistinct(rows, repeat, out)
    print("\ndeterministic (one --serial run per row: the threads take turns, so a fixed "
          "seed gives the same blocks every time):", file=out)
    print_md(DET_HEADER, [fmt_det(r) for r in rows], out)


def style(alloc, threads, all_threads):
    """One colour per allocator (its place in mm/alloc/table.h) and one line
    style per thread count, the same in every panel and every figure."""
    names = list(facts.ALLOCATORS)
    colours = ["C%d" % i for i in range(10)]
    styles = ["-", "--", ":", "-."]
    i = names.index(alloc) if alloc in names else len(names)
    t = sorted(all_threads).index(threads) if threads in all_threads else 0
    return {"color": colours[i % 10], "linestyle": styles[t % len(styles)]}


def with_gaps(xs, ys):
    """A series with None where samples are missing (a gap wider than 1.5 x
    the usual step), so the line breaks instead of bridging it."""
    if len(xs) < 3:
        return xs, ys
    steps = sorted(b - a for a, b in zip(xs, xs[1:]))
    usual = steps[len(steps) // 2] or 1
    ox, oy = [xs[0]], [ys[0]]
    for (a, b), y in zip(zip(xs, xs[1:]), ys[1:]):
        if b - a > 1.5 * usual:
            ox.append(None)
            oy.append(None)
        ox.append(b)
        oy.append(y)
    return ox, oy


def order_key(r):
    names = list(facts.ALLOCATORS)
    return (names.index(r["allocator"]) if r["allocator"] in names else 99, r["threads"],
            r.get("on", "host"))


def plot(rows, prefix, fmt):
    from mbtools import plot as mbplot
    plt = mbplot.import_pyplot()
    if plt is None:
        print("memboot lab: matplotlib missing (tools/setup-deps.sh): no plots", file=sys.stderr)
        return []
    written = []
    rows = [r for r in rows if r["check"]]   # failed rows have nothing to draw
    for wl in sorted({r["workload"] for r in rows}):
        sel = sorted([r for r in rows if r["workload"] == wl], key=order_key)
        thr = {r["threads"] for r in sel}
        fig, ax = plt.subplots(1, 3, figsize=(16, 4.5))
        for r in sel:
            label = "%s x%d%s" % (r["allocator"], r["threads"],
                                   " (guest)" if r.get("on") == "guest" else "")
            st = style(r["allocator"], r["threads"], thr)
            cdf = r["latency"].get("cdf_alloc_ns") or \
                r["latency"].get("alloc_all", {}).get("cdf_alloc_ns")
            if cdf:
                ax[0].plot([max(v, 1) for v in cdf], [q / 100 for q in range(len(cdf))],
                           label=label, **st)
            if r["frag"]:
                xs, ys = with_gaps([s["ops"] for s in r["frag"]],
                                   [s["unusable_9"] for s in r["frag"]])
                ax[1].plot(xs, ys, label=label, marker=".", markersize=3, **st)
        ax[0].set_xscale("log")
        ax[0].set_xlabel("alloc latency (ns)")
        ax[0].set_ylabel("fraction of allocations")
        ax[0].set_title("latency CDF (%s, the median run)" % wl)
        ax[1].set_xlabel("operations")
        ax[1].set_ylabel("unusable free space index, order 9")
        ax[1].set_title("fragmentation over time (deterministic run)")
        for alloc in sorted({r["allocator"] for r in sel}, key=lambda a: order_key(
                {"allocator": a, "threads": 0})):
            pts = sorted((r["threads"], r["mops"], row_timed(r)["mops"]) for r in sel
                         if r["allocator"] == alloc and r.get("on") != "guest")
            if not pts:
                continue
            st = dict(style(alloc, min(thr), thr), linestyle="-")
            ax[2].errorbar([p[0] for p in pts], [p[1] for p in pts],
                           yerr=[[p[1] - (p[2]["lo"] if p[2]["lo"] is not None else p[1])
                                  for p in pts],
                                 [(p[2]["hi"] if p[2]["hi"] is not None else p[1]) - p[1]
                                  for p in pts]],
                           marker="o", capsize=3, label=alloc, **st)
        ax[2].set_xlabel("threads")
        ax[2].set_ylabel("Mops/s (median, 95 % interval)")
        ax[2].set_title("throughput against threads")
        for a in ax:
            a.legend(fontsize=7)
        fig.tight_layout()
        path = "%s-%s.%s" % (prefix, wl, fmt)
        fig.savefig(path)
        plt.close(fig)
        written.append(path)
        # Free blocks per order over time: one heatmap per row.
        heat = [r for r in sel if r["frag"]]
        if heat:
            fig, axes = plt.subplots(len(heat), 1, figsize=(10, 1.8 * len(heat) + 0.8),
                                     squeeze=False)
            import math
            top = max(math.log10(b + 1) for r in heat for s in r["frag"] for b in s["blocks"])
            for a, r in zip(axes[:, 0], heat):
                grid = [[math.log10(s["blocks"][k] + 1) for s in r["frag"]]
                        for k in range(len(r["frag"][0]["blocks"]))]
                im = a.imshow(grid, aspect="auto", origin="lower", vmin=0, vmax=top or 1,
                              cmap="viridis", interpolation="nearest",
                              extent=(r["frag"][0]["ops"], r["frag"][-1]["ops"], -0.5,
                                      len(grid) - 0.5))
                a.set_ylabel("order")
                a.set_title("%s x%d: free blocks per order" % (r["allocator"], r["threads"]),
                            fontsize=9)
            axes[-1, 0].set_xlabel("operations (deterministic run)")
            fig.colorbar(im, ax=axes[:, 0].tolist(), label="log10(free blocks + 1)")
            path = "%s-%s-orders.%s" % (prefix, wl, fmt)
            fig.savefig(path)
            plt.close(fig)
            written.append(path)
    return written


# --slide / --columns: one short table, medians only, for a slide.
SLIDE_COLS = {
    "allocator": ("allocator", lambda r, t, d: r["allocator"]),
    "workload": ("workload", lambda r, t, d: r["workload"]),
    "thr": ("thr", lambda r, t, d: str(r["threads"])),
    "on": ("on", lambda r, t, d: r.get("on", "host")),
    "failed": ("failed", lambda r, t, d: str(d["failed"])),
    "bytes_page": ("bytes/page", lambda r, t, d: "%.3f" % d["bookkeeping_bytes_per_page"]),
    "unusable_9": ("unusable@9", lambda r, t, d: "%.3f" % d["unusable_9"]),
}
for _key, _title, _ in TIMED:
    SLIDE_COLS[_key] = (_title, (lambda k: lambda r, t, d: "%.*f" % (
        2 if k in ("mops", "init_ns_per_page") else 0, t[k]["median"]))(_key))
SLIDE_DEFAULT = "allocator,workload,thr,mops,alloc_p99_ns,unusable_9"


def print_slide(rows, columns, out=sys.stdout):
    cols = columns.split(",")
    cells = []
    for r in rows:
        if not r["check"]:
            cells.append([r["allocator"] if c == "allocator" else r["workload"]
                          if c == "workload" else str(r["threads"]) if c == "thr" else "FAILED"
                          for c in cols])
            continue
        t, d = row_timed(r), r.get("deterministic") or deterministic(r)
        cells.append([SLIDE_COLS[c][1](r, t, d) for c in cols])
    print_md([SLIDE_COLS[c][0] for c in cols], cells, out)


def print_orders(rows, out=sys.stdout):
    """Per-order tables: allocations, latency of the median run, free blocks
    at the end, and Linux's two indices, for every order 0..10."""
    orders = list(range(11))
    for title, fn in (
            ("allocations by order (deterministic run)",
             lambda r, d: d.get("allocs_by_order") or []),
            ("alloc p99 ns by order (the median timed run)",
             lambda r, d: ["%d" % r["latency"].get("alloc_o%d" % k, {}).get("p99_ns", 0)
                           if "alloc_o%d" % k in r["latency"] else "-" for k in orders]),
            ("free blocks by order at the end (deterministic run)",
             lambda r, d: d.get("blocks_end") or []),
            ("unusable free space index by order at the end (Linux's unusable_index)",
             lambda r, d: ["%.3f" % v for v in (d.get("unusable_end") or [])]),
            ("fragmentation index by order at the end (Linux's extfrag_index; -1.000: a "
             "request of that order would succeed)",
             lambda r, d: ["%.3f" % v for v in (d.get("extfrag_end") or [])])):
        print("\n" + title + ":", file=out)
        cells = []
        for r in rows:
            if not r["check"] or r.get("on") == "guest":
                continue
            d = r.get("deterministic") or deterministic(r)
            vals = [str(v) for v in fn(r, d)]
            cells.append([r["allocator"], r["workload"], str(r["threads"])] +
                         (vals + ["-"] * 11)[:11])
        print_md(["allocator", "workload", "thr"] + ["o%d" % k for k in orders], cells, out)


def _uint(what, low=0, high=None):
    """An argparse type: ASCII digits, @low..@high, or a usage error naming
    the option."""
    def check(text):
        v = inputs.parse_uint(text.strip())
        if v is None:
            raise inputs._argument_error("%s %r: not a whole number" % (what, text))
        if v < low or (high is not None and v > high):
            raise inputs._argument_error("%s %r: must be %d to %s" % (
                what, text, low, high if high is not None else "any"))
        return v
    return check


def add_parser(sub):
    p = sub.add_parser(
        "lab", help="compare page allocators on the host: churn mixes, patterns, trace replay",
        description=__doc__.split("\n\n")[0])
    p.add_argument("verb", nargs="*", metavar="new NAME | grade NAME | grade --class DIR",
                   help="the course kit (docs/teaching.md): `new NAME` writes "
                        "mm/alloc/NAME.c from the skeleton and registers it; `grade NAME` "
                        "runs the suite, the checked lab, the stress runs and a guest boot: "
                        "PASS or FAIL; `grade --class DIR --csv FILE` grades every "
                        "STUDENT.c of DIR, each in a sandbox")
    p.add_argument("--no-guest", action="store_true",
                   help="grade: leave out the guest boot (reported as skipped)")
    g = p.add_argument_group("lab grade (docs/teaching.md, \"Running a course\")")
    g.add_argument("--class", dest="klass", metavar="DIR",
                   help="grade every DIR/STUDENT.c, each alone in a sandbox")
    g.add_argument("--csv", metavar="FILE", help="--class: the verdicts, a row per student")
    g.add_argument("--json", metavar="FILE", help="--class: the same as JSON, with the limits")
    g.add_argument("--reports", metavar="DIR",
                   help="--class: a report per student, DIR/STUDENT.txt (default: the CSV's "
                        "name without .csv, then -reports)")
    g.add_argument("--report", metavar="FILE",
                   help="grade NAME: also write the whole report (every check's output) there")
    g.add_argument("--hidden", metavar="DIR",
                   help="grade: also run the lecturer's hidden checks of DIR (its checks "
                        "file and traces), kept outside the students' tree")
    g.add_argument("--jobs", type=_uint("--jobs", 1, 64), default=None,
                   help="--class: students graded at a time (default: one per CPU, at most 8)")
    g.add_argument("--sandbox", choices=("auto", "bwrap", "unshare", "none"), default="auto",
                   help="--class: how student code is kept apart (default auto: bubblewrap, "
                        "else unshare, else none, with a warning)")
    g.add_argument("--user", default="nobody",
                   help="--class, run as root: the unprivileged user student code runs as "
                        "(default nobody)")
    g.add_argument("--student-limit-s", type=_uint("--student-limit-s", 60, 86400), default=900,
                   help="--class: seconds one student's whole grade may take (default 900); "
                        "each step has its own limit too")
    g.add_argument("--keep", action="store_true",
                   help="--class: keep the scratch trees (their path is printed)")
    p.add_argument("--allocators", default=",".join(facts.ALLOCATORS),
                   help="comma-separated, from mm/alloc/table.h (default: all: %(default)s)")
    p.add_argument("--threads", default=None,
                   help="comma-separated thread counts (default 1,2); for trace the default "
                        "is one thread per trace CPU, and given counts replay trace CPU c on "
                        "thread c mod N")
    p.add_argument("--workloads", default="kbuild,trace",
                   help="comma-separated, of %s (default kbuild,trace)" % ", ".join(WORKLOADS))
    p.add_argument("--trace", default=DEFAULT_TRACE, help="kmem trace for the trace workload "
                   "(tracefs or trace-cmd report text, .xz/.gz ok)")
    p.add_argument("--ops", type=_uint("--ops", 1000), default=1000000,
                   help="operations of a run (default 1e6): kbuild, deep, net: allocations over "
                        "all threads together (each with its free); bulk, repeat, random: "
                        "operations per thread; frag and trace ignore it")
    p.add_argument("--mib", type=_uint("--mib", 16, 1 << 20), default=1024,
                   help="simulated memory (default 1024 MiB)")
    p.add_argument("--nodes", type=_uint("--nodes", 1, 8), default=1,
                   help="simulated nodes, 1 to 8 (default 1); "
                   "thread t allocates on node t %% nodes first, then the others")
    p.add_argument("--lazy", action="store_true",
                   help="lazy memory: only block heads written before the allocator "
                        "takes it (memboot.init=lazy); default eager")
    p.add_argument("--split", action="store_true",
                   help="half the machine below the 4 GiB line: node 0 gets a DMA32 and a "
                        "Normal zone (default: all above it)")
    p.add_argument("--seed", type=_uint("--seed", 0), default=1)
    p.add_argument("--sample", type=_uint("--sample", 0), default=0,
                   help="fragmentation sample every N ops (default 0: ops / 50)")
    p.add_argument("--repeat", type=_uint("--repeat", 1, 100), default=1,
                   help="timed runs per row (default 1): each timed figure is their median "
                        "with its 95 %% interval; the deterministic figures come from one "
                        "more run in which the threads take turns")
    p.add_argument("--no-pin", action="store_true",
                   help="leave the threads unpinned (default: thread t on the t-th CPU "
                        "this process may use)")
    p.add_argument("--quick", action="store_true",
                   help="small runs (200k ops, 256 MiB): all of it within a minute")
    p.add_argument("--out", default=None, metavar="PREFIX",
                   help="writes PREFIX.json, PREFIX.csv and PREFIX-WORKLOAD.png (default "
                        "build/lab/memboot-lab in the tree)")
    p.add_argument("--format", choices=("png", "svg"), default="png")
    p.add_argument("--slide", action="store_true",
                   help="print one short table of medians (for a slide) instead of the two "
                        "full ones; --columns chooses its columns")
    p.add_argument("--columns", default=None, metavar="LIST",
                   help="the --slide table's columns, comma-separated, of: %s (default %s)"
                        % (", ".join(sorted(SLIDE_COLS)), SLIDE_DEFAULT))
    p.add_argument("--orders", action="store_true",
                   help="also print per-order tables: allocations, p99 latency, free blocks, "
                        "and Linux's unusable and fragmentation indices for every order")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--timeout", type=_uint("--timeout", 1, inputs.MAX_TIMEOUT_S), default=600,
                   help="seconds per run (default 600); a run past it fails its row, and "
                        "that allocator's other rows are not run")
    p.add_argument("--counted", action="store_true",
                   help="also run each row's deterministic run under valgrind's callgrind: "
                        "instructions, simulated cache misses and lock acquisitions per "
                        "operation, the same on every run (build/bench/lab-counted)")
    p.add_argument("--guest", action="store_true",
                   help="also replay --trace in the guest (tools/memboot run --replay, QEMU) "
                        "with each allocator: its row beside the host's")
    p.add_argument("--accel", choices=("tcg", "kvm"), default="tcg",
                   help="QEMU accelerator for --guest (default tcg: emulated, slow times)")
    p.add_argument("--arch", type=inputs.arch_arg, default=None, metavar="NAME",
                   help="the guest's architecture for --guest, as run --arch (default "
                        "x86_64)")
    p.set_defaults(func=main)
    return p


STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def _stopped(signum, frame):
    """SIGTERM, SIGHUP or ^C during a run: end it by SystemExit, so that the
    harness running now is killed (subprocess.run kills its child on the way
    out) and atexit removes the scratch directory; 128 + the signal, as the
    shell counts it. Later signals are ignored while that happens."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    print("memboot lab: stopped by %s; its scratch files removed"
          % signal.Signals(signum).name, file=sys.stderr)
    raise SystemExit(128 + signum)


def main(args):
    if args.verb or args.klass:
        from mbtools import lab_kit
        try:
            if args.verb == ["grade"] and args.klass:
                from mbtools import lab_class
                return lab_class.main(args)
            if args.klass:
                raise lab_kit.KitError("--class DIR goes with `grade` alone: `lab grade "
                                       "--class DIR --csv FILE`")
            if len(args.verb) != 2 or args.verb[0] not in ("new", "grade"):
                raise lab_kit.KitError("%r: the course kit takes `new NAME`, `grade NAME` or "
                                       "`grade --class DIR`" % " ".join(args.verb))
            if args.verb[0] == "new":
                return lab_kit.new(args.verb[1])
            for opt in ("csv", "json", "reports"):
                if getattr(args, opt):
                    raise lab_kit.KitError("--%s goes with --class" % opt)
            hidden = lab_kit.HiddenSet(args.hidden) if args.hidden else None
            if args.report and inputs.output_problem(args.report):
                raise lab_kit.KitError("--report: " + inputs.output_problem(args.report))
            g = lab_kit.grade(args.verb[1], guest=not args.no_guest, seed=args.seed,
                              hidden=hidden)
            if args.report:
                with open(args.report, "w", encoding="utf-8") as f:
                    lab_kit.report(g, f, full=True)
            return 0 if g.passed else 1
        except lab_kit.KitError as e:
            print("memboot lab: %s" % e, file=sys.stderr)
            return EXIT_USAGE
    try:
        return _main(args)
    except LabUsage as e:
        print("memboot lab: %s" % e, file=sys.stderr)
        return EXIT_USAGE
    except LabError as e:
        print("memboot lab: %s" % e, file=sys.stderr)
        return 1


def _list(text, what, allowed=None):
    items = [x.strip() for x in text.split(",")]
    if not text.strip():
        raise LabUsage("no %s given" % what)
    if any(not x for x in items):
        raise LabUsage("%s %r: an empty item (two commas, or one at an end)" % (what, text))
    if allowed is not None:
        bad = [x for x in items if x not in allowed]
        if bad:
            raise LabUsage("unknown %s %s (known: %s)" % (what, ", ".join(bad),
                                                          ", ".join(allowed)))
    return items


def output_prefix_problem(prefix):
    """None if PREFIX.json, PREFIX.csv and the plots can be written: checked
    by creating them (a directory the process may enter can still refuse a
    new file, as /proc does), before any run."""
    for ext in (".json", ".csv"):
        path = prefix + ext
        problem = inputs.output_problem(path)
        if problem:
            return problem
        existed = os.path.exists(path)
        try:
            with open(path, "a"):
                pass
        except OSError as e:
            return "cannot write %s: %s" % (path, e.strerror or e)
        if not existed:
            os.unlink(path)
    return None


def host_warnings(threads, pinned):
    """What makes this host's times less trustworthy, one line each."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    out = []
    if max(threads, default=1) > cpus:
        out.append("%d threads on %d CPUs: threads share CPUs, so times include waiting for "
                   "one (a lock holder preempted spins its waiters for a whole time slice)"
                   % (max(threads), cpus))
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = 0.0
    if load > 0.5 * cpus:
        out.append("load average %.2f on %d CPUs: other work competes for them; run "
                   "--repeat 5 or more and read the intervals" % (load, cpus))
    if not pinned:
        out.append("the threads could not be pinned to CPUs (--no-pin, or the host refused)")
    return out, cpus


def _main(args):
    allocs = _list(args.allocators, "allocator", facts.ALLOCATORS)
    workloads = _list(args.workloads, "workload", WORKLOADS)
    threads = []
    threads_given = args.threads is not None
    args.threads = args.threads if threads_given else "1,2"
    for t in _list(args.threads, "--threads"):
        v = inputs.parse_uint(t)
        if v is None or not 1 <= v <= 256:
            raise LabUsage("--threads %r: each a thread count, 1 to 256, e.g. 1,2,4" % args.threads)
        threads.append(v)
    if args.guest and "trace" not in workloads:
        raise LabUsage("--guest replays the trace: add trace to --workloads")
    if args.guest and args.arch and not facts.architectures()[args.arch].fw_cfg:
        raise LabUsage("--guest --arch %s: the guest gets the trace as a fw_cfg file, and "
                       "%s's QEMU machines have no fw_cfg device" % (args.arch, args.arch))
    if args.mib // args.nodes < 4:
        raise LabUsage("--nodes %d: each node needs at least 4 MiB of --mib %d"
                       % (args.nodes, args.mib))
    if "trace" in workloads:
        problem = inputs.regular_file_problem(args.trace, "trace")
        if problem:
            raise LabUsage("--trace: %s" % problem)
    if args.columns is not None:
        args.slide = True
        _list(args.columns, "--columns", sorted(SLIDE_COLS))
    if args.out is None:
        args.out = DEFAULT_OUT
        os.makedirs(os.path.dirname(DEFAULT_OUT), exist_ok=True)
    problem = output_prefix_problem(args.out)
    if problem:
        raise LabUsage("--out: %s" % problem)
    if args.quick:
        args.ops, args.mib = min(args.ops, 200000), min(args.mib, 256)
    args.sample = args.sample or max(args.ops // 50, 100)
    if args.counted and not shutil.which("valgrind"):
        raise LabUsage("--counted runs valgrind, which is not installed (tools/setup-deps.sh)")
    build(quiet=True, counted=args.counted)
    events_path, trace_rep, trace_mib = None, None, args.mib
    for sig in STOP_SIGNALS:
        signal.signal(sig, _stopped)
    tmp = tempfile.mkdtemp(prefix="memboot-lab-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    if "trace" in workloads:
        events, trace_rep = parse_trace(args.trace)
        # The guest replays the whole file: the host does too with --guest.
        if args.quick and len(events) > 400000 and not args.guest:
            events = events[:400000]
            trace_rep["truncated_to_events"] = 400000
        events_path = os.path.join(tmp, "events.bin")
        write_events(events, events_path)
        trace_rep["events"] = len(events)
        # The trace's pages map onto a machine with room for twice what it
        # ever held at once (at least --mib), so that the replay measures
        # the allocator and not running out.
        trace_mib = max(args.mib, (2 * trace_rep["peak_held_pages"] * 4096 + (1 << 20) - 1) >> 20)
        trace_rep["mib"] = trace_mib
        print(trace_summary(args.trace, trace_rep) + ", replayed on %d MiB" % trace_mib,
              file=sys.stderr)
        if threads_given and set(threads) != {trace_rep["cpus"]}:
            print("memboot lab: trace: %d trace CPUs replayed on --threads %s (trace CPU c on "
                  "thread c mod N)" % (trace_rep["cpus"], args.threads), file=sys.stderr)
        if args.guest and threads_given:
            print("memboot lab: the guest replays on one CPU per trace CPU (%d), whatever "
                  "--threads says" % trace_rep["cpus"], file=sys.stderr)
    cells = [(a, t, w) for w in workloads for a in allocs
             for t in (threads if w != "trace" or threads_given else [trace_rep["cpus"]])]
    warnings, cpus = host_warnings([t for _, t, _ in cells], not args.no_pin)
    for w in warnings:
        print("memboot lab: warning: " + w, file=sys.stderr)
    # The deterministic run of every cell, then the timed runs round by round
    # (every cell once per round), so that a change of the host's state
    # during the runs falls on every allocator alike.
    det, timed, failed = {}, {c: [] for c in cells}, {}
    t0 = time.time()
    total = len(cells) * (args.repeat + 1)
    done = 0

    hung = {}    # allocator: the row that hung; nothing more of it is run

    def one(c, serial):
        nonlocal done
        a, t, w = c
        done += 1
        if a in hung:
            h = hung[a]
            failed[c] = failed_row(a, t, w, "not run: %s x%d %s did not finish within %d s "
                                   "(a hang), so no other row of %s was run" % (
                                       a, h["threads"], h["workload"], args.timeout, a))
            return failed[c]
        print("[%d/%d] %s x%d %s%s (%.0fs)" % (done, total, a, t, w,
                                                " deterministic" if serial else "",
                                                time.time() - t0), file=sys.stderr, flush=True)
        r = run_one(a, t, w, args, events_path, trace_mib if w == "trace" else args.mib, serial)
        if not r["check"]:
            failed[c] = r
            if r.get("hang"):
                hung[a] = r
        return r

    for c in cells:
        det[c] = one(c, True)
    for _ in range(args.repeat):
        for c in cells:
            if c not in failed:
                timed[c].append(one(c, False))
    counted = {}
    for c in cells if args.counted else ():
        if c not in failed:
            a, t, w = c
            print("%s x%d %s counted (%.0fs)" % (a, t, w, time.time() - t0), file=sys.stderr,
                  flush=True)
            r = counted_row(a, t, w, args.ops, trace_mib if w == "trace" else args.mib,
                            args.seed, events_path, os.path.join(tmp, "callgrind.out"),
                            nodes=args.nodes, timeout=args.timeout * 50)
            if r["check"]:
                counted[c] = r["counted"]
            else:
                failed[c] = r
    rows = []
    for c in cells:
        a, t, w = c
        rows.append(failed[c] if c in failed else combine(det[c], timed[c]))
        if c in counted:
            rows[-1]["counted"] = counted[c]
        if w == "trace" and args.guest:
            print("%s guest replay (%.0fs)" % (a, time.time() - t0), file=sys.stderr, flush=True)
            rows.append(guest_row(a, args, trace_rep, trace_mib))
    host = hostinfo.cpu_model()
    clock = next((r for r in rows if r.get("clock")), {})
    pinned = all(r.get("pinned", True) for r in rows if r["check"] and r.get("on") != "guest")
    print("host CPU: %s, %d CPUs usable; clock %s, %.3f ns per tick (calibrated); %d MiB "
          "simulated on %d node(s)%s, %s memory; seed %d; threads %s" % (
              host, cpus, clock.get("clock", "?"), clock.get("ns_per_tick", 0.0), args.mib,
              args.nodes, ", half below 4 GiB" if args.split else "",
              "lazy" if args.lazy else "eager", args.seed,
              "pinned" if pinned else "NOT pinned"))
    print("--ops %d: for kbuild, deep and net the allocations of all threads together (each "
          "with its free, so ops is about twice that); for bulk, repeat and random the "
          "operations of each thread; frag fills 90%% of memory and trace replays the "
          "trace's events, whatever --ops says" % args.ops)
    for w in warnings:
        print("warning: " + w)
    with_index(rows)
    if args.slide:
        print_slide(rows, args.columns or SLIDE_DEFAULT)
    else:
        print_table(rows, repeat=args.repeat)
    if args.counted:
        print_counted(rows)
    if args.orders:
        print_orders(rows)
    out = {"host_cpu": host, "cpus": cpus, "mib": args.mib, "ops": args.ops, "seed": args.seed,
           "nodes": args.nodes, "lazy": args.lazy, "split": args.split, "repeat": args.repeat,
           "warnings": warnings, "clock": clock.get("clock"),
           "ns_per_tick": clock.get("ns_per_tick"),
           "trace": trace_rep, "trace_file": args.trace if trace_rep else None,
           "cannot_tell_apart": [{"workload": w, "threads": t, "allocators": names}
                                 for w, t, names in indistinct(rows)],
           "counted_cache": CACHE if args.counted else None, "rows": rows}
    with open(args.out + ".json", "w") as f:
        json.dump(out, f, indent=1)
    with open(args.out + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(TIMED_HEADER + DET_HEADER[4:] + [t for _, t, _ in COUNTED] + ["index"])
        for r in rows:
            c = r.get("counted")
            w.writerow(fmt_row(r) + (["%.*f" % (d, c[k]) for k, _, d in COUNTED] +
                                     ["%.0f" % c["index"]] if c else [""] * (len(COUNTED) + 1)))
    written = [args.out + ".json", args.out + ".csv"]
    if not args.no_plot:
        written += plot(rows, args.out, args.format)
    print("wrote " + ", ".join(written))
    bad = [r for r in rows if not r["check"]]
    if bad:
        print("memboot lab: %d row(s) FAILED the checks (not timed):" % len(bad),
              file=sys.stderr)
        for r in bad:
            print("  %s x%d %s: %s" % (r["allocator"], r["threads"], r["workload"],
                                       r.get("failure", "?")), file=sys.stderr)
        return 1
    return 0
