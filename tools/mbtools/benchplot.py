"""tools/memboot bench-plot: per-node init time against threads, descriptor size
and memory size, from the JSON of `tools/memboot bench --json`.

One figure per x axis that varies in the data (threads, desc, memory per
node); each line is one combination of the other axes and one node; y is
the median node_init time in ms with the min-max spread as error bars.
PNG or SVG by the output name's extension. Needs python3-matplotlib
(tools/setup-deps.sh installs it); the series are also printed as text, so
the command is useful without it (--text).
"""

import json
import math
import os
import sys

from mbtools import bench, facts, inputs

X_AXES = ("threads", "desc", "mem")
# The keys of a row of `bench --json` that the figures read.
ROW_NUMBERS = ("ms_median", "ms_min", "ms_max")


class BenchJSONError(Exception):
    """A bench JSON that is not what `tools/memboot bench --json` writes."""


def _no_constant(name):
    raise ValueError("%s is not JSON" % name)


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def row_problem(row):
    """None if @row has the shape `bench --json` writes, else what is wrong."""
    if not isinstance(row, dict):
        return "not an object"
    config = row.get("config")
    if not isinstance(config, dict):
        return "'config' is missing or not an object"
    for k, v in config.items():
        if not isinstance(v, str):
            return "config value %r is not a string" % k
    node = row.get("node")
    if node is not None and (not isinstance(node, int) or isinstance(node, bool)):
        return "'node' is not an integer or null"
    for key in ROW_NUMBERS:
        if key in row and row[key] is not None and not _number(row[key]):
            return "'%s' is not a number" % key
    return None


def load_rows(path, stream=None):
    """The rows of a bench JSON file, each checked; a bad row is reported on
    @stream (stderr) and skipped. BenchJSONError when the file cannot be read
    or is not a bench JSON at all."""
    stream = stream if stream is not None else sys.stderr
    try:
        data = json.loads(inputs.read_input(path, "bench JSON").decode("utf-8"),
                          parse_constant=_no_constant)
    except inputs.InputError as e:
        raise BenchJSONError(str(e)) from None
    except UnicodeDecodeError as e:
        raise BenchJSONError("%s is not UTF-8 text: %s" % (path, e)) from None
    except RecursionError:
        raise BenchJSONError("%s: nested too deeply" % path) from None
    except ValueError as e:
        raise BenchJSONError("%s is not JSON: %s" % (path, e)) from None
    if not isinstance(data, dict):
        raise BenchJSONError("%s: expected an object with \"rows\" (bench --json), "
                             "found %s" % (path, type(data).__name__))
    rows = data.get("rows")
    if not isinstance(rows, list):
        raise BenchJSONError("%s: \"rows\" is %s, expected a list" % (
            path, "missing" if "rows" not in data else type(rows).__name__))
    good = []
    for i, row in enumerate(rows):
        problem = row_problem(row)
        if problem:
            print("memboot bench-plot: %s: rows[%d]: %s; skipped" % (path, i, problem),
                  file=stream)
        else:
            good.append(row)
    if rows and not good:
        # Nothing would be drawn: not a success.
        raise BenchJSONError("%s: all %d rows have the wrong shape (each named above): "
                             "nothing to plot" % (path, len(rows)))
    return good


def mem_of(config):
    try:
        return bench.parse_topo(config.get("topo", ""))[2]
    except bench.BenchError:
        return None


def x_value(row, axis):
    if axis == "mem":
        return mem_of(row["config"])
    return row["config"].get(axis)


