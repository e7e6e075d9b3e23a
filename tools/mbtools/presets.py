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
}
SMALL_MEM = {"seed000": "4G", "seed001": "512M", "seed002": "1G", "seed003": "2G",
             "seed004": "256M"}


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
        lines.append("%-15s %3d node%s x %3d CPUs x %5s  %s"
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
