"""tools/memboot efivars: the records a UEFI boot kept, read from synthetic
efivarfs directories and OVMF variable-store files (the pristine
OVMF_VARS_4M.fd with variables added as the firmware writes them). Bad
input gets a clear message and exit 64 (not a directory or a readable file)
or 65 (readable, but no memboot results in it, or damaged), never a
traceback."""
import os
import struct
import subprocess
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO_ROOT, "tools", "memboot")
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
from mbtools import efivars  # noqa: E402

OVMF_VARS = os.environ.get("MEMBOOT_OVMF_VARS") or "/usr/share/OVMF/OVMF_VARS_4M.fd"
# Records as a two-node UEFI boot made them (docs/records.md's fields).
LINES = [
    '{"event":"boot","version":"ce45ca2","boot_path":"mb2-uefi","loader":"GRUB 2.06",'
    '"tsc_hz":2596220850,"tsc_method":"pit","tsc_uncertainty_ppm":912,'
    '"map_source":"mb2-efi-mmap","map_entries":130,"rsdp_revision":2,"rsdp":true,"cmdline":""}',
    '{"event":"node_init","node":0,"policy":"deferred","threads":1,"cpus":1,"pages":95497,'
    '"early_pages":33478,"early_ns":7409940,"free_pages":128975,"desc_bytes":2097152,'
    '"start_ns":494501547,"end_ns":494825668,"ns":324121,"busy_ns":[321897]}',
    '{"event":"node_init","node":1,"policy":"deferred","threads":1,"cpus":1,"pages":129098,'
    '"early_pages":0,"early_ns":0,"free_pages":129098,"desc_bytes":2093056,'
    '"start_ns":478734549,"end_ns":646476846,"ns":167742296,"busy_ns":[167634178]}',
    '{"event":"summary","total_ns":695835289,"outside_ns":268154766,"phases_ns":427680523,'
    '"phases":[{"name":"meminit","ns":198942807,"permille":285}]}',
    '{"event":"done","ok":true,"status":0,"reason":"ok","warnings":0,"errors":0,'
    '"total_ns":695835289}',
]


def chunks(text, size):
    data = text.encode()
    return [data[i:i + size] for i in range(0, len(data), size)]


