"""records: find, parse and check the `MEMBOOT {json}` records of a console log.

The one record reader of the project: tools/memboot and every subcommand
(trace, plot, bench, compare-linux, bench --scale), the benchmarks in bench/,
the guest tests (tests/guest/guest.py, through mbtools.boot) and
tools/capture-bootinfo all read records through it. docs/records.md describes
the records; SCHEMA below gives the type of each key the tools read and which
keys an event must have, and tests/tools/test_facts.py checks docs/records.md
against it.

A console line may carry other bytes around a record: under OVMF the firmware
leaves ANSI escape sequences (even between "MEMBOOT" and the brace), a
carriage return, `tools/memboot run --host-times` puts "@SECONDS " in front,
and a line may continue after the JSON. The parser drops escape sequences,
looks for "MEMBOOT {" anywhere and decodes one JSON object from the brace.
A line counts as a record only if that object has an "event" key.

Only strict JSON is a record: NaN, Infinity and numbers too large for a
double (1e400) are refused, and so is nesting too deep to decode. A record
whose keys break SCHEMA (a string where an integer belongs, a required key
missing) is refused too. read_log() and parse_log() skip what they refuse and
give one line per problem, naming the line:

  log = read_log(path)              # LogError if the file cannot be read
  for problem in log.problems: print(problem, file=sys.stderr)
  for rec in log.records: ...

  for text, rec in iter_records(console_text): ...   # checked records only
  rec = parse_record(line)          # dict or None
  host_t, line = split_host_time(line)

Standard library only.
"""

import json
import math
import os
import re

from . import facts

RECORD_MARK = "MEMBOOT {"
# ECMA-48 escapes: CSI sequences, OSC strings, character set designations
# (ESC ( B) and the two-byte ones (ESC 0x30-0x7e: ESC 7, ESC M, ESC c...).
ANSI_RE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]"
                     r"|\][^\x07\x1b]*(?:\x07|\x1b\\)?"
                     r"|[()*+][0-9A-Za-z]"
                     r"|[0-~])")
# tools/memboot run --host-times: host seconds since QEMU started.
HOST_TIME_RE = re.compile(r"^@(\d+\.\d{6}) ")
HEX_RE = re.compile(r"0x[0-9a-fA-F]+", re.ASCII)
# The kernel cuts a record at 2048 bytes; a line this long holds no record.
MAX_LINE_BYTES = 1 << 16
# Problems listed one by one before the rest are only counted.
MAX_PROBLEMS_SHOWN = 20

# ---------------------------------------------------------------------------
# The keys the tools read, per event: their type and whether the event must
# have them ("!"). Types: int (a JSON integer of 64 bits, not a bool), str,
# bool, hex (a
# "0x..." string), list, object. Other keys, and events not listed, pass
# unchecked: new keys may be added to an event (docs/records.md). The kernel
# writes every key below; tests/tools/test_facts.py checks that
# docs/records.md documents each with the same type.
# ---------------------------------------------------------------------------
SCHEMA = {
    "boot": {"boot_path": "str", "tsc_hz": "int", "map_entries": "int",
             "rsdp": "bool", "cmdline": "str", "tsc_known": "str", "tsc_checked": "bool"},
    "mem_range": {"start": "hex!", "end": "hex!", "type": "str!"},
    "user_range": {"start": "hex!", "end": "hex!", "type": "str!"},
    "phase": {"name": "str!", "ns": "int!", "start_ns": "int"},
    "cpu": {"cpu": "int!", "apic_id": "int!", "node": "int!", "present": "bool"},
    "node": {"node": "int!", "cpus": "list", "mem": "list", "mem_bytes": "int",
             "distance": "list"},
    "numa": {"nodes": "int!", "slit": "bool"},
    "machine": {"smbios": "str!", "entry": "str!", "sys_vendor": "str!", "product": "str!",
                "bios_vendor": "str", "bios_version": "str", "dimms": "int!",
                "truncated": "bool"},
    "dimm": {"node": "int!", "size_bytes": "int!", "speed_mts": "int", "configured_mts": "int",
             "locator": "str", "type": "str"},
    "hmat": {"revision": "int!", "figures": "int!", "tiers": "int!", "dram_ref_node": "int"},
    "pptt": {"revision": "int!", "processors": "int!", "packages": "int!", "clusters": "int!",
             "cores": "int!", "threads": "int!", "cache_structures": "int!",
             "cache_kinds": "int!", "warnings": "int!", "truncated": "bool!"},
    "pptt_cache": {"level": "int!", "type": "str!", "size_bytes": "int!", "line_bytes": "int!",
                   "ways": "int!", "sets": "int!", "cpus": "int!", "count": "int!"},
    "node_perf": {"node": "int!", "tier": "int!", "adistance": "int!", "init_node": "int!",
                  "init_by": "str!", "read_latency_ns": "int", "write_latency_ns": "int",
                  "read_bandwidth_mbs": "int", "write_bandwidth_mbs": "int",
                  "initiator_node": "int"},
    "numa_perf": {"initiator_node": "int!", "target_node": "int!", "cpu": "int!",
                  "distance": "int!", "latency_ps": "int!", "bandwidth_mbps": "int!",
                  "latency_vs_local_milli": "int!", "bandwidth_vs_local_milli": "int!",
                  "hmat": "bool!", "emulated": "bool!", "hypervisor": "str!"},
    "srat_generic": {"kind": "str!", "pxm": "int!", "device": "str"},
    "node_dimms": {"node": "int!", "dimms": "int!", "bytes": "int!", "dimm_text": "str"},
    "cpu_up": {"cpu": "int!", "node": "int!"},
    "rtas": {"entry": "str!", "entry_point": "hex", "base": "hex", "bytes": "int",
             "rtas_size": "int", "reason": "str"},
    "memmap": {"node": "int!", "desc_bytes": "int!", "present_pages": "int"},
    "node_init": {"node": "int!", "ns": "int!", "policy": "str", "threads": "int!",
                  "cpus": "int", "lost_cpus": "int", "lost_cpu": "int",
                  "pages": "int!", "early_pages": "int",
                  "early_ns": "int", "free_pages": "int", "desc_bytes": "int",
                  "start_ns": "int", "end_ns": "int", "busy_ns": "list"},
    "chunk": {"node": "int!", "cpu": "int!", "ns": "int!", "job": "str",
              "start_ns": "int", "start_pfn": "int", "end_pfn": "int",
              "start": "int", "end": "int"},
    "lazy": {"first_alloc_ns": "int!"},
    "churn": {"ns": "int!", "threads": "int!", "lost": "int!",
              "left_on_lists": "int!", "spin_ns": "int", "free_high": "int",
              "alloc_zone_pages": "int", "lock_acquired": "int",
              "lock_contended": "int", "high_min": "int", "high_max": "int"},
    "hugetlb": {"node": "int!", "size_bytes": "int!", "allocated": "int!",
                "ns": "int!", "requested": "int", "zeroed": "bool",
                "start_ns": "int", "end_ns": "int", "job_ns": "int"},
    "watchdog": {"device": "str!", "device_id": "hex", "armed": "bool!", "seconds": "int",
                 "hw_seconds": "int", "pets": "bool", "max_seconds": "int", "source": "str!",
                 "fired_before": "bool", "reason": "str"},
    "selftest": {"name": "str!", "ok": "bool!", "hung": "bool", "deadline_ms": "int"},
    "warning": {"msg": "str!"},
    "error": {"msg": "str!"},
    "done": {"ok": "bool!", "status": "int!", "reason": "str", "warnings": "int",
             "errors": "int", "total_ns": "int"},
}

