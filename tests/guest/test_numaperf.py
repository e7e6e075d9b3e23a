"""memboot.selftest=numaperf: a dependent-load latency and a store bandwidth
from each node's CPUs to each node's memory, one `numa_perf` record per
pair, beside the SLIT distance QEMU was given and, with `-machine hmat=on`,
the HMAT's figures. Under TCG the figures time the emulator: the test checks
that every pair is there, measured (non-zero), with the local ratios exactly
1, and that the record says it was emulated; never a figure's size."""
from guest import boot

DIST = 27       # node 0 <-> node 1, neither QEMU's nor memboot's default


def _two_nodes(extra=()):
    args = ["-m", "2G", "-smp", "4,sockets=2,cores=2,threads=1"]
    for n in (0, 1):
        args += ["-object", "memory-backend-ram,id=m%d,size=1G" % n,
                 "-numa", "node,nodeid=%d,cpus=%d-%d,memdev=m%d" % (n, 2 * n, 2 * n + 1, n)]
    return args + list(extra)      # -numa dist and hmat-lb name nodes declared before


def _pairs(b):
    got = {(r["initiator_node"], r["target_node"]): r for r in b.all("numa_perf")}
    assert len(got) == len(b.all("numa_perf")) == 4, b.all("numa_perf")
    assert set(got) == {(0, 0), (0, 1), (1, 0), (1, 1)}
    return got


def _measured(b, pairs):
    cpus = {r["cpu"]: r["node"] for r in b.all("cpu")}
    for (i, t), r in pairs.items():
        assert r["latency_ps"] > 0 and r["bandwidth_mbps"] > 0, r
        assert r["latency_ns"] == (r["latency_ps"] + 500) // 1000, r
        assert r["beyond_llc"] is (r["llc_bytes"] > 0 and r["buffer_bytes"] >= 2 * r["llc_bytes"]), r
        assert r["loads"] > 0 and r["store_bytes"] > 0 and r["buffer_bytes"] >= 2 << 20, r
        assert cpus[r["cpu"]] == i, (r, cpus)          # measured from the initiator's CPU
        assert r["local_node"] == i, r
        if i == t:
            assert r["latency_vs_local_milli"] == 1000 and r["bandwidth_vs_local_milli"] == 1000, r
        else:
            assert r["latency_vs_local_milli"] > 0 and r["bandwidth_vs_local_milli"] > 0, r
        # The ratios are the record's own figures over the local pair's.
        local = pairs[(i, i)]
        assert r["latency_vs_local_milli"] == (r["latency_ps"] * 1000 + local["latency_ps"] // 2) \
            // local["latency_ps"], r
        assert r["bandwidth_vs_local_milli"] == \
            (r["bandwidth_mbps"] * 1000 + local["bandwidth_mbps"] // 2) // local["bandwidth_mbps"], r
    for c in b.all("census"):
        assert c["lost"] == 0, c
    sel = [s for s in b.all("selftest") if s["name"] == "numaperf"]
    assert len(sel) == 1 and sel[0]["ok"] and not sel[0].get("skipped"), sel


def test_numaperf_slit_pairs_and_emulated():
    b = boot(boot_path="pvh", append="memboot.selftest=numaperf",
             qemu_args=_two_nodes(["-numa", "dist,src=0,dst=1,val=%d" % DIST]))
    b.expect_ok()
    assert b.one("numa")["slit"] is True
    pairs = _pairs(b)
    _measured(b, pairs)
    for (i, t), r in pairs.items():
        assert r["distance"] == (10 if i == t else DIST), r
        assert r["hmat"] is False and "hmat_read_latency_ns" not in r, r
        # tests/run.py boots under TCG (no KVM is asked for).
        assert r["emulated"] is True and r["hypervisor"] == "TCG", r
        # Kept small under the emulator (docs/records.md).
        assert r["buffer_bytes"] == r["store_bytes"] == 4 << 20 and r["loads"] == 8000, r
    assert "figures under an emulator (TCG)" in b.console
    assert "not the machine's memory" in b.console


# (initiator, target): (latency ns, bandwidth MB/s) given to QEMU's HMAT.
FIGURES = {(0, 0): (10, 20000), (0, 1): (30, 8000), (1, 1): (12, 18000), (1, 0): (30, 8000)}


def test_numaperf_beside_hmat_figures():
    args = ["-machine", "hmat=on"]
    for (i, t), (lat, bw) in sorted(FIGURES.items()):
        base = "hmat-lb,initiator=%d,target=%d,hierarchy=memory," % (i, t)
        args += ["-numa", base + "data-type=access-latency,latency=%d" % lat,
                 "-numa", base + "data-type=access-bandwidth,bandwidth=%dM" % bw]
    b = boot(boot_path="pvh", append="memboot.selftest=numaperf", qemu_args=_two_nodes(args))
    b.expect_ok()
    pairs = _pairs(b)
    _measured(b, pairs)
    for (i, t), r in pairs.items():
        # Each node's best initiator is its own node: its figures, beside
        # every initiator's measurement of that node.
        assert r["hmat"] is True and r["hmat_initiator_node"] == t, r
        assert (r["hmat_read_latency_ns"], r["hmat_read_bandwidth_mbs"]) == FIGURES[(t, t)], r
        assert r["distance"] == (10 if i == t else 20), r
        assert r["emulated"] is True, r
