"""tools/memboot compare-linux: Debian's Linux cloud kernel beside memboot.

Both boot in the same QEMU configuration (the command line `tools/memboot
run --dry-run` prints, with Linux's kernel in place of memboot's). On
x86_64 Linux's bzImage boots through the same PVH entry as memboot's ELF;
on arm64 (--arch arm64) Debian's cloud-arm64 kernel is an arm64 Image with
an EFI stub, which QEMU's -kernel enters directly with the device tree, as
it enters memboot's Image: Linux sees the nodes from the tree (under AAVMF
Linux 6.1 would fold them into one, issue 45); on ppc64le (--arch ppc64le)
Debian's powerpc64le vmlinux (an ELF; Debian has no cloud flavour there) is
loaded by QEMU pseries's -kernel and entered by VOF, as memboot's ELF is:
Linux reads the nodes from ibm,associativity. Linux has no root file system
here, so it panics at the root mount, after memory init and the huge page
pools; `panic=-1` and QEMU's -no-reboot end the run (pseries: QEMU reports
the guest's panic and exits), and `ftrace_dump_on_oops` prints the trace
buffer first.

Timing. Linux's own "node N deferred pages initialised in Xms" is measured
in jiffies (HZ=250 on Debian: 4 ms steps). Under TCG the timer interrupts
that advance jiffies arrive late and are merged, so jiffies run behind the
wall clock and that figure reads low (up to 4x here). So the table also
times both steps from trace events stamped with trace_clock=local, the
per-CPU sched_clock (x86_64: the TSC; arm64: the generic timer's
counter; ppc64le: the timebase; QEMU derives them from the host clock):
  deferred init: sched_process_fork of the pgdatinitN kthread to its
                 sched_process_exit (the kthread does only that work)
  huge pools:    initcall_start to initcall_finish of hugetlb_init (Linux
                 6.1 allocates the 2 MiB pools there, one node after the
                 other on one CPU, each page zeroed: init_on_alloc is on in
                 Debian's config)

The kernel package is fetched on first use with `apt-get download` into
~/.cache/memboot/linux (or --cache) and unpacked with dpkg-deb; `make test`
never needs it (tests/tools read captured logs).
"""

import glob
import json
import os
import re
import shlex
import statistics
import subprocess
import sys

from mbtools import bench, boot as mbboot, inputs

# Per architecture: Debian's architecture name, the meta-package that
# depends on the current kernel and the flavour that ends its name, the
# kernel file in its /boot, the console, memboot's boot path, the
# sched_clock source and how the nodes' CPUs are named in the table.
# Debian has no cloud flavour for ppc64el: its one powerpc64le kernel.
ARCHES = {
    "x86_64": {"debarch": "amd64", "package": "linux-image-cloud-amd64",
               "flavour": "cloud-amd64", "file": "vmlinuz", "console": "ttyS0",
               "boot": "pvh", "entry": "PVH entry", "clock": "TSC", "cpu_ids": "APIC IDs",
               "huge": "hugepagesz=2M hugepages=0:256,1:256", "mem_slack": 1 << 20},
    "arm64": {"debarch": "arm64", "package": "linux-image-cloud-arm64",
              "flavour": "cloud-arm64", "file": "vmlinuz", "console": "ttyAMA0",
              "boot": "image", "entry": "QEMU -kernel with the device tree",
              "clock": "generic timer", "cpu_ids": "count",
              "huge": "hugepagesz=2M hugepages=0:256,1:256", "mem_slack": 1 << 20},
    "ppc64le": {"debarch": "ppc64el", "package": "linux-image-powerpc64le",
                "flavour": "powerpc64le", "file": "vmlinux", "console": "hvc0",
                "boot": "vof", "entry": "QEMU pseries -kernel under VOF (Open Firmware)",
                "clock": "timebase", "cpu_ids": "count",
                "huge": "hugepagesz=2M hugepages=512", "mem_slack": 5 << 20},
}
# Linux's pools: powerpc's Linux 6.1 ignores the node:count form of
# hugepages= ("architecture can't support node specific alloc"), so
# ppc64le's default asks for a count both kernels spread over the nodes.
# Memory: memboot's node.mem_bytes is usable RAM, Linux's node ranges all of
# it; they agree within the slack memboot keeps back: the flattened tree
# (1 MiB), and on pseries the 4 MiB below the kernel (vectors, VOF).
PACKAGE = ARCHES["x86_64"]["package"]
DEFAULT_CACHE = os.path.join(os.path.expanduser("~"), ".cache", "memboot", "linux")

