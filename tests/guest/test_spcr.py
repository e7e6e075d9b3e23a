"""SPCR tables that name a UART memboot must not trust (QEMU's -acpitable
adds the table to the firmware's): an MMIO address with no device behind
it, one inside RAM, a register width no 16550 has, an I/O port with no UART.
Each is refused with a warning naming the problem, the boot reaches `done`
promptly (it used to wait 100,000 polls a character), and no page is lost."""
import os
import struct
import tempfile

from guest import boot


def _spcr_body(space, width, access, address, baud_code=7):
    """SPCR bytes after the 36-byte header: a 16550, its GAS, a baud code."""
    body = bytearray(80 - 36)
    body[0] = 0                                   # interface type: 16550
    body[4:16] = struct.pack("<BBBBQ", space, width, 0, access, address)
    body[22] = baud_code
    return bytes(body)


def _boot_with_spcr(body, **kw):
    with tempfile.TemporaryDirectory(prefix="memboot-spcr-") as tmp:
        path = os.path.join(tmp, "spcr.bin")
        with open(path, "wb") as f:
            f.write(body)
        return boot(boot_path="pvh", timeout=60,
                    qemu_args=["-acpitable", "sig=SPCR,rev=2,data=" + path], **kw)


def _refused(b, words):
    done = b.expect_ok()
    msgs = [w["msg"] for w in b.all("warning")]
    assert any(all(x in m for x in words) for m in msgs), msgs
    assert b.all("console")[-1]["serial"] == ["ttyS0"], b.all("console")
    assert all(c["lost"] == 0 for c in b.all("census"))
    # Refused once, up front; the consoles never waited on it.
    assert all(d["dropped"] == 0 for d in b.all("console_drain")), b.all("console_drain")
    return done


def test_spcr_mmio_with_no_device_is_probed_and_refused():
    b = _boot_with_spcr(_spcr_body(0, 8, 1, 0xfe000000))
    done = _refused(b, ["no 16550 answers", "MMIO 0xfe000000"])
    assert done["total_ns"] < 10e9, done


def test_spcr_mmio_inside_ram_is_refused():
    b = _boot_with_spcr(_spcr_body(0, 8, 1, 0x8000000))
    _refused(b, ["UART refused", "0x8000000 lies in usable memory"])


def test_spcr_register_width_9_is_refused():
    b = _boot_with_spcr(_spcr_body(0, 9, 1, 0xfe000000))
    _refused(b, ["bit width of 9"])


def test_spcr_io_port_with_no_uart_is_refused():
    # QEMU puts a 16550 at 0x3f8 only (one -serial): nothing at 0x2e8.
    b = _boot_with_spcr(_spcr_body(1, 8, 1, 0x2e8))
    _refused(b, ["no 16550 answers", "I/O port 0x2e8"])


def test_console_fb_without_a_framebuffer_stays_on_serial():
    """PVH has no framebuffer: console=fb alone would leave nothing, so COM1
    carries on, says so, and the boot is whole on it."""
    b = boot(boot_path="pvh", append="console=fb")
    done = b.expect_ok()
    msgs = [w["msg"] for w in b.all("warning")]
    assert any("no fb console" in m for m in msgs), msgs
    assert any("staying on ttyS0" in m for m in msgs), msgs
    # Two warnings of the console's own; a busy host may add others (a
    # clock reference that disagrees), which are not this test's, and done
    # counts every one.
    assert len([m for m in msgs if m.startswith("console:")]) == 2, msgs
    assert done["warnings"] == len(msgs), (done, msgs)
    assert b.all("console")[-1]["serial"] == ["ttyS0"]
    assert b.all("phase")[-1]["name"] == "selftest"
