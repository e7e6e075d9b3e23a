"""Unit tests for tools/mbtools/records.py, the one record parser of the
project (tools/memboot, tests/guest/guest.py, tools/capture-bootinfo).

    python3 -m unittest tests/tools/test_records.py -v
"""

import importlib.machinery
import importlib.util
import io
import os
import tempfile
import sys
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "guest"))

from mbtools import records  # noqa: E402
from mbtools.records import (RecordError, iter_records,  # noqa: E402
                             parse_record, record_text, split_host_time)


def load_script(name):
    path = os.path.join(REPO_ROOT, "tools", name)
    loader = importlib.machinery.SourceFileLoader(name.replace("-", "_"), path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


# A console as the three users see it: GRUB and OVMF noise, escapes inside
# and around a record, a CR, text after the JSON, prose lines.
CONSOLE = (
    "\x1b[2J\x1b[01;01H\x1b[=3h\x1b[2J\x1b[01;01HBdsDxe: loading Boot0001\r\n"
    "[    0.010000] memboot version x\n"
    'MEMBOOT {"event":"boot","boot_path":"mb2-uefi"}\r\n'
    '\x1b[0m\x1bcMEMBOOT \x1b[1m{"event":"mem_range","start":"0x0","end":"0x9f000","type":"usable"}\n'
    '\x1b(BMEMBOOT {"event":"phase","name":"a","ns":1} trailing words\n'
    '[    0.020000] phase a: 0.000 ms\n'
    'MEMBOOT {"no_event":1}\n'
    'MEMBOOT {"event":"done","ok":true,"status":0}'
)


class ParseRecord(unittest.TestCase):

    def test_every_record_of_a_noisy_console(self):
        recs = list(iter_records(CONSOLE))
        self.assertEqual([r["event"] for _, r in recs],
                         ["boot", "mem_range", "phase", "done"])
        self.assertEqual(recs[1][0],
                         '{"event":"mem_range","start":"0x0","end":"0x9f000",'
                         '"type":"usable"}')
        self.assertEqual(recs[2][1], {"event": "phase", "name": "a", "ns": 1})

    def test_bytes_and_str_agree(self):
        self.assertEqual(list(iter_records(CONSOLE.encode())),
                         list(iter_records(CONSOLE)))

    def test_escape_kinds_are_dropped(self):
        for noise in ("\x1b[0m", "\x1b[?25l", "\x1bc", "\x1b(B", "\x1b)0",
                      "\x1b]0;title\x07", "\x1b]2;t\x1b\\", "\x1b7", "\x1bM"):
            with self.subTest(noise=noise):
                line = ("x" + noise + "MEMBOOT " + noise
                        + '{"event":"done","ok":true,"status":0}')
                self.assertEqual(parse_record(line),
                                 {"event": "done", "ok": True, "status": 0})

    def test_not_records(self):
        for line in ("", "MEMBOOT", "MEMBOOT {", "MEMBOOT {not json}",
                     'MEMBOOT {"no_event":1}', 'MEMBOOT ["event"]',
                     'MEMBOOT{"event":"x"}', "phase a: MEMBOOT"):
            with self.subTest(line=line):
                self.assertIsNone(parse_record(line))

    def test_strict_raises_on_a_broken_record(self):
        for line in ('MEMBOOT {"event":"done","ok":tru', "MEMBOOT {}",
                     'MEMBOOT {"event":"x",}'):
            with self.subTest(line=line):
                self.assertIsNone(parse_record(line))
                with self.assertRaises(RecordError):
                    parse_record(line, strict=True)
        # Lines without the mark stay non-records, strict or not.
        self.assertIsNone(parse_record("MEMBOOT ready", strict=True))
        self.assertIsNone(parse_record("plain", strict=True))

    def test_host_times(self):
        line = records.host_time_prefix(1.5) + 'MEMBOOT {"event":"clock"}'
        self.assertEqual(split_host_time(line),
                         (1.5, 'MEMBOOT {"event":"clock"}'))
        self.assertEqual(split_host_time("@1.5 x"), (None, "@1.5 x"))
        self.assertEqual(record_text(line), '{"event":"clock"}')

    def test_check_event(self):
        self.assertEqual(records.check_event("node_init"), "node_init")
        with self.assertRaisesRegex(ValueError, "nod_init"):
            records.check_event("nod_init")


class CheckedReader(unittest.TestCase):
    """Records that break strict JSON or records.SCHEMA are refused with one
    line naming the line and the problem; the reader never raises."""

    BAD = [
        ('MEMBOOT {"event":"phase","name":"a","start_ns":"5","ns":1}',
         "phase record: 'start_ns' is a string, expected an integer"),
        ('MEMBOOT {"event":"phase","name":"a"}', "phase record without 'ns'"),
        ('MEMBOOT {"event":"phase","ns":1}', "phase record without 'name'"),
        ('MEMBOOT {"event":"node_init","ns":3}', "node_init record without 'node'"),
        ('MEMBOOT {"event":"chunk","node":0,"cpu":0}', "chunk record without 'ns'"),
        ('MEMBOOT {"event":"chunk","node":0,"cpu":true,"ns":1}',
         "chunk record: 'cpu' is a bool, expected an integer"),
        ('MEMBOOT {"event":"phase","name":"a","ns":NaN}', "NaN is not JSON"),
        ('MEMBOOT {"event":"phase","name":"a","ns":-Infinity}', "-Infinity is not JSON"),
        ('MEMBOOT {"event":"phase","name":"a","ns":1e400}', "number 1e400 is too large"),
        ('MEMBOOT {"event":"x","deep":' + "[" * 60000 + "}", "nested too deeply"),
        ('MEMBOOT {"event":"x","long":"' + "y" * 70000 + '"}', "too long for a record"),
        ('MEMBOOT {"event":"phase",', "malformed record"),
        ('MEMBOOT {"event":7}', "'event' is an integer, expected a string"),
        ('MEMBOOT {"event":"phase","name":"a","ns":18446744073709551616}',
         "phase record: 'ns' is an integer beyond 64 bits, expected an integer"),
        ('MEMBOOT {"event":"mem_range","start":"12","end":"0x1000","type":"usable"}',
         "mem_range record: 'start' is a string, expected a hex string"),
        ('MEMBOOT {"event":"done","ok":null,"status":0}',
         "done record: 'ok' is null, expected a bool"),
    ]

    def test_each_problem_is_one_line_naming_the_line(self):
        good = 'MEMBOOT {"event":"phase","name":"early","ns":5}'
        for line, problem in self.BAD:
            with self.subTest(problem=problem):
                log = records.parse_log("noise\n" + line + "\n" + good, name="b.log")
                self.assertEqual(log.skipped, 1)
                self.assertEqual(len(log.problems), 1)
                self.assertTrue(log.problems[0].startswith("b.log:2: "), log.problems)
                self.assertIn(problem, log.problems[0])
                self.assertTrue(log.problems[0].endswith("; skipped"))
                self.assertNotIn("\n", log.problems[0])
                self.assertEqual(log.records, [{"event": "phase", "name": "early", "ns": 5}])
                self.assertIsNone(parse_record(line))
                with self.assertRaises(RecordError):
                    parse_record(line, strict=True)

    def test_good_records_of_every_schema_event_pass(self):
        self.assertEqual(records.record_problem(
            {"event": "node_init", "node": 0, "ns": 5, "threads": 1, "pages": 9,
             "busy_ns": [1, 2], "policy": "lazy"}),
            None)
        # Keys the schema does not name, and events it does not list, pass.
        self.assertIsNone(records.record_problem({"event": "census", "pages": "x"}))
        self.assertIsNone(records.record_problem(
            {"event": "phase", "name": "a", "ns": 1, "new_key": [None]}))

    def test_schema_names_known_events_and_types(self):
        for event, keys in records.SCHEMA.items():
            self.assertIn(event, records.facts.EVENTS)
            for key, (kind, _) in records.schema_keys(event).items():
                self.assertIn(kind, records.TYPE_WORDS, (event, key))

    def test_read_log_missing_or_directory(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(records.LogError, "is a directory"):
                records.read_log(d)
            with self.assertRaisesRegex(records.LogError,
                                        "cannot read .*nope: No such file"):
                records.read_log(os.path.join(d, "nope"))

    def test_host_times_kept_per_record(self):
        log = records.parse_log('@0.100000 MEMBOOT {"event":"warning","msg":"m"}\n'
                                'MEMBOOT {"event":"warning","msg":1}\n'
                                'MEMBOOT {"event":"error","msg":"e"}')
        self.assertEqual(log.times, [0.1, None])
        self.assertEqual([r["event"] for r in log.records], ["warning", "error"])
        with self.assertRaisesRegex(RecordError, "<log>:2: warning record: 'msg'"):
            records.parse_log(log.name and 'x\nMEMBOOT {"event":"warning","msg":1}',
                              strict=True)

    def test_problems_shown_are_capped(self):
        text = "\n".join(['MEMBOOT {"event":"phase"}'] * 30)
        log = records.parse_log(text, name="l")
        out = io.StringIO()
        log.report("memboot trace", out)
        lines = out.getvalue().splitlines()
        self.assertEqual(len(lines), records.MAX_PROBLEMS_SHOWN + 1)
        self.assertEqual(lines[-1], "memboot trace: l: 10 more bad records skipped")


class Users(unittest.TestCase):
    """The three users see the same records in the same console."""

    def test_memboot_front_end(self):
        mb = load_script("memboot")
        self.assertIs(mb.parse_record, records.parse_record)
        self.assertEqual(mb.parse_record(CONSOLE.splitlines()[3])["event"],
                         "mem_range")

    def test_capture_bootinfo(self):
        cap = load_script("capture-bootinfo")
        self.assertEqual(cap.parse_records(CONSOLE), list(iter_records(CONSOLE)))
        self.assertEqual(cap.QEMU_EXIT_OK, 33)

    def test_guest_tests(self):
        import guest
        console = CONSOLE.replace('MEMBOOT {"no_event":1}\n', "")
        b = guest.Boot(["x"], 0, "@0.100000 " + console.replace("\n", "\n@0.200000 "), "")
        self.assertEqual([r["event"] for r in b.records],
                         ["boot", "mem_range", "phase", "done"])
        self.assertEqual(b.arrivals, [0.2, 0.2, 0.2, 0.2])
        self.assertEqual(b.expect_ok()["status"], 0)
        with self.assertRaisesRegex(ValueError, "unknown record event"):
            b.all("nodes")
        # The guest tests are strict: a broken record fails the test.
        with self.assertRaisesRegex(AssertionError, "malformed record"):
            guest.Boot(["x"], 0, 'MEMBOOT {"event":"done",\n', "")
        with self.assertRaisesRegex(AssertionError, "without an event"):
            guest.Boot(["x"], 0, CONSOLE, "")


if __name__ == "__main__":
    unittest.main()
