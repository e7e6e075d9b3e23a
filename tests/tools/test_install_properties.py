"""Property test of install and uninstall --root over generated grub.cfg
files: grub-mkconfig's header (or none) with one of many defaults, script
blocks with menu entries, submenus, functions and comments that look like
entries, CRLF or LF lines, a final newline or not, and memboot's markers
put in well-formed, orphaned, doubled, nested or inside another script's
block.

For every file:
  - memboot's markers anything but one pair at the top level (or none):
    install and uninstall are refused (64) and the tree is as it was;
  - install refused for another reason: the tree is as it was;
  - install done: grub-script-check accepts the file, memboot's entry is
    not the default GRUB picks with no one at the console (a model of
    GRUB's `default`: a number counts top-level entries, a name is an id or
    a title, anything GRUB finds no entry for is entry 0), and uninstall
    gives back the tree byte for byte and mode for mode (the file without
    memboot's block, if it had one).

Hypothesis (Debian python3-hypothesis, tools/setup-deps.sh) generates the
files, derandomized: every run tries the same examples, in about a minute.

    python3 -m unittest tests/tools/test_install_properties.py -v
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
from mbtools import install  # noqa: E402
from test_install import FIXTURE_CFG, HAVE_GRUB, fake_kernel, snapshot  # noqa: E402

# Hypothesis as the other property tests set it up (Debian's package, its
# cache in a temporary directory; stand-ins when it is missing).
from test_tool_properties import call_tool, given, hypothesis, settings, st  # noqa: E402
if hypothesis is not None:
    from hypothesis import HealthCheck
    EXAMPLES = dict(max_examples=200, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
else:
    EXAMPLES = {}


with open(FIXTURE_CFG) as _f:
    _FIXTURE = _f.read()
HEADER = _FIXTURE[:_FIXTURE.index("### BEGIN /etc/grub.d/10_linux")]
BEGIN = install.BLOCK_BEGIN
END = install.BLOCK_END


# -- what a file is made of ---------------------------------------------------
#
# A file is a list of parts; each part is (lines, entries): its lines
# without endings and the top-level menu entries it adds, [(title, id)].

def entry_lines(title, ident, braces_in_title=False):
    t = title + ("{x}" if braces_in_title else "")
    return (["menuentry '%s' --class os $menuentry_id_option '%s' {" % (t, ident),
             "\tlinux /vmlinuz root=/dev/sda1",
             "}"], [(t, ident)])


def submenu_lines(title, ident, n):
    lines = ["submenu '%s' $menuentry_id_option '%s' {" % (title, ident)]
    for k in range(n):
        lines += ["\tmenuentry '%s %d' --id %s-%d {" % (title, k, ident, k),
                  "\t\tlinux /vmlinuz", "\t}"]
    return lines + ["}"], [(title, ident)]


NOISE = [
    (["# menuentry 'commented out' {", "# }"], []),
    (["function load_it {", "\tinsmod part_gpt", "}"], []),
    (["if [ -f  ${config_directory}/custom.cfg ]; then", "  true", "fi"], []),
    (["set timeout=5"], []),
    ([""], []),
]


@st.composite
def script_block(draw, name, serial):
    lines, entries = ["### BEGIN /etc/grub.d/%s ###" % name], []
    for k in range(draw(st.sampled_from([1, 2, 0, 3]))):
        kind = draw(st.sampled_from(["entry", "braces", "submenu", "noise", "entry"]))
        ident = "%s-%d-%d" % (name.replace("/", ""), serial, k)
        if kind == "submenu":
            more, found = submenu_lines("Advanced %s" % ident, ident,
                                        draw(st.integers(1, 2)))
        elif kind == "noise":
            more, found = draw(st.sampled_from(NOISE))
        else:
            more, found = entry_lines("OS %s" % ident, ident, kind == "braces")
        lines += more
        entries += found
    return lines + ["### END /etc/grub.d/%s ###" % name], entries


MEMBOOT_PAIR = [BEGIN] + install.menu_entry(["memboot.exit=reboot"]).splitlines() + [END]
MARKERS = ("none", "pair", "none", "pair", "orphan_begin", "orphan_end", "two_pairs",
           "nested", "inside_other", "none")
DEFAULTS = ("0", "1", "${saved_entry}", "2", "3", "9", "gnulinux", "OS 10_linux-0-0",
            "memboot", "1>0", "", "0")


@st.composite
def grub_cfgs(draw):
    """(text, markers, default value or None, [(title, id)] without
    memboot's, text without a well-formed memboot pair, saved_entry)."""
    parts = []
    default = None
    if draw(st.sampled_from([True, True, False])):
        default = draw(st.sampled_from(DEFAULTS))
        parts.append((HEADER.replace('set default="0"', 'set default="%s"' % default)
                      .rstrip("\n").split("\n"), []))
    names = draw(st.lists(st.sampled_from(["10_linux", "20_linux_xen", "30_os-prober",
                                           "40_custom", "41_custom", "50_x", "custom_extra"]),
                          min_size=1, max_size=4))
    for serial, name in enumerate(names):
        parts.append(([""], []))
        parts.append(draw(script_block(name, serial)))
    if draw(st.booleans()):
        parts.append(draw(st.sampled_from(NOISE)))
    markers = draw(st.sampled_from(MARKERS))
    plain = [line for lines, _ in parts for line in lines]
    lines = list(plain)
    # Where the markers go: between parts (top level), or inside a block.
    tops = [0] + [sum(len(p[0]) for p in parts[:k + 1]) for k in range(len(parts))]
    at = draw(st.sampled_from(tops))
    if markers == "pair":
        lines[at:at] = [""] + MEMBOOT_PAIR
    elif markers == "orphan_begin":
        lines.insert(draw(st.integers(0, len(lines))), BEGIN)
    elif markers == "orphan_end":
        lines.insert(draw(st.integers(0, len(lines))), END)
    elif markers == "two_pairs":
        lines[at:at] = MEMBOOT_PAIR + [""] + MEMBOOT_PAIR
    elif markers == "nested":
        lines[at:at] = [BEGIN] + MEMBOOT_PAIR + [END]
    elif markers == "inside_other":
        inside = [k + 1 for k, line in enumerate(lines)
                  if line.startswith("### BEGIN ") and line != BEGIN]
        if not inside:
            markers = "none"
        else:
            k = draw(st.sampled_from(inside))
            lines[k:k] = MEMBOOT_PAIR
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    final = draw(st.booleans()) or not lines
    text = nl.join(lines) + (nl if final and lines else "")
    plain_text = nl.join(plain) + (nl if final and plain else "")
    saved = draw(st.sampled_from([None, "0", "1", "memboot", "gnulinux", None]))
    entries = [e for _, found in parts for e in found]
    return text, markers, default, entries, plain_text, saved


def picked(default, entries, saved):
    """The top-level entry GRUB boots when no one chooses and next_entry
    is empty: the model of GRUB's `default`."""
    if default is None:
        return 0
    if default == "${saved_entry}":
        if not saved:
            return 0
        default = saved
    first = default.split(">")[0]
    if first.isdigit():
        return int(first) if int(first) < len(entries) else 0
    return next((k for k, (title, ident) in enumerate(entries) if first in (title, ident)), 0)


@unittest.skipIf(hypothesis is None, "python3-hypothesis is not installed")
@unittest.skipUnless(HAVE_GRUB, "grub-script-check / grub-editenv (grub-common) missing")
class InstallProperties(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="memboot-install-props-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.elf = fake_kernel(os.path.join(self.tmp, "memboot.elf"))
        self.n = 0

    def tree(self, text, saved):
        self.n += 1
        root = os.path.join(self.tmp, "root%d" % self.n)
        for d in ("boot/grub", "etc/grub.d"):
            os.makedirs(os.path.join(root, d))
        with open(os.path.join(root, "boot", "grub", "grub.cfg"), "w", newline="") as f:
            f.write(text)
        env = os.path.join(root, "boot", "grub", "grubenv")
        subprocess.run(["grub-editenv", env, "create"], check=True)
        if saved:
            subprocess.run(["grub-editenv", env, "set", "saved_entry=" + saved], check=True)
        return root

    @settings(**EXAMPLES)
    @given(grub_cfgs(), st.sampled_from([False, True]))
    def test_install_then_uninstall(self, cfg, once):
        text, markers, default, entries, plain_text, saved = cfg
        root = self.tree(text, saved)
        path = os.path.join(root, "boot", "grub", "grub.cfg")
        before = snapshot(root)
        status, _, err = call_tool(["install", "--root", root, "--elf", self.elf]
                              + (["--once"] if once else []))
        self.assertNotIn("Traceback", err)
        well_formed = markers in ("none", "pair")
        mine = len(entries)         # memboot's entry goes last
        default_ok = picked(default, entries + [("memboot", "memboot")], saved) != mine
        # --once needs grub-mkconfig's header (it loads, uses and clears next_entry).
        expect_ok = well_formed and default_ok and (default is not None or not once)
        if not well_formed:
            self.assertEqual(status, 64, err)
            self.assertIn("memboot's", err)
            self.assertEqual(snapshot(root), before)
            status, _, err = call_tool(["uninstall", "--root", root])
            self.assertEqual(status, 64, err)
            self.assertEqual(snapshot(root), before)
            return
        if not expect_ok:
            self.assertEqual(status, 64, err)
            self.assertIn("never reads grubenv's next_entry" if default_ok
                          else "memboot's entry would be grub.cfg's default", err)
            self.assertEqual(snapshot(root), before)
            return
        self.assertEqual(status, 0, err)
        self.assertEqual(subprocess.run(["grub-script-check", path]).returncode, 0)
        with open(path, newline="") as f:
            new = f.read()
        self.assertEqual(new.count(BEGIN), 1)
        self.assertEqual(install.menu_entries(new)[mine][2], "memboot")
        status, _, err = call_tool(["uninstall", "--root", root])
        self.assertEqual(status, 0, err)
        after = snapshot(root)
        if markers == "pair":
            rel = os.path.join("boot", "grub", "grub.cfg")
            before[rel] = before[rel][:2] + (plain_text.encode(),)
        self.assertEqual(after, before)


if __name__ == "__main__":
    unittest.main()
