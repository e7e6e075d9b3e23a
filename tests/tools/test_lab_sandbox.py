"""The sandbox `lab grade --class` runs student code in (tools/mbtools/sandbox.py).

What docs/teaching.md says of it, each shown with a command that tries:
the unprivileged user, the student's tree the only place it can write, the
grader's tree and /root out of sight, no network but loopback (bubblewrap),
a command past its time killed with what it started, one past its memory
refused, and a weaker sandbox said so in a warning.

    python3 -m unittest tests/tools/test_lab_sandbox.py -v
"""

import atexit
import os
import shutil
import sys
import tempfile
import time
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
from mbtools import sandbox  # noqa: E402


def tree():
    top = tempfile.mkdtemp(prefix="memboot-sandbox-")
    atexit.register(shutil.rmtree, top, ignore_errors=True)
    os.chmod(top, 0o711)
    t = os.path.join(top, "student")
    os.makedirs(t)
    return t


class Sandbox(unittest.TestCase):

    def box(self, method):
        try:
            b = sandbox.make(method)
        except sandbox.SandboxError as e:
            self.skipTest(str(e))
        t = tree()
        b = b.for_student(t)
        b.give(t)
        return b, t

    def test_bubblewrap_keeps_student_code_apart(self):
        b, t = self.box("bwrap")
        self.assertIsNone(b.warning)
        r = b.run(["sh", "-c", "id -u; touch mine && echo wrote; touch /usr/x 2>/dev/null || "
                   "echo no-usr; ls %s 2>/dev/null || echo no-grader-tree; ls /root "
                   "2>/dev/null || echo no-root; cat /proc/net/dev | tail -n +3 | "
                   "cut -d: -f1 | tr -d ' '" % REPO_ROOT], t, 30)
        self.assertEqual(r.rc, 0, r.err)
        lines = r.out.split()
        self.assertEqual(lines[0], "65534" if os.geteuid() == 0 else str(os.geteuid()))
        self.assertEqual(lines[1:5], ["wrote", "no-usr", "no-grader-tree", "no-root"])
        self.assertEqual(lines[5:], ["lo"], "no network but its own loopback")
        self.assertTrue(os.path.exists(os.path.join(t, "mine")))

    def test_time_and_memory_limits(self):
        b, t = self.box("auto")
        t0 = time.monotonic()
        r = b.run(["sh", "-c", "sleep 100 & sleep 100; echo never"], t, 2)
        self.assertTrue(r.timed_out)
        self.assertLess(time.monotonic() - t0, 30)
        self.assertNotIn("never", r.out)
        r = b.run(["python3", "-c", "x = bytearray(512 << 20); print('got it')"], t, 60,
                  mem_mib=256)
        self.assertNotEqual(r.rc, 0)
        self.assertIn("MemoryError", r.err)
        r = b.run(["python3", "-c", "x = bytearray(16 << 20); print('got it')"], t, 60,
                  mem_mib=256)
        self.assertEqual((r.rc, r.out.strip()), (0, "got it"), r.err)

    def test_weaker_sandboxes_are_said_so(self):
        for method in ("unshare", "none"):
            b, t = self.box(method)
            self.assertIn("student code runs", b.warning)
            r = b.run(["sh", "-c", "touch mine && echo ok"], t, 30)
            self.assertEqual((r.rc, r.out.strip()), (0, "ok"), (method, r.err))

    def test_unknown_method_or_user(self):
        with self.assertRaises(sandbox.SandboxError) as e:
            sandbox.make("chroot")
        self.assertIn("one of auto, bwrap, unshare, none", str(e.exception))
        if os.geteuid() == 0:
            with self.assertRaises(sandbox.SandboxError) as e:
                sandbox.make("none", user="no-such-user-here")
            self.assertIn("no such user", str(e.exception))
            with self.assertRaises(sandbox.SandboxError) as e:
                sandbox.make("none", user="root")
            self.assertIn("is root", str(e.exception))


if __name__ == "__main__":
    unittest.main()