TRACE_WORDS = ("trace_clock=local "
               "trace_event=sched:sched_process_fork,sched:sched_process_exit,"
               "initcall:initcall_start,initcall:initcall_finish "
               "ftrace_dump_on_oops trace_buf_size=1M")


def linux_words(arch="x86_64"):
    """Linux's command line before the huge page words."""
    return "console=%s panic=-1 %s" % (ARCHES[arch]["console"], TRACE_WORDS)


LINUX_WORDS = linux_words()


class LinuxError(Exception):
    """Fetching or booting Linux failed; the message says what to do."""


# ---------------------------------------------------------------------------
# Fetching the kernel
# ---------------------------------------------------------------------------

def version_key(text):
    """Orders Debian version strings the way their numbers do (6.1.0-57
    after 6.1.0-9), never by the characters' order."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p)
            for p in re.findall(r"\d+|[A-Za-z]+", text)]


def find_vmlinuz(cache, arch="x86_64"):
    """The newest kernel of @arch's flavour unpacked in @cache, by version
    (another architecture's or flavour's kernel there is never taken)."""
    a = ARCHES[arch]
    prefix, suffix = a["file"] + "-", "-" + a["flavour"]
    found = [p for p in glob.glob(os.path.join(cache, "root", "boot", prefix + "*" + suffix))
             if re.fullmatch(r"\d+\.\d+\.\d+-\d+",
                             os.path.basename(p)[len(prefix):-len(suffix)])]
    return max(found, key=lambda p: version_key(os.path.basename(p))) if found else None


def _run(argv, cwd=None):
    """@argv's status and output; a tool that cannot be started answers 127."""
    try:
        return subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    except OSError as e:
        return subprocess.CompletedProcess(argv, 127, "%s: %s" % (argv[0], e.strerror or e))


def _add_foreign_architecture(debarch):
    """dpkg --add-architecture @debarch and apt-get update, as root (as
    tools/fetch-deb.sh does for arm64's gnu-efi); packages of it are
    downloaded and unpacked, never installed. False if that cannot be done."""
    if os.geteuid() != 0:
        return False
    native = _run(["dpkg", "--print-architecture"])
    foreign = _run(["dpkg", "--print-foreign-architectures"])
    if native.returncode != 0 or debarch == native.stdout.strip() or \
            debarch in foreign.stdout.split():
        return False            # already known: updating again would not help
    if _run(["dpkg", "--add-architecture", debarch]).returncode != 0:
        return False
    return _run(["apt-get", "update", "-qq"]).returncode == 0


