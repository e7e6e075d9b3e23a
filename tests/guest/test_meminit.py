"""Memory initialisation: every policy on every test topology, the census
after each boot, descriptor arrays on their own node, the allocation
self-test. Correctness only; speed is measured by benchmarks."""
from guest import boot

FOUR_NODES = ["-m", "3G",
              "-object", "memory-backend-ram,id=m0,size=1G",
              "-object", "memory-backend-ram,id=m2,size=1G",
              "-object", "memory-backend-ram,id=m3,size=1G"]


def _four_nodes(cpus_per_node):
    c = cpus_per_node
    # PXM 1 has CPUs and no memory, PXM 2 memory and no CPUs.
    return FOUR_NODES + [
        "-smp", f"{3 * c},sockets=3,cores={c}",
        "-numa", f"node,nodeid=0,cpus=0-{c - 1},memdev=m0",
        "-numa", f"node,nodeid=1,cpus={c}-{2 * c - 1}",
        "-numa", "node,nodeid=2,memdev=m2",
        "-numa", f"node,nodeid=3,cpus={2 * c}-{3 * c - 1},memdev=m3"]


def check_memmap(b, nodes):
    """Descriptors only for present memory, in each node's own memory."""
    pieces = b.all("memmap_piece")
    for m in b.all("memmap"):
        nid = m["node"]
        own = [(int(a, 16), int(z, 16)) for a, z in nodes[nid]["mem"]]
        present = sum((z - a) >> 12 for a, z in own)
        assert m["present_pages"] == present, (m, own)
        # At least a descriptor per present page; rounding out to 4 MiB
        # blocks costs at most 2 x 16 KiB a range, plus 1% slack.
        need = m["desc_bytes"] * present
        assert need <= m["bytes"] <= need * 1.01 + len(own) * 32768 + 4096, m
        mine = [p for p in pieces if p["node"] == nid]
        assert sum(int(p["end"], 16) - int(p["start"], 16) for p in mine) == m["bytes"], m
        for p in mine:
            s, e = int(p["start"], 16), int(p["end"], 16)
            assert any(a <= s and e <= z for a, z in own), (p, own)


def check_meminit(b, policy):
    b.expect_ok()
    nodes = {n["node"]: n for n in b.all("node")}
    inits = {i["node"]: i for i in b.all("node_init")}
    with_memory = {k for k, n in nodes.items() if n["mem_bytes"]}
    assert set(inits) == with_memory, (inits, nodes)
    for nid, init in inits.items():
        assert init["policy"] == policy, init
        assert init["free_pages"] > 0 and init["threads"] >= 1, init
        if policy == "serial":
            assert init["early_pages"] == 0 and init["pages"] == init["free_pages"], init
        else:
            assert init["pages"] + init["early_pages"] == init["free_pages"], init
        mm = next(m for m in b.all("memmap") if m["node"] == nid)
        assert init["desc_bytes"] == mm["bytes"], (init, mm)
    check_memmap(b, nodes)
    probes = b.all("store_probe")
    for m in b.all("memmap"):
        # Plain stores for arrays that fit the LLC (QEMU's CPU models
        # report one); a larger one gets what the boot's store probe timed
        # faster (docs/records.md, store_probe).
        fits = m["llc_bytes"] and m["desc_bytes"] * m["present_pages"] <= m["llc_bytes"]
        if fits:
            assert m["store"] == "plain", m
        else:
            assert len(probes) == 1, probes
            assert m["store"] == probes[0]["choice"], (m, probes)
    for p in probes:
        assert p["bytes"] > 0 and p["plain_ns"] > 0 and p["nt_ns"] > 0, p
        # Plain only when it was faster by the record's margin (mm/memmap.h);
        # under TCG both kinds time within a few per cent of each other.
        faster = p["plain_ns"] * 100 < p["nt_ns"] * (100 - p["plain_margin_pct"])
        assert 0 < p["plain_margin_pct"] < 100, p
        assert p["choice"] == ("plain" if faster else "nt"), p
    # Every page accounted for, at boot and at the end.
    censuses = b.all("census")
    assert [c["when"] for c in censuses][0] == "boot" and censuses[-1]["when"] == "end"
    for c in censuses:
        assert c["lost"] == 0, c
        parts = sum(c[k] for k in ("free", "pcp", "reserved", "memmap", "pagetable", "huge", "bad_mem",
                                   "allocated", "hole"))
        assert parts == c["pages"], c
    # The census's free pages are the memory physmem left free.
    assert censuses[0]["free"] == sum(i["free_pages"] for i in inits.values())
    check_usable(b, inits)
    return inits


