"""tests/run.py, the test runner: it runs only the host-test binaries the
current build made (one per tests/host/test_*.c, none missing or older than
its source) and counts skipped tests on its closing line.

    python3 -m unittest tests/tools/test_run.py -v
"""

import contextlib
import importlib.util
import io
import os
import shutil
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_runner():
    spec = importlib.util.spec_from_file_location("memboot_test_runner",
                                                  os.path.join(REPO_ROOT, "tests", "run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


runner = load_runner()

TAP = """1..3
ok 1 - first
not ok 2 # SKIP second
ok 3 - third
# ok - group
"""


class HostSection(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="memboot-runner-")
        self.addCleanup(shutil.rmtree, self.root, ignore_errors=True)
        os.makedirs(os.path.join(self.root, "tests", "host"))
        os.makedirs(os.path.join(self.root, "build", "host"))

    def source(self, name, mtime):
        path = os.path.join(self.root, "tests", "host", name + ".c")
        open(path, "w").close()
        os.utime(path, (mtime, mtime))

    def binary(self, name, mtime, tap=TAP):
        path = os.path.join(self.root, "build", "host", name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\ncat <<'EOF'\n%sEOF\n" % tap)
        os.chmod(path, 0o755)
        os.utime(path, (mtime, mtime))
        return path

    def run_host(self):
        tally = runner.Tally()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            runner.run_host(tally, None, root=self.root)
        return tally, out.getvalue()

    def test_only_current_binaries_run(self):
        self.source("test_fresh", 1000)
        self.binary("test_fresh", 2000)
        self.source("test_missing", 1000)
        self.source("test_stale", 3000)
        self.binary("test_stale", 2000)
        # A binary whose source is gone (a renamed test): never run.
        self.binary("test_removed", 2000, tap="1..1\nnot ok 1 - would fail\n")
        tally, out = self.run_host()
        self.assertIn("PASS host/test_fresh/first", out)
        self.assertIn("SKIP host/test_fresh/second", out)
        self.assertIn("FAIL host/test_missing", out)
        self.assertIn("no build/host/test_missing for tests/host/test_missing.c", out)
        self.assertIn("FAIL host/test_stale", out)
        self.assertIn("build/host/test_stale is older than tests/host/test_stale.c", out)
        self.assertIn("NOTE build/host/test_removed has no tests/host/test_removed.c: not run",
                      out)
        self.assertNotIn("would fail", out)
        self.assertEqual((tally.passed, tally.failed, tally.skipped), (2, 2, 1))
        self.assertEqual(tally.failures, ["host/test_missing", "host/test_stale"])

    def test_closing_line_counts_skips(self):
        self.source("test_fresh", 1000)
        self.binary("test_fresh", 2000)
        tally, _ = self.run_host()
        self.assertEqual(tally.summary(), "2 passed, 0 failed, 1 skipped")
        # CI reads the start of the line.
        self.assertRegex(tally.summary(), r"^\d+ passed, \d+ failed")

    def test_the_real_tree_lists_every_source(self):
        names = [name for name, _, _ in runner.host_tests(REPO_ROOT)]
        sources = sorted(os.path.splitext(f)[0]
                         for f in os.listdir(os.path.join(REPO_ROOT, "tests", "host"))
                         if f.startswith("test_") and f.endswith(".c"))
        self.assertEqual(names, sources)


class ToolsSection(unittest.TestCase):
    def test_a_skipped_test_is_counted(self):
        tally = runner.Tally()
        with contextlib.redirect_stdout(io.StringIO()) as out:
            tally.ok("a")
            tally.skip("b", "no matplotlib")
        self.assertEqual(out.getvalue(), "  PASS a\n  SKIP b: no matplotlib\n")
        self.assertEqual(tally.summary(), "1 passed, 0 failed, 1 skipped")


if __name__ == "__main__":
    unittest.main()


class FailureExcerpt(unittest.TestCase):
    """A failure whose message is a whole console still names the
    assertion that failed, not only the console's last lines."""

    def test_long_message_keeps_the_raising_frame_and_first_line(self):
        try:
            assert 1 == 2, "records differ\n" + "\n".join(f"console {i}" for i in range(100))
        except AssertionError:
            import traceback
            detail = traceback.format_exc()
        lines = runner.failure_excerpt(detail, tail=10)
        self.assertIn("test_long_message_keeps_the_raising_frame_and_first_line", lines[0])
        self.assertIn("assert 1 == 2", lines[1])
        self.assertEqual(lines[2], "AssertionError: records differ")
        self.assertEqual(lines[3], "[...]")
        self.assertEqual(lines[4:], [f"console {i}" for i in range(90, 100)])

    def test_short_detail_is_printed_whole(self):
        self.assertEqual(runner.failure_excerpt("one\ntwo\n"), ["one", "two"])
