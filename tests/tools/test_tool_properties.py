"""Property tests: random and mutated records, console logs and bench JSON
fed to every tool that reads them. No input may end in a traceback, and
trace's output must be strict JSON.

The tools are called through their Python entry points (tools/memboot's
main() for trace, plot, bench-plot and efivars; the record reader; the parts
of run, bench, seeds, compare-linux and bench --scale that read a boot's
records; the kmem trace reader of lab and run --replay; and every
subcommand's argument parser, from make_parser(), on random command lines:
a usage error exits 64, nothing else escapes).
Hypothesis (Debian python3-hypothesis, tools/setup-deps.sh) generates the
inputs, derandomized so that every run tries the same examples, with a
bounded number of them: the whole file runs in well under a minute.

    python3 -m unittest tests/tools/test_tool_properties.py -v
"""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import types
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
from mbtools import (bench, benchplot, efivars, kmemtrace, linux, optional,  # noqa: E402
                     plot, records, scale, seeds, trace)
from script_module import load_script  # noqa: E402

hypothesis = optional.debian_import("hypothesis")
if hypothesis is not None:
    import atexit
    from hypothesis import configuration, given, settings, strategies as st
    # Hypothesis keeps caches in .hypothesis/ of the working directory: a
    # temporary directory instead, so that a test run leaves the checkout
    # as it was.
    _home = tempfile.mkdtemp(prefix="memboot-hypothesis-")
    atexit.register(shutil.rmtree, _home, True)
    configuration.set_hypothesis_home_dir(_home)
else:   # the class below is skipped; these only keep the decorators valid
    def given(*a, **k):
        return lambda f: f

    def settings(*a, **k):
        return lambda f: f

    class _St:
        def __getattr__(self, name):
            return lambda *a, **k: None
    st = _St()


mb = load_script(os.path.join(REPO_ROOT, "tools", "memboot"), "memboot_properties")

# Bounded and deterministic: CI runs the same examples every time.
FEW = dict(max_examples=40, deadline=None, derandomize=True, database=None)
SOME = dict(max_examples=120, deadline=None, derandomize=True, database=None)
MANY = dict(max_examples=400, deadline=None, derandomize=True, database=None)
PLOTS = dict(max_examples=6, deadline=None, derandomize=True, database=None)

# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------

SAMPLE = {"int": [0, 1, 3, 4096, 1000000, 2 ** 63, -1], "str": ["a", "deferred", "early", ""],
          "bool": [True, False], "hex": ["0x0", "0x100000", "0xffffffff"],
          "list": [[], [1, 2], [["0x0", "0x1000"]]], "object": [{}]}

# What a mutation may put in place of a value, as JSON text: other types,
# the non-JSON constants, numbers beyond a double or 64 bits, deep nesting.
HOSTILE = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1e-400", "0.5",
           "18446744073709551616", "9" * 40, '"5"', '"0x"', "null", "true", "false",
           "[]", "{}", '"\\u0000"', "[" * 3000 + "]" * 3000, "[" * 3000, '{"a":' * 2000]

EVENTS = sorted(records.SCHEMA) + ["census", "boot", "summary"]


@st.composite
def record_line(draw):
    """A console line: a record as the kernel prints it, then maybe mutated
    (a key dropped, a value replaced by hostile JSON, the line cut, noise
    around it)."""
    event = draw(st.sampled_from(EVENTS))
    rec = {"event": event}
    for key, (kind, _) in records.schema_keys(event).items():
        if draw(st.integers(0, 9)):
            rec[key] = draw(st.sampled_from(SAMPLE[kind]))
    keys = [k for k in rec if k != "event"]
    mutation = draw(st.sampled_from(["none", "drop", "replace", "replace", "cut", "event"]))
    if mutation == "drop" and keys:
        del rec[draw(st.sampled_from(keys))]
    text = json.dumps(rec, separators=(",", ":"))
    if mutation == "replace" and keys:
        key = draw(st.sampled_from(keys))
        marker = "\u0001HOSTILE\u0001"
        rec[key] = marker
        text = json.dumps(rec, separators=(",", ":")).replace(
            json.dumps(marker), draw(st.sampled_from(HOSTILE)))
    elif mutation == "cut":
        text = text[:draw(st.integers(0, len(text)))]
    elif mutation == "event":
        text = text.replace(json.dumps(event), draw(st.sampled_from(HOSTILE + ['"x"'])), 1)
    prefix = draw(st.sampled_from(["", "", "@0.500000 ", "\x1b[0m", "[    0.1] x "]))
    suffix = draw(st.sampled_from(["", "", "\r", " trailing", "\x1b[2J"]))
    return prefix + "MEMBOOT " + text + suffix


