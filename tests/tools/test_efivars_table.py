"""tools/memboot efivars where results land: the machine's own efivarfs by
default (MEMBOOT_EFIVARFS stands in for /sys/firmware/efi/efivars), --delete
(efivarfs's immutable attribute cleared first), and many machines' results
in one table (CSV or JSON), one row per machine and boot. The efivarfs
directories are fakes: one file per variable, 4 bytes of attributes then
the data, as Linux shows them."""
import csv
import io
import json
import os
import struct
import subprocess
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO_ROOT, "tools", "memboot")
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
from mbtools import efivars  # noqa: E402
from test_efivars import LINES, OVMF_VARS, chunks  # noqa: E402

ENV = {k: v for k, v in os.environ.items() if not k.startswith("MEMBOOT_")}
OTHER_VAR = "Boot0000-8be4df61-93ca-11d2-aa0d-00e098032b8c"
# EFI_VARIABLE_NON_VOLATILE | BOOTSERVICE_ACCESS | RUNTIME_ACCESS
ATTRS = struct.pack("<I", 7)


class ResultsWhereTheyLand(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="memboot-efivars-")
        self.dir = self.tmp.name
        self.immutable = []

    def tearDown(self):
        for path in self.immutable:
            if os.path.exists(path):
                subprocess.run(["chattr", "-i", path], capture_output=True)
        self.tmp.cleanup()

    def efivarfs(self, name, lines=LINES, size=150):
        d = os.path.join(self.dir, name)
        os.makedirs(d)
        for i, part in enumerate(chunks("\n".join(lines) + "\n", size)):
            with open(os.path.join(d, "%s-%s" % (efivars.chunk_name(i), efivars.GUID)),
                      "wb") as f:
                f.write(ATTRS + part)
        with open(os.path.join(d, OTHER_VAR), "wb") as f:
            f.write(ATTRS + b"\x01\x00")
        return d

    def tool(self, *argv, env=None):
        proc = subprocess.run([sys.executable, TOOL, "efivars"] + list(argv),
                              capture_output=True, text=True, timeout=60, env=env or ENV)
        self.assertNotIn("Traceback", proc.stderr)
        return proc

    def test_default_is_the_machines_efivarfs(self):
        d = self.efivarfs("efivars")
        proc = self.tool("--json", env=dict(ENV, MEMBOOT_EFIVARFS=d))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.splitlines(), LINES)
        proc = self.tool(env=dict(ENV, MEMBOOT_EFIVARFS=os.path.join(self.dir, "none")))
        self.assertEqual(proc.returncode, 64)
        self.assertIn("not booted through UEFI, or efivarfs is not mounted", proc.stderr)

    def test_delete_clears_immutable_and_keeps_other_variables(self):
        d = self.efivarfs("efivars", size=100)
        mine = efivars.memboot_variable_files(d)
        self.assertGreater(len(mine), 3)
        if os.geteuid() == 0:
            # efivarfs makes non-standard variables immutable: so does this.
            for f in mine:
                if subprocess.run(["chattr", "+i", f], capture_output=True).returncode == 0:
                    self.immutable.append(f)
        proc = self.tool("--delete", env=dict(ENV, MEMBOOT_EFIVARFS=d))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("memboot: boot done, status 0 (ok)", proc.stdout)
        self.assertIn("deleted %d variables from %s" % (len(mine), d), proc.stderr)
        self.assertEqual(os.listdir(d), [OTHER_VAR])
        # Nothing left: a second read says so.
        self.assertEqual(self.tool(d).returncode, 65)

    def test_delete_of_damaged_results_still_deletes(self):
        d = self.efivarfs("efivars", lines=['{"event":"done","ok":tru'])
        proc = self.tool(d, "--delete")
        self.assertEqual(proc.returncode, 65)
        self.assertIn("does not parse", proc.stderr)
        self.assertEqual(os.listdir(d), [OTHER_VAR])

    def test_delete_needs_one_efivarfs_directory(self):
        vars_file = os.path.join(self.dir, "vars.fd")
        with open(OVMF_VARS, "rb") as f, open(vars_file, "wb") as g:
            g.write(f.read())
        for argv in ((vars_file, "--delete"),
                     (self.efivarfs("a"), self.efivarfs("b"), "--delete")):
            proc = self.tool(*argv)
            self.assertEqual(proc.returncode, 64, proc.stderr)
            self.assertIn("--delete takes one efivarfs directory", proc.stderr)
        self.assertEqual(len(efivars.memboot_variable_files(os.path.join(self.dir, "a"))),
                         len(efivars.memboot_variable_files(os.path.join(self.dir, "b"))))

    def machines(self):
        """Three machines: an efivarfs copy, an OVMF store, a log of two boots."""
        a = self.efivarfs("machine-a")
        other = [l.replace('"cmdline":""', '"cmdline":"memboot.init=serial, \\"x\\""')
                 .replace('"status":0,"reason":"ok"', '"status":5,"reason":"pages lost"')
                 .replace('"ok":true', '"ok":false') for l in LINES]
        with open(OVMF_VARS, "rb") as f:
            blob = f.read()
        blob, n = efivars.add_variables(blob, [
            (efivars.chunk_name(i), efivars.GUID, p)
            for i, p in enumerate(chunks("\n".join(other) + "\n", 200))])
        b = os.path.join(self.dir, "machine-b.fd")
        with open(b, "wb") as f:
            f.write(blob)
        c = os.path.join(self.dir, "machine-c.log")
        with open(c, "w") as f:
            f.write("GRUB noise\n" + "".join("MEMBOOT %s\n[    0.1] prose\n" % l
                                             for l in LINES + LINES[:3]))
        return a, b, c

    def test_table_one_row_per_machine_and_boot(self):
        a, b, c = self.machines()
        proc = self.tool(a, b, c)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rows = list(csv.DictReader(io.StringIO(proc.stdout)))
        self.assertEqual([(r["source"], r["boot"]) for r in rows],
                         [(a, "1"), (b, "1"), (c, "1"), (c, "2")])
        self.assertEqual(list(rows[0]), list(efivars.TABLE_FIELDS))
        self.assertEqual(rows[0]["node_init"], "0:95497:324121 1:129098:167742296")
        self.assertEqual((rows[0]["pages"], rows[0]["init_ms"], rows[0]["status"]),
                         ("224595", "167.742", "0"))
        # CSV quoting keeps a command line's commas and quotes.
        self.assertEqual(rows[1]["cmdline"], 'memboot.init=serial, "x"')
        self.assertEqual((rows[1]["status"], rows[1]["reason"]), ("5", "pages lost"))
        # The log's second boot stopped before done: said, not guessed.
        self.assertEqual((rows[3]["status"], rows[3]["reason"]), ("", "no done record"))

        proc = self.tool(a, c, "--table", "json")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        table = json.loads(proc.stdout)
        self.assertEqual(len(table), 3)
        self.assertEqual(table[0]["node_init"][1], {"node": 1, "pages": 129098,
                                                    "ns": 167742296, "policy": "deferred",
                                                    "threads": 1})
        self.assertEqual(table[0]["total_ms"], 695.835)
        # One PATH with --table is a table too.
        self.assertEqual(len(json.loads(self.tool(c, "--table", "json").stdout)), 2)

    def test_table_with_bad_sources(self):
        a, b, c = self.machines()
        junk = os.path.join(self.dir, "junk.bin")
        with open(junk, "wb") as f:
            f.write(os.urandom(4096))
        proc = self.tool(a, junk, os.path.join(self.dir, "missing"), c)
        self.assertEqual(proc.returncode, 64)
        rows = list(csv.DictReader(io.StringIO(proc.stdout)))
        self.assertEqual([r["source"] for r in rows], [a, c, c])
        self.assertIn("no firmware volume signature", proc.stderr)
        self.assertIn("missing does not exist or cannot be read; no row", proc.stderr)
        proc = self.tool(a, junk)
        self.assertEqual(proc.returncode, 65)

    # -- issue 44 (13-15) and 46 ------------------------------------------------

    def kept_order(self):
        """LINES in the order the kernel keeps them: node_init first, the
        boot record later (as a real UEFI boot's variables hold them)."""
        return LINES[1:3] + LINES[0:1] + LINES[3:]

    def rows(self, *argv):
        proc = self.tool(*argv, "--table", "csv")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return list(csv.DictReader(io.StringIO(proc.stdout)))

    def test_saved_output_and_logs_are_one_row_per_boot(self):
        # Was: 2 rows for one boot (one with the figures and "no done
        # record", one without figures).
        d = self.efivarfs("efivars", lines=self.kept_order())
        saved = os.path.join(self.dir, "saved.txt")
        for argv in ((d,), (d, "--json")):
            with self.subTest(argv=argv):
                proc = self.tool(*argv)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                with open(saved, "w") as f:
                    f.write(proc.stdout)
                rows = self.rows(saved)
                self.assertEqual(len(rows), 1, rows)
                self.assertEqual((rows[0]["nodes"], rows[0]["pages"], rows[0]["status"],
                                  rows[0]["boot_path"]), ("2", "224595", "0", "mb2-uefi"))
        # A console log: records before the boot record (tsc, phases) are
        # that boot's; a long prose head (> 64 KiB) does not hide them.
        log = os.path.join(self.dir, "console.log")
        with open(log, "w") as f:
            f.write("[    0.0] noise line\n" * 4000)
            f.write('MEMBOOT {"event":"tsc","hz":2000000000}\n')
            f.write("".join("MEMBOOT %s\n" % l for l in self.kept_order() * 2))
        rows = self.rows(log)
        self.assertEqual([(r["boot"], r["nodes"], r["status"]) for r in rows],
                         [("1", "2", "0"), ("2", "2", "0")])

    def test_table_escapes_control_bytes(self):
        lines = [LINES[0].replace('"cmdline":""', '"cmdline":"memboot.x=\\u001b]0;PWNED'
                                                   '\\u0007 a,b \\u007f \\u009b"')]
        d = self.efivarfs("efivars", lines=lines + LINES[1:])
        for fmt in ("csv", "json"):
            with self.subTest(fmt=fmt):
                proc = self.tool(d, "--table", fmt)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                for bad in ("\x1b", "\x07", "\x7f", "\x9b"):
                    self.assertNotIn(bad, proc.stdout)
                self.assertIn("memboot.x=\\u001b]0;PWNED\\u0007 a,b \\u007f \\u009b",
                              proc.stdout)

    def test_save_copies_that_read_back(self):
        d = self.efivarfs("efivars", size=100)
        copy = os.path.join(self.dir, "copy")
        proc = self.tool(d, "--save", copy)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        mine = efivars.memboot_variable_files(d)
        self.assertIn("saved %d variables in %s" % (len(mine), copy), proc.stderr)
        self.assertEqual(sorted(os.listdir(copy)), sorted(os.path.basename(f) for f in mine))
        for f in mine:
            with open(f, "rb") as a, open(os.path.join(copy, os.path.basename(f)), "rb") as b:
                self.assertEqual(a.read(), b.read())
        self.assertEqual(self.tool(copy).stdout, self.tool(d).stdout)
        # Not over an earlier copy, not from a variable-store file, not
        # half: a chunk that cannot be read leaves no copy at all.
        proc = self.tool(d, "--save", copy)
        self.assertEqual(proc.returncode, 64, proc.stderr)
        self.assertIn("%s already holds memboot variables" % copy, proc.stderr)
        proc = self.tool(OVMF_VARS, "--save", os.path.join(self.dir, "c2"))
        self.assertEqual(proc.returncode, 64, proc.stderr)
        self.assertIn("--save copies the files of an efivarfs directory", proc.stderr)
        os.mkfifo(os.path.join(d, "MembootResults31-" + efivars.GUID))
        proc = self.tool(d, "--save", os.path.join(self.dir, "c3"))
        self.assertEqual(proc.returncode, 65, proc.stderr)
        self.assertIn("is not a regular file (it is a FIFO)", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "c3")))


if __name__ == "__main__":
    unittest.main()
