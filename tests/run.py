#!/usr/bin/env python3
"""memboot's test runner: everything `make test` runs, one summary line.

Sections, in order (each can be chosen with --only):
  host    cmocka unit tests (ASan+UBSan), TAP output: build/host/test_NAME
          for each tests/host/test_NAME.c, and only those; a binary that is
          missing or older than its source fails (run `make host-tests`)
  fuzz    each libFuzzer target over its seeds and saved regressions
  tools   unittest suites in tests/tools/
  guest   boot tests in tests/guest/test_*.py, run against the ISO in QEMU

Ends with the line "N passed, N failed, N skipped" and exits 1 if anything
failed (or nothing passed).
"""
import argparse
import concurrent.futures
import glob
import importlib.util
import io
import os
import re
import subprocess
import sys
import time
import traceback
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "guest"))


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.failures = []

    def ok(self, name):
        self.passed += 1
        print(f"  PASS {name}", flush=True)

    def skip(self, name, why=""):
        self.skipped += 1
        print(f"  SKIP {name}" + (f": {why}" if why else ""), flush=True)

    def summary(self):
        """The closing line (CI reads its "N passed, N failed" start)."""
        return f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped"

    def fail(self, name, detail=""):
        self.failed += 1
        self.failures.append(name)
        print(f"  FAIL {name}", flush=True)
        for line in failure_excerpt(detail):
            print(f"       {line}")


def failure_excerpt(detail, tail=40):
    """The lines of a failure worth printing: all of a short one; of a long
    one (an assertion whose message is a boot's console) the frame that
    raised and the message's first line, then its last @tail lines, so
    the assertion that failed is named even when its message is long."""
    lines = detail.rstrip().splitlines()
    if len(lines) <= tail:
        return lines
    head = []
    frames = [i for i, line in enumerate(lines) if line.lstrip().startswith('File "')]
    if frames:
        last = frames[-1]
        head = lines[last:last + 2]
        # The message's first line: the first after the frame's source line
        # that is not indented (traceback source lines are).
        head += [line for line in lines[last + 2:] if line and not line.startswith(" ")][:1]
    return head + ["[...]"] + lines[-tail:]


def host_tests(root):
    """[(name, binary, problem)] for each tests/host/test_NAME.c: the binary
    the build makes of it (build/host/test_NAME) and None, or why it cannot
    be run (missing, older than its source). Binaries without a source are
    left out: a removed or renamed test's stale binary is never run."""
    out = []
    for source in sorted(glob.glob(os.path.join(root, "tests", "host", "test_*.c"))):
        name = os.path.splitext(os.path.basename(source))[0]
        binary = os.path.join(root, "build", "host", name)
        problem = None
        if not os.path.isfile(binary) or not os.access(binary, os.X_OK):
            problem = f"no build/host/{name} for tests/host/{name}.c (run `make host-tests`)"
        elif os.path.getmtime(binary) < os.path.getmtime(source):
            problem = (f"build/host/{name} is older than tests/host/{name}.c "
                       "(run `make host-tests`)")
        out.append((name, binary, problem))
    return out


def stale_host_binaries(root):
    """build/host/test_* files that no tests/host/test_*.c makes."""
    sources = {os.path.splitext(os.path.basename(p))[0]
               for p in glob.glob(os.path.join(root, "tests", "host", "test_*.c"))}
    return sorted(os.path.basename(p)
                  for p in glob.glob(os.path.join(root, "build", "host", "test_*"))
                  if os.path.basename(p) not in sources and os.path.isfile(p)
                  and os.access(p, os.X_OK))


# A host test binary that runs longer is a hang (test_alloc's own per-test
# timeout fails a hung test sooner, named).
HOST_TIMEOUT_S = 300

# cmocka's TAP: "ok 1 - name", "not ok 2 - name", "not ok 3 # SKIP name".
TAP_RE = re.compile(r"^(not ok|ok) \d+ (?:- (.*)|# SKIP (.*))$")


def run_host(tally, pattern, root=ROOT):
    tests = host_tests(root)
    if not tests:
        tally.fail("host: no tests/host/test_*.c")
    for name in stale_host_binaries(root):
        print(f"  NOTE build/host/{name} has no tests/host/{name}.c: not run", flush=True)
    for name, binary, problem in tests:
        if pattern and not re.search(pattern, name):
            continue
        if problem:
            tally.fail(f"host/{name}", problem)
            continue
        env = dict(os.environ, CMOCKA_MESSAGE_OUTPUT="TAP")
        try:
            proc = subprocess.run([binary], cwd=root, env=env, capture_output=True,
                                  text=True, timeout=HOST_TIMEOUT_S)
        except subprocess.TimeoutExpired as e:
            # A hang fails the binary, named, and the other binaries still run.
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            tally.fail(f"host/{name} (did not finish within {HOST_TIMEOUT_S} s: a hang)",
                       out[-3000:])
            continue
        seen = 0
        for line in proc.stdout.splitlines():
            m = TAP_RE.match(line)
            if not m:
                continue
            seen += 1
            test = f"host/{name}/{(m.group(2) or m.group(3)).strip()}"
            if m.group(3) is not None:
                tally.skip(test)
            elif m.group(1) == "ok":
                tally.ok(test)
            else:
                tally.fail(test, proc.stdout + proc.stderr)
        if proc.returncode != 0 and seen == 0:
            tally.fail(f"host/{name}", f"exit {proc.returncode}\n{proc.stdout}{proc.stderr}")
        elif proc.returncode != 0 and "not ok" not in proc.stdout:
            tally.fail(f"host/{name} (crashed after {seen} tests)",
                       f"exit {proc.returncode}\n{proc.stderr}")


