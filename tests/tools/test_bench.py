"""Tests for tools/mbtools bench, seeds, linux (compare-linux) and plots.

Run from the repository root:
    python3 -m unittest tests/tools/test_bench.py -v

No QEMU, no kernel and no network: the boots are replaced by records and
the Linux parsing reads a console log captured from Debian's 6.1 cloud
kernel (tests/tools/fixtures/linux-6.1-2x2x2G.log, trimmed to the lines the
parser reads plus neighbours it must skip).
"""

import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))

from mbtools import bench, benchplot as plots, inputs, linux, seeds  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return f.read()


def node_init(node, ns, pages=1000, threads=2):
    return {"event": "node_init", "node": node, "ns": ns, "pages": pages,
            "threads": threads, "policy": "deferred"}


def run(config, status=0, records=(), unknown=()):
    return {"config": config, "status": status, "records": list(records),
            "unknown": list(unknown), "wall_s": 1.0, "stderr": ""}


class MatrixTest(unittest.TestCase):
    def test_expand_is_the_product_in_order(self):
        configs = bench.expand([("topo", ["2x2x1G", "4x1x512M"]), ("init", ["serial", "lazy"]),
                                ("threads", ["1", "node", "all"])])
        self.assertEqual(len(configs), 12)
        self.assertEqual(configs[0], {"topo": "2x2x1G", "init": "serial", "threads": "1"})
        self.assertEqual(configs[-1], {"topo": "4x1x512M", "init": "lazy", "threads": "all"})

    def test_any_key_is_an_axis_and_dash_leaves_it_out(self):
        name, vals = bench.parse_axis("memboot.future_key=a,b")
        self.assertEqual((name, vals), ("memboot.future_key", ["a", "b"]))
        words = bench.cmdline_words({"topo": "2x2x1G", "desc": "32", "init": "lazy",
                                     "pcp": "off", "alloc": "-", "memboot.future_key": "a"})
        self.assertEqual(words, ["memboot.init=lazy", "memboot.pcp=off",
                                 "memboot.future_key=a"])

    def test_bad_axes_are_named(self):
        for text, word in (("topo=2x2", "2x2"), ("desc=48", "48"), ("init", "init"),
                           ("init=", "init=")):
            with self.assertRaises(bench.BenchError) as cm:
                bench.parse_axis(text)
            self.assertIn(word, str(cm.exception))

    def test_boot_argv_uses_the_topology_and_the_descriptor_build(self):
        argv = bench.boot_argv({"topo": "4x1x512M", "desc": "64", "threads": "1"},
                               bench.elf_for("64", "/b"))
        self.assertIn("/b/debug-desc64/memboot.elf", argv)
        i = argv.index("--nodes")
        self.assertEqual(argv[i:i + 6], ["--nodes", "4", "--cpus-per-node", "1",
                                         "--mem-per-node", "512M"])
        self.assertEqual(argv[-1], "--append=memboot.init_threads=1")
        self.assertEqual(bench.elf_for("16", "/b"), "/b/debug/memboot.elf")

    def test_arm64_boots_its_image(self):
        # arm64 boots the flat Image beside its ELF (arch.mk's
        # arm64_RUN_BOOT), never PVH, which is x86_64's.
        argv = bench.boot_argv({"topo": "2x1x1G"}, bench.elf_for("16", "/b", "arm64"),
                               arch="arm64")
        self.assertEqual(argv[argv.index("--boot") + 1], "image")
        self.assertEqual(argv[argv.index("--image") + 1], "/b/arm64/debug/Image")
        self.assertNotIn("--elf", argv)
        argv = bench.boot_argv({"topo": "2x1x1G"}, bench.elf_for("16", "/b"))
        self.assertEqual(argv[argv.index("--boot") + 1], "pvh")

    def test_ppc64le_boots_its_elf_under_vof(self):
        # pseries loads the ELF itself (arch.mk's ppc64le_IMAGE) and enters
        # it through VOF: never PVH, which would refuse a POWER kernel.
        argv = bench.boot_argv({"topo": "2x4x1G"}, bench.elf_for("16", "/b", "ppc64le"),
                               arch="ppc64le")
        self.assertEqual(argv[argv.index("--boot") + 1], "vof")
        self.assertEqual(argv[argv.index("--image") + 1], "/b/ppc64le/debug/memboot.elf")
        self.assertEqual(argv[argv.index("--arch") + 1], "ppc64le")
        self.assertNotIn("--elf", argv)

    def test_plan_replaces_and_adds_axes(self):
        args = mock.Mock(mode="quick", axis=["init=lazy", "pcp=on,off"], boots=None)
        axes, boots = bench.plan(args)
        self.assertEqual(dict(axes)["init"], ["lazy"])
        self.assertEqual(dict(axes)["pcp"], ["on", "off"])
        self.assertEqual(boots, bench.QUICK["boots"])
        # The quick matrix stays near two minutes at about 1-2 s a boot.
        self.assertLessEqual(len(bench.expand(bench.QUICK["axes"])) * bench.QUICK["boots"], 90)


