"""Bad input that used to get through: a command line longer than the
kernel keeps, empty quoted words, hugepages= after a bad size, messages that
named the wrong thing, and errors that only a count in `done` revealed.
Each boot asserts on records (and, for escaping, on the raw console)."""
import os
import subprocess
import tempfile

from guest import MEMBOOT, ROOT, boot

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
    assert len(smp["online"]) == smp["cpus"]
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
