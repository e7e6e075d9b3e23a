"""Consoles a person sees on a real machine: a boot without a serial port
still ends with its status; the screen (read back with QEMU's monitor
`screendump` and decoded glyph by glyph against the kernel's own font) shows
the closing summary; console= moves the output; the ACPI SPCR table adds the
firmware's port; the boot paths find their screens; memboot.exit ends the
boot as asked."""
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time

from guest import MEMBOOT, ROOT, Boot, boot

sys.path.insert(0, os.path.join(ROOT, "tools"))
from mbtools import screen  # noqa: E402


def test_no_serial_boot_reaches_done():
    """-serial none: nothing on any serial line, the status still comes back."""
    b = boot(nodes=2, cpus_per_node=1, mem_per_node="512M", qemu_args=["-serial", "none"])
    assert b.status == 0, b.tail()
    assert b.records == [] and b.console == "", b.console[-500:]


class Monitor:
    """QEMU's human monitor on a unix socket."""

    def __init__(self, path, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                assert time.monotonic() < deadline, "QEMU monitor never came up"
                time.sleep(0.2)
        self.sock.settimeout(30)
        self.read_prompt()

    def read_prompt(self):
        data = b""
        while not data.endswith(b"(qemu) "):
            chunk = self.sock.recv(4096)
            if not chunk:
                break
            data += chunk
        return data

    def command(self, line):
        self.sock.sendall(line.encode() + b"\n")
        return self.read_prompt()

    def close(self):
        try:
            self.sock.sendall(b"quit\n")
        except OSError:
            pass
        self.sock.close()


def test_screen_shows_the_summary():
    """No serial port, memboot.exit=halt: the boot is only on the screen,
    which must end with the per-node table, the phases and the status."""
    with tempfile.TemporaryDirectory(prefix="memboot-screen-") as tmp:
        sock, ppm = os.path.join(tmp, "monitor"), os.path.join(tmp, "screen.ppm")
        run = subprocess.Popen(
            [MEMBOOT, "run", "--nodes", "2", "--cpus-per-node", "1", "--mem-per-node", "512M",
             "--append", "memboot.exit=halt", "--timeout", "150",
             "--", "-serial", "none", "-monitor", "unix:%s,server,nowait" % sock],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines, before = [], None
        try:
            mon = Monitor(sock)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                mon.command("screendump " + ppm)
                if os.path.exists(ppm):
                    with open(ppm, "rb") as f:
                        lines = screen.decode(f.read())
                    # The halt line is the screen's last, but a dump may
                    # catch the text console mid-scroll (a torn line on a
                    # busy host): memboot.exit=halt leaves the screen still
                    # for good, so wait for two equal dumps in a row.
                    if any("halting with status 0" in l for l in lines) and lines == before:
                        break
                    before = lines
                time.sleep(1)
            mon.close()
        finally:
            try:
                run.wait(timeout=30)
            except subprocess.TimeoutExpired:
                run.kill()
                run.wait()
    text = "\n".join(lines)
    assert "halting with status 0 (ok)" in text, text
    assert "memboot: boot done, status 0 (ok)" in text, text
    heads = [l for l in lines if "summary: node cpus" in l]
    assert len(heads) == 1, text
    rows = [l.split("summary:", 1)[1].split() for l in lines if "summary:" in l]
    nodes = [r for r in rows if r and r[0].isdigit()]
    assert [(r[0], r[1], r[3]) for r in nodes] == [("0", "1", "deferred"), ("1", "1", "deferred")], text
    assert any("meminit" in l and "ms" in l for l in lines), text
    assert any("phases total" in l for l in lines), text
    # Records are for tools: the screen has none, and no undecodable cell.
    assert "MEMBOOT {" not in text and "\ufffd" not in text, text


def test_console_option_moves_output_to_com2():
    with tempfile.TemporaryDirectory(prefix="memboot-com2-") as tmp:
        com2 = os.path.join(tmp, "com2.log")
        b = boot(boot_path="pvh", append="console=ttyS1,9600",
                 qemu_args=["-serial", "stdio", "-serial", "file:" + com2])
        with open(com2, encoding="utf-8", errors="replace") as f:
            b2 = Boot(b.argv, b.status, f.read(), "")
    assert b.status == 0, b.tail()
    # COM1 stopped when the command line was read. Nothing reached it:
    # until the clock's precise figure (phase clockcheck) the log ring
    # holds every line (docs/measuring.md), and by then COM2 is the console.
    assert not b.all("phase"), b.tail()
    assert not b.all("console") and not b.all("done"), b.tail()
    # COM2 has the whole boot: the early lines replayed, then the rest.
    b2.expect_ok()
    assert b2.one("boot")["boot_path"] == "pvh"
    con = b2.one("console")
    assert (con["serial"], con["screen"]) == (["ttyS1"], "none"), con


def _run_tool(append):
    """tools/memboot run as a user runs it: (exit status, stdout, stderr)."""
    run = subprocess.run([MEMBOOT, "run", "--nodes", "1", "--cpus-per-node", "1",
                          "--mem-per-node", "512M", "--timeout", "120", "--append", append],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         timeout=180)
    return run.returncode, run.stdout, run.stderr


def test_run_says_where_a_screen_console_sent_the_output():
    """console=fb on a GRUB boot (which has a framebuffer) leaves COM1 out:
    nothing reaches the terminal, and the tool says so and gives the
    kernel's status (0), not the "console stopped early" exit 66."""
    rc, out, err = _run_tool("console=fb")
    assert rc == 0, (rc, err[-2000:])
    assert "MEMBOOT {" not in out, out[-2000:]
    assert "went to fb, not to this terminal" in err, err[-2000:]
    assert "console stopped early" not in err, err[-2000:]


def test_run_reads_the_serial_port_console_names():
    """console=ttyS1 alone: the tool puts COM2 on the terminal, so every
    record, done included, arrives as usual."""
    rc, out, err = _run_tool("console=ttyS1")
    assert rc == 0, (rc, err[-2000:])
    b = Boot([], rc, out, err)
    b.expect_ok()
    assert b.one("console")["serial"] == ["ttyS1"], b.one("console")


def test_bad_console_value_is_an_error_not_a_stop():
    b = boot(boot_path="pvh", append="console=ttyS9 console=ttyS0,12345")
    done = b.expect_ok()
    assert done["errors"] >= 2, done
    assert b.one("console")["serial"] == ["ttyS0"]


def _spcr_body(io_port, baud_code):
    """SPCR bytes after the 36-byte header (QEMU's -acpitable adds it)."""
    body = bytearray(80 - 36)
    body[0] = 0                                   # interface type: 16550
    body[4:16] = struct.pack("<BBBBQ", 1, 8, 0, 1, io_port)   # GAS: I/O space
    body[22] = baud_code
    return bytes(body)


def test_spcr_port_becomes_a_console():
    with tempfile.TemporaryDirectory(prefix="memboot-spcr-") as tmp:
        body, com2 = os.path.join(tmp, "spcr.bin"), os.path.join(tmp, "com2.log")
        with open(body, "wb") as f:
            f.write(_spcr_body(0x2f8, 7))
        b = boot(boot_path="pvh", qemu_args=["-serial", "stdio", "-serial", "file:" + com2,
                                             "-acpitable", "sig=SPCR,rev=2,data=" + body])
        with open(com2, encoding="utf-8", errors="replace") as f:
            b2 = Boot(b.argv, b.status, f.read(), "")
    b.expect_ok()
    assert b.all("console")[-1]["serial"] == ["ttyS0", "spcr@io0x2f8"], b.all("console")
    # The SPCR port got the lines before ACPI was read, then everything.
    b2.expect_ok()
    assert b2.one("boot")["boot_path"] == "pvh"
    assert len(b2.records) == len(b.records)


def test_screens_per_boot_path():
    pvh = boot(boot_path="pvh")
    pvh.expect_ok()
    assert {k: pvh.one("console")[k] for k in ("screen", "cols", "rows")} == \
        {"screen": "vga", "cols": 80, "rows": 25}
    efi = boot(boot_path="efi", firmware="uefi", mem_per_node="512M")
    efi.expect_ok()
    con = efi.one("console")
    assert con["screen"] == "fb" and con["cols"] >= 80 and con["rows"] >= 25, con


def test_exit_poweroff_and_reboot_leave_qemu():
    # Both end QEMU without its exit device (status 126 from the tool)
    # right after the done record; a halt would have run into the timeout.
    for how in ("poweroff", "reboot"):
        b = boot(boot_path="pvh", append="memboot.exit=" + how, timeout=60)
        assert b.status == 126, (how, b.tail())
        assert b.records[-1]["event"] == "done" and b.records[-1]["ok"], (how, b.tail())


def _stamped_lines(console):
    """(seconds, text) of every timestamped line, in the order printed."""
    out = []
    for line in console.splitlines():
        if line.startswith("[") and "] " in line:
            stamp, _, text = line[1:].partition("] ")
            out.append((float(stamp), text))
    return out


def _check_reports_in_place(b):
    lines = _stamped_lines(b.console)
    texts = [t for _, t in lines]

    def first(prefix):
        i = next((k for k, t in enumerate(texts) if t.startswith(prefix)), None)
        assert i is not None, "no line starting %r:\n%s" % (prefix, "\n".join(texts[:80]))
        return i

    # The deferred reports (the memory map, the ACPI table list, the NUMA
    # report) come where they were due, between the lines around them.
    # The TSC check runs after memory init (phase tscsync); its per-node
    # lines come with the SMP report when that is made late, and in the
    # check's own place when the report was made at once (after an error).
    at_once = b.one("smp").get("tsc_sync") is None
    check_at = ("phase meminit:", "tsc_sync: node 1", "phase tscsync:") if at_once else ()
    with_smp = () if at_once else ("tsc_sync: node 1",)
    order = [first(p) for p in ("phase console:", "Command line:", "BIOS-e820: ",
                                "Memory: ", "phase report:", "phase physmem:",
                                "ACPI: RSDP 0x", "ACPI: SRAT 0x", "phase acpi:",
                                "SRAT: PXM ", "Initmem setup node 1", "phase numa:",
                                "phase pagetables:") + with_smp + ("smp: Brought up",
                                "phase smp:") + (check_at or ("phase meminit:",))]
    assert order == sorted(order), order
    # Stamped with the moment they were due: no later than the next line
    # (up to phase smp's end, all of them the boot CPU's).
    for k in range(order[0], first("phase smp:")):
        assert lines[k][0] <= lines[k + 1][0] + 1e-6, (lines[k], lines[k + 1])
    # Their records too, in the same places.
    events = [r["event"] for r in b.records]
    assert events.index("mem_range") < events.index("mem_summary") < events.index("cpu") \
        < events.index("node") < events.index("numa") < events.index("cpu_up") \
        < events.index("smp") < events.index("memmap"), events
    if at_once:
        phase_at = {r["name"]: i for i, r in enumerate(b.records) if r["event"] == "phase"}
        assert phase_at["meminit"] < events.index("tsc_sync") < phase_at["tscsync"], events
    else:
        assert events.index("numa") < events.index("tsc_sync") < events.index("cpu_up"), events
    assert events.count("cpu_up") == 4 and events.count("tsc_sync") == 2, events
    assert [r["event"] for r in b.records[:events.index("mem_range")]].count("boot") == 1
    # The boot record was taken when it was due: the quick clock figure.
    boot_rec, tsc = b.one("boot"), b.one("tsc")
    assert (boot_rec["tsc_hz"], boot_rec["tsc_method"]) == (tsc["hz"], tsc["method"]), \
        (boot_rec, tsc)


def test_reports_are_printed_in_their_place():
    """The memory map, ACPI, NUMA and SMP reports are made when the consoles
    drain (after memory is usable: console_defer()), yet read as if made
    when due: the same lines and records in the same places, with the time
    they were due. Also with an error line before memory is usable (every
    line then drains at once, the pending reports with the first of them),
    and after one (reports then run at once)."""
    _check_reports_in_place(boot(nodes=2, cpus_per_node=2, mem_per_node="512M"))
    # An error in phase hugetlb1g, after the three reports were deferred.
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="1G", cpu="qemu64",
             append="hugepagesz=1G hugepages=1")
    done = b.expect_ok()
    assert done["errors"] == 1, done
    _check_reports_in_place(b)
    # An error on the command line, before any: every report runs at once.
    b = boot(nodes=2, cpus_per_node=2, mem_per_node="512M", append="memboot.init=lazzy")
    done = b.expect_ok()
    assert done["errors"] == 1, done
    _check_reports_in_place(b)
