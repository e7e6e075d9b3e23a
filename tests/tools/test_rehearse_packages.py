"""rehearse.fetch_package: the .deb unpacked for a simulated server is the
one of the architecture asked for (and of apt's candidate version where apt
knows the package), never whichever a glob sorts first: the cache holds
amd64's and arm64's busybox-static side by side. Packages are built here
with dpkg-deb; apt knows none of their names, so nothing is downloaded."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tools"))
from mbtools import rehearse  # noqa: E402

NAME = "memboot-test-nonexistent-pkg"


def make_deb(cache, version, arch, text):
    """NAME_VERSION_ARCH.deb (the epoch's colon as apt-get download writes
    it) holding /payload with @text."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "DEBIAN"))
        with open(os.path.join(tmp, "DEBIAN", "control"), "w") as f:
            f.write("Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: t <t@t>\n"
                    "Description: t\n" % (NAME, version, arch))
        with open(os.path.join(tmp, "payload"), "w") as f:
            f.write(text)
        out = os.path.join(cache, "%s_%s_%s.deb" % (NAME, version.replace(":", "%3a"), arch))
        subprocess.run(["dpkg-deb", "-b", "-Zgzip", tmp, out], check=True, capture_output=True)


def payload(root):
    with open(os.path.join(root, "payload")) as f:
        return f.read()


@unittest.skipUnless(shutil.which("dpkg-deb"), "dpkg-deb missing")
class FetchPackage(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="memboot-cache-")
        self.cache = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_the_architecture_asked_for(self):
        # amd64 sorts first; arm64's must be the one for an arm64 server.
        make_deb(self.cache, "1:1.0-1", "amd64", "amd64")
        make_deb(self.cache, "1:1.0-1", "arm64", "arm64")
        arm = rehearse.fetch_package(NAME, self.cache, "arm64")
        self.assertEqual(payload(arm), "arm64")
        amd = rehearse.fetch_package(NAME, self.cache)
        self.assertEqual(payload(amd), "amd64")
        self.assertNotEqual(arm, amd)

    def test_two_versions_without_a_candidate_are_refused(self):
        make_deb(self.cache, "1.0-1", "arm64", "old")
        make_deb(self.cache, "2.0-1", "arm64", "new")
        with self.assertRaises(rehearse.RehearsalError) as cm:
            rehearse.fetch_package(NAME, self.cache, "arm64")
        self.assertIn("%s_1.0-1_arm64.deb, %s_2.0-1_arm64.deb" % (NAME, NAME), str(cm.exception))
        self.assertIn("apt names no candidate version", str(cm.exception))
        self.assertFalse(os.path.exists(os.path.join(self.cache, NAME + "_arm64")))

    def test_deb_version_reads_the_epoch(self):
        self.assertEqual(rehearse._deb_version(
            "/c/busybox-static_1%3a1.35.0-4+deb12u1+b1_arm64.deb"), "1:1.35.0-4+deb12u1+b1")


class RehearseArm64Refusals(unittest.TestCase):
    def test_what_arm64_has_no_way_to_rehearse(self):
        tool = os.path.join(REPO_ROOT, "tools", "memboot")
        with tempfile.NamedTemporaryFile(suffix=".deb") as deb:
            for argv, text in ((["--secure-boot"], "--arch arm64 has none here"),
                               (["--deb", deb.name], "holds x86_64's kernel only")):
                proc = subprocess.run([sys.executable, tool, "rehearse", "--arch", "arm64"]
                                      + argv, capture_output=True, text=True, timeout=60)
                self.assertEqual(proc.returncode, 64, proc.stderr)
                self.assertIn(text, proc.stderr)
                self.assertNotIn("Traceback", proc.stderr)


if __name__ == "__main__":
    unittest.main()
