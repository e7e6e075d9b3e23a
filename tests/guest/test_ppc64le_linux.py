"""compare-linux --arch ppc64le: Debian's powerpc64le Linux 6.1 vmlinux and
memboot's ELF on the same QEMU pseries shape (2 nodes x 1 CPU x 512 MiB),
both loaded by -kernel and entered by VOF; Linux stops at its root-mount
panic (QEMU exits on it).

About 6 s: one Linux boot (about 4 s under TCG) and one memboot boot.
The Linux kernel comes from ~/.cache/memboot/linux (fetched on first use;
the fetcher adds dpkg's ppc64el architecture when apt does not know it).
"""
import os

from guest import ROOT
from linux_compare import compare_linux

ELF = os.path.join(ROOT, "build", "ppc64le", "debug", "memboot.elf")


def test_ppc64le_linux_beside_memboot_sees_the_same_nodes():
    # Nodes from ibm,associativity on both sides.
    linux, _, _ = compare_linux("ppc64le", ELF, "hugepagesz=2M hugepages=16")
    assert linux["version"].endswith("-powerpc64le"), linux["version"]
    assert linux["mem_bytes"] == {"0": 512 << 20, "1": 512 << 20}, linux["mem_bytes"]
    # The plain count is taken (powerpc's Linux ignores node:count).
    assert not linux["hugetlb_nodes_ignored"], linux
    assert {"size_bytes": 2 << 20, "allocated": 16} in linux["hugetlb"], linux["hugetlb"]
