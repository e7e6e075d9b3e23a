"""The host's TSC rate and load, to judge a guest's clock and timings.

host_tsc_hz() measures the host's TSC against CLOCK_MONOTONIC_RAW with the
same bracketing the kernel uses: each clock reading sits between two TSC
reads, and only the narrowest brackets of a burst count, so a process
descheduled mid-reading does not bias the figure. Under QEMU TCG (and KVM
without TSC scaling) the guest's TSC runs at exactly this rate, so it is the
reference for boot.tsc_hz. The TSC is read by a 10-byte x86-64 routine placed
in executable memory through ctypes; where that is not possible (another
architecture, a kernel that forbids executable mappings) the answer is None.
"""
import ctypes
import mmap
import os
import platform
import time

# rdtsc; shl rdx, 32; or rax, rdx; ret
_RDTSC_CODE = bytes.fromhex("0f3148c1e2204809d0c3")
_rdtsc = None


def _reader():
    global _rdtsc
    if _rdtsc is None:
        if platform.machine() not in ("x86_64", "AMD64"):
            return None
        try:
            buf = mmap.mmap(-1, mmap.PAGESIZE,
                            prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        except (OSError, ValueError, AttributeError):
            return None
        buf.write(_RDTSC_CODE)
        addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
        fn = ctypes.CFUNCTYPE(ctypes.c_uint64)(addr)
        fn._buf = buf   # keep the mapping alive with the function
        _rdtsc = fn
    return _rdtsc


def _best_pair(rdtsc, tries=200):
    """(tsc, clock ns) from the narrowest of @tries bracketed readings."""
    best = None
    for _ in range(tries):
        t0 = rdtsc()
        ns = time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW)
        t1 = rdtsc()
        width = t1 - t0
        if best is None or width < best[0]:
            best = (width, (t0 + t1) // 2, ns)
    return best[1], best[2]


def host_tsc_hz(seconds=0.5):
    """The host's TSC frequency in Hz, or None if it cannot be read."""
    rdtsc = _reader()
    if rdtsc is None:
        return None
    c0, n0 = _best_pair(rdtsc)
    time.sleep(seconds)
    c1, n1 = _best_pair(rdtsc)
    if n1 <= n0 or c1 <= c0:
        return None
    return (c1 - c0) * 1_000_000_000 / (n1 - n0)


def host_cpus():
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def load_average():
    """The 1-minute load average, or None."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def conditions(vcpus):
    """Warnings about the host that make parallel timings unreliable: more
    vCPUs than host CPUs, or a host already busy. An empty list when none."""
    notes = []
    cpus = host_cpus()
    if vcpus > cpus:
        notes.append(f"{vcpus} vCPUs on {cpus} host CPUs: vCPUs share host CPUs, "
                     "so per-CPU and parallel timings are not those of real hardware")
    load = load_average()
    if load is not None and load > max(cpus - vcpus, 0) + 0.5:
        notes.append(f"host load average {load:.2f} on {cpus} CPUs: other work competes "
                     "with the guest's vCPUs; take medians of several boots")
    return notes