def run_fuzz_regress(tally, pattern):
    targets = sorted(glob.glob(os.path.join(ROOT, "build", "fuzz", "fuzz_*")))
    targets = [t for t in targets if os.access(t, os.X_OK) and os.path.isfile(t)]
    script = os.path.join(ROOT, "tools", "fuzz.sh")
    for target in targets:
        name = os.path.basename(target)
        if pattern and not re.search(pattern, name):
            continue
        proc = subprocess.run([script, "--regress", target], cwd=ROOT,
                              capture_output=True, text=True, timeout=600)
        if proc.returncode == 0:
            tally.ok(f"fuzz/{name} (seeds and regressions)")
        else:
            tally.fail(f"fuzz/{name}", proc.stdout + proc.stderr)


def run_tools(tally, pattern):
    loader = unittest.TestLoader()
    tools_dir = os.path.join(ROOT, "tests", "tools")
    suite = loader.discover(tools_dir, pattern="test_*.py", top_level_dir=tools_dir)

    def flatten(s):
        for t in s:
            if isinstance(t, unittest.TestSuite):
                yield from flatten(t)
            else:
                yield t

    for test in flatten(suite):
        name = f"tools/{test.id().split('.', 2)[-1]}"
        # -k also matches the module (test_lab), as guest names carry theirs.
        if pattern and not re.search(pattern, name) and not re.search(pattern, test.id()):
            continue
        result = unittest.TestResult()
        test.run(result)
        if result.skipped and result.wasSuccessful():
            tally.skip(name, result.skipped[0][1])
        elif result.wasSuccessful():
            tally.ok(name)
        else:
            detail = "".join(tb for _, tb in result.failures + result.errors)
            tally.fail(name, detail)


def load_guest_tests(pattern):
    tests = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "guest", "test_*.py"))):
        modname = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for attr in sorted(dir(mod)):
            fn = getattr(mod, attr)
            if attr.startswith("test_") and callable(fn):
                name = f"guest/{modname}/{attr}"
                if not pattern or re.search(pattern, name):
                    tests.append((name, fn))
    return tests


def run_guest(tally, pattern, jobs):
    tests = load_guest_tests(pattern)

    def one(item):
        name, fn = item
        start = time.monotonic()
        try:
            fn()
            return name, None, time.monotonic() - start
        except unittest.SkipTest as e:
            return name, e, time.monotonic() - start
        except Exception:  # noqa: BLE001 - report every failure the same way
            return name, traceback.format_exc(), time.monotonic() - start

    def report(results):
        for name, err, secs in results:
            label = f"{name} ({secs:.1f} s)"
            if err is None:
                tally.ok(label)
            elif isinstance(err, unittest.SkipTest):
                tally.skip(label, str(err))
            else:
                tally.fail(label, err)

    # Tests marked `serial = True` (timing checks) run alone, after the rest,
    # so another QEMU does not compete with them for the host's cores.
    shared = [t for t in tests if not getattr(t[1], "serial", False)]
    alone = [t for t in tests if getattr(t[1], "serial", False)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        report(pool.map(one, shared))
    report(map(one, alone))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iso", default=os.path.join(ROOT, "build", "debug", "memboot.iso"))
    ap.add_argument("--elf", default=os.path.join(ROOT, "build", "debug", "memboot.elf"))
    ap.add_argument("--only", action="append", choices=["host", "fuzz", "tools", "guest"],
                    help="run only these sections (repeatable)")
    ap.add_argument("-k", dest="pattern", help="only tests whose name matches this regex")
    ap.add_argument("-j", dest="jobs", type=int, default=2,
                    help="guest boots at a time (default 2, one per host core)")
    args = ap.parse_args()
    os.environ["MEMBOOT_ISO"] = os.path.abspath(args.iso)
    os.environ["MEMBOOT_ELF"] = os.path.abspath(args.elf)

    sections = args.only or ["host", "fuzz", "tools", "guest"]
    tally = Tally()
    start = time.monotonic()
    for section in sections:
        print(f"== {section}", flush=True)
        t0 = time.monotonic()
        {"host": lambda: run_host(tally, args.pattern),
         "fuzz": lambda: run_fuzz_regress(tally, args.pattern),
         "tools": lambda: run_tools(tally, args.pattern),
         "guest": lambda: run_guest(tally, args.pattern, args.jobs)}[section]()
        print(f"   ({section}: {time.monotonic() - t0:.1f} s)", flush=True)
    print(f"== done in {time.monotonic() - start:.1f} s")
    if tally.failures:
        print("failed:")
        for name in tally.failures:
            print(f"  {name}")
    print(tally.summary())
    return 1 if tally.failed or tally.passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
