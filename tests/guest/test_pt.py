"""Page tables (kernel/vm/vm.c, mm/pt/pt.c): the stress self-test on every CPU in
both lock modes, and the fault-in benchmark's records."""
from guest import boot

# PVH: the quickest boot; the test is about what runs after it.
TWO_BY_TWO = dict(nodes=2, cpus_per_node=2, mem_per_node="1G", boot_path="pvh")


def check_stress(b, locks, broadcast=False):
    """@broadcast: the architecture invalidates other CPUs' TLBs by broadcast
    instructions (arm64's TLBI ...IS), so no shootdown IPI is ever sent."""
    b.expect_ok()
    t = b.one("pt_test")
    assert t["locks"] == locks, t
    assert t["errors"] == 0, t
    assert t["cpus"] == 4 and t["workers"] == 4, t
    assert t["maps"] > 0 and t["maps"] == t["unmaps"], t
    assert t["protects"] > 0, t
    # Unmapped pages were read from other CPUs and faulted, as they must.
    assert t["probe_faults"] > 0 and t["probes"] > t["probe_faults"], t
    # Unmap and protect reached the other CPUs: by IPIs, or by the
    # broadcast alone.
    assert (t["ipis"] == 0) if broadcast else (t["ipis"] > 0), t
    # Every table but the root went back at the reclaim, and no space is
    # left holding pages.
    assert t["tables_held"] == t["tables_reclaimed"] + 1, t
    assert t["tables_after"] == 1 and t["tables_live"] == 0, t
    census = {c["when"]: c for c in b.all("census")}
    # While the space lived its tables were counted as page tables ...
    assert census["pt-live"]["pagetable"] == census["boot"]["pagetable"] + t["tables_held"], census
    # ... and afterwards every one of them is free again.
    for when in ("pt", "end"):
        assert census[when]["lost"] == 0, census[when]
        assert census[when]["pagetable"] == census["boot"]["pagetable"], census[when]
        assert census[when]["free"] == census["boot"]["free"], census[when]
    assert b.one("selftest")["ok"] is True


def test_stress_split_locks():
    check_stress(boot(**TWO_BY_TWO, append="memboot.selftest=pt", timeout=180), "split")


def test_stress_global_lock():
    check_stress(boot(**TWO_BY_TWO, append="memboot.selftest=pt memboot.ptlock=global",
                      timeout=180), "global")


def test_bench_records_every_cell():
    # Small: 8 MiB on 4 CPUs, one run a cell; hugetlb from a 4-page pool.
    b = boot(**TWO_BY_TWO, timeout=180,
             append="memboot.bench=pt memboot.ptbench_mib=8 memboot.ptbench_reps=1 hugepages=4")
    check_bench_cells(b)


def check_bench_cells(b):
    """Every cell of a 4-CPU, 8 MiB, one-run benchmark with a pool."""
    b.expect_ok()
    cells = {(r["row"], r["locks"]): r for r in b.all("pt_bench")}
    assert set(cells) == {(row, locks) for row in ("4k", "2m", "hugetlb")
                          for locks in ("global", "split")}, cells
    for (row, locks), r in cells.items():
        assert "skipped" not in r, r
        assert r["cpus"] == 4 and r["bytes"] == 8 << 20 and r["zero"] is True, r
        assert r["faults"] == (8 << 20) // (4096 if row == "4k" else 2 << 20), r
        # Each fault takes at least the lock its leaf goes under.
        assert r["acquisitions"] >= r["faults"] and r["contended"] <= r["acquisitions"], r
        assert r["ns"] > 0, r
    # Pool pages all back in their pools, frames back with the allocator.
    census = {c["when"]: c for c in b.all("census")}
    assert census["end"]["free"] == census["boot"]["free"], census
    assert census["end"]["lost"] == 0


def test_bench_without_pool_pages_skips_that_row():
    b = boot(**TWO_BY_TWO, timeout=180,
             append="memboot.bench=pt memboot.ptbench_mib=8 memboot.ptbench_reps=1")
    b.expect_ok()
    huge = [r for r in b.all("pt_bench") if r["row"] == "hugetlb"]
    assert len(huge) == 2 and all("pool" in r["skipped"] for r in huge), huge

