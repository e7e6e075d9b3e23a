"""records: find and parse the `MEMBOOT {json}` records in a console log.

The one record parser of the project: tools/memboot, the guest tests
(tests/guest/guest.py) and tools/capture-bootinfo all read records through it.
docs/records.md describes the records themselves.

A console line may carry other bytes around a record: under OVMF the firmware
leaves ANSI escape sequences (even between "MEMBOOT" and the brace), a
carriage return, `tools/memboot run --host-times` puts "@SECONDS " in front,
and a line may continue after the JSON. The parser drops escape sequences,
looks for "MEMBOOT {" anywhere and decodes one JSON object from the brace.
A line counts as a record only if that object has an "event" key.

  for text, rec in iter_records(console_text): ...
  rec = parse_record(line)          # dict or None
  host_t, line = split_host_time(line)

Standard library only.
"""

import json
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
_decoder = json.JSONDecoder()


class RecordError(ValueError):
    """A line that announces a record ("MEMBOOT {") but holds no valid one."""


def _text(line):
    if isinstance(line, bytes):
        line = line.decode("utf-8", errors="replace")
    return line


def record_text(line, strict=False):
    """The bare JSON text of the record on a console line, or None.

    With strict=True a line that contains "MEMBOOT {" (after escape
    sequences are dropped) but no decodable record raises RecordError: the
    guest tests use that to fail on a broken record instead of missing it."""
    line = _text(line)
    if "MEMBOOT" not in line:
        return None
    clean = ANSI_RE.sub("", line)
    at = clean.find(RECORD_MARK)
    if at < 0:
        return None
    start = at + len(RECORD_MARK) - 1
    try:
        obj, end = _decoder.raw_decode(clean, start)
    except ValueError as e:
        if strict:
            raise RecordError("malformed record: %r: %s" % (line, e)) from None
        return None
    if not isinstance(obj, dict) or "event" not in obj:
        if strict:
            raise RecordError("record without an event: %r" % line)
        return None
    return clean[start:end]


def parse_record(line, strict=False):
    """The record (a dict with an "event" key) on a console line, or None."""
    text = record_text(line, strict)
    return None if text is None else json.loads(text)


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
    """Yield (json_text, record) for each record in a console log (str or
    bytes), in order."""
    for line in _text(text).splitlines():
        rec_text = record_text(line, strict)
        if rec_text is not None:
            yield rec_text, json.loads(rec_text)


def check_event(event):
    """Raise ValueError unless @event is a name in kernel/record_events.h:
    a test asking for a misspelt event would otherwise pass vacuously."""
    if event not in facts.EVENTS:
        raise ValueError("unknown record event %r (kernel/record_events.h "
                         "lists %s)" % (event, ", ".join(facts.EVENTS)))
    return event
