"""tools/memboot bench: a matrix of QEMU boots, medians and spread per node.

The matrix is data: each axis is a name and a list of values, and every
combination is booted --boots times. Axes:

  topo     NODESxCPUSxMEM, e.g. 2x2x1G (NUMA nodes, CPUs per node, memory per
           node): the QEMU topology flags of `tools/memboot run`
  desc     descriptor bytes 16, 32 or 64: the kernel built with
           `make DESC_BYTES=N` (build/debug-descN/memboot.elf; 16 is build/debug)
  any other name is a kernel command-line key (the short names init,
  threads, alloc and pcp stand for memboot.init, memboot.init_threads,
  memboot.alloc and memboot.pcp); the value "-" leaves the key out.

A key the kernel does not know yet is still an axis value: the kernel warns
(`cmdline: unknown parameter 'KEY' ignored`) and boots with its default, and
the table marks those rows so nobody reads them as a measurement of the key.

Output: a markdown table on stdout; --csv FILE and --json FILE beside it
(tools/memboot bench-plot reads the JSON). Progress with an
estimate of the time left goes to stderr. Nothing in the checkout is
written unless --csv/--json name a file there.
"""

import csv
import datetime
import json
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import time

from mbtools import boot as mbboot, facts, hostinfo, inputs
from mbtools import records as mbrecords

TOOLS_DIR = mbboot.TOOLS_DIR
REPO_ROOT = mbboot.REPO_ROOT
MEMBOOT = mbboot.MEMBOOT

SHORT_KEYS = {
    "init": "memboot.init",
    "threads": "memboot.init_threads",
    "alloc": "memboot.alloc",
    "pcp": "memboot.pcp",
}

# --quick: 90 boots, 1-2 minutes on a 2-core host under TCG (a PVH boot of
# 2 GiB takes 0.5-2 s, depending on the host's load). --full: every axis the kernel has, 5 boots each.
QUICK = {
    "boots": 5,
    "axes": [
        ("topo", ["2x2x1G", "2x2x2G", "4x1x512M"]),
        ("init", ["serial", "deferred", "lazy"]),
        ("threads", ["1", "node"]),
    ],
}
FULL = {
    "boots": 5,
    "axes": [
        ("topo", ["2x2x2G", "4x2x1G"]),
        ("init", ["serial", "deferred", "lazy"]),
        ("threads", ["1", "node"]),
        ("desc", ["16", "32", "64"]),
        # Every allocator of mm/alloc/table.h; the per-CPU lists are the
        # pcp axis below, not an allocator.
        ("alloc", ["-"] + list(facts.ALLOCATORS)),
        ("pcp", ["-", "off"]),
    ],
}

UNKNOWN_RE = re.compile(r"unknown parameter '([^']+)'")
TOPO_RE = re.compile(r"^([0-9]+)x([0-9]+)x([0-9]+[KMGT]?)$", re.I | re.ASCII)
# Descriptor sizes a kernel can be built with, and the default build's
# (MEMMAP_DESC_BYTES in mm/page.h, through mbtools.facts).
DESC_SIZES = tuple(str(n) for n in facts.DESC_BYTES_CHOICES)
DEFAULT_DESC = str(facts.DESC_BYTES)


class BenchError(Exception):
    """A bad axis or a missing build; the message says which."""


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------

def parse_console(text):
    """(records, unknown_keys) from a memboot console: every record (through
    mbtools.records, the project's one record parser) and the keys the
    kernel called unknown, from its warning lines or `warning` records."""
    records = mbrecords.parse_log(text, name="console").records
    unknown = []
    for line in [l for l in text.splitlines() if "MEMBOOT {" not in l] + \
            [r.get("msg", "") for r in records if r.get("event") == "warning"]:
        m = UNKNOWN_RE.search(line)
        if m and m.group(1) not in unknown:
            unknown.append(m.group(1))
    return records, unknown


# ---------------------------------------------------------------------------
# The matrix
# ---------------------------------------------------------------------------

def parse_topo(value):
    """(nodes, cpus per node, memory per node) of a topo value, checked
    against what `tools/memboot run` and the kernel accept."""
    m = TOPO_RE.match(value)
    if not m:
        raise BenchError("topo '%s': expected NODESxCPUSxMEM, e.g. 2x2x1G" % value)
    nodes, cpus, mem = int(m.group(1)), int(m.group(2)), m.group(3).upper()
    if not 1 <= nodes <= facts.MAX_NODES:
        raise BenchError("topo '%s': %d nodes; the kernel tracks 1 to %d "
                         "(MEMBOOT_MAX_NODES)" % (value, nodes, facts.MAX_NODES))
    max_cpus = facts.LIMITS["MEMBOOT_MAX_CPUS"]
    if not 1 <= cpus or nodes * cpus > max_cpus:
        raise BenchError("topo '%s': %d CPUs per node; the kernel runs 1 to %d CPUs "
                         "in all (MEMBOOT_MAX_CPUS)" % (value, cpus, max_cpus))
    _, problem = inputs.size_problem(mem)
    if problem:
        raise BenchError("topo '%s': memory per node: %s" % (value, problem))
    return nodes, cpus, mem


