"""Discovery: the NUMA topology and CPUs the kernel reports must match the
QEMU configuration exactly, and broken firmware tables must not crash, hang
or lose memory."""
import os
import struct
import tempfile

from guest import boot, records, usable_bytes

GIB = 1 << 30


def nodes(b):
    return sorted(b.all("node"), key=lambda n: n["node"])


def ranges(node):
    return [(int(s, 16), int(e, 16)) for s, e in node["mem"]]


def check_every_usable_byte_in_one_node(b):
    """The kernel's invariant, checked from the outside: node ranges are
    disjoint and add up to exactly the usable memory of the map."""
    all_ranges = sorted(r for n in nodes(b) for r in ranges(n))
    for (s1, e1), (s2, e2) in zip(all_ranges, all_ranges[1:]):
        assert e1 <= s2, f"ranges of two nodes overlap: {(s1, e1)} {(s2, e2)}"
    assert sum(e - s for s, e in all_ranges) == usable_bytes(b)
    assert sum(n["mem_bytes"] for n in nodes(b)) == usable_bytes(b)


def check_percpu_on_mem_node(b):
    """Each AP's stack and struct percpu lie in its memory node's RAM."""
    by_node = {n["node"]: ranges(n) for n in nodes(b)}
    for up in b.all("cpu_up"):
        if up["cpu"] == 0:
            continue            # the boot CPU's lives in the kernel image
        for key in ("percpu", "stack_bottom"):
            addr = int(up[key], 16)
            assert any(s <= addr < e for s, e in by_node[up["mem_node"]]), (up, key)


def test_one_node_without_srat():
    b = boot(cpus_per_node=2)
    b.expect_ok()
    numa = b.one("numa")
    assert (numa["nodes"], numa["cpus"], numa["source"], numa["slit"]) == (1, 2, "none", False)
    [n] = nodes(b)
    assert n["cpus"] == [0, 1] and n["distance"] == [10] and "pxm" not in n
    check_every_usable_byte_in_one_node(b)
    assert "NUMA: no SRAT" in b.console


def test_two_nodes_two_cpus_each():
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="1G")
    b.expect_ok()
    assert b.one("numa")["source"] == "srat"
    n0, n1 = nodes(b)
    assert (n0["pxm"], n0["cpus"], n1["pxm"], n1["cpus"]) == (0, [0, 1], 1, [2, 3])
    # q35 with 2 GiB: all RAM below 2 GiB; node 1 starts at 1 GiB.
    assert ranges(n0) == [(0x0, 0x9f000), (0x100000, 0x40000000)]
    assert ranges(n1)[0][0] == 0x40000000
    assert n0["distance"] == [10, 20] and n1["distance"] == [20, 10]   # no SLIT
    assert [(c["cpu"], c["apic_id"], c["node"]) for c in b.all("cpu")] == \
        [(0, 0, 0), (1, 1, 0), (2, 2, 1), (3, 3, 1)]
    assert b.one("smp")["cpus"] == 4
    check_every_usable_byte_in_one_node(b)
    check_percpu_on_mem_node(b)


def test_four_nodes_memoryless_cpuless_and_slit():
    dist = {(0, 1): 21, (0, 2): 31, (0, 3): 41, (1, 2): 15, (1, 3): 31, (2, 3): 21}
    args = ["-m", "3G", "-smp", "6,sockets=3,cores=2",
            "-object", "memory-backend-ram,id=m0,size=1G",
            "-object", "memory-backend-ram,id=m2,size=1G",
            "-object", "memory-backend-ram,id=m3,size=1G",
            "-numa", "node,nodeid=0,cpus=0-1,memdev=m0",
            "-numa", "node,nodeid=1,cpus=2-3",              # memoryless
            "-numa", "node,nodeid=2,memdev=m2",             # CPU-less
            "-numa", "node,nodeid=3,cpus=4-5,memdev=m3"]
    for (a, z), v in dist.items():
        args += ["-numa", f"dist,src={a},dst={z},val={v}"]
    b = boot(qemu_args=args)
    b.expect_ok()
    numa = b.one("numa")
    assert (numa["nodes"], numa["cpus"], numa["slit"]) == (4, 6, True)
    by_pxm = {n["pxm"]: n for n in nodes(b)}
    # Domains are renumbered densely in order of first appearance: the CPU
    # entries come first in QEMU's SRAT, so PXM 0, 1, 3 are nodes 0, 1, 2
    # and the CPU-less PXM 2 is node 3.
    assert {p: n["node"] for p, n in by_pxm.items()} == {0: 0, 1: 1, 3: 2, 2: 3}
    assert by_pxm[1]["mem"] == [] and by_pxm[1]["cpus"] == [2, 3]
    assert by_pxm[2]["cpus"] == [] and by_pxm[2]["mem_bytes"] > 0
    # The memoryless node allocates from the nearest node with memory: PXM 2
    # at distance 15.
    assert by_pxm[1]["mem_node"] == by_pxm[2]["node"]
    pxm_of = {n["node"]: n["pxm"] for n in nodes(b)}
    for n in nodes(b):
        for other, d in enumerate(n["distance"]):
            a, z = sorted((n["pxm"], pxm_of[other]))
            assert d == (10 if a == z else dist[(a, z)]), (n, other)
    assert b.one("smp")["cpus"] == 6
    check_every_usable_byte_in_one_node(b)
    check_percpu_on_mem_node(b)


