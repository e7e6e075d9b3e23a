"""tools/memboot bench --seed NNN: the seed threads' tables reproduced.

Each seed is a Linux-mm thread whose measurement memboot repeats. The
seed's own figures are quoted below as data (machine, what was measured,
the numbers) and printed beside memboot's, with what differs from the
seed's machine and which column can be compared. Seeds 002 (per-CPU page
lists) and 003 (page-table locks) are measured by their host benchmarks
(`make bench-pcp`, `make bench-pt`: the kernel's .c files on pthreads), with
the seed's table printed below memboot's.
"""

import statistics
import subprocess
import sys
import time

from mbtools import bench

# ---------------------------------------------------------------------------
# The seeds' own figures
# ---------------------------------------------------------------------------

# Seed 000: deferred init, one thread against the node's CPUs (arm64,
# Linux 6.10-rc, Eric Chanudet; and Michael Ellerman's 1 TB powerpc box).
# The QEMU shapes seed 000 runs on, per architecture: x86_64's one, and on
# arm64 (QEMU virt, the seed's own architecture) the seed's machines in at
# most 4 GiB of guest RAM: each has one node, 8 or 32 CPUs.
SEED_000_SHAPES = {
    "x86_64": [("2x2x2G", None)],
    "arm64": [("1x8x4G", "x13s, SA8775p-ride, Ampere R137-P31: 8 CPUs, one node"),
              ("1x32x4G", "Ampere HR330: 32 CPUs, one node")],
}

SEED_000 = [
    # machine, memory, cpus, ms with 1 thread, ms with the node's CPUs
    ("x13s (metal)", "32 GB", 8, 108, 24),
    ("SA8775p-ride (VM)", "36 GB", 8, 72, 36),
    ("Ampere R137-P31 (VM)", "58 GB", 8, 224, 40),
    ("Ampere HR330 (metal)", "128 GB", 32, 324, 56),
    ("powerpc, 8 nodes (Ellerman)", "1 TB", 40, 240, 110),   # slowest node, before/after
]

# Seed 001: hugetlb pools at boot, serial against parallel (Gang Li, v3).
SEED_001 = [
    # machine, page size, serial ms, parallel ms
    ("256c2t, 4 nodes", "1G", 4745, 2024),
    ("128c1t, 2 nodes", "1G", 3358, 1712),
    ("12 TB host", "1G", 77000, 18300),
    ("256c2t, 4 nodes", "2M", 3336, 1051),
    ("128c1t, 2 nodes", "2M", 1943, 716),
]

# Seed 004: parallel deferred init on a 32 TB, 16-node POWER machine
# (Li Zhang): pages and ms per node, from its log.
SEED_004 = [
    (9, 16607461, 280), (3, 23937243, 410), (6, 29179347, 490), (2, 29179347, 490),
    (0, 32049614, 540), (15, 32212280, 550), (4, 32306127, 550), (12, 32314319, 550),
    (8, 32314319, 550), (13, 33353677, 570), (11, 33353677, 570), (5, 33353677, 570),
    (10, 33353677, 570), (7, 33353677, 570), (14, 33353677, 570), (1, 33345485, 580),
]

# Seed 004's boot times (seconds, Linux before and after the change) as the
# thread gives them: 4 GB halved, 200 GB unchanged (other work dominates).
SEED_004_BOOT = [("4 GB", 24.5, 10.4), ("200 GB", 38.0, 38.0)]

# Seed 004 on its own architecture (`--arch ppc64le`, QEMU pseries): the
# shapes that fit a 4 GiB guest, and what each stands for.
SEED_004_SHAPES = {
    "ppc64le": [("2x4x1G", "two nodes of 4 CPUs: each node's own CPUs against one"),
                ("1x8x4G", "the seed's 4 GB boot: one node, 8 CPUs")],
}
# The quick mode's bound: no new round of boots starts after this many
# seconds (the first round always runs, so every row has a figure).
SEED_004_BUDGET_S = 240

SEEDS = ("000", "001", "004")
# The seeds another architecture runs (x86_64: all of SEEDS).
ARCH_SEEDS = {"arm64": ("000",), "ppc64le": ("004",)}

