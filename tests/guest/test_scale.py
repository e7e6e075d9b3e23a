"""Scale: many nodes, and descriptors only for present memory. Small guests
only here (TiB-class guests are `tools/memboot bench --scale`)."""
from guest import boot


def many_nodes(nr_nodes, node_mib, cpu_nodes=2):
    """QEMU flags: nr_nodes nodes of node_mib MiB, one CPU on each of the first
    cpu_nodes nodes, the rest CPU-less."""
    args = ["-m", f"{nr_nodes * node_mib}M", "-smp", f"{cpu_nodes}"]
    for i in range(nr_nodes):
        args += ["-object", f"memory-backend-ram,id=m{i},size={node_mib}M"]
        cpus = f",cpus={i}" if i < cpu_nodes else ""
        args += ["-numa", f"node,nodeid={i}{cpus},memdev=m{i}"]
    return args


def check_census(b):
    censuses = b.all("census")
    assert censuses and censuses[-1]["when"] == "end", b.tail()
    for c in censuses:
        assert c["lost"] == 0, c


def test_128_nodes_qemus_maximum():
    # QEMU allows at most 128 NUMA nodes; memboot must keep every one.
    b = boot(qemu_args=many_nodes(128, 16), timeout=240)
    b.expect_ok()
    numa = b.one("numa")
    assert numa["nodes"] == 128 and numa["source"] == "srat", numa
    nodes = b.all("node")
    assert sorted(n["node"] for n in nodes) == list(range(128))
    assert all(n["mem_bytes"] > 0 for n in nodes)
    memmaps = {m["node"]: m for m in b.all("memmap")}
    assert sorted(memmaps) == list(range(128))
    inits = {i["node"]: i for i in b.all("node_init")}
    assert sorted(inits) == list(range(128))
    # A node's free pages went to its own allocator: the census agrees.
    check_census(b)
    assert b.all("census")[0]["free"] == sum(i["free_pages"] for i in inits.values())
