"""Bad input that used to get through: a command line longer than the
kernel keeps, empty quoted words, hugepages= after a bad size, messages that
named the wrong thing, and errors that only a count in `done` revealed.
Each boot asserts on records (and, for escaping, on the raw console)."""
import os
import subprocess
import tempfile

from guest import MEMBOOT, ROOT, boot, records

CMDLINE_KEPT = 2047          # BOOTINFO_CMDLINE_BYTES - 1


def _filler(n):
    """n bytes of harmless words (memboot.trace=0 is the default)."""
    word = "memboot.trace=0 "
    s = word * (n // len(word))
    return s + " " * (n - len(s))


def test_long_fw_cfg_line_drops_the_cut_word_and_keeps_boot_keys():
    # GRUB's own line is empty, so the kernel's line is the fw_cfg words:
    # "maxcpus=3" ends exactly where the kernel's buffer does, so a cut
    # would read maxcpus=30 as maxcpus=3 (and lose the words after it).
    pad = _filler(CMDLINE_KEPT - len("maxcpus=3"))
    b = boot(cpus_per_node=4, append=pad + "maxcpus=30 memboot.init=serial")
    b.expect_ok()
    boot_rec = b.one("boot")
    # Every key of the boot record survives the long line.
    for key in ("tsc_hz", "map_source", "map_entries", "rsdp"):
        assert key in boot_rec, boot_rec
    assert boot_rec["cmdline_dropped"] == "maxcpus=30", boot_rec
    assert boot_rec["cmdline_record_cut"] is True
    assert "maxcpus" not in boot_rec["cmdline"]
    # The cut word was not applied: all four CPUs are up.
    assert b.one("smp")["cpus"] == 4
    warnings = [r["msg"] for r in b.all("warning")]
    assert any("does not fit in 2047 bytes; its words from 'maxcpus=30' on are dropped"
               in m for m in warnings), warnings


def test_long_pvh_line_drops_the_cut_word():
    pad = " " * (CMDLINE_KEPT - len("maxcpus=3"))
    b = boot(cpus_per_node=4, boot_path="pvh", append=pad + "maxcpus=30 nosmp")
    b.expect_ok()
    assert b.one("boot")["cmdline_dropped"].startswith("maxcpus=3"), b.one("boot")
    assert b.one("smp")["cpus"] == 4


def test_empty_quoted_word_does_not_end_the_line():
    b = boot(cpus_per_node=2, append='"" nosmp')
    b.expect_ok()
    assert b.one("smp")["cpus"] == 1
    assert any('empty word ("") ignored' in r["msg"] for r in b.all("warning"))


def test_hugepages_after_invalid_size_is_ignored():
    b = boot(mem_per_node="2G",
             append="hugepagesz=1G hugepages=1 hugepagesz=3G hugepages=4")
    done = b.expect_ok()
    pools = {(h["node"], h["size_bytes"]): h for h in b.all("hugetlb")}
    assert pools[(0, 1 << 30)]["requested"] == 1, pools
    assert (0, 2 << 20) not in pools, pools
    assert done["errors"] == 2, done
    assert any("it follows an invalid one, so it is ignored" in r["msg"]
               for r in b.all("error"))


def test_messages_name_what_the_user_wrote():
    b = boot(cpus_per_node=2, append="nosmp")
    b.expect_ok()
    assert "smp: nosmp: leaving 1 of 2 CPUs down" in b.console
    assert "maxcpus=1" not in b.console
    # A fault that needs a second CPU, on one: an error, not a panic.
    b = boot(append="memboot.fault=ap-ud")
    done = b.expect_ok()
    assert done["errors"] == 1, done
    assert "memboot.fault=ap-ud needs a second CPU; nothing injected" in b.console
    assert "did not fault" not in b.console


def test_command_line_bytes_are_printed_escaped():
    b = boot(append="x\x1b[2Jy=\x07")
    b.expect_ok()
    assert "\x1b" not in b.console and "\x07" not in b.console
    assert "unknown parameter 'x\\x1b[2Jy' ignored" in b.console


def test_errors_reach_the_tools():
    b = boot(append="memboot.init=lazzy")
    done = b.expect_ok()
    errors = b.all("error")
    assert len(errors) == 1 == done["errors"], (errors, done)
    assert "bad value 'lazzy' for 'memboot.init'" in errors[0]["msg"]
    assert "memboot: kernel error: cmdline: bad value 'lazzy'" in b.stderr
    # --strict turns any warning or error into a failing exit.
    iso = os.environ.get("MEMBOOT_ISO") or os.path.join(ROOT, "build", "debug", "memboot.iso")
    proc = subprocess.run([MEMBOOT, "run", "--iso", iso, "--strict", "--json",
                           "--append", "memboot.init=lazzy"],
                          capture_output=True, text=True, timeout=150)
    assert proc.returncode == 65, proc.stderr
    # One #GP is one error, not one per register line.
    b = boot(append="memboot.fault=gp")
    done = b.expect_status(2)
    assert done["errors"] == 1, done
    assert len(b.all("error")) == 1


def test_smp_timeout_of_1ms_leaves_a_consistent_machine():
    # With 1 ms, some APs answer and some are given up on, differently each
    # run. Whatever the split, the two sides agree (one compare-and-swap
    # decides), no page is lost, the job runner uses exactly the CPUs
    # online, and a trampoline an abandoned AP may still run stays reserved.
    b = boot(cpus_per_node=6, append="memboot.smp_timeout_ms=1 memboot.selftest=jobs")
    done = b.expect_ok()
    smp = b.one("smp")
    assert smp["cpus"] + smp["failed"] == 6, smp
    assert len(records.cpu_list(smp["online"])) == smp["cpus"]
    assert done["errors"] == smp["failed"], (done, smp)
    assert all(j["bad_units"] == 0 for j in b.all("job"))
    assert all(c["lost"] == 0 for c in b.all("census"))
    kept = "stays reserved" in b.console
    assert kept == (smp["failed"] > 0), b.tail()


def test_cpu_without_long_mode_or_sse_ends_with_done():
    for cpu, reason, line in (
            ("qemu32", "cpu: no 64-bit long mode", "has no 64-bit long mode"),
            ("max,-sse,-sse2", "cpu: no SSE2", "has no FXSR/SSE/SSE2")):
        b = boot(cpu=cpu)
        done = b.expect_status(1)
        assert done["reason"] == reason, done
        assert b.records == [done], b.records       # the only record, the last
        assert line in b.console, b.tail()


def test_kernel_image_against_the_memory_map():
    # QEMU -kernel with a few MiB: SeaBIOS's ACPI tables sit in reserved
    # memory where .bss would be cleared (4M), or .bss runs past RAM (3M).
    # Refused before the first write, with a message and status 3.
    for mem in ("4M", "3M"):
        b = boot(boot_path="pvh", qemu_args=["-m", mem])
        done = b.expect_status(3)
        assert done["reason"] == "boot: the kernel image does not fit the memory map", done
        assert b.records == [done]
        assert "cannot boot" in b.console, b.tail()


def test_selftests_sized_to_free_memory():
    # hugepages=110 of 256 MiB left about 30 MiB: the allocation test takes
    # a share of what is free, instead of failing on 'out of memory'.
    b = boot(mem_per_node="256M", append="hugepages=110 memboot.selftest=alloc,jobs")
    b.expect_ok()
    t = b.one("alloc_test")
    assert t["failures"] == 0 and t["free_after"] == t["free_before"], t
    assert t["pages"] <= t["free_before"] // 2, t
    # Nearly everything in the pool: too little to run it is a skip.
    b = boot(mem_per_node="256M", append="hugepages=200 memboot.selftest=alloc")
    b.expect_ok()
    assert b.one("selftest") == {"event": "selftest", "name": "alloc", "ok": True,
                                 "skipped": True, "reason": "not enough memory"}
    assert "selftest alloc: skipped: not enough memory" in b.console
    b = boot(append="memboot.selftest=alloc", qemu_args=["-m", "48M"])
    b.expect_ok()


def _bench_cells(b):
    return {(r["row"], r["locks"]): r for r in b.all("pt_bench")}


def _check_bench_fits(b, asked_mib):
    """Every cell ran within free memory, or was skipped with a reason; no
    page lost; a smaller row than asked is a warning naming both sizes."""
    done = b.expect_ok()
    assert all(c["lost"] == 0 for c in b.all("census")), b.all("census")
    census = {c["when"]: c for c in b.all("census")}
    assert census["end"]["free"] == census["boot"]["free"], census
    cells = _bench_cells(b)
    assert len(cells) == 6, cells
    warnings = [r["msg"] for r in b.all("warning")]
    for (row, locks), r in cells.items():
        assert r["asked_bytes"] == asked_mib << 20, r
        assert r["bytes"] <= r["asked_bytes"], r
        if "skipped" in r:
            continue
        page = 4096 if row == "4k" else 2 << 20
        assert r["bytes"] > 0 and r["faults"] == r["bytes"] // page, r
        if r["bytes"] < r["asked_bytes"]:
            assert any(f"{asked_mib} MiB asked, {r['bytes'] >> 20} MiB fit in free memory" in m
                       for m in warnings), warnings
    assert "out of memory" not in b.console, b.tail()
    return done, cells


def test_pt_bench_sized_to_free_memory():
    # Each of these faulted on 'out of memory' in the bench's own fault
    # handler (status 2): 32 MiB a node with the default 64 MiB, the 2M
    # row of 244 MiB on 256 MiB, and 64 GiB asked of 256 MiB.
    b = boot(nodes=2, mem_per_node="32M", boot_path="pvh",
             append="memboot.bench=pt memboot.ptbench_reps=1")
    _, cells = _check_bench_fits(b, 64)
    assert 0 < cells[("4k", "global")]["bytes"] < 64 << 20, cells
    assert 0 < cells[("2m", "global")]["bytes"] < 64 << 20, cells
    assert cells[("hugetlb", "split")]["skipped"] == "no 2 MiB pool pages (hugepages=)", cells
    b = boot(mem_per_node="256M", boot_path="pvh",
             append="memboot.bench=pt memboot.ptbench_mib=244 memboot.ptbench_reps=1")
    _, cells = _check_bench_fits(b, 244)
    assert cells[("2m", "split")]["bytes"] > 0, cells
    b = boot(mem_per_node="256M", boot_path="pvh",
             append="memboot.bench=pt memboot.ptbench_mib=65536 memboot.ptbench_reps=1 "
                    "hugepages=20")
    _, cells = _check_bench_fits(b, 65536)
    for row in ("4k", "2m"):
        assert 200 << 20 < cells[(row, "global")]["bytes"] < 256 << 20, cells
    assert cells[("hugetlb", "global")]["bytes"] == 40 << 20, cells


def test_pt_bench_row_that_does_not_fit_is_skipped():
    # The pool holds nearly everything: the 4K and 2M rows cannot have 2 MiB
    # for each of the 2 CPUs, and the pool row not the page tables it needs
    # with what two CPUs' lists can hold back. Each says so, like the
    # self-tests, and nothing faults.
    b = boot(mem_per_node="256M", cpus_per_node=2, boot_path="pvh",
             append="hugepages=124 memboot.bench=pt memboot.ptbench_mib=8 "
                    "memboot.ptbench_reps=1")
    _, cells = _check_bench_fits(b, 8)
    for locks in ("global", "split"):
        for row, unit in (("4k", "free 4 KiB pages"), ("2m", "free 2 MiB blocks")):
            why = cells[(row, locks)]["skipped"]
            assert why.startswith("not enough free memory: ") and unit in why, cells
            assert "the row needs 2 MiB per CPU (2 CPUs) and its page tables" in why, why
        why = cells[("hugetlb", locks)]["skipped"]
        assert why.startswith("not enough free memory for its page tables: "), why
    assert "bench pt:               split  skipped: not enough free memory" in b.console


def test_list_values_and_limits_refused_with_one_message_each():
    # Lists by one rule (docs/cmdline.md, Lists), a fraction Linux refuses,
    # and bench=all: each refused value an error naming it, the default kept.
    b = boot(boot_path="pvh", mem_per_node="256M",
             append="memboot.selftest=alloc, memboot.pcp_steps=3,-3 hugepages=0:2,,1:2, "
                    "memboot.pcp_high_fraction=1 memboot.bench=all memboot.ptbench_mib=2 "
                    "memboot.ptbench_reps=1")
    done = b.expect_ok()
    errors = [r["msg"] for r in b.all("error")]
    assert done["errors"] == 4 == len(errors), errors
    assert any("'memboot.selftest'" in m and "item 2 is empty" in m for m in errors), errors
    assert any("'memboot.pcp_steps'" in m and "'3' has none, '-3' has one" in m
               for m in errors), errors
    assert any("'hugepages'" in m and "item 2 is empty" in m for m in errors), errors
    assert any("'memboot.pcp_high_fraction'" in m and "8..1000000" in m for m in errors), errors
    assert b.all("selftest") == [], b.all("selftest")       # alloc, was not run
    assert b.all("hugetlb") == [], b.all("hugetlb")
    pcp = b.one("pcp")
    assert pcp["high_fraction"] == 0 and pcp["policy"] == "auto", pcp
    assert pcp["steps"] == "1,3,4,5,7,8,10" and pcp["tuned"] is True, pcp
    assert pcp["high_min"] < pcp["high_max"], pcp
    # bench=all runs every benchmark: pt's six cells.
    assert len(b.all("pt_bench")) == 6
    assert "expected unknown benchmark" not in b.console
    assert all(c["lost"] == 0 for c in b.all("census"))
    # A valid fraction fixes high: the record says it is not tuned.
    b = boot(boot_path="pvh", mem_per_node="256M", append="memboot.pcp_high_fraction=8")
    b.expect_ok()
    pcp = b.one("pcp")
    assert pcp["high_fraction"] == 8 and pcp["tuned"] is False, pcp
    assert pcp["high_min"] == pcp["high_max"], pcp


def test_early_allocations_beyond_memory_say_so():
    # 100000 early pages of a 256 MiB machine: as many as there are, and a
    # warning with both numbers, in the line and in node_init.
    b = boot(boot_path="pvh", mem_per_node="256M", append="memboot.early_alloc_pages=100000")
    b.expect_ok()
    init = b.one("node_init")
    assert init["early_alloc_asked"] == 100000, init
    assert 60000 < init["early_alloc_made"] < 65536, init
    warnings = [r["msg"] for r in b.all("warning") if "early_alloc_pages" in r["msg"]]
    assert len(warnings) == 1, b.all("warning")
    assert (f"memboot.early_alloc_pages=100000: only {init['early_alloc_made']} early "
            "allocations made; the allocator had no free page left on any node") in warnings[0]
    assert all(c["lost"] == 0 for c in b.all("census"))
    # Enough memory: no warning, both numbers equal.
    b = boot(boot_path="pvh", mem_per_node="256M", append="memboot.early_alloc_pages=1000")
    b.expect_ok()
    init = b.one("node_init")
    assert init["early_alloc_asked"] == init["early_alloc_made"] == 1000, init
    assert not any("early" in r["msg"] for r in b.all("warning")), b.all("warning")


def test_churn_selftest_without_memory_is_skipped():
    # The pools take nearly all of 2 x 64 MiB: half of what is left is under
    # 256 pages for each of 4 workers. That is a skip, as for the other
    # self-tests, not a failure (it was status 4, 'cannot run').
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="64M", boot_path="pvh",
             append="hugepages=0:30,1:30 memboot.selftest=churn")
    b.expect_ok()
    assert b.one("selftest") == {"event": "selftest", "name": "churn", "ok": True,
                                 "skipped": True, "reason": "not enough memory"}
    assert "selftest churn: skipped: not enough memory" in b.console
    assert not any("churn" in r["msg"] for r in b.all("error")), b.all("error")
    assert all(c["lost"] == 0 for c in b.all("census"))