# Seeds 002 and 003 are reproduced by host benchmarks built from the same .c
# files as the kernel (pthreads), printed with the seed's own table below.
SEED_002_TABLE = """Seed 002 (Linux PCP high auto-tuning series, kbuild on a 2-socket server;
build time, zone lock contention %, free_high and alloc_zone relative to base):

| step | build time | lock contend% | free_high | alloc_zone |
|---|---|---|---|---|
| base | 100.0 | 13.5 | 100.0 | 100.0 |
| patch1 | 99.2 | 10.6 | 19.2 | 95.6 |
| patch3 | 99.2 | 11.7 | 7.1 | 95.6 |
| patch5 | 98.4 | 10.0 | 8.2 | 97.1 |
| patch7 | 94.9 | 0.7 | 3.0 | 19.0 |
| patch9 | 94.9 | 0.6 | 2.7 | 15.0 |
| patch10 | 94.9 | 0.9 | 8.8 | 18.6 |

Comparable: the free_high and alloc_zone columns (counts, relative to base). The
time and contention columns need many cores: here two host threads share a busy
host (bench/device.sh runs the same benchmark at 16 threads)."""

SEED_003_TABLE = """Seed 003 (Linux split PMD page-table lock, thp_memscale on 512 cores):

| row | one lock per space | split PMD lock |
|---|---|---|
| THP off (4K) | 18.06 s | 16.77 s |
| THP on (2M) | 42.16 s | 8.40 s |
| HUGETLB | 47.57 s | 19.45 s |

Comparable: which rows contend and the direction of the change; the seed's 5x
needs hundreds of CPUs faulting at once (bench/device.sh: 16 threads)."""

HOST_BENCH = {"002": ("bench-pcp", SEED_002_TABLE), "003": ("bench-pt", SEED_003_TABLE)}


def host_seed(seed):
    """Run the host benchmark of seed 002 or 003 and print the seed's table
    below its own. Returns an exit status."""
    target, table = HOST_BENCH[seed]
    print("## seed %s: `make %s` (host, pthreads, %s)\n" % (seed, target, host_line()),
          flush=True)
    rc = subprocess.call(["make", "-s", "--no-print-directory", "-C", bench.REPO_ROOT, target])
    print("\n" + table + "\n", flush=True)
    return rc


def pct(before, after):
    return "%+.0f%%" % (100.0 * (after - before) / before)


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def host_line():
    h = bench.host_description()
    return "%s host CPUs (%s)" % (h["cpus"], h["cpu"])


def node_ms(runs):
    """{node: [ms, ...]} from node_init records of successful boots."""
    out = {}
    for r in runs:
        if r["status"] != 0:
            continue
        for rec in r["records"]:
            if rec.get("event") == "node_init":
                out.setdefault(rec["node"], []).append(rec)
    return out


def boots(configs, n, args, progress, extra=()):
    return bench.run_matrix(configs, n, args, progress, extra)


# ---------------------------------------------------------------------------
# The tables
# ---------------------------------------------------------------------------

def table_000(runs_1, runs_n, topo, like=None):
    """Seed 000's table and memboot's on @topo; @like names the seed
    machines an arm64 virt shape stands for (None: x86_64's shape)."""
    one, many = node_ms(runs_1), node_ms(runs_n)
    out = ["### Seed 000: deferred init with one thread against the node's CPUs", "",
           "Seed (Linux, `deferred_page_init_max_threads`):", "",
           "| machine | memory | CPUs | 1 thread ms | node's CPUs ms | change |",
           "|---|---|---|---|---|---|"]
    for m, mem, cpus, a, b in SEED_000:
        out.append("| %s | %s | %d | %d | %d | %s |" % (m, mem, cpus, a, b, pct(a, b)))
    out += ["", "memboot (`memboot.init=deferred`, `memboot.init_threads=1` against `node`), "
            "%s, medians of %d boots:" % (topo, len(runs_1)), "",
            "| node | threads | pages | 1 thread ms | node's CPUs ms | change |",
            "|---|---|---|---|---|---|"]
    for node in sorted(set(one) | set(many)):
        a = med([r["ns"] / 1e6 for r in one.get(node, [])])
        b = med([r["ns"] / 1e6 for r in many.get(node, [])])
        t = many[node][0]["threads"] if many.get(node) else "?"
        pages = many[node][0]["pages"] if many.get(node) else "?"
        out.append("| %d | 1 vs %s | %s | %s | %s | %s |" % (
            node, t, pages, "%.2f" % a if a else "-", "%.2f" % b if b else "-",
            pct(a, b) if a and b else "-"))
    if like:
        out += ["", "Differs from the seed: QEMU `virt` arm64 (`-cpu max`, GICv3, device-tree "
                "boot) under TCG (no KVM) on %s, shaped like %s (the seed: bare metal and KVM "
                "guests); %s of guest RAM against the seed's 32-128 GB; the vCPUs share the "
                "host's cores, so more CPUs than host cores buy nothing here. Comparable: the "
                "change column (what the node's CPUs buy over one), not the ms."
                % (host_line(), like, topo.split("x")[-1][:-1] + " " + topo[-1] + "iB")]
        return "\n".join(out)
    out += ["", "Differs from the seed: QEMU TCG (no KVM) on %s (the seed: bare metal and KVM guests), "
            "GiBs not tens of GB, a handful of vCPUs sharing the host's cores. Comparable: the "
            "change column (what the node's CPUs buy over one), not the ms." % host_line()]
    return "\n".join(out)


