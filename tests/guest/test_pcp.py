"""Per-CPU page lists: the churn self-test on 2 nodes x 4 CPUs through the
lists in front of the allocator, with no page lost and every list drained;
the lists off (every request to the allocator) and a bad policy."""
from guest import boot


def churn_boot(append=""):
    b = boot(nodes=2, cpus_per_node=4, mem_per_node="1G", boot_path="pvh",
             append="memboot.selftest=churn memboot.churn_allocs=8000 " + append)
    b.expect_ok()
    return b


def test_churn_2x4_auto():
    b = churn_boot()
    nodes = b.all("pcp")
    assert [n["node"] for n in nodes] == [0, 1], nodes
    for n in nodes:
        assert n["policy"] == "auto" and n["steps"] == "1,3,4,5,7,8,10", n
        assert n["batch"] == 63 and n["cpus"] == 4, n
        assert n["high_min"] < n["high_max"], n
    c = b.one("churn")
    # threads counts the CPUs that ran a worker: all eight are offered, but on
    # a loaded host a vCPU may wake after the others took every worker.
    assert 2 <= c["threads"] <= 8 and c["workers"] == 8, c
    assert c["allocs"] >= 8 * 8000 and c["failed"] == 0, c
    assert c["remote_frees"] > 0, c
    # the lists served the allocations; the zone lock was taken per batch
    assert c["alloc_pcp"] == c["allocs"], c
    assert 0 < c["lock_acquired"] < c["allocs"] // 10, c
    assert c["alloc_zone_pages"] < c["alloc_pages"], c
    assert c["high_max"] > c["high_min"], c
    # pages were on the lists at the end of the run, and all came back
    assert c["pcp_pages_end"] > 0 and c["drained"] == c["pcp_pages_end"], c
    assert c["left_on_lists"] == 0 and c["lost"] == 0, c
    per_cpu = b.all("pcp_cpu")
    # at least the lists of the CPUs that ran a worker were used
    cpus = {p["cpu"] for p in per_cpu}
    assert cpus <= set(range(8)) and len(cpus) >= c["threads"], per_cpu
    assert sum(p["lock_acquired"] for p in per_cpu) == c["lock_acquired"]
    assert sum(p["alloc_pcp"] for p in per_cpu) == c["alloc_pcp"]
    censuses = b.all("census")
    assert [x["when"] for x in censuses] == ["boot", "churn", "end"], censuses
    for x in censuses:
        assert x["lost"] == 0 and x["pcp"] == 0, x


def test_churn_off_goes_to_the_allocator():
    b = churn_boot("memboot.pcp=off")
    c = b.one("churn")
    assert c["policy"] == "off" and c["lost"] == 0 and c["left_on_lists"] == 0, c
    assert c["alloc_pcp"] == 0 and c["alloc_zone_pages"] == c["alloc_pages"], c
    # one lock acquisition per allocation and per free
    assert c["lock_acquired"] >= 2 * c["allocs"], c


def test_pcp_keys():
    b = boot(boot_path="pvh", append="memboot.pcp=bogus memboot.pcp_steps=+9 "
             "memboot.pcp_high_fraction=16")
    done = b.expect_ok()
    assert done["errors"] == 1, done
    assert "bad value 'bogus' for 'memboot.pcp' (expected off, fixed or auto)" in b.console
    for n in b.all("pcp"):
        assert n["policy"] == "auto" and n["steps"] == "1,3,4,5,7,8,9,10", n
        # a fraction fixes high: node pages / 16 / CPUs
        assert n["high_fraction"] == 16 and n["high_min"] == n["high_max"], n
    for x in b.all("census"):
        assert x["lost"] == 0, x