class RecordsTest(unittest.TestCase):
    def test_console_records_and_unknown_keys(self):
        records, unknown = bench.parse_console(fixture("memboot-2x2x1G-unknown-keys.log"))
        self.assertEqual(unknown, ["memboot.pcp", "memboot.alloc"])
        inits = [r for r in records if r["event"] == "node_init"]
        self.assertEqual([(r["node"], r["pages"]) for r in inits], [(0, 227312), (1, 261067)])
        self.assertEqual(records[-1]["event"], "done")
        self.assertEqual(records[-1]["warnings"], 2)

    def test_unknown_key_from_a_warning_record_alone(self):
        text = ('MEMBOOT {"event":"warning","msg":"cmdline: unknown parameter '
                '\'memboot.alloc\' ignored"}\n')
        records, unknown = bench.parse_console(text)
        self.assertEqual(unknown, ["memboot.alloc"])
        self.assertEqual(records[0]["event"], "warning")

    def test_broken_record_lines_are_skipped(self):
        records, unknown = bench.parse_console('MEMBOOT {"event":"x"\nMEMBOOT {"event":"y"}\n')
        self.assertEqual(records, [{"event": "y"}])
        self.assertEqual(unknown, [])


class SummaryTest(unittest.TestCase):
    def test_medians_spread_and_failed_boots(self):
        c = {"topo": "2x2x1G", "init": "deferred"}
        runs = [run(c, records=[node_init(0, 1e6), node_init(1, 4e6)]),
                run(c, records=[node_init(0, 3e6), node_init(1, 2e6)]),
                run(c, records=[node_init(0, 2e6), node_init(1, 9e6)]),
                run(c, status=124, records=[node_init(0, 99e6)])]
        rows = bench.summarize(runs)
        self.assertEqual([r["node"] for r in rows], [0, 1])
        self.assertEqual(rows[0]["ms_median"], 2.0)
        self.assertEqual((rows[0]["ms_min"], rows[0]["ms_max"]), (1.0, 3.0))
        self.assertEqual(rows[1]["ms_median"], 4.0)
        self.assertEqual(rows[0]["ns_per_page_median"], 2000.0)
        self.assertEqual((rows[0]["ok_boots"], rows[0]["boots"]), (3, 4))

    def test_unknown_key_marked_in_the_table(self):
        c = {"topo": "2x2x1G", "pcp": "off"}
        rows = bench.summarize([run(c, records=[node_init(0, 1e6)], unknown=["memboot.pcp"])])
        table = bench.markdown_table(rows, ["topo", "pcp"])
        self.assertIn("off (unknown to kernel)", table)
        self.assertIn("| 0 | 2 | 1000 | 1.00 | 1.00-1.00 | 1000.00 | 1/1 |", table)

    def test_csv_has_a_row_per_node(self):
        c = {"topo": "2x2x1G"}
        rows = bench.summarize([run(c, records=[node_init(0, 1e6), node_init(1, 2e6)])])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "b.csv")
            bench.write_csv(path, rows, ["topo"])
            with open(path) as f:
                lines = f.read().splitlines()
        self.assertEqual(len(lines), 3)
        self.assertTrue(lines[0].startswith("topo,node,threads,pages,ms_median"))
        self.assertTrue(lines[2].startswith("2x2x1G,1,2,1000,2.0"))


class ProgressTest(unittest.TestCase):
    def test_estimate_from_the_mean_boot(self):
        now = [100.0]
        out = io.StringIO()
        p = bench.Progress(10, stream=out, clock=lambda: now[0])
        self.assertIsNone(p.estimate_left_s())
        now[0] = 104.0
        p.step("a")
        now[0] = 108.0
        p.step("b")
        self.assertAlmostEqual(p.estimate_left_s(), 32.0)
        self.assertIn("[2/10] b, 8s elapsed, about 32s left", out.getvalue())
        self.assertEqual(bench.fmt_s(125), "2m05s")


class MainTest(unittest.TestCase):
    def test_quick_prints_a_table_and_writes_json_outside_the_checkout(self):
        def fake_boot(config, elf, extra_words=(), timeout=120, arch=None):
            return run(config, records=[node_init(0, 2e6), node_init(1, 3e6)])
        with tempfile.TemporaryDirectory() as d, \
                mock.patch.object(bench, "boot_once", side_effect=fake_boot), \
                mock.patch.object(bench, "ensure_kernel", return_value="/k.elf"), \
                mock.patch("sys.stdout", new_callable=io.StringIO) as out, \
                mock.patch("sys.stderr", new_callable=io.StringIO):
            args = mock.Mock(seed=None, mode="quick", axis=["topo=2x2x1G", "init=lazy",
                                                            "threads=1"],
                             boots=2, csv=None, json=os.path.join(d, "b.json"), dry_run=False)
            self.assertEqual(bench.main(args), 0)
            with open(args.json) as f:
                data = json.load(f)
        self.assertEqual(len(data["runs"]), 2)
        self.assertEqual(len(data["rows"]), 2)
        self.assertIn("| 2x2x1G | lazy | 1 | 1 | 2 | 1000 | 3.00 |", out.getvalue())


