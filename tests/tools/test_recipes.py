"""The recipes of docs/design.md's "Where things go", each done in a scratch
copy of the tree, with nothing else edited:

- a self-test: kernel/selftest/demo.c and one line in kernel/selftest/list.h;
- a boot phase: kernel/init/demo.c and demo.h, one line in
  kernel/init/phases.h (after census) and one PHASE line with its #include
  in kernel/init/main.c (at the same place);
- the same phase left out of phases.h: the kernel does not build, and the
  compiler's error names the phase;
- a tools subcommand: tools/mbtools/demo.py and one entry in tools/memboot's
  SUBCOMMAND_MODULES.

The copy holds the working tree's tracked files and its build outputs,
copied with their times so that only what changed rebuilds, and a git
repository of its own, whose `git status --porcelain` shows that each recipe
touched exactly its files. All recipes share the copy and one build (the
kernel and the host tests), made once by whichever test asks first (the
project's runner runs each test alone), so the whole file costs about as
much as one incremental build (about 20 s on two busy cores). main.c is edited by content (its `PHASE(census,` line),
never by line number: it changes often.

    python3 -m unittest tests/tools/test_recipes.py -v
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_alloc_table import copy_tracked  # noqa: E402
from test_boot_state import boot_state_members  # noqa: E402

TIMEOUT_S = 900   # generous: a cold build on a loaded 2-core machine
NAME = "demo"
# What a recipe's checks run, in the copy.
CHECK_INCLUDES = [sys.executable, "tools/check-includes.py"]
UNITTEST = [sys.executable, "-m", "unittest", "-q"]


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class RecipeError(Exception):
    """A file a recipe edits does not have the form the recipe looks for."""


def continue_line(line):
    """@line ending in a macro's line continuation."""
    return line if line.rstrip().endswith("\\") else line.rstrip() + " \\"


def insert_table_line(lines, last, new):
    """@lines with the X-macro line(s) @new after line @last of a table,
    every line but the table's last continued."""
    ends_table = not lines[last].rstrip().endswith("\\")
    new = [continue_line(line) for line in new]
    if ends_table:
        lines[last] = continue_line(lines[last])
        new[-1] = new[-1].rstrip().rstrip("\\").rstrip()
    return lines[:last + 1] + new + lines[last + 1:]


def add_selftest(root, name):
    """A self-test: its file, and one X() line at the end of SELFTEST_LIST."""
    write(os.path.join(root, "kernel", "selftest", name + ".c"), f"""\
/*
 * {name}.c: memboot.selftest={name}, a self-test that passes at once: a new
 * self-test is its file and one kernel/selftest/list.h line.
 */
#include <stdbool.h>

#include "kernel/services/log.h"
#include "kernel/selftest/tests.h"

bool selftest_{name}(const struct selftest_ctx *ctx, const char **skipped)
{{
	pr_info("{name}: passed");
	return true;
}}
""")
    path = os.path.join(root, "kernel", "selftest", "list.h")
    lines = read(path).split("\n")
    try:
        first = next(i for i, line in enumerate(lines)
                     if line.startswith("#define SELFTEST_LIST(X)"))
    except StopIteration:
        raise RecipeError("kernel/selftest/list.h: no #define SELFTEST_LIST(X)") from None
    last = first
    while lines[last].rstrip().endswith("\\"):
        last += 1
    entry = f'\tX({name.upper()}, "{name}", selftest_{name}, "nothing", ' \
            f'"passes at once: the recipe of a new self-test")'
    write(path, "\n".join(insert_table_line(lines, last, [entry])))


