"""The facts the kernel, the tools and the docs share have one source.

- kernel/services/exit.h (EXIT_STATUS_TABLE) and tools/mbtools/facts.py's tool
  statuses against docs/exit-status.md;
- kernel/services/report/events.h (RECORD_EVENT_TABLE) against docs/records.md and
  against every record the sources begin;
- tools/mbtools/records.py (SCHEMA: the keys the tools read, their types)
  against docs/records.md;
- kernel/services/limits.h: no other file defines the node or CPU limit, the default
  distances or the page size with a number of its own;
- boot/fwcfg_files.h: the only C file that spells a fw_cfg file name;
- tools/memboot's subcommands: each has a help text, and docs/tools.md's
  table and the tool's own header name only subcommands it has;
- kernel/selftest/list.h: the docs cite no self-test it lacks.

Each check is a function of texts, also run here on a deliberately wrong
text, so that the tests are seen to fail when the two sides disagree.

    python3 -m unittest tests/tools/test_facts.py -v
"""

import os
import re
import subprocess
import sys
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))

sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
from mbtools import facts, records  # noqa: E402
from script_module import load_script  # noqa: E402

SOURCE_DIRS = ("arch", "boot", "kernel", "mm", "bench", "tools", "tests")


def read(rel):
    with open(os.path.join(REPO_ROOT, rel), encoding="utf-8") as f:
        return f.read()


