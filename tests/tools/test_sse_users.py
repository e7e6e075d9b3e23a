"""Which kernel code uses SSE registers (xmm, ymm), from the built kernel ELFs.

The kernel is built with general registers only (-mgeneral-regs-only), so no
interrupt or exception handler saves or clobbers SSE state. Two exceptions
are allowed, each safe for its own reason (and the entry code, below):
  - the 16-byte non-temporal store, x86_64's arch_store_nt16_x4()
    (arch/x86_64/include/asm/memory.h, always inlined: the rule lives
    there): movntdq, its registers loaded in the same asm statement that
    stores them, so only a handler using SSE could disturb it. Its users:
    mm/memmap.c's store_nt() (inlined where the compiler likes, into
    memmap_init_range_store()) and mm/memtest.c's memtest_store_nt() (kept
    out of line), one or two registers loaded in the statement;
  - libgcc's 128-bit division (__udivmodti4), called by the clock calibration,
    the store probe, the console's timestamps and delays: none of them runs
    inside a handler that returns (a fatal trap may call it on its way out);
  - the entries' .bss clear (arch/bss_clear.h, in long_mode_entry and
    _start64): xmm0 zeroed and stored with interrupts off, before the IDT
    exists and before any C code, so nothing can interrupt it or read it.
A new SSE user must be looked at against those rules before it is added
here.
"""

import os
import re
import subprocess
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ALLOWED = {"store_nt", "memmap_init_range_store", "memtest_store_nt", "__udivmodti4", "long_mode_entry", "_start64"}
FUNC = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
SSE = re.compile(r"%[xy]mm\d+")


def parse_sse_users(disassembly):
    """{function: instructions using xmm/ymm registers} of objdump -d text."""
    users, fn = {}, None
    for line in disassembly.splitlines():
        m = FUNC.match(line)
        if m:
            fn = m.group(1)
        elif fn and SSE.search(line):
            users[fn] = users.get(fn, 0) + 1
    return users


def sse_users(elf):
    return parse_sse_users(subprocess.run(["objdump", "-d", "--no-show-raw-insn", elf],
                                          capture_output=True, text=True, check=True).stdout)


class SseUsers(unittest.TestCase):
    def elfs(self):
        found = [os.path.join(REPO_ROOT, "build", mode, "memboot.elf")
                 for mode in ("debug", "release")]
        found = [p for p in found if os.path.exists(p)]
        if not found:
            self.fail("no build/debug/memboot.elf or build/release/memboot.elf (run `make`)")
        return found

    def test_only_the_allowed_functions_use_sse(self):
        for elf in self.elfs():
            with self.subTest(elf=os.path.relpath(elf, REPO_ROOT)):
                users = sse_users(elf)
                self.assertEqual(set(users) - ALLOWED, set(), users)
                # The scan itself works: the descriptor store is seen.
                self.assertTrue(users.keys() & {"store_nt", "memmap_init_range_store"}, users)

    def test_the_scan_finds_an_sse_instruction(self):
        text = ("0000000000100000 <f>:\n  100000:\tmovq   %rdi,%xmm0\n"
                "0000000000100010 <g>:\n  100010:\tmov    %rdi,%rax\n")
        users = parse_sse_users(text)
        self.assertEqual(users, {"f": 1})


if __name__ == "__main__":
    unittest.main()