def phase_files(root, name, part_type, part):
    """kernel/init/NAME.c and NAME.h: a function handed a const pointer to
    one part of the boot state, printing a line."""
    write(os.path.join(root, "kernel", "init", name + ".h"), f"""\
/*
 * {name}.h: phase `{name}` (kernel/init/phases.h): a line naming the nodes
 * and CPUs found (a new phase is its files, one kernel/init/phases.h line
 * and one PHASE line).
 */
#ifndef MEMBOOT_KERNEL_INIT_{name.upper()}_H
#define MEMBOOT_KERNEL_INIT_{name.upper()}_H

struct {part_type};

void init_{name}(const struct {part_type} *{part});

#endif
""")
    write(os.path.join(root, "kernel", "init", name + ".c"), f"""\
/*
 * {name}.c: phase `{name}`: takes `bs.{part}`; builds a line naming the
 * nodes and CPUs found.
 */
#include "kernel/init/{name}.h"
#include "kernel/services/log.h"
#include "mm/numa.h"

void init_{name}(const struct {part_type} *{part})
{{
	pr_info("{name}: %u node(s), %u CPU(s)", {part}->nr_nodes, {part}->nr_cpus);
}}
""")


def add_phase_line(root, name, after):
    """One X() entry in kernel/init/phases.h, after phase @after's."""
    path = os.path.join(root, "kernel", "init", "phases.h")
    lines = read(path).split("\n")
    try:
        first = next(i for i, line in enumerate(lines)
                     if re.match(r"\s*X\(%s\s*," % after, line))
        # The entry ends on the line that closes its X(: the builds string
        # and ")", before any continuation.
        last = next(i for i in range(first, len(lines))
                    if lines[i].rstrip().rstrip("\\").rstrip().endswith('")'))
    except StopIteration:
        raise RecipeError("kernel/init/phases.h: no X(%s, ...) entry" % after) from None
    entry = [f"\tX({name}, ALWAYS,", '\t  "`bs.topo`",',
             f'\t  "a line naming the nodes and CPUs: the recipe of a new phase")']
    write(path, "\n".join(insert_table_line(lines, last, entry)))


def add_phase_call(root, name, after, part):
    """main.c: the #include of the phase's header after the last of
    kernel/init/'s, and its PHASE line after phase @after's statement."""
    path = os.path.join(root, "kernel", "init", "main.c")
    lines = read(path).split("\n")
    includes = [i for i, line in enumerate(lines) if line.startswith('#include "kernel/init/')]
    anchor = [i for i, line in enumerate(lines) if re.match(r"\s*PHASE\(%s\s*," % after, line)]
    if not includes or len(anchor) != 1:
        raise RecipeError("kernel/init/main.c: expected #include \"kernel/init/...\" lines and "
                          "one `PHASE(%s,` line, found %d and %d: the recipe edits main.c by "
                          "content" % (after, len(includes), len(anchor)))
    # The PHASE statement may continue over lines: it ends where its
    # parentheses close.
    end, depth = anchor[0], 0
    for end in range(anchor[0], len(lines)):
        depth += lines[end].count("(") - lines[end].count(")")
        if depth <= 0:
            break
    indent = re.match(r"\s*", lines[anchor[0]]).group(0)
    lines.insert(end + 1, f"{indent}PHASE({name}, init_{name}(&bs.{part}));")
    lines.insert(includes[-1] + 1, f'#include "kernel/init/{name}.h"')
    write(path, "\n".join(lines))


def add_phase(root, name, after="census"):
    """A phase: its two files, its phases.h line and its main.c lines."""
    members = boot_state_members(read(os.path.join(root, "kernel", "init", "main.c")))
    if "numa_topology" not in members:
        raise RecipeError("kernel/init/main.c: struct boot_state has no struct numa_topology")
    phase_files(root, name, "numa_topology", members["numa_topology"])
    add_phase_line(root, name, after)
    add_phase_call(root, name, after, members["numa_topology"])


