"""Bad input at the kernel's edges: a PVH command line longer than QEMU's
PVH option ROM holds, a serial speed the 16550's divisor latch cannot make,
the largest memboot.tsc_skew, and guests too small to boot. Each gets a
message naming the problem and the limit, and a safe fallback or a refusal
before any work."""
import os
import subprocess

from guest import ROOT, boot


def _tool_floors():
    """tools/memboot's MIN_MEM_PER_NODE, {(boot, firmware): bytes}."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("memboot_cli_floors",
                                                  os.path.join(ROOT, "tools", "memboot"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    cli = importlib.util.module_from_spec(spec)
    loader.exec_module(cli)
    return cli.MIN_MEM_PER_NODE


MIN_MEM_PER_NODE = _tool_floors()

MEMBOOT = os.path.join(ROOT, "tools", "memboot")


def test_long_pvh_command_line_is_cut_not_written_over_the_start_info():
    for n in (4200, 8000):
        b = boot(boot_path="pvh", append="memboot.exit=auto " + "x" * n)
        b.expect_ok()
        boot_rec = b.one("boot")
        assert boot_rec["cmdline_dropped"].startswith("xxxx"), boot_rec
        assert "cmdline: the PVH command line does not fit in" in b.console, b.tail()
        assert "QEMU's PVH option ROM holds 4096" in b.stderr, b.stderr


def test_baud_the_divisor_latch_cannot_hold_is_refused():
    b = boot(boot_path="pvh", append="console=ttyS0,1")
    done = b.expect_ok()
    assert done["errors"] == 1, done
    assert "16-bit latch" in b.console and "65535" in b.console, b.tail()
    assert "keeping the default" in b.console, b.tail()
    assert b.one("console")["serial"] == ["ttyS0"]


def test_largest_tsc_skew_prints_no_wrong_figure_as_good():
    """memboot.tsc_skew=2^40 on CPU 1, node 1's only CPU: node 1's memory
    init runs on CPU 1's counter. Every figure that compares it with the
    boot CPU's is marked or left out unless the check corrected it."""
    b = boot(nodes=2, cpus_per_node=1, mem_per_node="512M",
             append="memboot.tsc_skew=%d" % (1 << 40))
    done = b.expect_ok()
    cpu1 = [c for c in b.all("cpu_up") if c["cpu"] == 1][0]
    verdict = cpu1["tsc_sync"]
    nodes = {n["node"]: n for n in b.all("node_init")}
    summary = b.one("summary")
    if verdict == "unreliable":      # always under TCG: see docs/cmdline.md
        assert "up_ns" not in cpu1, cpu1
        assert nodes[1]["times_reliable"] is False and nodes[1]["unreliable_cpu"] == 1, nodes
        assert summary["usable_reliable"] is False and done["usable_reliable"] is False
        assert "its times UNRELIABLE: CPU 1" in b.console, b.tail()
        assert "memory usable at" in b.console and "UNRELIABLE (a CPU's TSC" in b.console
        assert b.one("smp").get("slowest_cpu") != 1
    else:
        assert verdict in ("ok", "corrected"), cpu1
    # Nothing printed as good is off by the skew: a good figure fits the boot.
    for n in nodes.values():
        if n["times_reliable"]:
            assert n["usable_ns"] <= done["total_ns"] and n["ns"] <= done["total_ns"], n
    if summary.get("usable_reliable", True):
        assert summary["usable_ns"] <= done["total_ns"], summary
    for c in b.all("cpu_up"):
        assert c.get("up_ns", 0) <= done["total_ns"], c


def test_least_memory_boots_and_less_is_named_too_small():
    """The least --mem-per-node tools/memboot takes boots (its floors: GRUB
    under SeaBIOS and PVH);
    one step below, with -m given to QEMU directly past the tool's check,
    the kernel says the guest is too small instead of blaming the loader."""
    for path, key in ((None, ("grub", "bios")), ("pvh", ("pvh", "bios"))):
        size = "%dM" % (MIN_MEM_PER_NODE[key] >> 20)
        b = boot(boot_path=path, mem_per_node=size)
        b.expect_ok()
        for c in b.all("census"):
            assert c["lost"] == 0, c
    b = boot(boot_path="pvh", qemu_args=["-m", "4M"])
    b.expect_status(3)
    assert "the guest is too small for the kernel" in b.console, b.tail()
    assert "the loader put it there" not in b.console, b.tail()


def _msgs(b, kind):
    return [r["msg"] for r in b.all(kind)]