def test_apic_id_gaps_on_two_nodes():
    args = ["-m", "2G", "-smp", "6,sockets=2,cores=3",
            "-object", "memory-backend-ram,id=m0,size=1G",
            "-object", "memory-backend-ram,id=m1,size=1G",
            "-numa", "node,nodeid=0,cpus=0-2,memdev=m0",
            "-numa", "node,nodeid=1,cpus=3-5,memdev=m1"]
    b = boot(qemu_args=args)
    b.expect_ok()
    cpus = [(c["cpu"], c["apic_id"], c["node"]) for c in b.all("cpu")]
    assert cpus == [(0, 0, 0), (1, 1, 0), (2, 2, 0), (3, 4, 1), (4, 5, 1), (5, 6, 1)]
    assert [u["apic_id"] for u in b.all("cpu_up")] == [0, 1, 2, 4, 5, 6]
    check_every_usable_byte_in_one_node(b)


def test_eight_cpus_on_two_nodes():
    b = boot(nodes=2, cpus_per_node=4, mem_per_node="1G")
    b.expect_ok()
    n0, n1 = nodes(b)
    assert (n0["cpus"], n1["cpus"]) == ([0, 1, 2, 3], [4, 5, 6, 7])
    assert records.cpu_list(b.one("smp")["online"]) == list(range(8))
    check_percpu_on_mem_node(b)


def test_uneven_memory_node_split_by_the_4g_hole():
    args = ["-m", "4G", "-smp", "2,sockets=2,cores=1",
            "-object", "memory-backend-ram,id=m0,size=3G",
            "-object", "memory-backend-ram,id=m1,size=1G",
            "-numa", "node,nodeid=0,cpus=0,memdev=m0",
            "-numa", "node,nodeid=1,cpus=1,memdev=m1"]
    b = boot(qemu_args=args)
    b.expect_ok()
    n0, n1 = nodes(b)
    # q35 puts low RAM up to 2 GiB, the rest above 4 GiB: node 0's 3 GiB
    # straddle the hole, node 1 follows it.
    assert ranges(n0)[-1] == (0x100000000, 0x140000000), n0
    assert ranges(n0)[-2][1] <= 0x80000000
    assert ranges(n1) == [(0x140000000, 0x180000000)], n1
    check_every_usable_byte_in_one_node(b)


def test_maxcpus_keeps_topology_but_starts_two():
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="1G", append="maxcpus=2")
    b.expect_ok()
    assert b.one("numa")["cpus"] == 4                    # all still known
    assert records.cpu_list(b.one("smp")["online"]) == [0, 1]


# --- SRAT injected through -acpitable: QEMU builds none without -numa -------

def _sdt(sig, body, rev=3):
    length = 36 + len(body)
    hdr = struct.pack("<4sIBB6s8sI4sI", sig, length, rev, 0, b"MEMBT ", b"TESTSRAT", 1,
                      b"MBT ", 1)
    csum = (-sum(hdr + body)) & 0xff
    return hdr[:9] + bytes([csum]) + hdr[10:] + body


def _srat(cpus, mems):
    body = struct.pack("<I8s", 1, b"\0" * 8)
    for apic, pxm in cpus:
        body += struct.pack("<BBBBIB3sI", 0, 16, pxm & 0xff, apic, 1, 0,
                            (pxm >> 8).to_bytes(3, "little"), 0)
    for pxm, start, length in mems:
        body += struct.pack("<BBIHQQIIQ", 1, 40, pxm, 0, start, length, 0, 1, 0)
    return _sdt(b"SRAT", body)


def _boot_with_srat(table, **kw):
    with tempfile.NamedTemporaryFile(suffix=".dat", delete=False) as f:
        f.write(table)
    try:
        return boot(qemu_args=["-m", "2G", "-smp", "2", "-acpitable", f"file={f.name}"], **kw)
    finally:
        os.unlink(f.name)


def test_injected_srat_overlapping_domains_falls_back_to_one_node():
    table = _srat([(0, 0), (1, 1)], [(0, 0, 0x60000000), (1, 0x40000000, 0x40000000)])
    b = _boot_with_srat(table)
    done = b.expect_ok()
    numa = b.one("numa")
    assert (numa["nodes"], numa["source"]) == (1, "fallback"), numa
    assert done["warnings"] >= 1
    [n] = nodes(b)
    assert n["cpus"] == [0, 1]
    check_every_usable_byte_in_one_node(b)
    assert b.one("smp")["cpus"] == 2


def test_injected_srat_with_gaps_and_a_missing_cpu():
    # CPU 1 is absent, an unknown APIC 9 is listed, memory above 1.5 GiB is in
    # no domain: the CPU goes to node 0, APIC 9 is ignored, the orphan memory
    # goes to the node below it; nothing is lost.
    table = _srat([(0, 0), (9, 1)], [(0, 0, 0x40000000), (1, 0x40000000, 0x20000000)])
    b = _boot_with_srat(table)
    done = b.expect_ok()
    numa = b.one("numa")
    assert (numa["nodes"], numa["source"]) == (2, "srat"), numa
    n0, n1 = nodes(b)
    assert n0["cpus"] == [0, 1] and n1["cpus"] == []
    assert ranges(n1)[-1][1] > 0x60000000          # the orphan range joined node 1
    assert done["warnings"] >= 3, done
    check_every_usable_byte_in_one_node(b)
    assert b.one("smp")["cpus"] == 2


def test_injected_srat_with_a_zero_length_entry():
    # QEMU recomputes the checksum of -acpitable tables, so damage the body:
    # a zero-length entry after the first CPU ends the parse; with no memory
    # affinity left the SRAT cannot be trusted and one node remains.
    body = _srat([(0, 0)], [])[36:] + bytes([1, 0]) + bytes(38)
    b = _boot_with_srat(_sdt(b"SRAT", body))
    done = b.expect_ok()
    numa = b.one("numa")
    assert (numa["nodes"], numa["source"]) == (1, "fallback"), numa
    assert done["warnings"] >= 1, done
    check_every_usable_byte_in_one_node(b)
    assert b.one("smp")["cpus"] == 2
