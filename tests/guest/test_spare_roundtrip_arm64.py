"""The unattended loop on a simulated arm64 server (an Ampere, Graviton or
Grace machine as UEFI + ACPI presents it), end to end under AAVMF with
Debian's own arm64 Linux as the machine's OS.

The disk is tools/memboot rehearse's server for arm64 (mbtools.rehearse,
Server(arch="arm64")): GRUB for arm64-efi as EFI/BOOT/BOOTAA64.EFI (built
by grub-mkimage from Debian's grub-efi-arm64-bin, unpacked into the cache),
grub-mkconfig's header that consumes grubenv's next_entry, Debian's
cloud-arm64 kernel with a busybox (arm64) initramfs and efivarfs.ko.
`tools/memboot install --root TREE --once --esp TREE` tells arm64 from the
GRUB modules' directory (boot/grub/arm64-efi) and writes an entry that
chainloads memboot's UEFI loader from the ESP (GRUB has no multiboot2 on
arm64); the loader reads the kernel and its words beside it.

Each boot is a new QEMU (virt, GICv3, 2 nodes) on the same disk and
variable store:
  boot 1  GRUB boots next_entry: memboot, through BOOTAA64.EFI; it keeps its
          results in UEFI variables (runtime services' SetVariable) and
          reboots (PSCI SYSTEM_RESET ends QEMU: -no-reboot);
  boot 2  GRUB's default, Linux: efivarfs shows the variables, printed as
          hex on the PL011; `tools/memboot efivars` reads them back;
  boot 3  after `tools/memboot uninstall --root --esp` with next_entry set
          again: Linux, the default.
Slow under TCG (WALL_NOTE): in the spare set (make test-spare, CI)."""
import json
import os
import subprocess
import sys
import tempfile

from guest import MEMBOOT, ROOT, Boot, spare_tests_only
from test_spare_roundtrip import _linux_vars, _need, _node_init, _read_back, _server, \
    _uninstall

sys.path.insert(0, os.path.join(ROOT, "tools"))
from mbtools import efivars, rehearse  # noqa: E402

WALL_NOTE = "70 to 105 s under TCG on the 2-core host (AMD EPYC), idle to busy: three boots"


def test_spare_roundtrip_arm64_install_once_memboot_then_linux_reads_the_results():
    spare_tests_only()
    elf = _need(os.environ.get("MEMBOOT_ARM64_ELF") or os.path.join(
        ROOT, "build", "arm64", "debug", "memboot.elf"), "arm64 kernel ELF (make ARCH=arm64)")
    loader = _need(os.path.join(os.path.dirname(elf), "efi", "BOOTAA64.EFI"),
                   "BOOTAA64.EFI (make ARCH=arm64)")
    with tempfile.TemporaryDirectory(prefix="memboot-spare-arm64-") as tmp:
        esp = os.path.join(tmp, "esp")
        srv = _server(tmp, elf, install_args=["--esp", esp, "--loader", loader], arch="arm64")
        assert srv.grubenv() == {"next_entry": "memboot"}
        with open(os.path.join(srv.esp, "boot", "grub", "grub.cfg")) as f:
            assert "chainloader ($mb_esp)/EFI/memboot/memboot.efi" in f.read()
        with open(os.path.join(srv.esp, "EFI", "memboot", "cmdline.txt")) as f:
            assert f.read() == "memboot.init=deferred memboot.exit=reboot\n"

        def boot():
            return srv.boot(timeout=420, boot_class=Boot, strict=True)

        # Boot 1: memboot, once, through GRUB's chainloader and the loader.
        first = boot()
        done = first.one("done")
        assert done["status"] == 0, first.tail()
        rec = first.one("boot")
        assert rec["boot_path"] == "efi" and rec["cmdline"].startswith(
            "memboot.init=deferred memboot.exit=reboot"), rec
        assert len(_node_init(first.records)) == 2, first.all("node_init")
        assert srv.grubenv() == {"next_entry": ""}, "GRUB did not clear next_entry"

        # Boot 2: GRUB's default, Linux, prints the variables efivarfs shows.
        second = boot()
        assert not second.records, "memboot booted again\n" + second.tail()
        files = _linux_vars(second)
        assert files and all(efivars.GUID in n for n in files), files

        # Uninstalled with next_entry naming memboot again: Linux boots.
        subprocess.run(["grub-editenv", os.path.join(srv.esp, "boot", "grub", "grubenv"), "set",
                        "next_entry=memboot"], check=True)
        _uninstall(srv, ["--esp", esp])
        third = boot()
        assert not third.records and rehearse.MARK + " linux up" in third.console, third.tail()

        out = _read_back(tmp, files, "efivars")
        assert out.returncode == 0, out.stderr
        kept = [json.loads(line) for line in out.stdout.splitlines()]
        assert _node_init(kept) == _node_init(first.records), (kept, first.records)
        assert kept[-1] == done
