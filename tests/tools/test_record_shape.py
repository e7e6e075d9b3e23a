"""tools/record-shape: two boots' records compared by event, keys and order."""
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "record-shape")


def log(*records):
    return "".join("MEMBOOT %s\n" % r for r in records)


class RecordShape(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def run_tool(self, a, b):
        paths = []
        for name, text in (("a.log", a), ("b.log", b)):
            p = os.path.join(self.tmp.name, name)
            with open(p, "w") as f:
                f.write(text)
            paths.append(p)
        return subprocess.run([sys.executable, TOOL] + paths, capture_output=True, text=True)

    BOOT = '{"event":"boot","version":"x","tsc_hz":1}'
    HPET = '{"event":"clock_check","reference":"hpet","address":"0xfed00000"}'
    PM = '{"event":"clock_check","reference":"pm_timer","port":"0x608"}'
    DONE = '{"event":"done","ok":true,"status":0,"reason":"ok","warnings":0,"errors":0,"total_ns":1}'

    def test_values_do_not_count(self):
        r = self.run_tool(log(self.BOOT, self.DONE),
                          log(self.BOOT.replace('"tsc_hz":1', '"tsc_hz":2'), self.DONE))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("same shape: 2 records", r.stdout)

    def test_a_key_or_a_record_more_counts(self):
        r = self.run_tool(log(self.BOOT, self.DONE),
                          log(self.BOOT.replace("}", ',"counter":"tsc"}'), self.DONE))
        self.assertEqual(r.returncode, 1)
        self.assertIn("+boot", r.stdout)
        r = self.run_tool(log(self.BOOT, self.DONE), log(self.BOOT, self.HPET, self.DONE))
        self.assertEqual(r.returncode, 1)

    def test_neighbours_of_one_event_compare_as_a_set(self):
        r = self.run_tool(log(self.BOOT, self.HPET, self.PM, self.DONE),
                          log(self.BOOT, self.PM, self.HPET, self.DONE))
        self.assertEqual(r.returncode, 0, r.stdout)
        # Apart, order still counts.
        r = self.run_tool(log(self.HPET, self.BOOT, self.PM, self.DONE),
                          log(self.PM, self.BOOT, self.HPET, self.DONE))
        self.assertEqual(r.returncode, 1)

    def test_bad_usage(self):
        r = subprocess.run([sys.executable, TOOL, "/nonexistent/a", "/nonexistent/b"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 64)
        self.assertIn("record-shape:", r.stderr)
        r = subprocess.run([sys.executable, TOOL], capture_output=True, text=True)
        self.assertEqual(r.returncode, 64)


if __name__ == "__main__":
    unittest.main()