def add_subcommand(root, name):
    """A tools subcommand: its module, and one SUBCOMMAND_MODULES entry."""
    write(os.path.join(root, "tools", "mbtools", name + ".py"), f'''\
"""memboot {name}: prints one line (a new subcommand is its module and one
entry in tools/memboot's SUBCOMMAND_MODULES)."""


def cmd_{name}(args):
    print("{name}: ok")
    return 0


def add_parser(sub):
    p = sub.add_parser("{name}", allow_abbrev=False, help="print one line",
                       description="Print one line: the recipe of a new subcommand.")
    p.set_defaults(func=cmd_{name})
''')
    path = os.path.join(root, "tools", "memboot")
    lines = read(path).split("\n")
    try:
        first = lines.index("SUBCOMMAND_MODULES = (")
        close = lines.index(")", first)
    except ValueError:
        raise RecipeError("tools/memboot: no `SUBCOMMAND_MODULES = (` ... `)` tuple") from None
    lines.insert(close, f'    "{name}",')
    write(path, "\n".join(lines))


def run(argv, cwd, timeout=TIMEOUT_S):
    """(status, stdout and stderr) of @argv in @cwd, in the C locale (the
    compiler's messages in plain ASCII quotes), not a sub-make of ours."""
    env = dict(os.environ, LC_ALL="C")
    for var in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS"):
        env.pop(var, None)
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout + p.stderr


class Scratch:
    """The scratch copy, each recipe applied, checked and committed there in
    turn; then one build of the kernel and the host tests with all of them;
    then the phase taken out of phases.h again. What each step printed is
    kept (.results) and the copy removed."""

    def __init__(self):
        scratch = tempfile.mkdtemp(prefix="memboot-recipes-")
        try:
            self.root = os.path.join(scratch, "tree")
            self.results = {}
            self.apply_all()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def git(self, *argv):
        return subprocess.run(["git", "-c", "user.name=memboot", "-c", "user.email=memboot@localhost",
                               "-c", "commit.gpgsign=false"] + list(argv), cwd=self.root,
                              capture_output=True, text=True, check=True).stdout

    def changed(self):
        """What `git status --porcelain` shows, then committed in the copy."""
        status = sorted(self.git("status", "--porcelain", "--untracked-files=all").splitlines())
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "recipe")
        return status

    def apply_all(self):
        root, r = self.root, self.results
        copy_tracked(root)
        build = os.path.join(REPO_ROOT, "build")
        if os.path.isdir(build):
            # What `make kernel` and `make host-tests` reuse; the rest is
            # left behind, unneeded.
            def unneeded(path, names):
                top = {"fuzz", "release", "bench"} if path == build else set()
                return [n for n in names if n in top or n.endswith((".iso", ".img"))]
            shutil.copytree(build, os.path.join(root, "build"), symlinks=True, ignore=unneeded)
        self.git("init", "-q")
        self.changed()

        add_selftest(root, NAME)
        r["selftest_status"] = self.changed()
        r["selftest_includes"] = run(CHECK_INCLUDES, root)
        r["selftest_facts"] = run(UNITTEST + ["tests/tools/test_facts.py"], root)
        r["selftest_names"] = run([sys.executable, "-c", (
            "import sys; sys.path[:0] = ['tools', 'tests/guest']\n"
            "from mbtools import facts\n"
            "import test_selftest\n"
            "print(','.join(facts.SELFTESTS))\n"
            "print(','.join(n for n, _, _ in test_selftest.table(open("
            "'kernel/selftest/list.h').read())))")], root)

        phases_before = read(os.path.join(root, "kernel", "init", "phases.h"))
        add_phase(root, NAME)
        r["phase_status"] = self.changed()
        r["phase_includes"] = run(CHECK_INCLUDES, root)
        r["phase_tests"] = run(UNITTEST + ["tests/tools/test_phases.py",
                                           "tests/tools/test_boot_state.py"], root)
        r["phase_table"] = run([sys.executable, "-c",
                                "import sys; sys.path.insert(0, 'tools')\n"
                                "from mbtools import facts\n"
                                "print(','.join(facts.PHASES))"], root)

        add_subcommand(root, NAME)
        r["tool_status"] = self.changed()
        r["tool_help"] = run(["tools/memboot", NAME, "--help"], root, timeout=60)
        r["tool_run"] = run(["tools/memboot", NAME], root, timeout=60)
        r["tool_facts"] = run(UNITTEST + ["tests/tools/test_facts.py"], root)
        # tests/guest/test_commands.py's first checks, without its runs: a
        # registered subcommand not yet documented is not asked for.
        r["tool_commands"] = run([sys.executable, "-c", (
            "import sys; sys.path.insert(0, 'tests/guest')\n"
            "import test_commands as c\n"
            "registered = c.subcommands()\n"
            "documented = {s for s in c.documented(c.ROOT)[2] if s in registered}\n"
            "quick = {name for name, _ in c.QUICK}\n"
            "assert not documented - quick and not quick - registered\n"
            "print('%s registered, %s documented' % ('demo' in registered, "
            "'demo' in documented))")], root, timeout=120)

        # One build of everything the recipes touched.
        r["build"] = run(["make", "-j2", "Q=@", "kernel", "host-tests"], root)
        elf = os.path.join(root, "build", os.environ.get("MODE", "debug"), "memboot.elf")
        r["symbols"] = run(["nm", elf], root) if os.path.isfile(elf) else (1, "no " + elf)
        r["cmdline_test"] = run([os.path.join(root, "build", "host", "test_cmdline")], root)
        r["clean_after_build"] = self.git("status", "--porcelain")

        # The phase without its table line: main.c's PHASE names a phase
        # that is not there.
        write(os.path.join(root, "kernel", "init", "phases.h"), phases_before)
        r["unlisted_status"] = sorted(self.git("status", "--porcelain").splitlines())
        r["unlisted_build"] = run(["make", "-j2", "Q=@", "kernel"], root)

        # The phase listed again, but keeping a counter of its own at file
        # scope: the boot-state test refuses it, naming the file and object.
        self.git("checkout", "-q", "--", ".")
        demo_c = os.path.join(root, "kernel", "init", NAME + ".c")
        write(demo_c, read(demo_c).replace('#include "mm/numa.h"\n',
                                           '#include "mm/numa.h"\n\nstatic unsigned calls;\n'))
        r["state_status"] = sorted(self.git("status", "--porcelain").splitlines())
        r["state_test"] = run(UNITTEST + ["tests/tools/test_boot_state.py"], root)


