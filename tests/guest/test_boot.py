"""Boot matrix of the foundation: firmware, machine types, node counts,
command-line handling and exit statuses."""
from guest import boot, check_map_invariants, facts, usable_bytes

GIB = 1 << 30
MIB = 1 << 20
# Every boot's phases, in order: kernel/init/phases.h's table.
PHASES = list(facts.PHASES)


def _common(b, boot_path):
    done = b.expect_ok()
    rec = b.one("boot")
    assert rec["boot_path"] == boot_path, rec
    assert rec["loader"].startswith("GRUB"), rec
    assert 100_000_000 < rec["tsc_hz"] < 10_000_000_000, rec
    # x86's check is reported by its clock_check records: the boot record
    # keeps its shape (tsc_known, tsc_checked: arm64 and POWER only).
    assert "tsc_known" not in rec and "tsc_checked" not in rec, rec
    assert rec["version"], rec
    assert [p["name"] for p in b.all("phase")] == PHASES
    for p in b.all("phase"):
        assert isinstance(p["ns"], int) and p["ns"] >= 0
        assert p["start_ns"] + p["ns"] <= done["total_ns"], p
    check_map_invariants(b.all("mem_range"))
    summary = b.one("mem_summary")
    assert summary["usable_bytes"] == usable_bytes(b)
    assert summary["ranges"] == len(b.all("mem_range"))
    assert done["errors"] == 0 and done["warnings"] == 0, done
    return rec


def test_seabios_q35_one_node():
    b = boot(mem_per_node="1G")
    rec = _common(b, "mb2-bios")
    assert rec["map_source"] == "mb2-mmap"
    assert rec["rsdp"] and rec["rsdp_revision"] == 0   # SeaBIOS: RSDT only
    usable = usable_bytes(b)
    # 1 GiB less the BIOS areas below 1 MiB and SeaBIOS's tables at the top.
    assert GIB - 2 * MIB < usable < GIB, usable


def test_seabios_pc_hypertransport_hole():
    # -cpu max is AMD-flavoured here: SeaBIOS reserves the 12 GiB
    # HyperTransport window just below 1 TiB.
    b = boot(machine="pc", mem_per_node="512M")
    _common(b, "mb2-bios")
    ranges = [(int(r["start"], 16), int(r["end"], 16), r["type"]) for r in b.all("mem_range")]
    assert (0xfd00000000, 0x10000000000, "reserved") in ranges, ranges
    assert 512 * MIB - 2 * MIB < usable_bytes(b) < 512 * MIB


def test_seabios_two_nodes_memory_above_4g():
    # 2 x 2 GiB on q35: low RAM stops at 2 GiB, the rest is above 4 GiB.
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="2G")
    _common(b, "mb2-bios")
    ranges = [(int(r["start"], 16), int(r["end"], 16), r["type"]) for r in b.all("mem_range")]
    assert (0x100000000, 0x180000000, "usable") in ranges, ranges
    assert 4 * GIB - 4 * MIB < usable_bytes(b) < 4 * GIB


def test_ovmf_uses_efi_map_and_agrees_with_seabios():
    uefi = boot(firmware="uefi", mem_per_node="1G", timeout=120)
    rec = _common(uefi, "mb2-uefi")
    assert rec["map_source"] == "mb2-efi-mmap"
    assert rec["map_entries"] > 17, rec        # OVMF hands over 100+ descriptors
    assert rec["rsdp"] and rec["rsdp_revision"] == 2
    types = {r["type"] for r in uefi.all("mem_range")}
    assert {"usable", "reserved", "acpi", "nvs"} <= types, types
    bios = boot(mem_per_node="1G")
    bios.expect_ok()
    a, b = usable_bytes(uefi), usable_bytes(bios)
    # OVMF keeps more for itself (runtime services, NVS, its page tables):
    # docs/memory-map.md explains the difference; it stays within a few %.
    assert a < b and (b - a) / b < 0.03, (a, b)


def test_bad_command_line_warns_and_keeps_defaults():
    words = 'bogus=1 memboot.clock_ms=abc memboot.exit=sideways memboot.selftest=clock,nope'
    b = boot(append=words)
    done = b.expect_ok()
    assert b.one("boot")["cmdline"] == words
    assert done["warnings"] == 1, done     # the unknown key
    assert done["errors"] == 3, done       # three bad values
    assert b.all("selftest") == []         # the bad list left the default (none)
    assert "unknown parameter 'bogus'" in b.console
    assert "bad value 'abc' for 'memboot.clock_ms'" in b.console


def test_exceptions_report_and_exit_with_status():
    for fault, vector_name in [("ud", "#UD"), ("pf", "#PF"), ("df", "#DF")]:
        b = boot(append=f"memboot.fault={fault}")
        done = b.expect_status(2)
        assert done["reason"].startswith(vector_name), done
        assert "Call Trace" in b.console and "RIP: 0008:" in b.console, b.tail()
        if fault == "pf":
            assert "CR2) 0x100000000000" in b.console, b.tail()


def test_panic_and_assert_exit_with_panic_status():
    b = boot(append="memboot.fault=panic")
    assert b.expect_status(1)["reason"] == "panic requested with memboot.fault=panic"
    b = boot(append="memboot.fault=assert")
    assert "assertion 'selftest_settings.fault == FAULT_NONE' failed" in b.expect_status(1)["reason"]


def test_halt_exit_prints_done_then_halts():
    # memboot.exit=halt behaves as on real hardware: the CPU halts and QEMU
    # keeps running; the runner stops it shortly after the done record and
    # takes the status from that record.
    b = boot(append="memboot.exit=halt", timeout=60)
    assert b.status == 0, b.tail()
    done = b.records[-1]
    assert done["event"] == "done" and done["ok"] and done["status"] == 0
    assert "memboot: halting with status 0" in b.console
    assert "halted after its done record (status 0)" in b.stderr


def _mb2_override(data, tmp_path):
    with open(tmp_path, "wb") as f:
        f.write(data)
    return ["-fw_cfg", f"name=opt/memboot/mb2-override,file={tmp_path}"]


def test_corrupted_multiboot2_information_fails_cleanly():
    # The real information GRUB gave a q35 512M boot (a host-test fixture),
    # fed back to the kernel through the fw_cfg override, first intact, then
    # truncated and with an impossible tag size: a clear error, status 3,
    # a done record, never a hang.
    import os
    import struct
    import tempfile
    from guest import ROOT
    fixture = os.path.join(ROOT, "tests", "host", "fixtures", "mb2", "seabios-q35-512m.bin")
    good = open(fixture, "rb").read()
    bad_size = bytearray(good)
    struct.pack_into("<I", bad_size, 12, 0x7fffffff)      # first tag's size
    cases = [(good, 0, None),
             (good[:len(good) // 2], 3, "implausible"),
             (bytes(bad_size), 3, "running past total_size")]
    with tempfile.TemporaryDirectory() as d:
        for i, (data, status, message) in enumerate(cases):
            b = boot(mem_per_node="512M", timeout=30,
                     qemu_args=_mb2_override(data, os.path.join(d, f"mbi{i}")))
            done = b.expect_status(status)
            assert "instead of the loader's Multiboot2 information" in b.console
            if message:
                assert message in b.console, b.tail()
                assert done["reason"] == "boot information missing or corrupt"
                assert b.all("mem_range") == []
            else:
                assert len(b.all("mem_range")) == 9
