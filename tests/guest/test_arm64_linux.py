"""compare-linux --arch arm64: Debian's cloud-arm64 Linux 6.1 and memboot's
Image on the same QEMU virt shape (2 nodes x 1 CPU x 512 MiB), both through
-kernel with the device tree; Linux stops at its root-mount panic.

About 20 s: one Linux boot (about 15 s under TCG) and one memboot boot.
The Linux kernel comes from ~/.cache/memboot/linux (fetched on first use:
the fetcher adds dpkg's arm64 architecture when apt does not know it).
"""
import os

from guest import ROOT
from linux_compare import compare_linux

IMAGE = os.path.join(ROOT, "build", "arm64", "debug", "Image")


def test_arm64_linux_beside_memboot_sees_the_same_nodes():
    linux, _, _ = compare_linux("arm64", IMAGE, "hugepagesz=2M hugepages=0:8,1:8")
    assert linux["version"].endswith("-arm64"), linux["version"]
    assert linux["mem_bytes"] == {"0": 512 << 20, "1": 512 << 20}, linux["mem_bytes"]
