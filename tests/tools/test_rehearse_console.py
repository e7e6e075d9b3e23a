"""The rehearsal reads the variables its server's Linux printed on the
serial console. Another writer on that console (a kernel message) can cut a
line: the variable is then named as unreadable, never decoded wrong and
never a traceback."""
import os
import sys
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
from mbtools import rehearse  # noqa: E402

M = rehearse.MARK


class LinuxVars(unittest.TestCase):
    def test_clean_console(self):
        con = "\n".join(["noise", M + " linux up", M + " var A-x 0102ff", M + " var B-x",
                         M + " end", ""])
        self.assertEqual(rehearse.linux_vars(con), {"A-x": b"\x01\x02\xff", "B-x": b""})

    def test_no_end_line_is_none(self):
        self.assertIsNone(rehearse.linux_vars(M + " linux up\n" + M + " var A-x 01\n"))
        self.assertIsNone(rehearse.linux_vars("nothing here\n"))

    def test_cut_line_names_the_variable(self):
        con = "\n".join([M + " linux up", M + " var A-x 0102[   3.1] random: crng init done",
                         M + " var B-x 07", M + " end"])
        files = rehearse.linux_vars(con)
        self.assertEqual(files["B-x"], b"\x07")
        self.assertIsNone(files["A-x"])
        self.assertEqual(rehearse.damaged_vars(files), ["A-x"])

    def test_init_scripts_quiet_the_kernel_console(self):
        for script in (rehearse.INIT, rehearse.STAGE_INIT):
            self.assertIn("/proc/sys/kernel/printk", script)
            self.assertLess(script.index("printk"), script.index("linux up"))


if __name__ == "__main__":
    unittest.main()