TYPE_WORDS = {"int": "an integer", "str": "a string", "bool": "a bool",
              "hex": "a hex string", "list": "a list", "object": "an object"}


# The kernel's integers are 64-bit (rec_u64, and -1 for "all nodes"): one
# outside that range is not a record value, and would overflow a float later.
INT_MIN, INT_MAX = -(1 << 63), (1 << 64) - 1


def _is(value, kind):
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool) \
            and INT_MIN <= value <= INT_MAX
    if kind == "str":
        return isinstance(value, str)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "hex":
        return isinstance(value, str) and HEX_RE.fullmatch(value) is not None
    if kind == "list":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    raise ValueError("unknown schema type %r" % kind)


def _json_kind(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, int):
        return "an integer" if INT_MIN <= value <= INT_MAX else \
            "an integer beyond 64 bits"
    if isinstance(value, float):
        return "a number with a fraction or exponent"
    if isinstance(value, str):
        return "a hex string" if HEX_RE.fullmatch(value) else "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def cpu_list(text):
    """The ids of a CPU list as the smp record's `online` writes it
    (docs/records.md): "0-3,5,8-511", runs with both ends included, "" for
    none. A malformed list raises RecordError naming it."""
    ids = []
    if not isinstance(text, str):
        raise RecordError("CPU list %r is not a string" % (text,))
    for item in text.split(",") if text else []:
        first, _, last = item.partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            raise RecordError("CPU list %r: bad item %r" % (text, item))
        lo, hi = int(first), int(last or first)
        if hi < lo or (ids and lo <= ids[-1]):
            raise RecordError("CPU list %r: %r is not ascending" % (text, item))
        ids.extend(range(lo, hi + 1))
    return ids


def schema_keys(event):
    """{key: (type, required)} of an event's SCHEMA entry ({} if none)."""
    return {k: (t.rstrip("!"), t.endswith("!"))
            for k, t in SCHEMA.get(event, {}).items()}


def record_problem(rec):
    """None if @rec (a decoded record) agrees with SCHEMA, else what is wrong,
    in a few words."""
    event = rec.get("event")
    if not isinstance(event, str):
        return "'event' is %s, expected a string" % _json_kind(event)
    for key, (kind, required) in schema_keys(event).items():
        if key not in rec:
            if required:
                return "%s record without '%s'" % (event, key)
            continue
        if not _is(rec[key], kind):
            return "%s record: '%s' is %s, expected %s" % (
                event, key, _json_kind(rec[key]), TYPE_WORDS[kind])
    return None


class RecordError(ValueError):
    """A line that announces a record ("MEMBOOT {") but holds no valid one."""