def fake_tools(d, tools):
    """@d/bin with a shell script per (name, body) of @tools: the PATH
    entry that stands for apt's tools in the fetch tests."""
    fake = os.path.join(d, "bin")
    os.mkdir(fake)
    for tool, body in tools:
        path = os.path.join(fake, tool)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n%s\n" % body)
        os.chmod(path, 0o755)
    return fake


class LinuxLogTest(unittest.TestCase):
    def setUp(self):
        self.facts = linux.parse_linux_log(fixture("linux-6.1-2x2x2G.log"))

    def test_topology(self):
        f = self.facts
        self.assertEqual(f["version"], "6.1.0-57-cloud-amd64")
        self.assertEqual(f["cpus"], {0: [0, 1], 1: [2, 3]})
        # node 0: [0x1000, 0x9f000) + [0x100000, 0x7ffdf000); node 1: 2 GiB.
        self.assertEqual(f["mem_bytes"][0], 0x9e000 + 0x7fedf000)
        self.assertEqual(f["mem_bytes"][1], 2 << 30)
        self.assertFalse(f["slit"])

    def test_deferred_init_from_trace_and_jiffies(self):
        f = self.facts
        self.assertEqual(f["deferred_jiffies_ms"], {0: 60, 1: 36})
        # pgdatinit0 is pid 36: fork 3906663 us, exit 4107012 us.
        self.assertAlmostEqual(f["deferred_trace_ms"][0], 200.349)
        self.assertAlmostEqual(f["deferred_trace_ms"][1], 155.457)
        # Under TCG the jiffies figure reads low.
        self.assertGreater(f["deferred_trace_ms"][0], f["deferred_jiffies_ms"][0])
        # Usable memory: the later of the two exits (pgdatinit0 at 4107012 us).
        self.assertAlmostEqual(f["usable_trace_ms"], 4107.012)

    def test_hugetlb_and_zeroing(self):
        f = self.facts
        self.assertAlmostEqual(f["hugetlb_init_ms"], 11512.06)
        self.assertEqual(f["hugetlb"][0], {"size_bytes": 2 << 20, "allocated": 512})
        self.assertTrue(f["init_on_alloc"])
        self.assertTrue(f["panicked"] and f["trace_dumped"])

    def test_log_without_trace_gives_no_trace_times(self):
        text = "\n".join(l for l in fixture("linux-6.1-2x2x2G.log").splitlines()
                         if "us : " not in l)
        f = linux.parse_linux_log(text)
        self.assertEqual(f["deferred_trace_ms"], {})
        self.assertIsNone(f["hugetlb_init_ms"])

    def test_side_by_side_report(self):
        records, _ = bench.parse_console(fixture("memboot-2x2x1G-unknown-keys.log"))
        m = linux.memboot_facts(records)
        self.assertEqual(m["cpus"], {0: [0, 1], 1: [2, 3]})
        self.assertAlmostEqual(m["hugetlb_phase_ms"], 7.900732)
        text = linux.report([self.facts], [m], "hugepagesz=2M hugepages=0:4,1:4",
                            "2 nodes x 2 CPUs x 1G", {"CONFIG_HZ": "250"})
        self.assertIn("| 0 | 200.3 | 60.0 | 0.4 | 491x |", text)
        m["usable_ms"] = 20.0
        text = linux.report([self.facts], [m], "hugepagesz=2M hugepages=0:4,1:4",
                            "2 nodes x 2 CPUs x 1G", {"CONFIG_HZ": "250"})
        self.assertIn("| kernel entry to every node's memory in the allocator, ms | "
                      "4107.0 | 20.0 | 205x |", text)
        self.assertIn("yes: init_on_alloc on", text)
        self.assertIn("trace_clock=local", text)
        # 1 GiB nodes against the 2 GiB Linux log: memory disagrees.
        self.assertIn("| NO |", text)

    def test_offline_fetch_is_a_clear_error(self):
        with tempfile.TemporaryDirectory() as d:
            fake = fake_tools(d, (
                ("apt-cache", "echo 'linux-image-cloud-amd64\n"
                              "  Depends: linux-image-6.1.0-99-cloud-amd64'"),
                ("apt-get", "echo 'E: Failed to fetch: Temporary failure "
                            "resolving deb.debian.org'; exit 100"),
                ("dpkg-deb", "exit 1")))
            with mock.patch.dict(os.environ, {"PATH": fake + os.pathsep + os.environ["PATH"]}):
                with self.assertRaises(linux.LinuxError) as cm:
                    linux.fetch_kernel(os.path.join(d, "cache"), log=io.StringIO())
        msg = str(cm.exception)
        self.assertIn("linux-image-6.1.0-99-cloud-amd64", msg)
        self.assertIn("offline", msg)
        self.assertIn("Temporary failure resolving", msg)


