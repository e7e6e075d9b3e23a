"""install --bootnext on a server whose firmware does not boot GRUB: its
BootOrder starts Linux's EFI stub itself (rehearse.StubServer: Boot0080
with initrd= and the words as load options, no GRUB anywhere, as with
systemd-boot or a unified kernel image). The server's Linux runs memboot's
package (Debian's Python and efibootmgr in its initramfs, the .deb
unpacked), on the real firmware variables:

  boot 1  Linux (BootOrder): `memboot install --once` is refused (the
          firmware booted Boot0080, not GRUB; --bootnext offered), then
          `memboot install --bootnext` puts the loader, kernel and words
          on the ESP, adds a Boot#### outside BootOrder and sets BootNext;
  boot 2  the firmware's one-shot: memboot, through its own loader; it keeps
          its results and reboots;
  boot 3  Linux again (BootNext is spent): reads the results, then
          `memboot uninstall` deletes the entry and the files;
and the variable store afterwards has no Boot#### for memboot's loader and
no BootNext.

Wall time under TCG on the busy 2-core development host: about 4 minutes.
Runs in `make test-spare` and in CI (.ci/run), not in a plain `make test`."""

import os
import subprocess
import sys
import tempfile
import unittest

from guest import ROOT, Boot, spare_tests_only

sys.path.insert(0, os.path.join(ROOT, "tools"))
from mbtools import bootnext, efivars, rehearse  # noqa: E402

BOOT_S = 420
OUT = rehearse.MARK + " out "


def _output(b):
    return [l.strip()[len(OUT):] for l in b.console.splitlines() if l.strip().startswith(OUT)]


def _stage(srv, package_root, commands):
    srv.set_initrd(rehearse.stage_initramfs(srv.kernel_modules, srv.cache, package_root,
                                            commands))
    srv.put(os.path.join(rehearse.STUB_DIR, "initrd.img"))


def _run_lines(*argvs):
    """Shell lines that run each command and print its output and status,
    marked for _output()."""
    lines = []
    for argv in argvs:
        lines.append('( %s; echo "status $?" ) 2>&1 | while read -r l; do echo "%s$l"; done'
                     % (argv, OUT))
    return "\n".join(lines)


def _boot_entries(vars_file):
    """{Boot#### number: (description, path)} and BootNext of a store."""
    with open(vars_file, "rb") as f:
        store = efivars.parse_var_store(f.read())
    entries, nxt = {}, None
    for (name, guid), data in store.items():
        if guid.lower() != rehearse.GLOBAL_GUID:
            continue
        if name.startswith("Boot") and len(name) == 8 and name[4:].isalnum() \
                and name != "BootNext" and name != "BootOrder":
            try:
                entries[int(name[4:], 16)] = bootnext.parse_load_option(data)
            except ValueError:
                pass
        if name == "BootNext":
            nxt = int.from_bytes(data[:2], "little")
    return entries, nxt


def test_bootnext_where_the_firmware_boots_linux_itself():
    spare_tests_only()
    with tempfile.TemporaryDirectory(prefix="memboot-bootnext-") as tmp:
        try:
            srv = rehearse.StubServer(tmp)
            srv.build_tree()
            deb = rehearse.build_deb(tmp)
        except rehearse.RehearsalError as e:
            raise unittest.SkipTest(str(e))
        pkg = os.path.join(tmp, "package")
        subprocess.run(["dpkg-deb", "-x", deb, pkg], check=True)
        srv.write_disk()
        _stage(srv, pkg, _run_lines("memboot install --once",
                                    "memboot install --bootnext --append memboot.init=deferred",
                                    "efibootmgr -v"))

        first = srv.boot(timeout=BOOT_S, boot_class=Boot, strict=True)
        out = _output(first)
        assert rehearse.linux_vars(first.console) is not None, first.tail(80)
        text = "\n".join(out)
        assert "the firmware booted Boot0080 'Debian (Linux EFI stub)' (\\EFI\\linux\\" \
               "vmlinuz.efi), not GRUB" in text, text
        assert "install --bootnext" in text, text
        statuses = [l for l in out if l.startswith("status ")]
        assert statuses == ["status 64", "status 0", "status 0"], text
        assert "memboot: installed: Boot" in text, text
        entries, nxt = _boot_entries(srv.vars)
        ours = [n for n, (_, path) in entries.items()
                if path and path.lower() == bootnext.LOADER_PATH.lower()]
        assert len(ours) == 1 and nxt == ours[0], (entries, nxt)
        assert srv.get("EFI/memboot/cmdline.txt") == b"memboot.init=deferred memboot.exit=reboot\n"

        second = srv.boot(timeout=BOOT_S, boot_class=Boot, strict=True)
        done = second.one("done")
        assert done["status"] == 0, second.tail()
        assert second.one("boot")["boot_path"] == "efi"
        assert second.one("boot")["cmdline"] == "memboot.init=deferred memboot.exit=reboot"

        _stage(srv, pkg, _run_lines("memboot efivars --json", "memboot uninstall",
                                    "efibootmgr -v"))
        third = srv.boot(timeout=BOOT_S, boot_class=Boot, strict=True)
        files = rehearse.linux_vars(third.console)
        assert files, third.tail(80)
        text = "\n".join(_output(third))
        assert [l for l in _output(third) if l.startswith("status ")] == ["status 0"] * 3, text
        assert '"event":"done"' in text, text
        assert "memboot.efi" not in text.split("status 0")[-2], text    # efibootmgr -v after
        entries, nxt = _boot_entries(srv.vars)
        assert not [n for n, (_, path) in entries.items()
                    if path and path.lower() == bootnext.LOADER_PATH.lower()], entries
        assert nxt is None
        listing = subprocess.run(["mdir", "-i", srv._img(), "::/EFI"], capture_output=True,
                                 text=True).stdout
        assert "memboot" not in listing.lower(), listing
