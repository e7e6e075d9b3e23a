"""memboot.selftest=replay: a Linux kmem trace replayed in the guest by every
CPU (tools/memboot run --replay) gives the same replayed and skipped counts
as the host lab's replay of the same trace, on every allocator, with every
page accounted for afterwards."""
import json
import lzma
import os
import subprocess
import sys
import tempfile

from guest import ROOT, boot

sys.path.insert(0, os.path.join(ROOT, "tools"))
from mbtools import facts, lab  # noqa: E402

FIXTURE = os.path.join(ROOT, "tests", "tools", "fixtures", "kmem", "kbuild.trace.xz")
LINES = 60000   # both trace CPUs, a few seconds under TCG


def small_trace(d):
    path = os.path.join(d, "small.trace")
    with lzma.open(FIXTURE, "rt") as src, open(path, "w") as out:
        for i, line in enumerate(src):
            if i >= LINES:
                break
            out.write(line)
    return path


def host_replayed(trace, d):
    r = subprocess.run([os.path.join(ROOT, "tools", "memboot"), "lab", "--allocators", "buddy",
                        "--workloads", "trace", "--trace", trace, "--no-plot",
                        "--out", os.path.join(d, "host")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    with open(os.path.join(d, "host.json")) as f:
        return json.load(f)["rows"][0]["replayed"]


def test_replay_matches_the_host():
    with tempfile.TemporaryDirectory(prefix="memboot-replay-") as d:
        trace = small_trace(d)
        events, rep = lab.parse_trace(trace)
        assert rep["cpus"] == 2, rep
        host = host_replayed(trace, d)
        assert host == len(events), (host, len(events))
        for name in facts.ALLOCATORS:
            b = boot(nodes=2, cpus_per_node=2, mem_per_node="1G", boot_path="pvh",
                     replay=trace, append=f"memboot.alloc={name} memboot.selftest=replay")
            b.expect_ok()
            g = b.one("replay")
            assert g["events"] == len(events) and g["replayed"] == host, (name, g, host)
            assert g["alloc_failed"] == 0 and g["cpus"] == 2, g
            for k in lab.REPLAY_SKIPS:
                assert g[k] == rep[k], (name, k, g, rep)
            assert g["held_at_end"] == rep["held_at_end"], (g, rep)
            assert b.one("selftest") == {"event": "selftest", "name": "replay", "ok": True}
            for c in b.all("census"):
                assert c["lost"] == 0 and c["check"] is True, (name, c)


def test_replay_without_a_trace_is_skipped():
    b = boot(boot_path="pvh", append="memboot.selftest=replay")
    b.expect_ok()
    assert not b.all("replay")
    assert "no trace" in b.console
