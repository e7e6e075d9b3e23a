"""arm64 at parity with x86_64 (`--arch arm64`, the device tree boot): the
page-table self-test with TLB invalidation by broadcast TLBI, the fault
benchmark, hugetlb pools per node, the per-CPU lists' churn, the store probe
and numaperf on a machine without SMBIOS or HMAT. The same records as on
x86_64 (tests/guest/test_pt.py, test_hugetlb.py, test_pcp.py).

2 nodes x 2 CPUs, 1-3 s a boot under TCG.
"""
from test_arm64 import boot_arm64, check_census
from test_pt import check_bench_cells, check_stress

TWO_BY_TWO = dict(nodes=2, cpus_per_node=2, timeout=180)


def test_arm64_pt_stress_by_broadcast_tlbi():
    # Every CPU maps, protects and unmaps while its neighbours read through
    # their own TLBs; the 1 GiB slot maps the GiB that holds the kernel.
    for locks in ("split", "global"):
        b = boot_arm64(**TWO_BY_TWO, append="memboot.selftest=pt memboot.ptlock=" + locks)
        check_stress(b, locks, broadcast=True)


def test_arm64_pt_bench_every_cell():
    check_bench_cells(boot_arm64(**TWO_BY_TWO, append="memboot.bench=pt memboot.ptbench_mib=8 "
                                 "memboot.ptbench_reps=1 hugepages=4"))


def test_arm64_hugetlb_pools_per_node():
    # Node 0 is [1 GiB, 2.5 GiB): its one aligned GiB holds the kernel, so
    # its 1 GiB page fails as Linux says; node 1's [3 GiB, 4 GiB) is free.
    b = boot_arm64(**TWO_BY_TWO, mem_per_node="1536M",
                   append="hugepagesz=1G hugepages=0:1,1:1 hugepagesz=2M hugepages=0:3,1:5 "
                          "memboot.selftest=hugetlb")
    b.expect_status(0)
    assert not b.all("error"), b.all("error")
    got = {(r["node"], r["size_bytes"]): r for r in b.all("hugetlb")}
    assert got[(0, 1 << 30)]["allocated"] == 0 and got[(1, 1 << 30)]["allocated"] == 1, got
    assert [w["msg"] for w in b.all("warning")] == [
        "physmem: cannot allocate 1073741824 bytes (align 0x40000000) on node 0 (exact) "
        "for 'hugetlb'",
        "HugeTLB: allocating 1 of page size 1.00 GiB failed node0.  Only allocated 0 hugepages."]
    for node, count in ((0, 3), (1, 5)):
        r = got[(node, 2 << 20)]
        # Built by the node's own CPUs, in parallel with the other node's.
        assert r["requested"] == r["allocated"] == count and r["cpu_node"] == node, r
    assert b.one("selftest")["ok"] is True
    check_census(b)


def test_arm64_churn_and_alloc_through_the_per_cpu_lists():
    b = boot_arm64(**TWO_BY_TWO, append="memboot.selftest=alloc,churn memboot.pcp_steps=all")
    b.expect_ok()
    assert {s["name"]: s["ok"] for s in b.all("selftest")} == {"alloc": True, "churn": True}
    assert len(b.all("pcp")) >= 1
    check_census(b)


def test_arm64_store_probe_named_in_the_memmap_record():
    # 1 GiB a node: 4 MiB of descriptors, more than -cpu max's 2 MiB L2.
    b = boot_arm64(**TWO_BY_TWO)
    b.expect_ok()
    probe = b.one("store_probe")
    assert probe["choice"] in ("plain", "stnp", "dczva"), probe
    assert probe["plain_ns"] > 0 and probe["nt_ns"] > 0 and probe["zero_ns"] > 0, probe
    for m in b.all("memmap"):
        assert m["llc_bytes"] == 2 << 20 and m["llc_source"] == "L2", m
        assert m["store"] == probe["choice"], (m, probe)


def test_arm64_numaperf_without_smbios_or_hmat():
    b = boot_arm64(**TWO_BY_TWO, append="memboot.selftest=numaperf")
    b.expect_ok()
    pairs = {(r["initiator_node"], r["target_node"]): r for r in b.all("numa_perf")}
    assert set(pairs) == {(0, 0), (0, 1), (1, 0), (1, 1)}, pairs
    for (i, t), r in pairs.items():
        assert r["hmat"] is False and r["distance"] == (10 if i == t else 20), r
        assert r["latency_ps"] > 0 and r["bandwidth_mbps"] > 0, r
        # QEMU's TCG "max" CPU (MIDR implementer 0x00, part 0x051) is named.
        assert r["emulated"] is True and r["hypervisor"] == "TCG", r
    assert all(p["hmat"] is False for p in b.all("node_perf"))
    # A device tree boot has no EFI table, and arm64 no BIOS area to read.
    assert "DMI: no SMBIOS entry point (no EFI configuration table, and no BIOS area on " \
        "this architecture); no machine or memory device records" in b.console, b.tail()
