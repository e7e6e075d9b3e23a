"""tools/memboot lab new NAME / lab grade NAME: the allocator lab's course kit.

    tools/memboot lab new myalloc      # mm/alloc/myalloc.c from the skeleton, registered
    tools/memboot lab grade myalloc    # suite, checked lab, stress, guest boot: PASS or FAIL

`new` writes mm/alloc/NAME.c from tools/mbtools/lab_skeleton.c.in (the ops
with TODO(lab) markers and the contract in comments; it compiles, and fails
the suite until the TODOs are done), adds X(NAME) to mm/alloc/table.h (the
one list of allocators) and NAME to the memboot.alloc row of
docs/cmdline.md; a name that is a C keyword or would declare what the tree
already declares is refused before anything is written. `grade` builds,
then runs the conformance suite (build/host/test_alloc -k NAME, each test
with a timeout), the checked lab (every block verified, a census after
every run), the stress runs (build/bench/lab-stress: race windows widened),
a guest boot with memboot.selftest=alloc and, given a lecturer's set,
hidden checks; it prints one line per check and a verdict (exit 0 when
every check passed, 1 otherwise) and, for an allocator that passed, its
counted figures and performance index (docs/teaching.md). A class of
students is graded by tools/mbtools/lab_class.py with the same grade().
"""
import json
import math
import os
import re
import sys
import time

from mbtools import inputs, sandbox

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
SKELETON = os.path.join(TOOLS_DIR, "mbtools", "lab_skeleton.c.in")
NAME_RE = re.compile(r"[a-z][a-z0-9_]{0,14}", re.ASCII)   # memboot.alloc= takes 15 characters
TODO_RE = re.compile(r"/\* TODO\(lab\) (\w+):")
OPS_RE = re.compile(r"\bconst\s+struct\s+alloc_ops\s+([A-Za-z_]\w*)_alloc_ops\s*=")
# The designs a performance index is measured against (mm/alloc/).
REFERENCES = ("buddy", "bitmap", "llfree")
# C's keywords (C11 and GNU), and the names <stdbool.h> and <stddef.h> define.
C_KEYWORDS = frozenset("""
    auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while _Alignas _Alignof _Atomic _Bool _Complex _Generic
    _Imaginary _Noreturn _Static_assert _Thread_local asm typeof bool true false NULL
    offsetof""".split())

# Each check's time limit (seconds; a student's budget can end it sooner).
BUILD_TIMEOUT_S = 600
SUITE_TIMEOUT_S = 120
TEST_TIMEOUT_S = 10
LAB_ROW_TIMEOUT_S = 60
STRESS_ROW_TIMEOUT_S = 60
BOOT_TIMEOUT_S = 60
COUNTED_TIMEOUT_S = 300
# Memory of each command (MiB of address space; the suite's ASan shadow
# needs terabytes of it, so there it is ASan's own RSS limit).
MEM_MIB = 4096
SUITE_RSS_MIB = 2048
GUEST_MEM_MIB = 8192
# The checked lab: each workload at each thread count, a serial run (the
# threads take turns) and a concurrent one.
LAB_CHECK = {"workloads": ("kbuild", "random", "frag", "trace"), "threads": (1, 2),
             "ops": 100000, "mib": 128, "failures": 3}   # runs that fail before it stops
# The stress check: the lab-stress harness with more threads than CPUs and
# yields at every lock operation (bench/lab.c --stress), each workload at
# two seeds; its first failure ends it.
STRESS = {"workloads": ("kbuild", "random"), "threads": 4, "seeds": 2, "ops": 50000,
          "mib": 64, "permille": 300}
# The counted runs (callgrind, serial): what the performance index weighs.
COUNTED = {"workloads": ("kbuild", "random"), "threads": 2, "ops": 20000, "mib": 256}
# A failure seen only with several threads.
THREADS_ONLY = ("seen only with several threads: a race. Look at what alloc and free read or "
                "write outside the zone's lock (a counter, a search, a descriptor written after "
                "the lock is dropped when a free looks at it to merge)")
SHOWN_LINES = 24   # detail lines of one check on the console; the report has all


class KitError(Exception):
    """A usage error of lab new / lab grade (exit 64)."""


def _paths(root):
    return (os.path.join(root, "mm", "alloc", "table.h"),
            os.path.join(root, "docs", "cmdline.md"))


def _read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


# ---------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------

def skeleton_identifiers(name):
    """The identifiers the skeleton declares for allocator @name (NAME, NAME_zone,
    NAME_alloc, ..., NAME_alloc_ops), read from the skeleton itself."""
    text = _read(SKELETON)
    return sorted({m.group(1) + name + m.group(2)
                   for m in re.finditer(r"(\w*)@NAME@(\w*)", text)})


TREE_DIRS = ("mm", "kernel", "boot", "arch", "bench")
_TREE_WORDS = {}


