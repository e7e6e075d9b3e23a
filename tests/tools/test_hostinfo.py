"""hostinfo.cpu_model(): the CPU named beside every benchmark figure."""
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from mbtools import hostinfo  # noqa: E402


class CpuModel(unittest.TestCase):
    def write(self, text):
        fd, path = tempfile.mkstemp()
        with os.fdopen(fd, "w") as f:
            f.write(text)
        self.addCleanup(os.unlink, path)
        return path

    def test_first_model_name(self):
        path = self.write("processor\t: 0\nvendor_id\t: AuthenticAMD\n"
                          "model name\t: AMD EPYC 9654 96-Core Processor\n\n"
                          "processor\t: 1\nmodel name\t: something else\n")
        self.assertEqual(hostinfo.cpu_model(path), "AMD EPYC 9654 96-Core Processor")

    def test_no_model_line_or_no_file_still_names_something(self):
        for path in (self.write("processor\t: 0\n"), "/nonexistent/cpuinfo"):
            model = hostinfo.cpu_model(path)
            self.assertTrue(model)
            self.assertNotIn("model name", model)


if __name__ == "__main__":
    unittest.main()
