"""The facts the kernel, the tools and the docs share have one source.

- kernel/exit.h (EXIT_STATUS_TABLE) and tools/mbtools/facts.py's tool
  statuses against docs/exit-status.md;
- kernel/record_events.h (RECORD_EVENT_TABLE) against docs/records.md and
  against every record the sources begin;
- kernel/limits.h: no other file defines the node or CPU limit, the default
  distances or the page size with a number of its own.

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

from mbtools import facts  # noqa: E402

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
        problems.append("kernel statuses: docs %s, kernel/exit.h %s"
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
        """The port, the base and the statuses appear only in kernel/exit.h."""
        for path in c_sources():
            if path == "kernel/exit.h":
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
        self.assertEqual(unknown, {}, "events not in kernel/record_events.h")
        # Names nobody emits are dead entries in the table. Events whose name
        # is not a literal at rec_begin() would show here: there are none.
        self.assertEqual(sorted(set(facts.EVENTS) - set(used)), [])

    def test_source_scan_finds_calls(self):
        self.assertEqual(source_events('rec_begin(&r, "node_init");\n'
                                       'rec_begin(r,"x");\n'
                                       'rec_begin(&r, l < 3 ? "error" : "warning");\n'
                                       'Print(L"MEMBOOT {\\"event\\":\\"done\\",")'),
                         ["node_init", "x", "error", "warning", "done"])


# ---- kernel/limits.h ------------------------------------------------------

# A limit defined with a number of its own outside kernel/limits.h. The ACPI
# parsers' caps (ACPI_MADT_MAX_CPUS...) bound table entries, not the kernel's
# CPUs, and stay theirs.
SECOND_LIMIT = re.compile(
    r"^#define\s+((?!ACPI_)\w*MAX_NODES|(?!ACPI_)\w*MAX_CPUS|\w*_DISTANCE"
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
            if path == "kernel/limits.h":
                continue
            found += ["%s: %s" % (path, m.group(1))
                      for m in SECOND_LIMIT.finditer(read(path))]
        # The host benchmark simulates up to 8 nodes in its own arrays; that
        # is its option range, not the kernel's limit.
        found = [f for f in found if f != "bench/memmap_bench.c: MAX_NODES"]
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


if __name__ == "__main__":
    unittest.main()
