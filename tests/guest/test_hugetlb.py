"""Huge page pools: requests met exactly as asked when memory allows, always
on the right node, naturally aligned, every page counted by the census."""
from guest import boot

GIB, MIB = 1 << 30, 1 << 20
# 2 nodes x 2 GiB on q35: node 0 is [0, 2 GiB) less the low holes and
# firmware pages (no whole aligned GiB), node 1 is [4 GiB, 6 GiB) (two).
TWO_NODES = dict(nodes=2, cpus_per_node=2, mem_per_node="2G")


def check_pools(b, expect):
    """expect: {(node, size_bytes): (requested, allocated)}"""
    b.expect_ok()
    got = {(h["node"], h["size_bytes"]): (h["requested"], h["allocated"])
           for h in b.all("hugetlb")}
    assert got == expect, got
    nodes = {n["node"]: [(int(s, 16), int(e, 16)) for s, e in n["mem"]] for n in b.all("node")}
    pages = b.all("huge_page")
    for (node, size), (_, allocated) in expect.items():
        mine = [int(p["start"], 16) for p in pages
                if p["node"] == node and p["size_bytes"] == size]
        assert len(mine) == allocated, (node, size, len(mine))
        for start in mine:
            assert start % size == 0, hex(start)
            assert any(s <= start and start + size <= e for s, e in nodes[node]), \
                (node, hex(start))
        assert len(set(mine)) == len(mine)
    huge_pages = sum(a * s // 4096 for (_, s), (_, a) in expect.items())
    for c in b.all("census"):
        assert c["lost"] == 0 and c["huge"] == huge_pages, (c, huge_pages)


def test_per_node_1g_and_spread_2m_together():
    b = boot(**TWO_NODES, append="memboot.trace hugepagesz=1G hugepages=0:0,1:1 "
                                 "hugepagesz=2M hugepages=301")
    check_pools(b, {(1, GIB): (1, 1), (0, 2 * MIB): (151, 151), (1, 2 * MIB): (150, 150)})
    # Each node's descriptors still sit in its own memory next to the pool.
    assert b.one("done")["warnings"] == 0


def test_spread_1g_over_nodes_and_what_does_not_fit():
    # 4 spread: 2 per node; node 0 has no whole aligned GiB, node 1 has 2.
    b = boot(**TWO_NODES, append="memboot.trace hugepagesz=1G hugepages=4")
    check_pools(b, {(0, GIB): (2, 0), (1, GIB): (2, 2)})
    assert "HugeTLB: allocating 2 of page size 1.00 GiB failed node0.  Only allocated 0 hugepages." \
        in b.console
    # More than fits on node 1: what fits, never a page from node 0. The
    # pool takes all of node 1, so its descriptors go to the nearest node.
    b = boot(**TWO_NODES, append="memboot.trace hugepagesz=1G hugepages=1:3")
    check_pools(b, {(1, GIB): (3, 2)})
    assert "node 1's descriptors do not fit in its own memory; placed on node 0" in b.console


def test_more_2m_than_fits_takes_what_fits_on_that_node():
    b = boot(nodes=2, cpus_per_node=1, mem_per_node="512M",
             append="memboot.trace hugepages=0:1000")
    check_pools(b, {(0, 2 * MIB): (1000, b.one("hugetlb")["allocated"])})
    got = b.one("hugetlb")["allocated"]
    assert 200 < got < 256, got          # node 0 has 512 MiB, less what is in use
    assert "failed node0" in b.console


def test_node_without_memory_and_unknown_node():
    args = ["-m", "2G", "-smp", "4,sockets=2,cores=2",
            "-object", "memory-backend-ram,id=m0,size=2G",
            "-numa", "node,nodeid=0,cpus=0-1,memdev=m0",
            "-numa", "node,nodeid=1,cpus=2-3"]
    b = boot(append="memboot.trace hugepages=0:8,1:4,7:1", qemu_args=args)
    check_pools(b, {(0, 2 * MIB): (8, 8), (1, 2 * MIB): (4, 0)})
    assert "names node 7, but there are 2 nodes" in b.console
    assert "failed node1" in b.console


def test_cpu_without_1g_pages():
    b = boot(cpu="qemu64", mem_per_node="2G", append="hugepagesz=1G hugepages=1 hugepages=4")
    done = b.expect_ok()
    assert "this CPU has no 1 GiB pages" in b.console
    assert [h for h in b.all("hugetlb") if h["size_bytes"] == GIB] == []
    # The 2M request (hugepages= after the 1G one, default size 2M... no:
    # it follows hugepagesz=1G, so it replaces the 1G request) leaves 2M empty.
    assert b.all("hugetlb") == []
    assert done["errors"] == 1


def test_default_hugepagesz_and_bad_syntax():
    b = boot(**TWO_NODES, append="default_hugepagesz=1G hugepages=1:1 hugepagesz=3M "
                                 "hugepages=1:x hugepages=")
    done = b.expect_ok()
    assert {(h["node"], h["size_bytes"]) for h in b.all("hugetlb")} == {(1, GIB)}
    assert done["errors"] == 3, done


def test_zeroing_and_selftest_on_every_cpu():
    b = boot(**TWO_NODES, append="memboot.trace memboot.hugetlb_zero hugepagesz=1G "
                                 "hugepages=1:1 hugepagesz=2M hugepages=64 "
                                 "memboot.selftest=hugetlb")
    check_pools(b, {(1, GIB): (1, 1), (0, 2 * MIB): (32, 32), (1, 2 * MIB): (32, 32)})
    assert all(h["zeroed"] for h in b.all("hugetlb"))
    t = b.one("hugetlb_test")
    assert t == {"event": "hugetlb_test", "pages": 65, "taken": 65, "errors": 0,
                 "free_after": 65}, t
    assert "hugetlb" in [c["when"] for c in b.all("census")]
    # Each node's pools were built by the node's own CPUs: node 1's 1 GiB
    # page zeroed and both nodes' 2 MiB pages allocated and zeroed.
    cpu_node = {c["cpu"]: c["node"] for c in b.all("cpu_up")}
    pool_chunks = [c for c in b.all("chunk") if c.get("job") in ("hugetlb", "hugetlb-zero")]
    assert {(c["job"], c["node"]) for c in pool_chunks} == \
        {("hugetlb-zero", 1), ("hugetlb", 0), ("hugetlb", 1)}, pool_chunks
    for c in pool_chunks:
        assert cpu_node[c["cpu"]] == c["node"], c
    # A pool's time is its own job's, inside the phase; a node's jobs span
    # no more than the phase.
    phase = [p for p in b.all("phase") if p["name"] == "hugetlb"][0]
    p0, p1 = phase["start_ns"], phase["start_ns"] + phase["ns"]
    for node in (0, 1):
        pools = [h for h in b.all("hugetlb") if h["node"] == node and "start_ns" in h]
        assert pools, node
        for h in pools:
            assert p0 <= h["start_ns"] <= h["end_ns"] <= p1, (h, phase)
            # (ns and the boot-relative times round separately: 2 ns slack)
            assert abs(h["job_ns"] - (h["end_ns"] - h["start_ns"])) <= 2, h
            assert h["job_ns"] <= phase["ns"], (h, phase)
            assert 1 <= h["threads"] <= h["cpus"] == 2, h
        span = max(h["end_ns"] for h in pools) - min(h["start_ns"] for h in pools)
        assert span <= phase["ns"], (pools, phase)