def fetch_kernel(cache, log=sys.stderr, arch="x86_64"):
    """The kernel of Debian's @arch flavour (vmlinuz, or ppc64el's vmlinux),
    downloaded on first use (another architecture's through dpkg's foreign
    architecture, added when apt does not know it yet: the package is
    downloaded and unpacked, never installed)."""
    a = ARCHES[arch]
    debarch, package = a["debarch"], a["package"]
    have = find_vmlinuz(cache, arch)
    if have:
        return have
    os.makedirs(cache, exist_ok=True)
    for tool in ("apt-get", "apt-cache", "dpkg-deb"):
        if not any(os.access(os.path.join(d, tool), os.X_OK)
                   for d in os.environ.get("PATH", "").split(os.pathsep)):
            raise LinuxError("%s not found: compare-linux needs Debian's apt tools "
                             "(or pass --kernel VMLINUZ)" % tool)
    qualified = package + ":" + debarch
    want = r"Depends: (linux-image-\d\S*-%s)(?::%s)?\b" % (re.escape(a["flavour"]), debarch)
    dep = _run(["apt-cache", "depends", qualified])
    m = re.search(want, dep.stdout)
    if (dep.returncode != 0 or not m) and arch != "x86_64" and \
            _add_foreign_architecture(debarch):
        print("compare-linux: added dpkg architecture %s (apt-get update)" % debarch,
              file=log, flush=True)
        dep = _run(["apt-cache", "depends", qualified])
        m = re.search(want, dep.stdout)
    if dep.returncode != 0 or not m:
        hint = "" if arch == "x86_64" else \
            "`dpkg --add-architecture %s; apt-get update` first, " % debarch
        raise LinuxError("apt-cache knows no %s (run %s`apt-get update`, or pass "
                         "--kernel VMLINUZ): %s" % (qualified, hint, dep.stdout.strip()[-300:]))
    pkg = m.group(1)
    print("compare-linux: fetching %s into %s (20-50 MB, once)" % (pkg, cache),
          file=log, flush=True)
    dl = _run(["apt-get", "download", pkg + ":" + debarch], cwd=cache)
    debs = glob.glob(os.path.join(cache, "%s_*_%s.deb" % (pkg, debarch)))
    if dl.returncode != 0 or not debs:
        raise LinuxError("could not download %s (offline? no apt sources?); apt-get "
                         "said: %s\nPass --kernel VMLINUZ to use a kernel you have."
                         % (pkg, dl.stdout.strip()[-400:]))
    deb = max(debs, key=lambda p: version_key(os.path.basename(p)))
    ex = _run(["dpkg-deb", "-x", deb, os.path.join(cache, "root")])
    have = find_vmlinuz(cache, arch)
    if ex.returncode != 0 or not have:
        raise LinuxError("dpkg-deb could not unpack %s: %s" % (deb, ex.stdout[-300:]))
    return have


def kernel_config(vmlinuz):
    """The CONFIG_ lines that matter here, from the config-* file beside it."""
    path = os.path.join(os.path.dirname(vmlinuz),
                        re.sub(r"^vmlinu[xz]-", "config-", os.path.basename(vmlinuz)))
    want = ("CONFIG_DEFERRED_STRUCT_PAGE_INIT", "CONFIG_NUMA", "CONFIG_HUGETLB_PAGE",
            "CONFIG_HUGETLBFS", "CONFIG_INIT_ON_ALLOC_DEFAULT_ON", "CONFIG_HZ",
            "CONFIG_PADATA", "CONFIG_PVH")
    found = {k: "not set" for k in want}
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r"(CONFIG_\w+)=(.*)", line)
                if m and m.group(1) in found:
                    found[m.group(1)] = m.group(2)
    except OSError:
        return {}
    return found


# ---------------------------------------------------------------------------
# Parsing a Linux console log
# ---------------------------------------------------------------------------

# A trace line as ftrace_dump prints it:
#   [    5.999718] pgdatini-37        2..... 830651us : sched_process_exit: comm=...
TRACE_RE = re.compile(r"\s(\d+)\.{0,1}[.\w]*\s+(\d+)us\s*:\s*(\w+):\s*(.*)$")


def _span_bytes(a, b):
    return int(b, 16) - int(a, 16) + 1          # Linux prints inclusive ends


