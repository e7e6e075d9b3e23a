"""Unit tests for tools/memboot (the command-line front end).

Run from the repository root:
    python3 -m unittest tests/tools/test_memboot.py -v

The end-to-end tests use a fake QEMU (a small script written into a
temporary directory and named by MEMBOOT_QEMU); they need neither QEMU nor
the kernel.
"""

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from unittest import mock

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TOOL = os.path.join(REPO_ROOT, "tools", "memboot")
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
from script_module import load_script  # noqa: E402

mb = load_script(TOOL, "memboot_tool")

BASE = [
    "qemu-system-x86_64",
    "-machine", "q35", "-cpu", "max", "-display", "none", "-monitor", "none",
    "-no-reboot", "-net", "none", "-serial", "stdio",
    "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
    "-cdrom", "/x/memboot.iso", "-boot", "d",
]

# Environment without the variables the tool reads.
CLEAN_ENV = {k: v for k, v in os.environ.items()
             if not k.startswith("MEMBOOT_")}


def build(*argv, raw=None):
    argv = ["run", "--iso", "/x/memboot.iso"] + list(argv)
    if raw is not None:
        argv += ["--"] + list(raw)
    with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
        return mb.build_qemu_command(mb.parse_args(argv))


def usage_error(argv):
    """Parse argv, expecting a usage error; return (code, stderr)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
            try:
                mb.parse_args(argv)
            except SystemExit as e:
                return e.code, err.getvalue()
    raise AssertionError("no usage error for %r" % (argv,))


# What `run --dry-run` prints before the boot-path options, QEMU named
# /q/qemu by MEMBOOT_QEMU.
DRY_RUN_PREFIX = (
    "/q/qemu -machine q35 -cpu max -display none -monitor none "
    "-no-reboot -net none -serial stdio "
    "-device isa-debug-exit,iobase=0xf4,iosize=0x04 ")


def dry_run(test, *argv):
    """Run `memboot run --dry-run ARGV` in a subprocess; assert it exits 0
    and return what it printed."""
    env = dict(CLEAN_ENV, MEMBOOT_QEMU="/q/qemu")
    r = subprocess.run([sys.executable, TOOL, "run", "--dry-run"] + list(argv),
                       env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=30)
    test.assertEqual(r.returncode, 0, r.stderr)
    return r.stdout.decode()


class BuildQemuCommand(unittest.TestCase):

    def test_one_node_defaults(self):
        self.assertEqual(build(), BASE + [
            "-m", "1G", "-smp", "1,sockets=1,cores=1,threads=1"])

    def test_two_nodes_two_cpus_1g(self):
        cmd = build("--nodes", "2", "--cpus-per-node", "2",
                    "--mem-per-node", "1G")
        self.assertEqual(cmd, BASE + [
            "-m", "2G",
            "-smp", "4,sockets=2,cores=2,threads=1",
            "-object", "memory-backend-ram,id=m0,size=1G",
            "-numa", "node,nodeid=0,cpus=0-1,memdev=m0",
            "-object", "memory-backend-ram,id=m1,size=1G",
            "-numa", "node,nodeid=1,cpus=2-3,memdev=m1",
        ])

    def test_four_nodes_one_cpu(self):
        cmd = build("--nodes", "4", "--mem-per-node", "512M")
        expected = BASE + ["-m", "2G", "-smp", "4,sockets=4,cores=1,threads=1"]
        for i in range(4):
            expected += ["-object",
                         "memory-backend-ram,id=m%d,size=512M" % i,
                         "-numa", "node,nodeid=%d,cpus=%d,memdev=m%d"
                         % (i, i, i)]
        self.assertEqual(cmd, expected)

    def test_large_guests_are_not_reserved_and_get_wide_addresses(self):
        # 16 x 128 GiB: every backend reserve=off, phys-bits for RAM above
        # 1 TiB; the routine sizes above keep their plain flags.
        cmd = build("--nodes", "16", "--mem-per-node", "128G")
        backends = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-object"]
        self.assertEqual(len(backends), 16)
        self.assertTrue(all(b.endswith(",size=128G,reserve=off") for b in backends))
        self.assertEqual(cmd[cmd.index("-cpu") + 1], "max,phys-bits=44")
        # One large node: a backend of its own instead of plain -m memory.
        cmd = build("--mem-per-node", "128G")
        self.assertIn("memory-backend-ram,id=m0,size=128G,reserve=off", cmd)
        self.assertIn("memory-backend=m0", cmd)
        self.assertNotIn("-numa", cmd)
        self.assertEqual(cmd[cmd.index("-cpu") + 1], "max")
        # An explicit phys-bits is left alone.
        cmd = build("--nodes", "8", "--mem-per-node", "128G", "--cpu", "max,phys-bits=46")
        self.assertEqual(cmd[cmd.index("-cpu") + 1], "max,phys-bits=46")

    def test_prealloc_backs_every_node_and_refuses_large_guests(self):
        cmd = build("--nodes", "2", "--cpus-per-node", "2", "--prealloc")
        backends = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-object"]
        self.assertEqual(backends, ["memory-backend-ram,id=m0,size=1G,prealloc=on",
                                    "memory-backend-ram,id=m1,size=1G,prealloc=on"])
        # One node: a backend of its own, so that prealloc applies.
        cmd = build("--prealloc")
        self.assertIn("memory-backend-ram,id=m0,size=1G,prealloc=on", cmd)
        self.assertIn("memory-backend=m0", cmd)
        # Without it, no backend option changes.
        self.assertFalse(any("prealloc" in a for a in build("--nodes", "2")))
        code, err = usage_error(["run", "--iso", "/x/m.iso", "--prealloc",
                                 "--nodes", "4", "--mem-per-node", "8G"])
        self.assertEqual(code, 64)
        self.assertIn("--prealloc: 32G of guest RAM is more than the 16 GiB", err)

    def test_size_suffixes(self):
        self.assertEqual(mb.parse_size("2M"), 2 << 20)
        self.assertEqual(mb.parse_size("2048K"), 2 << 20)
        self.assertEqual(mb.parse_size("1g"), 1 << 30)
        self.assertEqual(mb.parse_size("1T"), 1 << 40)
        self.assertEqual(mb.parse_size(str(6 << 20)), 6 << 20)
        # 18M: above GRUB's floor (MIN_MEM_PER_NODE), in plain bytes.
        cmd = build("--mem-per-node", str(18 << 20))
        self.assertEqual(cmd[cmd.index("-m") + 1], "18M")

    def test_machine_cpu_firmware_bios(self):
        cmd = build("--machine", "pc", "--cpu", "Skylake-Server")
        self.assertEqual(cmd[1:5], ["-machine", "pc", "-cpu", "Skylake-Server"])
        self.assertNotIn("-drive", cmd)
        self.assertNotIn("-fw_cfg", cmd)

    def test_raw_m_replaces_topology(self):
        cmd = build("--nodes", "2", raw=["-m", "4G", "-smp", "2"])
        self.assertEqual(cmd, BASE + ["-m", "4G", "-smp", "2"])

    def test_raw_smp_alone_replaces_topology(self):
        cmd = build("--nodes", "2", raw=["-smp", "8"])
        self.assertEqual(cmd, BASE + ["-smp", "8"])

    def test_raw_without_m_appended_last(self):
        cmd = build("--nodes", "2",
                    raw=["-numa", "dist,src=0,dst=1,val=21", "-cpu", "host"])
        self.assertEqual(cmd[:len(BASE)], BASE)
        self.assertEqual(cmd[len(BASE):len(BASE) + 4], [
            "-m", "2G", "-smp", "2,sockets=2,cores=1,threads=1"])
        self.assertIn("node,nodeid=1,cpus=1,memdev=m1", cmd)
        self.assertEqual(cmd[-4:], ["-numa", "dist,src=0,dst=1,val=21",
                                    "-cpu", "host"])

    def test_uefi_pflash(self):
        cmd = build("--firmware", "uefi")
        i = cmd.index("-drive")
        self.assertEqual(cmd[i:i + 2], [
            "-drive", "if=pflash,format=raw,unit=0,readonly=on,"
                      "file=/usr/share/OVMF/OVMF_CODE_4M.fd"])
        self.assertEqual(cmd[i + 2], "-drive")
        prefix = "if=pflash,format=raw,unit=1,file="
        self.assertTrue(cmd[i + 3].startswith(prefix), cmd[i + 3])
        copy = cmd[i + 3][len(prefix):]
        self.assertNotEqual(copy, "/usr/share/OVMF/OVMF_VARS_4M.fd")
        self.assertEqual(len(cmd), i + 4)

    def test_uefi_vars_copy_in_tmpdir(self):
        with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
            args = mb.parse_args(["run", "--firmware", "uefi"])
            cmd = mb.build_qemu_command(args, "/tmp/run1")
        self.assertIn("if=pflash,format=raw,unit=1,"
                      "file=/tmp/run1/OVMF_VARS.fd", cmd)

    def test_append_fw_cfg(self):
        with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
            args = mb.parse_args(["run", "--append", "census=1 seed=7"])
            cmd = mb.build_qemu_command(args, "/tmp/run1")
        self.assertEqual(cmd[-2:], [
            "-fw_cfg", "name=opt/memboot/cmdline,file=/tmp/run1/cmdline"])
        self.assertNotIn("-fw_cfg", build("--append", ""))

    def test_env_qemu_and_iso(self):
        env = dict(CLEAN_ENV, MEMBOOT_QEMU="/opt/q/qemu",
                   MEMBOOT_ISO="/y/other.iso")
        with mock.patch.dict(os.environ, env, clear=True):
            cmd = mb.build_qemu_command(mb.parse_args(["run"]))
            self.assertEqual(cmd[0], "/opt/q/qemu")
            self.assertEqual(cmd[cmd.index("-cdrom") + 1], "/y/other.iso")
            cmd = mb.build_qemu_command(
                mb.parse_args(["run", "--iso", "/z.iso"]))
            self.assertEqual(cmd[cmd.index("-cdrom") + 1], "/z.iso")

    def test_qemu_of_the_architecture(self):
        # Without MEMBOOT_QEMU, arch/x86_64/arch.mk's system emulator.
        self.assertEqual(build()[:3], ["qemu-system-x86_64", "-machine", "q35"])
        self.assertEqual(build("--machine", "pc")[:3], ["qemu-system-x86_64", "-machine", "pc"])

    def test_default_iso_under_repo(self):
        with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
            args = mb.parse_args(["run"])
        self.assertEqual(args.iso, os.path.join(
            REPO_ROOT, "build", "debug", "memboot.iso"))


class BadOptions(unittest.TestCase):

    def check(self, argv, option, value):
        code, err = usage_error(["run"] + argv)
        self.assertEqual(code, 64)
        self.assertIn(option, err)
        self.assertIn(value, err)

    def test_bad_sizes(self):
        for value in ("0", "1M", "3M", "1X", "-1G", "", "1.5G", "1048576"):
            with self.subTest(value=value):
                self.check(["--mem-per-node=" + value], "--mem-per-node",
                           repr(value))

    def test_bad_counts(self):
        for option in ("--nodes", "--cpus-per-node"):
            for value in ("0", "-2", "two", "1.5"):
                with self.subTest(option=option, value=value):
                    self.check([option, value], option, repr(value))

    def test_more_nodes_than_the_kernel_tracks(self):
        # 257 is one past MEMBOOT_MAX_NODES (kernel/services/limits.h); 256 is accepted.
        self.check(["--nodes", "257"], "--nodes 257", "at most 256 nodes")
        self.assertEqual(build("--nodes", "256").count("-numa"), 256)

    def test_bad_timeout_and_choices(self):
        self.check(["--timeout", "0"], "--timeout", "'0'")
        self.check(["--firmware", "coreboot"], "--firmware", "coreboot")
        self.check(["--machine", "virt"], "--machine", "virt")

    def test_arch_only_a_port(self):
        # --arch takes an architecture of arch/NAME/arch.mk that boots:
        # x86_64, arm64 and ppc64le. Another is refused by name with the
        # architectures and the ports named (also for bench and lab).
        self.assertEqual(build("--arch", "x86_64"), build())
        for argv in (["run"], ["bench", "--dry-run"], ["lab", "--guest"]):
            with self.subTest(argv=argv):
                code, err = usage_error(argv + ["--arch", "sparc"])
                self.assertEqual(code, 64)
                self.assertIn("the ones that boot: arm64, ppc64le, x86_64", err)
        code, err = usage_error(["run", "--arch", "sparc"])
        self.assertEqual(code, 64)
        self.assertIn("no such architecture (no arch/sparc/arch.mk); the architectures: "
                      "arm64, ppc64le, x86_64", err)
        # The machine is the architecture's: q35 (its first) or pc on x86_64.
        self.check(["--arch", "x86_64", "--machine", "virt"], "--machine",
                   "'virt' is not a QEMU machine memboot boots on x86_64 (choose from q35, pc)")

    def test_arm64_boots_its_image_with_semihosting(self):
        # arm64's defaults from arch/arm64/arch.mk: --boot image, QEMU
        # -kernel with the Image under build/arm64/debug, the exit status by
        # semihosting (no isa-debug-exit, an x86 device), virt with a GICv3.
        with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
            args = mb.parse_args(["run", "--arch", "arm64", "--nodes", "2"])
            cmd = mb.build_qemu_command(args)
        self.assertEqual(args.boot, "image")
        self.assertEqual(cmd[0], "qemu-system-aarch64")
        self.assertEqual(cmd[cmd.index("-kernel") + 1],
                         os.path.join(mb.REPO_ROOT, "build", "arm64", "debug", "Image"))
        self.assertEqual(cmd[cmd.index("-semihosting-config") + 1], "enable=on,target=native")
        self.assertNotIn("isa-debug-exit,iobase=0xf4,iosize=0x04", cmd)
        machines = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-machine"]
        self.assertEqual(machines, ["virt", "gic-version=3"])
        self.assertNotIn("-bios", cmd)
        self.assertNotIn("-cdrom", cmd)
        with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
            cmd = mb.build_qemu_command(mb.parse_args(
                ["run", "--arch", "arm64", "--image", "/x/Image", "--append", "memboot.pcp=off"]))
        self.assertEqual(cmd[cmd.index("-kernel") + 1], "/x/Image")
        # The words go through fw_cfg, as on x86_64 (virt has it as MMIO).
        self.assertTrue(any(a.startswith("name=opt/memboot/cmdline,") for a in cmd), cmd)
        # Each architecture's boot paths only.
        code, err = usage_error(["run", "--arch", "arm64", "--boot", "grub"])
        self.assertEqual(code, 64)
        self.assertIn("--boot grub: arm64 boots by image or efi", err)
        code, err = usage_error(["run", "--boot", "image"])
        self.assertEqual(code, 64)
        self.assertIn("--boot image: x86_64 boots by grub, efi or pvh", err)
        code, err = usage_error(["run", "--arch", "arm64", "--firmware", "uefi"])
        self.assertEqual(code, 64)
        self.assertIn("--boot image: QEMU -kernel enters the Image with no firmware", err)

    def test_arm64_efi_boots_the_esp_under_aavmf(self):
        # arm64's UEFI firmware from arch/arm64/arch.mk: AAVMF's code
        # read-only, a copy of its variable store, the ESP of the arm64 build.
        with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
            args = mb.parse_args(["run", "--arch", "arm64", "--boot", "efi"])
            cmd = mb.build_qemu_command(args, tmpdir="/t")
        self.assertEqual(args.firmware, "uefi")
        drives = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-drive"]
        self.assertEqual(drives, [
            "format=raw,if=virtio,readonly=on,file="
            + os.path.join(mb.REPO_ROOT, "build", "arm64", "debug", "memboot-esp.img"),
            "if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/AAVMF/AAVMF_CODE.fd",
            "if=pflash,format=raw,unit=1,file=/t/OVMF_VARS.fd"])
        self.assertNotIn("-kernel", cmd)
        self.assertEqual(mb.ovmf_paths(args)[1], "/usr/share/AAVMF/AAVMF_VARS.fd")
    def test_ppc64le_boots_its_elf_under_vof(self):
        # ppc64le's defaults from arch/ppc64le/arch.mk: --boot vof, QEMU
        # pseries -kernel with the ELF under build/ppc64le/debug, -cpu
        # power9, no exit device (the status is the done record's), and
        # --append as -append (the tree's /chosen bootargs; no fw_cfg).
        with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
            args = mb.parse_args(["run", "--arch", "ppc64le", "--nodes", "2",
                                  "--append", "memboot.pcp=off"])
            cmd = mb.build_qemu_command(args)
        self.assertEqual(args.boot, "vof")
        self.assertEqual(args.exit_from, "console")
        self.assertEqual(cmd[0], "qemu-system-ppc64")
        self.assertEqual(cmd[cmd.index("-cpu") + 1], "power9")
        self.assertEqual(cmd[cmd.index("-kernel") + 1],
                         os.path.join(mb.REPO_ROOT, "build", "ppc64le", "debug", "memboot.elf"))
        self.assertEqual(cmd[cmd.index("-append") + 1], "memboot.pcp=off")
        self.assertFalse(any(a.startswith("name=opt/memboot/cmdline,") for a in cmd), cmd)
        self.assertFalse(any("isa-debug-exit" in a or "semihosting" in a for a in cmd), cmd)
        machines = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-machine"]
        self.assertEqual(machines[0], "pseries")
        self.assertTrue(machines[1].startswith("x-vof=on"), machines)
        # --cpu still chooses.
        with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
            cmd = mb.build_qemu_command(mb.parse_args(
                ["run", "--arch", "ppc64le", "--cpu", "power10"]))
        self.assertEqual(cmd[cmd.index("-cpu") + 1], "power10")
        code, err = usage_error(["run", "--arch", "ppc64le", "--boot", "image"])
        self.assertEqual(code, 64)
        self.assertIn("--boot image: ppc64le boots by vof, slof or powernv", err)
        # --boot slof: the same ELF under SLOF, pseries's own default
        # firmware (a -machine after arch.mk's turns VOF off).
        with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
            cmd = mb.build_qemu_command(mb.parse_args(
                ["run", "--arch", "ppc64le", "--boot", "slof", "--append", "memboot.pcp=off"]))
        machines = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-machine"]
        self.assertEqual(machines[-1], "x-vof=off")
        self.assertTrue(machines[1].startswith("x-vof=on"), machines)
        self.assertEqual(cmd[cmd.index("-append") + 1], "memboot.pcp=off")
        code, err = usage_error(["run", "--arch", "arm64", "--boot", "slof"])
        self.assertEqual(code, 64)
        self.assertIn("--boot slof: arm64 boots by image or efi", err)
        code, err = usage_error(["run", "--arch", "ppc64le", "--firmware", "bios"])
        self.assertEqual(code, 64)
        self.assertIn("--boot vof: QEMU pseries enters the ELF through its own Open Firmware", err)
        code, err = usage_error(["run", "--boot", "vof"])
        self.assertEqual(code, 64)
        self.assertIn("--boot vof: x86_64 boots by grub, efi or pvh", err)

    def test_ppc64le_powernv_maps_the_topology_onto_chips(self):
        # --boot powernv: QEMU's powernv10 under skiboot, power10 CPUs, one
        # chip (socket) per node with -m split by QEMU, no -numa, none of
        # pseries's -machine options; --append as -append (skiboot hands
        # QEMU's /chosen bootargs on to the kernel's tree).
        with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
            args = mb.parse_args(["run", "--arch", "ppc64le", "--boot", "powernv",
                                  "--nodes", "4", "--cpus-per-node", "2",
                                  "--mem-per-node", "1G", "--append", "memboot.pcp=off"])
            cmd = mb.build_qemu_command(args)
        self.assertEqual(args.exit_from, "console")
        machines = [cmd[i + 1] for i, a in enumerate(cmd) if a == "-machine"]
        self.assertEqual(machines, ["powernv10"])
        self.assertEqual(cmd[cmd.index("-cpu") + 1], "power10")
        self.assertEqual(cmd[cmd.index("-m") + 1], "4G")
        self.assertEqual(cmd[cmd.index("-smp") + 1], "8,sockets=4,cores=2,threads=1")
        self.assertNotIn("-numa", cmd)
        self.assertEqual(cmd[cmd.index("-kernel") + 1],
                         os.path.join(mb.REPO_ROOT, "build", "ppc64le", "debug", "memboot.elf"))
        self.assertEqual(cmd[cmd.index("-append") + 1], "memboot.pcp=off")
        # What powernv cannot express is refused before QEMU starts.
        for argv, said in (
                (["--nodes", "3"], "--boot powernv --nodes 3: QEMU's powernv10 has one "
                                   "node per chip and takes 1, 2, 4, 8 or 16 chips"),
                (["--nodes", "32"], "takes 1, 2, 4, 8 or 16 chips"),
                (["--mem-per-node", "512M"], "--mem-per-node 512M: too small to boot with "
                                             "--boot powernv; the least that boots there is 1G"),
                (["--cpu", "power9"], "QEMU's powernv10 takes only power10 CPUs, not --cpu power9"),
                (["--machine", "pseries"], "--boot powernv runs on QEMU's powernv10 machine, "
                                           "not --machine pseries"),
                (["--firmware", "bios"], "--boot powernv: skiboot, QEMU powernv's own firmware, "
                                         "enters the ELF (no --firmware)")):
            code, err = usage_error(["run", "--arch", "ppc64le", "--boot", "powernv"] + argv)
            self.assertEqual(code, 64, argv)
            self.assertIn(said, err)
        code, err = usage_error(["run", "--arch", "ppc64le", "--machine", "powernv10"])
        self.assertEqual(code, 64)
        self.assertIn("--machine powernv10: its firmware is skiboot, which boots only "
                      "--boot powernv", err)
        code, err = usage_error(["run", "--arch", "arm64", "--boot", "powernv"])
        self.assertIn("--boot powernv: arm64 boots by image or efi", err)

    def test_no_subcommand(self):
        code, _ = usage_error([])
        self.assertEqual(code, 64)

    def test_missing_iso(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
                code = mb.main(["run", "--iso", "/nonexistent/m.iso"])
        self.assertEqual(code, 64)
        self.assertEqual(err.getvalue(), "memboot: no ISO at "
                         "/nonexistent/m.iso; run 'make' first\n")

    def test_missing_ovmf(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            with mock.patch.dict(os.environ, CLEAN_ENV, clear=True), \
                    mock.patch.object(mb, "OVMF_CODE", "/nonexistent/CODE.fd"):
                code = mb.main(["run", "--firmware", "uefi", "--dry-run"])
        self.assertEqual(code, 64)
        self.assertIn("/nonexistent/CODE.fd", err.getvalue())
        self.assertIn("install the ovmf package", err.getvalue())


class DecodeExit(unittest.TestCase):

    def test_success(self):
        self.assertEqual(mb.decode_exit(33), (0, "ok"))

    def test_panic(self):
        self.assertEqual(mb.decode_exit(35), (1, "panic"))

    def test_known_statuses(self):
        self.assertEqual(mb.decode_exit(37), (2, "exception"))
        self.assertEqual(mb.decode_exit(39), (3, "bad boot information"))
        self.assertEqual(mb.decode_exit(41), (4, "self-test failed"))
        self.assertEqual(mb.decode_exit(43), (5, "pages lost"))

    def test_unknown_kernel_status(self):
        status, meaning = mb.decode_exit(47)
        self.assertEqual(status, 7)
        self.assertIn("7", meaning)

    def test_cpu_lost_status(self):
        status, meaning = mb.decode_exit(45)
        self.assertEqual(status, 6)
        self.assertIn("cpu lost", meaning)

    def test_rc0_no_status(self):
        status, meaning = mb.decode_exit(0)
        self.assertEqual(status, 126)
        self.assertIn("without a kernel status", meaning)

    def test_even_rc_no_status(self):
        self.assertEqual(mb.decode_exit(2)[0], 126)
        self.assertEqual(mb.decode_exit(34)[0], 126)

    def test_rc1_qemu_failed(self):
        self.assertEqual(mb.decode_exit(1)[0], 125)

    def test_small_odd_rc_not_a_status(self):
        self.assertEqual(mb.decode_exit(3)[0], 126)
        self.assertEqual(mb.decode_exit(31)[0], 126)

    def test_signal(self):
        self.assertEqual(mb.decode_exit(-9)[0], 126)


class ParseRecord(unittest.TestCase):

    def test_plain(self):
        line = 'MEMBOOT {"event":"done","ok":true,"status":0,"total_ns":12345}'
        self.assertEqual(mb.parse_record(line), {
            "event": "done", "ok": True, "status": 0, "total_ns": 12345})

    def test_ansi_and_prefix(self):
        line = ('\x1b[0m\x1b[2J\x1b[01;01HBdsDxe: booting\x1b[0m '
                'MEMBOOT \x1b[1m{"event":"boot","cpus":4}\r\n')
        self.assertEqual(mb.parse_record(line), {"event": "boot", "cpus": 4})

    def test_prefix_text(self):
        line = '[cpu0] MEMBOOT {"event":"node","node":1,"mem_bytes":1073741824}'
        self.assertEqual(mb.parse_record(line),
                         {"event": "node", "node": 1, "mem_bytes": 1073741824})

    def test_bytes_line(self):
        self.assertEqual(mb.parse_record(b'MEMBOOT {"event":"x"}\n'),
                         {"event": "x"})

    def test_record_text_is_bare_json(self):
        self.assertEqual(
            mb.record_text('\x1b[0mjunk MEMBOOT {"event": "a", "v": [1]}\r'),
            '{"event": "a", "v": [1]}')

    def test_not_records(self):
        for line in ("", "\n", "GRUB loading.", "MEMBOOT", "MEMBOOT ready",
                     "MEMBOOT {", "MEMBOOT {not json}",
                     'MEMBOOT {"no_event":1}', 'MEMBOOT ["event"]',
                     'MEMBOOT{"event":"x"}',
                     '\x1b[2J\x1b[01;01H'):
            with self.subTest(line=line):
                self.assertIsNone(mb.parse_record(line))


def process_alive(pid, wait=2.0):
    """True if pid still runs after `wait` seconds (zombies count as dead:
    a killed orphan may wait for a reaper that never comes in a container)."""
    end = time.monotonic() + wait
    while True:
        try:
            with open("/proc/%d/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return False
        if state in ("Z", "X"):
            return False
        if time.monotonic() > end:
            return True
        time.sleep(0.05)


FAKE_RECORD = '{"event":"done","ok":false,"status":1,"total_ns":42}'


class EndToEnd(unittest.TestCase):
    """Run the real tool against fake QEMU scripts."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="memboot-test-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.iso = os.path.join(self.dir, "memboot.iso")
        # The tool checks for an ISO 9660 volume descriptor before it
        # starts QEMU.
        with open(self.iso, "wb") as f:
            f.write(b"\0" * 0x8001 + b"CD001" + b"\0" * 0x7fa)

    def fake(self, name, body):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write("#!%s\n" % sys.executable)
            f.write(textwrap.dedent(body))
        os.chmod(path, 0o755)
        return path

    def run_tool(self, qemu, *argv, timeout=30, host_notes=False):
        # Host notes depend on the machine running the tests: off unless a
        # test is about them.
        env = dict(CLEAN_ENV, MEMBOOT_QEMU=qemu)
        if not host_notes:
            env["MEMBOOT_HOST_NOTES"] = "off"
        return subprocess.run(
            [sys.executable, TOOL, "run", "--iso", self.iso] + list(argv),
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            timeout=timeout)

    def panic_fake(self):
        # Records its argv and the fw_cfg cmdline file's content, prints a
        # console with firmware noise, a record and a last line without a
        # newline, then exits as the kernel's isa-debug-exit would for
        # status 1 (rc 35).
        return self.fake("fakeqemu", """\
            import json, os, sys, time
            argv = sys.argv[1:]
            cmdline = None
            for a in argv:
                if a.startswith("name=opt/memboot/cmdline,file="):
                    with open(a.split("file=", 1)[1]) as f:
                        cmdline = f.read()
            with open(os.path.join(os.path.dirname(sys.argv[0]),
                                   "argv.json"), "w") as f:
                json.dump({"argv": argv, "cmdline": cmdline}, f)
            out = sys.stdout.buffer
            out.write(b"\\x1b[2J\\x1b[01;01HSeaBIOS\\r\\n")
            out.flush()
            time.sleep(0.05)
            out.write(b"memboot: hello \\xff\\n")
            out.write(b"\\x1b[0mMEMBOOT " + %r + b"\\r\\n")
            out.write(b"tail without newline")
            out.flush()
            sys.exit(35)
            """ % FAKE_RECORD.encode())

    CONSOLE = (b"\x1b[2J\x1b[01;01HSeaBIOS\r\n",
               b"memboot: hello \xff\n",
               b"\x1b[0mMEMBOOT " + FAKE_RECORD.encode() + b"\r\n",
               b"tail without newline")

    def test_status_0_without_done_record_is_not_success(self):
        # QEMU reports status 0, but the console stops before the done
        # record: the run must not pass for a boot.
        fake = self.fake("cutqemu", """\
            import sys
            print('MEMBOOT {"event":"phase","name":"early","ns":5}')
            print('MEMBOOT {"event":"done","ok":tr', end="")
            sys.exit(33)
            """)
        r = self.run_tool(fake)
        self.assertEqual(r.returncode, mb.EXIT_NO_DONE, r.stderr)
        self.assertEqual(mb.EXIT_NO_DONE, 66)
        self.assertIn(b"ended without a done record", r.stderr)
        self.assertIn(b"console line 2: malformed record", r.stderr)
        self.assertNotIn(b"Traceback", r.stderr)
        # The same console with its done record passes.
        fake = self.fake("fullqemu", """\
            import sys
            print('MEMBOOT {"event":"done","ok":true,"status":0}')
            sys.exit(33)
            """)
        self.assertEqual(self.run_tool(fake).returncode, 0)

    def test_status_from_the_done_record_without_an_exit_device(self):
        # ppc64le's pseries has no exit device (EXIT_FROM console): QEMU
        # ends with 0 after the kernel's power-off and the done record's
        # status is the run's. Without a done record that is no status
        # (126); on x86_64, whose status is QEMU's exit code, the same
        # console and rc 0 is no status too.
        elf = os.path.join(self.dir, "memboot.elf")
        with open(elf, "wb") as f:
            f.write(b"\x7fELF" + b"\0" * 60)
        said = self.fake("doneqemu", """\
            import sys
            print('MEMBOOT {"event":"done","ok":false,"status":5}')
            sys.exit(0)
            """)
        silent = self.fake("silentqemu", """\
            import sys
            print('memboot: a line')
            sys.exit(0)
            """)
        r = self.run_tool(said, "--arch", "ppc64le", "--image", elf)
        self.assertEqual(r.returncode, 5, r.stderr)
        r = self.run_tool(silent, "--arch", "ppc64le", "--image", elf)
        self.assertEqual(r.returncode, mb.EXIT_NO_STATUS, r.stderr)
        self.assertIn(b"without a kernel status", r.stderr)
        r = self.run_tool(said)
        self.assertEqual(r.returncode, mb.EXIT_NO_STATUS, r.stderr)

    def test_panic_without_done_record_keeps_its_status(self):
        fake = self.fake("cutpanic", """\
            import sys
            sys.exit(35)
            """)
        r = self.run_tool(fake)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(b"ended without a done record", r.stderr)

    def test_plain_output_and_status(self):
        r = self.run_tool(self.panic_fake(), "--append", "census=1 seed=7")
        self.assertEqual(r.returncode, 1, r.stderr)
        # The firmware's line before the kernel's first is held back.
        self.assertEqual(r.stdout.decode(), (
            "memboot: hello \ufffd\n"
            "\x1b[0mMEMBOOT " + FAKE_RECORD + "\n"
            "tail without newline\n"))
        self.assertEqual(
            r.stderr.decode(),
            "memboot: kernel status 1: panic (QEMU rc 35)\n")
        with open(os.path.join(self.dir, "argv.json")) as f:
            seen = json.load(f)
        self.assertEqual(seen["cmdline"], "census=1 seed=7")
        self.assertIn("-cdrom", seen["argv"])
        self.assertEqual(seen["argv"][seen["argv"].index("-cdrom") + 1],
                         self.iso)

    def test_json_only_records(self):
        r = self.run_tool(self.panic_fake(), "--json")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout.decode(), FAKE_RECORD + "\n")
        self.assertEqual(json.loads(r.stdout)["status"], 1)
        with open(os.path.join(self.dir, "argv.json")) as f:
            self.assertIsNone(json.load(f)["cmdline"])

    def test_host_times_and_log(self):
        log = os.path.join(self.dir, "console.log")
        r = self.run_tool(self.panic_fake(), "--host-times", "--log", log)
        self.assertEqual(r.returncode, 1, r.stderr)
        lines = r.stdout.decode().split("\n")
        self.assertEqual(lines[-1], "")
        lines = lines[:-1]
        self.assertEqual(len(lines), 3)
        for line in lines:
            self.assertRegex(line, r"^@\d+\.\d{6} ")
        self.assertEqual([re.sub(r"^@\d+\.\d{6} ", "", l) for l in lines], [
            "memboot: hello \ufffd",
            "\x1b[0mMEMBOOT " + FAKE_RECORD, "tail without newline"])
        stamps = [float(l[1:].split(" ", 1)[0]) for l in lines]
        self.assertEqual(stamps, sorted(stamps))
        with open(log, "rb") as f:
            logged = f.read()
        # The log has every line, the firmware's too; arrival times never
        # go backwards and the fake sleeps after line 1.
        logged_stamps = [float(t) for t in
                         re.findall(rb"(?m)^@(\d+\.\d{6}) ", logged)]
        self.assertEqual(logged_stamps, sorted(logged_stamps))
        self.assertGreaterEqual(logged_stamps[1] - logged_stamps[0], 0.04)
        self.assertEqual(re.sub(rb"(?m)^@\d+\.\d{6} ", b"", logged),
                         b"".join(self.CONSOLE))
        self.assertEqual(len(re.findall(rb"(?m)^@\d+\.\d{6} ", logged)), 4)

    def test_log_raw_with_json(self):
        log = os.path.join(self.dir, "console.log")
        r = self.run_tool(self.panic_fake(), "--json", "--log", log)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout.decode(), FAKE_RECORD + "\n")
        with open(log, "rb") as f:
            self.assertEqual(f.read(), b"".join(self.CONSOLE))

    def test_success_is_quiet(self):
        fake = self.fake("okqemu", """\
            import sys
            print('MEMBOOT {"event":"done","ok":true,"status":0}')
            sys.exit(33)
            """)
        r = self.run_tool(fake, "--json")
        self.assertEqual(r.returncode, 0)
        self.assertEqual(r.stdout, b'{"event":"done","ok":true,"status":0}\n')
        self.assertEqual(r.stderr, b"")

    def test_host_notes_when_vcpus_outnumber_host_cpus(self):
        fake = self.fake("okqemu", """\
            import sys
            print('MEMBOOT {"event":"done","ok":true,"status":0}')
            sys.exit(33)
            """)
        vcpus = (os.cpu_count() or 1) * 4
        r = self.run_tool(fake, "--json", "--nodes", "2", "--cpus-per-node",
                          str(vcpus // 2), host_notes=True)
        self.assertEqual(r.returncode, 0)
        self.assertEqual(r.stdout, b'{"event":"done","ok":true,"status":0}\n')
        self.assertIn(b"memboot: note: %d vCPUs on " % vcpus, r.stderr)
        self.assertIn(b"per-CPU and parallel timings", r.stderr)

    def test_timeout_kills_qemu(self):
        # A shell child (sleep) that shares the pipe must die too, or the
        # tool would wait for EOF forever.
        pidfile = os.path.join(self.dir, "child.pid")
        fake = self.fake("hangqemu", """\
            import subprocess, sys
            print("hanging", flush=True)
            child = subprocess.Popen(["sleep", "1000"])
            with open(%r, "w") as f:
                f.write(str(child.pid))
            child.wait()
            """ % pidfile)
        start = time.monotonic()
        r = self.run_tool(fake, "--timeout", "1", timeout=20)
        elapsed = time.monotonic() - start
        self.assertEqual(r.returncode, 124)
        # Not a kernel line: held back, then shown on stderr.
        self.assertEqual(r.stdout, b"")
        self.assertIn(b"  hanging\n", r.stderr)
        self.assertIn(b"memboot: timeout after 1 s; QEMU killed", r.stderr)
        self.assertLess(elapsed, 10)
        with open(pidfile) as f:
            child = int(f.read())
        self.assertFalse(process_alive(child), "sleep %d survived" % child)

    def test_missing_qemu(self):
        r = self.run_tool(os.path.join(self.dir, "no-such-qemu"))
        self.assertEqual(r.returncode, 125)
        self.assertIn(b"cannot start QEMU", r.stderr)

    def test_qemu_error_rc1(self):
        fake = self.fake("badqemu", """\
            import sys
            sys.stderr.write("qemu-system-x86_64: -numa: bad option\\n")
            sys.exit(1)
            """)
        r = self.run_tool(fake)
        self.assertEqual(r.returncode, 125)
        self.assertIn(b"qemu-system-x86_64: -numa: bad option\n", r.stderr)
        self.assertIn(b"QEMU failed (rc 1)", r.stderr)

    def test_disk_run_is_not_ended_by_a_done_record_linux_prints(self):
        # run --disk: the disk's Linux prints memboot's kept records (a done
        # among them) and goes on; the run ends when QEMU does, not
        # DONE_GRACE_S after that record.
        disk = os.path.join(self.dir, "disk.img")
        with open(disk, "wb") as f:
            f.truncate(1 << 20)
        fake = self.fake("linuxqemu", """\
            import sys, time
            print("[    0.000000] Linux version 6.1.0-37-cloud-amd64", flush=True)
            print('MEMBOOT {"event":"done","ok":true,"status":0}', flush=True)
            time.sleep(%r)
            print("[    9.000000] reader: end", flush=True)
            """ % (mb.DONE_GRACE_S + 1.5))
        r = self.run_tool(fake, "--disk", disk, "--timeout", "60")
        self.assertIn(b"reader: end", r.stdout, r.stderr)
        self.assertNotIn(b"halted after its done record", r.stderr)
        self.assertEqual(r.returncode, mb.EXIT_NO_STATUS, r.stderr)
        # memboot's own boot on the disk still ends the run with its status.
        fake = self.fake("membootqemu", """\
            import sys
            print('MEMBOOT {"event":"done","ok":true,"status":0}')
            sys.exit(33)
            """)
        self.assertEqual(self.run_tool(fake, "--disk", disk).returncode, 0)

    def test_rc0_no_kernel_status(self):
        fake = self.fake("resetqemu", """\
            print("rebooting")
            """)
        r = self.run_tool(fake)
        self.assertEqual(r.returncode, 126)
        self.assertEqual(r.stdout, b"")
        self.assertIn(b"no output from the kernel; the firmware printed:\n"
                      b"  rebooting\n", r.stderr)
        self.assertIn(b"without a kernel status", r.stderr)

    def test_uefi_vars_copy_and_cleanup(self):
        code = os.path.join(self.dir, "CODE.fd")
        vars_src = os.path.join(self.dir, "VARS.fd")
        for path, data in ((code, b"code"), (vars_src, b"vars")):
            with open(path, "wb") as f:
                f.write(data)
        os.chmod(vars_src, 0o444)
        fake = self.fake("uefiqemu", """\
            import json, os, sys
            drives = [a for a in sys.argv if a.startswith("if=pflash")]
            copy = drives[1].split("file=", 1)[1]
            with open(copy, "rb") as f:
                data = f.read()
            with open(copy, "ab") as f:
                f.write(b"written")
            print(json.dumps({"event": "vars", "data": data.decode(),
                              "copy": copy}))
            print('MEMBOOT {"event":"done","ok":true,"status":0}')
            sys.exit(33)
            """)
        env = dict(CLEAN_ENV, MEMBOOT_QEMU=fake, MEMBOOT_OVMF_CODE=code,
                   MEMBOOT_OVMF_VARS=vars_src)
        r = subprocess.run([sys.executable, TOOL, "run", "--iso", self.iso,
                            "--firmware", "uefi", "--json"],
                           env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        # The vars line is not a MEMBOOT record; only done is.
        self.assertEqual(r.stdout, b'{"event":"done","ok":true,"status":0}\n')
        r = subprocess.run([sys.executable, TOOL, "run", "--iso", self.iso,
                            "--firmware", "uefi", "--verbose"],
                           env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        rec = json.loads(r.stdout.splitlines()[0])
        self.assertEqual(rec["data"], "vars")
        self.assertNotEqual(rec["copy"], vars_src)
        self.assertFalse(os.path.exists(rec["copy"]))
        self.assertFalse(os.path.exists(os.path.dirname(rec["copy"])))
        with open(vars_src, "rb") as f:
            self.assertEqual(f.read(), b"vars")

    def test_dry_run(self):
        self.assertEqual(dry_run(self, "--iso", "/nonexistent/m.iso",
                                 "--nodes", "2", "--append", "a b", "--",
                                 "-numa", "dist,src=0,dst=1,val=21"), (
            DRY_RUN_PREFIX + "-cdrom /nonexistent/m.iso -boot d -m 2G "
            "-smp 2,sockets=2,cores=1,threads=1 "
            "-object memory-backend-ram,id=m0,size=1G "
            "-numa node,nodeid=0,cpus=0,memdev=m0 "
            "-object memory-backend-ram,id=m1,size=1G "
            "-numa node,nodeid=1,cpus=1,memdev=m1 "
            "-fw_cfg 'name=opt/memboot/cmdline,file=<tmpdir>/cmdline' "
            "-numa dist,src=0,dst=1,val=21\n"))

    def test_preset(self):
        env = dict(CLEAN_ENV, MEMBOOT_QEMU="/q/qemu")

        def tool(*argv):
            return subprocess.run([sys.executable, TOOL] + list(argv), env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  timeout=30)
        r = tool("run", "--preset", "list")
        self.assertEqual(r.returncode, 0, r.stderr)
        names = [line.split()[0] for line in r.stdout.decode().splitlines()]
        for seed in ("000", "001", "002", "003", "004"):
            self.assertIn("seed" + seed, names)
            self.assertIn("seed" + seed + "-small", names)
        # Seed 001's 4-node 512-CPU machine, small memory.
        r = tool("run", "--dry-run", "--iso", "/nonexistent/m.iso", "--preset",
                 "seed001-small")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout.decode()
        self.assertIn("-machine q35 -cpu max ", out)
        self.assertIn("-m 2G -smp 512,sockets=4,cores=128,threads=1 ", out)
        self.assertIn("-numa node,nodeid=3,cpus=384-511,memdev=m3", out)
        # Seed 004: 16 nodes of 128 GiB, not reserved.
        r = tool("run", "--dry-run", "--iso", "/nonexistent/m.iso", "--preset", "seed004")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("id=m15,size=128G,reserve=off", r.stdout.decode())
        # arm64's server shapes on virt: 256 CPUs need no q35 there.
        for name in ("ampere80", "ampere80-2n", "ampere128", "ampere128-2n", "ampere2s"):
            self.assertIn(name, names)
            self.assertIn(name + "-small", names)
        r = tool("run", "--dry-run", "--arch", "arm64", "--image", "/nonexistent/Image",
                 "--preset", "ampere2s-small")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout.decode()
        self.assertIn("/q/qemu -machine virt ", out)
        self.assertIn("-m 1G -smp 256,sockets=2,cores=128,threads=1 ", out)
        self.assertIn("-numa node,nodeid=1,cpus=128-255,memdev=m1", out)
        # Unknown names, a preset with its own topology options, pc at 512.
        for argv, msg in ((("--preset", "seed9"), "unknown preset 'seed9'"),
                          (("--preset", "seed002", "--nodes", "2"), "leave those out"),
                          (("--preset", "seed003", "--machine", "pc"), "need --machine q35")):
            r = tool("run", "--dry-run", "--iso", "/nonexistent/m.iso", *argv)
            self.assertEqual(r.returncode, 64, argv)
            self.assertIn(msg, r.stderr.decode())
            self.assertNotIn("Traceback", r.stderr.decode())
        # bench: the preset is the topology of every boot.
        r = tool("bench", "--preset", "seed002-small", "--dry-run")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [l for l in r.stdout.decode().splitlines() if l.startswith("/")]
        self.assertTrue(lines)
        for line in lines:
            self.assertIn("--nodes 2 --cpus-per-node 112 --mem-per-node 1G", line)
        r = tool("bench", "--preset", "nope", "--dry-run")
        self.assertEqual(r.returncode, 64)
        self.assertIn("unknown preset", r.stderr.decode())

    def test_help(self):
        for argv in ([TOOL, "--help"], [TOOL, "run", "--help"]):
            r = subprocess.run([sys.executable] + argv,
                               stdout=subprocess.PIPE, timeout=30)
            self.assertEqual(r.returncode, 0)
            self.assertIn(b"usage: memboot", r.stdout)


class BootPaths(unittest.TestCase):
    """--boot grub|efi|pvh: the media, firmware and command line each path
    gets."""

    def test_grub_is_the_default(self):
        self.assertEqual(build()[:len(BASE)], BASE)
        self.assertEqual(build("--boot", "grub"), build())

    def test_efi_esp_on_virtio_and_ovmf(self):
        cmd = build("--boot", "efi")
        self.assertNotIn("-cdrom", cmd)
        self.assertEqual(cmd[:len(BASE) - 4], BASE[:-4])
        self.assertEqual(cmd[len(BASE) - 4:len(BASE) - 2], [
            "-drive", "format=raw,if=virtio,readonly=on,"
                      "file=/x/memboot-esp.img"])
        self.assertIn("if=pflash,format=raw,unit=0,readonly=on,"
                      "file=/usr/share/OVMF/OVMF_CODE_4M.fd", cmd)
        self.assertEqual(build("--boot", "efi"),
                         build("--boot", "efi", "--firmware", "uefi"))

    def test_efi_append_still_fw_cfg(self):
        with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
            args = mb.parse_args(["run", "--iso", "/x/memboot.iso",
                                  "--boot", "efi", "--append", "a=1"])
            cmd = mb.build_qemu_command(args, "/tmp/r")
        self.assertEqual(cmd[-2:], [
            "-fw_cfg", "name=opt/memboot/cmdline,file=/tmp/r/cmdline"])

    def test_pvh_kernel_and_append(self):
        cmd = build("--boot", "pvh", "--append", "a=1 b")
        self.assertEqual(cmd[len(BASE) - 4:len(BASE) - 2],
                         ["-kernel", "/x/memboot.elf"])
        self.assertNotIn("-cdrom", cmd)
        self.assertNotIn("-fw_cfg", cmd)
        self.assertNotIn("-drive", cmd)           # SeaBIOS, no pflash
        self.assertEqual(cmd[-2:], ["-append", "a=1 b"])
        self.assertNotIn("-append", build("--boot", "pvh"))

    def test_pvh_writes_no_cmdline_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
                args = mb.parse_args(["run", "--boot", "pvh", "--append", "x"])
            mb.prepare_tmpdir(args, tmp)
            self.assertEqual(os.listdir(tmp), [])

    def test_paths_env_and_options(self):
        env = dict(CLEAN_ENV, MEMBOOT_ESP="/e/esp.img", MEMBOOT_ELF="/e/k.elf")
        with mock.patch.dict(os.environ, env, clear=True):
            efi = mb.parse_args(["run", "--boot", "efi"])
            pvh = mb.parse_args(["run", "--boot", "pvh", "--elf", "/o/k.elf"])
        self.assertEqual(efi.esp, "/e/esp.img")
        self.assertEqual(pvh.elf, "/o/k.elf")
        with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
            args = mb.parse_args(["run", "--iso", "/r/build/release/memboot.iso",
                                  "--boot", "pvh"])
        self.assertEqual(args.elf, "/r/build/release/memboot.elf")
        self.assertEqual(args.esp, "/r/build/release/memboot-esp.img")

    def test_firmware_conflicts(self):
        for argv, want in ((["--boot", "efi", "--firmware", "bios"], "uefi"),
                           (["--boot", "pvh", "--firmware", "uefi"], "bios")):
            with self.subTest(argv=argv):
                code, err = usage_error(["run"] + argv)
                self.assertEqual(code, 64)
                self.assertIn("--firmware " + want, err)
        code, err = usage_error(["run", "--boot", "uefi"])
        self.assertEqual(code, 64)
        self.assertIn("--boot", err)

    def test_missing_esp_and_elf(self):
        for argv, text in ((["--boot", "efi", "--esp", "/nonexistent/e.img"],
                            "no ESP image at /nonexistent/e.img; run 'make esp' first"),
                           (["--boot", "pvh", "--elf", "/nonexistent/k.elf"],
                            "no kernel ELF at /nonexistent/k.elf; run 'make' first")):
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                with mock.patch.dict(os.environ, CLEAN_ENV, clear=True):
                    code = mb.main(["run", "--iso", "/nonexistent/m.iso"] + argv)
            self.assertEqual(code, 64)
            self.assertEqual(err.getvalue(), "memboot: %s\n" % text)

    def test_dry_run_pvh(self):
        self.assertEqual(dry_run(self, "--boot", "pvh", "--elf", "/k/memboot.elf",
                                 "--append", "a b"), (
            DRY_RUN_PREFIX + "-kernel /k/memboot.elf -m 1G -smp 1,sockets=1,cores=1,threads=1 "
            "-append 'a b'\n"))


if __name__ == "__main__":
    unittest.main()
