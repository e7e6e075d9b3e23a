"""make deb (tools/mbtools/package.py): the package's command needs nothing
of the source tree. Its facts (exit statuses, record events, limits, the
results variables' sizes...) come from built_facts.json, generated from the
kernel tree at build time: loaded without the tree, every fact must equal
the tree's. The .deb holds what docs/spare-metal.md says, with its modes, and
its memboot command runs from an unpacked copy with no tree beside it."""

import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
from mbtools import package  # noqa: E402

FACT_NAMES = ("EXIT_STATUS", "EXIT_SYMBOLS", "QEMU_EXIT_BASE", "EVENTS", "LIMITS",
              "ALLOCATORS", "PHASE_TABLE", "SELFTESTS", "PHASES", "MAX_NODES",
              "PAGE_SIZE_BYTES", "DESC_BYTES", "DESC_BYTES_CHOICES")
# Prints the facts a copy of mbtools sees, as JSON (dict keys made strings).
PRINT_FACTS = """
import json, sys
sys.path.insert(0, sys.argv[1])
from mbtools import efivars, facts
out = {n: getattr(facts, n) for n in %r}
out = {n: ({str(k): v for k, v in x.items()} if isinstance(x, dict) else x)
       for n, x in out.items()}
out["MAX_CHUNKS"] = efivars.MAX_CHUNKS
out["RESULTS_ATTRIBUTES"] = efivars.RESULTS_ATTRIBUTES
out["built"] = facts._built is not None
print(json.dumps(out, sort_keys=True))
""" % (FACT_NAMES,)


def facts_of(tools_dir):
    proc = subprocess.run([sys.executable, "-c", PRINT_FACTS, tools_dir],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def fake_inputs(tmp):
    elf = os.path.join(tmp, "memboot.elf")
    with open(elf, "wb") as f:
        f.write(b"\x7fELF" + bytes(100))
    loader = os.path.join(tmp, "BOOTX64.EFI")
    with open(loader, "wb") as f:
        f.write(b"MZ" + bytes(100))
    return {"--elf": elf, "--loader": loader}


class BuiltFacts(unittest.TestCase):

    def stage(self, tmp):
        """The package's tree, staged; returns its tools directory."""
        root = os.path.join(tmp, "root")
        package.stage(root, fake_inputs(tmp), "0~test", "amd64")
        return os.path.join(root + package.LIB, "tools")

    def test_built_facts_equal_the_trees(self):
        with tempfile.TemporaryDirectory(prefix="memboot-pkg-") as tmp:
            tools = self.stage(tmp)
            packed = facts_of(tools)
            tree = facts_of(os.path.join(REPO_ROOT, "tools"))
        self.assertTrue(packed.pop("built"))
        self.assertFalse(tree.pop("built"))
        self.assertEqual(packed, tree)
        self.assertGreater(len(tree["EVENTS"]), 10)

    def test_a_changed_or_missing_fact_is_seen(self):
        with tempfile.TemporaryDirectory(prefix="memboot-pkg-") as tmp:
            tools = self.stage(tmp)
            path = os.path.join(tools, "mbtools", "built_facts.json")
            with open(path) as f:
                data = json.load(f)
            data["facts"]["EVENTS"] = data["facts"]["EVENTS"][:-1]
            with open(path, "w") as f:
                json.dump(data, f)
            self.assertNotEqual(facts_of(tools)["EVENTS"],
                                facts_of(os.path.join(REPO_ROOT, "tools"))["EVENTS"])
            del data["facts"]["LIMITS"]
            with open(path, "w") as f:
                json.dump(data, f)
            proc = subprocess.run([sys.executable, "-c", PRINT_FACTS, tools],
                                  capture_output=True, text=True, timeout=60)
            self.assertNotEqual(proc.returncode, 0)
            self.assertIn("has no LIMITS", proc.stderr)


@unittest.skipUnless(os.path.exists("/usr/bin/dpkg-deb"), "dpkg-deb missing")
class Deb(unittest.TestCase):

    def test_deb_contents_and_its_command_without_the_tree(self):
        with tempfile.TemporaryDirectory(prefix="memboot-deb-test-") as tmp:
            deb = package.build(fake_inputs(tmp), os.path.join(tmp, "out"), "fc446e3-dirty")
            self.assertEqual(os.path.basename(deb), "memboot_0~git.fc446e3.dirty_amd64.deb")
            listing = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True,
                                     check=True).stdout
            files = {}
            for line in listing.splitlines():
                parts = line.split()
                files[parts[-1].lstrip(".")] = (parts[0], parts[1])
            for path, mode in (("/usr/bin/memboot", "-rwxr-xr-x"),
                               ("/usr/lib/memboot/memboot.elf", "-rw-r--r--"),
                               ("/usr/lib/memboot/memboot.efi", "-rw-r--r--"),
                               ("/usr/lib/memboot/tools/mbtools/install.py", "-rw-r--r--"),
                               ("/usr/lib/memboot/tools/mbtools/built_facts.json",
                                "-rw-r--r--")):
                with self.subTest(path=path):
                    self.assertEqual(files.get(path), (mode, "root/root"))
            # Nothing in /etc or /boot: those are install's.
            self.assertFalse([p for p in files if p.startswith(("/etc", "/boot"))])
            info = subprocess.run(["dpkg-deb", "-f", deb, "Depends", "Architecture"],
                                  capture_output=True, text=True, check=True).stdout
            self.assertIn("Depends: python3 (>= 3.9), grub-common", info)
            self.assertIn("Architecture: amd64", info)
            unpacked = os.path.join(tmp, "unpacked")
            subprocess.run(["dpkg-deb", "-x", deb, unpacked], check=True)
            cmd = os.path.join(unpacked, "usr", "bin", "memboot")
            self.assertTrue(os.stat(cmd).st_mode & stat.S_IXUSR)
            env = {k: v for k, v in os.environ.items() if not k.startswith("MEMBOOT_")}
            for argv, text in ((["--help"], "install"), (["install", "--help"], "--bootnext"),
                               (["efivars", os.path.join(tmp, "empty")], "no memboot")):
                with self.subTest(argv=argv):
                    os.makedirs(os.path.join(tmp, "empty"), exist_ok=True)
                    proc = subprocess.run([sys.executable, cmd] + argv, capture_output=True,
                                          text=True, timeout=60, env=env, cwd=tmp)
                    self.assertNotIn("Traceback", proc.stderr)
                    self.assertIn(text, (proc.stdout + proc.stderr).lower()
                                  if text == "no memboot" else proc.stdout)
            # The package's own kernel is install's default.
            proc = subprocess.run([sys.executable, cmd, "install", "--root", tmp, "--dry-run"],
                                  capture_output=True, text=True, timeout=60, env=env)
            self.assertNotIn("Traceback", proc.stderr)
            self.assertNotIn("run 'make' first", proc.stderr)

    def test_arm64_has_a_place_and_no_kernel_yet(self):
        with tempfile.TemporaryDirectory(prefix="memboot-deb-test-") as tmp:
            with self.assertRaises(package.PackageError) as e:
                package.build(fake_inputs(tmp), tmp, "1", arch="arm64")
            self.assertIn("/usr/lib/memboot/arm64/memboot.elf", str(e.exception))
            with self.assertRaises(package.PackageError) as e:
                package.build({"--elf": os.path.join(tmp, "none")}, tmp, "1")
            self.assertIn("no such file", str(e.exception))


if __name__ == "__main__":
    unittest.main()
