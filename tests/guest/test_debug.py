"""The developer flow on a real boot: gdb attached through `run --gdb` stops
at the first C function, and a crash's call trace printed by tools/memboot
names functions and lines (addr2line on the booted ELF). PVH: the fastest
path to kernel_main."""
import os
import socket
import subprocess
import time

from guest import MEMBOOT, ROOT


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _elf():
    return os.environ.get("MEMBOOT_ELF") or os.path.join(ROOT, "build", "debug", "memboot.elf")


def test_gdb_stops_at_kernel_main():
    port = _free_port()
    run = subprocess.Popen([MEMBOOT, "run", "--boot", "pvh", "--elf", _elf(), "--gdb", str(port)],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "gdb stub never listened"
                time.sleep(0.2)
        # The stub takes one client at a time: the probe above has left.
        time.sleep(0.5)
        gdb = subprocess.run(
            ["gdb", "-batch", "-nx", _elf(), "-ex", "set architecture i386:x86-64",
             "-ex", "target remote 127.0.0.1:%d" % port, "-ex", "hbreak kernel_main",
             "-ex", "continue", "-ex", "info symbol $pc", "-ex", "kill"],
            capture_output=True, text=True, timeout=120)
        assert "kernel_main" in gdb.stdout.split("Breakpoint 1,", 1)[-1], gdb.stdout + gdb.stderr
        assert "in section .text" in gdb.stdout, gdb.stdout
    finally:
        run.kill()
        out, err = run.communicate(timeout=30)
    assert "target remote 127.0.0.1:%d" % port in err, err


def test_crash_call_trace_is_symbolized():
    proc = subprocess.run([MEMBOOT, "run", "--boot", "pvh", "--elf", _elf(), "--timeout", "90",
                           "--append", "memboot.fault=ud"],
                          cwd=ROOT, capture_output=True, text=True, timeout=150)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr
    trace = [l for l in proc.stdout.splitlines() if "[<" in l]
    assert trace, proc.stdout[-2000:]
    assert "(faulting instruction) fault_inject at kernel/fault/inject.c:" in trace[0], trace
    assert any(" kernel_main at kernel/init/main.c:" in l for l in trace[1:]), trace
