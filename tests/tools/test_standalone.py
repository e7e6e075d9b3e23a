"""A clone of memboot stands alone: no tracked file points outside the
repository, and every document a file names by path is in it.

    python3 -m unittest tests/tools/test_standalone.py -v
"""

import os
import re
import subprocess
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
THIS = os.path.relpath(os.path.abspath(__file__), REPO_ROOT)

# Places outside the repository that the project's texts must not rely on:
# a sibling directory of design notes, its reference and seed folders, or
# an absolute path of one machine. Written in pieces so this file does not
# match itself.
OUTSIDE = re.compile("|".join([
    r"\.\./" + "shared",
    r"\b" + "shared" + r"/(?:ARCHITECTURE|reference|seeds)\b",
    r"\b" + "ARCHI" + r"TECTURE\.md\b",
    r"(?<![\w.])/" + "work" + r"/",
]))
# A Markdown document named by a path: docs/x.md, ../y.md, README.md.
DOC_REF = re.compile(r"(?<![\w/.:-])((?:\.\./|\./)?(?:[\w.-]+/)*[\w-]+\.md)\b")
# Binary and generated inputs: fuzz corpora and captured firmware bytes.
SKIP_PREFIXES = ("tests/fuzz/seeds/", "tests/fuzz/regress/")


def tracked():
    out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT,
                         capture_output=True, check=True)
    return [p for p in out.stdout.decode().split("\0") if p]


def text_of(path):
    try:
        with open(os.path.join(REPO_ROOT, path), encoding="utf-8") as f:
            return f.read()
    except (UnicodeDecodeError, OSError):
        return None     # binary (fixtures, images) or gone in a checkout


def outside_refs(path, text):
    return ["%s:%d: %s" % (path, text.count("\n", 0, m.start()) + 1, m.group(0))
            for m in OUTSIDE.finditer(text)]


def missing_docs(path, text, files):
    """Documents @text names by a path that resolves to no tracked file."""
    names = {os.path.basename(f) for f in files}
    missing = []
    for m in DOC_REF.finditer(text):
        ref = m.group(1)
        before = text[max(0, m.start() - 200):m.start()]
        if re.search(r"https?://\S*$", before):
            continue        # part of a URL
        if "/" not in ref:
            ok = ref in names
        else:
            ok = (ref in files or os.path.normpath(
                os.path.join(os.path.dirname(path), ref)) in files)
        if not ok:
            missing.append("%s: %s" % (path, ref))
    return missing


class StandsAlone(unittest.TestCase):

    # tests/run.py runs each test on its own (no class fixtures): the tree
    # is read once per process and kept.
    _tree = None

    def setUp(self):
        if StandsAlone._tree is None:
            try:
                files = tracked()
            except (OSError, subprocess.CalledProcessError):
                raise unittest.SkipTest("not a git checkout")
            texts = {}
            for path in files:
                if path == THIS or path.startswith(SKIP_PREFIXES):
                    continue
                text = text_of(path)
                if text is not None:
                    texts[path] = text
            StandsAlone._tree = (files, texts)
        self.files, self.texts = StandsAlone._tree

    def test_nothing_points_outside(self):
        found = []
        for path, text in self.texts.items():
            found += outside_refs(path, text)
        self.assertEqual(found, [])

    def test_named_documents_exist(self):
        files = set(self.files)
        found = []
        for path, text in self.texts.items():
            found += missing_docs(path, text, files)
        self.assertEqual(found, [])

    def test_design_doc_is_there(self):
        self.assertIn("docs/design.md", self.files)
        self.assertIn("docs/design.md", self.texts["README.md"])

    def test_checks_see_bad_references(self):
        bad = ("See ../" "shared/ARCHI" "TECTURE.md section 2 and "
               "shared/" "reference/linux-anchors.md; /" "work/main has it.\n")
        self.assertEqual(len(outside_refs("x.md", bad)), 4)
        self.assertEqual(outside_refs("x.md", "set architecture i386:x86-64\n"), [])
        files = {"docs/a.md", "README.md"}
        self.assertEqual(missing_docs("docs/b.md", "docs/a.md ../README.md a.md "
                                      "docs/gone.md https://x.org/y/z.md", files),
                         ["docs/b.md: docs/gone.md"])


if __name__ == "__main__":
    unittest.main()
