"""The one rule for reading a user's file (tools/mbtools/inputs.py), and the
tools that read through it: regular files only (a FIFO, a device, a
directory is refused by name and never read, so nothing hangs), at most
inputs.MAX_INPUT_BYTES (64 MiB, the topo tool's cap) read whole, a trace's
text capped after decompression too, permission errors and corrupt
compressed data named; never a traceback.

    python3 -m unittest tests/tools/test_file_rule.py -v

Issue cases: 7 (FIFOs in `efivars DIR`, `lab --trace`, `run --replay`) and
9 (the tracebacks: a link to /dev/zero or a 4 GiB sparse file in efivars, a
corrupt .gz trace and /dev/zero as a trace in lab and run --replay, a trace
with 70,000 CPUs). No QEMU is started: run --replay reads its trace before
anything else, also with --dry-run.
"""
import gzip
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO_ROOT, "tools", "memboot")
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
from mbtools import inputs, efivars  # noqa: E402

CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith("MEMBOOT_")}
CLEAN_ENV["MEMBOOT_HOST_NOTES"] = "off"
CHUNK = "MembootResults00-" + efivars.GUID
EVENT = "cc1-1 [%03d] .....   1.000001: mm_page_alloc: page=1 pfn=0x%x order=0\n"


AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
_nobody_copy = []


def nobody_tool():
    """A tools/memboot that user nobody can run: this one when nobody can
    read it, else one in a world-readable copy of the tree's sources (a
    checkout under a private directory, such as a mktemp -d, is closed to
    nobody; the tool reads kernel headers beside it, so the copy holds the
    tracked sources). Made once per process, removed at exit."""
    if _nobody_copy:
        return _nobody_copy[0]
    probe = subprocess.run(AS_NOBODY + [sys.executable, "-c", "open(%r).close()" % TOOL],
                           capture_output=True)
    if probe.returncode == 0:
        _nobody_copy.append(TOOL)
        return TOOL
    import atexit
    top = tempfile.mkdtemp(prefix="memboot-nobody-")
    os.chmod(top, 0o755)
    atexit.register(shutil.rmtree, top, True)
    shutil.copytree(REPO_ROOT, os.path.join(top, "tree"),
                    ignore=shutil.ignore_patterns(".git", "build"))
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            p = os.path.join(folder, name)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | 0o055 | (0o011 if os.path.isdir(p) else 0))
    _nobody_copy.append(os.path.join(top, "tree", "tools", "memboot"))
    return _nobody_copy[0]


def tool(*argv, timeout=60, user=None):
    """tools/memboot ARGV; @user="nobody" runs it without root's rights
    (setpriv), so that a file mode the test set is obeyed."""
    cmd = [sys.executable, TOOL] + list(argv)
    if user and os.geteuid() == 0:
        cmd = AS_NOBODY + [sys.executable, nobody_tool()] + list(argv)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=CLEAN_ENV)