def size_sort_key(v):
    """Numbers as numbers, sizes by bytes, the rest after them by name."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    s = str(v)
    try:
        if s and s[-1] in units:
            return (0, float(s[:-1]) * units[s[-1]], s)
        return (0, float(s), s)
    except ValueError:
        return (1, 0, s)


def series(rows, axis):
    """{label: [(x, median_ms, min_ms, max_ms), ...]} for one x axis: the
    rows grouped by every other axis and the node."""
    out = {}
    for r in rows:
        if r.get("node") is None or any(r.get(k) is None for k in ROW_NUMBERS):
            continue
        x = x_value(r, axis)
        if x is None:
            continue
        others = {k: v for k, v in r["config"].items()
                  if k != axis and not (axis == "mem" and k == "topo")}
        if axis == "mem":
            nodes, cpus, _ = bench.parse_topo(r["config"]["topo"])
            others["shape"] = "%dx%d" % (nodes, cpus)
        label = " ".join("%s=%s" % kv for kv in sorted(others.items())) + " node %d" % r["node"]
        out.setdefault(label, []).append((x, r["ms_median"], r["ms_min"], r["ms_max"]))
    for label in out:
        out[label].sort(key=lambda p: size_sort_key(p[0]))
    return {k: v for k, v in out.items() if len({p[0] for p in v}) > 1}


def text_series(rows):
    lines = []
    for axis in X_AXES:
        s = series(rows, axis)
        if not s:
            continue
        lines.append("per-node init (ms) against %s:" % axis)
        for label, pts in sorted(s.items()):
            lines.append("  %s: %s" % (label, ", ".join("%s: %.2f" % (x, m) for x, m, _, _ in pts)))
    return "\n".join(lines)


def plot(rows, out_prefix, fmt):
    from mbtools.plot import import_pyplot   # finds Debian's matplotlib too
    plt = import_pyplot()
    if plt is None:
        raise ImportError("matplotlib")
    written = []
    for axis in X_AXES:
        s = series(rows, axis)
        if not s:
            continue
        fig, ax = plt.subplots(figsize=(8, 5))
        for label, pts in sorted(s.items()):
            xs = [str(p[0]) for p in pts]
            ys = [p[1] for p in pts]
            err = [[max(p[1] - p[2], 0) for p in pts], [max(p[3] - p[1], 0) for p in pts]]
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=label)
        ax.set_xlabel({"threads": "threads per node (memboot.init_threads)",
                       "desc": "descriptor bytes", "mem": "memory per node"}[axis])
        ax.set_ylabel("node init, ms (median, min-max)")
        ax.set_title("memboot per-node init against %s" % axis)
        ax.legend(fontsize="x-small")
        fig.tight_layout()
        path = "%s-%s.%s" % (out_prefix, axis, fmt)
        fig.savefig(path)
        plt.close(fig)
        written.append(path)
    return written


def add_parser(sub):
    p = sub.add_parser(
        "bench-plot",
        help="plot per-node init time against threads, descriptor size and memory "
             "from a bench JSON",
        description="Read `tools/memboot bench --json FILE` output and write one "
                    "figure per axis that varies (threads, desc, memory per node): "
                    "PREFIX-threads.png and so on.")
    p.add_argument("json_file", metavar="BENCH.json", type=inputs.input_file)
    p.add_argument("--out", default="memboot-bench", metavar="PREFIX",
                   type=inputs.output_prefix,
                   help="output path prefix (default: memboot-bench)")
    p.add_argument("--format", choices=("png", "svg"), default="png")
    p.add_argument("--text", action="store_true",
                   help="print the series only, draw nothing")
    p.set_defaults(func=main)
    return p


def main(args):
    try:
        rows = load_rows(args.json_file)
    except BenchJSONError as e:
        print("memboot bench-plot: %s" % e, file=sys.stderr)
        return facts.EXIT_USAGE
    text = text_series(rows)
    print(text or "memboot bench-plot: no axis varies in %s (threads, desc or memory per node)"
          % args.json_file)
    if args.text or not text:
        return 0
    try:
        written = plot(rows, args.out, args.format)
    except OSError as e:
        print("memboot bench-plot: cannot write %s-*.%s: %s"
              % (args.out, args.format, e.strerror or e), file=sys.stderr)
        return 1
    except ImportError:
        print("memboot bench-plot: python3-matplotlib is missing (tools/setup-deps.sh "
              "installs it); printed the series only", file=sys.stderr)
        return 1
    for path in written:
        print("wrote %s" % os.path.abspath(path))
    return 0