def parse_axis(text):
    """'name=v1,v2' -> (name, [v1, v2])."""
    if "=" not in text:
        raise BenchError("axis '%s': expected NAME=V1,V2,..." % text)
    name, values = text.split("=", 1)
    vals = [v for v in values.split(",") if v]
    if not name or not vals:
        raise BenchError("axis '%s': a name and at least one value" % text)
    # Names and values become kernel command-line words: each must be one.
    for what, word in [("axis name", name)] + [("axis %s value" % name, v) for v in vals]:
        problem = inputs.word_problem(word, what)
        if problem:
            raise BenchError(problem)
    if name == "topo":
        for v in vals:
            parse_topo(v)
    if name == "desc":
        for v in vals:
            if v not in DESC_SIZES:
                raise BenchError("desc %s: descriptors are %s bytes (MEMMAP_DESC_BYTES in "
                                 "mm/page.h)" % (v, ", ".join(DESC_SIZES)))
    return name, vals


def expand(axes):
    """Every combination of the axes' values, as a list of dicts, in order
    (the first axis varies slowest)."""
    configs = [{}]
    for name, values in axes:
        configs = [dict(c, **{name: v}) for c in configs for v in values]
    return configs


def cmdline_words(config):
    words = []
    for name, value in config.items():
        if name in ("topo", "desc") or value == "-":
            continue
        words.append("%s=%s" % (SHORT_KEYS.get(name, name), value))
    return words


def elf_for(desc, build_dir, arch=None):
    """The kernel the Makefile builds for @desc: x86_64's in build/debug*/,
    another architecture's in build/NAME/debug*/ (the Makefile's arch_out)."""
    flavour = "debug" if desc in (None, DEFAULT_DESC) else "debug-desc%s" % desc
    if arch in (None, "x86_64"):
        return os.path.join(build_dir, flavour, "memboot.elf")
    return os.path.join(build_dir, arch, flavour, "memboot.elf")


def image_for(elf, arch):
    """What @arch's QEMU loads itself, beside @elf, where that is not x86_64's
    PVH ELF: arch.mk's NAME_IMAGE for its default boot (NAME_RUN_BOOT:
    arm64's flat Image for `image`, ppc64le's ELF for `vof`), else None."""
    if arch in (None, "x86_64"):
        return None
    a = facts.architectures()[arch]
    if a.run_boot not in ("image", "vof") or not a.image:
        return None
    return os.path.join(os.path.dirname(elf), a.image)


def direct_boot(elf, arch):
    """The boot path with no firmware of @arch's and the file it loads:
    ("pvh", None) on x86_64 (the ELF is --elf), ("image", Image) on arm64,
    ("vof", the ELF) on ppc64le: run_argv's boot_path and image."""
    image = image_for(elf, arch)
    if image is None:
        return "pvh", None
    return facts.architectures()[arch].run_boot, image


def boot_argv(config, elf, extra_words=(), timeout=120, arch=None):
    nodes, cpus, mem = parse_topo(config.get("topo", "2x2x1G"))
    words = cmdline_words(config) + list(extra_words)
    boot_path, image = direct_boot(elf, arch)
    if image:
        return mbboot.run_argv(nodes=nodes, cpus_per_node=cpus, mem_per_node=mem,
                               boot_path=boot_path, image=image, append=" ".join(words),
                               timeout=timeout, arch=arch)
    return mbboot.run_argv(nodes=nodes, cpus_per_node=cpus, mem_per_node=mem,
                           boot_path="pvh", elf=elf, append=" ".join(words),
                           timeout=timeout, arch=arch)


def boot_once(config, elf, extra_words=(), timeout=120, arch=None):
    """Boot one configuration (mbtools.boot); a dict with status, records,
    unknown keys, the bad records skipped and the host's wall time."""
    b = mbboot.boot(boot_argv(config, elf, extra_words, timeout, arch), timeout=timeout)
    _, unknown = parse_console(b.console)
    return {"status": b.status, "records": b.records, "unknown": unknown,
            "bad_records": len(b.problems), "wall_s": b.wall_s,
            "stderr": (b.stderr.strip() + ("\n" + b.problems[0] if b.problems else ""))[-400:]}


# ---------------------------------------------------------------------------
# Progress
# ---------------------------------------------------------------------------

