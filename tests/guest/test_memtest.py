"""memtest=N in memory init (docs/memory.md, "memtest"): each node's CPUs test
its free memory before it goes to the allocator; stuck bits injected at three
words on two nodes are found, their pages (and only those) kept out as `bad`,
named in lines and records, nothing lost; without injection nothing is found;
memmap=nn$ss and memboot.badram= keep ranges out from the start; the UEFI
results carry the memtest records. Under TCG a pass writes and reads about
0.25 GB/s per node here: memtest=4 over 2 x 1 GiB takes about 20 s."""
import json
import os
import subprocess
import tempfile

from guest import MEMBOOT, ROOT, boot

# Three words on two nodes of 2 x 1 GiB, in free memory (the descriptor
# arrays and per-CPU areas are taken from the top of each node):
# node 0: bit 4 stuck at 1; node 1: bit 63 stuck at 0, and bits 8..15 at 1.
INJECT = [(0x30000008, 0x10, 0x10), (0x48000010, 1 << 63, 0), (0x60000018, 0xff00, 0xff00)]
PATTERNS_4 = [0xaaaaaaaaaaaaaaaa, 0x5555555555555555, 0xffffffffffffffff, 0]
PAGE = 4096


def _inject_arg():
    return "memboot.memtest_inject=" + ",".join(
        f"{a:#x}:{m:#x}:{v:#x}" for a, m, v in INJECT)


def _expected_bad():
    """(addr, pattern, read) for each pass that sees each stuck word."""
    out = []
    for a, m, v in INJECT:
        for p in PATTERNS_4:
            read = (p & ~m) | (v & m)
            if read != p:
                out.append((a, p, read))
    return sorted(out)


def _censuses_ok(b, bad_pages):
    censuses = b.all("census")
    assert censuses and censuses[-1]["when"] == "end"
    for c in censuses:
        assert c["lost"] == 0 and c["bad"] == 0, c
        assert c["bad_mem"] == bad_pages, c
        parts = sum(c[k] for k in ("free", "pcp", "reserved", "memmap", "pagetable", "huge",
                                   "allocated", "bad_mem", "hole"))
        assert parts == c["pages"], c


def test_memtest_finds_injected_stuck_bits_and_keeps_their_pages_out():
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="1G", timeout=300,
             append="memtest=4 " + _inject_arg())
    b.expect_ok()
    tests = {r["node"]: r for r in b.all("memtest")}
    assert sorted(tests) == [0, 1], tests
    want = _expected_bad()
    for nid, t in tests.items():
        assert t["passes"] == 4 and t["store"] in ("nt", "plain"), t
        # Each node's free memory, all of it but what boot took (< 64 MiB).
        assert (1 << 30) - (64 << 20) < t["bytes"] <= 1 << 30, t
        assert t["ns"] > 0 and t["mb_per_s"] > 0, t
    assert tests[0]["errors"] == sum(1 for a, _, _ in want if a < 1 << 30), tests
    assert tests[1]["errors"] == sum(1 for a, _, _ in want if a >= 1 << 30), tests
    assert tests[0]["bad_pages"] == 1 and tests[1]["bad_pages"] == 2, tests
    # A line and record per bad run of words, naming each word exactly.
    bad = b.all("memtest_bad")
    got = sorted((int(r["start"], 16), int(r["pattern"], 16), int(r["read"], 16)) for r in bad)
    assert got == want, (got, want)
    for r in bad:
        start, end = int(r["start"], 16), int(r["end"], 16)
        assert end == start + 8 and r["expected"] == r["pattern"], r
        assert int(r["bits"], 16) == int(r["read"], 16) ^ int(r["pattern"], 16), r
        assert int(r["page"], 16) == start & ~(PAGE - 1), r
        assert r["node"] == (0 if start < 1 << 30 else 1), r
    assert ("memtest: node 0: bad mem addr 0x0030000008 - 0x003000000f pattern "
            "0000000000000000: read 0000000000000010, bits 0000000000000010 differ; "
            "page 0x0030000000 reserved") in b.console, b.tail()
    assert ("memboot.badram=0x48000000-0x48001000,0x60000000-0x60001000") in b.console, b.tail()
    # Exactly those three pages are out, nothing is lost.
    _censuses_ok(b, 3)


def test_without_injection_nothing_is_found_and_badram_keys_take_ranges_out():
    # 2 x 512 MiB: node 1 starts at 512 MiB.
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="512M", timeout=240,
             append="memtest=4 memboot.badram=0x10000000-0x10001000,0x10002008 "
                    "memmap=8K$0x30000000")
    b.expect_ok()
    tests = b.all("memtest")
    assert [t["node"] for t in tests] == [0, 1], tests
    for t in tests:
        assert t["errors"] == 0 and t["bad_pages"] == 0 and t["bad_ranges"] == 0, t
        assert t["passes"] == 4 and t["bytes"] > 400 << 20, t
    assert b.all("memtest_bad") == []
    # 1 + 1 + 2 pages named bad on the command line: reserved from the start.
    kept = b.one("physmem_retire")
    assert kept["types"]["badram"] == 4 * PAGE, kept
    _censuses_ok(b, 4)


def test_no_memtest_no_records():
    b = boot(nodes=1, mem_per_node="256M", append="memtest=0")
    b.expect_ok()
    assert b.all("memtest") == [] and b.all("memtest_bad") == []
    _censuses_ok(b, 0)


def test_uefi_results_carry_the_memtest_records():
    with tempfile.TemporaryDirectory(prefix="memboot-vars-") as tmp:
        vars_file = os.path.join(tmp, "vars.fd")
        b = boot(firmware="uefi", nodes=1, cpus_per_node=2, mem_per_node="512M",
                 timeout=240, tool_args=["--vars", vars_file],
                 append="memtest=1 memboot.memtest_inject=0x10000008:0x1")
        b.expect_ok()
        out = subprocess.run([MEMBOOT, "efivars", vars_file, "--json"], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    kept = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r for r in kept if r["event"] == "memtest"] == b.all("memtest")
    bad = [r for r in kept if r["event"] == "memtest_bad"]
    assert bad == b.all("memtest_bad") and len(bad) == 1, bad
    assert bad[0]["start"] in ("0x10000008", "0x0000000010000008"), bad
