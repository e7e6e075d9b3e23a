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
import os
import sys

from mbtools import bench

X_AXES = ("threads", "desc", "mem")


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
        if r.get("node") is None or r.get("ms_median") is None:
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
            err = [[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]]
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
    p.add_argument("json_file", metavar="BENCH.json")
    p.add_argument("--out", default="memboot-bench", metavar="PREFIX",
                   help="output path prefix (default: memboot-bench)")
    p.add_argument("--format", choices=("png", "svg"), default="png")
    p.add_argument("--text", action="store_true",
                   help="print the series only, draw nothing")
    p.set_defaults(func=main)
    return p


def main(args):
    try:
        with open(args.json_file) as f:
            data = json.load(f)
        rows = data["rows"]
    except (OSError, ValueError, KeyError) as e:
        print("memboot bench-plot: cannot read bench JSON %s: %s" % (args.json_file, e),
              file=sys.stderr)
        return 64
    text = text_series(rows)
    print(text or "memboot bench-plot: no axis varies in %s (threads, desc or memory per node)"
          % args.json_file)
    if args.text or not text:
        return 0
    try:
        written = plot(rows, args.out, args.format)
    except ImportError:
        print("memboot bench-plot: python3-matplotlib is missing (tools/setup-deps.sh "
              "installs it); printed the series only", file=sys.stderr)
        return 1
    for path in written:
        print("wrote %s" % os.path.abspath(path))
    return 0
