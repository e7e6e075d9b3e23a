"""An SPCR naming a UART that is not there, on arm64 under AAVMF: QEMU
virt's own tables (dumped by a first boot with memboot.dump_acpi) given
back to AAVMF through the fw_cfg table loader with the SPCR's PL011 moved
to 0x9050000, where virt has no device (its SMMU's slot, empty without
iommu=smmuv3): qemu-system-aarch64 has no -acpitable (tests/guest/
acpi_loader.py says why and how). The probe's read takes an external
abort there; it is named in a warning, ttyAMA0 stays the console, the boot
reaches done with census lost 0 (it used to stop with a data abort).

Two AAVMF boots, about 10 s each under TCG.
"""
import struct
import tempfile

import acpi_loader
from test_arm64 import boot_arm64_efi, check_census

ABSENT = 0x9050000
SPCR_ADDRESS = 44          # the GAS's address: interface type at 36, the GAS at 40


def test_arm64_spcr_naming_an_absent_uart_is_refused():
    first = boot_arm64_efi(append="memboot.dump_acpi")
    first.expect_ok()
    tables = acpi_loader.tables_from_dump(first.console)
    sigs = [s for s, _ in tables]
    assert "SPCR" in sigs and "FACP" in sigs and "DSDT" in sigs, sigs
    altered = []
    for sig, data in tables:
        if sig == "SPCR":
            data = bytearray(data)
            assert struct.unpack_from("<Q", data, SPCR_ADDRESS)[0] == 0x9000000
            struct.pack_into("<Q", data, SPCR_ADDRESS, ABSENT)
        altered.append((sig, bytes(data)))
    with tempfile.TemporaryDirectory(prefix="memboot-acpi-") as tmp:
        args = acpi_loader.qemu_args(acpi_loader.build(altered), tmp)
        b = boot_arm64_efi(qemu_args=args)
        done = b.expect_ok()
    assert [w["msg"] for w in b.all("warning")] == [
        "ACPI: SPCR: no PL011 answers at MMIO 0x9050000 (peripheral ID, where this "
        "architecture drives PL011s); not used"], b.all("warning")
    assert done["warnings"] == 1, done
    # The tables AAVMF installed are the ones given: the loader is sound.
    assert "ACPI: SPCR: console UART at MMIO 0x9050000" in b.console, b.tail()
    assert b.all("console")[-1]["serial"] == ["ttyAMA0"], b.all("console")
    assert all(d["dropped"] == 0 for d in b.all("console_drain")), b.all("console_drain")
    assert b.one("boot")["boot_path"] == "efi"
    check_census(b)