def tracked(*patterns):
    """Tracked files (git ls-files), or a walk when git is not there."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--"] + list(patterns),
                             cwd=REPO_ROOT, capture_output=True, check=True)
        return [p for p in out.stdout.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for d in SOURCE_DIRS:
            for root, _, files in os.walk(os.path.join(REPO_ROOT, d)):
                for f in files:
                    rel = os.path.relpath(os.path.join(root, f), REPO_ROOT)
                    if any(rel.endswith(p.lstrip("*")) for p in patterns):
                        found.append(rel)
        return found


def c_sources():
    return [p for p in tracked("*.c", "*.h", "*.S")
            if p.split("/")[0] in SOURCE_DIRS and not p.startswith("tests/")]


# ---- docs/exit-status.md ------------------------------------------------

def doc_tables(text):
    """[[row cells]] per markdown table, header and rule rows dropped."""
    tables, rows = [], None
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if rows is None:
                rows = []           # the header row
            elif not set("".join(cells)) <= set("-: "):
                rows.append(cells)
        elif rows is not None:
            tables.append(rows)
            rows = None
    if rows is not None:
        tables.append(rows)
    return tables


def exit_doc_problems(text, kernel, tool):
    """What docs/exit-status.md says differently from the code."""
    problems = []
    tables = doc_tables(text)
    if len(tables) < 2:
        return ["expected two tables (kernel and tool statuses)"]
    doc_kernel = {}
    for cells in tables[0]:
        if not cells[0].isdigit():
            problems.append("kernel table: status %r is not a number" % cells[0])
            continue
        doc_kernel[int(cells[0])] = cells[1]
    if doc_kernel != kernel:
        problems.append("kernel statuses: docs %s, kernel/services/exit.h %s"
                        % (sorted(doc_kernel.items()), sorted(kernel.items())))
    doc_tool = set()
    for cells in tables[1]:
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", cells[0])
        if not m:
            problems.append("tool table: status %r" % cells[0])
        elif m.group(2):
            if (int(m.group(1)), int(m.group(2))) != (min(kernel), max(kernel)):
                problems.append("tool table: kernel range %s, kernel has %d-%d"
                                % (cells[0], min(kernel), max(kernel)))
        else:
            doc_tool.add(int(m.group(1)))
    if doc_tool != set(tool):
        problems.append("tool statuses: docs %s, tools/mbtools/facts.py %s"
                        % (sorted(doc_tool), sorted(tool)))
    return problems


class ExitStatuses(unittest.TestCase):

    def test_doc_matches_code(self):
        self.assertEqual(exit_doc_problems(read("docs/exit-status.md"),
                                           facts.EXIT_STATUS, facts.TOOL_STATUS), [])

    def test_check_sees_a_wrong_doc(self):
        text = read("docs/exit-status.md")
        wrong = text.replace("| 5 | pages lost |", "| 5 | lost pages |")
        self.assertNotEqual(wrong, text)
        self.assertTrue(exit_doc_problems(wrong, facts.EXIT_STATUS, facts.TOOL_STATUS))
        wrong = text.replace("| 124 |", "| 123 |")
        self.assertNotEqual(wrong, text)
        self.assertTrue(exit_doc_problems(wrong, facts.EXIT_STATUS, facts.TOOL_STATUS))

    def test_header_table(self):
        self.assertEqual(facts.EXIT_STATUS[0], "ok")
        self.assertEqual(facts.EXIT_SYMBOLS[5], "EXIT_CENSUS")
        self.assertEqual(sorted(facts.EXIT_STATUS), list(range(len(facts.EXIT_STATUS))))
        self.assertEqual(facts.qemu_rc(0), 33)
        # The table parser reads what the C preprocessor reads.
        rows = facts.parse_exit_statuses(
            '#define EXIT_STATUS_TABLE(X) \\\n\tX(0, EXIT_A, "a") /* c */ \\\n'
            '\tX(7, EXIT_B, "b c")\n\nX(9, EXIT_OUTSIDE, "no")\n')
        self.assertEqual(rows, [(0, "EXIT_A", "a"), (7, "EXIT_B", "b c")])
        with self.assertRaises(facts.FactsError):
            facts.parse_exit_statuses("enum { EXIT_OK = 0 };")

    def test_decode_exit_uses_the_table(self):
        for status, name in facts.EXIT_STATUS.items():
            self.assertEqual(facts.decode_exit(facts.qemu_rc(status)), (status, name))

    def test_no_second_definition(self):
        """The base and the statuses appear only in kernel/services/exit.h; the
        emulator's exit port is x86's, only in arch/x86_64/include/x86/machine.h."""
        port_h = "arch/x86_64/include/x86/machine.h"
        self.assertRegex(read(port_h), r"#define\s+X86_QEMU_EXIT_PORT\s+0xf4\b")
        self.assertIsNone(re.search(r"\b0xf4\b", read("kernel/services/exit.h")))
        for path in c_sources():
            if path in ("kernel/services/exit.h", port_h):
                continue
            text = read(path)
            with self.subTest(path=path):
                self.assertIsNone(re.search(r"#define\s+\w*EXIT\w*\s+(0x10|0xf4)\b", text))
                self.assertIsNone(re.search(r"\bEXIT_\w+\s*=\s*\d", text))


# ---- docs/records.md ------------------------------------------------------

def doc_events(text):
    """Event names of the `### \\`name\\`` headings of docs/records.md."""
    names = []
    for line in text.splitlines():
        if line.startswith("### "):
            names += re.findall(r"`([a-z0-9_]+)`", line)
    return names


REC_BEGIN = re.compile(r'\brec_begin\s*\(\s*[^,]+,([^;]*)\)\s*;')
RAW_EVENT = re.compile(r'MEMBOOT \{\\"event\\":\\"([^\\"]*)\\"')


def source_events(text):
    """Event names a C file begins records with: the string literals of the
    name argument of rec_begin() (also both arms of a `?:`) and records
    written by hand (the UEFI loader's done)."""
    names = []
    for arg in REC_BEGIN.findall(text):
        names += re.findall(r'"([^"]*)"', arg)
    return names + RAW_EVENT.findall(text)


class RecordEvents(unittest.TestCase):

    def test_doc_lists_exactly_the_events(self):
        doc = doc_events(read("docs/records.md"))
        self.assertEqual(len(doc), len(set(doc)), "an event documented twice")
        self.assertEqual(sorted(doc), sorted(facts.EVENTS))

    def test_check_sees_a_missing_section(self):
        text = read("docs/records.md").replace("### `lazy`", "### lazy")
        self.assertNotIn("lazy", doc_events(text))

    def test_sources_use_only_known_events(self):
        used = {}
        for path in c_sources():
            for name in source_events(read(path)):
                used.setdefault(name, path)
        unknown = {n: p for n, p in used.items() if n not in facts.EVENTS}
        self.assertEqual(unknown, {}, "events not in kernel/services/report/events.h")
        # Names nobody emits are dead entries in the table. Events whose name
        # is not a literal at rec_begin() would show here: there are none.
        self.assertEqual(sorted(set(facts.EVENTS) - set(used)), [])

    def test_source_scan_finds_calls(self):
        self.assertEqual(source_events('rec_begin(&r, "node_init");\n'
                                       'rec_begin(r,"x");\n'
                                       'rec_begin(&r, l < 3 ? "error" : "warning");\n'
                                       'Print(L"MEMBOOT {\\"event\\":\\"done\\",")'),
                         ["node_init", "x", "error", "warning", "done"])


# ---- docs/records.md against records.SCHEMA ---------------------------------

DOC_TYPES = {"integer": "int", "string": "str", "bool": "bool", "hex string": "hex"}


def doc_sections(text):
    """{event: the text of its section} for the `### ` headings."""
    sections, current = {}, []
    for line in text.splitlines():
        if line.startswith("#"):
            current = re.findall(r"`([a-z0-9_]+)`", line) if line.startswith("### ") else []
            for name in current:
                sections[name] = ""
            continue
        for name in current:
            sections[name] += line + "\n"
    return sections


def doc_type(word):
    """A docs/records.md type column as a SCHEMA type, or None."""
    word = word.strip()
    if word.startswith(("list", "array")):
        return "list"
    return DOC_TYPES.get(word)


def schema_doc_problems(text, schema_keys, events):
    """What docs/records.md says differently from records.SCHEMA: a key the
    schema checks that the event's section does not name, or a type its
    key/type table gives otherwise."""
    problems = []
    sections = doc_sections(text)
    for event in events:
        keys = schema_keys(event)
        if not keys:
            continue
        section = sections.get(event)
        if section is None:
            problems.append("%s: no section" % event)
            continue
        for key in keys:
            if "`%s`" % key not in section:
                problems.append("%s: the section does not name `%s`" % (event, key))
        for line in section.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not line.startswith("|") or len(cells) < 3:
                continue
            kind = doc_type(cells[1])
            for key in re.findall(r"`([a-z0-9_]+)`", cells[0]):
                if key in keys and kind is not None and kind != keys[key][0]:
                    problems.append("%s.%s: docs say %s, records.SCHEMA %s"
                                    % (event, key, cells[1], keys[key][0]))
    return problems


class RecordSchema(unittest.TestCase):

    def test_doc_matches_schema(self):
        self.assertEqual(schema_doc_problems(read("docs/records.md"), records.schema_keys,
                                             facts.EVENTS), [])

    def test_check_sees_a_wrong_doc(self):
        text = read("docs/records.md")
        wrong = text.replace("| `start_ns` | integer | when the phase began |",
                             "| `start_ns` | string | when the phase began |")
        self.assertNotEqual(wrong, text)
        self.assertEqual(schema_doc_problems(wrong, records.schema_keys, facts.EVENTS),
                         ["phase.start_ns: docs say string, records.SCHEMA int"])
        wrong = text.replace("`first_alloc_ns`", "`first_ns`")
        self.assertEqual(schema_doc_problems(wrong, records.schema_keys, facts.EVENTS),
                         ["lazy: the section does not name `first_alloc_ns`"])


# ---- kernel/services/limits.h ------------------------------------------------------

# A limit defined with a number of its own outside kernel/services/limits.h. The
# firmware parsers' caps (ACPI_MADT_MAX_CPUS, DT_MAX_CPUS...) bound table
# entries, not the kernel's CPUs, and stay theirs.
SECOND_LIMIT = re.compile(
    r"^#define\s+((?!ACPI_|DT_)\w*MAX_NODES|(?!ACPI_|DT_)\w*MAX_CPUS|\w*_DISTANCE"
    r"|PAGE_SHIFT|PAGE_SIZE\w*)\s+\(?\s*(\d|0x)", re.M)


class Limits(unittest.TestCase):

    def test_values(self):
        self.assertEqual(facts.LIMITS["MEMBOOT_MAX_NODES"], 256)
        self.assertEqual(facts.PAGE_SIZE_BYTES, 4096)
        self.assertLess(facts.LIMITS["MEMBOOT_LOCAL_DISTANCE"],
                        facts.LIMITS["MEMBOOT_REMOTE_DISTANCE"])

    def test_defined_once(self):
        found = []
        for path in c_sources():
            if path == "kernel/services/limits.h":
                continue
            found += ["%s: %s" % (path, m.group(1))
                      for m in SECOND_LIMIT.finditer(read(path))]
        # The host benchmark simulates up to 8 nodes in its own arrays; that
        # is its option range, not the kernel's limit.
        # So does the allocator lab's harness (--nodes 1..8).
        found = [f for f in found if f not in ("bench/memmap_bench.c: MAX_NODES",
                                               "bench/lab.c: LAB_MAX_NODES")]
        self.assertEqual(found, [])

    def test_check_sees_a_second_definition(self):
        self.assertEqual([m.group(1) for m in SECOND_LIMIT.finditer(
            "#define HUGETLB_MAX_NODES 64\n#define NUMA_REMOTE_DISTANCE 20\n"
            "#define PAGE_SIZE_BYTES 4096ULL\n#define ACPI_MADT_MAX_CPUS 1024\n"
            "#define NUMA_MAX_NODES MEMBOOT_MAX_NODES\n")],
            ["HUGETLB_MAX_NODES", "NUMA_REMOTE_DISTANCE", "PAGE_SIZE_BYTES"])


CMDLINE_ALLOC_ROW = re.compile(r"^\| `memboot\.alloc` \| ([^|]*)\|", re.M)


def doc_allocators(text):
    """The allocator names the memboot.alloc row of docs/cmdline.md lists."""
    m = CMDLINE_ALLOC_ROW.search(text)
    return re.findall(r"`(\w+)`", m.group(1)) if m else []


class Allocators(unittest.TestCase):
    """mm/alloc/table.h is the one list of allocators."""

    def test_table(self):
        self.assertEqual(facts.ALLOCATORS[0], "buddy")
        for name in facts.ALLOCATORS:
            self.assertTrue(os.path.exists(os.path.join(
                REPO_ROOT, "mm", "alloc", name + ".c")), name)
            self.assertIn("const struct alloc_ops %s_alloc_ops" % name,
                          read("mm/alloc/%s.c" % name))

    def test_cmdline_doc_lists_the_table(self):
        self.assertEqual(doc_allocators(read("docs/cmdline.md")),
                         list(facts.ALLOCATORS))

    def test_check_sees_a_missing_allocator(self):
        self.assertEqual(doc_allocators(
            "| `memboot.alloc` | `buddy` or `bitmap` | `buddy` | x |\n"),
            ["buddy", "bitmap"])
        self.assertNotEqual(doc_allocators(
            "| `memboot.alloc` | `buddy` | `buddy` | x |\n"), list(facts.ALLOCATORS))

    def test_parse_errors(self):
        with self.assertRaises(facts.FactsError):
            facts.parse_allocators("#define ALLOC_TABLE(X) \\\n\tY(buddy)\n")
        self.assertEqual(facts.parse_allocators(
            "#define ALLOC_TABLE(X) \\\n\tX(a) \\\n\tX(b)\n"), ["a", "b"])


# ---- one source for each fact of the tools (issue 20) ----------------------

def load_memboot():
    return load_script(os.path.join(REPO_ROOT, "tools", "memboot"), "memboot_facts_test")


def python_files():
    """The tools' and benchmarks' Python, and the guest tests' helper."""
    return sorted(["tools/memboot", "tests/guest/guest.py"]
                  + [p for p in tracked("*.py") if p.startswith(("tools/mbtools/", "bench/"))])


def imported_modules(text):
    import ast
    names = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[-1] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.name for a in node.names)
            if node.module:
                names.add(node.module.split(".")[-1])
    return names