_SCRATCH = []


def scratch():
    """The one Scratch of this run, made by the first test that asks (the
    runner may run each test alone, without class fixtures); a failure to
    make it is raised again for each test, not retried."""
    if not _SCRATCH:
        try:
            _SCRATCH.append(Scratch())
        except Exception as e:  # noqa: BLE001 - kept for every test to report
            _SCRATCH.append(e)
    if isinstance(_SCRATCH[0], Exception):
        raise _SCRATCH[0]
    return _SCRATCH[0]


class Recipes(unittest.TestCase):
    """Each recipe's checks, on what the one scratch copy showed."""

    def setUp(self):
        self.results = scratch().results

    def ok(self, key):
        rc, out = self.results[key]
        self.assertEqual(rc, 0, "%s: %s" % (key, out[-3000:]))
        return out

    def test_selftest_is_one_file_and_one_line(self):
        r = self.results
        self.assertEqual(r["selftest_status"], [" M kernel/selftest/list.h",
                                                "?? kernel/selftest/%s.c" % NAME])
        self.ok("selftest_includes")
        self.ok("selftest_facts")
        tools_names, guest_names = self.ok("selftest_names").split()
        self.assertEqual(tools_names.split(",")[-1], NAME)
        self.assertEqual(guest_names, tools_names)

    def test_selftest_builds_and_is_a_key_value(self):
        self.ok("build")
        self.assertIn(" T selftest_%s\n" % NAME, self.ok("symbols"))
        # test_cmdline parses memboot.selftest=NAME for each name of list.h.
        out = self.ok("cmdline_test")
        self.assertIn("test_kernel_selftest_table", out)
        self.assertEqual(self.results["clean_after_build"], "")

    def test_phase_is_two_files_and_two_lines(self):
        r = self.results
        self.assertEqual(r["phase_status"], [" M kernel/init/main.c",
                                             " M kernel/init/phases.h",
                                             "?? kernel/init/%s.c" % NAME,
                                             "?? kernel/init/%s.h" % NAME])
        self.ok("phase_includes")
        self.ok("phase_tests")
        phases = self.ok("phase_table").strip().split(",")
        self.assertEqual(phases[phases.index("census") + 1], NAME)

    def test_phase_builds(self):
        self.ok("build")
        self.assertIn(" T init_%s\n" % NAME, self.ok("symbols"))

    def test_unlisted_phase_does_not_build(self):
        rc, out = self.results["unlisted_build"]
        self.assertEqual(self.results["unlisted_status"], [" M kernel/init/phases.h"])
        self.assertNotEqual(rc, 0, out[-3000:])
        # The compiler's own words (LC_ALL=C): the phase's enum value is not
        # declared, at main.c's PHASE line.
        self.assertRegex(out, r"error: 'BOOT_PHASE_%s' undeclared" % NAME)
        self.assertRegex(out, r"kernel/init/main\.c:\d+:\d+: note: in expansion of macro 'PHASE'")
        self.assertIn("PHASE(%s, " % NAME, out)

    def test_phase_with_state_of_its_own_fails_the_boot_state_test(self):
        rc, out = self.results["state_test"]
        self.assertEqual(self.results["state_status"], [" M kernel/init/%s.c" % NAME])
        self.assertNotEqual(rc, 0, out[-3000:])
        self.assertIn("test_no_phase_keeps_state_of_its_own", out)
        self.assertIn("'kernel/init/%s.c': ['calls']" % NAME, out)

    def test_subcommand_is_one_module_and_one_entry(self):
        r = self.results
        self.assertEqual(r["tool_status"], [" M tools/memboot", "?? tools/mbtools/%s.py" % NAME])
        self.assertIn("usage: memboot %s" % NAME, self.ok("tool_help"))
        self.assertEqual(self.ok("tool_run"), "%s: ok\n" % NAME)
        self.ok("tool_facts")
        self.assertEqual(self.ok("tool_commands").strip(), "True registered, False documented")


