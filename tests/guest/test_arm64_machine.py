"""The machine as it is on arm64 (`--arch arm64 --boot efi`: BOOTAA64.EFI
under AAVMF, ACPI and SMBIOS from QEMU virt's fw_cfg): SMBIOS 3.0 through
the EFI configuration table with the `-smbios` type 0, 1 and 17 values
coming back in the same `machine`, `dimm` and `node_dimms` records as on
x86_64 (tests/guest/test_machine.py), and the HMAT machine of
tests/guest/test_tiers.py (two CPU nodes, two memory-only nodes) with the
same figures, tiers and initialising CPUs, census lost 0.

Two AAVMF boots, about 10 s each under TCG.
"""
from test_arm64 import boot_arm64_efi, check_census
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


def test_arm64_pptt_packages_clusters_cores_threads():
    # virt's PPTT follows -smp (hw/acpi/aml-build.c build_pptt): 2 sockets
    # of 2 clusters of 1 core of 2 threads, one socket a node. QEMU 10.0
    # gives virt no cache structures (-machine smp-cache is refused):
    # tests/host/test_pptt.c checks the caches.
    args = ["-m", "512M", "-smp", "8,sockets=2,clusters=2,cores=1,threads=2"]
    for n in (0, 1):
        args += ["-object", "memory-backend-ram,id=m%d,size=256M" % n,
                 "-numa", "node,nodeid=%d,cpus=%d-%d,memdev=m%d" % (n, 4 * n, 4 * n + 3, n)]
    b = boot_arm64_efi(qemu_args=args)
    done = b.expect_ok()
    assert done["warnings"] == 0, b.all("warning")
    p = b.one("pptt")
    assert (p["processors"], p["packages"], p["clusters"], p["cores"], p["threads"]) == \
        (8, 2, 4, 4, 8), p
    assert (p["cache_structures"], p["cache_kinds"], p["warnings"], p["truncated"]) == \
        (0, 0, 0, False), p
    assert b.all("pptt_cache") == []
    assert "PPTT: 8 processors: 2 packages, 4 clusters, 4 cores, 8 threads; " \
        "0 cache structures" in b.console, b.tail()
    assert b.one("smp")["cpus"] == 8, b.one("smp")
    check_census(b)
