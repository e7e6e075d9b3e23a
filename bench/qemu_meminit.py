#!/usr/bin/env python3
"""Boot memboot in QEMU several times per init policy and report per-node
descriptor init cost (ns per page) from the node_init records, with medians.

Usage (make bench-qemu does this):
  bench/qemu_meminit.py [--boots 5] [--nodes 2] [--cpus-per-node 2]
                        [--mem-per-node 2G] [--policies serial,deferred,lazy]
                        [--results docs/results.md] [--iso PATH]

Prints its tables (markdown). Only with --results (`make results`) does it
write its section of that file between <!-- qemu-meminit begin --> and
<!-- qemu-meminit end -->, leaving the rest.
Under TCG the guest TSC runs at host rate; figures are noisy (about +-30 %),
so compare ratios inside one run and medians of several boots.
"""
import argparse
import datetime
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
# (after the path they live on) the one way to boot, its record reader.
from mbtools import boot as mbboot, hostinfo, inputs  # noqa: E402
BEGIN, END = "<!-- qemu-meminit begin -->", "<!-- qemu-meminit end -->"


HUGE_REQUEST = "hugepagesz=1G hugepages=1:1 hugepagesz=2M hugepages=512"


def boot(args, policy, extra=""):
    b = mbboot.boot(mbboot.run_argv(nodes=args.nodes, cpus_per_node=args.cpus_per_node,
                                    mem_per_node=args.mem_per_node, iso=args.iso,
                                    append=f"memboot.init={policy} {extra}".strip(),
                                    timeout=120))
    if b.status != 0:
        sys.exit(f"qemu_meminit: boot failed (status {b.status}):\n{b.stderr}")
    if b.problems:
        sys.exit("qemu_meminit: bad records: " + "; ".join(b.problems[:3]))
    return b.records


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boots", type=inputs.positive_int, default=5)
    ap.add_argument("--nodes", type=inputs.positive_int, default=2)
    ap.add_argument("--cpus-per-node", type=inputs.positive_int, default=2)
    ap.add_argument("--mem-per-node", type=inputs.size_text_arg, default="2G")
    ap.add_argument("--policies", default="serial,deferred,lazy")
    ap.add_argument("--results", help="rewrite this file's qemu-meminit section")
    ap.add_argument("--iso")
    ap.add_argument("--command", default="make bench-qemu")
    args = ap.parse_args()

    rows = []
    lazy_first = []
    for policy in args.policies.split(","):
        per_node = {}
        for _ in range(args.boots):
            recs = boot(args, policy)
            for r in recs:
                if r["event"] == "node_init" and all(
                        k in r for k in ("pages", "threads", "early_pages")):
                    pages = r["pages"] or 1
                    per_node.setdefault(r["node"], []).append(
                        (r["ns"] / pages, r["ns"], r["pages"], r["threads"], r["early_pages"]))
                if r["event"] == "lazy":
                    lazy_first.append(r["first_alloc_ns"])
        for node, samples in sorted(per_node.items()):
            nspp = statistics.median(s[0] for s in samples)
            rows.append((policy, node, samples[0][3], samples[0][2], samples[0][4],
                         statistics.median(s[1] for s in samples) / 1e6, nspp,
                         min(s[0] for s in samples), max(s[0] for s in samples)))
            print(f"{policy:9s} node {node}: {nspp:7.2f} ns/page (median of {len(samples)})",
                  flush=True)

    # Huge page pools: 1 GiB pages reserved on node 1, 2 MiB pages spread,
    # without and with zeroing.
    huge = {}
    for zero in (False, True):
        extra = HUGE_REQUEST + (" memboot.hugetlb_zero" if zero else "")
        for _ in range(args.boots):
            for r in boot(args, "deferred", extra):
                if r["event"] == "hugetlb" and r["allocated"]:
                    huge.setdefault((zero, r["node"], r["size_bytes"]), []).append(
                        (r["ns"], r["allocated"]))
    huge_rows = []
    for (zero, node, size), samples in sorted(huge.items()):
        ms = statistics.median(s[0] for s in samples) / 1e6
        per_page = statistics.median(s[0] / s[1] for s in samples) / 1e3
        huge_rows.append((size, node, zero, samples[0][1], ms, per_page))
        print(f"hugetlb {size >> 20:5d} MiB node {node} zero={zero}: {ms:.3f} ms, "
              f"{per_page:.1f} us/page", flush=True)

    cpu = hostinfo.cpu_model()
    out = [BEGIN, "## Per-node memory init under QEMU (qemu-meminit)", "",
           f"- Date: {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC",
           f"- Host: {os.cpu_count()} CPUs, {cpu}; QEMU TCG (no KVM)",
           f"- Guest: {args.nodes} nodes x {args.cpus_per_node} CPUs x {args.mem_per_node}; "
           f"{args.boots} boots per policy",
           f"- Command: `{args.command}`", "",
           "ns per page = the node's `node_init.ns` / `node_init.pages` (pages initialised and "
           "freed by the node's own CPUs; serial: by the boot CPU). Linux beside it: "
           "`tools/memboot compare-linux` (docs/results.md, compare-linux).",
           "",
           "| policy | node | threads | pages | early pages | ms (median) | ns/page (median) | min | max |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]:.2f} | {r[6]:.2f} | "
                   f"{r[7]:.2f} | {r[8]:.2f} |")
    if lazy_first:
        out += ["", f"Lazy: time from the end of init to the first page in hand, median "
                    f"{statistics.median(lazy_first) / 1000:.1f} us over {len(lazy_first)} boots "
                    f"(the first allocation also runs code TCG has not translated yet)."]
    if huge_rows:
        out += ["", f"Huge page pools (`{HUGE_REQUEST}`, with and without "
                    "`memboot.hugetlb_zero`), medians of the `hugetlb` records' `ns`:", "",
                "| page size | node | zeroed | pages | ms (median) | us per page (median) |",
                "|---|---|---|---|---|---|"]
        for size, node, zero, pages, ms, per_page in huge_rows:
            name = "1 GiB" if size == 1 << 30 else "2 MiB"
            out.append(f"| {name} | {node} | {'yes' if zero else 'no'} | {pages} | {ms:.3f} | "
                       f"{per_page:.1f} |")
    out.append(END)
    print("\n".join(out[1:-1]))
    if not args.results:
        return
    text = open(args.results).read() if os.path.exists(args.results) else "# Results\n"
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + "\n".join(out) + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n" + "\n".join(out) + "\n"
    with open(args.results, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
