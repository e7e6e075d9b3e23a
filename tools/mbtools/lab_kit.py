"""tools/memboot lab new NAME / lab grade NAME: the allocator lab's course kit.

    tools/memboot lab new myalloc      # mm/alloc/myalloc.c from the skeleton, registered
    tools/memboot lab grade myalloc    # suite, checked lab, guest boot: PASS or FAIL

`new` writes mm/alloc/NAME.c from tools/mbtools/lab_skeleton.c.in (the ops
with TODO(lab) markers and the contract in comments; it compiles, and fails
the suite until the TODOs are done), adds X(NAME) to mm/alloc/table.h (the
one list of allocators) and NAME to the memboot.alloc row of
docs/cmdline.md. `grade` builds, then runs the conformance suite
(build/host/test_alloc -k NAME, each test with a timeout), the checked lab
(every block verified, a census after every run) and a guest boot with
memboot.selftest=alloc, and prints one line per check and a verdict; exit 0
when every check passed, 1 otherwise (docs/teaching.md).
"""
import os
import re
import subprocess
import sys
import tempfile

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(TOOLS_DIR)
SKELETON = os.path.join(TOOLS_DIR, "mbtools", "lab_skeleton.c.in")
NAME_RE = re.compile(r"[a-z][a-z0-9_]{0,14}", re.ASCII)   # memboot.alloc= takes 15 characters
TODO_RE = re.compile(r"/\* TODO\(lab\) (\w+):")
SUITE_TIMEOUT_S = 120
TEST_TIMEOUT_S = 10


class KitError(Exception):
    """A usage error of lab new / lab grade (exit 64)."""


def _paths(root):
    return (os.path.join(root, "mm", "alloc", "table.h"),
            os.path.join(root, "docs", "cmdline.md"))


def check_name(name, root=REPO_ROOT, new=True):
    from mbtools import facts
    if not NAME_RE.fullmatch(name):
        raise KitError("allocator name %r: a lower-case letter, then up to 14 letters, digits "
                       "or _ (memboot.alloc= takes 15 characters)" % name)
    path = os.path.join(root, "mm", "alloc", name + ".c")
    names = facts.parse_allocators(open(_paths(root)[0], encoding="utf-8").read())
    if new and (name in names or os.path.exists(path)):
        raise KitError("%s exists already (mm/alloc/table.h or %s)" % (name, path))
    if not new and name not in names:
        raise KitError("no allocator %s in mm/alloc/table.h (known: %s); "
                       "`tools/memboot lab new %s` makes one" % (name, ", ".join(names), name))
    return path