class ToolFacts(unittest.TestCase):

    def test_one_way_to_boot(self):
        """Only mbtools/boot.py builds a `tools/memboot run` command."""
        users = [p for p in python_files() if p != "tools/memboot"
                 and re.search(r'"run"', read(p))]
        self.assertEqual(users, ["tools/mbtools/boot.py"])
        for path in ("tests/guest/guest.py", "tools/mbtools/bench.py", "tools/mbtools/scale.py",
                     "bench/pcp_guest.py", "bench/qemu_meminit.py"):
            with self.subTest(path=path):
                self.assertIn("boot", imported_modules(read(path)))
                self.assertNotIn("subprocess", imported_modules(read(path))
                                 if path != "tools/mbtools/bench.py" else set())

    def test_records_are_parsed_only_by_the_reader(self):
        for path in python_files():
            if path == "tools/mbtools/records.py":
                continue
            text = read(path)
            with self.subTest(path=path):
                # benchplot reads bench JSON files, lab the lab harness's
                # JSON (bench/lab.c) and facts a package's built_facts.json:
                # none is a record.
                self.assertIsNone(re.search(r'json\.loads?\(|startswith\("\{"\)', text)
                                  if path not in ("tools/mbtools/benchplot.py",
                                                  "tools/mbtools/lab.py",
                                                  "tools/mbtools/facts.py") else None)
                self.assertNotRegex(text, r'find\("MEMBOOT')

    def test_bench_and_seeds_do_not_import_each_other(self):
        self.assertNotIn("seeds", imported_modules(read("tools/mbtools/bench.py")))
        self.assertIn("bench", imported_modules(read("tools/mbtools/seeds.py")))
        # The subcommand's dispatcher is the one module that knows both.
        self.assertTrue({"bench", "seeds", "scale"}
                        <= imported_modules(read("tools/mbtools/benchcmd.py")))

    def test_page_and_descriptor_sizes_come_from_the_kernel(self):
        from mbtools import bench, scale
        self.assertEqual(scale.PAGE_BYTES, 1 << facts.LIMITS["PAGE_SHIFT"])
        self.assertEqual((scale.DESC_BYTES, facts.DESC_BYTES), (16, 16))
        self.assertEqual(bench.DESC_SIZES, ("16", "32", "64"))
        self.assertIsNone(re.search(r"\b(4096|DESC_BYTES = 16)\b", read("tools/mbtools/scale.py")))
        self.assertEqual(facts.parse_desc_bytes(
            "#ifndef MEMMAP_DESC_BYTES\n#define MEMMAP_DESC_BYTES 32\n#endif\n"
            "#if MEMMAP_DESC_BYTES != 32 && MEMMAP_DESC_BYTES != 128\n"), (32, (32, 128)))
        with self.assertRaises(facts.FactsError):
            facts.parse_desc_bytes("#define MEMMAP_DESC_BYTES 16\n")

    def test_fw_cfg_file_name_comes_from_the_kernel(self):
        name = facts.fw_cfg_cmdline_file()
        self.assertEqual(name, "opt/memboot/cmdline")
        defined = [os.path.relpath(p, REPO_ROOT) for p in facts.FWCFG_SOURCES
                   if os.path.exists(p)
                   and facts.parse_string_define(read(os.path.relpath(p, REPO_ROOT)),
                                                 "FWCFG_CMDLINE_FILE")]
        self.assertEqual(len(defined), 1, "FWCFG_CMDLINE_FILE defined in %s" % defined)
        self.assertNotIn(name, read("tools/memboot"))
        mb = load_memboot()
        self.assertEqual(mb.fw_cfg_cmdline(), name)

    def test_fw_cfg_file_name_missing_is_a_clear_error(self):
        import tempfile
        from unittest import mock
        with tempfile.TemporaryDirectory() as d:
            header = os.path.join(d, "fwcfg.h")
            with open(header, "w") as f:
                f.write("#define FWCFG_OTHER \"x\"\n")
            with mock.patch.object(facts, "FWCFG_SOURCES", (header,)):
                with self.assertRaisesRegex(facts.FactsError,
                                            'no #define FWCFG_CMDLINE_FILE "..." in'):
                    facts.fw_cfg_cmdline_file()
        self.assertEqual(facts.parse_string_define(
            '#define FWCFG_CMDLINE_FILE "opt/x/y" /* c */\n', "FWCFG_CMDLINE_FILE"), "opt/x/y")

    def test_design_doc_names_every_allocator(self):
        """docs/design.md's layout names each allocator's file as
        mm/alloc/table.h lists them, and says where the list is."""
        text = read("docs/design.md")
        layout = text.split("  alloc/ ", 1)[1].split("\n  hugetlb/", 1)[0]
        named = re.findall(r"\b([a-z0-9_]+)\.c\b", layout)
        for name in facts.ALLOCATORS:
            self.assertIn(name, named, "docs/design.md's alloc/ line lacks %s.c" % name)
        self.assertIn("table.h", layout)
        self.assertNotIn("alloc_table[]", text)


