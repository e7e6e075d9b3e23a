"""The unattended loop on a machine that stands for a spare server, end to
end, with a real Linux as the reader of memboot's results.

The disk is tools/memboot rehearse's simulated server (mbtools.rehearse:
a GPT disk whose EFI system partition holds GRUB, a grub.cfg whose header
consumes grubenv's next_entry as grub-mkconfig's does, Debian's Linux cloud
kernel with a busybox initramfs and efivarfs.ko as the machine's own OS),
and memboot put there by `tools/memboot install --root TREE --once`.

Under OVMF, each boot a new QEMU on the same disk and variable-store files
(QEMU runs with -no-reboot, so a reboot ends it):
  boot 1  GRUB boots next_entry, memboot (and clears next_entry); memboot
          keeps its results in UEFI variables and reboots (memboot.exit=reboot);
  boot 2  GRUB's default, Linux: mounts efivarfs and prints every
          MembootResults file as hex on the serial line;
  boot 3  Linux again: next_entry was consumed;
  boot 4  after `tools/memboot uninstall --root` (grub.cfg as before the
          install, grub-script-check accepts it), Linux, the default.
`tools/memboot efivars` on the bytes Linux printed gives the node_init
(node, pages, ns) and done records memboot printed on its own serial line;
the same bytes with one digit changed do not."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from guest import MEMBOOT, ROOT, Boot

sys.path.insert(0, os.path.join(ROOT, "tools"))
from mbtools import efivars, rehearse  # noqa: E402

WALL_NOTE = "about 60 s under TCG on the 2-core host: four boots"


def _need(path, what):
    if not path or not os.path.exists(path):
        raise unittest.SkipTest("%s missing (%s)" % (what, path))
    return path


def _server(tmp, elf, install_args=(), **kw):
    """The simulated server with memboot installed for one boot."""
    try:
        srv = rehearse.Server(tmp, **kw)
        srv.build_tree()
    except rehearse.RehearsalError as e:
        raise unittest.SkipTest(str(e))
    inst = subprocess.run([MEMBOOT, "install", "--root", srv.esp, "--once", "--elf", elf,
                           "--append", "memboot.init=deferred"] + list(install_args),
                          capture_output=True, text=True, timeout=120)
    assert inst.returncode == 0, inst.stderr
    srv.write_disk()
    return srv


def _uninstall(srv, uninstall_args=()):
    """`memboot uninstall --root` on the tree, and the disk made to match:
    the new grub.cfg and grubenv copied over, the kernel deleted (and the
    ESP's EFI/memboot where install put the loader there)."""
    out = subprocess.run([MEMBOOT, "uninstall", "--root", srv.esp] + list(uninstall_args),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    cfg = os.path.join(srv.esp, "boot", "grub", "grub.cfg")
    check = subprocess.run(["grub-script-check", cfg], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    with open(cfg) as f:
        assert f.read() == rehearse.grub_cfg(srv.arch)
    for name in ("grub.cfg", "grubenv"):
        srv.put("boot/grub/" + name)
    srv.delete("boot/memboot")
    if uninstall_args:
        assert not os.path.exists(os.path.join(srv.esp, "EFI", "memboot"))
        srv.delete("EFI/memboot")


def _linux_vars(b):
    """{file name: bytes} Linux printed; asserts it got to the end."""
    found = rehearse.linux_vars(b.console)
    assert found is not None, b.tail(60)
    return found


def _read_back(tmp, files, name):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    for fname, data in files.items():
        with open(os.path.join(d, fname), "wb") as f:
            f.write(data)
    return subprocess.run([MEMBOOT, "efivars", d, "--json"], capture_output=True, text=True,
                          timeout=60)


def _node_init(recs):
    return [(r["node"], r["pages"], r["ns"]) for r in recs if r["event"] == "node_init"]


def test_install_once_memboot_then_linux_reads_the_results():
    elf = _need(os.environ.get("MEMBOOT_ELF") or os.path.join(ROOT, "build", "debug",
                                                              "memboot.elf"), "kernel ELF")
    with tempfile.TemporaryDirectory(prefix="memboot-spare-") as tmp:
        srv = _server(tmp, elf)
        assert srv.grubenv() == {"next_entry": "memboot"}

        def boot():
            return srv.boot(timeout=240, boot_class=Boot, strict=True)

        # Boot 1: memboot, once. It reboots, which ends QEMU (-no-reboot).
        first = boot()
        done = first.one("done")
        assert done["status"] == 0 and first.one("boot")["cmdline"].startswith(
            "memboot.init=deferred memboot.exit=reboot"), first.tail()
        # save_env leaves the variable empty, as after grub-reboot's boot.
        assert srv.grubenv() == {"next_entry": ""}, "GRUB did not clear next_entry"

        # Boot 2: GRUB's default, Linux, prints the variables efivarfs shows.
        second = boot()
        assert not second.records, "memboot booted again\n" + second.tail()
        files = _linux_vars(second)
        assert files and all(efivars.GUID in n for n in files), files
        assert all(len(v) > 4 for v in files.values())

        # Boot 3: Linux again.
        third = boot()
        assert not third.records and _linux_vars(third) == files, third.tail()

        # Uninstalled, with a next_entry still naming memboot (as if the
        # one-shot had not been used yet): the default, Linux, boots.
        subprocess.run(["grub-editenv", os.path.join(srv.esp, "boot", "grub", "grubenv"), "set",
                        "next_entry=memboot"], check=True)
        _uninstall(srv)
        assert not srv.grubenv().get("next_entry")
        fourth = boot()
        assert not fourth.records and rehearse.MARK + " linux up" in fourth.console, \
            fourth.tail()

        out = _read_back(tmp, files, "efivars")
        assert out.returncode == 0, out.stderr
        kept = [json.loads(l) for l in out.stdout.splitlines()]
        assert _node_init(kept) == _node_init(first.records), (kept, first.records)
        assert len(_node_init(kept)) == 2
        assert kept[-1] == done

        # The check can fail: one digit of a node's ns changed.
        name = sorted(files)[0]
        data = files[name]
        ns = str(_node_init(first.records)[0][2]).encode()
        assert ns in data
        changed = dict(files, **{name: data.replace(ns, str(int(ns) + 1).encode(), 1)})
        out = _read_back(tmp, changed, "changed")
        kept = [json.loads(l) for l in out.stdout.splitlines()]
        assert _node_init(kept) != _node_init(first.records)
