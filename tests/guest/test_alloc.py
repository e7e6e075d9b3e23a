"""The allocator seam: each allocator memboot.alloc can name boots two nodes,
passes the allocation and huge page self-tests with every page accounted for;
an unknown name is a warning and the default runs."""
import os
import sys

from guest import boot

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools"))
from mbtools import facts  # noqa: E402

# Every allocator of mm/alloc/table.h, read from the table.
ALLOCATORS = list(facts.ALLOCATORS)


def check_allocator(name):
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="512M", boot_path="pvh",
             append=f"memboot.alloc={name} memboot.selftest=alloc,hugetlb hugepages=16")
    b.expect_ok()
    assert [a["name"] for a in b.all("alloc")] == [name], b.all("alloc")
    t = b.one("alloc_test")
    assert t["failures"] == 0 and t["free_before"] == t["free_after"], t
    # Orders 0..10 and flagged requests that bypass the per-CPU lists, and
    # a census while they were held.
    assert t["max_order"] == 10 and t["big"] > 0 and t["flagged"] > 0, t
    assert t["held_census"] is True, t
    pools = b.all("hugetlb")
    assert sum(p["allocated"] for p in pools) == 16, pools
    censuses = b.all("census")
    assert len(censuses) >= 4
    assert "alloc-held" in [c["when"] for c in censuses]
    for c in censuses:
        assert c["lost"] == 0 and c["bad"] == 0 and c["check"] is True, c
        assert c["huge"] == 16 * 512, c
        assert sum(n << k for k, n in enumerate(c["free_blocks"])) == c["free"], c


# The topologies of test_topology.py that shape an allocator's zones: one
# node, two, four with a memoryless and a CPU-less node and a SLIT, and a
# node split by the 4 GiB hole.
TOPOLOGIES = {
    "one_node": dict(cpus_per_node=2, mem_per_node="1G"),
    "two_nodes": dict(nodes=2, cpus_per_node=2, mem_per_node="1G"),
    "four_nodes_memoryless_cpuless": dict(qemu_args=[
        "-m", "3G", "-smp", "6,sockets=3,cores=2",
        "-object", "memory-backend-ram,id=m0,size=1G",
        "-object", "memory-backend-ram,id=m2,size=1G",
        "-object", "memory-backend-ram,id=m3,size=1G",
        "-numa", "node,nodeid=0,cpus=0-1,memdev=m0",
        "-numa", "node,nodeid=1,cpus=2-3",
        "-numa", "node,nodeid=2,memdev=m2",
        "-numa", "node,nodeid=3,cpus=4-5,memdev=m3",
    ] + [a for (x, y), v in {(0, 1): 21, (0, 2): 31, (0, 3): 41, (1, 2): 15, (1, 3): 31,
                              (2, 3): 21}.items()
         for a in ("-numa", f"dist,src={x},dst={y},val={v}")]),
    "split_by_4g_hole": dict(qemu_args=[
        "-m", "4G", "-smp", "2,sockets=2,cores=1",
        "-object", "memory-backend-ram,id=m0,size=3G",
        "-object", "memory-backend-ram,id=m1,size=1G",
        "-numa", "node,nodeid=0,cpus=0,memdev=m0",
        "-numa", "node,nodeid=1,cpus=1,memdev=m1"]),
}


def check_topologies(name):
    for topo, kw in TOPOLOGIES.items():
        b = boot(boot_path="pvh", append=f"memboot.alloc={name} memboot.selftest=alloc", **kw)
        b.expect_ok()
        assert b.one("alloc_test")["held_census"] is True, topo
        for c in b.all("census"):
            assert c["lost"] == 0 and c["bad"] == 0 and c["check"] is True, (topo, c)


def _make(name):
    def test():
        check_allocator(name)
    test.__name__ = f"test_alloc_{name}"
    return test


def _make_topologies(name):
    def test():
        check_topologies(name)
    test.__name__ = f"test_alloc_{name}_every_topology"
    return test


for _name in ALLOCATORS:
    globals()[f"test_alloc_{_name}"] = _make(_name)
    globals()[f"test_alloc_{_name}_every_topology"] = _make_topologies(_name)


def test_alloc_unknown_name():
    b = boot(append="memboot.alloc=nosuch", boot_path="pvh")
    done = b.expect_ok()
    assert done["warnings"] == 1, done
    assert [a["name"] for a in b.all("alloc")] == ["buddy"]
    assert "memboot.alloc=nosuch is not an allocator; using buddy" in b.console
