"""Every command-line key, wherever its subsystem declares it, is documented
in docs/cmdline.md and declared exactly once.

Keys live in the tables of the subsystems that read them (PARAM_TABLE in
kernel/services/cmdline.h); this test finds every `.key = "..."` in the kernel's
sources, so a key added anywhere is held to the same rules.
"""
import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE_DIRS = ("arch", "boot", "kernel", "mm")
KEY_RE = re.compile(r'\.key\s*=\s*"([^"]+)"')


def c_sources(root=ROOT):
    """(path relative to @root, text) of every .c file of the kernel, sorted."""
    for top in SOURCE_DIRS:
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".c"):
                    path = os.path.join(dirpath, name)
                    with open(path, encoding="utf-8") as f:
                        yield os.path.relpath(path, root), f.read()


def declared_keys(root=ROOT):
    """[(key, path)] for every param declared in the kernel's C sources."""
    return [(key, path) for path, text in c_sources(root) for key in KEY_RE.findall(text)]


TABLE_RE = re.compile(r"\bPARAM_TABLE\(\s*(\w+)\s*,")


def declared_tables(root=ROOT):
    """{table name: path} for every PARAM_TABLE(...) in the kernel's sources
    (the macro's own definition in kernel/services/cmdline.h is not one)."""
    return {table: path for path, text in c_sources(root) for table in TABLE_RE.findall(text)}


def listed_tables(path, array):
    """The `&name` entries of the C array @array in @path."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    m = re.search(re.escape(array) + r"\[\]\s*=\s*\{(.*?)\};", text, re.S)
    if not m:
        return None
    return set(re.findall(r"&\s*(\w+)", re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)))


def documented(doc, key):
    """True when @doc names @key as a whole word (not inside a longer key)."""
    for m in re.finditer(re.escape(key), doc):
        before = doc[m.start() - 1] if m.start() else " "
        after = doc[m.end()] if m.end() < len(doc) else " "
        if not re.match(r"[A-Za-z0-9_.]", before) and not re.match(r"[A-Za-z0-9_.]", after):
            return True
    return False


class CmdlineKeys(unittest.TestCase):
    def test_keys_found(self):
        keys = {k for k, _ in declared_keys()}
        # A few keys of different subsystems: the scan must see them all.
        for key in ("memboot.selftest", "hugepages", "console", "memboot.pcp", "maxcpus"):
            self.assertIn(key, keys)

    def test_each_key_declared_once(self):
        seen = {}
        for key, path in declared_keys():
            self.assertNotIn(key, seen, f"{key} declared in {seen.get(key)} and {path}")
            seen[key] = path

    def test_docs_name_every_key(self):
        with open(os.path.join(ROOT, "docs", "cmdline.md"), encoding="utf-8") as f:
            doc = f.read()
        missing = sorted({k for k, _ in declared_keys() if not documented(doc, k)})
        self.assertEqual(missing, [], "docs/cmdline.md does not document these keys")

    def test_every_table_is_parsed(self):
        # A table main.c does not list is never parsed: its keys would be
        # reported as unknown at every boot.
        tables = declared_tables()
        self.assertIn("console_param_table", tables)
        self.assertIn("selftest_param_table", tables)
        listed = listed_tables("kernel/init/cmdline.c", "cmdline_tables")
        self.assertIsNotNone(listed, "no cmdline_tables[] in kernel/init/cmdline.c")
        self.assertEqual(sorted(set(tables) - listed), [],
                         "PARAM_TABLEs missing from cmdline_tables[] in kernel/init/cmdline.c")
        self.assertEqual(sorted(listed - set(tables)), [],
                         "cmdline_tables[] lists tables no source declares")

    def test_every_table_is_host_tested(self):
        # The host test checks every table's entries (types, bounds, help).
        tables = declared_tables()
        listed = listed_tables("tests/host/test_cmdline.c", "all_tables")
        self.assertIsNotNone(listed, "no all_tables[] in tests/host/test_cmdline.c")
        self.assertEqual(sorted(set(tables) - listed), [],
                         "PARAM_TABLEs missing from all_tables[] in tests/host/test_cmdline.c")

    def test_scan_can_fail(self):
        self.assertFalse(documented("memboot.pcp_steps=", "memboot.pcp"))
        self.assertTrue(documented("`memboot.pcp=auto`", "memboot.pcp"))
        self.assertIsNone(listed_tables("kernel/init/main.c", "no_such_array"))


if __name__ == "__main__":
    unittest.main()
