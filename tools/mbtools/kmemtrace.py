"""Linux kmem traces: the reader `tools/memboot lab` and `run --replay` share,
and the replay file the guest reads (kernel/selftest/replay.c).

A trace is tracefs text of kmem:mm_page_alloc, mm_page_free and
mm_page_free_batched, or `trace-cmd report` output; .xz or .gz is read as
such. It is read under the tools' file rule (mbtools.inputs.open_lines():
regular files only, its text capped at inputs.MAX_TRACE_BYTES after
decompression, corrupt compressed data named).

Each line that is not a comment lands in exactly one count: an allocation
or a free replayed, or one of the skips (a free of a page allocated before
the trace, an allocation of a pfn the trace still holds, an order above the
allocators' largest, a failed allocation), or unparsed: not an event, or an
event whose pfn or order is not a number (`order=-1`, `order=q`), never
taken as order 0.
"""
import os
import re
import struct

from mbtools import facts, inputs

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAB_C = os.path.join(REPO_ROOT, "bench", "lab.c")

# tracefs text:  cc1-10936 [001] ..... 847.591449: mm_page_alloc: page=... pfn=0x13d251 order=0 ...
# trace-cmd report:  cc1-10936 [001] 847.591449: mm_page_alloc: page=... pfn=0x13d251 order=0 ...
EVENT_RE = re.compile(
    r"^\s*\S.*?\[(\d+)\]\s+(?:\S+\s+)?(\d+\.\d+):\s+(mm_page_alloc|mm_page_free_batched|"
    r"mm_page_free):\s+(.*)$", re.ASCII)
FIELD_RE = re.compile(r"(?:^|\s)(\w+)=(\S*)", re.ASCII)
PFN_RE = re.compile(r"0x[0-9a-fA-F]+|[0-9]+", re.ASCII)
ORDER_RE = re.compile(r"[0-9]+", re.ASCII)

# The replay file (kernel/selftest/replay.c): "MBREPLAY", then <IIQQ
# (version, trace CPUs, events, ids), the five skips as <5Q, then events of
# <IBBH (id, op, order, cpu). The CPU is 16 bits and the kernel refuses a
# header of more than 65535 CPUs: the most a trace may have to be replayed.
# The kernel's header checks name that limit REPLAY_CPU_FIELD_LIMIT
# (kernel/selftest/replay_file.h, where the tree has it): read from there.
REPLAY_MAGIC = b"MBREPLAY"
REPLAY_FILE_H = os.path.join(REPO_ROOT, "kernel", "selftest", "replay_file.h")


def _replay_max_cpus():
    try:
        with open(REPLAY_FILE_H, encoding="utf-8") as f:
            return facts.parse_defines(f.read())["REPLAY_CPU_FIELD_LIMIT"]
    except (OSError, KeyError):
        return (1 << 16) - 1        # the event's 16-bit cpu field


REPLAY_MAX_CPUS = _replay_max_cpus()
REPLAY_SKIPS = ("skipped_free_before_trace", "skipped_alloc_of_held_pfn", "skipped_order",
                "skipped_failed_alloc", "unparsed")
SKIP_WORDS = {
    "skipped_free_before_trace": "frees of pages allocated before the trace",
    "skipped_alloc_of_held_pfn": "allocations of a pfn still held",
    "skipped_order": "orders above %d",
    "skipped_failed_alloc": "failed allocations",
    "unparsed": "unparsed lines",
}


class TraceError(Exception):
    """A trace that cannot be replayed: one sentence naming it and why."""


def lab_max_threads():
    """The most threads bench/lab.c runs (its MAX_THREADS): the lab runs one
    thread per trace CPU, so the most CPUs a trace may have there."""
    try:
        with open(LAB_C, encoding="utf-8") as f:
            return facts.parse_defines(f.read())["MAX_THREADS"]
    except (OSError, KeyError):
        raise TraceError("cannot read MAX_THREADS from %s" % LAB_C) from None


def _fields(rest):
    """{key: value} of an event's key=value words (the first of each key)."""
    out = {}
    for key, value in FIELD_RE.findall(rest):
        out.setdefault(key, value)
    return out


