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
    pools = b.all("hugetlb")
    assert sum(p["allocated"] for p in pools) == 16, pools
    censuses = b.all("census")
    assert len(censuses) >= 3
    for c in censuses:
        assert c["lost"] == 0, c
        assert c["huge"] == 16 * 512, c


def _make(name):
    def test():
        check_allocator(name)
    test.__name__ = f"test_alloc_{name}"
    return test


for _name in ALLOCATORS:
    globals()[f"test_alloc_{_name}"] = _make(_name)


def test_alloc_unknown_name():
    b = boot(append="memboot.alloc=nosuch", boot_path="pvh")
    done = b.expect_ok()
    assert done["warnings"] == 1, done
    assert [a["name"] for a in b.all("alloc")] == ["buddy"]
    assert "memboot.alloc=nosuch is not an allocator; using buddy" in b.console
