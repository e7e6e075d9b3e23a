"""tools/memboot bench: the subcommand's options, and which benchmark runs.

The matrix is mbtools.bench, the seed tables mbtools.seeds (which uses
bench's booting and progress), the node-size scan mbtools.scale. This module
imports all three and none of them imports it, so bench and seeds do not
import each other.
"""

import os
import sys

from mbtools import bench, facts, inputs, scale, seeds


def add_parser(sub):
    p = sub.add_parser(
        "bench",
        help="boot a matrix of configurations and print per-node init tables",
        description=(
            "Boot every combination of the axes --boots times (QEMU TCG, PVH "
            "boot) and print per-node init medians and spread as a markdown "
            "table. --quick (default) takes about 2 minutes; --full boots every "
            "axis. --seed NNN reproduces a seed thread's table beside its own "
            "figures instead. Never writes tracked files."))
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", dest="mode", action="store_const", const="quick",
                      help="a small matrix, 3 boots each, about 2 minutes (default)")
    mode.add_argument("--full", dest="mode", action="store_const", const="full",
                      help="every axis (topologies, policies, threads, descriptor "
                           "sizes, allocator, pcp), 5 boots each")
    mode.add_argument("--seed", metavar="NNN",
                      help="reproduce seed NNN's table (000, 001, 004; 'all')")
    mode.add_argument("--scale", dest="mode", action="store_const", const="scale",
                      help="ns/page against node size (1 node of 2 to 128 GiB) and seed "
                           "004's 16 x 128 GiB shape, in guests larger than the host")
    p.add_argument("--axis", action="append", default=[], metavar="NAME=V1,V2",
                   help="replace or add an axis (topo, desc, init, threads, alloc, "
                        "pcp or any kernel command-line key; '-' leaves the key out)")
    p.add_argument("--preset", metavar="NAME",
                   help="a seed's machine as the only topology (the topo axis; "
                        "'--preset list' prints them)")
    p.add_argument("--boots", type=inputs.positive_int, metavar="N",
                   help="boots per combination (at least 1)")
    p.add_argument("--csv", metavar="FILE", type=inputs.output_file,
                   help="also write the rows as CSV")
    p.add_argument("--json", metavar="FILE", type=inputs.output_file,
                   help="also write every boot's records and the rows as JSON")
    p.add_argument("--build-dir", default=os.path.join(bench.REPO_ROOT, "build"),
                   metavar="DIR", help="where the kernels are (default: build/)")
    p.add_argument("--no-build", action="store_true",
                   help="never run make for a missing kernel; fail instead")
    p.add_argument("--arch", type=inputs.arch_arg, default=None, metavar="NAME",
                   help="the guests' architecture, as run --arch (default x86_64; "
                        "arm64 boots its Image on QEMU virt, and --seed 000 runs the "
                        "seed's arm64 machines' shapes; ppc64le boots its ELF on "
                        "pseries under VOF, and --seed 004 runs the POWER seed's "
                        "table)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the boots that would run and exit")
    scale.add_arguments(p)
    p.set_defaults(func=main, mode=None)
    return p


def main(args):
    if args.preset == "list":
        # As `run --preset list`: the presets, and nothing booted.
        from mbtools import presets
        print("\n".join(presets.listing()))
        return 0
    if args.seed:
        return seeds.main(args)
    if args.mode == "scale":
        try:
            elf = bench.ensure_kernel(None, args)
        except bench.BenchError as e:
            print("memboot bench: %s" % e, file=sys.stderr)
            return facts.EXIT_USAGE
        return scale.run(args, bench.MEMBOOT, elf=elf)
    return bench.main(args)