def huge_ms(runs):
    """Median pool time in ms per zeroed flag: phase hugetlb (2 MiB pools,
    all nodes) and phase hugetlb1g (1 GiB reservations)."""
    out = {}
    for r in runs:
        if r["status"] != 0:
            continue
        for rec in r["records"]:
            if rec.get("event") == "phase" and rec.get("name") in ("hugetlb", "hugetlb1g"):
                out.setdefault(rec["name"], []).append(rec["ns"] / 1e6)
            if rec.get("event") == "hugetlb" and rec.get("size_bytes") == 1 << 30:
                out.setdefault("1g_pool", []).append(rec["ns"] / 1e6)
    return {k: med(v) for k, v in out.items()}


def table_001(results, topo, words, nboots):
    out = ["### Seed 001: huge page pools at boot, serial against parallel", "",
           "Seed (Linux, hugetlb init with padata):", "",
           "| machine | page size | serial ms | parallel ms | change |", "|---|---|---|---|---|"]
    for m, size, a, b in SEED_001:
        out.append("| %s | %s | %d | %d | %s |" % (m, size, a, b, pct(a, b)))
    out += ["", "memboot, %s, `%s`; serial = `maxcpus=1` (one CPU does every node's pool), "
            "parallel = every node's CPUs; medians of %d boots:" % (topo, words, nboots), "",
            "| pages | zeroed | serial ms | parallel ms | change |", "|---|---|---|---|---|"]
    for zero in (False, True):
        s, p = results[(zero, "serial")], results[(zero, "parallel")]
        for key, name in (("1g_pool", "1 GiB (node 1)"), ("hugetlb", "all pools (phase hugetlb: 2 MiB pools, zeroing)")):
            a, b = s.get(key), p.get(key)
            out.append("| %s | %s | %s | %s | %s |" % (
                name, "yes" if zero else "no", "%.2f" % a if a is not None else "-",
                "%.2f" % b if b is not None else "-", pct(a, b) if a and b else "-"))
    out += ["", "Differs from the seed: QEMU TCG (no KVM) on %s, pools of hundreds of MiB not terabytes, "
            "2 vCPUs per node. memboot writes only head descriptors of a huge page (Linux 6.x "
            "prepares every tail struct page), so without zeroing its pools cost little; the "
            "zeroed rows carry the per-byte work that dominates Linux. Comparable: the change "
            "column of the zeroed rows." % host_line()]
    return "\n".join(out)


def table_004(runs, topo):
    recs = node_ms(runs)
    out = ["### Seed 004: pages per node and ms, deferred init in parallel", "",
           "Seed (Linux on a 32 TB, 16-node POWER8, log lines `node N initialised, P pages "
           "in X ms`), ns per page added:", "",
           "| node | pages | ms | ns/page |", "|---|---|---|---|"]
    for node, pages, ms in SEED_004:
        out.append("| %d | %d | %d | %.1f |" % (node, pages, ms, ms * 1e6 / pages))
    out += ["", "memboot (`memboot.init=deferred`, node's CPUs), %s, medians of %d boots:"
            % (topo, len(runs)), "",
            "| node | threads | pages | ms | ns/page |", "|---|---|---|---|---|"]
    for node in sorted(recs):
        rs = recs[node]
        ms = med([r["ns"] / 1e6 for r in rs])
        nspp = med([r["ns"] / r["pages"] for r in rs if r["pages"]])
        out.append("| %d | %d | %d | %s | %s |" % (
            node, rs[0]["threads"], rs[0]["pages"],
            "-" if ms is None else "%.2f" % ms, "-" if nspp is None else "%.2f" % nspp))
    out += ["", "Differs from the seed: QEMU TCG (no KVM) on %s, 4 nodes of 1 GiB against 16 of 2 TB, one "
            "vCPU thread per host core at best, 16-byte descriptors against Linux's 64-byte "
            "struct page. Comparable: ns per page (the per-page cost), and that every node "
            "finishes in about the same time." % host_line()]
    return "\n".join(out)


