"""The phase table (kernel/init/phases.h) is the one list of boot phases:
main.c runs them in its order, tools/mbtools/facts.py reads it for the guest
tests, and the docs point to it instead of copying it. What the docs say
about phases is checked in one direction only, so that it cannot drift and
a new phase needs no doc edit: every phase a doc cites is in the table, and
docs/design.md and docs/records.md's `phase` record name phases.h.

    python3 -m unittest tests/tools/test_phases.py -v
"""
import os
import re
import sys
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mbtools import facts  # noqa: E402
from test_boot_state import MAIN, read, strip_comments  # noqa: E402


def main_phases(text):
    """The names of main.c's PHASE(name, ...) and STEP(name, ...) lines, in
    order (a STEP is a table entry not timed as a phase)."""
    return re.findall(r"\b(?:PHASE|STEP)\(\s*(\w+)\s*,", strip_comments(text))


DOC_FILES = ("README.md",) + tuple("docs/" + n for n in sorted(os.listdir(
    os.path.join(REPO_ROOT, "docs"))) if n.endswith(".md"))
# How a doc cites a phase: phase `numa`; phases `memprep` and `meminit`,
# phases `a`, `b` or `c`; the console's `phase numa: 3.210 ms`.
NAME = r"`([a-z0-9_]+)`"
CITE_LIST = re.compile(r"\bphases?\s+(%s(?:(?:,|\s+and|\s+or),?\s+%s)*)" % (NAME, NAME))
CITE_LINE = re.compile(r"`phase ([a-z0-9_]+): ")
# docs/design.md's data flow: "bs.topo + bs.physmem --memmap--> bs.memmap",
# "--pagetables, smp-->".
FLOW_ARROW = re.compile(r"--([a-z0-9_]+(?:, [a-z0-9_]+)*)-->")


def record_name_cell(text):
    """The meaning cell of docs/records.md's `phase` record's `name` key."""
    section = text.split("### `phase`", 1)[1].split("\n### ", 1)[0]
    cell = next(line for line in section.splitlines() if line.startswith("| `name` |"))
    return cell.split("|")[3]


def cited_phases(text, records=False):
    """The phase names a doc's text cites as phases, in order: after
    "phase"/"phases" in code spans, in a console line `phase NAME: `, in
    the data flow's arrows; with @records, also every name in the code
    spans of the `phase` record's `name` cell (docs/records.md)."""
    names = []
    for m in CITE_LIST.finditer(text):
        names += re.findall(NAME, m.group(1))
    names += CITE_LINE.findall(text)
    for m in FLOW_ARROW.finditer(text):
        names += m.group(1).split(", ")
    if records:
        names += re.findall(NAME, record_name_cell(text))
    return names


def unknown_phases(docs, table):
    """["doc: `name`"] for each phase @docs ({path: text}) cite that is not
    in @table (the phase names)."""
    return ["%s: `%s`" % (path, name) for path, text in sorted(docs.items())
            for name in dict.fromkeys(cited_phases(text, records=path == "docs/records.md"))
            if name not in table]


def docs():
    return {path: read(path) for path in DOC_FILES}