def tree_words(root):
    """{identifier: the first file of the tree's C code that has it}: every
    word of the kernel's, the allocators' and the lab's sources and headers
    (a student's file is compiled with all of them), cached per tree."""
    if root not in _TREE_WORDS:
        found = []
        for top in TREE_DIRS:
            for folder, dirs, files in os.walk(os.path.join(root, top)):
                found += [os.path.relpath(os.path.join(folder, f), root) for f in files
                          if f.endswith((".c", ".h"))]
        words = {}
        # Headers first: where a shared name is declared is what to name.
        for rel in sorted(found, key=lambda r: (not r.endswith(".h"), r)):
            for w in re.findall(r"\b[A-Za-z_]\w*\b", _read(os.path.join(root, rel))):
                words.setdefault(w, rel)
        _TREE_WORDS[root] = words
    return _TREE_WORDS[root]


def identifier_problem(name, root=REPO_ROOT, skip=()):
    """None if the skeleton's declarations for @name collide with nothing,
    else why (a C keyword, or the tree's own identifier and where it is).
    @skip: files of the tree to leave out (a student's own)."""
    if name in C_KEYWORDS:
        return "allocator name %r is a C keyword" % name
    words = tree_words(root)
    tags = re.compile(r"\b(?:struct|union|enum)\s+%s\b|#\s*define\s+%s\b|\b%s_t\b" % (
        (re.escape(name),) * 3))
    defined = re.compile(r"\b(?:struct|union|enum)\s+%s\s*\{|#\s*define\s+%s\b" % (
        (re.escape(name),) * 2))
    for ident in skeleton_identifiers(name):
        where = words.get(ident)
        if ident == name:
            # The name alone is a struct tag: only tags, macros and types
            # clash; named where defined if that is found.
            files = sorted(set(words.values()), key=lambda r: (not r.endswith(".h"), r)) \
                if ident in words else []
            hits = [rel for rel in files if rel not in skip and
                    tags.search(_read(os.path.join(root, rel)))]
            where = next((rel for rel in hits if defined.search(_read(os.path.join(root, rel)))),
                         hits[0] if hits else None)
        if where and where not in skip:
            return ("allocator name %r: the skeleton would declare `%s`, which the tree "
                    "already has (%s): choose another name" % (name, ident, where))
    return None


def check_name(name, root=REPO_ROOT, new=True):
    from mbtools import facts
    if not NAME_RE.fullmatch(name):
        raise KitError("allocator name %r: a lower-case letter, then up to 14 letters, digits "
                       "or _ (memboot.alloc= takes 15 characters)" % name)
    path = os.path.join(root, "mm", "alloc", name + ".c")
    names = facts.parse_allocators(_read(_paths(root)[0]))
    if new and (name in names or os.path.exists(path)):
        raise KitError("%s exists already (mm/alloc/table.h or %s)" % (name, path))
    if not new and name not in names:
        raise KitError("no allocator %s in mm/alloc/table.h (known: %s); "
                       "`tools/memboot lab new %s` makes one" % (name, ", ".join(names), name))
    if new:
        problem = identifier_problem(name, root)
        if problem:
            raise KitError(problem)
    return path


def table_with(root, name):
    """mm/alloc/table.h's text with X(@name) after its last entry."""
    lines = _read(_paths(root)[0]).split("\n")
    last = max(i for i, line in enumerate(lines) if re.match(r"\tX\(\w+\)", line))
    if not lines[last].rstrip().endswith("\\"):
        lines[last] = lines[last].rstrip() + " \\"
    lines.insert(last + 1, "\tX(%s)" % name)
    return "\n".join(lines)