class LogError(Exception):
    """A console log that cannot be read at all (missing, a directory...)."""


def _no_constant(name):
    raise ValueError("%s is not JSON" % name)


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("number %s is too large" % text)
    return value


_decoder = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite_float)


def _text(line):
    if isinstance(line, bytes):
        line = line.decode("utf-8", errors="replace")
    return line


def check_line(line):
    """(json_text, record, problem) for one console line: (None, None, None)
    for a line without a record, (text, record, None) for a good record and
    (None, None, problem) for a line that announces one ("MEMBOOT {") but
    holds no valid record."""
    line = _text(line)
    if "MEMBOOT" not in line:
        return None, None, None
    clean = ANSI_RE.sub("", line)
    at = clean.find(RECORD_MARK)
    if at < 0:
        return None, None, None
    if len(clean) > MAX_LINE_BYTES:
        return None, None, "a line of %d bytes is too long for a record" % len(clean)
    start = at + len(RECORD_MARK) - 1
    try:
        obj, end = _decoder.raw_decode(clean, start)
    except RecursionError:
        return None, None, "malformed record: nested too deeply"
    except ValueError as e:
        return None, None, "malformed record: %s" % e
    if not isinstance(obj, dict) or "event" not in obj:
        return None, None, "record without an event"
    problem = record_problem(obj)
    if problem:
        return None, None, problem
    return clean[start:end], obj, None


def record_text(line, strict=False):
    """The bare JSON text of the record on a console line, or None.

    With strict=True a line that contains "MEMBOOT {" (after escape
    sequences are dropped) but no valid record raises RecordError: the
    guest tests use that to fail on a broken record instead of missing it."""
    text, _, problem = check_line(line)
    if problem and strict:
        raise RecordError("%s: %r" % (problem, _text(line)[:300]))
    return text


def parse_record(line, strict=False):
    """The record (a dict with an "event" key) on a console line, or None."""
    text, rec, problem = check_line(line)
    if problem and strict:
        raise RecordError("%s: %r" % (problem, _text(line)[:300]))
    return rec


def split_host_time(line):
    """(seconds or None, rest of the line) for a --host-times line."""
    m = HOST_TIME_RE.match(line)
    if not m:
        return None, line
    return float(m.group(1)), line[m.end():]


def host_time_prefix(seconds):
    """The prefix tools/memboot run --host-times puts before a line."""
    return "@%.6f " % seconds


def iter_records(text, strict=False):
    """Yield (json_text, record) for each valid record in a console log (str
    or bytes), in order; others are skipped (strict: RecordError)."""
    for line in _text(text).splitlines():
        rec_text, rec, problem = check_line(line)
        if problem and strict:
            raise RecordError("%s: %r" % (problem, line[:300]))
        if rec is not None:
            yield rec_text, rec


class Log:
    """The records of one console log and what was refused.

    records   the valid records, in order
    times     host seconds per record (--host-times lines), else None
    problems  one line per refused record: "NAME:LINE: what; skipped"
    """

    def __init__(self, name):
        self.name = name
        self.records = []
        self.times = []
        self.problems = []

    @property
    def skipped(self):
        return len(self.problems)

    def all(self, event):
        return [r for r in self.records if r["event"] == event]

    def report(self, prog, stream):
        """Print the problems (the first MAX_PROBLEMS_SHOWN, then a count)
        on @stream, each prefixed with @prog."""
        for p in self.problems[:MAX_PROBLEMS_SHOWN]:
            print("%s: %s" % (prog, p), file=stream)
        if self.skipped > MAX_PROBLEMS_SHOWN:
            print("%s: %s: %d more bad records skipped" % (
                prog, self.name, self.skipped - MAX_PROBLEMS_SHOWN), file=stream)


def parse_log(text, name="<log>", strict=False):
    """A Log of the records of console text (str or bytes). With strict=True
    the first bad record raises RecordError instead of being skipped."""
    log = Log(name)
    for number, line in enumerate(_text(text).splitlines(), 1):
        t, rest = split_host_time(line)
        _, rec, problem = check_line(rest)
        if problem:
            message = "%s:%d: %s" % (name, number, problem)
            if strict:
                raise RecordError("%s: %r" % (message, rest[:300]))
            log.problems.append(message + "; skipped")
        elif rec is not None:
            log.records.append(rec)
            log.times.append(t)
    return log


def read_log(path, strict=False):
    """parse_log() of the file at @path; LogError (one sentence) when it is
    missing, a directory, not a regular file, not readable or larger than
    the tools read (mbtools.inputs: the file rule)."""
    from mbtools import inputs
    try:
        data = inputs.read_input(path, "console log")
    except inputs.InputError as e:
        raise LogError(str(e)) from None
    return parse_log(data, name=path, strict=strict)


def check_event(event):
    """Raise ValueError unless @event is a name in kernel/services/report/events.h:
    a test asking for a misspelt event would otherwise pass vacuously."""
    if event not in facts.EVENTS:
        raise ValueError("unknown record event %r (kernel/services/report/events.h "
                         "lists %s)" % (event, ", ".join(facts.EVENTS)))
    return event
