"""Helpers for guest tests: boot memboot in QEMU through tools/memboot and
look at the records it printed. Tests assert on records, never on prose.

    b = boot(nodes=2, cpus_per_node=2, mem_per_node="1G")
    b.expect_ok()
    ranges = b.all("mem_range")
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
# The project's one way to boot, its record reader and its exit statuses.
from mbtools import boot as mbboot, facts, records  # noqa: E402

MEMBOOT = mbboot.MEMBOOT


class Boot(mbboot.Boot):
    """A boot whose records are read strictly: a line announcing a record
    that does not parse, or that breaks records.SCHEMA, is a kernel bug and
    fails the test instead of being skipped."""

    def __init__(self, argv, status, console, stderr, strict=True, wall_s=None):
        try:
            super().__init__(argv, status, console, stderr, strict=True, wall_s=wall_s)
        except records.RecordError as e:
            raise AssertionError(str(e)) from None

    def __repr__(self):
        return f"Boot({' '.join(self.argv)}, status={self.status})"

    def one(self, event):
        found = self.all(event)
        assert len(found) == 1, f"{len(found)} '{event}' records, expected 1\n{self.tail()}"
        return found[0]

    def arrival(self, event):
        idx = [i for i, r in enumerate(self.records) if r["event"] == event]
        assert len(idx) == 1, f"expected one '{event}' record"
        return self.arrivals[idx[0]]

    def tail(self, lines=40):
        return "\n".join(self.console.splitlines()[-lines:]) + "\n" + self.stderr

    def expect_status(self, status):
        assert self.status == status, \
            f"exit status {self.status}, expected {status}\n{self.tail()}"
        if status in (facts.EXIT_TIMEOUT, facts.EXIT_QEMU_FAILED, facts.EXIT_NO_STATUS):
            return None
        done = self.records[-1] if self.records else None
        assert done and done["event"] == "done", f"last record is not 'done'\n{self.tail()}"
        assert done["status"] == status, f"done.status {done['status']} != {status}"
        assert done["ok"] == (status == 0)
        return done

    def expect_ok(self):
        return self.expect_status(0)


def boot(nodes=1, cpus_per_node=1, mem_per_node="1G", firmware="bios", machine=None,
         append="", qemu_args=(), host_times=False, timeout=90, cpu=None, boot_path=None,
         tool_args=(), replay=None):
    """Boot the ISO (env MEMBOOT_ISO, set by tests/run.py) and return a Boot.
    boot_path="efi" or "pvh" passes `--boot` to tools/memboot (efi needs
    firmware="uefi"); the default is GRUB from the ISO."""
    # MEMBOOT_APPEND adds words to every boot's command line, e.g. to run
    # the whole guest suite with another allocator (docs/allocators.md).
    extra = os.environ.get("MEMBOOT_APPEND", "").strip()
    if extra:
        append = f"{append} {extra}".strip()
    argv = mbboot.run_argv(nodes=nodes, cpus_per_node=cpus_per_node,
                           mem_per_node=mem_per_node, firmware=firmware, machine=machine,
                           cpu=cpu, append=append, timeout=timeout, host_times=host_times,
                           boot_path=boot_path, qemu_args=qemu_args, replay=replay)
    if tool_args:      # more options of memboot run (--vars FILE), before "--"
        at = argv.index("--") if "--" in argv else len(argv)
        argv[at:at] = list(tool_args)
    return mbboot.boot(argv, timeout=timeout, strict=True, cwd=ROOT, boot_class=Boot)


# The spare-server loop under Secure Boot, with BootNext and in a Debian
# root: minutes a boot under TCG (OVMF's Secure Boot build runs with SMM).
# `make test` skips them; `make test-spare` and CI (.ci/run) run them.
SPARE_ENV = "MEMBOOT_SPARE_TESTS"


def spare_tests_only():
    """Skip the calling test unless the slow spare-server tests were asked for."""
    if os.environ.get(SPARE_ENV) != "1":
        import unittest
        raise unittest.SkipTest("slow spare-server loop: make test-spare (or %s=1) runs it"
                                % SPARE_ENV)


def check_map_invariants(ranges):
    """mem_range records: sorted, disjoint, page aligned, typed, merged."""
    prev = None
    for r in ranges:
        start, end = int(r["start"], 16), int(r["end"], 16)
        assert start < end, r
        assert start % facts.PAGE_SIZE_BYTES == 0 and end % facts.PAGE_SIZE_BYTES == 0, r
        assert r["type"] in ("usable", "reserved", "acpi", "nvs", "unusable"), r
        if prev:
            pstart, pend, ptype = prev
            assert pend <= start, f"overlap or unsorted: {prev} then {r}"
            assert not (pend == start and ptype == r["type"]), f"unmerged neighbours at {r}"
        prev = (start, end, r["type"])


def usable_bytes(b):
    return sum(int(r["end"], 16) - int(r["start"], 16)
               for r in b.all("mem_range") if r["type"] == "usable")