def parse_linux_log(text):
    """Everything compare-linux reports, from one Linux console log."""
    out = {"version": None, "cpus": {}, "mem_bytes": {}, "slit": False,
           "deferred_jiffies_ms": {}, "deferred_trace_ms": {}, "usable_trace_ms": None,
           "hugetlb": [], "hugetlb_nodes_ignored": False,
           "hugetlb_init_ms": None, "init_on_alloc": None, "panicked": False,
           "trace_dumped": False, "nodes_up": None, "cpus_up": None}
    forks, exits, initcalls = {}, {}, {}
    for line in text.splitlines():
        m = re.search(r"Linux version (\S+)", line)
        if m and out["version"] is None:
            out["version"] = m.group(1)
        m = re.search(r"SRAT: PXM \d+ -> APIC 0x([0-9a-f]+) -> Node (\d+)", line)
        if m:
            out["cpus"].setdefault(int(m.group(2)), []).append(int(m.group(1), 16))
        m = re.search(r"^\S*\s*(?:\[\s*[\d.]+\]\s*)?\s*node\s+(\d+): \[mem (0x[0-9a-f]+)-(0x[0-9a-f]+)\]",
                      line)
        if m:
            n = int(m.group(1))
            out["mem_bytes"][n] = out["mem_bytes"].get(n, 0) + _span_bytes(m.group(2), m.group(3))
        # "smp: Brought up 2 nodes, 4 CPUs": a device-tree boot prints no
        # CPU-to-node line, so the totals are what can be compared there.
        m = re.search(r"smp: Brought up (\d+) nodes?, (\d+) CPUs?", line)
        if m:
            out["nodes_up"], out["cpus_up"] = int(m.group(1)), int(m.group(2))
        if re.search(r"ACPI: SLIT 0x", line):
            out["slit"] = True
        m = re.search(r"node (\d+) deferred pages initialised in (\d+)ms", line)
        if m:
            out["deferred_jiffies_ms"][int(m.group(1))] = int(m.group(2))
        if "HugeTLB: architecture can't support node specific alloc" in line:
            out["hugetlb_nodes_ignored"] = True
        m = re.search(r"HugeTLB: registered ([\d.]+) (KiB|MiB|GiB) page size, pre-allocated (\d+) pages",
                      line)
        if m:
            size = float(m.group(1)) * (1 << {"KiB": 10, "MiB": 20, "GiB": 30}[m.group(2)])
            out["hugetlb"].append({"size_bytes": int(size), "allocated": int(m.group(3))})
        m = re.search(r"mem auto-init: .*heap alloc:(\w+)", line)
        if m:
            out["init_on_alloc"] = m.group(1) == "on"
        if "Kernel panic - not syncing" in line:
            out["panicked"] = True
        if "Dumping ftrace buffer" in line:
            out["trace_dumped"] = True
        m = TRACE_RE.search(line)
        if not m:
            continue
        ts_us, event, rest = int(m.group(2)), m.group(3), m.group(4)
        if event == "sched_process_fork":
            c = re.search(r"child_pid=(\d+)", rest)
            if c:
                forks[int(c.group(1))] = ts_us
        elif event == "sched_process_exit":
            c = re.search(r"comm=pgdatinit(\d+) pid=(\d+)", rest)
            if c:
                exits[int(c.group(2))] = (int(c.group(1)), ts_us)
        elif event in ("initcall_start", "initcall_finish"):
            c = re.search(r"func=hugetlb_init\+", rest)
            if c:
                initcalls[event] = ts_us
    for pid, (node, ts) in exits.items():
        if pid in forks:
            out["deferred_trace_ms"][node] = (ts - forks[pid]) / 1000.0
    if exits:
        # Kernel entry to the last node's deferred init done: the stamps
        # are sched_clock (the TSC, trace_clock=local), which starts at 0
        # as the kernel sets its clock up in setup_arch(), a few
        # instructions of early boot after its entry.
        out["usable_trace_ms"] = max(ts for _, ts in exits.values()) / 1000.0
    if "initcall_start" in initcalls and "initcall_finish" in initcalls:
        out["hugetlb_init_ms"] = (initcalls["initcall_finish"] - initcalls["initcall_start"]) / 1000.0
    for n in out["cpus"]:
        out["cpus"][n].sort()
    return out


