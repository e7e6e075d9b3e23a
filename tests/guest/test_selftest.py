"""memboot.selftest=list: the kernel prints its table of self-tests, exactly
the entries of kernel/selftest/list.h in their order, and runs none."""
import os
import re

from guest import ROOT, boot

LIST_H = os.path.join(ROOT, "kernel", "selftest", "list.h")
# X(id, "name", fn, "needs", "description"), each string one literal.
ENTRY = re.compile(r'X\(\s*(\w+),\s*"([^"]*)",\s*(\w+),\s*"([^"]*)",\s*"([^"]*)"\s*\)')


def table(text):
    """[(name, needs, description)] of the X-macro list in @text."""
    body = text.replace("\\\n", " ")
    m = re.search(r"#define\s+SELFTEST_LIST\(X\)(.*?)(?:\n\s*\n|#endif)", body, re.S)
    assert m, "no SELFTEST_LIST in kernel/selftest/list.h"
    return [(name, needs, desc) for _, name, _, needs, desc in ENTRY.findall(m.group(1))]


def test_table_parser_reads_a_list():
    text = ('#define SELFTEST_LIST(X) \\\n\tX(A, "a", fa, "one CPU", \\\n'
            '\t  "checks a") \\\n\tX(B, "b", fb, "memory", "checks b")\n\n#endif\n')
    assert table(text) == [("a", "one CPU", "checks a"), ("b", "memory", "checks b")]


def test_selftest_list_prints_the_table():
    with open(LIST_H, encoding="utf-8") as f:
        want = table(f.read())
    # The parse found every entry of the table (one X( line each), and
    # nothing but names.
    with open(LIST_H, encoding="utf-8") as f:
        entries = len(re.findall(r"^\s*X\(", f.read(), re.M))
    assert len(want) == entries >= 2, want
    assert all(re.fullmatch(r"[a-z0-9_]+", n) for n, _, _ in want), want
    b = boot(boot_path="pvh", append="memboot.selftest=list")
    b.expect_ok()
    got = [(r["name"], r["needs"], r["description"]) for r in b.all("selftest_entry")]
    assert got == want
    # Listed, not run: no verdict, no census besides the boot's and the end's.
    assert b.all("selftest") == []
    assert [c["when"] for c in b.all("census")] == ["boot", "end"]
    for name, _, desc in want:
        assert re.search(r"selftest %s +%s" % (re.escape(name), re.escape(desc)), b.console)
