"""compare-linux in the guest tests: one run of `tools/memboot compare-linux`
on a small shape and the checks every architecture's test shares. The
facts come from the subcommand's --json (Linux's log and memboot's records
as mbtools.linux reads them), not from records read here."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from guest import MEMBOOT, ROOT


def compare_linux(arch, kernel, huge, nodes=2, cpus_per_node=1, mem_per_node="512M"):
    """`tools/memboot compare-linux --arch @arch` on one small shape: Linux's
    and memboot's facts (the first boot of each, from --json) and the
    printed tables; skipped without memboot's @kernel for @arch."""
    if not os.path.exists(kernel):
        raise unittest.SkipTest("no %s kernel at %s: make ARCH=%s" % (arch, kernel, arch))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "facts.json")
        r = subprocess.run([sys.executable, MEMBOOT, "compare-linux", "--arch", arch,
                            "--nodes", str(nodes), "--cpus-per-node", str(cpus_per_node),
                            "--mem-per-node", mem_per_node, "--huge", huge, "--json", out],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=300, cwd=ROOT)
        assert r.returncode == 0, r.stderr[-2000:]
        with open(out) as f:
            data = json.load(f)
    linux, memboot = data["linux"][0], data["memboot"][0]
    # Linux saw every node of the tree and every CPU; both timed each node.
    assert (linux["nodes_up"], linux["cpus_up"]) == (nodes, nodes * cpus_per_node), linux
    names = [str(n) for n in range(nodes)]
    assert sorted(linux["deferred_trace_ms"]) == names, linux["deferred_trace_ms"]
    assert sorted(memboot["deferred_ms"]) == names, memboot["deferred_ms"]
    # Every row of the topology table agrees.
    assert "| NO |" not in r.stdout and r.stdout.count("| yes |") == nodes, r.stdout
    return linux, memboot, r.stdout
