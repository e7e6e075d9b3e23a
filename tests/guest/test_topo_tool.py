"""tools/memboot topo reads the ACPI tables a kernel dumped
(memboot.dump_acpi, acpidump text in the console log) and must build the same
topology the kernel built, from the same parser code compiled for the host."""
import json
import os
import re
import subprocess
import tempfile

from guest import ROOT, boot

TOPO = os.path.join(ROOT, "build", "host", "memboot-topo")
MEMBOOT = os.path.join(ROOT, "tools", "memboot")


def _topo(console):
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write(console)
    try:
        proc = subprocess.run([MEMBOOT, "topo", "--json", f.name], capture_output=True,
                              text=True, timeout=30)
    finally:
        os.unlink(f.name)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def _compare(b):
    b.expect_ok()
    host = _topo(b.console)
    h_cpus = [r for r in host if r["event"] == "cpu"]
    h_nodes = [r for r in host if r["event"] == "node"]
    assert h_cpus == b.all("cpu")
    k_nodes = b.all("node")
    assert len(h_nodes) == len(k_nodes)
    for h, k in zip(h_nodes, k_nodes):
        for key in ("node", "pxm", "cpus", "mem_node", "distance"):
            assert h.get(key) == k.get(key), (key, h, k)
        # The tool has no memory map: its node memory is the SRAT ranges,
        # which contain the kernel's usable ranges (without an SRAT it knows
        # no memory at all).
        if b.one("numa")["source"] != "srat":
            assert h["mem"] == []
            continue
        hr = [(int(s, 16), int(e, 16)) for s, e in h["mem"]]
        for s, e in k["mem"]:
            s, e = int(s, 16), int(e, 16)
            assert any(hs <= s and e <= he for hs, he in hr), (s, e, hr)
    hn, kn = [r for r in host if r["event"] == "numa"][0], b.one("numa")
    assert (hn["nodes"], hn["cpus"], hn["source"], hn["slit"]) == \
        (kn["nodes"], kn["cpus"], kn["source"], kn["slit"])


def test_topo_matches_kernel_two_nodes_with_slit():
    _compare(boot(nodes=2, cpus_per_node=2, mem_per_node="1G", append="memboot.dump_acpi",
                  qemu_args=["-numa", "dist,src=0,dst=1,val=21"]))


def test_topo_matches_kernel_memoryless_and_apic_gaps():
    args = ["-m", "2G", "-smp", "6,sockets=3,cores=2",
            "-object", "memory-backend-ram,id=m0,size=1G",
            "-object", "memory-backend-ram,id=m2,size=1G",
            "-numa", "node,nodeid=0,cpus=0-1,memdev=m0",
            "-numa", "node,nodeid=1,cpus=2-3",
            "-numa", "node,nodeid=2,cpus=4-5,memdev=m2"]
    _compare(boot(append="memboot.dump_acpi", qemu_args=args))


def test_topo_matches_kernel_without_srat():
    _compare(boot(cpus_per_node=2, append="memboot.dump_acpi"))


def test_topo_reads_acpixtract_directory():
    """Binary tables, one .dat per table, as acpixtract -a writes them."""
    b = boot(nodes=2, cpus_per_node=1, mem_per_node="512M", append="memboot.dump_acpi")
    b.expect_ok()
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "acpidump.txt")
        # acpixtract wants plain acpidump text: drop the log timestamps.
        with open(log, "w") as f:
            f.write(re.sub(r"(?m)^\[[ 0-9.]+\] ?", "", b.console))
        proc = subprocess.run(["acpixtract", "-a", log], cwd=d, capture_output=True,
                              text=True, timeout=30)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert os.path.exists(os.path.join(d, "apic.dat")), os.listdir(d)
        out = subprocess.run([TOPO, "--json", d], capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        recs = [json.loads(x) for x in out.stdout.splitlines()]
    assert [r for r in recs if r["event"] == "cpu"] == b.all("cpu")
    assert [r for r in recs if r["event"] == "numa"][0]["nodes"] == 2


def test_topo_refuses_input_without_madt():
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("nothing here\n")
        f.flush()
        proc = subprocess.run([TOPO, f.name], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1
    assert "no usable MADT" in proc.stderr
