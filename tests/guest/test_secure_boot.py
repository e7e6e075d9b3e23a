"""The unattended loop under Secure Boot (OVMF's Secure Boot build with
Microsoft's keys, run --secure-boot) on tools/memboot rehearse's simulated
server with Debian's signed shim and GRUB:

  - memboot's unsigned entry: Debian's signed GRUB has no multiboot2 and
    loads no module under Secure Boot, so the entry fails; it must fall back
    to the machine's own Linux by itself (the entry's `fallback`, `default`
    and timeout), never wait at a menu. Without them GRUB waits for a key
    after "Failed to boot both default and fallback entries" (issue 46).
  - memboot's loader signed with a key enrolled as a machine owner key
    (virt-fw-vars --add-mok writes MokList into the variable store as
    MokManager would leave it, so no key press is needed; shim reads it and
    verifies what GRUB chainloads): memboot boots once, keeps its results,
    and the next boot's Linux reads them back.

Wall time under TCG on the 2-core development host, both at once: about
150 s and 240 s (the Secure Boot build runs with SMM: its firmware alone
takes about 80 s). They run in `make test-spare` and in CI (.ci/run), not
in a plain `make test`."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from guest import MEMBOOT, ROOT, Boot, spare_tests_only

sys.path.insert(0, os.path.join(ROOT, "tools"))
from mbtools import rehearse  # noqa: E402

# One boot's limit: a Secure Boot boot took 120-200 s here (firmware about
# 80 s, GRUB loading and verifying Linux through shim about 80 s).
BOOT_S = 420
SB_FIRMWARE = ("/usr/share/OVMF/OVMF_CODE_4M.secboot.fd", "/usr/share/OVMF/OVMF_VARS_4M.ms.fd")


def _elf():
    spare_tests_only()
    elf = os.environ.get("MEMBOOT_ELF") or os.path.join(ROOT, "build", "debug", "memboot.elf")
    loader = os.path.join(os.path.dirname(elf), "efi", "BOOTX64.EFI")
    for path in (elf, loader) + SB_FIRMWARE:
        if not os.path.exists(path):
            raise unittest.SkipTest("%s missing" % path)
    return elf, loader


def _server(tmp):
    try:
        srv = rehearse.Server(tmp, secure_boot=True)
        srv.build_tree()
    except rehearse.RehearsalError as e:
        raise unittest.SkipTest(str(e))
    return srv


def _install(srv, elf, loader, *extra):
    inst = subprocess.run([MEMBOOT, "install", "--root", srv.esp, "--once", "--elf", elf,
                           "--loader", loader, "--esp", srv.esp, "--append",
                           "memboot.init=deferred"] + list(extra),
                          capture_output=True, text=True, timeout=120)
    assert inst.returncode == 0, inst.stderr
    srv.write_disk()


def test_refused_entry_falls_back_to_linux_by_itself():
    elf, loader = _elf()
    with tempfile.TemporaryDirectory(prefix="memboot-sb-") as tmp:
        srv = _server(tmp)
        _install(srv, elf, loader)
        assert srv.grubenv() == {"next_entry": "memboot"}
        # No key is ever pressed: QEMU's stdin is /dev/null. A menu waiting
        # for one would run into the timeout (status 124).
        b = srv.boot(timeout=BOOT_S, boot_class=Boot, strict=True)
        assert rehearse.linux_vars(b.console) is not None, b.tail(60)
        assert not b.records, "memboot booted under Secure Boot unsigned\n" + b.tail()
        assert "can't find command `multiboot2'" in b.console \
            or "prohibited by secure boot policy" in b.console, b.tail(80)
        assert "Secure Boot is enabled" in b.console, b.tail(80)
        assert srv.grubenv() == {"next_entry": ""}


def test_mok_signed_memboot_boots_and_its_results_come_back():
    elf, loader = _elf()
    for tool in ("openssl", "sbsign", "virt-fw-vars"):
        if shutil.which(tool) is None:
            raise unittest.SkipTest("%s missing (tools/setup-deps.sh installs it)" % tool)
    with tempfile.TemporaryDirectory(prefix="memboot-sb-") as tmp:
        srv = _server(tmp)
        key, cert = rehearse.make_key(tmp)
        srv.enroll_mok(cert)
        _install(srv, elf, loader, "--sign-key", key, "--sign-cert", cert)
        first = srv.boot(timeout=BOOT_S, boot_class=Boot, strict=True)
        done = first.one("done")
        assert done["status"] == 0, first.tail()
        assert first.one("boot")["boot_path"] == "efi", first.one("boot")
        assert first.one("boot")["cmdline"] == "memboot.init=deferred memboot.exit=reboot"
        assert srv.grubenv() == {"next_entry": ""}
        second = srv.boot(timeout=BOOT_S, boot_class=Boot, strict=True)
        files = rehearse.linux_vars(second.console)
        assert files, second.tail(60)
        d = os.path.join(tmp, "efivars")
        os.makedirs(d)
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        out = subprocess.run([MEMBOOT, "efivars", d, "--json"], capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        kept = [json.loads(l) for l in out.stdout.splitlines()]   # --json: bare objects
        assert [r for r in kept if r["event"] == "node_init"] == first.all("node_init")
        assert kept[-1] == done
