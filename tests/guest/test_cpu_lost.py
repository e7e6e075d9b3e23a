"""A CPU lost in the middle of memory init (kernel/services/jobs/job.h, "a CPU lost
mid-job"): memboot.fault=ap-park stops the first AP that reaches the middle
of a meminit chunk, for good, interrupts off. The boot still reaches `done`
with status 6 (cpu lost), a warning names the CPU, the node's other CPUs (or
the waiter) finish its chunk step by step, each step once: every free page
is in the allocator once, the census loses nothing. Once during plain
memory init, once during memtest=1 (each step is tested before it is
freed). 2 x 2 CPUs x 512 MiB."""
import re

from guest import boot
from mbtools import facts

CPU_LOST = next(s for s, sym in facts.EXIT_SYMBOLS.items() if sym == "EXIT_CPU_LOST")


def _check(b):
    done = b.expect_status(CPU_LOST)
    assert done["status"] == CPU_LOST == 6, done
    m = re.search(r"fault: CPU (\d+) stops answering in the middle of its meminit chunk", b.console)
    assert m, b.tail()
    cpu = int(m.group(1))
    assert cpu != 0
    assert re.search(rf"job meminit: CPU {cpu} made no progress for \d+ ms in the middle of its "
                     r"chunk \d+ .*counted lost", b.console), b.tail()
    assert "was lost inside a step" not in b.console, b.tail()
    inits = {r["node"]: r for r in b.all("node_init")}
    censuses = b.all("census")
    assert censuses and censuses[-1]["when"] == "end"
    for c in censuses:
        assert c["lost"] == 0 and c["bad"] == 0 and c["check"] is True, c
    # Every free page handed over once: the census's free pages are the
    # memory physmem left free (a page freed twice, or never, would differ).
    assert censuses[0]["free"] == sum(i["free_pages"] for i in inits.values()), (censuses, inits)
    return cpu


def test_cpu_parked_during_meminit():
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="512M", timeout=120,
             append="memboot.fault=ap-park memboot.init_deadline_ms=300")
    _check(b)


def test_cpu_parked_during_memtest():
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="512M", timeout=240,
             append="memtest=1 memboot.fault=ap-park memboot.init_deadline_ms=1000")
    _check(b)
    tests = b.all("memtest")
    assert [t["node"] for t in tests] == [0, 1], tests
    # Every free page was tested (once: bytes are the node's free memory).
    inits = {r["node"]: r for r in b.all("node_init")}
    for t in tests:
        assert t["errors"] == 0, t
        assert t["bytes"] == inits[t["node"]]["free_pages"] * 4096, (t, inits)
