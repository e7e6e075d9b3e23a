"""The machine as it is on arm64 (`--arch arm64 --boot efi`: BOOTAA64.EFI
under AAVMF, ACPI and SMBIOS from QEMU virt's fw_cfg): SMBIOS 3.0 through
the EFI configuration table with the `-smbios` type 0, 1 and 17 values
coming back in the same `machine`, `dimm` and `node_dimms` records as on
x86_64 (tests/guest/test_machine.py), and the HMAT machine of
tests/guest/test_tiers.py (two CPU nodes, two memory-only nodes) with the
same figures, tiers and initialising CPUs, census lost 0.

Two AAVMF boots, about 10 s each under TCG.
"""
from test_arm64 import boot_arm64_efi
from test_machine import SMBIOS, check_smbios
from test_tiers import HMAT_APPEND, check_hmat_figures, hmat_topology

GIB = 1 << 30


def test_arm64_smbios_30_from_the_efi_configuration_table():
    # One 512 MiB node: QEMU virt's one type 17 device is the guest's RAM.
    b = boot_arm64_efi(mem_per_node="512M", qemu_args=SMBIOS)
    check_smbios(b, 64, "efi-smbios3", GIB // 2, 0)


def test_arm64_hmat_memory_only_nodes_initialised_by_their_initiators():
    # virt builds the HMAT from -machine hmat=on and -numa hmat-lb/hmat-cache
    # as q35 does; the memory-only nodes are in the SRAT, with no GICC.
    b = boot_arm64_efi(qemu_args=hmat_topology(), append=HMAT_APPEND, timeout=150)
    check_hmat_figures(b)
    assert b.one("numa")["source"] == "srat" and b.one("numa")["nodes"] == 4, b.one("numa")
    assert b.one("smp")["cpus"] == 2, b.one("smp")