def new(name, root=REPO_ROOT, out=sys.stdout):
    path = check_name(name, root)
    with open(SKELETON, encoding="utf-8") as f:
        text = f.read().replace("@NAME@", name)
    table, cmdline = _paths(root)
    lines = open(table, encoding="utf-8").read().split("\n")
    last = max(i for i, line in enumerate(lines) if re.match(r"\tX\(\w+\)", line))
    if not lines[last].rstrip().endswith("\\"):
        lines[last] = lines[last].rstrip() + " \\"
    lines.insert(last + 1, "\tX(%s)" % name)
    doc = open(cmdline, encoding="utf-8").read()
    row = re.search(r"^\| `memboot\.alloc` \| ((?:`\w+`, )*`\w+`)", doc, re.M)
    if not row:
        raise KitError("docs/cmdline.md has no memboot.alloc row to add %s to" % name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    with open(table, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    with open(cmdline, "w", encoding="utf-8") as f:
        f.write(doc[:row.end(1)] + ", `%s`" % name + doc[row.end(1):])
    todos = TODO_RE.findall(text)
    print("wrote %s (the ops to write: %s), added X(%s) to mm/alloc/table.h and %s to "
          "docs/cmdline.md's memboot.alloc row" % (os.path.relpath(path, root),
                                                   ", ".join(todos), name, name), file=out)
    print("next: fill in each TODO(lab), then `tools/memboot lab grade %s` "
          "(docs/teaching.md)" % name, file=out)
    return 0


def _run(cmd, timeout, env=None):
    try:
        r = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=timeout,
                           env=dict(os.environ, **(env or {})))
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired as e:
        def text(x):
            return x.decode(errors="replace") if isinstance(x, bytes) else (x or "")
        return None, text(e.stdout), text(e.stderr)


def _first(lines, n):
    return ["      " + line[:220] for line in lines[:n]]


def grade(name, guest=True, out=sys.stdout):
    path = check_name(name, new=False)
    results = []      # (verdict, what, [detail lines])

    source = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    todos = TODO_RE.findall(source)
    results.append(("FAIL" if todos else "PASS", "%s: no TODO(lab) left" % os.path.relpath(
        path, REPO_ROOT), ["      still to write: " + ", ".join(todos)] if todos else []))

    targets = ["build/host/test_alloc", "lab-build"] + (["kernel"] if guest else [])
    rc, so, se = _run(["make", "-s", "-j2"] + targets, 1800)
    errors = [l for l in (so + se).splitlines() if "error" in l.lower()]
    results.append(("PASS" if rc == 0 else "FAIL", "build (%s)" % ", ".join(targets),
                    _first(errors or (so + se).splitlines()[-8:], 8) if rc != 0 else []))
    if rc != 0:
        return _report(name, results, out)

    rc, so, se = _run([os.path.join(REPO_ROOT, "build", "host", "test_alloc"), "-k", name],
                      SUITE_TIMEOUT_S, {"MEMBOOT_TEST_TIMEOUT_S": str(TEST_TIMEOUT_S)})
    failed = [l.strip() for l in se.splitlines() if l.startswith("FAILED: ")]
    detail = _first(failed, 6) + (["      ... and %d more" % (len(failed) - 6)]
                                  if len(failed) > 6 else [])
    if rc is None:
        detail.append("      the suite did not end within %d s" % SUITE_TIMEOUT_S)
    results.append(("PASS" if rc == 0 else "FAIL",
                    "conformance suite (build/host/test_alloc -k %s, alone and with the "
                    "per-CPU lists in front, %d s per test)" % (name, TEST_TIMEOUT_S), detail))

    with tempfile.TemporaryDirectory(prefix="memboot-grade-") as d:
        rc, so, se = _run([sys.executable, os.path.join(TOOLS_DIR, "memboot"), "lab",
                           "--allocators", name, "--quick", "--threads", "1,2",
                           "--workloads", "kbuild,random,frag,trace", "--no-plot",
                           "--timeout", "120", "--out", os.path.join(d, "lab")], 1200)
    rows = [l.strip() for l in se.splitlines() if l.startswith("  %s x" % name)]
    detail = _first(rows, 6) if rows else _first(se.strip().splitlines()[-4:], 4)
    results.append(("PASS" if rc == 0 else "FAIL",
                    "checked lab (kbuild, random, frag, trace; 1 and 2 threads; every block "
                    "verified, census after every run)", detail if rc != 0 else []))

    if guest:
        from mbtools import boot as mbboot
        elf = os.path.join(REPO_ROOT, "build", os.environ.get("MODE", "debug"), "memboot.elf")
        b = mbboot.boot(mbboot.run_argv(nodes=2, cpus_per_node=2, mem_per_node="512M",
                                        boot_path="pvh", elf=elf, timeout=180,
                                        append="memboot.alloc=%s memboot.selftest=alloc" % name))
        detail = []
        tests = b.all("alloc_test")
        census = b.all("census")
        if b.status != 0:
            lines = [l for l in b.console.splitlines() if "panic" in l.lower() or "error" in l]
            detail = _first(lines or (b.stderr or b.console).strip().splitlines()[-4:], 4)
            detail.insert(0, "      the boot ended with status %s" % b.status)
        elif len(tests) != 1 or tests[0]["failures"]:
            detail = ["      the allocation self-test: %s" % (tests or "no alloc_test record")]
        elif not census or any(c["lost"] or c["bad"] or not c["check"] for c in census):
            detail = ["      a census failed: %s" % [c for c in census if c["lost"] or c["bad"]
                                                       or not c["check"]][:2]]
        results.append(("FAIL" if detail else "PASS",
                        "guest boot (2 nodes x 2 CPUs, memboot.alloc=%s memboot.selftest=alloc, "
                        "censuses clean)" % name, detail))
    else:
        results.append(("SKIP", "guest boot (--no-guest)", []))
    return _report(name, results, out)


def _report(name, results, out):
    print("memboot lab grade %s" % name, file=out)
    for verdict, what, detail in results:
        print("  [%s] %s" % (verdict, what), file=out)
        for line in detail:
            print(line, file=out)
    bad = [r for r in results if r[0] == "FAIL"]
    print("result: %s (%d of %d checks passed%s)" % (
        "FAIL" if bad else "PASS", sum(r[0] == "PASS" for r in results), len(results),
        ", %d skipped" % sum(r[0] == "SKIP" for r in results)
        if any(r[0] == "SKIP" for r in results) else ""), file=out)
    return 1 if bad else 0