# ---- tools/memboot's subcommands ---------------------------------------------

def subcommands(parser):
    """({name: help text or None}, {alias: name}) of a parser's subcommands."""
    import argparse
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help for a in action._choices_actions}
    by_parser = {}
    for name, sub in action.choices.items():
        by_parser.setdefault(id(sub), []).append(name)
    names, aliases = {}, {}
    for group in by_parser.values():
        # argparse registers a subcommand's name before its aliases.
        names[group[0]] = helps.get(group[0]) or None
        aliases.update((alias, group[0]) for alias in group[1:])
    return names, aliases


def doc_subcommand_rows(text):
    """The commands of docs/tools.md's table of subcommands."""
    table = text.split("| command | what it does |", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\| `([a-z][a-z-]*)` *\|", table, re.M)


def header_subcommands(doc):
    """The subcommands tools/memboot's own docstring names."""
    listed = doc.split("Subcommands:\n", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^  ([a-z][a-z-]*)\s", listed, re.M)


def subcommand_problems(documented, names, aliases):
    """What a list of documented subcommands names that the parser does not
    have, or names by an alias (only the name is documented)."""
    problems = []
    for name in documented:
        if name in aliases:
            problems.append("`%s` is an alias of `%s`: document `%s`"
                            % (name, aliases[name], aliases[name]))
        elif name not in names:
            problems.append("`%s`: no such subcommand" % name)
    return problems


class Subcommands(unittest.TestCase):
    """tools/memboot's subcommands are registered once, in SUBCOMMAND_MODULES
    (besides run and topo), each with its help text; the docs name only
    subcommands that exist, so a new one (its module and one entry) breaks
    nothing before its documentation is written."""

    def setUp(self):
        self.mb = load_memboot()
        self.names, self.aliases = subcommands(self.mb.make_parser())

    def test_every_subcommand_has_a_help_text(self):
        self.assertEqual([n for n, h in self.names.items() if not h], [])
        self.assertTrue({"run", "topo", "trace", "install", "uninstall"} <= set(self.names))

    def test_registered_in_one_place(self):
        """Only run and topo are added in tools/memboot itself; every other
        subcommand comes from a SUBCOMMAND_MODULES module's add_parser()."""
        self.assertEqual(re.findall(r'\bsub\.add_parser\(\s*"([a-z-]+)"', read("tools/memboot")),
                         ["run", "topo"])
        for module in self.mb.SUBCOMMAND_MODULES:
            with self.subTest(module=module):
                self.assertRegex(read("tools/mbtools/%s.py" % module), r"(?m)^def add_parser\(sub\):")
        self.assertEqual(len(set(self.mb.SUBCOMMAND_MODULES)), len(self.mb.SUBCOMMAND_MODULES))

    def test_tools_doc_table_names_only_subcommands(self):
        rows = doc_subcommand_rows(read("docs/tools.md"))
        self.assertEqual(subcommand_problems(rows, self.names, self.aliases), [])
        self.assertTrue({"run", "topo", "bench"} <= set(rows), rows)

    def test_memboot_header_names_only_subcommands(self):
        listed = header_subcommands(self.mb.__doc__)
        self.assertEqual(subcommand_problems(listed, self.names, self.aliases), [])
        self.assertTrue({"run", "topo"} <= set(listed), listed)

    def test_checks_can_fail(self):
        import argparse
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers(dest="command")
        sub.add_parser("shown", help="a help text", aliases=["old"])
        sub.add_parser("bare")
        names, aliases = subcommands(parser)
        self.assertEqual((names, aliases), ({"shown": "a help text", "bare": None},
                                            {"old": "shown"}))
        rows = doc_subcommand_rows("| command | what it does |\n|---|---|\n"
                                   "| `shown` | x |\n| `old` | y |\n| `gone` | z |\n\n")
        self.assertEqual(subcommand_problems(rows, names, aliases),
                         ["`old` is an alias of `shown`: document `shown`",
                          "`gone`: no such subcommand"])
        self.assertEqual(header_subcommands("x\n\nSubcommands:\n  run   boot it\n"
                                            "                more\n  gone  x\n\nrest"),
                         ["run", "gone"])


# ---- kernel/selftest/list.h ------------------------------------------------

DOC_FILES = ["README.md"] + ["docs/" + n for n in sorted(os.listdir(
    os.path.join(REPO_ROOT, "docs"))) if n.endswith(".md")]
SELFTEST_WORDS = re.compile(r"memboot\.selftest=([a-z0-9_]+(?:,[a-z0-9_]+)*)")


def cmdline_selftest_row(text):
    """docs/cmdline.md's row of memboot.selftest."""
    return next(line for line in text.splitlines()
                if line.startswith("| `memboot.selftest` |"))


def cited_selftests(path, text):
    """The self-test names a doc cites: the words of each
    `memboot.selftest=a,b`, and in docs/cmdline.md's memboot.selftest row
    each `name`: that begins a test's description."""
    names = [n for m in SELFTEST_WORDS.finditer(text) for n in m.group(1).split(",")]
    if path == "docs/cmdline.md":
        names += re.findall(r"`([a-z0-9_]+)`:", cmdline_selftest_row(text).split("|")[4])
    return names


def unknown_selftests(docs, table):
    """["doc: `name`"] for each self-test @docs ({path: text}) cite that
    kernel/selftest/list.h (@table) does not have (`list` is the key's own)."""
    return ["%s: `%s`" % (path, name) for path, text in sorted(docs.items())
            for name in dict.fromkeys(cited_selftests(path, text))
            if name not in list(table) + ["list"]]


class SelftestNames(unittest.TestCase):
    """kernel/selftest/list.h is the one list of self-tests: the docs point
    to it and cite only names it has, so that a new self-test (its file and
    one list.h line) needs no doc edit; the host test of the key
    (tests/host/test_cmdline.c) and the guest test of memboot.selftest=list
    (tests/guest/test_selftest.py) take the names from list.h too."""

    def test_docs_cite_only_selftests_of_the_table(self):
        docs = {path: read(path) for path in DOC_FILES}
        self.assertEqual(unknown_selftests(docs, facts.SELFTESTS), [])
        # The scan sees the docs' citations (a broken one would pass vacuously).
        self.assertIn("numaperf", cited_selftests("docs/cmdline.md", docs["docs/cmdline.md"]))
        self.assertIn("pt", cited_selftests("docs/pagetables.md", docs["docs/pagetables.md"]))
        self.assertGreaterEqual(len(facts.SELFTESTS), 2)

    def test_cmdline_doc_points_to_the_table(self):
        row = cmdline_selftest_row(read("docs/cmdline.md"))
        self.assertIn("kernel/selftest/list.h", row)
        self.assertIn("`memboot.selftest=list`", row)

    def test_check_sees_a_selftest_that_does_not_exist(self):
        cmdline = read("docs/cmdline.md")
        wrong = cmdline.replace("`churn`: the kbuild-like", "`churning`: the kbuild-like")
        self.assertNotEqual(wrong, cmdline)
        self.assertEqual(unknown_selftests({"docs/cmdline.md": wrong,
                                            "README.md": "memboot.selftest=pt,bogus,list"},
                                           facts.SELFTESTS),
                         ["README.md: `bogus`", "docs/cmdline.md: `churning`"])


# ---- boot/fwcfg_files.h -----------------------------------------------------------

FWCFG_HEADER = "boot/fwcfg_files.h"
FWCFG_DEFINE = re.compile(r'^#define\s+(FWCFG_\w+_FILE)\s+"([^"]+)"', re.M)
FWCFG_LITERAL = re.compile(r'"opt/[^"]*"')


def fwcfg_literals(text):
    """The fw_cfg file names (\"opt/...\") a C text spells out."""
    return FWCFG_LITERAL.findall(re.sub(r"/\*.*?\*/", "", text, flags=re.S))


class FwCfgNames(unittest.TestCase):

    def test_header_names_the_files(self):
        names = dict(FWCFG_DEFINE.findall(read(FWCFG_HEADER)))
        self.assertEqual(names["FWCFG_CMDLINE_FILE"], "opt/memboot/cmdline")
        self.assertEqual(names["FWCFG_MB2_OVERRIDE_FILE"], "opt/memboot/mb2-override")

    def test_no_other_c_file_spells_one(self):
        found = ["%s: %s" % (path, lit) for path in c_sources() if path != FWCFG_HEADER
                 for lit in fwcfg_literals(read(path))]
        self.assertEqual(found, [], "use the names of boot/fwcfg_files.h")

    def test_check_sees_a_literal(self):
        self.assertEqual(fwcfg_literals('/* "opt/memboot/x" */ read("opt/memboot/cmdline");'),
                         ['"opt/memboot/cmdline"'])


if __name__ == "__main__":
    unittest.main()
