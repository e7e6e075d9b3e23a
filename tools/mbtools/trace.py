"""tools/memboot trace: a boot's records as a Chrome trace (Perfetto, chrome://tracing).

    tools/memboot trace LOG -o trace.json

LOG is a console log (`tools/memboot run --log`, or the output of run, with or
without --host-times prefixes). One track per CPU; on each, nested slices:
the boot phases on the boot CPU, each node's init job on every CPU that did
a chunk of it, its chunks inside, and the huge page pools. Times are the
kernel's own (ns since its first instruction), shown in microseconds.

Records used (docs/records.md): cpu_up (which node a CPU is on), phase
(start_ns, ns), node_init (start_ns, end_ns, early_ns), chunk (cpu, start_ns,
ns) and hugetlb (start_ns, ns). Older logs without start times give what can
be placed: phases only.

Records come from mbtools.records, the one checked reader: a record of the
wrong shape (a string where a time belongs, a phase without its name) is
skipped with one line on stderr naming the line, never a traceback. The
output is strict JSON (no NaN or Infinity). LOG and -o are checked when the
options are parsed, before any work (exit 64).
"""
import json
import sys

from mbtools import inputs, records


def read_log(path, prog="memboot trace", stream=None):
    """The checked records of a console log (a records.Log); each skipped
    record is reported on @stream (stderr). records.LogError if the file
    cannot be read."""
    log = records.read_log(path)
    log.report(prog, stream if stream is not None else sys.stderr)
    return log


def read_records(path, prog="memboot trace", stream=None):
    """Every valid MEMBOOT record of a console log, in order. Bad records are
    skipped (and reported): a log cut short by a crash still gives what it
    has."""
    return read_log(path, prog, stream).records


def _us(ns):
    return ns / 1000.0


def _slice(name, cat, cpu, start_ns, ns, args=None):
    ev = {"name": name, "cat": cat, "ph": "X", "pid": 0, "tid": cpu,
          "ts": _us(start_ns), "dur": _us(max(ns, 0))}
    if args:
        ev["args"] = args
    return ev


def cpu_nodes(records):
    """{cpu: node} from the cpu_up records (the boot CPU included)."""
    return {r["cpu"]: r["node"] for r in records if r["event"] == "cpu_up"}


def node_chunks(records, job="meminit"):
    """{node: [chunk records of @job with start_ns]} (a chunk without a job
    key is memory init's, as older logs print them)."""
    out = {}
    for r in records:
        if r["event"] == "chunk" and "start_ns" in r and r.get("job", "meminit") == job:
            out.setdefault(r["node"], []).append(r)
    return out


def build(records):
    """The Chrome trace (a dict) of one boot's records."""
    events = []
    nodes_of = cpu_nodes(records)
    cpus = set(nodes_of) | {0}
    for r in records:
        if r["event"] == "phase" and "start_ns" in r:
            # The APs' busy and idle time in the phase (records since the
            # usable_ns work carry them), shown on the phase's slice.
            args = {k: r[k] for k in ("aps", "ap_busy_ns", "ap_idle_ns")
                    if isinstance(r.get(k), int)}
            events.append(_slice(r["name"], "phase", 0, r["start_ns"], r["ns"], args or None))
    chunks = node_chunks(records)
    for r in records:
        if r["event"] != "node_init" or "start_ns" not in r:
            continue
        node = r["node"]
        start, end = r["start_ns"], r.get("end_ns", r["start_ns"] + r["ns"])
        args = {k: r[k] for k in ("node", "policy", "pages", "threads", "cpus", "early_ns")
                if k in r}
        workers = sorted({c["cpu"] for c in chunks.get(node, [])}) or [0]
        if r.get("early_ns"):
            events.append(_slice(f"node {node} early", "node", 0,
                                 start - r["early_ns"], r["early_ns"], {"node": node}))
        for cpu in workers:
            cpus.add(cpu)
            events.append(_slice(f"node {node} init", "node", cpu, start, end - start, args))
    for job in ("meminit", "hugetlb-zero", "hugetlb"):
        for node, cs in node_chunks(records, job).items():
            for c in cs:
                cpus.add(c["cpu"])
                args = {"node": node, "job": job}
                for k in ("start_pfn", "end_pfn", "start", "end"):
                    if k in c:
                        args[k] = c[k]
                events.append(_slice(f"chunk n{node}" if job == "meminit" else f"{job} n{node}",
                                     "chunk", c["cpu"], c["start_ns"], c["ns"], args))
    # A pool's job on each CPU that ran its chunks (the boot CPU if none is known).
    for r in records:
        if r["event"] != "hugetlb" or "start_ns" not in r:
            continue
        size = "1G" if r["size_bytes"] >= 1 << 30 else "2M"
        job = "hugetlb-zero" if size == "1G" else "hugetlb"
        ran = sorted({c["cpu"] for c in node_chunks(records, job).get(r["node"], [])})
        for cpu in ran or [0]:
            cpus.add(cpu)
            events.append(_slice(f"hugetlb {size} n{r['node']}", "hugetlb", cpu,
                                 r["start_ns"], r.get("end_ns", r["start_ns"] + r["ns"]) -
                                 r["start_ns"],
                                 {"node": r["node"], "allocated": r.get("allocated"),
                                  "zeroed": r.get("zeroed")}))
    meta = [{"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "memboot"}}]
    for cpu in sorted(cpus):
        label = f"CPU {cpu}" + (f" (node {nodes_of[cpu]})" if cpu in nodes_of else "")
        meta.append({"name": "thread_name", "ph": "M", "pid": 0, "tid": cpu,
                     "args": {"name": label}})
        meta.append({"name": "thread_sort_index", "ph": "M", "pid": 0, "tid": cpu,
                     "args": {"sort_index": cpu}})
    # Longer slices first at equal start, so viewers nest them correctly.
    events.sort(key=lambda e: (e["tid"], e["ts"], -e["dur"]))
    return {"traceEvents": meta + events, "displayTimeUnit": "ms"}


def add_parser(sub):
    p = sub.add_parser(
        "trace", help="write a boot's timeline as Chrome trace JSON",
        description="Read the records of a console log and write Chrome trace "
                    "JSON (open it in https://ui.perfetto.dev or chrome://tracing): "
                    "one track per CPU, a slice per phase, node job and chunk.")
    p.add_argument("log", metavar="LOG", type=inputs.input_file,
                   help="console log of one boot")
    p.add_argument("-o", "--output", metavar="FILE", required=True,
                   type=inputs.output_file, help="where to write the JSON")
    p.set_defaults(func=cmd_trace)


def to_json(trace):
    """@trace as strict JSON text: ValueError rather than NaN or Infinity."""
    return json.dumps(trace, indent=None, separators=(",", ":"), allow_nan=False) + "\n"


def cmd_trace(args):
    try:
        recs = read_records(args.log)
    except records.LogError as e:
        print(f"memboot trace: {e}", file=sys.stderr)
        return 64
    if not recs:
        print(f"memboot trace: no MEMBOOT records in {args.log}", file=sys.stderr)
        return 1
    trace = build(recs)
    text = to_json(trace)
    try:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        print(f"memboot trace: cannot write {args.output}: {e.strerror or e}",
              file=sys.stderr)
        return 1
    slices = sum(1 for e in trace["traceEvents"] if e["ph"] == "X")
    print(f"memboot trace: {slices} slices on "
          f"{sum(1 for e in trace['traceEvents'] if e['name'] == 'thread_name')} CPU tracks "
          f"-> {args.output}")
    return 0
