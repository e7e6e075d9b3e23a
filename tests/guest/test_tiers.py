"""Memory tiers and CPU-less nodes from the HMAT: QEMU's `-machine hmat=on`
with two nodes of CPUs and DRAM and two memory-only nodes, each attached to
one CPU node, and hmat-lb/hmat-cache lines: the `node_perf` records give the
figures QEMU was given, the tiers Linux's abstract-distance rule gives, and
the memory-only nodes are initialised by their attached node's CPUs, with
census lost 0. Without an HMAT the SLIT chooses those CPUs."""
from guest import boot

MIB = 1 << 20

# (initiator, target): (latency ns, bandwidth MB/s); nodes 2 and 3 are
# attached to initiators 0 and 1.
FIGURES = {(0, 0): (10, 20000), (0, 1): (20, 10000), (0, 2): (40, 5000), (0, 3): (60, 4000),
           (1, 1): (10, 20000), (1, 0): (20, 10000), (1, 3): (40, 5000), (1, 2): (60, 4000)}


def _topology(hmat):
    args = ["-m", "1536M", "-smp", "2,sockets=2,cores=1,threads=1"]
    if hmat:
        args += ["-machine", "hmat=on"]
    for n in (0, 1):
        args += ["-object", "memory-backend-ram,id=m%d,size=512M" % n,
                 "-numa", "node,nodeid=%d,cpus=%d,memdev=m%d" % (n, n, n)]
    for n, init in ((2, 0), (3, 1)):
        args += ["-object", "memory-backend-ram,id=m%d,size=256M" % n,
                 "-numa", "node,nodeid=%d,memdev=m%d" % (n, n)
                 + (",initiator=%d" % init if hmat else "")]
    return args


def _hmat_args():
    args = []
    for (i, t), (lat, bw) in sorted(FIGURES.items()):
        base = "hmat-lb,initiator=%d,target=%d,hierarchy=memory," % (i, t)
        args += ["-numa", base + "data-type=access-latency,latency=%d" % lat,
                 "-numa", base + "data-type=access-bandwidth,bandwidth=%dM" % bw]
    args += ["-numa", "hmat-cache,node-id=2,size=16M,level=1,associativity=direct,"
                      "policy=write-back,line=64"]
    return args


def _census_ok(b):
    for c in b.all("census"):
        assert c["lost"] == 0, c


def _initialised_by(b, node):
    """The node whose CPUs ran @node's chunks, and those CPUs' nodes."""
    init = [r for r in b.all("node_init") if r["node"] == node]
    assert len(init) == 1, init
    cpus = {r["cpu"] for r in b.all("node_cpu") if r["node"] == node and r["chunks"] > 0}
    cpu_nodes = {r["node"] for r in b.all("cpu") if r["cpu"] in cpus}
    return init[0]["cpu_node"], cpus, cpu_nodes


def test_hmat_figures_tiers_and_initialising_cpus():
    b = boot(boot_path="pvh", qemu_args=_topology(True) + _hmat_args())
    done = b.expect_ok()
    assert done["warnings"] == 0, done
    h = b.one("hmat")
    assert (h["revision"], h["domains"], h["lb_structures"], h["figures"], h["caches"]) == \
        (2, 4, 2, 16, 1), h
    assert h["dram_ref_node"] == 0 and h["tiers"] == 2 and h["warnings"] == 0, h
    perf = {r["node"]: r for r in b.all("node_perf")}
    assert sorted(perf) == [0, 1, 2, 3], perf
    for n, init in ((0, 0), (1, 1), (2, 0), (3, 1)):
        lat, bw = FIGURES[(init, n)]
        p = perf[n]
        assert (p["initiator_node"], p["read_latency_ns"], p["write_latency_ns"],
                p["read_bandwidth_mbs"], p["write_bandwidth_mbs"]) == (init, lat, lat, bw, bw), p
    # Linux's rule: DRAM at 576 (memory_tier4); a memory-only node at
    # 576 x (40 + 40) / (10 + 10) x (20000 + 20000) / (5000 + 5000) = 9216.
    assert [(perf[n]["adistance"], perf[n]["tier"]) for n in range(4)] == \
        [(576, 4), (576, 4), (9216, 72), (9216, 72)], perf
    assert perf[2]["cache_bytes"] == 16 * MIB and perf[3]["cache_bytes"] == 0, perf
    assert [(perf[n]["init_node"], perf[n]["init_by"]) for n in range(4)] == \
        [(0, "own"), (1, "own"), (0, "hmat"), (1, "hmat")], perf
    for n, owner in ((2, 0), (3, 1)):
        cpu_node, cpus, cpu_nodes = _initialised_by(b, n)
        assert cpu_node == owner and cpus and cpu_nodes == {owner}, (n, cpu_node, cpus, cpu_nodes)
    _census_ok(b)


def test_without_hmat_the_slit_chooses():
    # Node 3 is nearer node 1 by the SLIT; node 2 at equal distances goes
    # to the lower id.
    dist = ["-numa", "dist,src=0,dst=1,val=20", "-numa", "dist,src=0,dst=2,val=30",
            "-numa", "dist,src=0,dst=3,val=40", "-numa", "dist,src=1,dst=2,val=30",
            "-numa", "dist,src=1,dst=3,val=25", "-numa", "dist,src=2,dst=3,val=30"]
    b = boot(boot_path="pvh", qemu_args=_topology(False) + dist)
    b.expect_ok()
    assert b.all("hmat") == []
    perf = {r["node"]: r for r in b.all("node_perf")}
    assert [(perf[n]["init_node"], perf[n]["init_by"], perf[n]["tier"]) for n in range(4)] == \
        [(0, "own", 4), (1, "own", 4), (0, "distance", 4), (1, "distance", 4)], perf
    for n, owner in ((2, 0), (3, 1)):
        cpu_node, cpus, cpu_nodes = _initialised_by(b, n)
        assert cpu_node == owner and cpu_nodes == {owner}, (n, cpu_node, cpus, cpu_nodes)
    _census_ok(b)
