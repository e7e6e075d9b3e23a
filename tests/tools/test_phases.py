"""The phase table (kernel/init/phases.h) is the one list of boot phases:
main.c runs them in its order, docs/design.md's table and docs/records.md's
list of `phase` names are it, and tools/mbtools/facts.py reads it for the
guest tests.

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
    """The phase names of main.c's PHASE(name, ...) lines, in order."""
    return re.findall(r"\bPHASE\(\s*(\w+)\s*,", strip_comments(text))


def design_rows(text):
    """[(phase, takes, builds)] of docs/design.md's phase table."""
    table = text.split("| phase | takes | builds |", 1)[1].split("\n\n", 1)[0]
    rows = []
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        rows.append(tuple(cells))
    return rows


def records_phase_names(text):
    """The names docs/records.md's `phase` record lists, in order."""
    section = text.split("### `phase`", 1)[1].split("\n### ", 1)[0]
    cell = next(line for line in section.splitlines() if line.startswith("| `name` |"))
    return re.findall(r"`([a-z0-9]+)`", cell.split("|")[3])


class PhaseTable(unittest.TestCase):
    def test_main_runs_the_table_in_order(self):
        self.assertEqual(main_phases(read(MAIN)), [p[0] for p in facts.PHASE_TABLE],
                         "kernel/init/main.c's PHASE lines differ from kernel/init/phases.h: "
                         "a phase is one table line and one PHASE line, in the same order")

    def test_design_doc_table_is_the_phase_table(self):
        self.assertEqual(design_rows(read("docs/design.md")),
                         [(name, takes, builds) for name, _, takes, builds in facts.PHASE_TABLE])

    def test_records_doc_lists_the_phase_table(self):
        self.assertEqual(records_phase_names(read("docs/records.md")),
                         [p[0] for p in facts.PHASE_TABLE])

    def test_only_key_phases_are_left_out_of_every_boot(self):
        self.assertIn("meminit", facts.PHASES)
        self.assertEqual([p[0] for p in facts.PHASE_TABLE if p[1] == "WITH_KEY"], ["bench"])

    def test_checks_can_fail(self):
        """A phase in main.c but not in the table, and a table row not
        in main.c, are both seen; so is a reordered design table."""
        table = [p[0] for p in facts.PHASE_TABLE]
        extra = read(MAIN).replace("PHASE(vm,", "PHASE(memtest, x());\n\tPHASE(vm,")
        self.assertNotEqual(main_phases(extra), table)
        dropped = re.sub(r"\tPHASE\(pcp, [^\n]*\n", "", read(MAIN))
        self.assertNotEqual(main_phases(dropped), table)
        rows = design_rows(read("docs/design.md"))
        self.assertNotEqual(rows[::-1], rows)
        self.assertEqual(main_phases("PHASE(a, f()); /* PHASE(b, g()); */ PHASE(c, h());"),
                         ["a", "c"])

    def test_parser_reads_escapes_and_refuses_a_bad_table(self):
        text = ('#define BOOT_PHASES(X) \\\n\tX(a, ALWAYS, \\\n\t  "x \\"q\\"", \\\n'
                '\t  "y") \\\n\tX(b, WITH_KEY, "k", "z")\n')
        self.assertEqual(facts.parse_phases(text, "t.h"),
                         [("a", "ALWAYS", 'x "q"', "y"), ("b", "WITH_KEY", "k", "z")])
        with self.assertRaises(facts.FactsError):
            facts.parse_phases("#define BOOT_PHASES(X) \\\n\tX(a)\n", "t.h")


if __name__ == "__main__":
    unittest.main()