noise_line = st.one_of(st.text(max_size=40),
                       st.sampled_from(["MEMBOOT", "MEMBOOT {", "MEMBOOT {}", "MEMBOOT []",
                                        "SeaBIOS", "[    0.000001] memboot"]))
console = st.lists(st.one_of(record_line(), record_line(), noise_line), max_size=30).map(
    "\n".join)

json_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70),
              st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8)),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.text(max_size=8), children, max_size=4)),
    max_leaves=20)

good_row = st.fixed_dictionaries({
    "config": st.fixed_dictionaries({
        "topo": st.sampled_from(["2x2x1G", "2x2x2G", "4x1x512M", "0x0x0", "x"]),
        "threads": st.sampled_from(["1", "node", "2"]),
        "desc": st.sampled_from(["16", "32", "64"])}),
    "node": st.one_of(st.none(), st.integers(0, 3)),
    "ms_median": st.floats(0, 100), "ms_min": st.floats(0, 100), "ms_max": st.floats(0, 100)})
bench_row = st.one_of(good_row, good_row, json_value,
                      good_row.flatmap(lambda r: st.sampled_from(sorted(r)).map(
                          lambda k: {kk: vv for kk, vv in r.items() if kk != k})),
                      good_row.flatmap(lambda r: json_value.map(
                          lambda v: dict(r, ms_median=v))))
bench_json = st.one_of(st.fixed_dictionaries({"rows": st.lists(bench_row, max_size=8)}),
                       json_value)

# memboot efivars: chunk files of an efivarfs directory (any index, any
# attributes, bytes or record-like text) and variable stores (random bytes, or
# the pristine store with chunks added and bytes flipped).
OVMF_VARS = os.environ.get("MEMBOOT_OVMF_VARS") or "/usr/share/OVMF/OVMF_VARS_4M.fd"
chunk_data = st.one_of(st.binary(max_size=300),
                       console.map(lambda t: t.replace("MEMBOOT ", "").encode(
                           "ascii", "replace")),
                       st.sampled_from([b'{"event":"done","ok":true,"status":0}\n',
                                        b'{"event":"boot","cmdline":"\\u001b[2J"}\n',
                                        b"\x1b[2J\x07\n", b""]))
efivarfs_chunks = st.lists(st.tuples(st.one_of(st.integers(0, 3), st.integers(0, 40)),
                                     st.sampled_from([7, 7, 7, 0, 0xFFFFFFFF, 0x27]),
                                     chunk_data), max_size=6)
KEPT_RECORDS = [
    '{"event":"boot","boot_path":"mb2-uefi","cmdline":"\\u001b]0;title\\u0007"}',
    '{"event":"node_init","node":0,"policy":"deferred\\u001b[2J","threads":1,"cpus":1,'
    '"pages":3,"start_ns":1,"end_ns":6,"ns":5}',
    '{"event":"summary","total_ns":9,"phases_ns":8,"phases":[{"name":"a\\u0007","ns":1}]}',
    '{"event":"done","ok":true,"status":0,"reason":"ok\\u007f","warnings":0,"errors":0}',
    '{"event":"done","ok":true,"status":0}\x1b[2J\x07',
    '{"event":"warning","msg":"\\u0000\\u001b"}']


@st.composite
def kept_chunks(draw):
    """Records as a boot keeps them, split into chunks 00.. at random
    points, then maybe one chunk dropped, its attributes changed, or a
    chunk past the kernel's 32 added."""
    change = draw(st.sampled_from(["none", "drop", "drop", "attributes", "past"]))
    text = "\n".join(draw(st.lists(st.sampled_from(KEPT_RECORDS), min_size=3,
                                   max_size=6))) + "\n"
    # Cut anywhere, or where a line ends (as the kernel cuts); a chunk
    # dropped from records cut where lines end leaves records that parse.
    ends = [i + 1 for i, c in enumerate(text) if c == "\n"]
    cut = st.sampled_from(ends) if change == "drop" else \
        st.one_of(st.integers(0, len(text)), st.sampled_from(ends))
    cuts = sorted(draw(st.lists(cut, min_size=2 if change == "drop" else 0, max_size=4)))
    bounds = [0] + cuts + [len(text)]
    files = [(i, 7, text[a:b].encode()) for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]
    if change == "drop" and len(files) > 1:
        del files[draw(st.integers(0, len(files) - 1))]
    elif change == "attributes":
        i = draw(st.integers(0, len(files) - 1))
        files[i] = (files[i][0], draw(st.sampled_from([0, 0x27, 0xFFFFFFFF])), files[i][2])
    elif change == "past":
        files.append((draw(st.integers(32, 40)), 7, b"stale\n"))
    return files


