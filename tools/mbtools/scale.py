"""Per-page init cost against node size, and seed 004's 16-node shape.

`tools/memboot bench --scale` boots guests far larger than the host (QEMU's
memory-backend-ram with reserve=off: the guest's RAM costs the host only what
the guest touches; memboot touches descriptors, 16 bytes a page) and prints:

1. ns/page of each node's init against node size (1 node of 2 to 128 GiB),
   min and median of repeated boots, per policy;
2. seed 004's table shape: 16 nodes x 128 GiB (2 TiB, 33.5M pages a node),
   pages and ms per node, beside the figures of the seed's 32 TB Power
   machine.

The host allocates and zeroes guest memory the first time the guest touches
it, so the first pass over each descriptor page pays the host's page fault
and clearing: that cost lands in the init time and grows with the number of
descriptor pages, not with anything memboot does. The minimum of several
boots is the best estimate of memboot's own cost; the spread says how much
the host added.
"""

import json
import statistics
import sys

from mbtools import boot as mbboot, facts, inputs

GIB = 1 << 30
# The kernel's page size and its default descriptor size (kernel/services/limits.h,
# mm/page.h, through mbtools.facts).
PAGE_BYTES = facts.PAGE_SIZE_BYTES
DESC_BYTES = facts.DESC_BYTES

# Node sizes of the ns/page table, GiB of one node.
SCALE_SIZES_GIB = (2, 8, 32, 128)
SEED004_NODES = 16
SEED004_NODE_GIB = 128

# Seed 004: the per-node lines of a 16-node, 32 TB Power machine with
# parallel (deferred) init, as (node, pages, ms), in the order logged.
SEED004_ROWS = (
    (9, 16607461, 280), (3, 23937243, 410), (6, 29179347, 490),
    (2, 29179347, 490), (0, 32049614, 540), (15, 32212280, 550),
    (4, 32306127, 550), (12, 32314319, 550), (8, 32314319, 550),
    (13, 33353677, 570), (11, 33353677, 570), (5, 33353677, 570),
    (10, 33353677, 570), (7, 33353677, 570), (14, 33353677, 570),
    (1, 33345485, 580),
)


def mem_available_bytes(meminfo="/proc/meminfo"):
    """MemAvailable of the host, or None when it cannot be read."""
    try:
        with open(meminfo) as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def descriptor_bytes(nodes, node_gib):
    """Host memory the guest's descriptor arrays touch (deferred init writes
    them all; lazy writes a head per 4 MiB block but the host still backs
    whole 4 KiB pages of them)."""
    return nodes * node_gib * GIB // PAGE_BYTES * DESC_BYTES


def host_has_room(nodes, node_gib, available):
    """Whether the host can back the descriptors with a 50% margin."""
    if available is None:
        return False
    return descriptor_bytes(nodes, node_gib) * 3 // 2 <= available


def node_results(records):
    """{node: (pages, ns)} from a boot's node_init records; pages counts
    everything the node initialised (the boot CPU's early part included)."""
    out = {}
    for rec in records:
        if rec.get("event") != "node_init":
            continue
        pages = rec.get("free_pages", rec.get("pages", 0))
        out[rec["node"]] = (pages, rec["ns"])
    return out


def boot_ok(records):
    done = [r for r in records if r.get("event") == "done"]
    return bool(done) and done[-1].get("status") == 0


def summarize(samples):
    """min and median of a list of numbers (None for an empty list)."""
    if not samples:
        return None, None
    return min(samples), statistics.median(samples)


class Booter:
    """Boots memboot (mbtools.boot) and returns its checked records."""

    def __init__(self, memboot=None, elf=None, extra=(), arch=None):
        self.elf = elf
        self.extra = list(extra)
        self.arch = arch

    def boot(self, nodes, node_gib, policy, cpus_per_node=1):
        argv = mbboot.run_argv(nodes=nodes, cpus_per_node=cpus_per_node,
                               mem_per_node="%dG" % node_gib, boot_path="pvh", elf=self.elf,
                               append=" ".join(["memboot.init=%s" % policy] + self.extra),
                               # TCG writes about 1 GiB of descriptors a few seconds.
                               timeout=int(120 + nodes * node_gib * 2), arch=self.arch)
        return mbboot.boot(argv).records