def skips_text(rep, max_order=10):
    """The nonzero skips of @rep in words, e.g. "3 frees of pages allocated
    before the trace, 1 unparsed lines"."""
    parts = ["%d %s" % (rep[k], SKIP_WORDS[k] % max_order if "%" in SKIP_WORDS[k]
                        else SKIP_WORDS[k]) for k in REPLAY_SKIPS if rep.get(k)]
    return ", ".join(parts)


def parse_trace(path, max_order=10, max_cpus=None, cpus_limit=""):
    """(events [(cpu, op, order, id)], report dict) from a kmem trace.
    TraceError when it cannot be read, holds nothing to replay, or has more
    than @max_cpus CPUs (@cpus_limit says whose limit that is)."""
    live = {}          # trace pfn -> (id, order)
    events = []
    rep = {"lines": 0, "alloc": 0, "free": 0, "skipped_free_before_trace": 0,
           "skipped_alloc_of_held_pfn": 0, "skipped_order": 0, "skipped_failed_alloc": 0,
           "unparsed": 0, "cpus": 0, "held_at_end": 0, "peak_held_pages": 0}
    next_id = held = 0
    cpus = set()
    try:
        with inputs.open_lines(path, "trace") as lines:
            for line, cut in lines:
                if line.startswith("#") or not line.strip():
                    continue
                rep["lines"] += 1
                m = None if cut else EVENT_RE.match(line)
                if not m:
                    rep["unparsed"] += 1
                    continue
                cpu, name, rest = int(m.group(1)), m.group(3), m.group(4)
                fields = _fields(rest)
                pfn_text, order_text = fields.get("pfn"), fields.get("order")
                # A pfn or an order that is not a number is not an event
                # (never order 0); a free needs no order of its own (its
                # allocation's counts), an allocation does.
                if pfn_text is None or not PFN_RE.fullmatch(pfn_text) or \
                        (order_text is not None and not ORDER_RE.fullmatch(order_text)) or \
                        (order_text is None and name == "mm_page_alloc"):
                    rep["unparsed"] += 1
                    continue
                pfn = int(pfn_text, 16 if pfn_text.startswith("0x") else 10)
                order = int(order_text, 10) if order_text is not None else 0
                if name == "mm_page_alloc":
                    page = fields.get("page", "")
                    if page == "(nil)" or (pfn == 0 and page.strip("0") == "" and page):
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
    except inputs.InputError as e:
        raise TraceError(str(e)) from None
    if not events:
        skipped = skips_text(rep, max_order)
        if skipped and rep["unparsed"] < rep["lines"]:
            raise TraceError("trace %s has nothing to replay: each of its %d lines was "
                             "skipped (%s)" % (path, rep["lines"], skipped))
        raise TraceError("trace %s has no kmem:mm_page_alloc/mm_page_free events (%d lines%s)"
                         % (path, rep["lines"], ", none of them an event" if rep["lines"]
                            else ""))
    if max_cpus is not None and len(cpus) > max_cpus:
        raise TraceError("trace %s has events of %d CPUs; %s at most %d"
                         % (path, len(cpus), cpus_limit or "it can be replayed with", max_cpus))
    # Trace CPUs become threads 0..N-1 in id order.
    order = {c: i for i, c in enumerate(sorted(cpus))}
    events = [(order[c], op, o, i) for c, op, o, i in events]
    rep["cpus"] = len(cpus)
    rep["held_at_end"] = len(live)
    return events, rep


def parse_replay_trace(path):
    """parse_trace() for the guest's replay: at most the CPUs its file holds."""
    return parse_trace(path, max_cpus=REPLAY_MAX_CPUS,
                       cpus_limit="the guest's replay file (16-bit CPU numbers, "
                                  "kernel/selftest/replay.c) holds")


def write_events(events, path):
    with open(path, "wb") as f:
        for cpu, op, order, ident in events:
            f.write(struct.pack("<IBBH", ident, op, order, cpu))


def write_replay(events, rep, path):
    """The guest's replay file (kernel/selftest/replay.c): a header with the
    skips of this reading, then the events as write_events() writes them."""
    if rep["cpus"] > REPLAY_MAX_CPUS:
        raise TraceError("%d trace CPUs: the replay file holds at most %d"
                         % (rep["cpus"], REPLAY_MAX_CPUS))
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