class Arm64LinuxLogTest(unittest.TestCase):
    """compare-linux --arch arm64: Debian's cloud-arm64 6.1 booted with QEMU
    -kernel and the device tree (tests/tools/fixtures/linux-6.1-arm64-2x2x1G.log,
    trimmed to the lines the parser reads)."""

    def setUp(self):
        self.facts = linux.parse_linux_log(fixture("linux-6.1-arm64-2x2x1G.log"))
        # memboot's arm64 records on the same shape: the DTB's 1 MiB is
        # reserved out of node 0.
        self.memboot = linux.memboot_facts([
            {"event": "node", "node": 0, "cpus": [0, 1], "mem_bytes": 1072693248,
             "distance": [10, 20]},
            {"event": "node", "node": 1, "cpus": [2, 3], "mem_bytes": 1 << 30,
             "distance": [20, 10]},
            {"event": "numa", "slit": False},
            {"event": "node_init", "node": 0, "ns": 800000},
            {"event": "node_init", "node": 1, "ns": 2000000},
            {"event": "done", "usable_ns": 200000000}])

    def test_device_tree_boot_facts(self):
        f = self.facts
        self.assertEqual(f["version"], "6.1.0-57-cloud-arm64")
        # No SRAT lines on a device-tree boot: the CPUs come from "smp: Brought up".
        self.assertEqual(f["cpus"], {})
        self.assertEqual((f["nodes_up"], f["cpus_up"]), (2, 4))
        self.assertEqual(f["mem_bytes"], {0: 1 << 30, 1: 1 << 30})
        self.assertEqual(f["deferred_jiffies_ms"], {0: 68, 1: 40})
        # pgdatinit0 is pid 35: fork 934961 us, exit 1098098 us.
        self.assertAlmostEqual(f["deferred_trace_ms"][0], 163.137)
        self.assertAlmostEqual(f["deferred_trace_ms"][1], 122.665)
        self.assertAlmostEqual(f["usable_trace_ms"], 1098.098)
        self.assertAlmostEqual(f["hugetlb_init_ms"], 5170.992)
        # arm64 registers 64 KiB contiguous-PTE pages too.
        self.assertIn({"size_bytes": 64 << 10, "allocated": 0}, f["hugetlb"])
        self.assertTrue(f["panicked"] and f["trace_dumped"] and f["init_on_alloc"])

    def test_report_compares_cpu_totals(self):
        text = linux.report([self.facts], [self.memboot], "hugepagesz=2M hugepages=0:4,1:4",
                            "2 nodes x 2 CPUs x 1G", {"CONFIG_HZ": "250"}, "arm64")
        self.assertIn("| 0 | 4 CPUs in 2 nodes (all) | 0,1 | 1024 MiB | 1023 MiB |", text)
        self.assertNotIn("| NO |", text)
        self.assertIn("QEMU -kernel with the device tree", text)
        self.assertIn("| 0 | 163.1 | 68.0 | 0.8 | 204x |", text)
        self.assertIn("trace, generic timer", text)
        self.assertNotIn("TSC", text)
        self.assertIn("| zeroing | yes: init_on_alloc on | - |", text)
        # A CPU memboot does not have: the totals disagree.
        self.memboot["cpus"][1] = [2]
        text = linux.report([self.facts], [self.memboot], "hugepagesz=2M hugepages=0:4,1:4",
                            "2 nodes x 2 CPUs x 1G", {"CONFIG_HZ": "250"}, "arm64")
        self.assertIn("| NO |", text)

    def test_fetch_asks_for_the_arm64_package(self):
        with tempfile.TemporaryDirectory() as d:
            cache = os.path.join(d, "cache")
            # x86's kernel in the same cache is not taken for arm64's.
            os.makedirs(os.path.join(cache, "root", "boot"))
            open(os.path.join(cache, "root", "boot", "vmlinuz-6.1.0-57-cloud-amd64"),
                 "w").close()
            self.assertIsNone(linux.find_vmlinuz(cache, "arm64"))
            said = os.path.join(d, "said")
            fake = fake_tools(d, (
                ("apt-cache", "echo \"$*\" >> %s; echo 'linux-image-cloud-arm64:arm64\n"
                              "  Depends: linux-image-6.1.0-99-cloud-arm64:arm64'" % said),
                ("apt-get", "echo \"$*\" >> %s; echo 'E: no'; exit 100" % said),
                ("dpkg-deb", "exit 1")))
            with mock.patch.dict(os.environ, {"PATH": fake + os.pathsep + os.environ["PATH"]}):
                with self.assertRaises(linux.LinuxError) as cm:
                    linux.fetch_kernel(cache, log=io.StringIO(), arch="arm64")
            with open(said) as f:
                self.assertEqual(f.read().splitlines(),
                                 ["depends linux-image-cloud-arm64:arm64",
                                  "download linux-image-6.1.0-99-cloud-arm64:arm64"])
        self.assertIn("linux-image-6.1.0-99-cloud-arm64", str(cm.exception))

    def test_unknown_foreign_package_names_dpkg_add_architecture(self):
        with tempfile.TemporaryDirectory() as d:
            # dpkg faked too: adding an architecture is never asked of the host.
            fake = fake_tools(d, (("apt-cache", "echo 'E: No packages found'; exit 100"),
                                  ("apt-get", "exit 100"), ("dpkg-deb", "exit 1"),
                                  ("dpkg", "exit 0")))
            with mock.patch.dict(os.environ, {"PATH": fake + os.pathsep + os.environ["PATH"]}):
                with self.assertRaises(linux.LinuxError) as cm:
                    linux.fetch_kernel(os.path.join(d, "cache"), log=io.StringIO(),
                                       arch="arm64")
        self.assertIn("dpkg --add-architecture arm64", str(cm.exception))