def scale_table(booter, sizes_gib, policies, repeat, progress=None):
    """Rows (policy, node_gib, pages, min ns/page, median ns/page, boots ok)."""
    rows = []
    for policy in policies:
        for gib in sizes_gib:
            per_page, pages = [], 0
            for i in range(repeat):
                if progress:
                    progress("scale: %s, 1 node x %d GiB, boot %d of %d"
                             % (policy, gib, i + 1, repeat))
                recs = booter.boot(1, gib, policy)
                res = node_results(recs)
                if not boot_ok(recs) or 0 not in res:
                    continue
                pages, ns = res[0]
                if pages > 0:
                    per_page.append(ns / pages)
            lo, med = summarize(per_page)
            rows.append({"policy": policy, "node_gib": gib, "pages": pages,
                         "min_ns_per_page": lo, "median_ns_per_page": med,
                         "boots": len(per_page), "tries": repeat})
    return rows


def seed004_table(booter, policy, repeat, progress=None):
    """Per node: pages, min and median ms over the boots that finished."""
    per_node = {}
    for i in range(repeat):
        if progress:
            progress("seed 004 shape: %d x %d GiB, %s, boot %d of %d"
                     % (SEED004_NODES, SEED004_NODE_GIB, policy, i + 1, repeat))
        recs = booter.boot(SEED004_NODES, SEED004_NODE_GIB, policy)
        if not boot_ok(recs):
            continue
        for node, (pages, ns) in node_results(recs).items():
            per_node.setdefault(node, (pages, []))[1].append(ns / 1e6)
    rows = []
    for node in sorted(per_node):
        pages, ms = per_node[node]
        lo, med = summarize(ms)
        rows.append({"node": node, "pages": pages, "min_ms": lo, "median_ms": med,
                     "boots": len(ms)})
    return rows


def fmt(value, digits=2):
    return "-" if value is None else "%.*f" % (digits, value)


def format_scale(rows):
    out = ["| policy | node size | pages | ns/page min | ns/page median | boots |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        out.append("| %s | %d GiB | %d | %s | %s | %d of %d |" % (
            r["policy"], r["node_gib"], r["pages"], fmt(r["min_ns_per_page"]),
            fmt(r["median_ns_per_page"]), r["boots"], r["tries"]))
    return "\n".join(out)


def format_seed004(rows):
    seed = {n: (p, ms) for n, p, ms in SEED004_ROWS}
    out = ["| node | memboot pages | memboot ms (min) | memboot ms (median) | "
           "ns/page (min) | seed 004 pages | seed 004 ms | seed ns/page |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        sp, sms = seed.get(r["node"], (None, None))
        ns_page = r["min_ms"] * 1e6 / r["pages"] if r["min_ms"] and r["pages"] else None
        out.append("| %d | %d | %s | %s | %s | %s | %s | %s |" % (
            r["node"], r["pages"], fmt(r["min_ms"], 1), fmt(r["median_ms"], 1),
            fmt(ns_page), sp if sp is not None else "-", sms if sms is not None else "-",
            fmt(sms * 1e6 / sp) if sp else "-"))
    return "\n".join(out)


CAVEATS = (
    "Guests run under QEMU TCG on this host's CPUs, with more vCPUs than host\n"
    "cores for the 16-node shape: node times there are serialized by the host,\n"
    "not by memboot. The seed's machine is a 32 TB IBM Power system with its\n"
    "own CPUs per node: compare ns/page of one node, not total time. The first\n"
    "touch of every descriptor page costs the host a page fault and a clear,\n"
    "counted in memboot's time; the min of several boots is closest to\n"
    "memboot's own cost.")


def plot(rows, path):
    """ns/page against node size, one line per policy (PNG or SVG). False
    when matplotlib is missing."""
    from mbtools.plot import import_pyplot
    plt = import_pyplot()
    if plt is None:
        return False

    fig, ax = plt.subplots(figsize=(6, 4))
    for policy in sorted({r["policy"] for r in rows}):
        pts = [(r["node_gib"], r["min_ns_per_page"]) for r in rows
               if r["policy"] == policy and r["min_ns_per_page"] is not None]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                    label="%s (min)" % policy)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("node size (GiB)")
    ax.set_ylabel("init ns per page")
    ax.set_title("memboot: per-page init cost against node size")
    ax.set_ylim(bottom=0)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def parse_list(text, conv, what):
    try:
        values = [conv(v) for v in text.split(",") if v]
    except ValueError:
        raise ValueError("%s: %r is not a comma-separated list" % (what, text))
    if not values:
        raise ValueError("%s: empty list" % what)
    return values


