"""hostinfo: the CPU named beside every benchmark figure (cpu_model()) and
what the host's memory does that shows in emulated timings (memory_notes())."""
import os
import shutil
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


class MemoryNotes(unittest.TestCase):
    def sysfs(self, files):
        root = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, root)
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        return root

    BALLOON = "bus/virtio/drivers/virtio_balloon/virtio0/features"

    def test_thp_mode_and_free_page_reporting(self):
        root = self.sysfs({
            "kernel/mm/transparent_hugepage/enabled": "always [madvise] never\n",
            "module/page_reporting/parameters/page_reporting_order": "9\n",
            self.BALLOON: "0110010" + "0" * 57 + "\n",
        })
        notes = hostinfo.memory_notes(root)
        self.assertEqual(notes[0], "transparent huge pages: madvise")
        self.assertEqual(len(notes), 2)
        self.assertIn("returned to the hypervisor", notes[1])
        self.assertIn("blocks of 2^9 pages", notes[1])

    def test_a_balloon_without_reporting_is_not_named(self):
        # Bit 5 clear: the balloon inflates on request but reports nothing.
        root = self.sysfs({
            "kernel/mm/transparent_hugepage/enabled": "[always] madvise never\n",
            self.BALLOON: "0110000" + "0" * 57 + "\n",
        })
        self.assertEqual(hostinfo.memory_notes(root), ["transparent huge pages: always"])

    def test_nothing_known_says_nothing(self):
        self.assertEqual(hostinfo.memory_notes(self.sysfs({})), [])
        # A short or odd features file is not read past its end.
        root = self.sysfs({self.BALLOON: "011\n",
                           "kernel/mm/transparent_hugepage/enabled": "garbage"})
        self.assertEqual(hostinfo.memory_notes(root), [])


if __name__ == "__main__":
    unittest.main()