class Workdir(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="memboot-filerule-")
        os.chmod(self.dir, 0o755)      # setpriv's user must reach the files
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, data):
        with open(self.path(name), "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        return self.path(name)

    def fifo(self, name):
        os.mkfifo(self.path(name))
        return self.path(name)

    def sparse(self, name, size=4 << 30):
        with open(self.path(name), "wb") as f:
            f.truncate(size)
        return self.path(name)

    def refused(self, r, status, *words):
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(r.returncode, status, r.stderr)
        for w in words:
            self.assertIn(w, r.stderr)


class Rule(Workdir):
    """inputs.open_input() / read_input() / open_lines() themselves."""

    def test_cap_is_the_topo_tools(self):
        with open(os.path.join(REPO_ROOT, "tools", "topo", "memboot-topo.c")) as f:
            m = re.search(r"#define TOPO_MAX_FILE_BYTES \((\d+)u << (\d+)\)", f.read())
        self.assertIsNotNone(m)
        self.assertEqual(inputs.MAX_INPUT_BYTES, int(m.group(1)) << int(m.group(2)))

    def test_what_is_not_a_regular_file_is_named(self):
        link = self.path("zero")
        os.symlink("/dev/zero", link)
        for path, kind in ((self.fifo("f"), "a FIFO"), ("/dev/zero", "a character device"),
                           (link, "a character device"), (self.dir, "a directory")):
            with self.assertRaisesRegex(inputs.InputError,
                                        "is not a regular file \\(it is %s\\)" % kind):
                inputs.read_input(path, "x")
            self.assertIn("it is " + kind, inputs.regular_file_problem(path, "x"))

    def test_size_is_capped_before_reading(self):
        with self.assertRaisesRegex(inputs.InputError, "4294967296 bytes, larger than the "
                                                       "64 MiB read at most"):
            inputs.read_input(self.sparse("big"), "x")
        small = self.write("small", b"abc")
        self.assertEqual(inputs.read_input(small, "x", max_bytes=3), b"abc")
        with self.assertRaisesRegex(inputs.InputError, "larger than the 2 bytes"):
            inputs.read_input(small, "x", max_bytes=2)

    def test_links_out_of_a_root_are_not_followed(self):
        root = self.path("root")
        os.makedirs(os.path.join(root, "boot"))
        inside = self.write(os.path.join("root", "boot", "grub.cfg"), b"inside")
        os.symlink("boot/grub.cfg", os.path.join(root, "cfg"))
        os.symlink(self.write("outside.cfg", b"outside"), os.path.join(root, "out"))
        self.assertEqual(inputs.read_input(os.path.join(root, "cfg"), "x", root=root),
                         b"inside")
        self.assertEqual(inputs.inside_root(root, inside), os.path.realpath(inside))
        with self.assertRaisesRegex(inputs.InputError, "root/out leads out of --root .*root "
                                                       "\\(to .*outside.cfg\\)"):
            inputs.read_input(os.path.join(root, "out"), "x", root=root)
        # Without a root the same link is followed, as for any argument.
        self.assertEqual(inputs.read_input(os.path.join(root, "out"), "x"), b"outside")

    def test_lstat_problem_names_what_is_there(self):
        os.symlink("/dev/null", self.path("link"))
        self.assertIsNone(inputs.lstat_problem(self.path("nothing")))
        self.assertIsNone(inputs.lstat_problem(self.write("f", b"x")))
        for path, kind in ((self.fifo("p"), "a FIFO"), (self.path("link"), "a symbolic link"),
                           (self.dir, "a directory")):
            self.assertEqual(inputs.lstat_problem(path),
                             "%s is not a regular file (it is %s)" % (path, kind))

    def test_missing_file(self):
        with self.assertRaisesRegex(inputs.InputError, "cannot read x .*nope: No such file"):
            inputs.read_input(self.path("nope"), "x")

    def test_lines_cut_and_capped(self):
        long = self.write("t", b"a" * 10000 + b"\nshort\n" + b"\0" * 9000)
        with inputs.open_lines(long, "trace") as lines:
            got = list(lines)
        self.assertEqual([(len(t), cut) for t, cut in got],
                         [(inputs.MAX_LINE_BYTES, True), (6, False),
                          (inputs.MAX_LINE_BYTES, True)])
        with self.assertRaisesRegex(inputs.InputError, "more than 1 MiB of text once "
                                                       "decompressed \\(gzip\\)"):
            with inputs.open_lines(self.write("z.gz", gzip.compress(b"x\n" * (1 << 20))),
                                   "trace", max_bytes=1 << 20) as lines:
                list(lines)

    def test_corrupt_gzip_is_named(self):
        good = gzip.compress(EVENT.encode() * 1000)
        for name, data in (("junk.gz", b"not gzip at all"),
                           ("flipped.gz", good[:20] + bytes(b ^ 0x55 for b in good[20:60])
                            + good[60:]),
                           ("cut.gz", good[:len(good) // 2])):
            with self.assertRaisesRegex(inputs.InputError, "trace .*%s: corrupt gzip data"
                                        % name):
                with inputs.open_lines(self.write(name, data), "trace") as lines:
                    list(lines)

    def test_permission_denied_is_named(self):
        secret = self.write("secret.fd", b"x")
        os.chmod(secret, 0)
        r = tool("efivars", secret, user="nobody")
        self.refused(r, 64, "Permission denied")


class Fifos(Workdir):
    """Issue case 7: a FIFO is refused at once, never opened for reading."""

    def test_efivars_dir_with_a_fifo_chunk(self):
        d = self.path("efivars")
        os.mkdir(d)
        os.mkfifo(os.path.join(d, CHUNK))
        self.refused(tool("efivars", d, timeout=20), 65,
                     CHUNK + " is not a regular file (it is a FIFO)")

    def test_efivars_on_a_fifo(self):
        self.refused(tool("efivars", self.fifo("vars.fd"), timeout=20), 64,
                     "is not a regular file (it is a FIFO)")

    def test_lab_trace_fifo(self):
        r = tool("lab", "--workloads", "trace", "--trace", self.fifo("t.trace"), "--no-plot",
                 "--out", self.path("o"), timeout=300)
        self.assertNotIn("Traceback", r.stderr)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("t.trace is not a regular file (it is a FIFO)", r.stderr)

    def test_run_replay_fifo(self):
        self.refused(tool("run", "--replay", self.fifo("t.trace"), "--dry-run", timeout=20),
                     64, "is not a regular file (it is a FIFO)")


class Tracebacks(Workdir):
    """Issue case 9: each of these was a Python traceback."""

    def efivars_with(self, target):
        d = self.path("efivars")
        os.mkdir(d)
        os.symlink(target, os.path.join(d, CHUNK))
        return d

    def test_efivars_link_to_dev_zero(self):
        self.refused(tool("efivars", self.efivars_with("/dev/zero")), 65,
                     "is not a regular file (it is a character device)")

    def test_efivars_sparse_4_gib(self):
        self.refused(tool("efivars", self.sparse("vars.fd")), 65,
                     "4294967296 bytes, larger than the 64 MiB read at most")
        self.refused(tool("efivars", self.efivars_with(self.sparse("chunk"))), 65,
                     "4294967296 bytes, larger than the 64 MiB read at most")

    def test_corrupt_gz_trace(self):
        trace = self.write("t.trace.gz", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
                           + bytes(range(256)) * 8)
        self.refused(tool("run", "--replay", trace, "--dry-run"), 64,
                     "t.trace.gz: corrupt gzip data")
        r = tool("lab", "--workloads", "trace", "--trace", trace, "--no-plot",
                 "--out", self.path("o"), timeout=300)
        self.assertNotIn("Traceback", r.stderr)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("t.trace.gz: corrupt gzip data", r.stderr)

    def test_dev_zero_and_sparse_as_trace(self):
        for trace, words in (("/dev/zero", "is not a regular file (it is a character device)"),
                             (self.sparse("t.trace"), "larger than the 512 MiB read at most")):
            self.refused(tool("run", "--replay", trace, "--dry-run"), 64, words)
            r = tool("lab", "--workloads", "trace", "--trace", trace, "--no-plot",
                     "--out", self.path("o"), timeout=300)
            self.assertNotIn("Traceback", r.stderr)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn(words, r.stderr)

    def test_70000_cpus(self):
        trace = self.write("t.trace", "".join(EVENT % (c, c + 1) for c in range(70000)))
        self.refused(tool("run", "--replay", trace, "--dry-run"), 64,
                     "has events of 70000 CPUs", "at most 65535")
        r = tool("lab", "--workloads", "trace", "--trace", trace, "--no-plot",
                 "--out", self.path("o"), timeout=300)
        self.assertNotIn("Traceback", r.stderr)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("has events of 70000 CPUs", r.stderr)
        self.assertIn("at most 256", r.stderr)


if __name__ == "__main__":
    unittest.main()
