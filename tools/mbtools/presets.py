"""The seed threads' machines as named topologies for `memboot run --preset`
and `memboot bench --preset` (docs/tools.md). Each has a small-memory
variant (NAME-small) with the same nodes and CPUs for quick boots. Guests
above 16 GiB are backed by memory QEMU does not reserve (reserve=off), so a
full preset boots on a small host as long as memboot touches only
descriptors; more than 255 vCPUs need QEMU 10's q35 with -cpu max (the
defaults, docs/building.md)."""

# name: (nodes, CPUs per node, memory per node, what it is)
PRESETS = {
    "seed000": (1, 32, "128G",
                "seed 000's 32-CPU box (Ampere HR330, 128 GB, one node)"),
    "seed001": (4, 128, "64G",
                "seed 001's 4-node machine with 256 cores x 2 threads (512 CPUs)"),
    "seed002": (2, 112, "96G",
                "seed 002's 2-socket server with 224 CPUs"),
    "seed003": (1, 512, "128G",
                "seed 003's 512 CPUs"),
    "seed004": (16, 2, "128G",
                "seed 004's 16 nodes of 128 GiB (2 TiB, reserve=off)"),
    # arm64 server shapes (boot them with --arch arm64): Ampere Altra
    # (80 cores) and Altra Max (128 cores), one thread a core, a socket as
    # one node or split in two (the firmware's hemisphere or quadrant
    # modes), and a 2-socket server.
    "ampere80": (1, 80, "128G",
                 "arm64: one 80-core socket (Ampere Altra-like), one node"),
    "ampere80-2n": (2, 40, "64G",
                    "arm64: one 80-core socket split in two nodes"),
    "ampere128": (1, 128, "128G",
                  "arm64: one 128-core socket (Ampere Altra Max-like), one node"),
    "ampere128-2n": (2, 64, "64G",
                     "arm64: one 128-core socket split in two nodes"),
    "ampere2s": (2, 128, "128G",
                 "arm64: two 128-core sockets, a node each (256 CPUs)"),
}
SMALL_MEM = {"seed000": "4G", "seed001": "512M", "seed002": "1G", "seed003": "2G",
             "seed004": "256M", "ampere80": "1G", "ampere80-2n": "512M", "ampere128": "1G",
             "ampere128-2n": "512M", "ampere2s": "512M"}


def all_presets():
    """name -> (nodes, cpus_per_node, mem_per_node, about), small ones too."""
    out = {}
    for name, (nodes, cpus, mem, about) in PRESETS.items():
        out[name] = (nodes, cpus, mem, about)
        out[name + "-small"] = (nodes, cpus, SMALL_MEM[name],
                                "%s with %s a node, for a quick boot" % (name, SMALL_MEM[name]))
    return out


def listing():
    """The lines `--preset list` prints."""
    lines = []
    for name, (nodes, cpus, mem, about) in all_presets().items():
        lines.append("%-18s %3d node%s x %3d CPUs x %5s  %s"
                     % (name, nodes, " " if nodes == 1 else "s", cpus, mem, about))
    return lines


def topo(name):
    """@name as bench's topo axis value NODESxCPUSxMEM, or None."""
    p = find(name)
    return "%dx%dx%s" % p if p else None


def find(name):
    """(nodes, cpus_per_node, mem_per_node) of @name, or None."""
    p = all_presets().get(name)
    return p[:3] if p else None