store_edit = st.tuples(st.lists(st.tuples(st.integers(0, 40), chunk_data), max_size=5),
                       st.lists(st.tuples(st.integers(0, 1 << 19), st.integers(0, 255)),
                                max_size=4),
                       st.one_of(st.none(), st.integers(0, 1 << 19)))

# A kmem trace line: an event as tracefs prints it with each field maybe
# replaced by junk, or any text.
field_value = st.one_of(st.sampled_from(["0", "1", "10", "11", "-1", "q", "", "0x", "0x10",
                                         "1e20", "99999999999999999999", "0xZZ", "(nil)",
                                         "0000000000000000", "\u0663"]),
                        st.integers(0, 1 << 40).map(hex), st.integers(0, 12).map(str))
trace_line = st.one_of(
    st.builds(lambda task, cpu, name, page, pfn, order, tail: "%s [%s] ..... 1.000001: %s: "
              "page=%s pfn=%s order=%s%s" % (task, cpu, name, page, pfn, order, tail),
              st.sampled_from(["cc1-1", "sh-2", "x", "  a b-3"]),
              st.one_of(st.integers(0, 3).map("%03d".__mod__), st.integers(0, 70000).map(str),
                        st.sampled_from(["", "x", "-1"])),
              st.sampled_from(["mm_page_alloc", "mm_page_free", "mm_page_free_batched",
                               "mm_page_alloc_zone_locked"]),
              field_value, field_value, field_value,
              st.sampled_from(["", " migratetype=1 gfp_flags=GFP_KERNEL", " order=3",
                               "\x00", " \x1b[2J"])),
    st.text(max_size=60), st.sampled_from(["#", "# tracer: nop", "", "   "]))
kmem_trace = st.lists(trace_line, max_size=40)

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def strict_loads(text):
    def refuse(name):
        raise AssertionError("%s in the output: not strict JSON" % name)
    return json.loads(text, parse_constant=refuse)


