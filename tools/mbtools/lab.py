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
import csv
import gzip
import json
import lzma
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

from mbtools import facts, hostinfo

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
LAB_BIN = os.path.join(REPO_ROOT, "build", "bench", "lab")
DEFAULT_TRACE = os.path.join(REPO_ROOT, "tests", "tools", "fixtures", "kmem",
                             "kbuild.trace.xz")
WORKLOADS = ("kbuild", "deep", "net", "bulk", "repeat", "random", "frag", "trace")

# tracefs text:  cc1-10936 [001] ..... 847.591449: mm_page_alloc: page=... pfn=0x13d251 order=0 ...
# trace-cmd report:  cc1-10936 [001] 847.591449: mm_page_alloc: page=... pfn=0x13d251 order=0 ...
EVENT_RE = re.compile(
    r"^\s*\S.*?\[(\d+)\]\s+(?:\S+\s+)?(\d+\.\d+):\s+(mm_page_alloc|mm_page_free_batched|"
    r"mm_page_free):\s+(.*)$")
PFN_RE = re.compile(r"\bpfn=(0x[0-9a-fA-F]+|\d+)")
ORDER_RE = re.compile(r"\border=(\d+)")


class LabError(Exception):
    pass


def open_text(path):
    if path.endswith(".xz"):
        return lzma.open(path, "rt", errors="replace")
    if path.endswith(".gz"):
        return gzip.open(path, "rt", errors="replace")
    return open(path, errors="replace")


def parse_trace(path, max_order=10):
    """(events [(cpu, op, order, id)], report dict) from a kmem trace."""
    live = {}          # trace pfn -> (id, order)
    events = []
    rep = {"lines": 0, "alloc": 0, "free": 0, "skipped_free_before_trace": 0,
           "skipped_alloc_of_held_pfn": 0, "skipped_order": 0, "skipped_failed_alloc": 0,
           "unparsed": 0, "cpus": 0, "held_at_end": 0, "peak_held_pages": 0}
    next_id = held = 0
    cpus = set()
    try:
        f = open_text(path)
        with f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                rep["lines"] += 1
                m = EVENT_RE.match(line)
                if not m:
                    rep["unparsed"] += 1
                    continue
                cpu, name, rest = int(m.group(1)), m.group(3), m.group(4)
                pm = PFN_RE.search(rest)
                om = ORDER_RE.search(rest)
                if not pm:
                    rep["unparsed"] += 1
                    continue
                pfn = int(pm.group(1), 0)
                order = int(om.group(1)) if om else 0
                if name == "mm_page_alloc":
                    if pfn == 0 and "page=0000000000000000" in rest or "page=(nil)" in rest:
                        rep["skipped_failed_alloc"] += 1
                        continue
                    if order > max_order:
                        rep["skipped_order"] += 1
                        continue
                    if pfn in live:
                        rep["skipped_alloc_of_held_pfn"] += 1
                        continue
                    live[pfn] = (next_id, order)
                    events.append((cpu, 0, order, next_id))
                    next_id += 1
                    rep["alloc"] += 1
                    held += 1 << order
                    rep["peak_held_pages"] = max(rep["peak_held_pages"], held)
                else:
                    got = live.pop(pfn, None)
                    if got is None:
                        rep["skipped_free_before_trace"] += 1
                        continue
                    events.append((cpu, 1, got[1], got[0]))
                    rep["free"] += 1
                    held -= 1 << got[1]
                cpus.add(cpu)
    except (OSError, EOFError, lzma.LZMAError) as e:
        raise LabError("cannot read trace %s: %s" % (path, e))
    if not events:
        raise LabError("trace %s has no kmem:mm_page_alloc/mm_page_free events (%d lines)"
                       % (path, rep["lines"]))
    # Trace CPUs become threads 0..N-1 in id order.
    order = {c: i for i, c in enumerate(sorted(cpus))}
    events = [(order[c], op, o, i) for c, op, o, i in events]
    rep["cpus"] = len(cpus)
    rep["held_at_end"] = len(live)
    return events, rep


def write_events(events, path):
    with open(path, "wb") as f:
        for cpu, op, order, ident in events:
            f.write(struct.pack("<IBBH", ident, op, order, cpu))


REPLAY_MAGIC = b"MBREPLAY"
REPLAY_SKIPS = ("skipped_free_before_trace", "skipped_alloc_of_held_pfn", "skipped_order",
                "skipped_failed_alloc", "unparsed")


