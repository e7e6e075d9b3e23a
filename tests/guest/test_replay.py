"""memboot.selftest=replay: a Linux kmem trace replayed in the guest by every
CPU (tools/memboot run --replay) gives the same replayed and skipped counts
as the host lab's replay of the same trace, on every allocator, with every
page accounted for afterwards; and the same metrics as the host lab's:
latency percentiles per operation, the allocator's lock statistics, free
blocks and the unusable index at order 9 where the trace ends."""
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


def host_row(trace, d):
    r = subprocess.run([os.path.join(ROOT, "tools", "memboot"), "lab", "--allocators", "buddy",
                        "--workloads", "trace", "--trace", trace, "--no-plot",
                        "--out", os.path.join(d, "host")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    with open(os.path.join(d, "host.json")) as f:
        return json.load(f)["rows"][0]


def test_replay_matches_the_host():
    with tempfile.TemporaryDirectory(prefix="memboot-replay-") as d:
        trace = small_trace(d)
        events, rep = lab.parse_trace(trace)
        assert rep["cpus"] == 2, rep
        row = host_row(trace, d)
        host = row["replayed"]
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
            check_metrics(name, g, row)
            assert b.one("selftest") == {"event": "selftest", "name": "replay", "ok": True}
            for c in b.all("census"):
                assert c["lost"] == 0 and c["check"] is True, (name, c)


def unusable_permille(blocks, order):
    """Linux's unusable_free_index (mm/vmstat.c), written out again."""
    free = sum(n << k for k, n in enumerate(blocks))
    suitable = sum(n << (k - order) for k, n in enumerate(blocks) if k >= order)
    return (free - (suitable << order)) * 1000 // free if free else 0


def check_metrics(name, g, host):
    # Every allocation made and every free done was timed: the host's counts.
    assert g["alloc_n"] == host["latency"]["alloc_all"]["n"], (name, g, host["latency"])
    assert g["free_n"] == host["latency"]["free_all"]["n"], (name, g, host["latency"])
    assert g["alloc_n"] + g["free_n"] == g["replayed"], (name, g)
    assert g["alloc_n"] - g["free_n"] == g["held_at_end"], (name, g)
    for op in ("alloc", "free"):
        p = [g["%s_%s_ns" % (op, q)] for q in ("p50", "p99", "p999", "max")]
        assert 0 < p[0] <= p[1] <= p[2] <= p[3], (name, op, p)
        assert p[3] < g["ns"], (name, op, p, g["ns"])
    assert g["lock_contended"] <= g["lock_acquired"], (name, g)
    assert len(g["free_blocks"]) == 11, (name, g)
    assert g["unusable_9_permille"] == unusable_permille(g["free_blocks"], 9), (name, g)


def test_lab_guest_rows_beside_the_host():
    """tools/memboot lab --guest: one host and one guest row per allocator,
    the same replayed count, the guest's figures from its replay record."""
    with tempfile.TemporaryDirectory(prefix="memboot-replay-") as d:
        trace = small_trace(d)
        r = subprocess.run([os.path.join(ROOT, "tools", "memboot"), "lab", "--allocators",
                            "buddy,llfree", "--workloads", "trace", "--trace", trace, "--guest",
                            "--no-plot", "--out", os.path.join(d, "lab")],
                           capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, r.stdout + r.stderr
        with open(os.path.join(d, "lab.json")) as f:
            rows = json.load(f)["rows"]
        assert [(x.get("on", "host"), x["allocator"]) for x in rows] == [
            ("host", "buddy"), ("guest", "buddy"), ("host", "llfree"), ("guest", "llfree")]
        for host, guest in (rows[0:2], rows[2:4]):
            assert guest["replayed"] == host["replayed"] and guest["check"], (host, guest)
            assert guest["latency"]["alloc_all"]["p99_ns"] == guest["record"]["alloc_p99_ns"]
        assert "| guest | llfree | trace | 2 |" in r.stdout, r.stdout


def test_replay_without_a_trace_is_skipped():
    b = boot(boot_path="pvh", append="memboot.selftest=replay")
    b.expect_ok()
    assert not b.all("replay")
    assert "no trace" in b.console
