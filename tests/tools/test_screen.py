"""tools/mbtools/screen.py reads the screen back with the kernel's own font:
the font source it loads is the one the kernel builds, and a screen drawn
with it reads back as the text drawn.

    python3 -m unittest tests/tools/test_screen.py -v
"""
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from mbtools import screen  # noqa: E402


class Screen(unittest.TestCase):
    def test_font_is_the_kernels(self):
        self.assertTrue(os.path.isfile(screen.FONT_C), screen.FONT_C)
        # The font is the kernel's: a source the kernel build compiles.
        self.assertTrue(screen.FONT_C.startswith(os.path.join(ROOT, "kernel") + os.sep))
        font = screen.load_font()
        self.assertEqual(sorted(set(font.values()))[:3], [" ", "!", '"'])
        self.assertIn("~", font.values())

    def test_drawn_text_reads_back(self):
        lines = ["summary: meminit 12 ms", "MEMBOOT done ok"]
        self.assertEqual(screen.decode(screen.render(lines, 40, 3)), lines + [""])


if __name__ == "__main__":
    unittest.main()