def new(name, root=REPO_ROOT, out=sys.stdout):
    path = check_name(name, root)
    text = _read(SKELETON).replace("@NAME@", name)
    table, cmdline = _paths(root)
    table_text = table_with(root, name)
    doc = _read(cmdline)
    row = re.search(r"^\| `memboot\.alloc` \| ((?:`\w+`, )*`\w+`)", doc, re.M)
    if not row:
        raise KitError("docs/cmdline.md has no memboot.alloc row to add %s to" % name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    with open(table, "w", encoding="utf-8") as f:
        f.write(table_text)
    with open(cmdline, "w", encoding="utf-8") as f:
        f.write(doc[:row.end(1)] + ", `%s`" % name + doc[row.end(1):])
    todos = TODO_RE.findall(text)
    print("wrote %s (the ops to write: %s), added X(%s) to mm/alloc/table.h and %s to "
          "docs/cmdline.md's memboot.alloc row" % (os.path.relpath(path, root),
                                                   ", ".join(todos), name, name), file=out)
    print("next: fill in each TODO(lab), then `tools/memboot lab grade %s` "
          "(docs/teaching.md)" % name, file=out)
    return 0


def ops_name(source):
    """The allocator name a submission defines (`const struct alloc_ops
    NAME_alloc_ops = {`), or KitError saying what is wrong."""
    found = sorted(set(OPS_RE.findall(source)))
    if not found:
        raise KitError("no `const struct alloc_ops NAME_alloc_ops = {...}` in it: the ops "
                       "table `lab new` writes at the end of the file is missing")
    if len(found) > 1:
        raise KitError("it defines %d ops tables (%s): one allocator per file" % (
            len(found), ", ".join(f + "_alloc_ops" for f in found)))
    m = re.search(r"\.name\s*=\s*\"([^\"]*)\"", source)
    if m and m.group(1) != found[0]:
        raise KitError("its ops table %s_alloc_ops says .name = \"%s\": the two must be the "
                       "same name" % (found[0], m.group(1)))
    return found[0]


# ---------------------------------------------------------------------------
# Running a step: here, or in a sandbox (lab_class.py)
# ---------------------------------------------------------------------------

class Here:
    """Commands in @root on this machine, as the user, bounded in time."""
    python = sys.executable

    def __init__(self, root):
        self.root = root

    def run(self, argv, timeout_s, mem_mib=MEM_MIB, env=None):
        return sandbox.run_bounded(argv, self.root, timeout_s, env=dict(os.environ, **(env or {})))


class Boxed:
    """Commands in @root through a sandbox.Sandbox (its limits, its user)."""
    python = "python3"     # the system's: the sandbox has /usr, not the grader's own

    def __init__(self, root, box):
        self.root, self.box = root, box

    def run(self, argv, timeout_s, mem_mib=MEM_MIB, env=None):
        return self.box.run(argv, self.root, timeout_s, mem_mib=mem_mib, env=env)


def lab_runner(runner, mem_mib=MEM_MIB):
    """mbtools.lab's run function (argv, timeout) over @runner."""
    def run(argv, timeout):
        r = runner.run(argv, timeout, mem_mib=mem_mib)
        return r.rc, r.out, r.err, r.timed_out
    return run


# ---------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------

class Check:
    """One line of a grade: PASS, FAIL, SKIP or INFO, what was checked, the
    lines that say why (never cut), the first of them (the CSV's), the
    whole output (the report's) and its time."""

    def __init__(self, key, title):
        self.key, self.title = key, title
        self.verdict, self.detail, self.first, self.log = "SKIP", [], "", ""
        self.seconds = 0.0

    def done(self, ok, detail=(), log="", first=None):
        self.verdict = "PASS" if ok else "FAIL"
        self.detail = list(detail)
        self.first = first if first is not None else (self.detail[0].strip() if self.detail
                                                      else "")
        self.log += log
        return self

    def skip(self, why):
        self.verdict, self.detail, self.first = "SKIP", [why], why
        return self


KEYS = ("todo", "build", "suite", "lab", "stress", "guest", "hidden")


class Grade:
    def __init__(self, name, path):
        self.name, self.path = name, path
        self.checks = []
        self.counted = None          # {"workloads": {...}, "index": ...} for a passing allocator
        self.seconds = 0.0
        self.stop = None             # why the checks that run the allocator are skipped

    def check(self, key, title):
        c = Check(key, title)
        self.checks.append(c)
        return c

    @property
    def passed(self):
        return not any(c.verdict == "FAIL" for c in self.checks)

    def by_key(self):
        return {c.key: c for c in self.checks}


def _lines(text):
    return [l.rstrip() for l in (text or "").splitlines() if l.strip()]


def build_detail(out, err):
    """A failed build's lines: every error the compiler and make printed,
    with the lines that locate it; else the output's last lines."""
    lines = _lines(out + "\n" + err)
    keep = [l for l in lines if re.search(r"\berror\b|Error \d|undefined reference|"
                                          r"multiple definition|No rule to make", l, re.I)]
    return keep or lines[-10:]


ASAN_FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ in ")
FAILED_RE = re.compile(r"FAILED: allocator \S+ \(([^)]*)\), (\w+)( \([^)]*\))?: (.*)")


def suite_detail(out, err):
    """(lines, hang) of the conformance suite's output: each failure's
    FAILED: line with the panic or sanitizer report before it and the
    allocator's logged lines under it; the tests cmocka failed with no
    such line (its own assertions print `[  FAILED  ]` on stdout); whether
    a test hung."""
    shown, hang = [], False
    logged = None          # lines of the log under the last FAILED: line, while in it
    same = {}              # (where, what): [(suite, test)] that failed so again
    keys = []
    for line in (err or "").splitlines():
        s = line.rstrip()
        if logged is not None and s.startswith("  what the allocator"):
            continue
        if logged is not None and s.startswith("    "):
            if logged < 6:
                shown.append(s)
            logged += 1
            continue
        logged = None
        m = FAILED_RE.match(s)
        if m and (m.group(3), m.group(4)) in same:
            same[(m.group(3), m.group(4))].append((m.group(1), m.group(2)))
            logged = 6     # its log is the first one's
            continue
        if s.startswith("FAILED: "):
            if m:
                same[(m.group(3), m.group(4))] = []
                keys.append((m.group(3), m.group(4)))
                s = "%s\0%d" % (s, len(keys) - 1)
            shown.append(s)
            hang = hang or "did not finish within" in s
            logged = 0
        elif s.startswith("panic: ") or s.startswith("SUMMARY: ") or \
                "ERROR: AddressSanitizer" in s or "runtime error:" in s:
            shown.append(s)
        elif ASAN_FRAME.match(s) and "mm/alloc/" in s:
            shown.append("  " + s.strip())
        elif re.match(r"allocator \S+: suite \".*\" (died|failed)", s):
            shown.append(s)
    # The same failure in other tests: said once, under the first.
    out_lines = []
    for s in shown:
        if "\0" not in s:
            out_lines.append(s)
            continue
        s, key = s.split("\0")
        out_lines.append(s)
        again = same[keys[int(key)]]
        if again:
            by = {}
            for suite, test in again:
                by.setdefault(suite, []).append(test)
            out_lines.append("    and the same in %d more test(s): %s" % (len(again), "; ".join(
                "%s: %s" % (suite, ", ".join(tests)) for suite, tests in by.items())))
    shown = out_lines
    named = {m.group(1) for m in re.finditer(r"FAILED: allocator \S+ \([^)]*\), (\w+)", err or "")}
    said = []     # cmocka's own words since the test started
    for line in (out or "").splitlines():
        m = re.match(r"\[ +(ERROR|LINE) +\] --- (.*)", line)
        if line.startswith("[ RUN"):
            said = []
        elif m:
            said.append(m.group(2).strip())
        else:
            m = re.match(r"\[  FAILED  \] (\w+)$", line)
            if m and m.group(1) not in named and m.group(1) != "test_table":
                shown.append("[  FAILED  ] %s: %s" % (m.group(1), "; ".join(said) or
                                                     "a cmocka assertion"))
                named.add(m.group(1))
    return shown, hang


def failed_tests(err):
    return sorted({m.group(1) for m in re.finditer(r"FAILED: allocator \S+ \([^)]*\), (\w+)",
                                                     err or "")})


def _shown(lines):
    if len(lines) <= SHOWN_LINES:
        return lines
    return lines[:SHOWN_LINES] + ["... and %d more lines (the report has them all)"
                                  % (len(lines) - SHOWN_LINES)]


def _budget_left(g, t0, budget_s):
    return None if budget_s is None else budget_s - (time.monotonic() - t0)


def _limit(timeout, left):
    return timeout if left is None else max(1, min(timeout, int(left)))


def prepare_trace(work):
    """(events file, simulated MiB) of the lab's kbuild trace for the
    checked lab: read once (a class reads it once for every student)."""
    from mbtools import lab
    path = os.path.join(work, "trace.events")
    events, rep = lab.parse_trace(lab.DEFAULT_TRACE)
    lab.write_events(events, path)
    return path, max(LAB_CHECK["mib"], (2 * rep["peak_held_pages"] * 4096 + (1 << 20) - 1) >> 20)


def grade(name, guest=True, out=sys.stdout, root=REPO_ROOT, runner=None, seed=1, hidden=None,
          counted=True, references=None, jobs=2, budget_s=None, path=None, quiet=False,
          trace=None):
    """Grade allocator @name of the tree at @root: a Grade. @runner runs
    each command (Here(root) by default; lab_class.py's sandbox); @hidden:
    a HiddenSet; @references: the reference designs' counted figures
    (computed here when None); @budget_s: the seconds the whole grade may
    take (a step that would start past it is skipped, named); @trace:
    prepare_trace()'s (events, MiB), made here when None."""
    from mbtools import lab
    runner = runner or Here(root)
    path = path or check_name(name, root=root, new=False)
    g = Grade(name, path)
    t0 = time.monotonic()
    work = os.path.join(root, "build", "grade")
    os.makedirs(work, exist_ok=True)

    def left():
        return _budget_left(g, t0, budget_s)

    def out_of_time(c):
        if left() is not None and left() <= 0:
            c.done(False, ["not run: the grade's %d s (--student-limit-s) were spent" % budget_s])
            return True
        return False

    def timed(c, fn):
        s = time.monotonic()
        try:
            fn(c)
        finally:
            c.seconds = time.monotonic() - s

    def step(c, fn):
        """@fn(c) unless a hang or the budget ended the grade."""
        if g.stop:
            c.skip(g.stop)
        elif not out_of_time(c):
            timed(c, fn)

    # 1. No TODO left.
    c = g.check("todo", "%s: no TODO(lab) left" % os.path.relpath(path, root))
    source = _read(path) if os.path.exists(path) else ""
    todos = TODO_RE.findall(source)
    c.done(not todos, ["still to write: " + ", ".join(todos)] if todos else [])

    # 2. The build.
    targets = ["build/host/test_alloc", "build/bench/lab", "build/bench/lab-stress"] + \
        (["kernel"] if guest else [])
    c = g.check("build", "build (%s; warnings are errors)" % ", ".join(targets))

    def build(c):
        limit = _limit(BUILD_TIMEOUT_S, left())
        r = runner.run(["make", "-s", "-j%d" % jobs] + targets, limit, env={"MAKEFLAGS": ""})
        detail = [] if r.rc == 0 else build_detail(r.out, r.err)
        if r.timed_out:
            detail.insert(0, "the build did not end within %d s" % limit)
        c.done(r.rc == 0 and not r.timed_out, detail, r.out + r.err)
    timed(c, build)
    if c.verdict != "PASS":
        g.stop = "not run: the build failed"

    # 3. The conformance suite.
    c = g.check("suite", "conformance suite (build/host/test_alloc -k %s, alone and with the "
                "per-CPU lists in front, %d s per test, seed %d)" % (name, TEST_TIMEOUT_S, seed))

    def suite(c):
        r = runner.run([os.path.join(root, "build", "host", "test_alloc"), "-k", name],
                       _limit(SUITE_TIMEOUT_S, left()), mem_mib=None,
                       env={"MEMBOOT_TEST_TIMEOUT_S": str(TEST_TIMEOUT_S),
                            "MEMBOOT_TEST_SEED": str(seed),
                            "ASAN_OPTIONS": "hard_rss_limit_mb=%d" % SUITE_RSS_MIB})
        detail, hang = suite_detail(r.out, r.err)
        if r.timed_out:
            hang = True
            detail.append("the suite did not end within %d s" % SUITE_TIMEOUT_S)
        elif r.rc != 0 and not detail:
            detail = ["the suite failed (status %s): %s" % (r.rc, (_lines(r.err) or
                                                                   ["no output"])[-1])]
        tests = failed_tests(r.err)
        if r.rc != 0 and tests == ["test_cross_thread_frees"]:
            detail.append("test_cross_thread_frees is the suite's one test with several "
                          "threads: a failure " + THREADS_ONLY)
        c.done(r.rc == 0 and not r.timed_out, _shown(detail), r.out + r.err,
               first=detail[0].strip() if detail else "")
        c.detail_all = detail
        if hang:
            g.stop = "not run: the suite found a hang (%s)" % (
                detail[0][len("FAILED: "):] if detail and detail[0].startswith("FAILED: ")
                else "the suite did not end")
    step(c, suite)

    # 4. The checked lab: the lab's harness, every block verified, a census
    # after every run; a run in which the threads take turns (deterministic)
    # and one in which they race, for each workload and thread count.
    c = g.check("lab", "checked lab (%s; %s threads; seed %d; each serial and concurrent; every "
                "block verified, census after every run)" % (
                    ", ".join(LAB_CHECK["workloads"]),
                    " and ".join(str(t) for t in LAB_CHECK["threads"]), seed))

    def checked_lab(c):
        events, trace_mib = trace or prepare_trace(work)
        if os.path.dirname(events) != work:       # the class's copy, read once for all
            import shutil
            shutil.copyfile(events, os.path.join(work, "trace.events"))
            events = os.path.join(work, "trace.events")
        rows, log = [], []
        # One thread first: a failure seen only with more is then told apart.
        for t in LAB_CHECK["threads"]:
            for serial in (True, False):
                for w in LAB_CHECK["workloads"]:
                    if g.stop or sum(not x["check"] for x in rows) >= LAB_CHECK["failures"]:
                        break
                    cmd = lab.lab_argv(name, t, w, LAB_CHECK["ops"],
                                       trace_mib if w == "trace" else LAB_CHECK["mib"], seed,
                                       serial=serial, events=events,
                                       binary=os.path.join(root, "build", "bench", "lab"))
                    row = lab.run_row(cmd, name, t, w, _limit(LAB_ROW_TIMEOUT_S, left()),
                                      lab_runner(runner))
                    row["serial"] = serial
                    rows.append(row)
                    log.append("%s x%d %s%s: %s" % (name, t, w, " serial" if serial else "",
                                                    "passed" if row["check"] else
                                                    row["failure"]))
                    if row.get("hang"):
                        g.stop = "not run: the checked lab found a hang (%s x%d %s: %s)" % (
                            name, t, w, row["failure"])
        bad = [x for x in rows if not x["check"]]
        detail = ["%s x%d %s%s: %s" % (name, x["threads"], x["workload"],
                                       " (threads taking turns)" if x["serial"] else "",
                                       x["failure"]) for x in bad]
        total = len(LAB_CHECK["workloads"]) * len(LAB_CHECK["threads"]) * 2
        if bad and len(rows) < total and not g.stop:
            detail.append("(%d of the %d runs made: the check stops after %d failures)" % (
                len(rows), total, LAB_CHECK["failures"]))
        failed = {x["threads"] for x in bad}
        passed = {x["threads"] for x in rows if x["check"]}
        if failed and min(failed) > 1 and 1 in passed:
            detail.append("every run with 1 thread passed: the failures are " + THREADS_ONLY)
        c.done(not bad, _shown(detail), "\n".join(log) + "\n")
    step(c, checked_lab)

    # 5. Stress: race windows widened until a racy allocator fails every time.
    c = g.check("stress", "stress (build/bench/lab-stress --stress %d: %d threads on at most 2 "
                "CPUs, a yield at lock operations and at random; %s; seeds %d..%d)" % (
                    STRESS["permille"], STRESS["threads"], ", ".join(STRESS["workloads"]),
                    seed, seed + STRESS["seeds"] - 1))

    def stress(c):
        log, detail = [], []
        for s in range(seed, seed + STRESS["seeds"]):
            for w in STRESS["workloads"]:
                cmd = lab.lab_argv(name, STRESS["threads"], w, STRESS["ops"], STRESS["mib"], s,
                                   stress=STRESS["permille"],
                                   binary=os.path.join(root, "build", "bench", "lab-stress"))
                row = lab.run_row(cmd, name, STRESS["threads"], w,
                                  _limit(STRESS_ROW_TIMEOUT_S, left()), lab_runner(runner))
                log.append("%s x%d %s seed %d --stress: %s" % (
                    name, STRESS["threads"], w, s, "passed" if row["check"] else row["failure"]))
                if not row["check"]:
                    detail = ["%s x%d %s, seed %d, stressed: %s" % (
                        name, STRESS["threads"], w, s, row["failure"])]
                    earlier = [x.key for x in g.checks if x.key in ("suite", "lab")
                               and x.verdict == "PASS"]
                    if earlier:
                        detail.append("the %s passed: this failure is %s" % (
                            " and the ".join(earlier), THREADS_ONLY))
                    if row.get("hang"):
                        g.stop = "not run: a stressed run hung"
                    return c.done(False, detail, "\n".join(log) + "\n")
        c.done(True, [], "\n".join(log) + "\n")
    step(c, stress)

    # 6. The guest boot.
    if guest:
        c = g.check("guest", "guest boot (2 nodes x 2 CPUs, memboot.alloc=%s "
                    "memboot.selftest=alloc, censuses clean, %d s at most)" % (name,
                                                                               BOOT_TIMEOUT_S))
        step(c, lambda c: guest_boot(c, name, root, runner, work, left()))
    else:
        g.check("guest", "guest boot (--no-guest)")

    # 7. The lecturer's hidden checks.
    if hidden is not None:
        c = g.check("hidden", "hidden checks (%d, not in the students' tree)" % len(hidden.checks))
        step(c, lambda c: hidden.run(c, name, root, runner, work, left()))

    # The counted figures and the index, for an allocator that passed.
    if counted and g.passed and not g.stop:
        c = g.check("counted", "performance, counted (callgrind: the same on every run)")
        step(c, lambda c: count(g, c, name, root, runner, work, seed, references, left()))
    g.seconds = time.monotonic() - t0
    if not quiet:
        report(g, out)
    return g


def guest_boot(c, name, root, runner, work, left):
    from mbtools import boot as mbboot
    from mbtools import facts
    elf = os.path.join(root, "build", os.environ.get("MODE", "debug"), "memboot.elf")
    log = os.path.join(work, "boot.log")
    if os.path.exists(log):
        os.unlink(log)
    limit = _limit(BOOT_TIMEOUT_S, left)
    argv = mbboot.run_argv(nodes=2, cpus_per_node=2, mem_per_node="512M", boot_path="pvh",
                           elf=elf, timeout=limit,
                           append="memboot.alloc=%s memboot.selftest=alloc" % name)
    argv = [runner.python, os.path.join(root, "tools", "memboot")] + argv[2:] + ["--log", log]
    r = runner.run(argv, limit + 30, mem_mib=GUEST_MEM_MIB)
    console = _read(log) if os.path.exists(log) else ""
    b = mbboot.Boot(argv, None if r.timed_out else r.rc, console, r.err)
    detail = []
    tests, census = b.all("alloc_test"), b.all("census")
    last = (_lines(console) or ["(nothing)"])[-1]
    if r.timed_out or b.status == facts.EXIT_TIMEOUT:
        detail = ["the guest boot did not end within %d s: a hang (its console's last line: "
                  "%s)" % (limit, last)]
    elif b.status != 0:
        lines = [l for l in console.splitlines() if "panic" in l.lower() or "error" in l]
        detail = ["the boot ended with status %s" % b.status] + \
            (lines or _lines(r.err or console)[-4:])
    elif len(tests) != 1 or tests[0]["failures"]:
        detail = ["the allocation self-test: %s" % (tests or "no alloc_test record")]
    elif tests[0]["blocks"] and tests[0]["no_memory"] == tests[0]["blocks"] and \
            tests[0]["free_before"]:
        t = tests[0]
        detail = ["the allocation self-test's %d requests all found no memory while the "
                  "allocator held %d free pages: an allocator must hand out the memory it "
                  "holds" % (t["blocks"], t["free_before"])]
    elif not census or any(x["lost"] or x["bad"] or not x["check"] for x in census):
        detail = ["a census failed: %s" % [x for x in census if x["lost"] or x["bad"]
                                           or not x["check"]][:2]]
    c.done(not detail, detail, console + r.err)


def counted_figures(name, root, runner, work, seed, left):
    """{workload: counted figures} of @name (lab.counted_row), or a failed
    row's message."""
    from mbtools import lab
    figures = {}
    for w in COUNTED["workloads"]:
        row = lab.counted_row(name, COUNTED["threads"], w, COUNTED["ops"], COUNTED["mib"], seed,
                              None, os.path.join(work, "callgrind.out"),
                              timeout=_limit(COUNTED_TIMEOUT_S, left), run=lab_runner(runner),
                              binary=os.path.join(root, "build", "bench", "lab-counted"))
        if not row["check"]:
            return row["failure"]
        figures[w] = row["counted"]
    return figures


def perf_index(figures, references):
    """100 x the geometric mean over the workloads of the best reference
    design's estimated cycles per operation over @figures' (100: as cheap
    as the best of buddy, bitmap and llfree on each; 50: twice its cost)."""
    ratios = []
    for w, f in figures.items():
        best = min(r[w]["est_cycles_per_op"] for r in references.values())
        ratios.append(best / max(f["est_cycles_per_op"], 1e-9))
    return 100.0 * math.exp(sum(math.log(x) for x in ratios) / len(ratios))


def _references_key(root, seed):
    """What the reference designs' counted figures depend on: their objects
    and the harness's in the counted build, the runs' shape and the seed."""
    import hashlib
    h = hashlib.sha256(json.dumps([COUNTED, seed, sorted(lab_cache_shape())]).encode())
    obj = os.path.join(root, "build", "bench", "countobj")
    for rel in ["bench/lab.o", "mm/memmap.o"] + ["mm/alloc/%s.o" % r for r in REFERENCES]:
        with open(os.path.join(obj, rel), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def lab_cache_shape():
    from mbtools import lab
    return [" ".join(lab.CALLGRIND)]


def reference_figures(root, runner, work, seed, left=None):
    """The reference designs' counted figures: counted once for these
    objects and this seed, then read from build/lab/counted-references.json
    (they are the same on every run)."""
    from mbtools import lab
    cache = os.path.join(root, "build", "lab", "counted-references.json")
    try:
        key = _references_key(root, seed)
    except OSError:
        key = None
    kept = lab.counted_cache_get(cache, key) if key else None
    if kept:
        return kept
    refs = {}
    for name in REFERENCES:
        f = counted_figures(name, root, runner, work, seed, left)
        if isinstance(f, str):
            raise KitError("the reference design %s fails its counted run: %s" % (name, f))
        refs[name] = f
    if key:
        lab.counted_cache_put(cache, key, refs)
    return refs


def count(g, c, name, root, runner, work, seed, references, left):
    r = runner.run(["make", "-s", "build/bench/lab-counted"], _limit(BUILD_TIMEOUT_S, left),
                   env={"MAKEFLAGS": ""})
    if r.rc != 0:
        c.verdict, c.detail = "INFO", ["no figures: the counted build failed:"] + \
            build_detail(r.out, r.err)
        return
    figures = counted_figures(name, root, runner, work, seed, left)
    if isinstance(figures, str):
        c.verdict, c.detail = "INFO", ["no figures: the counted run failed: " + figures]
        return
    refs = references if references is not None else \
        reference_figures(root, runner, work, seed, left)
    g.counted = {"workloads": figures, "index": perf_index(figures, refs),
                 "references": refs}
    per = {k: sum(f[k] for f in figures.values()) / len(figures)
           for k in ("ir_per_op", "d1_miss_per_op", "ll_miss_per_op", "locks_per_op",
                     "est_cycles_per_op")}
    g.counted.update(per)
    c.verdict = "INFO"
    c.detail = ["%.0f instructions, %.2f D1 and %.3f LL misses (simulated), %.2f lock "
                "acquisitions, %.0f estimated cycles per operation (%s x%d, mean)" % (
                    per["ir_per_op"], per["d1_miss_per_op"], per["ll_miss_per_op"],
                    per["locks_per_op"], per["est_cycles_per_op"],
                    " and ".join(COUNTED["workloads"]), COUNTED["threads"]),
                "performance index %.0f (100: as cheap as the best of %s on each workload; "
                "%s)" % (g.counted["index"], ", ".join(REFERENCES), ", ".join(
                    "%s %.0f" % (w, min(r[w]["est_cycles_per_op"] for r in refs.values()))
                    for w in figures) + " est. cycles/op at best")]


# ---------------------------------------------------------------------------
# Hidden checks: a lecturer's traces and runs, kept outside the students' tree
# ---------------------------------------------------------------------------

TRACE_EXT = (".trace", ".trace.gz", ".trace.xz")
HIDDEN_WORDS = {"seed": (0, 1 << 62), "ops": (1000, 1 << 40), "mib": (16, 1 << 20),
                "nodes": (1, 8)}


class HiddenSet:
    """DIR/checks (optional) and DIR/*.trace[.gz|.xz]: each non-comment line
    of checks is `WORKLOAD THREADS [seed=N] [ops=N] [mib=N] [nodes=N]
    [lazy] [split] [stress]`, WORKLOAD one of the lab's or trace=FILE (a
    trace of DIR); a trace no line names is replayed at 2 threads. Every
    check runs as the checked lab's rows do (each block verified, a census
    at the end); a report names them by number only."""

    def __init__(self, directory):
        from mbtools import lab
        self.dir = directory
        if not os.path.isdir(directory):
            raise KitError("--hidden %s: not a directory" % directory)
        self.traces = {}      # file name: (events path or None, report)
        self.checks = []      # dicts
        path = os.path.join(directory, "checks")
        named = set()
        if os.path.lexists(path):
            try:
                text = inputs.read_input(path, "hidden checks file").decode("utf-8")
            except (inputs.InputError, UnicodeDecodeError) as e:
                raise KitError("--hidden: %s" % e) from None
            for number, line in enumerate(text.splitlines(), 1):
                words = line.split("#", 1)[0].split()
                if words:
                    check = self._parse(words, "%s line %d" % (path, number), lab)
                    named.add(check.get("trace"))
                    self.checks.append(check)
        for f in sorted(os.listdir(directory)):
            if f.endswith(TRACE_EXT) and f not in named:
                self.checks.append({"workload": "trace", "trace": f, "threads": 2, "seed": 1,
                                    "ops": 200000, "mib": 256, "nodes": 1, "lazy": False,
                                    "split": False, "stress": False})
        if not self.checks:
            raise KitError("--hidden %s: no checks file and no trace (*%s): no hidden check "
                           "at all" % (directory, ", *".join(TRACE_EXT)))

    def _parse(self, words, where, lab):
        check = {"seed": 1, "ops": 200000, "mib": 256, "nodes": 1, "lazy": False,
                 "split": False, "stress": False}
        workload = words[0]
        if workload.startswith("trace="):
            f = workload[len("trace="):]
            problem = None if f.endswith(TRACE_EXT) and os.sep not in f else \
                "a trace is a file of the hidden directory ending in %s" % ", ".join(TRACE_EXT)
            problem = problem or inputs.regular_file_problem(os.path.join(self.dir, f), "trace")
            if problem:
                raise KitError("%s: %s" % (where, problem))
            check.update(workload="trace", trace=f)
        elif workload in lab.WORKLOADS and workload != "trace":
            check["workload"] = workload
        else:
            raise KitError("%s: %r is no workload (%s, or trace=FILE)" % (
                where, workload, ", ".join(w for w in lab.WORKLOADS if w != "trace")))
        threads = inputs.parse_uint(words[1]) if len(words) > 1 else None
        if threads is None or not 1 <= threads <= 64:
            raise KitError("%s: the second word is the thread count, 1 to 64" % where)
        check["threads"] = threads
        for w in words[2:]:
            key, _, value = w.partition("=")
            if key in HIDDEN_WORDS and value:
                v = inputs.parse_uint(value)
                lo, hi = HIDDEN_WORDS[key]
                if v is None or not lo <= v <= hi:
                    raise KitError("%s: %s: a whole number from %d to %d" % (where, w, lo, hi))
                check[key] = v
            elif w in ("lazy", "split", "stress") and not value:
                check[w] = True
            else:
                raise KitError("%s: unknown word %r (seed=, ops=, mib=, nodes=, lazy, split, "
                               "stress)" % (where, w))
        if check["mib"] // check["nodes"] < 4:
            raise KitError("%s: each node needs at least 4 MiB" % where)
        return check

    def prepare(self, scratch):
        """The traces read once, by the grader (not in a sandbox), into
        event files under @scratch."""
        from mbtools import lab
        for check in self.checks:
            f = check.get("trace")
            if f and f not in self.traces:
                try:
                    events, rep = lab.parse_trace(os.path.join(self.dir, f))
                except lab.LabError as e:
                    raise KitError("--hidden: %s" % e) from None
                path = os.path.join(scratch, "hidden-%d.events" % len(self.traces))
                lab.write_events(events, path)
                mib = max(256, (2 * rep["peak_held_pages"] * 4096 + (1 << 20) - 1) >> 20)
                self.traces[f] = (path, mib)

    def run(self, c, name, root, runner, work, left):
        import shutil
        from mbtools import lab
        if any(x.get("trace") and x["trace"] not in self.traces for x in self.checks):
            self.prepare(work)
        log, detail = [], []
        for i, check in enumerate(self.checks, 1):
            events, mib = None, check["mib"]
            if check.get("trace"):
                src, mib = self.traces[check["trace"]]
                events = os.path.join(work, "hidden.events")
                shutil.copyfile(src, events)
                os.chmod(events, 0o644)
            binary = os.path.join(root, "build", "bench",
                                  "lab-stress" if check["stress"] else "lab")
            cmd = lab.lab_argv(name, check["threads"], check["workload"], check["ops"], mib,
                               check["seed"], nodes=check["nodes"], lazy=check["lazy"],
                               split=check["split"], events=events, binary=binary,
                               stress=STRESS["permille"] if check["stress"] else 0)
            row = lab.run_row(cmd, name, check["threads"], check["workload"],
                              _limit(LAB_ROW_TIMEOUT_S, left), lab_runner(runner))
            if events and os.path.exists(events):
                os.unlink(events)
            log.append("hidden check %d: %s" % (i, "passed" if row["check"] else row["failure"]))
            if not row["check"]:
                detail.append("hidden check %d of %d: %s" % (i, len(self.checks), row["failure"]))
                if row.get("hang"):
                    break
        c.done(not detail, detail, "\n".join(log) + "\n")


# ---------------------------------------------------------------------------
# The verdict
# ---------------------------------------------------------------------------

def report(g, out, full=False):
    """The grade as printed; @full: every line and each check's whole
    output (a report file)."""
    print("memboot lab grade %s" % g.name, file=out)
    for c in g.checks:
        print("  [%s] %s" % (c.verdict, c.title), file=out)
        for line in (getattr(c, "detail_all", c.detail) if full else c.detail):
            print("      " + line, file=out)
    counted = [c for c in g.checks if c.verdict != "INFO"]
    bad = [c for c in counted if c.verdict == "FAIL"]
    skipped = sum(c.verdict == "SKIP" for c in counted)
    print("result: %s (%d of %d checks passed%s)" % (
        "FAIL" if bad else "PASS", sum(c.verdict == "PASS" for c in counted), len(counted),
        ", %d skipped" % skipped if skipped else ""), file=out)
    if full:
        for c in g.checks:
            if c.log.strip():
                print("\n==== %s: the whole output (%.1f s) ====" % (c.key, c.seconds), file=out)
                print(c.log.rstrip(), file=out)
    return 1 if bad else 0
