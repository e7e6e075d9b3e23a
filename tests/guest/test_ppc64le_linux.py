"""compare-linux --arch ppc64le: Debian's powerpc64le Linux 6.1 vmlinux and
memboot's ELF on the same QEMU pseries shape (2 nodes x 1 CPU x 512 MiB),
both loaded by -kernel and entered by VOF; Linux stops at its root-mount
panic (QEMU exits on it).

About 6 s: one Linux boot (about 4 s under TCG) and one memboot boot.
The Linux kernel comes from ~/.cache/memboot/linux (fetched on first use;
the fetcher adds dpkg's ppc64el architecture when apt does not know it).
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from guest import MEMBOOT, ROOT

ELF = os.path.join(ROOT, "build", "ppc64le", "debug", "memboot.elf")


def test_ppc64le_linux_beside_memboot_sees_the_same_nodes():
    if not os.path.exists(ELF):
        raise unittest.SkipTest("no ppc64le kernel at %s: make ARCH=ppc64le" % ELF)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "facts.json")
        r = subprocess.run([sys.executable, MEMBOOT, "compare-linux", "--arch", "ppc64le",
                            "--nodes", "2", "--cpus-per-node", "1", "--mem-per-node", "512M",
                            "--huge", "hugepagesz=2M hugepages=16", "--json", out],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=300, cwd=ROOT)
        assert r.returncode == 0, r.stderr[-2000:]
        with open(out) as f:
            data = json.load(f)
    linux, memboot = data["linux"][0], data["memboot"][0]
    assert linux["version"].endswith("-powerpc64le"), linux["version"]
    # Linux saw both nodes of ibm,associativity, and every CPU.
    assert (linux["nodes_up"], linux["cpus_up"]) == (2, 2), linux
    assert sorted(linux["deferred_trace_ms"]) == ["0", "1"], linux["deferred_trace_ms"]
    assert sorted(memboot["deferred_ms"]) == ["0", "1"], memboot["deferred_ms"]
    assert linux["mem_bytes"] == {"0": 512 << 20, "1": 512 << 20}, linux["mem_bytes"]
    # The plain count is taken (powerpc's Linux ignores node:count), and
    # spread over the nodes by both.
    assert not linux["hugetlb_nodes_ignored"], linux
    assert {"size_bytes": 2 << 20, "allocated": 16} in linux["hugetlb"], linux["hugetlb"]
    # Every row of the topology table agrees.
    assert "| NO |" not in r.stdout and r.stdout.count("| yes |") == 2, r.stdout