class ResultsTool(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="memboot-efivars-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def run_tool(self, path, *extra):
        proc = subprocess.run([TOOL, "efivars", path] + list(extra), capture_output=True,
                              text=True, timeout=60)
        self.assertNotIn("Traceback", proc.stderr)
        return proc

    def efivarfs(self, parts, guid=efivars.GUID):
        d = os.path.join(self.dir, "efivars")
        os.makedirs(d, exist_ok=True)
        for i, part in enumerate(parts):
            with open(os.path.join(d, "MembootResults%02d-%s" % (i, guid)), "wb") as f:
                f.write(struct.pack("<I", 7) + part)
        return d

    def var_store(self, variables, base=None):
        with open(base or OVMF_VARS, "rb") as f:
            blob = f.read()
        blob, n = efivars.add_variables(blob, variables)
        self.assertEqual(n, len(variables))
        path = os.path.join(self.dir, "vars.fd")
        with open(path, "wb") as f:
            f.write(blob)
        return path

    def expect_records(self, proc):
        self.assertEqual(proc.returncode, 0, proc.stderr)
        recs = [l for l in proc.stdout.splitlines() if l.startswith("MEMBOOT ")]
        self.assertEqual(recs, ["MEMBOOT " + l for l in LINES])
        return proc.stdout

    def test_efivarfs_chunks_in_order(self):
        out = self.expect_records(self.run_tool(
            self.efivarfs(chunks("\n".join(LINES) + "\n", 100))))
        self.assertIn("node 1 deferred pages initialised in 167.742 ms (129098 pages)", out)
        self.assertIn("phases total 427.681 ms, boot 695.835 ms", out)
        self.assertIn("memboot: boot done, status 0 (ok), 0 warnings, 0 errors", out)

    def test_summary_lines_count_the_phases_left_out(self):
        recs = [{"event": "summary", "phases_ns": 2000000, "total_ns": 3000000,
                 "phases": [{"name": "meminit", "ns": 1500000}], "phases_omitted": 23}]
        lines = efivars.summary_lines(recs)
        self.assertIn("phase meminit           1.500 ms", lines)
        self.assertIn("(23 shorter phases not in the summary record)", lines)
        recs[0].pop("phases_omitted")
        self.assertFalse([l for l in efivars.summary_lines(recs) if "not in the summary" in l])

    def test_results_is_an_alias(self):
        """`results`, the subcommand's first name, still works, the same in
        every byte; --help lists only the name, with the alias beside it."""
        d = self.efivarfs(chunks("\n".join(LINES) + "\n", 100))
        new = self.run_tool(d)
        old = subprocess.run([TOOL, "results", d], capture_output=True, text=True, timeout=60)
        self.assertEqual((old.returncode, old.stdout, old.stderr),
                         (new.returncode, new.stdout, new.stderr))
        listing = subprocess.run([TOOL, "--help"], capture_output=True, text=True,
                                 timeout=60).stdout
        self.assertRegex(listing, r"\n    efivars \(results\)\s+print the summary")

    def test_var_store_last_valid_copy_wins(self):
        text = "\n".join(LINES) + "\n"
        parts = chunks(text, 150)
        stale = [("MembootResults00", efivars.GUID, LINES[-1].replace("true", "false").encode() + b"\n", 0x3d)]
        others = [("Boot0000", "8be4df61-93ca-11d2-aa0d-00e098032b8c", b"\x01\x00")]
        fresh = [("MembootResults%02d" % i, efivars.GUID, p) for i, p in enumerate(parts)]
        # A chunk of a longer earlier boot, deleted since (state VAR_DELETED).
        deleted = [("MembootResults%02d" % len(parts), efivars.GUID, b"stale\n", 0x3d)]
        path = self.var_store(stale + others + fresh + deleted)
        self.expect_records(self.run_tool(path))
        # --json: bare JSON objects, one a line, as run --json prints them.
        json_out = self.run_tool(path, "--json")
        self.assertEqual(json_out.stdout.splitlines(), LINES)

    def test_pristine_store_has_no_results(self):
        proc = self.run_tool(OVMF_VARS)
        self.assertEqual(proc.returncode, 65)
        self.assertIn("holds no memboot results", proc.stderr)

    def test_bad_paths_are_usage_errors(self):
        proc = self.run_tool(os.path.join(self.dir, "missing"))
        self.assertEqual(proc.returncode, 64)
        self.assertIn("does not exist", proc.stderr)

    def test_damaged_inputs_are_data_errors(self):
        junk = os.path.join(self.dir, "junk.bin")
        with open(junk, "wb") as f:
            f.write(os.urandom(4096))
        empty_dir = os.path.join(self.dir, "empty")
        os.mkdir(empty_dir)
        short = os.path.join(self.dir, "short.bin")
        with open(short, "wb") as f:
            f.write(b"\0" * 10)
        with open(OVMF_VARS, "rb") as f:
            blob = bytearray(f.read())
        # A variable whose sizes run past the store.
        over = bytearray(efivars.add_variables(bytes(blob), [
            ("MembootResults00", efivars.GUID, b"{}")])[0])
        off = struct.unpack_from("<H", over, 48)[0] + 28
        struct.pack_into("<I", over, off + 40, 0x7fffffff)
        overrun = os.path.join(self.dir, "overrun.fd")
        with open(overrun, "wb") as f:
            f.write(over)
        cases = {
            junk: "no firmware volume signature",
            empty_dir: "holds no memboot results",
            short: "too short",
            overrun: "past the store's end",
            self.efivarfs([b"\xff\xfe binary"]): "not ASCII",
            self.efivarfs([b'{"event":"done","ok":tru\n'], ): "does not parse",
        }
        for path, words in cases.items():
            proc = self.run_tool(path)
            self.assertEqual(proc.returncode, 65, (path, proc.stderr))
            self.assertIn(words, proc.stderr, path)
        d = self.efivarfs([b"\x07"])
        with open(os.path.join(d, "MembootResults00-" + efivars.GUID), "wb") as f:
            f.write(b"\x07")
        proc = self.run_tool(d)
        self.assertEqual(proc.returncode, 65)
        self.assertIn("shorter than efivarfs's 4 bytes", proc.stderr)

    # A missing chunk, one past the kernel's limit, foreign attributes,
    # control bytes in records, an unreadable directory.

    def test_missing_chunk_is_named(self):
        parts = chunks("\n".join(LINES) + "\n", 300)
        d = self.efivarfs(parts)
        os.unlink(os.path.join(d, "MembootResults01-" + efivars.GUID))
        proc = self.run_tool(d)
        self.assertEqual(proc.returncode, 65)
        self.assertIn("chunk MembootResults01 is missing (it holds 00, 02", proc.stderr)
        self.assertNotIn("no done record", proc.stdout + proc.stderr)
        store = self.var_store([("MembootResults%02d" % i, efivars.GUID, p)
                                for i, p in enumerate(parts) if i != 1])
        proc = self.run_tool(store)
        self.assertEqual(proc.returncode, 65)
        self.assertIn("chunk MembootResults01 is missing", proc.stderr)

    def test_chunk_past_the_kernels_limit_is_named(self):
        self.assertEqual(efivars.MAX_CHUNKS, 32)
        text = "\n".join(LINES) + "\n"
        size = -(-len(text) // 32)
        parts = chunks(text, size)
        parts += [b""] * (32 - len(parts)) + [b'{"event":"warning","msg":"stale"}\n']
        self.assertEqual(len(parts), 33)
        proc = self.run_tool(self.efivarfs(parts))
        self.expect_records(proc)
        self.assertIn("MembootResults32 is past the 32 chunks memboot writes "
                      "(RESULTS_MAX_CHUNKS, kernel/services/report/efivars.h); left out", proc.stderr)

    def test_attributes_are_checked(self):
        d = self.efivarfs(chunks("\n".join(LINES) + "\n", 4000))
        with open(os.path.join(d, "MembootResults00-" + efivars.GUID), "r+b") as f:
            f.write(struct.pack("<I", 0xFFFFFFFF))
        proc = self.run_tool(d)
        self.assertEqual(proc.returncode, 65)
        self.assertIn("attributes 0xffffffff; memboot writes its variables with 0x00000007 "
                      "(non-volatile, boot service and runtime access), the only ones "
                      "accepted", proc.stderr)

    def test_control_bytes_are_escaped(self):
        lines = [LINES[0].replace('"cmdline":""', '"cmdline":"\\u001b]0;owned\\u0007"')]
        lines += LINES[1:-1] + [LINES[-1].replace('"reason":"ok"', '"reason":"\\u001b[2J"')
                                + "\x1b[2J\x07"]
        proc = self.run_tool(self.efivarfs([("\n".join(lines) + "\n").encode()]))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for bad in ("\x1b", "\x07"):
            self.assertNotIn(bad, proc.stdout)
        self.assertIn("results: boot path mb2-uefi, \\u001b]0;owned\\u0007", proc.stdout)
        self.assertIn("status 0 (\\u001b[2J)", proc.stdout)
        self.assertEqual(proc.stdout.splitlines()[-1],
                         "MEMBOOT " + LINES[-1].replace('"reason":"ok"',
                                                        '"reason":"\\u001b[2J"'))
        self.assertEqual(efivars.terminal_safe("a\x1bb\x07c\x7f\td"),
                         "a\\u001bb\\u0007c\\u007f\\u0009d")

    def test_unreadable_directory_is_permission_denied(self):
        d = self.efivarfs(chunks("\n".join(LINES) + "\n", 4000))
        os.chmod(self.dir, 0o755)
        os.chmod(d, 0)
        cmd = [TOOL, "efivars", d]
        if os.geteuid() == 0:       # root reads it anyway: run as nobody
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            from test_file_rule import AS_NOBODY, nobody_tool
            cmd = AS_NOBODY + [sys.executable, nobody_tool(), "efivars", d]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        os.chmod(d, 0o755)
        self.assertNotIn("Traceback", proc.stderr)
        self.assertEqual(proc.returncode, 64, proc.stderr)
        self.assertIn("cannot read directory %s: Permission denied" % d, proc.stderr)
        self.assertNotIn("holds no memboot results", proc.stderr)


    # -- issue 44 ---------------------------------------------------------------

    def test_only_the_names_memboot_writes_are_chunks(self):
        # MembootResults000 (the same bytes as 00) was read as chunk 0 again:
        # every figure twice (nodes 4, pages doubled), exit 0.
        parts = chunks("\n".join(LINES) + "\n", 400)
        self.assertGreaterEqual(len(parts), 2)
        d = self.efivarfs(parts)
        for odd in ("MembootResults000", "MembootResults001", "MembootResults7"):
            with open(os.path.join(d, "%s-%s" % (odd, efivars.GUID)), "wb") as f:
                f.write(struct.pack("<I", 7) + parts[0])
        proc = self.run_tool(d)
        self.expect_records(proc)
        self.assertIn("MembootResults000 is not a name memboot writes (two digits, "
                      "MembootResults00 to MembootResults31); left out", proc.stderr)
        self.assertIn("MembootResults7 is not a name", proc.stderr)
        store = self.var_store([("MembootResults%02d" % i, efivars.GUID, p)
                                for i, p in enumerate(parts)]
                               + [("MembootResults000", efivars.GUID, parts[0])])
        self.expect_records(self.run_tool(store))

    def test_a_record_that_does_not_parse_names_its_variables(self):
        text = "\n".join(LINES) + "\n"
        cut = text.index('"event":"summary"') + 5
        parts = [text[:cut].encode(), b"#" + text[cut + 1:].encode()]
        proc = self.run_tool(self.efivarfs(parts))
        self.assertEqual(proc.returncode, 65, proc.stderr)
        self.assertIn("kept record 4 (in MembootResults00 and MembootResults01) does not "
                      "parse", proc.stderr)


if __name__ == "__main__":
    unittest.main()