def phase_start_precise(b, phase):
    """The phase's start on the clock's precise figure. After an error line
    the ring drains at once (docs/console.md), so a phase that ended before
    phase clockcheck was rendered on the figure in force then: the last one
    a clock_check adopted before the phase's record in the log, else the
    first figure (the first clock_check's tsc_hz). Converted here to the
    figure node_init's times use, the last one adopted."""
    if b.one("done")["errors"] == 0:
        return phase["start_ns"]
    at = next(i for i, r in enumerate(b.records) if r is phase)
    checks = [(i, r) for i, r in enumerate(b.records) if r["event"] == "clock_check"]
    if not checks:
        return phase["start_ns"]
    adopted = [(i, r["hz"]) for i, r in checks if r.get("adopted")]
    then = next((hz for i, hz in reversed(adopted) if i < at), checks[0][1]["tsc_hz"])
    final = adopted[-1][1] if adopted else then
    return phase["start_ns"] * then // final + 1


def check_usable(b, inits):
    """usable_ns (docs/measuring.md): each node's wait + work add up to its
    usable time; the boot's is after the last node's work and before done.
    Exact up to the nanoseconds of rounding, whatever the host's load."""
    phase = next(p for p in b.all("phase") if p["name"] == "meminit")
    done = b.one("done")
    summary = b.one("summary")
    assert summary["usable_ns"] == done["usable_ns"], (summary, done)
    for init in inits.values():
        assert init["wait_ns"] + init["work_ns"] == init["usable_ns"], init
        assert init["work_ns"] >= init["ns"], init
        assert 0 < init["usable_ns"] <= phase["ns"], (init, phase)
    # The instant node times count from: done's usable time less the
    # latest node's (both end at the same clock reading), inside the phase.
    origin = done["usable_ns"] - max(i["usable_ns"] for i in inits.values())
    assert phase_start_precise(b, phase) <= origin + 2, (origin, phase)
    for init in inits.values():
        # Its memory is in when its last chunk ends; its wait ends at its
        # first piece of work, the first chunk or, earlier, the boot CPU's
        # early section.
        assert init["end_ns"] <= origin + init["usable_ns"] + 2, (origin, init)
        assert origin + init["wait_ns"] <= init["start_ns"] + 2, (origin, init)
    last_work = max(i["end_ns"] for i in inits.values())
    assert last_work <= done["usable_ns"] + 2 and done["usable_ns"] < done["total_ns"], \
        (last_work, done)
    assert done["usable_ns"] <= phase["start_ns"] + phase["ns"], (done, phase)
    # The APs' busy time covers the chunks they ran (each AP times its
    # whole work, the chunks inside it), and with the idle time makes up
    # aps x the phase (docs/records.md, phase). A work is counted in the
    # phase in which it returns: an AP whose vCPU the host descheduled
    # after its last chunk, before it returned, is counted in the next
    # phase, so the two phases together cover the chunks.
    ap_chunks = sum(c["busy_ns"] for c in b.all("node_cpu") if c["cpu"] != 0)
    names = [p["name"] for p in b.all("phase")]
    after = b.all("phase")[names.index("meminit") + 1]
    assert phase["ap_busy_ns"] + after["ap_busy_ns"] + 1000 >= ap_chunks, (phase, after, ap_chunks)
    if phase["aps"] and phase["ap_busy_ns"] <= phase["aps"] * phase["ns"]:
        assert abs(phase["ap_busy_ns"] + phase["ap_idle_ns"] - phase["aps"] * phase["ns"]) <= 2000, phase


def _make(policy, topo, cpus):
    def test():
        if topo == 1:
            b = boot(cpus_per_node=cpus, mem_per_node="1G", append=f"memboot.init={policy}")
        elif topo == 2:
            b = boot(nodes=2, cpus_per_node=cpus, mem_per_node="1G",
                     append=f"memboot.init={policy}")
        else:
            b = boot(append=f"memboot.init={policy}", qemu_args=_four_nodes(cpus))
        inits = check_meminit(b, policy)
        if policy != "serial" and topo != 4:
            # Each node's job was offered to the node's own CPUs; threads
            # counts those that got a chunk, which a slow vCPU may not.
            assert all(i["cpus"] == cpus and 1 <= i["threads"] <= cpus
                       for i in inits.values()), inits
    test.__name__ = f"test_{policy}_{topo}_nodes_{cpus}_cpus"
    return test


for _policy in ("serial", "deferred", "lazy"):
    for _topo, _cpus in ((1, 1), (1, 4), (2, 2), (2, 1), (4, 2), (4, 1)):
        _t = _make(_policy, _topo, _cpus)
        globals()[_t.__name__] = _t


