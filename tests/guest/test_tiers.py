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
    check_hmat_figures(boot(boot_path="pvh", qemu_args=hmat_topology(),
                            append=HMAT_APPEND))


# The HMAT machine: two CPU nodes, two memory-only nodes, the figures and
# a memory-side cache (tests/guest/test_arm64_machine.py boots it too).
def hmat_topology():
    return _topology(True) + _hmat_args()


HMAT_APPEND = "hugepagesz=2M hugepages=16"


def check_hmat_figures(b):
    """The HMAT machine's records: QEMU's figures, Linux's tiers, each
    memory-only node initialised by its initiator's CPUs, census lost 0."""
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
    # Their 2 MiB pools are built by the same CPUs, from their own memory.
    pools = {r["node"]: r for r in b.all("hugetlb")}
    assert [(pools[n]["cpu_node"], pools[n]["allocated"]) for n in range(4)] == \
        [(0, 4), (1, 4), (0, 4), (1, 4)], pools
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


def _mark_specific_purpose(mbi):
    """@mbi (Multiboot2 information with an EFI memory map tag) with its
    largest conventional descriptor marked EFI_MEMORY_SP; and that range."""
    import struct
    data, off, best = bytearray(mbi), 8, None
    while off + 8 <= len(data):
        tag, size = struct.unpack_from("<II", data, off)
        if tag == 0:
            break
        if tag == 17:                         # EFI memory map
            desc_size = struct.unpack_from("<I", data, off + 8)[0]
            for p in range(off + 16, off + size - 39, desc_size):
                kind, _, start, _, pages, _ = struct.unpack_from("<IIQQQQ", data, p)
                if kind == 7 and (best is None or pages > best[2]):
                    best = (p, start, pages)
        off += (size + 7) & ~7
    p, start, pages = best
    attr = struct.unpack_from("<Q", data, p + 32)[0]
    struct.pack_into("<Q", data, p + 32, attr | 1 << 18)
    return bytes(data), start, start + pages * 4096


def test_soft_reserved_memory_stays_out_of_the_allocator():
    # The information GRUB gave an OVMF boot (a host-test fixture), fed back
    # through the fw_cfg override under SeaBIOS: once as it was, once with
    # its largest conventional range marked specific-purpose. (Its RSDP and
    # system table are the OVMF boot's: ACPI falls back to one node.)
    import os
    import tempfile
    from guest import ROOT
    fixture = os.path.join(ROOT, "tests", "host", "fixtures", "mb2", "ovmf-q35-512m.bin")
    intact = open(fixture, "rb").read()
    marked, start, end = _mark_specific_purpose(intact)
    boots = []
    with tempfile.TemporaryDirectory() as d:
        for name, data in (("intact", intact), ("sp", marked)):
            path = os.path.join(d, name)
            with open(path, "wb") as f:
                f.write(data)
            boots.append(boot(mem_per_node="512M", machine="q35", timeout=60,
                              qemu_args=["-fw_cfg", "name=opt/memboot/mb2-override,file=" + path]))
    plain, sp = boots
    plain.expect_ok()
    sp.expect_ok()
    assert plain.all("soft_reserved") == []
    rec = sp.one("soft_reserved")
    assert (int(rec["start"], 16), int(rec["end"], 16), rec["bytes"]) == \
        (start, end, end - start), rec
    assert any(int(r["start"], 16) <= start and end <= int(r["end"], 16) and r["type"] == "reserved"
               for r in sp.all("mem_range")), sp.all("mem_range")
    assert plain.one("mem_summary")["usable_bytes"] - sp.one("mem_summary")["usable_bytes"] == \
        end - start
    free = [[c for c in b.all("census") if c["when"] == "boot"][0] for b in boots]
    assert all(c["lost"] == 0 for c in free), free
    # None of its pages reached the allocator: what it lost is the range,
    # less the descriptors a hole does not need.
    kept = [c["free"] + c["pcp"] + c["memmap"] for c in free]
    assert kept[0] - kept[1] == (end - start) // 4096, free


def test_hmat_on_cpu_nodes_only_warns_and_never_stops():
    # Two CPU nodes whose DRAM figures disagree by more than 10 %: Linux
    # then keeps every node in DRAM's tier, with a warning. No CPU-less
    # node: the checks and tiers are made with the report, after memory
    # is usable.
    args = ["-m", "1G", "-smp", "2,sockets=2,cores=1,threads=1", "-machine", "hmat=on"]
    for n in (0, 1):
        args += ["-object", "memory-backend-ram,id=m%d,size=512M" % n,
                 "-numa", "node,nodeid=%d,cpus=%d,memdev=m%d" % (n, n, n)]
    for (i, t), (lat, bw) in {(0, 0): (10, 20000), (0, 1): (30, 9000),
                              (1, 1): (20, 20000), (1, 0): (30, 9000)}.items():
        base = "hmat-lb,initiator=%d,target=%d,hierarchy=memory," % (i, t)
        args += ["-numa", base + "data-type=access-latency,latency=%d" % lat,
                 "-numa", base + "data-type=access-bandwidth,bandwidth=%dM" % bw]
    b = boot(boot_path="pvh", qemu_args=args)
    done = b.expect_ok()
    assert done["warnings"] >= 1, done
    assert any("differ by more than 10%" in w["msg"] for w in b.all("warning")), b.all("warning")
    h = b.one("hmat")
    assert (h["dram_ref_node"], h["no_ref_reason"], h["tiers"]) == (-1, "dram-mismatch", 1), h
    perf = {r["node"]: r for r in b.all("node_perf")}
    assert [(perf[n]["read_latency_ns"], perf[n]["tier"], perf[n]["init_by"]) for n in (0, 1)] == \
        [(10, 4, "own"), (20, 4, "own")], perf
    _census_ok(b)
