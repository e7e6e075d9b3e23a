"""The second and third boot paths: memboot's own UEFI loader (`--boot efi`,
OVMF) and QEMU's PVH entry (`--boot pvh`, `-kernel memboot.elf`).

Each path must give the kernel the same struct bootinfo the Multiboot2 path
gives for the same machine: the tests compare the normalized maps with GRUB's
(docs/boot-paths.md). OVMF boots cost about 6 s each, so there are four of
them: the loader on one node (with GRUB under OVMF to compare), on two nodes
with four CPUs from an ESP that also forces a stale map key, and with a
kernel whose segment collides with firmware memory.
"""
import os
import shutil
import struct
import subprocess
import tempfile

from guest import MEMBOOT, ROOT, Boot, boot, check_map_invariants, facts, records, usable_bytes

GIB = 1 << 30
MIB = 1 << 20
# The phases up to the boot report (kernel/init/phases.h's table).
BOOT_PHASES = list(facts.PHASES[:facts.PHASES.index("report") + 1])
HANDOFF_MAGIC = 0x4f48424d          # boot/handoff.h
HANDOFF_F_RSDP_ACPI20 = 1
HANDOFF_F_CMDLINE_FILE = 4
HEADER = struct.Struct("<IHHII IIII IIIIII QII")   # struct handoff_header


def build_dir():
    iso = os.environ.get("MEMBOOT_ISO") or os.path.join(ROOT, "build", "debug", "memboot.iso")
    return os.path.dirname(os.path.abspath(iso))


def default_esp():
    return os.environ.get("MEMBOOT_ESP") or os.path.join(build_dir(), "memboot-esp.img")


def default_elf():
    return os.environ.get("MEMBOOT_ELF") or os.path.join(build_dir(), "memboot.elf")


def boot_esp(esp, nodes=1, cpus_per_node=1, mem_per_node="1G", timeout=120):
    """Like guest.boot(boot_path="efi"), from another ESP image."""
    with tempfile.TemporaryDirectory(prefix="memboot-test-") as tmp:
        log = os.path.join(tmp, "console.log")
        argv = [MEMBOOT, "run", "--boot", "efi", "--esp", esp, "--nodes", str(nodes),
                "--cpus-per-node", str(cpus_per_node), "--mem-per-node", mem_per_node,
                "--timeout", str(timeout), "--log", log]
        proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True,
                              timeout=timeout + 60)
        console = ""
        if os.path.exists(log):
            with open(log, encoding="utf-8", errors="replace") as f:
                console = f.read()
    return Boot(argv, proc.returncode, console, proc.stderr)


def esp_with(tmp, files):
    """A copy of the built ESP image with extra or replaced files {path: bytes}."""
    esp = os.path.join(tmp, "esp.img")
    shutil.copyfile(default_esp(), esp)
    for path, data in files.items():
        local = os.path.join(tmp, os.path.basename(path))
        with open(local, "wb") as f:
            f.write(data)
        subprocess.run(["mcopy", "-o", "-i", esp, local, "::" + path], check=True)
    return esp


def handoff_header(b):
    """The hand-off block's header, from the kernel's memboot.dump_bootinfo blobs."""
    blobs = sorted(b.all("blob"), key=lambda r: r["offset"])
    assert blobs and {r["name"] for r in blobs} == {"efi"}, b.tail()
    data = bytes.fromhex("".join(r["hex"] for r in blobs))
    assert len(data) == blobs[0]["total"]
    fields = HEADER.unpack_from(data)
    names = ("magic version header_bytes total_bytes flags map_offset map_bytes "
             "desc_size desc_version rsdp_offset rsdp_bytes cmdline_offset cmdline_bytes "
             "loader_offset loader_bytes system_table exit_tries reserved").split()
    return dict(zip(names, fields))


def ranges(b):
    return [(r["start"], r["end"], r["type"]) for r in b.all("mem_range")]


def common(b, boot_path, loader_prefix, map_source):
    done = b.expect_ok()
    rec = b.one("boot")
    assert rec["boot_path"] == boot_path, rec
    assert rec["loader"].startswith(loader_prefix), rec
    assert rec["map_source"] == map_source, rec
    names = [p["name"] for p in b.all("phase")]
    assert names[:len(BOOT_PHASES)] == BOOT_PHASES and names[-1] == facts.PHASES[-1], names
    assert len(set(names)) == len(names), names
    check_map_invariants(b.all("mem_range"))
    summary = b.one("mem_summary")
    assert summary["usable_bytes"] == usable_bytes(b)
    assert done["errors"] == 0 and done["warnings"] == 0, done
    return rec