def write_replay(events, rep, path):
    """The guest's replay file (kernel/selftest/replay.c): a header with the
    skips of this reading, then the events as write_events() writes them."""
    ids = 1 + max((e[3] for e in events), default=-1)
    with open(path, "wb") as f:
        f.write(REPLAY_MAGIC + struct.pack("<IIQQ", 1, rep["cpus"], len(events), ids))
        f.write(struct.pack("<5Q", *(rep[k] for k in REPLAY_SKIPS)))
        for cpu, op, order, ident in events:
            f.write(struct.pack("<IBBH", ident, op, order, cpu))


def trace_summary(path, rep):
    return ("trace %s: %d CPUs, %d allocs, %d frees replayed; skipped: %d frees of pages "
            "allocated before the trace, %d allocations of a pfn still held, %d orders "
            "above 10, %d failed allocations, %d unparsed lines; %d still held at its end; "
            "peak %d pages held" % (
                os.path.basename(path), rep["cpus"], rep["alloc"], rep["free"],
                rep["skipped_free_before_trace"], rep["skipped_alloc_of_held_pfn"],
                rep["skipped_order"], rep["skipped_failed_alloc"], rep["unparsed"],
                rep["held_at_end"], rep["peak_held_pages"]))


def build(quiet):
    r = subprocess.run(["make", "-s", "-C", REPO_ROOT, "lab-build"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise LabError("make lab-build failed:\n" + r.stdout[-2000:] + r.stderr[-2000:])


def failed_row(alloc, threads, workload, message):
    """The row of a run whose checks failed: the first message, no figures."""
    return {"on": "host", "allocator": alloc, "workload": workload, "threads": threads,
            "check": False, "failure": message}


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
        import signal
        name = signal.Signals(sig).name
    except ValueError:
        name = "signal %d" % sig
    return "the run died of %s%s" % (name, (": " + lines[-1]) if lines else "")


def run_one(alloc, threads, workload, args, events_path, mib):
    """One run's row; a run whose checks fail, that panics, crashes or hangs
    gives a failed row (failed_row) naming what went wrong."""
    cmd = [LAB_BIN, "--alloc", alloc, "--threads", str(threads), "--workload", workload,
           "--ops", str(args.ops), "--mib", str(mib), "--seed", str(args.seed),
           "--sample", str(args.sample), "--nodes", str(args.nodes),
           "--lazy", "1" if args.lazy else "0", "--split", "1" if args.split else "0"]
    if workload == "trace":
        cmd += ["--events", events_path]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return failed_row(alloc, threads, workload,
                          "did not finish within %d s (--timeout): a hang, e.g. a lock never "
                          "released or a search that never ends" % args.timeout)
    if r.returncode < 0:
        return failed_row(alloc, threads, workload,
                          crash_message(r.stderr, r.returncode, args.timeout))
    if r.returncode not in (0, 3) or not r.stdout.strip():
        raise LabError("%s failed (status %d): %s" % (" ".join(cmd), r.returncode,
                                                      r.stderr.strip()[-500:]))
    try:
        res = json.loads(r.stdout.strip().splitlines()[-1])
    except ValueError:
        raise LabError("%s printed no result: %s" % (" ".join(cmd), r.stdout[-300:]))
    res.setdefault("on", "host")
    res["status"] = r.returncode
    if r.returncode == 3 or not res.get("check"):
        return failed_row(alloc, threads, workload,
                          res.get("failure") or "the checks at the end of the run failed")
    return res


def guest_row(alloc, args, rep, mib):
    """Replay --trace in the guest with @alloc: its replay record as a row
    shaped like the host's (run_one)."""
    from mbtools import boot as mbboot
    # One guest CPU per trace CPU; memory for the trace as on the host, and
    # at least 1 GiB (the kernel's own and the per-CPU lists).
    mem = "%dM" % max(1024, 2 * mib)
    argv = mbboot.run_argv(nodes=1, cpus_per_node=rep["cpus"], mem_per_node=mem,
                           boot_path="pvh", replay=args.trace, timeout=args.timeout,
                           append="memboot.alloc=%s memboot.selftest=replay" % alloc,
                           accel=args.accel)
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


def fmt_row(r):
    if not r["check"]:
        # A failed row has no figures: a broken allocator is never timed.
        return [r.get("on", "host"), r["allocator"], r["workload"], str(r["threads"])] + \
            ["-"] * (len(HEADER) - 7) + ["FAILED", "-", r.get("failure", "")[:120]]
    lat = r["latency"]
    a, f = lat.get("alloc_all", {}), lat.get("free_all", {})
    lk = r["lock"]
    if r["workload"] == "trace" and "frag_end" in r:
        frag = r["frag_end"]["unusable_9"]   # where the trace ends, what it holds held
    else:
        frag = r["frag"][-1]["unusable_9"] if r["frag"] else 0.0
    return [r.get("on", "host"), r["allocator"], r["workload"], str(r["threads"]), "%.2f" % r["mops"],
            "%d/%d/%d/%d" % (a.get("p50_ns", 0), a.get("p99_ns", 0), a.get("p999_ns", 0),
                             a.get("max_ns", 0)),
            "%d/%d/%d/%d" % (f.get("p50_ns", 0), f.get("p99_ns", 0), f.get("p999_ns", 0),
                             f.get("max_ns", 0)),
            "%d/%d/%.0f" % (lk["acquired"], lk["contended"], lk["spin_ns"] / 1e3),
            # The guest's replay does not measure the allocator's start.
            "-" if r.get("on") == "guest" else "%.3f" % r["bookkeeping_bytes_per_page"],
            "-" if r.get("on") == "guest" else "%.2f" % r["init_ns_per_page"],
            "%.3f" % frag, "yes" if r["check"] else "NO", str(r["failed"]), note(r)]


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


HEADER = ["on", "allocator", "workload", "thr", "Mops/s", "alloc ns p50/p99/p99.9/max",
          "free ns p50/p99/p99.9/max", "lock acq/contended/spin us", "bytes/page",
          "init ns/page", "unusable@9", "check", "failed", "notes"]


def print_table(rows, out=sys.stdout):
    cells = [HEADER] + [fmt_row(r) for r in rows]
    print("| " + " | ".join(HEADER) + " |", file=out)
    print("|" + "|".join("---" for _ in HEADER) + "|", file=out)
    for c in cells[1:]:
        print("| " + " | ".join(c) + " |", file=out)


def plot(rows, prefix, fmt):
    from mbtools import plot as mbplot
    plt = mbplot.import_pyplot()
    if plt is None:
        print("memboot lab: matplotlib missing (tools/setup-deps.sh): no plots", file=sys.stderr)
        return []
    written = []
    rows = [r for r in rows if r["check"]]   # failed rows have nothing to draw
    for wl in sorted({r["workload"] for r in rows}):
        sel = [r for r in rows if r["workload"] == wl]
        fig, ax = plt.subplots(1, 3, figsize=(16, 4.5))
        for r in sel:
            label = "%s x%d" % (r["allocator"], r["threads"])
            cdf = r["latency"].get("alloc_all", {}).get("cdf_alloc_ns") or \
                r["latency"].get("cdf_alloc_ns")
            cdf = r["latency"].get("cdf_alloc_ns", cdf)
            if cdf:
                ax[0].plot([max(v, 1) for v in cdf], [q / 100 for q in range(len(cdf))],
                           label=label)
            if r["frag"]:
                ax[1].plot([s["ops"] for s in r["frag"]], [s["unusable_9"] for s in r["frag"]],
                           label=label)
        ax[0].set_xscale("log")
        ax[0].set_xlabel("alloc latency (ns)")
        ax[0].set_ylabel("fraction of allocations")
        ax[0].set_title("latency CDF (%s)" % wl)
        ax[1].set_xlabel("operations")
        ax[1].set_ylabel("unusable free space index, order 9")
        ax[1].set_title("fragmentation over time")
        for alloc in sorted({r["allocator"] for r in sel}):
            pts = sorted((r["threads"], r["mops"]) for r in sel if r["allocator"] == alloc)
            ax[2].plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=alloc)
        ax[2].set_xlabel("threads")
        ax[2].set_ylabel("Mops/s")
        ax[2].set_title("throughput against threads")
        for a in ax:
            a.legend(fontsize=7)
        fig.tight_layout()
        path = "%s-%s.%s" % (prefix, wl, fmt)
        fig.savefig(path)
        plt.close(fig)
        written.append(path)
    return written


def add_parser(sub):
    p = sub.add_parser(
        "lab", help="compare page allocators on the host: churn mixes, patterns, trace replay",
        description=__doc__.split("\n\n")[0])
    p.add_argument("--allocators", default=",".join(facts.ALLOCATORS),
                   help="comma-separated, from mm/alloc/table.h (default: all: %(default)s)")
    p.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    p.add_argument("--workloads", default="kbuild,trace",
                   help="comma-separated, of %s (default kbuild,trace)" % ", ".join(WORKLOADS))
    p.add_argument("--trace", default=DEFAULT_TRACE, help="kmem trace for the trace workload "
                   "(tracefs or trace-cmd report text, .xz/.gz ok)")
    p.add_argument("--ops", type=int, default=1000000, help="operations per run (default 1e6)")
    p.add_argument("--mib", type=int, default=1024, help="simulated memory (default 1024 MiB)")
    p.add_argument("--nodes", type=int, default=1, help="simulated nodes, 1 to 8 (default 1); "
                   "thread t allocates on node t %% nodes first, then the others")
    p.add_argument("--lazy", action="store_true",
                   help="lazy memory: only block heads written before the allocator "
                        "takes it (memboot.init=lazy); default eager")
    p.add_argument("--split", action="store_true",
                   help="half the machine below the 4 GiB line: node 0 gets a DMA32 and a "
                        "Normal zone (default: all above it)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--sample", type=int, default=0,
                   help="fragmentation sample every N ops (default: ops / 50)")
    p.add_argument("--quick", action="store_true",
                   help="small runs (200k ops, 256 MiB): all of it within a minute")
    p.add_argument("--out", default="memboot-lab", metavar="PREFIX",
                   help="writes PREFIX.json, PREFIX.csv and PREFIX-WORKLOAD.png")
    p.add_argument("--format", choices=("png", "svg"), default="png")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--timeout", type=int, default=600, help="seconds per run (default 600)")
    p.add_argument("--guest", action="store_true",
                   help="also replay --trace in the guest (tools/memboot run --replay, QEMU) "
                        "with each allocator: its row beside the host's")
    p.add_argument("--accel", choices=("tcg", "kvm"), default="tcg",
                   help="QEMU accelerator for --guest (default tcg: emulated, slow times)")
    p.set_defaults(func=main)
    return p


def main(args):
    try:
        return _main(args)
    except LabError as e:
        print("memboot lab: %s" % e, file=sys.stderr)
        return 1
    except subprocess.TimeoutExpired as e:
        print("memboot lab: a run took longer than %ss: %s" % (args.timeout, e.cmd[:6]),
              file=sys.stderr)
        return 1


def _list(text, what, allowed=None):
    items = [x.strip() for x in text.split(",") if x.strip()]
    if not items:
        raise LabError("no %s given" % what)
    if allowed is not None:
        bad = [x for x in items if x not in allowed]
        if bad:
            raise LabError("unknown %s %s (known: %s)" % (what, ", ".join(bad),
                                                          ", ".join(allowed)))
    return items


def _main(args):
    allocs = _list(args.allocators, "allocator", facts.ALLOCATORS)
    workloads = _list(args.workloads, "workload", WORKLOADS)
    try:
        threads = [int(t) for t in _list(args.threads, "thread count")]
    except ValueError:
        raise LabError("--threads wants numbers, e.g. 1,2,4")
    if any(t < 1 or t > 256 for t in threads):
        raise LabError("--threads: 1 to 256")
    if args.guest and "trace" not in workloads:
        raise LabError("--guest replays the trace: add trace to --workloads")
    if args.quick:
        args.ops, args.mib = min(args.ops, 200000), min(args.mib, 256)
    if args.ops < 1000 or args.mib < 16:
        raise LabError("--ops at least 1000, --mib at least 16")
    if not 1 <= args.nodes <= 8 or args.mib // args.nodes < 4:
        raise LabError("--nodes: 1 to 8, each with at least 4 MiB of --mib")
    args.sample = args.sample or max(args.ops // 50, 100)
    build(quiet=True)
    events_path, trace_rep, trace_mib = None, None, args.mib
    tmp = tempfile.mkdtemp(prefix="memboot-lab-")
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
    runs = [(a, t, w) for w in workloads for a in allocs
            for t in ([trace_rep["cpus"]] if w == "trace" else threads)]
    rows = []
    t0 = time.time()
    for i, (a, t, w) in enumerate(runs):
        print("[%d/%d] %s x%d %s (%.0fs)" % (i + 1, len(runs), a, t, w, time.time() - t0),
              file=sys.stderr, flush=True)
        rows.append(run_one(a, t, w, args, events_path, trace_mib if w == "trace" else args.mib))
        if w == "trace" and args.guest:
            print("[%d/%d] %s guest replay (%.0fs)" % (i + 1, len(runs), a, time.time() - t0),
                  file=sys.stderr, flush=True)
            rows.append(guest_row(a, args, trace_rep, trace_mib))
    host = hostinfo.cpu_model()
    print("host CPU: %s; %d MiB simulated on %d node(s)%s, %s memory, %d ops per run, seed %d" %
          (host, args.mib, args.nodes, ", half below 4 GiB" if args.split else "",
           "lazy" if args.lazy else "eager", args.ops, args.seed))
    print_table(rows)
    out = {"host_cpu": host, "mib": args.mib, "ops": args.ops, "seed": args.seed,
           "nodes": args.nodes, "lazy": args.lazy, "split": args.split,
           "trace": trace_rep, "trace_file": args.trace if trace_rep else None, "rows": rows}
    with open(args.out + ".json", "w") as f:
        json.dump(out, f, indent=1)
    with open(args.out + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(HEADER)
        for r in rows:
            w.writerow(fmt_row(r))
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
