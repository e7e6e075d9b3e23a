"""Property tests: random and mutated records, console logs and bench JSON
fed to every tool that reads them. No input may end in a traceback, and
trace's output must be strict JSON.

The tools are called through their Python entry points (tools/memboot's
main() for trace, plot and bench-plot; the record reader; the parts of run,
bench, seeds, compare-linux and bench --scale that read a boot's records).
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
from mbtools import (bench, benchplot, linux, optional, plot, records,  # noqa: E402
                     scale, seeds, trace)
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

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def strict_loads(text):
    def refuse(name):
        raise AssertionError("%s in the output: not strict JSON" % name)
    return json.loads(text, parse_constant=refuse)


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

    def test_rows_of_bench_plot(self):
        """benchplot's row check agrees with what the figures read."""
        self.assertIsNone(benchplot.row_problem(
            {"config": {"threads": "1"}, "node": 0, "ms_median": 1, "ms_min": 1,
             "ms_max": 1}))


if __name__ == "__main__":
    unittest.main()
