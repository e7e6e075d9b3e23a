"""ACPI tables handed to UEFI firmware through QEMU's fw_cfg table loader,
for guests whose tables must be altered where `-acpitable` does not exist
(qemu-system-aarch64: "Option not supported for this target") and QEMU's
own etc/acpi/tables cannot be replaced (a second -fw_cfg of that name is
refused as a duplicate). With `-machine acpi=off` QEMU writes no tables;
the three files here take their place and AAVMF installs them as it
installs QEMU's (OvmfPkg's QemuFwCfgAcpi: allocate, patch pointers, fix
checksums, install every table a pointer names).

The table loader's commands (QEMU's hw/acpi/bios-linker-loader.c): 128
bytes each, a u32 command then ALLOCATE (file[56], u32 align, u8 zone: 1
high memory, 2 the F segment), ADD_POINTER (dest file[56], src file[56],
u32 offset, u8 size: the src file's address is added to the value at
offset) or ADD_CHECKSUM (file[56], u32 checksum offset, u32 start, u32
length: the byte is set so that the range sums to 0; it must be 0 before).
"""
import re
import struct

TABLES_FILE = "etc/acpi/tables"
RSDP_FILE = "etc/acpi/rsdp"
LOADER_FILE = "etc/table-loader"
FILE_BYTES = 56
ENTRY_BYTES = 128
# The FADT's DSDT (32-bit) and X_DSDT (64-bit) pointers, ACPI 6.5 5.2.9.
FADT_DSDT, FADT_X_DSDT = 40, 140


def tables_from_dump(console):
    """[(signature, bytes)] from the `memboot.dump_acpi` lines of a console
    ("SIG @ 0x...", then "    0000: xx xx ...  ascii"), each cut at the
    length its header gives."""
    tables, sig, data = [], None, bytearray()
    for line in console.splitlines():
        line = re.sub(r"^\[\s*\d+\.\d+\] ?", "", line)
        m = re.match(r"^(\S{4}) @ 0x[0-9A-Fa-f]+$", line.strip())
        if m:
            sig, data = m.group(1), bytearray()
            continue
        m = re.match(r"^\s+[0-9A-Fa-f]{4}: ((?:[0-9A-Fa-f]{2} )+)", line)
        if m and sig:
            data += bytes(int(x, 16) for x in m.group(1).split())
            if len(data) >= 8 and len(data) >= struct.unpack_from("<I", data, 4)[0]:
                tables.append((sig, bytes(data[:struct.unpack_from("<I", data, 4)[0]])))
                sig = None
    return tables


def _name(file):
    return file.encode().ljust(FILE_BYTES, b"\0")


def _allocate(file, align, zone):
    return struct.pack("<I", 1) + _name(file) + struct.pack("<IB", align, zone)


def _pointer(dest, src, offset, size):
    return struct.pack("<I", 2) + _name(dest) + _name(src) + struct.pack("<IB", offset, size)


def _checksum(file, offset, start, length):
    return struct.pack("<I", 3) + _name(file) + struct.pack("<III", offset, start, length)


def build(tables):
    """{fw_cfg name: bytes} for @tables [(signature, bytes)]: the DSDT the
    FADT points at, the others listed in a new XSDT, an RSDP revision 2."""
    blob, cmds, at = bytearray(), [], {}
    body = [(s, t) for s, t in tables if s not in ("RSDP", "XSDT", "RSDT", "FACS")]
    for sig, t in sorted(body, key=lambda st: st[0] != "DSDT"):
        at.setdefault(sig, len(blob))
        blob += t
        blob[at[sig] + 9] = 0
    offsets = [off for sig, off in sorted(at.items(), key=lambda kv: kv[1]) if sig != "DSDT"]
    if "FACP" in at and "DSDT" in at:
        fadt = at["FACP"]
        struct.pack_into("<I", blob, fadt + FADT_DSDT, at["DSDT"])
        cmds.append(_pointer(TABLES_FILE, TABLES_FILE, fadt + FADT_DSDT, 4))
        if struct.unpack_from("<I", blob, fadt + 4)[0] >= FADT_X_DSDT + 8:
            struct.pack_into("<Q", blob, fadt + FADT_X_DSDT, at["DSDT"])
            cmds.append(_pointer(TABLES_FILE, TABLES_FILE, fadt + FADT_X_DSDT, 8))
    xsdt = len(blob)
    blob += struct.pack("<4sIBB6s8sI4sI", b"XSDT", 36 + 8 * len(offsets), 1, 0, b"BOCHS ",
                        b"BXPC    ", 1, b"BXPC", 1)
    for i, off in enumerate(offsets):
        blob += struct.pack("<Q", off)
        cmds.append(_pointer(TABLES_FILE, TABLES_FILE, xsdt + 36 + 8 * i, 8))
    for off in sorted(list(at.values()) + [xsdt]):
        cmds.append(_checksum(TABLES_FILE, off + 9, off,
                              struct.unpack_from("<I", blob, off + 4)[0]))
    rsdp = struct.pack("<8sB6sBIIQB3s", b"RSD PTR ", 0, b"BOCHS ", 2, 0, 36, xsdt, 0, b"\0" * 3)
    cmds += [_pointer(RSDP_FILE, TABLES_FILE, 24, 8), _checksum(RSDP_FILE, 8, 0, 20),
             _checksum(RSDP_FILE, 32, 0, 36)]
    loader = [_allocate(TABLES_FILE, 64, 1), _allocate(RSDP_FILE, 16, 2)] + cmds
    return {TABLES_FILE: bytes(blob), RSDP_FILE: rsdp,
            LOADER_FILE: b"".join(c.ljust(ENTRY_BYTES, b"\0") for c in loader)}


def qemu_args(files, directory):
    """-machine acpi=off and the -fw_cfg options that give @files, written
    into @directory."""
    import os
    args = ["-machine", "acpi=off"]
    for name, data in files.items():
        path = os.path.join(directory, name.replace("/", "_"))
        with open(path, "wb") as f:
            f.write(data)
        args += ["-fw_cfg", "name=%s,file=%s" % (name, path)]
    return args