def test_bad_ranges_at_the_top_or_over_all_memory_boot_on():
    """Ranges named bad whose page-rounded end wrapped past 2^64 (a panic in
    physmem_reserve()) are refused at the key, naming the last page; ranges
    that would leave the kernel no memory for its page tables and page
    descriptors (status 1 before) are not kept out, with a warning saying
    what would be left; the boot goes on and the census is clean, with no
    page kept out as bad."""
    refused = "(the address space's last page is never memory)"
    starving = "named bad on the command line would leave the kernel"
    for append, kind, words in (
            ("memboot.badram=0xffffffffffffffff", "error", refused),
            ("memmap=1$0xfffffffffffff001", "error", refused),
            ("memboot.badram=0x1000-0xffffffffffffffff", "warning",
             "[mem 0x0000001000-0xffffffffffffefff] " + starving),
            ("memboot.badram=0-0x100000000", "warning",
             "[mem 0x0000000000-0x00ffffffff] " + starving),
            ("memmap=512M$0", "warning", "[mem 0x0000000000-0x001fffffff] " + starving)):
        b = boot(boot_path="pvh", nodes=2, mem_per_node="256M", append=append)
        done = b.expect_ok()
        msgs = _msgs(b, kind)
        assert done[kind + "s"] == 1 == len(msgs), (append, msgs, b.tail())
        assert words in msgs[0], (append, msgs)
        if kind == "warning":
            assert "KiB free, 0 KiB of it below 4 GiB, where it needs" in msgs[0], msgs
            assert "not kept out; this boot uses it" in msgs[0], msgs
        for c in b.all("census"):
            assert c["lost"] == 0 and c["bad_mem"] == 0, (append, c)


def test_memtest_inject_without_memtest_is_named():
    """memboot.memtest_inject= has nothing to act on without memtest=N: a
    warning says so (it was silent), and nothing is kept out."""
    b = boot(boot_path="pvh", nodes=2, mem_per_node="256M",
             append="memboot.memtest_inject=0x8000008:0x1,0x10000010:0x2")
    done = b.expect_ok()
    msgs = _msgs(b, "warning")
    assert done["warnings"] == 1 == len(msgs), msgs
    assert ("memboot.memtest_inject= names 2 words, but memtest is off (memtest=N): "
            "nothing is tested, the injected bits have no effect") in msgs[0], msgs
    assert b.all("memtest") == []
    for c in b.all("census"):
        assert c["lost"] == 0 and c["bad_mem"] == 0, c


def test_map_as_used_is_listed_after_memmap():
    """memmap=nn$ss keeps its range out (census bad_mem) and the map as used
    is listed after the firmware's, as Linux prints its user-defined map:
    the range reserved there, the rest as the firmware said. Without such
    a key there is no second listing."""
    from guest import check_map_invariants
    b = boot(boot_path="pvh", nodes=2, mem_per_node="256M",
             append="memmap=4M$0x8000000 memboot.badram=0xff00000-0x10000000")
    b.expect_ok()
    firmware = [(int(r["start"], 16), int(r["end"], 16), r["type"]) for r in b.all("mem_range")]
    used = b.all("user_range")
    check_map_invariants(used)
    assert "user-defined physical RAM map (memmap=nn$ss, memboot.badram=):" in b.console
    assert "user: [mem 0x0000000008000000-0x00000000083fffff] reserved" in b.console, b.tail()
    got = [(int(r["start"], 16), int(r["end"], 16), r["type"]) for r in used]
    out = [(0x8000000, 0x8400000), (0xff00000, 0x10000000)]
    for s, e in out:
        assert (s, e, "reserved") in got, got
    # Every other byte as the firmware's map has it.
    def type_at(ranges, a):
        return next((t for s, e, t in ranges if s <= a < e), None)
    for s, e, t in firmware + got:
        for a in (s, e - 4096):
            kept_out = any(os_ <= a < oe for os_, oe in out)
            assert type_at(got, a) == ("reserved" if kept_out else type_at(firmware, a)), \
                (hex(a), got, firmware)
    for c in b.all("census"):
        assert c["lost"] == 0 and c["bad_mem"] == (4 << 20 | 1 << 20) // 4096, c
    plain = boot(boot_path="pvh", nodes=2, mem_per_node="256M")
    plain.expect_ok()
    assert plain.all("user_range") == [] and "user-defined" not in plain.console


def test_null_pointer_store_faults():
    """A store to address 8 (a field of a NULL structure pointer, as an
    allocator with that bug makes on every allocation) passed unnoticed:
    page 0 was mapped writable. It is unmapped now, as Linux leaves it: the
    store faults, the fault names the address, the boot ends with status 2
    (before: 'did not fault', status 1)."""
    b = boot(boot_path="pvh", nodes=2, mem_per_node="256M", append="memboot.fault=null-write")
    b.expect_status(2)
    assert "fault: storing to address 0x8 (a field of a NULL pointer) on purpose" in b.console
    assert "#PF page fault" in b.console, b.tail()
    assert "page fault address (CR2) 0x8: kernel write of a not-present page" in b.console, \
        b.tail()