def test_efi_one_node_matches_grub_uefi():
    efi = boot(boot_path="efi", firmware="uefi", append="memboot.dump_bootinfo", timeout=120)
    rec = common(efi, "efi", "memboot-efi ", "efi-mmap")
    assert rec["map_entries"] > 100, rec          # OVMF: 120+ descriptors
    assert rec["rsdp"] and rec["rsdp_revision"] == 2, rec
    assert rec["cmdline"] == "memboot.dump_bootinfo", rec   # fw_cfg works on this path
    h = handoff_header(efi)
    assert h["magic"] == HANDOFF_MAGIC and h["version"] == 1, h
    assert h["desc_size"] == 48 and h["map_bytes"] % 48 == 0, h
    assert h["exit_tries"] == 1, h
    assert h["flags"] & HANDOFF_F_RSDP_ACPI20 and not h["flags"] & HANDOFF_F_CMDLINE_FILE, h

    grub = boot(firmware="uefi", timeout=120)
    assert common(grub, "mb2-uefi", "GRUB", "mb2-efi-mmap")
    # Same firmware, same machine, the same GetMemoryMap read the same way:
    # the normalized maps agree range for range (docs/boot-paths.md).
    assert ranges(efi) == ranges(grub), (ranges(efi), ranges(grub))
    assert usable_bytes(efi) == usable_bytes(grub)


def test_efi_two_nodes_four_cpus_after_stale_map_key():
    with tempfile.TemporaryDirectory(prefix="memboot-esp-") as tmp:
        # efiloader.stale_map makes the loader change the memory map between
        # GetMemoryMap and ExitBootServices once: the firmware must refuse the
        # stale key and the loader must retry with a fresh map.
        esp = esp_with(tmp, {"/EFI/memboot/cmdline.txt":
                             b"efiloader.stale_map\nmemboot.dump_bootinfo\n"})
        b = boot_esp(esp, nodes=2, cpus_per_node=2, mem_per_node="1G")
    rec = common(b, "efi", "memboot-efi ", "efi-mmap")
    assert rec["cmdline"] == "memboot.dump_bootinfo", rec   # the loader's word is its own
    h = handoff_header(b)
    assert h["exit_tries"] == 2, h
    assert h["flags"] & HANDOFF_F_CMDLINE_FILE, h
    smp = b.one("smp")
    assert smp["cpus"] == 4 and records.cpu_list(smp["online"]) == [0, 1, 2, 3] and smp["failed"] == 0, smp
    numa = b.one("numa")
    assert numa["nodes"] == 2 and numa["source"] == "srat", numa
    assert 2 * GIB - 16 * MIB < usable_bytes(b) < 2 * GIB


def test_efi_refuses_segment_on_firmware_memory():
    # The kernel with its data segment moved onto OVMF's ACPI NVS at 8 MiB:
    # AllocatePages(AllocateAddress) fails and the loader names the segment.
    with open(default_elf(), "rb") as f:
        elf = bytearray(f.read())
    phoff, = struct.unpack_from("<Q", elf, 32)
    phnum, = struct.unpack_from("<H", elf, 56)
    loads = [i for i in range(phnum) if struct.unpack_from("<I", elf, phoff + i * 56)[0] == 1]
    struct.pack_into("<QQ", elf, phoff + loads[-1] * 56 + 16, 0x806000, 0x806000)
    with tempfile.TemporaryDirectory(prefix="memboot-esp-") as tmp:
        esp = esp_with(tmp, {"/EFI/memboot/memboot.elf": bytes(elf)})
        b = boot_esp(esp, mem_per_node="512M")
    done = b.expect_status(3)
    assert done["reason"].startswith("loader: kernel segment %d (program header %d) at [0x806000-"
                                     % (len(loads) - 1, loads[-1])), done
    assert "collides with memory the firmware uses" in done["reason"], done
    assert not b.all("boot"), "the kernel must not have run"


def test_pvh_two_nodes():
    words = "memboot.selftest=clock memboot.clock_ms=10"
    b = boot(boot_path="pvh", nodes=2, cpus_per_node=2, mem_per_node="1G", append=words)
    rec = common(b, "pvh", "PVH", "pvh-memmap")
    assert rec["loader"] == "PVH"
    assert rec["cmdline"] == words, rec            # through -append, once
    assert rec["rsdp"] and rec["rsdp_revision"] == 0, rec   # SeaBIOS tables: RSDT
    assert b.one("smp")["cpus"] == 4, b.one("smp")
    assert b.one("numa")["nodes"] == 2
    assert [s["ok"] for s in b.all("selftest")] == [True]
    assert 2 * GIB - 4 * MIB < usable_bytes(b) < 2 * GIB


def test_pvh_matches_grub_seabios():
    pvh = boot(boot_path="pvh", mem_per_node="1G")
    common(pvh, "pvh", "PVH", "pvh-memmap")
    grub = boot(mem_per_node="1G")
    common(grub, "mb2-bios", "GRUB", "mb2-mmap")
    # Both maps are QEMU's e820 table (fw_cfg etc/e820) plus SeaBIOS's own
    # reservations below 1 MiB.
    assert ranges(pvh) == ranges(grub), (ranges(pvh), ranges(grub))