def test_deferred_two_nodes_of_2g_four_cpus_each():
    b = boot(nodes=2, cpus_per_node=4, mem_per_node="2G")
    inits = check_meminit(b, "deferred")
    assert inits[0]["early_pages"] >= 32768


def test_arrays_larger_than_the_llc_use_the_probed_store():
    # Without an L3 (QEMU's l3-cache=off) the last-level cache is the L2,
    # smaller than a 1 GiB node's 4 MiB array: the boot times both stores
    # (store_probe, on an AP of node 0) and every array takes the faster;
    # the census checks that what they wrote is right either way.
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="1G", cpu="max,l3-cache=off")
    check_meminit(b, "deferred")
    probe = b.one("store_probe")
    llc = b.all("memmap")[0]["llc_bytes"]
    # An LLC of plain stores first, then a pass of each kind of half an LLC
    # (at least 1 MiB), as far as node 0's largest range goes (4 MiB of
    # descriptors in all, a little less for its holes).
    # Node 0's idle AP (its other CPU is the boot CPU, busy building arrays).
    assert probe["cpu"] == 1 and probe["cpus"] == 1, probe
    assert probe["warm_bytes"] == llc, (probe, llc)
    assert 0 < probe["bytes"] <= max(llc // 2, 1 << 20), probe
    assert probe["warm_bytes"] + 2 * probe["bytes"] <= 4 << 20, probe
    for m in b.all("memmap"):
        assert m["store"] == probe["choice"] and 0 < m["llc_bytes"] < 4 << 20, m


def test_store_probe_runs_on_all_idle_aps_of_the_node():
    # Memory init runs on all of a node's CPUs, so the probe times both
    # stores on all of node 0's idle APs at once (CPUs 1-3; the boot CPU
    # builds the arrays meanwhile).
    b = boot(nodes=2, cpus_per_node=4, mem_per_node="1G", cpu="max,l3-cache=off")
    check_meminit(b, "deferred")
    probe = b.one("store_probe")
    assert probe["cpu"] == 1 and probe["cpus"] == 3, probe
    assert probe["plain_ns"] > 0 and probe["nt_ns"] > 0, probe


def test_early_allocations_grow_the_early_section():
    # 50000 early pages do not fit the first 32768-page section: the
    # allocator grows it on demand, and the parallel part does the rest.
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="1G",
             append="memboot.early_alloc_pages=50000")
    inits = check_meminit(b, "deferred")
    assert inits[0]["early_pages"] >= 50000 + 1000, inits[0]


def test_init_threads_one_and_all():
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="1G", append="memboot.init_threads=1")
    assert all(i["threads"] == 1 for i in check_meminit(b, "deferred").values())
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="1G", append="memboot.init_threads=all")
    # Every CPU is offered to each node, but one AP may still be measuring
    # the clock when memory init starts (posted at the end of phase smp,
    # kernel/init/clockcheck.c), and a busy CPU is not offered: 3 or 4.
    inits = check_meminit(b, "deferred").values()
    assert all(3 <= i["cpus"] <= 4 and 1 <= i["threads"] <= i["cpus"] for i in inits), inits


def test_trace_prints_every_chunk_on_node_cpus():
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="1G", append="memboot.trace")
    inits = check_meminit(b, "deferred")
    cpu_node = {c["cpu"]: c["node"] for c in b.all("cpu")}
    chunks = b.all("chunk")
    assert chunks
    for c in chunks:
        assert cpu_node[c["cpu"]] == c["node"], c          # node-local CPUs only
    for nid, init in inits.items():
        done = sum(c["end_pfn"] - c["start_pfn"] for c in chunks if c["node"] == nid)
        # Chunks cover the node's deferred range, holes and reserved parts
        # included: at least the pages initialised.
        assert done >= init["pages"], (nid, done, init)


