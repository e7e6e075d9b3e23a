"""compare-linux --arch arm64: Debian's cloud-arm64 Linux 6.1 and memboot's
Image on the same QEMU virt shape (2 nodes x 1 CPU x 512 MiB), both through
-kernel with the device tree; Linux stops at its root-mount panic.

About 20 s: one Linux boot (about 15 s under TCG) and one memboot boot.
The Linux kernel comes from ~/.cache/memboot/linux (fetched on first use:
the host needs `dpkg --add-architecture arm64; apt-get update`).
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from guest import MEMBOOT, ROOT

IMAGE = os.path.join(ROOT, "build", "arm64", "debug", "Image")


def test_arm64_linux_beside_memboot_sees_the_same_nodes():
    if not os.path.exists(IMAGE):
        raise unittest.SkipTest("no arm64 Image at %s: make ARCH=arm64" % IMAGE)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "facts.json")
        r = subprocess.run([sys.executable, MEMBOOT, "compare-linux", "--arch", "arm64",
                            "--nodes", "2", "--cpus-per-node", "1", "--mem-per-node", "512M",
                            "--huge", "hugepagesz=2M hugepages=0:8,1:8", "--json", out],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=300, cwd=ROOT)
        assert r.returncode == 0, r.stderr[-2000:]
        with open(out) as f:
            data = json.load(f)
    linux, memboot = data["linux"][0], data["memboot"][0]
    assert linux["version"].endswith("-arm64"), linux["version"]
    # Linux saw both nodes of the tree, and every CPU.
    assert (linux["nodes_up"], linux["cpus_up"]) == (2, 2), linux
    assert sorted(linux["deferred_trace_ms"]) == ["0", "1"], linux["deferred_trace_ms"]
    assert sorted(memboot["deferred_ms"]) == ["0", "1"], memboot["deferred_ms"]
    assert linux["mem_bytes"] == {"0": 512 << 20, "1": 512 << 20}, linux["mem_bytes"]
    # Every row of the topology table agrees.
    assert "| NO |" not in r.stdout and r.stdout.count("| yes |") == 2, r.stdout
