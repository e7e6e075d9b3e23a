"""Debugging a boot: the gdb flow of `memboot run --gdb` and symbolized call
traces.

The kernel is linked at its load address and runs identity mapped, so the
addresses in its ELF are the addresses the CPU executes: gdb needs no
offsets and addr2line reads the crash addresses as printed.
"""

import re
import shlex
import shutil
import subprocess

DEFAULT_GDB_PORT = 1234
# The first C function of every boot path; a hardware breakpoint, because
# under GRUB the kernel is not in memory yet when gdb attaches.
FIRST_BREAK = "kernel_main"

# A call-trace line of arch_backtrace(): " [<ffffffff00123456>] ..."
TRACE_RE = re.compile(r"\[<([0-9a-fA-F]{16})>\]")


def gdb_port(text):
    """--gdb PORT: a TCP port 1..65535."""
    try:
        port = int(text, 10)
    except ValueError:
        raise ValueError("invalid gdb port %r: not an integer" % text)
    if not 1 <= port <= 65535:
        raise ValueError("invalid gdb port %r: must be 1..65535" % text)
    return port


def qemu_gdb_flags(port):
    """Stop the CPU before its first instruction (-S) and listen for gdb on
    the loopback interface only: a stub is a root shell into the guest."""
    return ["-S", "-gdb", "tcp:127.0.0.1:%d" % port]


def gdb_command(elf, port):
    """The gdb command line that attaches to `run --gdb`: the kernel ELF
    for symbols, the remote target, and a first breakpoint."""
    return shlex.join([
        "gdb", elf,
        "-ex", "set architecture i386:x86-64",
        "-ex", "target remote 127.0.0.1:%d" % port,
        "-ex", "hbreak %s" % FIRST_BREAK,
        "-ex", "continue",
    ])


class Symbolizer:
    """Appends 'function at file:line' to call-trace lines, through
    addr2line on the ELF that was booted. Addresses are looked up once."""

    def __init__(self, elf, addr2line=None, root=None):
        self.elf = elf
        # Source paths are shown relative to the tree the ELF was built in.
        self.root = root.rstrip("/") + "/" if root else None
        self.addr2line = addr2line or shutil.which("addr2line")
        self.cache = {}

    def usable(self):
        return bool(self.addr2line and self.elf)

    def lookup(self, addr):
        if addr in self.cache:
            return self.cache[addr]
        where = None
        try:
            out = subprocess.run([self.addr2line, "-f", "-i", "-p", "-e", self.elf, addr],
                                 capture_output=True, text=True, timeout=10)
            text = out.stdout.strip()
            # addr2line prints "?? ??:0" for an address it does not know.
            if out.returncode == 0 and text and not text.startswith("??"):
                # -i lists inlined frames on lines of their own.
                where = " <- ".join(part.strip() for part in text.splitlines())
                if self.root:
                    where = where.replace(self.root, "")
        except (OSError, subprocess.SubprocessError):
            where = None
        self.cache[addr] = where
        return where

    def line(self, text):
        """The console line with its call-trace address symbolized, or as
        it was."""
        if not self.usable():
            return text
        m = TRACE_RE.search(text)
        if not m:
            return text
        addr = int(m.group(1), 16)
        # A return address is the instruction after the call: look up the
        # byte before it, so the line named is the call's (as Linux does).
        if "faulting instruction" not in text and addr:
            addr -= 1
        where = self.lookup("%#x" % addr)
        return "%s %s" % (text, where) if where else text