class Ppc64leLinuxLogTest(unittest.TestCase):
    """compare-linux --arch ppc64le: Debian's powerpc64le 6.1 vmlinux on QEMU
    pseries under VOF (tests/tools/fixtures/linux-6.1-ppc64le-2x2x1G.log,
    trimmed to the lines the parser reads)."""

    def setUp(self):
        self.facts = linux.parse_linux_log(fixture("linux-6.1-ppc64le-2x2x1G.log"))
        # memboot's records on the same shape: the 4 MiB below the kernel
        # (vectors, VOF) and the flattened tree are kept out of node 0.
        self.memboot = linux.memboot_facts([
            {"event": "node", "node": 0, "cpus": [0, 1], "mem_bytes": 1069527040,
             "distance": [10, 20]},
            {"event": "node", "node": 1, "cpus": [2, 3], "mem_bytes": 1 << 30,
             "distance": [20, 10]},
            {"event": "numa", "slit": False},
            {"event": "node_init", "node": 0, "ns": 2300000},
            {"event": "node_init", "node": 1, "ns": 40000000},
            {"event": "done", "usable_ns": 193800000}])

    def test_pseries_boot_facts(self):
        f = self.facts
        self.assertEqual(f["version"], "6.1.0-57-powerpc64le")
        self.assertEqual(f["cpus"], {})
        self.assertEqual((f["nodes_up"], f["cpus_up"]), (2, 4))
        self.assertEqual(f["mem_bytes"], {0: 1 << 30, 1: 1 << 30})
        self.assertEqual(f["deferred_jiffies_ms"], {0: 4, 1: 12})
        # pgdatinit0 is pid 35: fork 341727 us, exit 364563 us (timebase).
        self.assertAlmostEqual(f["deferred_trace_ms"][0], 22.836)
        self.assertAlmostEqual(f["deferred_trace_ms"][1], 22.921)
        self.assertAlmostEqual(f["usable_trace_ms"], 370.916)
        self.assertAlmostEqual(f["hugetlb_init_ms"], 2160.91)
        self.assertIn({"size_bytes": 2 << 20, "allocated": 512}, f["hugetlb"])
        self.assertFalse(f["hugetlb_nodes_ignored"])
        self.assertTrue(f["panicked"] and f["trace_dumped"] and f["init_on_alloc"])

    def test_report_agrees_within_what_pseries_keeps_back(self):
        text = linux.report([self.facts], [self.memboot], "hugepagesz=2M hugepages=512",
                            "2 nodes x 2 CPUs x 1G", {"CONFIG_HZ": "250"}, "ppc64le")
        self.assertIn("| 0 | 4 CPUs in 2 nodes (all) | 0,1 | 1024 MiB | 1020 MiB |", text)
        self.assertNotIn("| NO |", text)
        self.assertIn("within 5 MiB of Linux's", text)
        self.assertIn("QEMU pseries -kernel under VOF", text)
        self.assertIn("trace, timebase", text)
        self.assertNotIn("TSC", text)
        # Linux faster than memboot reads as a fraction, never "0x".
        self.assertIn("| 0 | 22.8 | 4.0 | 2.3 | 9.9x |", text)
        self.assertIn("| 1 | 22.9 | 12.0 | 40.0 | 0.57x |", text)
        # Node 0 missing more than the firmware's 4 MiB: named.
        self.memboot["mem_bytes"][0] -= 8 << 20
        text = linux.report([self.facts], [self.memboot], "hugepagesz=2M hugepages=512",
                            "2 nodes x 2 CPUs x 1G", {"CONFIG_HZ": "250"}, "ppc64le")
        self.assertIn("| NO |", text)

    def test_ignored_node_counts_are_named(self):
        text = fixture("linux-6.1-ppc64le-2x2x1G.log") + (
            "[    0.000000] HugeTLB: architecture can't support node specific alloc, "
            "ignoring!\n")
        f = linux.parse_linux_log(text)
        self.assertTrue(f["hugetlb_nodes_ignored"])
        text = linux.report([f], [self.memboot], "hugepagesz=2M hugepages=0:8,1:8",
                            "2 nodes x 2 CPUs x 1G", {"CONFIG_HZ": "250"}, "ppc64le")
        self.assertIn("Linux ignored the per-node counts", text)
        # ppc64le's default asks for a count Linux takes.
        self.assertNotIn(":", linux.ARCHES["ppc64le"]["huge"])

    def test_the_vmlinux_is_picked_by_architecture_and_version(self):
        with tempfile.TemporaryDirectory() as cache:
            boot = os.path.join(cache, "root", "boot")
            os.makedirs(boot)
            for name in ("vmlinuz-6.1.0-57-cloud-amd64", "vmlinuz-6.1.0-57-cloud-arm64",
                         "vmlinux-6.1.0-9-powerpc64le", "vmlinux-6.1.0-57-powerpc64le",
                         "vmlinux-6.1.0-57-powerpc64le-64k", "vmlinux-6.1.0-60-rt-ppc64el"):
                open(os.path.join(boot, name), "w").close()
            # 57 after 9 (the glob's order would take 9), never the 64k flavour.
            self.assertEqual(os.path.basename(linux.find_vmlinuz(cache, "ppc64le")),
                             "vmlinux-6.1.0-57-powerpc64le")
            self.assertEqual(os.path.basename(linux.find_vmlinuz(cache, "arm64")),
                             "vmlinuz-6.1.0-57-cloud-arm64")
            open(os.path.join(boot, "vmlinuz-6.1.0-100-cloud-arm64"), "w").close()
            self.assertEqual(os.path.basename(linux.find_vmlinuz(cache, "arm64")),
                             "vmlinuz-6.1.0-100-cloud-arm64")

    def test_fetch_adds_the_foreign_architecture_then_downloads(self):
        with tempfile.TemporaryDirectory() as d:
            cache = os.path.join(d, "cache")
            said = os.path.join(d, "said")
            known = os.path.join(d, "known")
            fake = fake_tools(d, (
                # apt knows the package only once ppc64el is added and updated.
                ("apt-cache", "echo \"apt-cache $*\" >> {s}; [ -e {k} ] || exit 100; "
                              "echo 'linux-image-powerpc64le:ppc64el\n"
                              "  Depends: linux-image-6.1.0-99-powerpc64le:ppc64el'"
                              .format(s=said, k=known)),
                ("dpkg", "echo \"dpkg $*\" >> {s}; case $1 in --print-architecture) "
                         "echo amd64;; --print-foreign-architectures) echo arm64;; esac"
                         .format(s=said)),
                ("apt-get", "echo \"apt-get $*\" >> {s}; [ $1 = update ] && touch {k}; "
                            "[ $1 = update ]".format(s=said, k=known)),
                ("dpkg-deb", "exit 1")))
            with mock.patch.dict(os.environ, {"PATH": fake + os.pathsep + os.environ["PATH"]}), \
                    mock.patch.object(os, "geteuid", return_value=0):
                with self.assertRaises(linux.LinuxError) as cm:
                    linux.fetch_kernel(cache, log=io.StringIO(), arch="ppc64le")
            with open(said) as f:
                self.assertEqual(f.read().splitlines(), [
                    "apt-cache depends linux-image-powerpc64le:ppc64el",
                    "dpkg --print-architecture", "dpkg --print-foreign-architectures",
                    "dpkg --add-architecture ppc64el", "apt-get update -qq",
                    "apt-cache depends linux-image-powerpc64le:ppc64el",
                    "apt-get download linux-image-6.1.0-99-powerpc64le:ppc64el"])
        self.assertIn("could not download linux-image-6.1.0-99-powerpc64le", str(cm.exception))

    def test_fetch_without_root_names_the_step(self):
        with tempfile.TemporaryDirectory() as d:
            said = os.path.join(d, "said")
            fake = fake_tools(d, (("apt-cache", "exit 100"),
                                  ("dpkg", "echo \"$*\" >> %s" % said),
                                  ("apt-get", "exit 100"), ("dpkg-deb", "exit 1")))
            with mock.patch.dict(os.environ, {"PATH": fake + os.pathsep + os.environ["PATH"]}), \
                    mock.patch.object(os, "geteuid", return_value=1000):
                with self.assertRaises(linux.LinuxError) as cm:
                    linux.fetch_kernel(os.path.join(d, "cache"), log=io.StringIO(),
                                       arch="ppc64le")
            self.assertFalse(os.path.exists(said))       # dpkg never asked to change
        self.assertIn("dpkg --add-architecture ppc64el; apt-get update", str(cm.exception))

    def test_fetch_without_dpkg_is_a_clear_error(self):
        # apt's tools there, dpkg not on PATH: named, never a traceback.
        with tempfile.TemporaryDirectory() as d:
            fake = fake_tools(d, (("apt-cache", "exit 100"), ("apt-get", "exit 100"),
                                  ("dpkg-deb", "exit 1")))
            with mock.patch.dict(os.environ, {"PATH": fake}), \
                    mock.patch.object(os, "geteuid", return_value=0):
                with self.assertRaises(linux.LinuxError) as cm:
                    linux.fetch_kernel(os.path.join(d, "cache"), log=io.StringIO(),
                                       arch="ppc64le")
        self.assertIn("apt-cache knows no linux-image-powerpc64le:ppc64el", str(cm.exception))

    def test_kernel_check_per_architecture(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "vmlinux")
            with open(path, "wb") as f:
                f.write(b"\x7fELF\x02\x01\x01" + b"\0" * 11 + b"\x15\x00" + b"\0" * 64)
            self.assertIsNone(linux.KERNEL_PROBLEM["vof"](path))
            self.assertIn("not an arm64 Image", linux.KERNEL_PROBLEM["image"](path))
            with open(path, "r+b") as f:
                f.seek(18)
                f.write(b"\x3e\x00")                 # x86-64's ELF
            self.assertIn("is not a ppc64le ELF", linux.KERNEL_PROBLEM["vof"](path))