def boot_ms(runs, key):
    """Median of done.@key (total_ns, usable_ns) in ms over the boots that
    ended with status 0."""
    return med([rec[key] / 1e6 for r in runs if r["status"] == 0
                for rec in r["records"] if rec.get("event") == "done" and rec.get(key)])


def table_004_power(runs, shapes, planned, arch):
    """Seed 004 on POWER: the seed's boot times and its nodes' spread, then
    memboot's boot time and per-node init, one thread against the node's
    CPUs, on each pseries shape. @runs: boot dicts whose config has topo
    and threads; @planned the boots asked for per row."""
    out = ["### Seed 004 on POWER: boot time and per-node init, one thread against "
           "the node's CPUs", "",
           "Seed (Linux, \"mm: Enable page parallel initialisation for Power\"), boot "
           "time in s:", "",
           "| machine | before (one thread) | after (parallel) | change |",
           "|---|---|---|---|"]
    for m, a, b in SEED_004_BOOT:
        out.append("| %s | %.1f | %.1f | %s |" % (m, a, b, pct(a, b)))
    pages = [p for _, p, _ in SEED_004]
    ms = [t for _, _, t in SEED_004]
    out += ["", "and on a 32 TB, 16-node POWER8 (after): %.1f-%.1f M pages a node in "
            "%d-%d ms (`--seed 004` on x86_64 prints the rows)." % (
                min(pages) / 1e6, max(pages) / 1e6, min(ms), max(ms)), ""]
    counts = {}
    for r in runs:
        key = (r["config"]["topo"], r["config"]["threads"])
        counts[key] = counts.get(key, 0) + 1
    nboots = min(counts.values()) if counts else 0
    out += ["memboot (`memboot.init=deferred`, `memboot.init_threads=1` against `node`), "
            "QEMU pseries (`-cpu power9`, VOF), medians of %d boot%s%s:" % (
                nboots, "" if nboots == 1 else "s",
                "" if nboots >= planned else " (the time bound stopped it short of %d)"
                % planned), "",
            "| shape | node | node's CPUs | pages | 1 thread ms | node's CPUs ms | change "
            "| ns/page (node's CPUs) |", "|---|---|---|---|---|---|---|---|"]
    boot_rows = []
    for topo, like in shapes:
        one = [r for r in runs if r["config"] == {"topo": topo, "init": "deferred",
                                                   "threads": "1"}]
        many = [r for r in runs if r["config"] == {"topo": topo, "init": "deferred",
                                                    "threads": "node"}]
        a_ms, b_ms = node_ms(one), node_ms(many)
        for node in sorted(set(a_ms) | set(b_ms)):
            a = med([x["ns"] / 1e6 for x in a_ms.get(node, [])])
            b = med([x["ns"] / 1e6 for x in b_ms.get(node, [])])
            recs = b_ms.get(node) or a_ms.get(node)
            nspp = med([x["ns"] / x["pages"] for x in b_ms.get(node, []) if x.get("pages")])
            out.append("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
                topo, node, recs[0].get("cpus", "?") if b_ms.get(node) else "?",
                recs[0].get("pages", "?"), "-" if a is None else "%.2f" % a,
                "-" if b is None else "%.2f" % b, pct(a, b) if a and b else "-",
                "-" if nspp is None else "%.2f" % nspp))
        for key, what in (("total_ns", "kernel entry to done"),
                          ("usable_ns", "kernel entry to usable memory")):
            a, b = boot_ms(one, key), boot_ms(many, key)
            boot_rows.append("| %s (%s) | %s | %s | %s | %s |" % (
                topo, like, what, "-" if a is None else "%.1f" % a,
                "-" if b is None else "%.1f" % b, pct(a, b) if a and b else "-"))
    failed = sum(1 for r in runs if r["status"] != 0)
    out += ["", "Boot time, ms (memboot's `done.total_ns` and `done.usable_ns`):", "",
            "| shape | | 1 thread | node's CPUs | change |", "|---|---|---|---|---|"]
    out += boot_rows
    if failed:
        out += ["", "%d of %d boots failed; the medians use the others." % (failed, len(runs))]
    out += ["", "Differs from the seed: QEMU pseries (%s) under TCG (no KVM) on %s, against "
            "the seed's POWER8 (4 GB, 200 GB, 32 TB in 16 nodes); the vCPUs share the host's "
            "cores, so more CPUs than host cores buy little here; 16-byte descriptors "
            "against Linux's 64-byte struct page; memboot boots in about a second where "
            "Linux took 10-38 s. Comparable: the change columns (what the node's CPUs buy "
            "over one) and ns per page, not the ms." % (arch, host_line())]
    return "\n".join(out)