class PhaseTable(unittest.TestCase):
    def test_main_runs_the_table_in_order(self):
        self.assertEqual(main_phases(read(MAIN)), [p[0] for p in facts.PHASE_TABLE],
                         "kernel/init/main.c's PHASE and STEP lines differ from "
                         "kernel/init/phases.h: a phase is one table line and one PHASE line "
                         "(a step one STEP line), in the same order")

    def test_docs_cite_only_phases_of_the_table(self):
        table = [p[0] for p in facts.PHASE_TABLE]
        self.assertEqual(unknown_phases(docs(), table), [],
                         "the docs cite phases kernel/init/phases.h does not list")
        # The parse sees the docs' citations (a broken one would pass vacuously).
        self.assertIn("meminit", cited_phases(read("docs/design.md")))
        self.assertIn("early", cited_phases(read("docs/records.md"), records=True))

    def test_docs_point_to_the_table(self):
        self.assertIn("kernel/init/phases.h", read("docs/design.md").split(
            "### The phases", 1)[1].split("\n### ", 1)[0])
        self.assertIn("kernel/init/phases.h", record_name_cell(read("docs/records.md")))

    def test_only_key_phases_are_left_out_of_every_boot(self):
        self.assertIn("meminit", facts.PHASES)
        self.assertEqual([p[0] for p in facts.PHASE_TABLE if p[1] == "WITH_KEY"], ["bench"])
        # A step has no `phase` record: the guest tests do not expect one.
        self.assertEqual([p[0] for p in facts.PHASE_TABLE if p[1] == "STEP"], ["meminit_report"])
        self.assertNotIn("meminit_report", facts.PHASES)

    def test_checks_can_fail(self):
        """A phase in main.c but not in the table, and a table row not
        in main.c, are both seen."""
        table = [p[0] for p in facts.PHASE_TABLE]
        extra = read(MAIN).replace("PHASE(vm,", "PHASE(memtest, x());\n\tPHASE(vm,")
        self.assertNotEqual(main_phases(extra), table)
        dropped = re.sub(r"\tPHASE\(pcp, [^\n]*\n", "", read(MAIN))
        self.assertNotEqual(main_phases(dropped), table)
        self.assertEqual(main_phases("PHASE(a, f()); /* PHASE(b, g()); */ PHASE(c, h());"),
                         ["a", "c"])
        self.assertEqual(main_phases("PHASE(a, f());\n\tSTEP(r, g());\n\tPHASE(c, h());"),
                         ["a", "r", "c"])

    def test_doc_check_sees_a_phase_that_does_not_exist(self):
        table = [p[0] for p in facts.PHASE_TABLE]
        texts = docs()
        self.assertIn("phase `acpi`", texts["docs/measuring.md"])
        wrong = dict(texts)
        wrong["docs/measuring.md"] = texts["docs/measuring.md"].replace(
            "phase `acpi`", "phase `acpiscan`", 1)
        wrong["docs/records.md"] = texts["docs/records.md"].replace(
            "phase `early` comes first", "phase `start` comes first")
        self.assertNotEqual(wrong["docs/records.md"], texts["docs/records.md"])
        wrong["docs/design.md"] = texts["docs/design.md"].replace(
            "--memmap-->", "--descriptors-->")
        self.assertNotEqual(wrong["docs/design.md"], texts["docs/design.md"])
        self.assertEqual(unknown_phases(wrong, table),
                         ["docs/design.md: `descriptors`", "docs/measuring.md: `acpiscan`",
                          "docs/records.md: `start`"])
        self.assertEqual(cited_phases(
            "phases `memprep` and\n`meminit`; phases `a`, `b` or `c`; "
            "`phase numa: 3.210 ms`; --pagetables, smp--> x; a phase record; "
            "the phase's `bs.topo`"),
            ["memprep", "meminit", "a", "b", "c", "numa", "pagetables", "smp"])
        # A name the record's cell shows in a code span counts there only.
        cell = "### `phase`\n| `name` | string | `early`, `boot` |\n### `x`\n"
        self.assertEqual(cited_phases(cell, records=True), ["early", "boot"])
        self.assertEqual(unknown_phases({"docs/records.md": cell}, table),
                         ["docs/records.md: `boot`"])

    def test_parser_reads_escapes_and_refuses_a_bad_table(self):
        text = ('#define BOOT_PHASES(X) \\\n\tX(a, ALWAYS, \\\n\t  "x \\"q\\"", \\\n'
                '\t  "y") \\\n\tX(b, WITH_KEY, "k", "z")\n')
        self.assertEqual(facts.parse_phases(text, "t.h"),
                         [("a", "ALWAYS", 'x "q"', "y"), ("b", "WITH_KEY", "k", "z")])
        with self.assertRaises(facts.FactsError):
            facts.parse_phases("#define BOOT_PHASES(X) \\\n\tX(a)\n", "t.h")


if __name__ == "__main__":
    unittest.main()