class SeedsTest(unittest.TestCase):
    def test_seed_000_change_column(self):
        c = {"topo": "2x2x2G"}
        one = [run(c, records=[node_init(0, 8e6, threads=1)])]
        many = [run(c, records=[node_init(0, 2e6)])]
        text = seeds.table_000(one, many, "2x2x2G")
        self.assertIn("| x13s (metal) | 32 GB | 8 | 108 | 24 | -78% |", text)
        self.assertIn("| 0 | 1 vs 2 | 1000 | 8.00 | 2.00 | -75% |", text)
        self.assertIn("Comparable: the change column", text)

    def test_seed_000_on_arm64_names_the_machines_it_stands_for(self):
        c = {"topo": "1x32x4G"}
        one = [run(c, records=[node_init(0, 8e6, threads=1)])]
        many = [run(c, records=[node_init(0, 2e6, threads=32)])]
        text = seeds.table_000(one, many, "1x32x4G", "Ampere HR330: 32 CPUs, one node")
        self.assertIn("| 0 | 1 vs 32 | 1000 | 8.00 | 2.00 | -75% |", text)
        self.assertIn("QEMU `virt` arm64", text)
        self.assertIn("shaped like Ampere HR330: 32 CPUs, one node", text)
        self.assertIn("4 GiB of guest RAM", text)

    def test_seed_000_arm64_shapes_fit_the_guest_limit(self):
        for topo, like in seeds.SEED_000_SHAPES["arm64"]:
            nodes, cpus, mem = bench.parse_topo(topo)
            self.assertLessEqual(nodes * inputs.size_problem(mem)[0], 4 << 30, topo)
            self.assertTrue(like)
        cpus = {bench.parse_topo(t)[1] for t, _ in seeds.SEED_000_SHAPES["arm64"]}
        self.assertEqual(cpus, {8, 32})      # the seed's machines: 8 and 32 CPUs

    def test_arm64_other_seeds_refused_before_any_boot(self):
        args = mock.Mock(seed="001", boots=1, arch="arm64")
        with mock.patch.object(bench, "ensure_kernel") as build, \
                mock.patch("sys.stderr", new_callable=io.StringIO) as err:
            self.assertEqual(seeds.main(args), 64)
        build.assert_not_called()
        self.assertIn("--arch arm64 runs seed 000 only", err.getvalue())

    def test_ppc64le_runs_seed_004_only(self):
        for seed in ("000", "001", "000,004", "003,001", "all"):
            args = mock.Mock(seed=seed, boots=1, arch="ppc64le")
            with mock.patch.object(bench, "ensure_kernel") as build, \
                    mock.patch.object(seeds, "host_seed") as host, \
                    mock.patch("sys.stderr", new_callable=io.StringIO) as err:
                self.assertEqual(seeds.main(args), 64, seed)
            build.assert_not_called()
            host.assert_not_called()          # not minutes of host benchmark first
            self.assertIn("--arch ppc64le runs seed 004 only", err.getvalue())

    def test_ppc64le_seed_004_dry_run_lists_one_thread_against_the_nodes_cpus(self):
        args = mock.Mock(seed="004", boots=None, arch="ppc64le", dry_run=True,
                         build_dir="/b")
        with mock.patch.object(bench, "ensure_kernel") as build, \
                mock.patch.object(bench, "boot_once") as boot, \
                mock.patch("sys.stdout", new_callable=io.StringIO) as out:
            self.assertEqual(seeds.main(args), 0)
        build.assert_not_called()
        boot.assert_not_called()
        lines = out.getvalue().splitlines()
        self.assertEqual(len(lines), 5, lines)
        for line, (shape, threads) in zip(lines, [("2 --cpus-per-node 4 --mem-per-node 1G", "1"),
                                                  ("2 --cpus-per-node 4 --mem-per-node 1G", "node"),
                                                  ("1 --cpus-per-node 8 --mem-per-node 4G", "1"),
                                                  ("1 --cpus-per-node 8 --mem-per-node 4G", "node")]):
            self.assertIn("--nodes " + shape, line)
            self.assertIn("--arch ppc64le --boot vof --image /b/ppc64le/debug/memboot.elf", line)
            self.assertTrue(line.endswith("memboot.init=deferred memboot.init_threads=" + threads),
                            line)
        self.assertEqual(lines[-1], "4 configurations x 3 boots (no round starts after %d s)"
                         % seeds.SEED_004_BUDGET_S)

    def test_ppc64le_seed_004_shapes_fit_the_guest_limit(self):
        for topo, like in seeds.SEED_004_SHAPES["ppc64le"]:
            nodes, cpus, mem = bench.parse_topo(topo)
            self.assertLessEqual(nodes * inputs.size_problem(mem)[0], 4 << 30, topo)
            self.assertTrue(like)

    def test_ppc64le_seed_004_stops_at_the_time_bound(self):
        # Each fake boot takes 100 s of the progress clock: the first round
        # (4 boots) always runs, the second does not start past 240 s.
        now = [0.0]

        def boot(config, elf, extra, arch=None):
            now[0] += 100
            t = 1 if config["threads"] == "1" else 4
            return {"status": 0, "records": [node_init(0, 8e6 / t, threads=t),
                                             {"event": "done", "total_ns": 9e8 / t,
                                              "usable_ns": 4e8}],
                    "unknown": [], "wall_s": 1.0, "stderr": ""}
        args = mock.Mock(seed="004", boots=3, arch="ppc64le", dry_run=False)
        with mock.patch.object(bench, "ensure_kernel", return_value="/b/memboot.elf"), \
                mock.patch.object(bench, "boot_once", side_effect=boot), \
                mock.patch.object(seeds.time, "monotonic", side_effect=lambda: now[0]), \
                mock.patch("sys.stderr", new_callable=io.StringIO) as err, \
                mock.patch("sys.stdout", new_callable=io.StringIO) as out:
            self.assertEqual(seeds.main(args), 0)
        self.assertIn("1 of 3 rounds in the 240 s bound", err.getvalue())
        text = out.getvalue()
        self.assertIn("medians of 1 boot (the time bound stopped it short of 3)", text)
        self.assertIn("| 4 GB | 24.5 | 10.4 | -58% |", text)
        self.assertIn("| 2x4x1G | 0 | ? | 1000 | 8.00 | 2.00 | -75% | 2000.00 |", text)
        self.assertIn("| kernel entry to done | 900.0 | 225.0 | -75% |", text)
        self.assertIn("QEMU pseries (ppc64le) under TCG", text)

    def test_seed_001_reads_phase_and_1g_records(self):
        recs = [{"event": "phase", "name": "hugetlb", "ns": 6e6},
                {"event": "hugetlb", "node": 1, "size_bytes": 1 << 30, "ns": 1e6}]
        got = seeds.huge_ms([run({}, records=recs), run({}, status=5, records=recs[:1])])
        self.assertEqual(got, {"hugetlb": 6.0, "1g_pool": 1.0})

    def test_seed_004_ns_per_page(self):
        text = seeds.table_004([run({}, records=[node_init(2, 5e6, pages=250000, threads=1)])],
                               "4x1x1G")
        self.assertIn("| 9 | 16607461 | 280 | 16.9 |", text)
        self.assertIn("| 2 | 1 | 250000 | 5.00 | 20.00 |", text)


