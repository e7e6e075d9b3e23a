#!/usr/bin/env python3
"""memboot's test runner: everything `make test` runs, one summary line.

Sections, in order (each can be chosen with --only):
  host    cmocka unit tests in build/host/test_* (ASan+UBSan), TAP output
  fuzz    each libFuzzer target over its seeds and saved regressions
  tools   unittest suites in tests/tools/
  guest   boot tests in tests/guest/test_*.py, run against the ISO in QEMU

Ends with the line "N passed, N failed" and exits 1 if anything failed.
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
        self.failures = []

    def ok(self, name):
        self.passed += 1
        print(f"  PASS {name}", flush=True)

    def fail(self, name, detail=""):
        self.failed += 1
        self.failures.append(name)
        print(f"  FAIL {name}", flush=True)
        if detail:
            for line in detail.rstrip().splitlines()[-40:]:
                print(f"       {line}")


def run_host(tally, pattern):
    binaries = sorted(glob.glob(os.path.join(ROOT, "build", "host", "test_*")))
    if not binaries:
        tally.fail("host: no test binaries in build/host (run `make host-tests`)")
    for binary in binaries:
        name = os.path.basename(binary)
        if pattern and not re.search(pattern, name):
            continue
        env = dict(os.environ, CMOCKA_MESSAGE_OUTPUT="TAP")
        proc = subprocess.run([binary], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=300)
        seen = 0
        for line in proc.stdout.splitlines():
            m = re.match(r"^(not ok|ok) \d+ - (.*)$", line)
            if not m:
                continue
            seen += 1
            test = f"host/{name}/{m.group(2).strip()}"
            if m.group(1) == "ok":
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
        if pattern and not re.search(pattern, name):
            continue
        result = unittest.TestResult()
        test.run(result)
        if result.skipped:
            print(f"  SKIP {name}: {result.skipped[0][1]}")
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
        except Exception:  # noqa: BLE001 - report every failure the same way
            return name, traceback.format_exc(), time.monotonic() - start

    def report(results):
        for name, err, secs in results:
            label = f"{name} ({secs:.1f} s)"
            if err is None:
                tally.ok(label)
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
    print(f"{tally.passed} passed, {tally.failed} failed")
    return 1 if tally.failed or tally.passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
