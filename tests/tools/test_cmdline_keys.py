"""Every command-line key, wherever its subsystem declares it, is documented
in docs/cmdline.md and declared exactly once.

Keys live in the tables of the subsystems that read them (PARAM_TABLE in
kernel/cmdline.h); this test finds every `.key = "..."` in the kernel's
sources, so a key added anywhere is held to the same rules.
"""
import os
import re
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE_DIRS = ("arch", "boot", "kernel", "mm")
KEY_RE = re.compile(r'\.key\s*=\s*"([^"]+)"')


def declared_keys(root=ROOT):
    """[(key, path)] for every param declared in the kernel's C sources."""
    found = []
    for top in SOURCE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(".c"):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    for key in KEY_RE.findall(f.read()):
                        found.append((key, os.path.relpath(path, root)))
    return found


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

    def test_scan_can_fail(self):
        self.assertFalse(documented("memboot.pcp_steps=", "memboot.pcp"))
        self.assertTrue(documented("`memboot.pcp=auto`", "memboot.pcp"))


if __name__ == "__main__":
    unittest.main()
