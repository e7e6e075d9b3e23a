"""memboot.selftest=replay on replay files that are not what a trace makes:
events that do not fit the events before them (a double free, a free at
another order) are skipped and counted, never replayed; a trace that holds
more than the guest's memory, or has more events than it can load, says
what it could not replay and why. Every event of the file is in one count,
and every page is accounted for afterwards."""
import os
import struct
import sys
import tempfile

from guest import ROOT, boot

sys.path.insert(0, os.path.join(ROOT, "tools"))
from mbtools import facts  # noqa: E402

INVALID = ("invalid_field", "invalid_realloc", "invalid_free_unallocated",
           "invalid_double_free", "invalid_free_order")


def replay_file(path, cpus, events):
    """The replay file of tools/mbtools/lab.py write_replay, written by hand:
    events are (id, op, order, cpu)."""
    ids = 1 + max((e[0] for e in events), default=-1)
    with open(path, "wb") as f:
        f.write(b"MBREPLAY" + struct.pack("<IIQQ", 1, cpus, len(events), ids) + bytes(40))
        f.write(b"".join(struct.pack("<IBBH", *e) for e in events))
    return path


def replay(events, cpus=1, mem_per_node="1G", nodes=1, cpus_per_node=1):
    with tempfile.TemporaryDirectory(prefix="memboot-badreplay-") as d:
        f = replay_file(os.path.join(d, "r.bin"), cpus, events)
        b = boot(nodes=nodes, cpus_per_node=cpus_per_node, mem_per_node=mem_per_node,
                 append="memboot.selftest=replay",
                 qemu_args=["-fw_cfg", "name=%s,file=%s" % (facts.fw_cfg_replay_file(), f)])
    return b


def check_counts(b):
    b.expect_ok()
    g = b.one("replay")
    assert g["invalid"] == sum(g[k] for k in INVALID), g
    assert (g["replayed"] + g["alloc_failed"] + g["failed_frees"] + g["invalid"] +
            g["not_loaded"]) == g["events"], g
    assert b.one("selftest") == {"event": "selftest", "name": "replay", "ok": True}
    for c in b.all("census"):
        assert c["lost"] == 0 and c["check"] is True, c
    return g


def test_double_free_is_skipped():
    b = replay([(0, 0, 0, 0), (0, 1, 0, 0), (0, 1, 0, 0)])
    g = check_counts(b)
    assert g["events"] == 3 and g["replayed"] == 2, g
    assert g["invalid_double_free"] == 1 and g["invalid"] == 1, g
    assert "event 2 (id 0 op 1 order 0 cpu 0) skipped: it frees an id freed before" \
        in b.console, b.tail()
    assert "1 events that do not fit skipped" in b.console, b.tail()


def test_free_at_another_order_is_skipped():
    b = replay([(0, 0, 0, 0), (0, 1, 10, 0)])
    g = check_counts(b)
    assert g["replayed"] == 1 and g["held_at_end"] == 1, g
    assert g["invalid_free_order"] == 1 and g["invalid"] == 1, g


def test_every_kind_of_misfit_is_counted():
    # cpu 5 of 2, order 11, op 7, a free first, an allocation of a held id.
    b = replay([(0, 0, 0, 5), (0, 0, 11, 0), (0, 7, 0, 0), (1, 1, 0, 1), (1, 0, 2, 1),
                (1, 0, 2, 0), (1, 1, 2, 0), (2, 0, 1, 1)], cpus=2)
    g = check_counts(b)
    assert [g[k] for k in INVALID] == [3, 1, 1, 0, 0], g
    assert g["replayed"] == 3 and g["held_at_end"] == 1, g


def test_trace_larger_than_the_guest():
    """A trace holding 80 MiB at once (40 order-9 blocks) in a 32 MiB guest,
    with more events than the replay may load in half its free memory (one
    4 MiB block: 524,288 events): the allocations that fail and the events
    not loaded are counted and said, and the rest is replayed. Most of the
    loaded events are second frees, skipped before the replay, so the boot
    stays short."""
    big = [(i, 0, 9, i % 2) for i in range(40)] + [(i, 1, 9, i % 2) for i in range(40)]
    pairs = [(40 + i // 2, i % 2, 0, (i // 2) % 2) for i in range(2 * 2000)]
    frees = [(40, 1, 0, 0)] * 530000
    events = big + pairs + frees
    b = replay(events, cpus=2, mem_per_node="32M", cpus_per_node=2)
    g = check_counts(b)
    loaded = 524288
    assert g["events"] == len(events), g
    assert g["alloc_failed"] > 0 and g["failed_frees"] == g["alloc_failed"], g
    assert g["replayed"] + g["alloc_failed"] + g["failed_frees"] == len(big) + len(pairs), g
    assert g["peak_held_pages"] == 40 * 512, g
    assert g["not_loaded"] == len(events) - loaded, g
    assert g["invalid_double_free"] == loaded - len(big) - len(pairs) == g["invalid"], g
    assert "allocations failed" in b.console and "give the guest more memory" in b.console
    assert "events beyond are not replayed (not_loaded)" in b.console, b.tail()