def run(args, memboot, elf=None, out=sys.stdout, err=sys.stderr):
    """The --scale benchmark. Returns an exit status."""
    def progress(msg):
        print(msg, file=err, flush=True)

    try:
        policies = parse_list(args.scale_policies, str, "--scale-policies")
        sizes = parse_list(args.scale_sizes, int, "--scale-sizes")
    except ValueError as e:
        print("memboot bench: %s" % e, file=err)
        return 64
    if any(s < 1 or s > 1024 for s in sizes):
        print("memboot bench: --scale-sizes: node sizes are 1 to 1024 GiB", file=err)
        return 64
    repeat = args.boots or 3
    booter = Booter(memboot, elf=elf, arch=getattr(args, "arch", None))
    result = {"scale": scale_table(booter, sizes, policies, repeat, progress)}
    print("## ns/page against node size (1 node, PVH, min and median of %d boots)\n"
          % repeat, file=out)
    print(format_scale(result["scale"]), file=out)
    avail = mem_available_bytes()
    if args.seed004:
        need = descriptor_bytes(SEED004_NODES, SEED004_NODE_GIB)
        print("\n## seed 004's shape: %d nodes x %d GiB, %s\n"
              % (SEED004_NODES, SEED004_NODE_GIB, args.seed004_policy), file=out)
        if not host_has_room(SEED004_NODES, SEED004_NODE_GIB, avail):
            print("skipped: the descriptors need %.1f GiB of host memory (with a 50%% "
                  "margin: %.1f GiB); the host has %s available"
                  % (need / GIB, need * 1.5 / GIB,
                     "unknown" if avail is None else "%.1f GiB" % (avail / GIB)), file=out)
            result["seed004"] = None
        else:
            result["seed004"] = seed004_table(booter, args.seed004_policy, repeat, progress)
            print(format_seed004(result["seed004"]), file=out)
    print("\n" + CAVEATS, file=out)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if args.scale_plot and not plot(result["scale"], args.scale_plot):
        print("memboot bench: python3-matplotlib is missing (tools/setup-deps.sh installs "
              "it); no plot written", file=err)
        return 1
    failed = any(r["boots"] == 0 for r in result["scale"])
    return 1 if failed else 0


def add_arguments(p):
    """The --scale options, for the bench subcommand's parser (--scale itself
    is one of its modes; --boots and --json are shared)."""
    p.add_argument("--scale-sizes", default=",".join(str(s) for s in SCALE_SIZES_GIB),
                   help="node sizes in GiB, comma separated (default: %(default)s)")
    p.add_argument("--scale-policies", default="deferred,lazy",
                   help="init policies, comma separated (default: %(default)s)")
    p.add_argument("--no-seed004", dest="seed004", action="store_false",
                   help="leave out the 16 x 128 GiB boots")
    p.add_argument("--seed004-policy", default="deferred",
                   help="policy of the 16-node boots (default: %(default)s)")
    p.add_argument("--scale-plot", metavar="FILE",
                   type=inputs.output_with_extension("png", "svg"),
                   help="also draw ns/page against node size (.png or .svg)")
