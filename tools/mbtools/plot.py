"""tools/memboot plot: per-node init time and the per-CPU timeline of a boot.

    tools/memboot plot LOG -o boot.png      (or .svg)

Two panels from the records of one console log: on top, each node's init
time (the boot CPU's early part and the parallel part, from node_init) with
its pages and the CPUs that did the work; below, one row per CPU with the
boot phases on the boot CPU, the chunks of each node's init (coloured by
node) and the huge page pool jobs. matplotlib comes from Debian's
python3-matplotlib (tools/setup-deps.sh installs it).
"""
import sys

from mbtools import inputs, optional, records, trace

# The formats the output's extension may choose.
FORMATS = ("png", "svg", "pdf")
# A figure taller than this (inches) is not drawn taller: a log with
# thousands of CPUs still gives a picture, not an image too large to save.
MAX_FIGURE_INCHES = 60

def import_pyplot():
    """matplotlib.pyplot with the Agg backend, or None if not installed
    (Debian's python3-matplotlib is found through mbtools.optional)."""
    matplotlib = optional.debian_import("matplotlib")
    if matplotlib is None:
        return None
    matplotlib.use("Agg")
    return optional.debian_import("matplotlib.pyplot")


def add_parser(sub):
    p = sub.add_parser(
        "plot", help="draw per-node init time and the per-CPU timeline",
        description="Read the records of a console log and draw per-node init "
                    "time and the per-CPU timeline; the output's extension "
                    "(.png, .svg, .pdf) chooses the format.")
    p.add_argument("log", metavar="LOG", type=inputs.input_file,
                   help="console log of one boot")
    p.add_argument("-o", "--output", metavar="FILE", required=True,
                   type=inputs.output_with_extension(*FORMATS),
                   help="image to write (.png, .svg or .pdf)")
    p.set_defaults(func=cmd_plot)


def node_bars(records):
    """[(node, early_ms, parallel_ms, label)] from node_init records."""
    bars = []
    for r in records:
        if r["event"] != "node_init":
            continue
        early = r.get("early_ns", 0) / 1e6
        par = r["ns"] / 1e6
        label = f"{r.get('pages', 0)} pages"
        if "threads" in r:
            label += f", {r['threads']}" + (f" of {r['cpus']}" if "cpus" in r else "") + " CPUs"
        bars.append((r["node"], early, par, label))
    return bars


def cmd_plot(args):
    plt = import_pyplot()
    if plt is None:
        print("memboot plot: matplotlib is missing; install python3-matplotlib "
              "(tools/setup-deps.sh does)", file=sys.stderr)
        return 1
    try:
        recs = trace.read_records(args.log, prog="memboot plot")
    except records.LogError as e:
        print(f"memboot plot: {e}", file=sys.stderr)
        return 64
    if not recs:
        print(f"memboot plot: no MEMBOOT records in {args.log}", file=sys.stderr)
        return 1
    tr = trace.build(recs)
    slices = [e for e in tr["traceEvents"] if e["ph"] == "X"]
    names = {e["tid"]: e["args"]["name"] for e in tr["traceEvents"]
             if e["name"] == "thread_name"}
    cpus = sorted(names)
    bars = node_bars(recs)

    height = min(3 + 0.5 * (len(cpus) + len(bars)), MAX_FIGURE_INCHES)
    fig, (ax_n, ax_t) = plt.subplots(2, 1, figsize=(11, height),
                                     gridspec_kw={"height_ratios": [max(len(bars), 1),
                                                                    max(len(cpus), 1)]})
    colours = plt.get_cmap("tab10")
    for node, early, par, label in bars:
        ax_n.barh(node, early, color="0.6", label="boot CPU, early" if node == 0 else None)
        ax_n.barh(node, par, left=early, color=colours(node % 10))
        ax_n.text(early + par, node, f"  {early + par:.2f} ms ({label})", va="center",
                  fontsize=8)
    ax_n.set_yticks([b[0] for b in bars], [f"node {b[0]}" for b in bars])
    ax_n.invert_yaxis()
    ax_n.set_xlabel("ms")
    ax_n.set_title("memory init per node")
    if bars and any(b[1] for b in bars):
        ax_n.legend(loc="lower right", fontsize=8)

    row = {cpu: i for i, cpu in enumerate(cpus)}
    depth_h = {"phase": (0.0, 0.9), "node": (0.1, 0.7), "chunk": (0.2, 0.5),
               "hugetlb": (0.2, 0.5)}
    for e in slices:
        off, h = depth_h.get(e["cat"], (0.0, 0.9))
        y = row[e["tid"]] - 0.45 + off
        node = (e.get("args") or {}).get("node")
        if e["cat"] == "phase":
            colour = "0.85"
        elif node is not None:
            colour = colours(node % 10)
        else:
            colour = "0.5"
        alpha = 0.45 if e["cat"] == "node" else 1.0
        ax_t.broken_barh([(e["ts"] / 1000, e["dur"] / 1000)], (y, h), facecolors=colour,
                         edgecolors="black" if e["cat"] != "node" else "none",
                         linewidth=0.3, alpha=alpha)
        if e["cat"] == "phase" and e["dur"] > 0.04 * max(s["ts"] + s["dur"] for s in slices):
            ax_t.text((e["ts"] + e["dur"] / 2) / 1000, y + h - 0.1, e["name"],
                      ha="center", va="top", fontsize=7)
    ax_t.set_yticks(range(len(cpus)), [names[c] for c in cpus])
    ax_t.invert_yaxis()
    ax_t.set_xlabel("ms since the kernel's first instruction")
    ax_t.set_title("per-CPU timeline: phases (grey), node jobs and chunks (by node)")
    fig.tight_layout()
    try:
        fig.savefig(args.output)
    except OSError as e:
        print(f"memboot plot: cannot write {args.output}: {e.strerror or e}",
              file=sys.stderr)
        return 1
    finally:
        plt.close(fig)
    print(f"memboot plot: {len(bars)} nodes, {len(cpus)} CPUs -> {args.output}")
    return 0