class PlotsTest(unittest.TestCase):
    def rows(self):
        out = []
        for threads, ms in (("1", 4.0), ("node", 2.0)):
            for topo in ("2x2x1G", "2x2x2G"):
                out.append({"config": {"topo": topo, "threads": threads}, "node": 0,
                            "ms_median": ms * (2 if topo.endswith("2G") else 1),
                            "ms_min": ms, "ms_max": ms * 3})
        return out

    def test_series_per_axis(self):
        s = plots.series(self.rows(), "threads")
        self.assertEqual(s["topo=2x2x1G node 0"], [("1", 4.0, 4.0, 12.0), ("node", 2.0, 2.0, 6.0)])
        m = plots.series(self.rows(), "mem")
        self.assertEqual([p[0] for p in m["shape=2x2 threads=1 node 0"]], ["1G", "2G"])
        self.assertEqual(plots.series(self.rows(), "desc"), {})

    def test_text_and_files(self):
        self.assertIn("per-node init (ms) against threads", plots.text_series(self.rows()))
        from mbtools.plot import import_pyplot
        if import_pyplot() is None:
            self.skipTest("python3-matplotlib not installed")
        with tempfile.TemporaryDirectory() as d:
            written = plots.plot(self.rows(), os.path.join(d, "b"), "svg")
            self.assertEqual([os.path.basename(p) for p in written], ["b-threads.svg", "b-mem.svg"])
            with open(written[0]) as f:
                self.assertIn("<svg", f.read(2000))