class RecipeEdits(unittest.TestCase):
    """The edits themselves, on small texts: where each line goes, and a
    clear error where the anchor is missing."""

    def test_table_lines_keep_their_continuations(self):
        self.assertEqual(insert_table_line(["#define T(X) \\", "\tX(a) \\", "\tX(b)", ""], 2,
                                           ["\tX(c)"]),
                         ["#define T(X) \\", "\tX(a) \\", "\tX(b) \\", "\tX(c)", ""])
        self.assertEqual(insert_table_line(["#define T(X) \\", "\tX(a) \\", "\tX(b)"], 1,
                                           ["\tX(c)"]),
                         ["#define T(X) \\", "\tX(a) \\", "\tX(c) \\", "\tX(b)"])

    def test_main_without_the_anchor_is_a_clear_error(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, "kernel", "init", "main.c"),
                  '#include "kernel/init/phase.h"\n\tPHASE(vm, vm_init());\n')
            with self.assertRaisesRegex(RecipeError, r"one `PHASE\(census,` line, found 1 and 0"):
                add_phase_call(d, NAME, "census", "topo")
            write(os.path.join(d, "kernel", "init", "main.c"),
                  '#include "kernel/init/phase.h"\n#include "kernel/init/vm.h"\n'
                  '\tPHASE(census, ok = census_run(&bs.topo,\n\t\t\t"boot"));\n\tPHASE(pcp, x());\n')
            add_phase_call(d, NAME, "census", "topo")
            self.assertEqual(read(os.path.join(d, "kernel", "init", "main.c")),
                             '#include "kernel/init/phase.h"\n#include "kernel/init/vm.h"\n'
                             '#include "kernel/init/demo.h"\n'
                             '\tPHASE(census, ok = census_run(&bs.topo,\n\t\t\t"boot"));\n'
                             '\tPHASE(demo, init_demo(&bs.topo));\n\tPHASE(pcp, x());\n')


if __name__ == "__main__":
    unittest.main()
