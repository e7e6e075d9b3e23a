"""The host builds compile each pure source once per flavour, and a header
change recompiles only the objects that include it (docs/building.md, "Host
builds").

Asks make what it would run (`make -n -W HEADER`: as if HEADER had just been
edited, nothing is touched or built) on the tree `make host-tests fuzz-build`
built, and compares that with the headers each object's .d file names.
Skipped when those libraries are not built.

    python3 -m unittest tests/tools/test_host_build.py -v
"""

import glob
import os
import shutil
import subprocess
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIBS = ("build/host/libmemboot-host.a", "build/fuzz/libmemboot-fuzz.a")
# The flavours' object directories behind host-tests and fuzz-build.
OBJ_DIRS = ("build/host/obj", "build/fuzz/obj", "build/host/tool")
GOALS = ("host-tests", "fuzz-build")


def dry_run(*args):
    """The objects `make -n V=1 ARGS` would compile, as a list (repeats
    kept), and the compile lines that name more than one source."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    proc = subprocess.run(["make", "--no-print-directory", "-n", "V=1"] + list(args),
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise AssertionError("make -n %s failed:\n%s" % (" ".join(args), proc.stderr))
    objects, multi = [], []
    for line in proc.stdout.splitlines():
        words = line.split()
        if not words or os.path.basename(words[0]) not in ("gcc", "clang", "cc") or "-c" not in words:
            continue
        sources = [w for w in words if w.endswith(".c")]
        if len(sources) != 1:
            multi.append(line)
        if "-o" in words:
            objects.append(words[words.index("-o") + 1])
    return objects, multi


def includers(header):
    """Every built object whose .d file names @header among its prerequisites."""
    found = set()
    for d in OBJ_DIRS:
        for dep in glob.glob(os.path.join(REPO_ROOT, d, "**", "*.d"), recursive=True):
            obj = os.path.relpath(dep, REPO_ROOT)[:-2] + ".o"
            if not os.path.exists(os.path.join(REPO_ROOT, obj)):
                continue
            with open(dep) as f:
                text = f.read().replace("\\\n", " ")
            # The first rule is "OBJ: SOURCE HEADER ..."; the rest (-MP) are
            # empty rules for the headers.
            target, _, prereqs = text.split("\n", 1)[0].partition(":")
            if header in prereqs.split():
                found.add(obj)
    return found


@unittest.skipUnless(shutil.which("make") and all(
    os.path.exists(os.path.join(REPO_ROOT, lib)) for lib in LIBS),
    "host libraries not built (make host-tests fuzz-build)")
class HeaderChange(unittest.TestCase):

    def setUp(self):
        # Whatever is out of date already (an edited source not yet rebuilt)
        # is compiled with or without the header change.
        self.stale, _ = dry_run(*GOALS)

    def check_header(self, header):
        objects, multi = dry_run("-W", header, *GOALS)
        self.assertEqual(multi, [], "compile lines with more than one source")
        self.assertEqual(len(objects), len(set(objects)),
                         "an object compiled twice: %s" % sorted(objects))
        expected = includers(header) | set(self.stale)
        self.assertEqual(set(objects), expected)
        return set(objects) - set(self.stale)

    def test_page_header_recompiles_only_its_includers(self):
        changed = self.check_header("mm/page.h")
        self.assertTrue(any(o.startswith("build/host/obj/") for o in changed), changed)
        self.assertTrue(any(o.startswith("build/fuzz/obj/") for o in changed), changed)

    def test_cmdline_header_recompiles_a_few_objects_of_each_flavour(self):
        changed = self.check_header("kernel/services/cmdline.h")
        host_objs = glob.glob(os.path.join(REPO_ROOT, "build/host/obj/**/*.o"), recursive=True)
        host_changed = [o for o in changed if o.startswith("build/host/obj/")]
        self.assertIn("build/host/obj/kernel/services/cmdline.o", changed)
        self.assertIn("build/fuzz/obj/kernel/services/cmdline.o", changed)
        self.assertLess(len(host_changed), len(host_objs) // 2, sorted(host_changed))

    def test_one_host_test_compiles_each_changed_object_once(self):
        objects, multi = dry_run("-W", "kernel/services/cmdline.h", "build/host/test_cmdline")
        stale_host = {o for o in self.stale if o.startswith("build/host/obj/")}
        self.assertEqual(multi, [])
        self.assertEqual(len(objects), len(set(objects)))
        # The library's objects that include the header, and the test's own.
        wanted = {o for o in includers("kernel/services/cmdline.h") if o.startswith("build/host/obj/")
                  and (not o.startswith("build/host/obj/tests/host/test_")
                       or o == "build/host/obj/tests/host/test_cmdline.o")}
        self.assertEqual(set(objects) - stale_host, wanted - stale_host)
        self.assertIn("build/host/obj/tests/host/test_cmdline.o", objects)
        self.assertFalse([o for o in objects if not o.startswith("build/host/obj/")], objects)


if __name__ == "__main__":
    unittest.main()