class Progress:
    """One line per boot on stderr (rewritten in place on a terminal) with
    the time left, estimated from the mean wall time of the boots so far."""

    def __init__(self, total, stream=None, clock=time.monotonic):
        self.total = total
        self.done = 0
        self.clock = clock
        self.t0 = clock()
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def estimate_left_s(self):
        if self.done == 0:
            return None
        per = (self.clock() - self.t0) / self.done
        return per * (self.total - self.done)

    def step(self, what):
        self.done += 1
        left = self.estimate_left_s()
        line = "bench: [%d/%d] %s, %s elapsed, about %s left" % (
            self.done, self.total, what, fmt_s(self.clock() - self.t0), fmt_s(left))
        if self.tty:
            self.stream.write("\r\033[K" + line)
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def note(self, text):
        if self.tty:
            self.stream.write("\r\033[K")
        self.stream.write(text + "\n")
        self.stream.flush()


def fmt_s(seconds):
    if seconds is None:
        return "?"
    seconds = int(round(seconds))
    return "%dm%02ds" % divmod(seconds, 60) if seconds >= 60 else "%ds" % seconds


# ---------------------------------------------------------------------------
# Summaries
# ---------------------------------------------------------------------------

def summarize(runs):
    """Rows per (configuration, node): medians and spread of node_init over
    the boots that ended with status 0."""
    rows = []
    groups = {}
    for run in runs:
        key = json.dumps(run["config"], sort_keys=True)
        groups.setdefault(key, []).append(run)
    for key, group in groups.items():
        config = group[0]["config"]
        ok = [r for r in group if r["status"] == 0]
        unknown = sorted({k for r in group for k in r["unknown"]})
        per_node = {}
        for r in ok:
            for rec in r["records"]:
                if rec.get("event") == "node_init":
                    per_node.setdefault(rec["node"], []).append(rec)
        if not per_node:
            rows.append({"config": config, "node": None, "boots": len(group),
                         "ok_boots": len(ok), "unknown": unknown})
            continue
        for node, recs in sorted(per_node.items()):
            ms = [r["ns"] / 1e6 for r in recs]
            nspp = [r["ns"] / r["pages"] for r in recs if r.get("pages")]
            rows.append({
                "config": config, "node": node, "boots": len(group),
                "ok_boots": len(ok), "unknown": unknown,
                "threads": recs[0].get("threads"), "pages": recs[0].get("pages"),
                "policy": recs[0].get("policy"),
                "ms_median": statistics.median(ms), "ms_min": min(ms), "ms_max": max(ms),
                "ns_per_page_median": statistics.median(nspp) if nspp else None,
            })
    return rows


def axis_names(runs):
    names = []
    for r in runs:
        for k in r["config"]:
            if k not in names:
                names.append(k)
    return names


