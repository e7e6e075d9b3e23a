#!/usr/bin/env python3
"""The churn table from guest boots: memboot.selftest=churn once per step set
of Linux's PCP auto-tuning series (the same rows as build/bench/pcp_bench),
each booted --repeats times; medians of the `churn` records. Prints a
table, writes no file.

  python3 bench/pcp_guest.py [--nodes 2] [--cpus-per-node 4] [--mem-per-node 1G]
                             [--repeats 3] [--mix kbuild] [--allocs 8000] [--elf ELF]
                             [--arch arm64 [--image IMAGE]]
"""

import argparse
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
# The project's one way to boot and its one record reader.
from mbtools import boot as mbboot, inputs  # noqa: E402

# The keys of the churn record the table reads.
CHURN_KEYS = ("ns", "threads", "spin_ns", "free_high", "alloc_zone_pages",
              "lock_acquired", "lock_contended", "high_min", "high_max")

# name, memboot.pcp, memboot.pcp_steps, memboot.pcp_high_fraction
ROWS = [
    ("off", "off", "mainline", 0),
    ("fixed", "fixed", "1,3,4,5,10", 8),
    ("base", "auto", "none", 0),
    ("patch1", "auto", "1", 0),
    ("patch3", "auto", "1,3", 0),
    ("patch5", "auto", "1,3,4,5", 0),
    ("patch7", "auto", "1,3,4,5,7", 0),
    ("patch8", "auto", "1,3,4,5,7,8", 0),
    ("patch9", "auto", "1,3,4,5,7,8,9", 0),
    ("patch10", "auto", "all", 0),
    ("mainline", "auto", "mainline", 0),
]


def boot(args, policy, steps, fraction):
    append = (f"memboot.selftest=churn memboot.churn_mix={args.mix} "
              f"memboot.churn_allocs={args.allocs} memboot.pcp={policy} "
              f"memboot.pcp_steps={steps} memboot.pcp_high_fraction={fraction}")
    # x86_64 through PVH, the quickest boot; arm64 through its one -kernel path.
    x86 = args.arch == "x86_64"
    b = mbboot.boot(mbboot.run_argv(nodes=args.nodes, cpus_per_node=args.cpus_per_node,
                                    mem_per_node=args.mem_per_node,
                                    boot_path="pvh" if x86 else None, arch=args.arch,
                                    elf=args.elf if x86 else None,
                                    image=None if x86 else args.image,
                                    append=append, timeout=120))
    if b.status != 0:
        sys.exit(f"pcp_guest: boot failed (status {b.status}): {append}\n{b.stderr}")
    churn = b.all("churn")
    if len(churn) != 1 or churn[0]["lost"] or churn[0]["left_on_lists"] \
            or any(k not in churn[0] for k in CHURN_KEYS):
        sys.exit(f"pcp_guest: {append}: no clean churn record: {churn} {b.problems[:3]}")
    return churn[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=inputs.positive_int, default=2)
    ap.add_argument("--cpus-per-node", type=inputs.positive_int, default=4)
    ap.add_argument("--mem-per-node", type=inputs.size_text_arg, default="1G")
    ap.add_argument("--repeats", type=inputs.positive_int, default=3)
    ap.add_argument("--mix", default="kbuild")
    ap.add_argument("--allocs", type=inputs.positive_int, default=8000)
    ap.add_argument("--elf", help="kernel ELF (default: the debug build)")
    ap.add_argument("--arch", choices=("x86_64", "arm64"), default="x86_64",
                    help="the guest's architecture (default: x86_64)")
    ap.add_argument("--image", help="arm64: the flat Image (default: the debug build's)")
    args = ap.parse_args()
    if args.arch == "x86_64" and args.image:
        sys.exit("pcp_guest: --image is arm64's; x86_64 boots --elf")
    if args.arch == "arm64" and args.elf:
        sys.exit("pcp_guest: --elf is x86_64's; arm64 boots --image")
    if args.repeats < 1 or args.nodes < 1 or args.cpus_per_node < 1 or args.allocs < 1:
        sys.exit("pcp_guest: --repeats, --nodes, --cpus-per-node and --allocs must be >= 1")

    runs = {name: [] for name, *_ in ROWS}
    for _ in range(args.repeats):          # interleaved, as on the host
        for name, policy, steps, fraction in ROWS:
            runs[name].append(boot(args, policy, steps, fraction))

    def med(name, key):
        return statistics.median(r[key] for r in runs[name])

    def lock_pct(r):
        return 100.0 * r["spin_ns"] / (r["ns"] * r["threads"]) if r["ns"] else 0.0

    base = {k: med("base", k) for k in ("ns", "free_high", "alloc_zone_pages")}
    print(f"churn mix {args.mix} in the {args.arch} guest: {args.nodes} nodes x {args.cpus_per_node} CPUs x "
          f"{args.mem_per_node}, {args.allocs} allocations per CPU, median of {args.repeats} boots\n")
    print("| step | steps | time | lock contend% | free_high | alloc_zone | ms | zone lock acq "
          "| contended | free_high n | alloc_zone pages | high min/max |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for name, policy, steps, fraction in ROWS:
        rs = runs[name]
        shown = "-" if policy == "off" else steps + (f" f={fraction}" if fraction else "")
        rel = lambda k: 100.0 * med(name, k) / base[k] if base[k] else 0.0
        print(f"| {name} | {shown} | {rel('ns'):.1f} | "
              f"{statistics.median(lock_pct(r) for r in rs):.1f} | {rel('free_high'):.1f} | "
              f"{rel('alloc_zone_pages'):.1f} | {med(name, 'ns') / 1e6:.0f} | "
              f"{med(name, 'lock_acquired'):.0f} | {med(name, 'lock_contended'):.0f} | "
              f"{med(name, 'free_high'):.0f} | {med(name, 'alloc_zone_pages'):.0f} | "
              f"{med(name, 'high_min'):.0f}/{med(name, 'high_max'):.0f} |")
    ml, p9 = runs["mainline"], runs["patch10"]
    print(f"\npatch 9 on top of mainline (patch10 row vs mainline row): alloc_zone "
          f"{100.0 * (med('patch10', 'alloc_zone_pages') / med('mainline', 'alloc_zone_pages') - 1):+.1f}%, "
          f"time {100.0 * (med('patch10', 'ns') / med('mainline', 'ns') - 1):+.1f}%")


if __name__ == "__main__":
    main()
