"""boot: boot memboot once through `tools/memboot run` and read its records.

The one way the tools, the benchmarks and the guest tests boot a kernel:
tools/memboot bench (and --seed, --scale, compare-linux), bench/pcp_guest.py,
bench/qemu_meminit.py and tests/guest/guest.py all build the command with
run_argv() and run it with boot().

    b = boot(run_argv(nodes=2, cpus_per_node=2, mem_per_node="1G",
                      boot_path="pvh", elf=elf, append="memboot.init=lazy"),
             timeout=120)
    b.status, b.records, b.console, b.stderr, b.problems, b.wall_s

The console is always taken from `run --log` (the raw console, whatever
--json or --host-times do to stdout) and read by mbtools.records, the one
record reader: bad records are skipped and listed in b.problems, or with
strict=True raise records.RecordError.

Standard library only.
"""

import os
import subprocess
import sys
import tempfile
import time

from mbtools import facts, records

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
MEMBOOT = os.path.join(TOOLS_DIR, "memboot")

# Seconds boot() waits beyond the run's own --timeout (QEMU's start and exit,
# the tool's grace after the done record) before it gives up on the tool.
TIMEOUT_MARGIN_S = 60


def run_argv(nodes=1, cpus_per_node=1, mem_per_node="1G", boot_path=None, elf=None,
             iso=None, firmware=None, machine=None, cpu=None, append="", timeout=120,
             host_times=False, qemu_args=(), replay=None, accel=None, prealloc=False,
             arch=None, image=None):
    """The argv of one `tools/memboot run` (without --log, which boot() adds)."""
    argv = [sys.executable, MEMBOOT, "run", "--nodes", str(nodes),
            "--cpus-per-node", str(cpus_per_node), "--mem-per-node", str(mem_per_node),
            "--timeout", "%g" % timeout]
    if arch:
        argv += ["--arch", arch]
    if boot_path:
        argv += ["--boot", boot_path]
    if firmware:
        argv += ["--firmware", firmware]
    if machine:
        argv += ["--machine", machine]
    if cpu:
        argv += ["--cpu", cpu]
    if elf:
        argv += ["--elf", elf]
    if iso:
        argv += ["--iso", iso]
    if image:
        argv += ["--image", image]
    if append:
        # One option, '=' form: words starting with '-' stay words.
        argv.append("--append=" + append)
    if host_times:
        argv.append("--host-times")
    if prealloc:
        argv.append("--prealloc")
    if replay:
        argv += ["--replay", replay]
    if accel:
        argv += ["--accel", accel]
    if qemu_args:
        argv += ["--"] + list(qemu_args)
    return argv


def _timeout_of(argv):
    if "--timeout" in argv:
        try:
            return float(argv[argv.index("--timeout") + 1])
        except (IndexError, ValueError):
            pass
    return 120.0


class Boot:
    """One boot: the run's exit status, its console, stderr and records."""

    def __init__(self, argv, status, console, stderr, strict=False, wall_s=None):
        self.argv = list(argv)
        self.status = status
        self.console = console
        self.stderr = stderr
        self.wall_s = wall_s
        log = records.parse_log(console, name="console", strict=strict)
        self.records = log.records
        self.arrivals = log.times       # host seconds per record, with --host-times
        self.problems = log.problems

    @property
    def done(self):
        """The done record, if the boot printed one last."""
        if self.records and self.records[-1]["event"] == "done":
            return self.records[-1]
        return None

    def all(self, event):
        records.check_event(event)
        return [r for r in self.records if r["event"] == event]


def boot(argv, timeout=None, strict=False, cwd=REPO_ROOT, boot_class=Boot):
    """Run @argv (from run_argv()) with --log in a temporary directory and
    return a @boot_class. The run is given its own --timeout plus
    TIMEOUT_MARGIN_S; past that the tool is killed and the status is
    EXIT_TIMEOUT with a note in stderr."""
    argv = list(argv)
    limit = (timeout if timeout is not None else _timeout_of(argv)) + TIMEOUT_MARGIN_S
    with tempfile.TemporaryDirectory(prefix="memboot-boot-") as tmp:
        log = os.path.join(tmp, "console.log")
        if "--" in argv:
            i = argv.index("--")
            full = argv[:i] + ["--log", log] + argv[i:]
        else:
            full = argv + ["--log", log]
        t0 = time.monotonic()
        try:
            proc = subprocess.run(full, cwd=cwd, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  timeout=limit)
            status, stderr = proc.returncode, proc.stderr
        except subprocess.TimeoutExpired as e:
            status = facts.EXIT_TIMEOUT
            stderr = (e.stderr or b"") + (b"\nboot: tools/memboot run did not end in "
                                          b"%d s; killed\n" % limit)
        wall_s = time.monotonic() - t0
        console = b""
        if os.path.exists(log):
            with open(log, "rb") as f:
                console = f.read()
    return boot_class(full, status, console.decode("utf-8", errors="replace"),
                      stderr.decode("utf-8", errors="replace"), strict=strict,
                      wall_s=wall_s)