class ToolTest(unittest.TestCase):
    def test_subcommands_are_dispatched(self):
        tool = os.path.join(REPO_ROOT, "tools", "memboot")
        for cmd in ("bench", "compare-linux", "bench-plot"):
            out = subprocess.run([sys.executable, tool, cmd, "--help"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self.assertEqual(out.returncode, 0, out.stdout)
            self.assertIn("usage: memboot " + cmd, out.stdout)

    def test_dry_run_lists_the_quick_matrix(self):
        tool = os.path.join(REPO_ROOT, "tools", "memboot")
        out = subprocess.run([sys.executable, tool, "bench", "--dry-run"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(out.returncode, 0, out.stdout)
        n = len(bench.expand(bench.QUICK["axes"]))
        self.assertIn("%d configurations x %d boots" % (n, bench.QUICK["boots"]), out.stdout)
        self.assertIn("'--append=memboot.init=serial memboot.init_threads=1'", out.stdout)


class HostSeeds(unittest.TestCase):

    def test_002_and_003_run_their_host_benchmarks_beside_the_seed(self):
        import contextlib
        import io
        calls = []
        orig = seeds.subprocess.call
        seeds.subprocess.call = lambda argv: calls.append(argv) or 0
        try:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(seeds.host_seed("002"), 0)
                self.assertEqual(seeds.host_seed("003"), 0)
        finally:
            seeds.subprocess.call = orig
        self.assertEqual([c[-1] for c in calls], ["bench-pcp", "bench-pt"])
        text = out.getvalue()
        self.assertIn("| patch9 | 94.9 | 0.6 | 2.7 | 15.0 |", text)
        self.assertIn("| THP on (2M) | 42.16 s | 8.40 s |", text)

if __name__ == "__main__":
    unittest.main()
