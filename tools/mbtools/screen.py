"""Reading memboot's screen back from a picture of it: QEMU's monitor
`screendump` writes a PPM (P6) of the display, and the framebuffer console
draws the built-in 8x16 font (kernel/services/console/font8x16.c) on a grid from the
top left corner. Each 8x16 cell is matched against the font's glyphs, so a
test can assert on the text a person would see.
"""

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FONT_C = os.path.join(ROOT, "kernel", "services", "console", "font8x16.c")
CELL_W, CELL_H = 8, 16


def load_font(path=FONT_C):
    """{16-byte glyph rows: character} from the kernel's font source."""
    glyphs = {}
    with open(path, encoding="ascii") as f:
        text = f.read()
    rows = re.findall(r"\{((?:\s*0x[0-9a-f]{2},?){16})\s*\}", text)
    if len(rows) != 0x7E - 0x20 + 1:
        raise ValueError("%s: %d glyphs, expected 95" % (path, len(rows)))
    for i, row in enumerate(rows):
        key = bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", row))
        glyphs.setdefault(key, chr(0x20 + i))
    return glyphs


def read_ppm(data):
    """(width, height, rgb bytes) of a binary PPM with maxval 255."""
    m = re.match(rb"P6\s+(?:#[^\n]*\n\s*)*(\d+)\s+(\d+)\s+(\d+)\s", data)
    if not m:
        raise ValueError("not a binary PPM (P6)")
    width, height, maxval = (int(g) for g in m.groups())
    if maxval != 255:
        raise ValueError("PPM maxval %d, expected 255" % maxval)
    pixels = data[m.end():m.end() + width * height * 3]
    if len(pixels) != width * height * 3:
        raise ValueError("PPM shorter than %dx%d pixels" % (width, height))
    return width, height, pixels


def decode(data, font=None):
    """The screen's text, one string per character row (trailing blanks
    removed). A cell that matches no glyph reads as '\\ufffd'."""
    font = font or load_font()
    width, height, px = read_ppm(data)
    stride = width * 3
    lines = []
    for row in range(height // CELL_H):
        chars = []
        for col in range(width // CELL_W):
            cell = bytearray(CELL_H)
            for y in range(CELL_H):
                at = (row * CELL_H + y) * stride + col * CELL_W * 3
                bits = 0
                for x in range(CELL_W):
                    p = at + x * 3
                    # The background is black; any lit pixel is ink.
                    if px[p] | px[p + 1] | px[p + 2]:
                        bits |= 0x80 >> x
                cell[y] = bits
            chars.append(font.get(bytes(cell), "\ufffd"))
        lines.append("".join(chars).rstrip())
    return lines


def render(lines, cols, rows, font=None):
    """A PPM of @lines drawn as the kernel draws them (for tests of decode)."""
    font = font or load_font()
    by_char = {c: g for g, c in font.items()}
    width, height = cols * CELL_W, rows * CELL_H
    px = bytearray(width * height * 3)
    for r, line in enumerate(lines[:rows]):
        for c, ch in enumerate(line[:cols]):
            glyph = by_char.get(ch, by_char["?"])
            for y in range(CELL_H):
                for x in range(CELL_W):
                    if glyph[y] & (0x80 >> x):
                        p = ((r * CELL_H + y) * width + c * CELL_W + x) * 3
                        px[p:p + 3] = b"\xaa\xaa\xaa"
    return b"P6\n%d %d\n255\n" % (width, height) + bytes(px)