def memboot_facts(records):
    """The same facts from a memboot boot's records."""
    out = {"cpus": {}, "mem_bytes": {}, "distance": {}, "slit": False,
           "deferred_ms": {}, "hugetlb": {}, "hugetlb_phase_ms": None, "usable_ms": None}
    for r in records:
        ev = r.get("event")
        if ev == "done" and r.get("usable_ns"):
            out["usable_ms"] = r["usable_ns"] / 1e6
        if ev == "node":
            out["cpus"][r["node"]] = r.get("cpus", [])
            out["mem_bytes"][r["node"]] = r.get("mem_bytes", 0)
            out["distance"][r["node"]] = r.get("distance", [])
        elif ev == "numa":
            out["slit"] = bool(r.get("slit"))
        elif ev == "node_init":
            out["deferred_ms"][r["node"]] = r["ns"] / 1e6
        elif ev == "hugetlb":
            out["hugetlb"][(r["node"], r["size_bytes"])] = (r["allocated"], r["ns"] / 1e6,
                                                           r.get("zeroed"))
        elif ev == "phase" and r.get("name") == "hugetlb":
            out["hugetlb_phase_ms"] = r["ns"] / 1e6
    return out


# ---------------------------------------------------------------------------
# Booting
# ---------------------------------------------------------------------------

