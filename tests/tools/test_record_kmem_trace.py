"""tools/record-kmem-trace.sh against a stand-in tracefs (TRACEFS=DIR): the
command's own events and its children's are kept, other processes' dropped
and counted, the ring's overruns reported, and every setting put back as it
was found, also when the command fails.

The stand-in is a directory of the files the script reads and writes; the
command plays the kernel and appends trace lines to DIR/trace as its own
pid, a child's (after a fork event) and another process's.

    python3 -m unittest tests/tools/test_record_kmem_trace.py -v
"""
import lzma
import os
import shutil
import subprocess
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO_ROOT, "tools", "record-kmem-trace.sh")
KMEM = ("mm_page_alloc", "mm_page_free", "mm_page_free_batched")

# The command: its own lines (pid $$), a fork to pid 4242 and that child's
# line, and two lines of pid 77 (another process), as the kernel writes them.
PLAY = r'''
T=$1
printf '%s\n' \
 "  make-$$ [000] ..... 1.000001: mm_page_alloc: page=0x1 pfn=0x1000 order=0 migratetype=0 gfp_flags=GFP_KERNEL" \
 "  make-$$ [000] ..... 1.000002: sched_process_fork: comm=make pid=$$ child_comm=make child_pid=4242" \
 "  cc1-4242 [001] ..... 1.000003: mm_page_alloc: page=0x2 pfn=0x2000 order=1 migratetype=0 gfp_flags=GFP_KERNEL" \
 "  Xorg-77 [001] ..... 1.000004: mm_page_alloc: page=0x3 pfn=0x3000 order=0 migratetype=0 gfp_flags=GFP_KERNEL" \
 "  Xorg-77 [001] ..... 1.000005: mm_page_free: page=0x3 pfn=0x3000 order=0" \
 "  cc1-4242 [001] ..... 1.000006: mm_page_free: page=0x2 pfn=0x2000 order=1" >> "$T/trace"
exit ${2:-0}
'''


def fake_tracefs(d):
    files = {"trace": "# tracer: nop\n", "tracing_on": "1\n",
             "buffer_size_kb": "7 (expanded: 1408)\n",
             "events/sched/sched_process_fork/enable": "0\n",
             "per_cpu/cpu0/stats": "entries: 6\noverrun: 3\n",
             "per_cpu/cpu1/stats": "entries: 0\noverrun: 2\n"}
    for e in KMEM:
        files["events/kmem/%s/enable" % e] = "0\n"
    for rel, text in files.items():
        path = os.path.join(d, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


def read(path):
    with open(path) as f:
        return f.read().strip()


class RecordKmemTrace(unittest.TestCase):

    @unittest.skipUnless(shutil.which("xz"), "no xz")
    def test_filters_counts_and_restores(self):
        for status in (0, 3):
            with tempfile.TemporaryDirectory() as d:
                t = os.path.join(d, "tracing")
                fake_tracefs(t)
                play = os.path.join(d, "play.sh")
                with open(play, "w") as f:
                    f.write(PLAY)
                out = os.path.join(d, "o.trace.xz")
                r = subprocess.run([SCRIPT, out, "--", "sh", play, t, str(status)],
                                   env=dict(os.environ, TRACEFS=t, BUF_KB="64"),
                                   capture_output=True, text=True, timeout=60)
                self.assertEqual(r.returncode, status, r.stderr)
                self.assertIn("kept 3 events of the command's 2 process(es), dropped 2 of "
                              "other processes; 5 lost to a full ring (BUF_KB=64 per CPU); "
                              "command status %d" % status, r.stdout)
                with lzma.open(out, "rt") as f:
                    text = f.read()
                self.assertEqual(text.count("mm_page_"), 3)
                self.assertNotIn("Xorg-77", text)
                self.assertNotIn("sched_process_fork", text)
                # Everything as it was found.
                self.assertEqual(read(os.path.join(t, "tracing_on")), "1")
                self.assertEqual(read(os.path.join(t, "buffer_size_kb")), "1408")
                for e in KMEM:
                    self.assertEqual(read(os.path.join(t, "events/kmem/%s/enable" % e)), "0")
                self.assertEqual(read(os.path.join(t, "events/sched/sched_process_fork/enable")),
                                 "0")
                self.assertEqual(read(os.path.join(t, "trace")), "")

    def test_usage(self):
        for args in ([], ["o.xz", "cmd"], ["/nonexistent/dir/o.xz", "--", "true"]):
            r = subprocess.run([SCRIPT] + args, capture_output=True, text=True, timeout=30)
            self.assertEqual(r.returncode, 64, (args, r.stderr))


if __name__ == "__main__":
    unittest.main()
