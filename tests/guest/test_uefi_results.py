"""Results kept without a serial cable: a UEFI boot under OVMF writes its
summary records into UEFI variables, and `tools/memboot efivars` reads them
back from the variable store the boot left (`memboot run --vars FILE`),
figure for figure as the serial log has them. A store that is full, or no
writable store at all, gives a message and no failure of the boot. (OVMF
boots take seconds each under TCG: three of them.)"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from guest import MEMBOOT, ROOT, boot

sys.path.insert(0, os.path.join(ROOT, "tools"))
from mbtools import efivars  # noqa: E402

OVMF_VARS = os.environ.get("MEMBOOT_OVMF_VARS") or "/usr/share/OVMF/OVMF_VARS_4M.fd"


def _results(path, *extra):
    return subprocess.run([MEMBOOT, "efivars", path] + list(extra), cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def _node_init(recs):
    return [(r["node"], r["pages"], r["ns"]) for r in recs if r["event"] == "node_init"]


def test_results_read_back_from_the_variable_store():
    with tempfile.TemporaryDirectory(prefix="memboot-vars-") as tmp:
        vars_file = os.path.join(tmp, "vars.fd")
        b = boot(firmware="uefi", nodes=2, cpus_per_node=1, mem_per_node="512M",
                 timeout=180, tool_args=["--vars", vars_file])
        b.expect_ok()
        assert os.path.getsize(vars_file) == os.path.getsize(OVMF_VARS)
        out = _results(vars_file, "--json")
        human = _results(vars_file)
    assert out.returncode == 0, out.stderr
    kept = [json.loads(line) for line in out.stdout.splitlines()]
    assert _node_init(kept) == _node_init(b.records) and len(_node_init(kept)) == 2, \
        (_node_init(kept), _node_init(b.records))
    assert kept[-1] == b.one("done")
    # Results from many machines say which machine made them.
    assert [r for r in kept if r["event"] == "machine"] == [b.one("machine")]
    assert [r for r in kept if r["event"] == "phase"] == b.all("phase")
    assert human.returncode == 0 and "memboot: boot done, status 0 (ok)" in human.stdout, human


def test_full_store_and_no_store_are_a_message_not_a_failure():
    with tempfile.TemporaryDirectory(prefix="memboot-vars-") as tmp:
        vars_file = os.path.join(tmp, "vars.fd")
        with open(OVMF_VARS, "rb") as f:
            blob = f.read()
        junk = [("Junk%04d" % i, "12345678-1234-1234-1234-1234567890ab", b"\x5a" * 3000)
                for i in range(200)]
        blob, fitted = efivars.add_variables(blob, junk)
        assert fitted > 50, fitted
        with open(vars_file, "wb") as f:
            f.write(blob)
        full = boot(firmware="uefi", mem_per_node="512M", timeout=180,
                    tool_args=["--vars", vars_file])
        after = _results(vars_file)
    full.expect_ok()
    assert "results: SetVariable of MembootResults00 failed" in full.console, full.tail()
    assert after.returncode == 65 and "holds no memboot results" in after.stderr, after
    assert "Traceback" not in after.stderr
    # OVMF.fd as -bios: the variables live in ROM, none is kept for later.
    code = "/usr/share/qemu/OVMF.fd"
    if not os.path.exists(code):
        return
    rom = boot(firmware="uefi", mem_per_node="512M", timeout=180, qemu_args=["-bios", code])
    rom.expect_ok()
    assert "results: " in rom.console, rom.tail()