def seed_004_power(args, n, arch):
    """`--seed 004 --arch ppc64le`: one thread against the node's CPUs on
    each shape, round after round of boots until @n rounds or the time
    bound (SEED_004_BUDGET_S: no round starts after it). Returns an exit
    status."""
    shapes = SEED_004_SHAPES[arch]
    configs = [{"topo": topo, "init": "deferred", "threads": threads}
               for topo, _ in shapes for threads in ("1", "node")]
    if getattr(args, "dry_run", False):
        elf = bench.elf_for(None, args.build_dir, arch)
        for c in configs:
            print(" ".join(bench.boot_argv(c, elf, arch=arch)[1:]))
        print("%d configurations x %d boots (no round starts after %d s)"
              % (len(configs), n, SEED_004_BUDGET_S))
        return 0
    bench.ensure_kernel(None, args)
    progress = bench.Progress(len(configs) * n)
    runs, t0 = [], time.monotonic()
    for i in range(n):
        if i and time.monotonic() - t0 > SEED_004_BUDGET_S:
            progress.note("bench: %d of %d rounds in the %d s bound; the table has those"
                          % (i, n, SEED_004_BUDGET_S))
            break
        for c in configs:
            r = bench.run_matrix([c], 1, args, progress)[0]
            r["boot"] = i
            runs.append(r)
    print(table_004_power(runs, shapes, n, arch))
    return 0 if any(r["status"] == 0 for r in runs) else 1


def main(args):
    wanted = SEEDS + tuple(HOST_BENCH) if args.seed == "all" else \
        [s.strip() for s in args.seed.split(",")]
    n = args.boots or 3
    for s in wanted:
        if s not in SEEDS and s not in HOST_BENCH:
            print("memboot bench: no seed %s (000, 001, 002, 003, 004 or all)" % s,
                  file=sys.stderr)
            return 64
    # The guest seeds --arch does not run are refused before anything runs,
    # the host benchmarks (002, 003: native pthreads) included.
    arch = getattr(args, "arch", None) or "x86_64"
    own = ARCH_SEEDS.get(arch, SEEDS if arch == "x86_64" else ())
    if any(s in SEEDS and s not in own for s in wanted):
        print("memboot bench: --arch %s runs seed %s only (the others are x86_64's)"
              % (arch, ", ".join(own) or "none"), file=sys.stderr)
        return 64
    host_rc = 0
    for s in wanted:
        if s in HOST_BENCH:
            host_rc = host_seed(s) or host_rc
    wanted = [s for s in wanted if s in SEEDS]
    if not wanted:
        return host_rc
    if arch == "ppc64le":
        try:
            return seed_004_power(args, n, arch)
        except bench.BenchError as e:
            print("memboot bench: %s" % e, file=sys.stderr)
            return 64
    shapes = SEED_000_SHAPES.get(arch)
    plan = {"000": 2 * n * len(shapes), "001": 4 * n, "004": n}
    bench.ensure_kernel(None, args)
    progress = bench.Progress(sum(plan[s] for s in wanted))
    tables = []
    if "000" in wanted:
        for topo, like in shapes:
            r1 = boots([{"topo": topo, "init": "deferred", "threads": "1"}], n, args, progress)
            rn = boots([{"topo": topo, "init": "deferred", "threads": "node"}], n, args,
                       progress)
            tables.append(table_000(r1, rn, topo, like))
    if "001" in wanted:
        topo = "2x2x2G"
        words = "hugepagesz=1G hugepages=1:1 hugepagesz=2M hugepages=0:256,1:256"
        results = {}
        for zero in (False, True):
            for mode in ("serial", "parallel"):
                extra = words.split() + (["maxcpus=1"] if mode == "serial" else []) + \
                    (["memboot.hugetlb_zero"] if zero else [])
                results[(zero, mode)] = huge_ms(boots([{"topo": topo}], n, args, progress, extra))
        tables.append(table_001(results, topo, words, n))
    if "004" in wanted:
        topo = "4x1x1G"
        tables.append(table_004(boots([{"topo": topo, "init": "deferred", "threads": "node"}],
                                      n, args, progress), topo))
    print("\n\n".join(tables))
    return 0