def test_node_timeline_says_which_cpu_did_what_and_when():
    """node_init's interval holds every chunk of the node; threads is the
    CPUs seen in the chunks, all of them the node's own; node_cpu's busy
    time is the sum of that CPU's chunks and busy + wait fill the interval;
    the boot CPU's early section is timed; all inside the meminit phase."""
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="1G", append="memboot.trace")
    inits = check_meminit(b, "deferred")
    cpu_node = {c["cpu"]: c["node"] for c in b.all("cpu_up")}
    phase = [p for p in b.all("phase") if p["name"] == "meminit"][0]
    chunks = [c for c in b.all("chunk") if c.get("job") == "meminit"]
    for nid, init in inits.items():
        mine = [c for c in chunks if c["node"] == nid]
        assert mine, nid
        start, end = init["start_ns"], init["end_ns"]
        assert phase["start_ns"] <= start <= end <= phase["start_ns"] + phase["ns"], (init, phase)
        assert abs(init["ns"] - (end - start)) <= 2, init   # separate roundings
        for c in mine:
            # chunk times are whole ns cut from the same TSC reads: 1 ns slack
            assert start <= c["start_ns"] and c["start_ns"] + c["ns"] <= end + 1, (c, init)
            assert cpu_node[c["cpu"]] == nid, c
        ran = {c["cpu"] for c in mine}
        assert init["threads"] == len(ran), (init, ran)
        assert init["cpus"] == 2, init
        rows = {r["cpu"]: r for r in b.all("node_cpu") if r["node"] == nid}
        assert sorted(rows) == sorted(c for c, n in cpu_node.items() if n == nid), rows
        for cpu, r in rows.items():
            by_cpu = [c for c in mine if c["cpu"] == cpu]
            assert r["chunks"] == len(by_cpu), r
            assert r["busy_ns"] == sum(c["ns"] for c in by_cpu), r
            assert abs(r["busy_ns"] + r["wait_ns"] - (end - start)) <= 2, (r, init)
    # The boot CPU (node 0) did an early section before the parallel part.
    assert inits[0]["early_ns"] > 0 and inits[0]["early_pages"] > 0, inits[0]
    assert inits[1]["early_ns"] == 0, inits[1]


def test_lazy_reports_first_allocation_cost():
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="1G", append="memboot.init=lazy")
    check_meminit(b, "lazy")
    lz = b.one("lazy")
    assert lz["allocs"] == 64 and lz["fill_allocs"] >= 1 and lz["filled_pages"] >= 511, lz
    assert lz["first_alloc_ns"] > 0


def test_allocation_selftest_on_every_cpu():
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="1G", append="memboot.selftest=alloc")
    check_meminit(b, "deferred")
    t = b.one("alloc_test")
    # threads counts the CPUs that ran chunks: all four are offered, but on a
    # loaded host a vCPU may wake after the others took every chunk.
    assert t["failures"] == 0 and 2 <= t["threads"] <= 4, t
    assert t["free_after"] == t["free_before"] and t["pages"] > 4096, t
    assert t["cross_cpu_frees"] > 0, t
    assert [c["when"] for c in b.all("census")] == ["boot", "alloc-held", "alloc", "end"]
    assert b.one("selftest") == {"event": "selftest", "name": "alloc", "ok": True}


def test_bad_init_values_keep_defaults():
    b = boot(append="memboot.init=eager memboot.init_threads=zero")
    done = b.expect_ok()
    assert done["errors"] == 2, done
    check_meminit(b, "deferred")


def test_a_lost_page_fails_the_boot_and_is_named():
    b = boot(append="memboot.fault=lose-page")
    done = b.expect_status(5)
    assert done["reason"] == "pages unaccounted for"
    end = b.all("census")[-1]
    assert end["when"] == "end" and end["lost"] == 1, end
    import re
    m = re.search(r"losing pfn (0x[0-9a-f]+) on purpose", b.console)
    pfn = int(m.group(1), 16)
    assert f"pfns [{pfn:#x}-{pfn + 1:#x}) not accounted for" in b.console, b.tail()


def check_reservation_types(alloc):
    """Page types come from physmem's reservation types, not from names: the
    census finds each typed reservation again, page for page."""
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="2G", boot_path="pvh",
             append=f"memboot.alloc={alloc} hugepagesz=1G hugepages=1:1")
    b.expect_ok()
    kept = b.one("physmem_retire")
    types = kept["types"]
    assert kept["reserved_bytes"] == sum(types.values()), kept
    assert types["kernel"] > 0 and types["page0"] == 4096, types
    assert types["hugetlb"] == 1 << 30, types
    census = [c for c in b.all("census") if c["when"] == "boot"][0]
    assert census["lost"] == 0, census
    # memmap and page-table reservations become their own page types...
    assert census["memmap"] * 4096 == types["memmap"], (census, types)
    assert census["pagetable"] * 4096 == types["pagetable"], (census, types)
    # ...the 1 GiB page is a huge page, never reserved...
    assert census["huge"] * 4096 == types["hugetlb"], (census, types)
    # ...and every other type is plain reserved.
    rest = sum(v for k, v in types.items() if k not in ("memmap", "pagetable", "hugetlb"))
    assert census["reserved"] * 4096 == rest, (census, types)


def test_reservation_types_buddy():
    check_reservation_types("buddy")


def test_reservation_types_bitmap():
    check_reservation_types("bitmap")