def call_parser(argv):
    """tools/memboot parse_args(argv) only: None when it parsed, else the
    status it exited with. An exception escaping it fails the test."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            mb.parse_args(argv)
        except SystemExit as e:
            return e.code
    return None


def parser_words():
    """{subcommand: [(option string, its values)]} from make_parser(): what
    random command lines are built of (a flag's values are empty; a
    positional argument's option string is "")."""
    import argparse
    top = mb.make_parser()
    subs = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    words = {}
    for name, sub in subs.choices.items():
        options = []
        for action in sub._actions:
            values = [str(c) for c in (action.choices or [])]
            if action.default not in (None, False, True) and \
                    not isinstance(action.default, list):
                values.append(str(action.default))
            if action.nargs == 0:
                values = []
            elif not values:
                values = ["1"]
            for opt in action.option_strings or [""]:
                options.append((opt, values))
        words[name] = options
    return words


PARSER_WORDS = parser_words()
# Each subcommand about as often as it has options (run's 30 more than trace's 2).
COMMANDS = [name for name, options in sorted(PARSER_WORDS.items())
            for _ in range(max(1, len(options) // 4))] + ["", "nosuch", "-h"]
HOSTILE_ARGS = ["0", "1", "-1", "x", "", "--", "list", "1,,2", "2M", "3M", "1_0", "\u0663",
                "/dev/null", "/dev/zero", "/", "/nonexistent/x", "a=b", "-", "nan", "1e9",
                "memboot.selftest=clock", "seed004-small", "\udcff"]


@st.composite
def command_line(draw):
    """A subcommand and up to 8 of its options, each with one of its own
    values or a hostile one, in any order, with noise between."""
    command = draw(st.sampled_from(COMMANDS))
    options = PARSER_WORDS.get(command, [])
    argv = [command]
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.integers(0, 9))
        if options and kind < 7:
            opt, values = draw(st.sampled_from(options))
            argv += [opt] if opt else []
            if values or not opt:
                argv.append(draw(st.sampled_from(values or ["x"])) if kind < 4 else
                            draw(st.one_of(st.sampled_from(HOSTILE_ARGS), st.text(max_size=6))))
        else:
            argv.append(draw(st.one_of(st.sampled_from(HOSTILE_ARGS), st.text(max_size=6))))
    return argv


def call_tool(argv):
    """tools/memboot main(argv) in this process: (status, stdout, stderr).
    An exception escaping it fails the test with its traceback."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = mb.main(argv)
        except SystemExit as e:
            status = e.code
    return status, out.getvalue(), err.getvalue()


@unittest.skipIf(hypothesis is None, "python3-hypothesis is not installed")
class ToolProperties(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="memboot-properties-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        return path

    @settings(**SOME)
    @given(console)
    def test_reader_keeps_only_valid_records(self, text):
        log = records.parse_log(text, name="c.log")
        lines = text.splitlines()
        self.assertLessEqual(len(log.records) + log.skipped, len(lines))
        for rec in log.records:
            self.assertIsNone(records.record_problem(rec))
            strict_loads(json.dumps(rec, allow_nan=False))
        for problem in log.problems:
            self.assertRegex(problem, r"^c\.log:\d+: .*; skipped$")
            self.assertNotIn("\n", problem)
        # The other entry points agree with it.
        self.assertEqual([r for _, r in records.iter_records(text)], log.records)

    @settings(**SOME)
    @given(console)
    def test_trace_writes_strict_json(self, text):
        log = self.write("boot.log", text)
        out = os.path.join(self.dir, "trace.json")
        status, _, err = call_tool(["trace", log, "-o", out])
        self.assertIn(status, (0, 1), err)
        if status == 0:
            with open(out) as f:
                tr = strict_loads(f.read())
            self.assertIn("traceEvents", tr)

    @settings(**SOME)
    @given(console)
    def test_readers_of_a_boot(self, text):
        """The parts of run, bench, seeds, compare-linux and --scale that
        read a boot's records."""
        recs, unknown = bench.parse_console(text)
        run = {"config": {"topo": "2x2x1G"}, "status": 0, "records": recs,
               "unknown": unknown, "wall_s": 1.0, "stderr": ""}
        rows = bench.summarize([run, dict(run, status=1)])
        bench.markdown_table(rows, ["topo"])
        bench.write_csv(os.path.join(self.dir, "rows.csv"), rows, ["topo"])
        strict_loads(json.dumps({"rows": rows, "runs": [run]}, allow_nan=False))
        seeds.table_000([run], [run], "2x2x1G")
        seeds.table_004([run], "4x1x1G")
        seeds.huge_ms([run])
        linux.memboot_facts(recs)
        scale.node_results(recs)
        scale.boot_ok(recs)
        trace.build(recs)
        plot.node_bars(recs)
        # tools/memboot run's console reader, line by line.
        args = types.SimpleNamespace(json=True, host_times=False, log=None, elf=None,
                                     verbose=False)
        c = mb.Console(args, None, 0.0)
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            for line in text.splitlines():
                c.line(line.encode("utf-8", errors="surrogateescape") + b"\n", 1.0)
            c.finish(2.0)
        c.complaints()

    @settings(**FEW)
    @given(bench_json)
    def test_bench_plot(self, data):
        path = self.write("bench.json", json.dumps(data))
        status, _, err = call_tool(["bench-plot", path, "--text"])
        self.assertIn(status, (0, 64), err)

    @settings(**FEW)
    @given(st.text(max_size=200))
    def test_bench_plot_of_any_text(self, text):
        path = self.write("bench.json", text)
        status, _, err = call_tool(["bench-plot", path, "--text"])
        self.assertIn(status, (0, 64), err)

    @settings(**PLOTS)
    @given(console)
    def test_plot(self, text):
        if plot.import_pyplot() is None:
            self.skipTest("python3-matplotlib is not installed")
        log = self.write("boot.log", text)
        status, _, err = call_tool(["plot", log, "-o", os.path.join(self.dir, "b.svg")])
        self.assertIn(status, (0, 1), err)

    def assert_terminal_safe(self, text):
        bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or ord(c) == 0x7F]
        self.assertEqual(bad, [], "control bytes printed")

    @settings(**FEW)
    @given(st.one_of(efivarfs_chunks, kept_chunks()))
    def test_efivars_of_any_chunk_files(self, chunk_files):
        d = os.path.join(self.dir, "efivars")
        shutil.rmtree(d, ignore_errors=True)
        os.mkdir(d)
        for index, attributes, data in chunk_files:
            with open(os.path.join(d, "%s-%s" % (efivars.chunk_name(index), efivars.GUID)),
                      "wb") as f:
                f.write(attributes.to_bytes(4, "little") + data)
        status, out, err = call_tool(["efivars", d])
        self.assertIn(status, (0, 65), err)
        self.assert_terminal_safe(out + err)
        written = {index: attributes for index, attributes, _ in chunk_files}
        if status == 0:
            # Read only if the kernel's chunks are all there, each with the
            # attributes it writes; one past its 32 is named.
            kept = sorted(i for i in written if i < efivars.MAX_CHUNKS)
            self.assertEqual(kept, list(range(len(kept))))
            self.assertEqual({written[i] for i in kept}, {efivars.RESULTS_ATTRIBUTES})
            for i in written:
                if i >= efivars.MAX_CHUNKS:
                    self.assertIn(efivars.chunk_name(i) + " is past the 32 chunks", err)
            self.assertTrue(out.endswith("\n"))
        else:
            self.assertRegex(err, r"^memboot efivars: .+\n$")

    @settings(**FEW)
    @given(store_edit)
    def test_efivars_of_any_store(self, edit):
        variables, flips, cut = edit
        try:
            with open(OVMF_VARS, "rb") as f:
                blob = f.read()
        except OSError:
            blob = os.urandom(1 << 16)
        try:
            blob, _ = efivars.add_variables(blob, [(efivars.chunk_name(i), efivars.GUID, data)
                                                   for i, data in variables])
        except efivars.ResultsError:
            pass
        blob = bytearray(blob)
        for offset, value in flips:
            if offset < len(blob):
                blob[offset] = value
        path = os.path.join(self.dir, "vars.fd")
        with open(path, "wb") as f:
            f.write(bytes(blob[:cut]) if cut is not None else bytes(blob))
        status, out, err = call_tool(["efivars", path])
        self.assertIn(status, (0, 65), err)
        self.assert_terminal_safe(out + err)

    @settings(**SOME)
    @given(kmem_trace)
    def test_every_trace_line_counted_once(self, lines):
        path = self.write("t.trace", "\n".join(lines) + "\n")
        try:
            events, rep = kmemtrace.parse_trace(path)
        except kmemtrace.TraceError as e:
            self.assertNotIn("\n", str(e))
            return
        counted = rep["alloc"] + rep["free"] + sum(rep[k] for k in kmemtrace.REPLAY_SKIPS)
        self.assertEqual(counted, rep["lines"])
        self.assertEqual(len(events), rep["alloc"] + rep["free"])
        held = {}
        for cpu, op, order, ident in events:
            self.assertTrue(0 <= cpu < rep["cpus"] and 0 <= order <= 10)
            if op == 0:
                self.assertNotIn(ident, held)
                held[ident] = order
            else:
                self.assertEqual(held.pop(ident), order)
        self.assertEqual(len(held), rep["held_at_end"])

    @settings(**MANY)
    @given(st.data())
    def test_every_parser_on_random_argv(self, data):
        argv = data.draw(command_line())
        # Relative paths in argv name files of the test's directory, never
        # of the checkout.
        with contextlib.chdir(self.dir):
            status = call_parser(argv)
            self.assertIn(status, (None, 0, 64), argv)
            if argv[0] in ("run", "efivars", "results", "trace", "bench-plot") and status is None:
                # Run the command too where that starts nothing: run with
                # --dry-run prints QEMU's command line.
                argv = argv[:1] + (["--dry-run"] if argv[0] == "run" else []) + argv[1:]
                status, _, err = call_tool(argv)
                self.assertIn(status, (0, 1, 64, 65), (argv, err))

    def test_rows_of_bench_plot(self):
        """benchplot's row check agrees with what the figures read."""
        self.assertIsNone(benchplot.row_problem(
            {"config": {"threads": "1"}, "node": 0, "ms_median": 1, "ms_min": 1,
             "ms_max": 1}))


if __name__ == "__main__":
    unittest.main()