def markdown_table(rows, names):
    head = names + ["node", "CPUs used", "pages", "ms (median)", "min-max ms",
                    "ns/page", "boots ok"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = []
        for n in names:
            v = r["config"].get(n, "")
            key = SHORT_KEYS.get(n, n)
            if key in r["unknown"] and v != "-":
                v += " (unknown to kernel)"
            cells.append(v)
        if r["node"] is None:
            cells += ["-", "-", "-", "-", "-", "-"]
        else:
            cells += [str(r["node"]), str(r["threads"]), str(r["pages"]),
                      "%.2f" % r["ms_median"], "%.2f-%.2f" % (r["ms_min"], r["ms_max"]),
                      "%.2f" % r["ns_per_page_median"] if r["ns_per_page_median"] is not None
                      else "-"]
        cells.append("%d/%d" % (r["ok_boots"], r["boots"]))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def write_csv(path, rows, names):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(names + ["node", "threads", "pages", "ms_median", "ms_min", "ms_max",
                            "ns_per_page_median", "ok_boots", "boots", "unknown_keys"])
        for r in rows:
            w.writerow([r["config"].get(n, "") for n in names] +
                       [r["node"], r.get("threads"), r.get("pages"), r.get("ms_median"),
                        r.get("ms_min"), r.get("ms_max"), r.get("ns_per_page_median"),
                        r["ok_boots"], r["boots"], " ".join(r["unknown"])])


def host_description():
    return {"cpu": hostinfo.cpu_model(), "cpus": os.cpu_count(), "kernel": platform.release(),
            "accel": "TCG (no KVM)"}


# ---------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------

def ensure_kernel(desc, args, progress=None):
    elf = elf_for(desc, args.build_dir, getattr(args, "arch", None))
    image = image_for(elf, getattr(args, "arch", None))
    if os.path.exists(image or elf):
        return elf
    if args.no_build or os.path.abspath(args.build_dir) != os.path.join(REPO_ROOT, "build"):
        raise BenchError("no kernel %s (build it with `make%s`)"
                         % (elf, "" if desc in (None, DEFAULT_DESC) else " DESC_BYTES=" + desc))
    msg = "bench: building the %s-byte-descriptor kernel first (make%s)" % (
        desc or DEFAULT_DESC, "" if desc in (None, DEFAULT_DESC) else " DESC_BYTES=" + desc)
    (progress.note if progress else lambda t: print(t, file=sys.stderr))(msg)
    cmd = ["make", "-C", REPO_ROOT, "-j2",
           os.path.relpath(image, REPO_ROOT) if image else "kernel"]
    if getattr(args, "arch", None):
        cmd.append("ARCH=" + args.arch)
    if desc not in (None, DEFAULT_DESC):
        cmd.append("DESC_BYTES=" + desc)
    if subprocess.call(cmd, stdout=subprocess.DEVNULL) != 0 or not os.path.exists(image or elf):
        raise BenchError("building %s failed: run `%s`" % (elf, " ".join(cmd)))
    return elf


def plan(args):
    base = QUICK if args.mode in (None, "quick") else FULL
    axes = list(base["axes"])
    for text in args.axis:
        name, vals = parse_axis(text)
        axes = [(n, vals if n == name else v) for n, v in axes]
        if name not in [n for n, _ in axes]:
            axes.append((name, vals))
    if isinstance(getattr(args, "preset", None), str):
        from mbtools import presets
        value = presets.topo(args.preset)
        if not value:
            raise BenchError("--preset: unknown preset %r (one of: %s)"
                             % (args.preset, ", ".join(presets.all_presets())))
        axes = [(n, [value] if n == "topo" else v) for n, v in axes]
        if "topo" not in [n for n, _ in axes]:
            axes.insert(0, ("topo", [value]))
    boots = args.boots or base["boots"]
    if boots < 1:
        raise BenchError("--boots must be at least 1")
    return axes, boots


def run_matrix(configs, boots, args, progress, extra_words=()):
    runs = []
    for config in configs:
        elf = ensure_kernel(config.get("desc"), args, progress)
        for i in range(boots):
            r = boot_once(config, elf, extra_words, arch=getattr(args, "arch", None))
            r["config"] = config
            r["boot"] = i
            runs.append(r)
            label = " ".join("%s=%s" % kv for kv in config.items())
            progress.step("%s boot %d/%d%s" % (label, i + 1, boots,
                                                "" if r["status"] == 0
                                                else " (status %d)" % r["status"]))
            if r["status"] != 0 and r["stderr"]:
                progress.note("bench: " + r["stderr"].splitlines()[-1])
    return runs


def main(args):
    """The matrix (--quick, --full, --axis). --seed and --scale are
    mbtools.benchcmd's to dispatch: this module imports neither."""
    try:
        axes, boots = plan(args)
        configs = expand(axes)
        if args.dry_run:
            for c in configs:
                print(shlex.join(boot_argv(c, elf_for(c.get("desc"), args.build_dir, args.arch),
                                           arch=args.arch)[1:]))
            print("%d configurations x %d boots" % (len(configs), boots))
            return 0
        # Kernels first, so the estimate of the time left counts boots only.
        for desc in dict.fromkeys(c.get("desc") for c in configs):
            ensure_kernel(desc, args)
        progress = Progress(len(configs) * boots)
        runs = run_matrix(configs, boots, args, progress)
    except BenchError as e:
        print("memboot bench: %s" % e, file=sys.stderr)
        return facts.EXIT_USAGE
    names = [n for n, _ in axes]
    rows = summarize(runs)
    host = host_description()
    print("## memboot bench (%s): per-node descriptor init, %d boots per row\n"
          % (args.mode or "quick", boots))
    print("Host: %s, %s CPUs, QEMU %s; PVH boot. ms = node_init.ns (the node's parallel "
          "part; serial: the boot CPU's work); spread = min-max over the boots.\n"
          % (host["cpu"], host["cpus"], host["accel"]))
    print(markdown_table(rows, names))
    unknown = sorted({k for r in runs for k in r["unknown"]})
    if unknown:
        print("\nThe kernel warned `unknown parameter` for: %s. Those rows ran with the "
              "kernel's default, not the value named." % ", ".join(unknown))
    failed = sum(1 for r in runs if r["status"] != 0)
    if failed:
        print("\n%d of %d boots failed (their status is in the JSON); the medians use the "
              "others." % (failed, len(runs)))
    if args.csv:
        write_csv(args.csv, rows, names)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                       "host": host, "axes": axes, "boots": boots, "rows": rows,
                       "runs": runs}, f, indent=1)
    return 1 if failed == len(runs) else 0