def qemu_command(nodes, cpus, mem, vmlinuz, words, arch="x86_64"):
    """memboot's own QEMU command line (x86_64: PVH; arm64: -kernel with
    the device tree; ppc64le: pseries -kernel under VOF) with Linux in
    place of memboot."""
    boot = ARCHES[arch]["boot"]
    if boot == "pvh":
        argv = mbboot.run_argv(nodes=nodes, cpus_per_node=cpus, mem_per_node=mem,
                               boot_path="pvh", elf=vmlinuz)
    else:
        argv = mbboot.run_argv(nodes=nodes, cpus_per_node=cpus, mem_per_node=mem,
                               boot_path=boot, image=vmlinuz, arch=arch)
    dry = subprocess.run(argv + ["--dry-run"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    if dry.returncode != 0:
        raise LinuxError("tools/memboot run --dry-run failed: %s" % dry.stderr.strip())
    return shlex.split(dry.stdout.strip()) + ["-append", words]


# The check of --kernel (or the fetched kernel) per boot path.
KERNEL_PROBLEM = {"pvh": inputs.bzimage_problem, "image": inputs.image_problem,
                  "vof": inputs.ppc64le_elf_problem}


def boot_linux(cmd, timeout):
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout, text=True, errors="replace")
    except subprocess.TimeoutExpired as e:
        raise LinuxError("Linux did not reach its root-mount panic in %g s" % timeout) from e
    return proc.stdout


def fmt_mib(b):
    return "%.0f MiB" % (b / (1 << 20))


def fmt_ratio(a, b):
    """a / b as "12x", or "0.43x" below 10 (never a "0x" for a Linux faster
    than memboot)."""
    if not a or not b:
        return "-"
    r = a / b
    return "%.0fx" % r if r >= 10 else "%.2gx" % r


def median_or_none(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt_ms(x):
    return "-" if x is None else "%.1f" % x


def linux_cpus_cell(L, M, n):
    """Linux's CPUs of node @n and whether their number agrees with
    memboot's: per node where Linux names them (x86's SRAT lines), else
    (a device-tree boot) the totals of its "smp: Brought up" line."""
    if L["cpus"]:
        lc = L["cpus"].get(n, [])
        return ",".join(map(str, lc)) or "-", len(lc) == len(M["cpus"].get(n, []))
    if L["cpus_up"] is None:
        return "-", False
    total = sum(len(c) for c in M["cpus"].values())
    return ("%d CPUs in %d node%s (all)" % (L["cpus_up"], L["nodes_up"],
                                             "" if L["nodes_up"] == 1 else "s"),
            L["cpus_up"] == total and L["nodes_up"] == len(M["cpus"]))


def report(linux_runs, memboot_runs, huge_words, config, kconfig, arch="x86_64"):
    """The side-by-side markdown tables."""
    L, M = linux_runs[0], memboot_runs[0]
    a = ARCHES[arch]
    nodes = sorted(set(L["cpus"]) | set(M["cpus"]))
    out = ["## memboot beside Linux %s" % (L["version"] or "?"), "",
           "Same QEMU configuration (TCG, %s, %s), `%s`; %d boot(s) each, medians."
           % (config, a["entry"], huge_words, len(linux_runs)), ""]
    if kconfig:
        out.append("Linux config: " + ", ".join("%s=%s" % kv for kv in kconfig.items()) + ".")
        out.append("")
    out += ["### Topology", "",
            "| node | Linux CPUs (%s) | memboot CPUs | Linux memory | memboot memory | distances | agree |"
            % a["cpu_ids"],
            "|---|---|---|---|---|---|---|"]
    for n in nodes:
        mc = M["cpus"].get(n, [])
        lcell, cpus_agree = linux_cpus_cell(L, M, n)
        lm, mm = L["mem_bytes"].get(n, 0), M["mem_bytes"].get(n, 0)
        dist = M["distance"].get(n, [])
        lin_dist = "SLIT" if L["slit"] else "no SLIT (10/20)"
        agree = (cpus_agree and abs(lm - mm) <= a["mem_slack"]
                 and L["slit"] == M["slit"])
        out.append("| %d | %s | %s | %s | %s | Linux %s, memboot %s | %s |" % (
            n, lcell, ",".join(map(str, mc)) or "-",
            fmt_mib(lm), fmt_mib(mm), lin_dist, dist, "yes" if agree else "NO"))
    out += ["", "Memory: usable bytes per node (Linux: its early memory node ranges; "
            "memboot: `node.mem_bytes`, within %s of Linux's). CPUs agree when the counts do (%s)." % (
                fmt_mib(a["mem_slack"]), "Linux prints APIC IDs, memboot logical ids" if L["cpus"] else
                "a device-tree boot of Linux names no CPU's node: its total of CPUs "
                "and nodes against memboot's"), "",
            "### Deferred descriptor init per node", "",
            "| node | Linux ms (trace, %s) | Linux ms (its own line, jiffies) | memboot ms (node_init) | Linux / memboot |"
            % a["clock"], "|---|---|---|---|---|"]
    for n in nodes:
        lt = median_or_none([r["deferred_trace_ms"].get(n) for r in linux_runs])
        lj = median_or_none([r["deferred_jiffies_ms"].get(n) for r in linux_runs])
        mb = median_or_none([r["deferred_ms"].get(n) for r in memboot_runs])
        ratio = fmt_ratio(lt, mb)
        out.append("| %d | %s | %s | %s | %s |" % (n, fmt_ms(lt), fmt_ms(lj), fmt_ms(mb), ratio))
    out += ["", "Linux's own figure counts jiffies (HZ=%s): under TCG late, merged timer "
            "interrupts leave jiffies behind the real time, so it reads low; the trace "
            "column is the pgdatinitN kthread's fork-to-exit time stamped with "
            "trace_clock=local (%s). Linux 6.1's time includes the kthread start and "
            "per-page struct page work memboot does not have (16-byte descriptors)."
            % (kconfig.get("CONFIG_HZ", "?"), a["clock"]), "",
            "### Time to usable memory", "",
            "| | Linux | memboot | Linux / memboot |", "|---|---|---|---|"]
    lu = median_or_none([r["usable_trace_ms"] for r in linux_runs])
    mu = median_or_none([r["usable_ms"] for r in memboot_runs])
    out += ["| kernel entry to every node's memory in the allocator, ms | %s | %s | %s |" % (
                fmt_ms(lu), fmt_ms(mu), fmt_ratio(lu, mu)),
            "", "Linux: the last pgdatinitN kthread's exit, stamped with trace_clock=local "
            "(sched_clock, the %s; 0 where Linux sets its clock up, just "
            "after its entry); never jiffies." % a["clock"] + " memboot: `done.usable_ns`, from its first "
            "instruction. Same run of boots, same QEMU configuration.", "",
            "### Huge page pools", "",
            "| | Linux | memboot |", "|---|---|---|"]
    lh = median_or_none([r["hugetlb_init_ms"] for r in linux_runs])
    mh = median_or_none([r["hugetlb_phase_ms"] for r in memboot_runs])
    lpages = ", ".join("%d x %s" % (h["allocated"], fmt_mib(h["size_bytes"]))
                       for h in L["hugetlb"] if h["allocated"])
    mpages = ", ".join("node %d: %d x %s" % (n, v[0], fmt_mib(s))
                       for (n, s), v in sorted(M["hugetlb"].items()))
    zeroed = {v[2] for v in M["hugetlb"].values()}
    out += ["| pages | %s | %s |" % (lpages or "-", mpages or "-"),
            "| pool time, ms | %s (hugetlb_init, trace) | %s (phase hugetlb) |" % (fmt_ms(lh), fmt_ms(mh)),
            "| zeroing | %s | %s |" % (
                "yes: init_on_alloc on" if L["init_on_alloc"] else
                "no: init_on_alloc off" if L["init_on_alloc"] is False else "?",
                "yes: memboot.hugetlb_zero" if zeroed == {True} else "no" if zeroed == {False}
                else "-" if not zeroed else "mixed"),
            "| who allocates | one CPU, node after node (Linux 6.1) | each node's CPUs in parallel |"]
    if L["hugetlb_nodes_ignored"]:
        out.append("| Linux ignored the per-node counts | \"architecture can't support node "
                   "specific alloc\": give a plain `hugepages=N` | |")
    for n in sorted({n for (n, _) in M["hugetlb"]}):
        per = ["%s: %.2f ms" % (fmt_mib(s), median_or_none(
            [r["hugetlb"][(n, s)][1] for r in memboot_runs if (n, s) in r["hugetlb"]]))
            for (nn, s) in sorted(M["hugetlb"]) if nn == n]
        out.append("| memboot node %d | | %s |" % (n, "; ".join(per)))
    return "\n".join(out)


def add_parser(sub):
    p = sub.add_parser(
        "compare-linux",
        help="boot Debian's Linux cloud kernel in the same QEMU configuration and "
             "print its memory init beside memboot's",
        description=(
            "Fetch Debian's linux-image-cloud-amd64 (apt-get download, cached in "
            "~/.cache/memboot/linux), boot it and memboot in the same QEMU "
            "topology, and print topology agreement, per-node deferred init and "
            "huge page pool times side by side. Linux stops at its root-mount "
            "panic, after memory init; its times come from trace events with "
            "trace_clock=local, because its own jiffies figures read low under TCG."))
    p.add_argument("--nodes", type=inputs.positive_int, default=2, metavar="N")
    p.add_argument("--cpus-per-node", type=inputs.positive_int, default=2, metavar="C")
    p.add_argument("--mem-per-node", type=inputs.size_text_arg, default="2G",
                   metavar="SIZE")
    p.add_argument("--huge", default=None, metavar="WORDS",
                   help="huge page words given to both kernels (default: 'hugepagesz=2M "
                        "hugepages=0:256,1:256'; ppc64le: 'hugepagesz=2M hugepages=512', "
                        "as powerpc's Linux takes no per-node counts)")
    p.add_argument("--zero", action="store_true",
                   help="memboot zeroes its pools too (memboot.hugetlb_zero), as "
                        "Linux's init_on_alloc does")
    p.add_argument("--boots", type=inputs.positive_int, default=1, metavar="N",
                   help="boots of each kernel (at least 1; default 1)")
    p.add_argument("--arch", type=inputs.arch_arg, default="x86_64", metavar="NAME",
                   choices=sorted(ARCHES),
                   help="the guests' architecture: x86_64 (default; PVH), arm64 "
                        "(Debian's linux-image-cloud-arm64 and memboot's Image, both "
                        "through QEMU -kernel with the device tree) or ppc64le "
                        "(Debian's linux-image-powerpc64le vmlinux and memboot's ELF, "
                        "both on pseries under VOF)")
    p.add_argument("--kernel", metavar="VMLINUZ", type=inputs.linux_kernel,
                   help="a Linux kernel image to boot instead (x86_64: a bzImage; "
                        "ppc64le: a vmlinux ELF; "
                        "arm64: an arm64 Image)")
    p.add_argument("--cache", default=DEFAULT_CACHE, metavar="DIR")
    p.add_argument("--elf", metavar="PATH", help="memboot kernel (default build/debug)")
    p.add_argument("--log", metavar="FILE", type=inputs.output_file,
                   help="write Linux's last console log here")
    p.add_argument("--json", metavar="FILE", type=inputs.output_file,
                   help="also write the parsed facts as JSON")
    p.add_argument("--timeout", type=inputs.positive_seconds, default=600, metavar="S")
    p.set_defaults(func=main)
    return p


def main(args):
    try:
        arch = args.arch
        vmlinuz = args.kernel or fetch_kernel(args.cache, arch=arch)
        problem = KERNEL_PROBLEM[ARCHES[arch]["boot"]](vmlinuz)
        if problem:
            raise LinuxError("%s (--arch %s)" % (problem, arch))
        config = "%d nodes x %d CPUs x %s" % (args.nodes, args.cpus_per_node, args.mem_per_node)
        elf = args.elf or bench.elf_for(None, os.path.join(bench.REPO_ROOT, "build"), arch)
        image = bench.image_for(elf, arch)
        if not os.path.exists(image or elf):
            raise LinuxError("no memboot kernel %s: run `make%s` first"
                             % (image or elf, "" if arch == "x86_64" else " ARCH=" + arch))
        huge = args.huge if args.huge is not None else ARCHES[arch]["huge"]
        words = linux_words(arch) + " " + huge
        cmd = qemu_command(args.nodes, args.cpus_per_node, args.mem_per_node, vmlinuz, words,
                           arch)
        linux_runs, memboot_runs = [], []
        topo = "%dx%dx%s" % (args.nodes, args.cpus_per_node, args.mem_per_node)
        mwords = huge.split() + (["memboot.hugetlb_zero"] if args.zero else [])
        for i in range(args.boots):
            print("compare-linux: boot %d/%d: Linux (about 10-60 s under TCG)" % (i + 1, args.boots),
                  file=sys.stderr, flush=True)
            text = boot_linux(cmd, args.timeout)
            if args.log:
                try:
                    with open(args.log, "w") as f:
                        f.write(text)
                except OSError as e:
                    raise LinuxError("cannot write %s: %s" % (args.log, e.strerror or e))
            facts = parse_linux_log(text)
            if not facts["panicked"] or not facts["trace_dumped"]:
                raise LinuxError("Linux did not end at its root-mount panic with a trace "
                                 "dump (see --log): the table would be incomplete")
            linux_runs.append(facts)
            print("compare-linux: boot %d/%d: memboot" % (i + 1, args.boots),
                  file=sys.stderr, flush=True)
            r = bench.boot_once({"topo": topo}, elf, mwords,
                                arch=None if arch == "x86_64" else arch)
            if r["status"] != 0:
                raise LinuxError("memboot failed with status %d: %s" % (r["status"], r["stderr"]))
            memboot_runs.append(memboot_facts(r["records"]))
    except (LinuxError, bench.BenchError) as e:
        print("memboot compare-linux: %s" % e, file=sys.stderr)
        return 1
    print(report(linux_runs, memboot_runs, huge, config, kernel_config(vmlinuz), arch))
    if args.json:
        def keyed(d):
            return {str(k): v for k, v in d.items()}
        with open(args.json, "w") as f:
            json.dump({"linux": [{k: keyed(v) if isinstance(v, dict) else v
                                  for k, v in r.items()} for r in linux_runs],
                       "memboot": [{k: keyed(v) if isinstance(v, dict) else v
                                    for k, v in r.items()} for r in memboot_runs]},
                      f, indent=1)
    return 0
