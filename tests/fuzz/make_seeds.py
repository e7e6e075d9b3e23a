#!/usr/bin/env python3
"""Write the seed corpora of the ACPI fuzz targets, of fuzz_replay_events
(the replay file) and fuzz_dt's broken trees into tests/fuzz/seeds/.

    tests/fuzz/make_seeds.py

Seeds come from the tables QEMU's firmware built (the .acpidump fixtures in
tests/host/fixtures/acpi/) and from a few tables built here for what QEMU
never produces (x2APIC entries, online-capable processors, hot-pluggable
memory, a 4 x 4 SLIT). Each file is one input; the set stays a few KB.
Rerunning the script rewrites the same files.
"""
import os
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "host", "fixtures", "acpi")
SEEDS = os.path.join(ROOT, "tests", "fuzz", "seeds")


def read_acpidump(name):
    """{signature: [(phys, bytes)]} from an acpidump text file."""
    tables, sig, phys, data = {}, None, 0, bytearray()
    for line in open(os.path.join(FIXTURES, name)):
        m = re.match(r"^(\S{4}) @ 0x([0-9A-Fa-f]+)$", line.strip())
        if m:
            if sig:
                tables.setdefault(sig, []).append((phys, bytes(data)))
            sig, phys, data = m.group(1), int(m.group(2), 16), bytearray()
            continue
        m = re.match(r"^\s+[0-9A-Fa-f]+: ((?:[0-9A-Fa-f]{2} )+)", line)
        if m and sig:
            data += bytes(int(b, 16) for b in m.group(1).split())
    if sig:
        tables.setdefault(sig, []).append((phys, bytes(data)))
    return tables


def checksum_fix(t, at=9):
    t = bytearray(t)
    t[at] = 0
    t[at] = (-sum(t)) & 0xFF
    return bytes(t)


def sdt(sig, rev, body):
    hdr = struct.pack("<4sIBB6s8sI4sI", sig.encode(), 36 + len(body), rev, 0,
                      b"BOCHS ", b"BXPC    ", 1, b"BXPC", 1)
    return checksum_fix(hdr + body)


def madt(rev, entries):
    return sdt("APIC", rev, struct.pack("<II", 0xFEE00000, 1) + b"".join(entries))


def lapic(uid, apic, flags):
    return struct.pack("<BBBBI", 0, 8, uid, apic, flags)


def x2apic(apic, flags, uid):
    return struct.pack("<BBHIII", 9, 16, 0, apic, flags, uid)


def srat(rev, entries):
    return sdt("SRAT", rev, struct.pack("<IQ", 1, 0) + b"".join(entries))


def srat_cpu(pxm, apic, flags):
    return struct.pack("<BBBBIB3sI", 0, 16, pxm & 0xFF, apic, flags, 0,
                       (pxm >> 8).to_bytes(3, "little"), 0)


def srat_x2apic(pxm, apic, flags):
    return struct.pack("<BBHIIIII", 2, 24, 0, pxm, apic, flags, 0, 0)


def srat_mem(pxm, base, length, flags):
    return struct.pack("<BBIHQQIIQ", 1, 40, pxm, 0, base, length, 0, flags, 0)


def gicc(length, uid, flags, mpidr, gicr_base=0):
    e = struct.pack("<BBHIIIIIQQQQIQQ", 0xB, length, 0, uid, uid, flags, 0, 23, 0, 0, 0, 0,
                    25, gicr_base, mpidr)
    return e.ljust(length, b"\0")[:length]


def gicd(base, version):
    return struct.pack("<BBHIQIB3s", 0xC, 24, 0, 0, base, 0, version, b"\0\0\0")


def gicr(base, length):
    return struct.pack("<BBHQI", 0xE, 16, 0, base, length)


def gic_its(base):
    return struct.pack("<BBHIQI", 0xF, 20, 0, 0, base, 0)


def srat_gicc(pxm, uid, flags):
    return struct.pack("<BBIIII", 3, 18, pxm, uid, flags, 0)


def fadt_arm(flags):
    body = bytearray(276 - 36)
    struct.pack_into("<I", body, 112 - 36, 1 << 20)
    struct.pack_into("<H", body, 129 - 36, flags)
    return sdt("FACP", 6, bytes(body))


def gtdt(rev, timers=b""):
    body = struct.pack("<QIIIIIIIIIQII", 0xFFFFFFFFFFFFFFFF, 0, 29, 0, 30, 4, 27, 0, 26, 0,
                       0xFFFFFFFFFFFFFFFF, 1 if timers else 0,
                       (104 if rev >= 3 else 96) if timers else 0)
    if rev >= 3:
        body += struct.pack("<II", 28, 0)
    return sdt("GTDT", rev, body + timers)


def slit(rows):
    n = len(rows)
    return sdt("SLIT", 1, struct.pack("<Q", n) + bytes(d for r in rows for d in r))


def rsdp(rev, rsdt, xsdt):
    r = bytearray(struct.pack("<8sB6sBI", b"RSD PTR ", 0, b"BOCHS ", rev, rsdt))
    r[8] = (-sum(r)) & 0xFF
    if rev >= 2:
        r += struct.pack("<IQB3s", 36, xsdt, 0, b"\0\0\0")
        r[32] = (-sum(r)) & 0xFF
    return bytes(r)


def walk_image(control, rev, tables):
    """Control byte, then memory: RSDP at 0, root table, then @tables."""
    mem = bytearray(64)                        # RSDP goes here, padded
    placed = []
    # DSDT and FACS first, so the FADT can point at them.
    dsdt_at = len(mem)
    mem += sdt("DSDT", 1, b"\x10\x05\\_SB_")
    facs_at = len(mem) + 1                     # odd, like SeaBIOS
    mem += b"\0" + b"FACS" + struct.pack("<I", 64) + bytes(56)
    fadt = bytearray(244)
    struct.pack_into("<II", fadt, 36, facs_at, dsdt_at)
    struct.pack_into("<Q", fadt, 140, dsdt_at)
    tables = [sdt("FACP", 3, bytes(fadt[36:]))] + tables
    for t in tables:
        mem += b"\0" * 3                       # unaligned on purpose
        placed.append(len(mem))
        mem += t
    width = 8 if rev >= 2 else 4
    root_at = len(mem) + 1
    body = b"".join(a.to_bytes(width, "little") for a in placed)
    mem += b"\0" + sdt("XSDT" if rev >= 2 else "RSDT", 1, body)
    r = rsdp(rev, root_at if rev < 2 else 0, root_at if rev >= 2 else 0)
    mem[0:len(r)] = r
    return bytes([control]) + bytes(mem)


def dump_text(tables, prefix=""):
    out = []
    for sig, phys, b in tables:
        out.append("%s%s @ 0x%016X" % (prefix, sig, phys))
        for off in range(0, len(b), 16):
            chunk = b[off:off + 16]
            hexpart = "".join("%02X " % c for c in chunk).ljust(48)
            text = "".join(chr(c) if 0x20 <= c < 0x7F else "." for c in chunk)
            out.append("%s    %04X: %s %s" % (prefix, off, hexpart, text))
        out.append(prefix)
    return ("\n".join(out) + "\n").encode()


def numa_input(cpus, entries, slit_rows, srat_table):
    """An input of fuzz_numa: counts, CPU bytes (APIC ID, bit 7 online-capable
    only), raw map entries (start, length, type: 1 usable, 2 acpi, 3 nvs,
    4 unusable, 5 reserved), the SLIT matrix, then the SRAT table."""
    n = len(slit_rows)
    out = bytes([len(entries), len(cpus) - 1, n]) + bytes(cpus)
    for start, length, kind in entries:
        out += struct.pack("<QQB", start, length, kind - 1)
    out += bytes(d for r in slit_rows for d in r)
    return out + srat_table


def spcr(itype, space, width, access, addr, baud):
    """An SPCR (revision 2): interface type, the UART's GAS, the baud code.
    QEMU builds this table for its arm and riscv virt machines (a PL011 or a
    16550 in MMIO); on x86 the guest tests inject it with -acpitable."""
    body = bytearray(80 - 36)
    body[0] = itype
    body[4:16] = struct.pack("<BBBBQ", space, width, 0, access, addr)
    body[22] = baud
    return sdt("SPCR", 2, bytes(body))


def wdat(period_ms, min_count, max_count, entries, flags=1):
    """A WDAT: the watchdog header (32 bytes, not a PCI device), then
    entries of (action, instruction, space, bit offset, access size,
    address, value, mask), 24 bytes each."""
    body = struct.pack("<IHBBB3xIIIB3xI", 32, 0xFFFF, 0xFF, 0xFF, 0xFF, period_ms,
                       max_count, min_count, flags, len(entries))
    for action, instr, space, bit, access, addr, value, mask in entries:
        body += struct.pack("<BB2xBBBBQII", action, instr, space, 8 << (access - 1), bit,
                            access, addr, value, mask)
    return sdt("WDAT", 1, body)


def replay_file(cpus, events):
    """A replay file as tools/mbtools/lab.py write_replay writes it: events
    are (id, op, order, cpu)."""
    ids = 1 + max((e[0] for e in events), default=-1)
    return (b"MBREPLAY" + struct.pack("<IIQQ", 1, cpus, len(events), ids) + bytes(40) +
            b"".join(struct.pack("<IBBH", *e) for e in events))

# ---- SMBIOS (fuzz_smbios: a 32-byte entry point slot, then the table) ----

def smbios_struct(stype, handle, fields, strings=()):
    """A structure: header, @fields after it, the string set."""
    body = struct.pack("<BBH", stype, 4 + len(fields), handle) + fields
    if strings:
        return body + b"".join(x.encode() + b"\0" for x in strings) + b"\0"
    return body + b"\0\0"


def smbios_qemu_like(ram_bytes, speed=0, extra_dimms=0):
    """Types 0, 1, 4, 16, 17, 19, 32 and 127 as QEMU builds them."""
    t = smbios_struct(0, 0, struct.pack("<BBHBBQHBBBB", 1, 2, 0xE800, 3, 0, 8, 0, 0, 0, 0xff, 0xff),
                      ["SeaBIOS", "1.16.3", "04/01/2014"])
    t += smbios_struct(1, 0x100, struct.pack("<BBBB16sBBB", 1, 2, 3, 0, bytes(16), 6, 0, 0),
                       ["Acme", "Roadrunner", "pc-q35-10.0"])
    t += smbios_struct(4, 0x400, bytes([1, 3, 1, 2]) + bytes(8) + bytes([3, 0]) +
                       struct.pack("<HHHBB", 0, 2000, 2000, 0x41, 1) + bytes(6) + bytes(3) +
                       bytes([1, 1, 1, 0]) + bytes(8), ["CPU 0", "QEMU", "pc-q35-10.0"])
    t += smbios_struct(16, 0x1000, struct.pack("<BBBIHHQ", 1, 3, 6, 0x80000000, 0xfffe,
                                               1 + extra_dimms, 0))
    for i in range(1 + extra_dimms):
        mib = ram_bytes >> 20
        t += smbios_struct(17, 0x1100 + i,
                           struct.pack("<HHHHHBBBBBHHBBBBBIH", 0x1000, 0xfffe, 0xffff, 0xffff,
                                       min(mib, 0x7fff), 9, 0, 1, 0, 7, 2, speed, 2, 0, 0,
                                       0, 0, mib if mib >= 0x7fff else 0, speed),
                           ["DIMM %d" % i, "QEMU"])
    t += smbios_struct(19, 0x1300, struct.pack("<IIHB", 0, (ram_bytes >> 10) - 1, 0x1000, 1))
    t += smbios_struct(32, 0x2000, bytes(7))
    t += smbios_struct(127, 0x7f00, b"")
    return t


def smbios_ep3(table_len):
    ep = bytearray(struct.pack("<5sBBBBBBBIQ", b"_SM3_", 0, 0x18, 3, 0, 0, 1, 0,
                               table_len, 0x7fe00000))
    ep[5] = (-sum(ep)) & 0xFF
    return bytes(ep).ljust(32, b"\0")


def smbios_ep2(table_len, count):
    ep = bytearray(struct.pack("<4sBBBBHB5s5sBHIHB", b"_SM_", 0, 0x1f, 2, 8, 0x100, 0,
                               bytes(5), b"_DMI_", 0, table_len, 0xf0000, count, 0x28))
    ep[0x15] = (-sum(ep[0x10:0x1f])) & 0xFF
    ep[4] = (-sum(ep)) & 0xFF
    return bytes(ep).ljust(32, b"\0")


def pptt_node(flags, parent, uid, res=()):
    return struct.pack("<BBHIIII", 0, 20 + 4 * len(res), 0, flags, parent, uid, len(res)) + \
        b"".join(struct.pack("<I", r) for r in res)


def pptt_cache(nxt, size, sets, ways, attr, line):
    return struct.pack("<BBHIIIIBBHI", 1, 28, 0, 0xFF, nxt, size, sets, ways, attr, line, 0)


def pptt_virt(sockets, clusters, cores):
    """QEMU virt's PPTT (hw/acpi/aml-build.c build_pptt): packages,
    clusters, leaf cores; no caches."""
    body, uid = b"", 0
    for s in range(sockets):
        pkg = 36 + len(body)
        body += pptt_node(1, 0, s)
        for c in range(clusters):
            cl = 36 + len(body)
            body += pptt_node(0, pkg, c)
            for _ in range(cores):
                body += pptt_node(0xA, cl, uid)
                uid += 1
    return sdt("PPTT", 2, body)


def pptt_caches():
    """One package with an L3, one core with L1d/L1i (next: its L2) and two threads."""
    l3, l2, l1d, l1i = 36, 36 + 28, 36 + 56, 36 + 84
    pkg = 36 + 112
    core = pkg + 24
    body = (pptt_cache(0, 8 << 20, 8192, 16, 0x18, 64) + pptt_cache(0, 1 << 20, 2048, 8, 0x18, 64)
            + pptt_cache(l2, 65536, 256, 4, 0x10, 64) + pptt_cache(l2, 65536, 256, 4, 0x14, 64)
            + pptt_node(0x13, 0, 0, [l3]) + pptt_node(0, pkg, 0, [l1d, l1i, l2])
            + pptt_node(0xE, core, 0) + pptt_node(0xE, core, 1))
    return sdt("PPTT", 3, body)


def write(target, name, data):
    d = os.path.join(SEEDS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    slit_fx = read_acpidump("q35-numa2-slit.acpidump")
    smp6 = read_acpidump("q35-numa2-smp6.acpidump")
    maxcpus = read_acpidump("q35-maxcpus4.acpidump")
    pc = read_acpidump("pc-1node.acpidump")

    write("fuzz_acpi_madt", "qemu-q35-smp6", smp6["APIC"][0][1])
    write("fuzz_acpi_madt", "qemu-q35-maxcpus4", maxcpus["APIC"][0][1])
    write("fuzz_acpi_madt", "qemu-pc", pc["APIC"][0][1])
    write("fuzz_acpi_madt", "x2apic-online-capable",
          madt(5, [lapic(0, 0, 1), lapic(1, 1, 2), x2apic(0x100, 1, 2), x2apic(0x101, 2, 3),
                   struct.pack("<BBHQ", 5, 12, 0, 0xFEE00000)]))

    # QEMU virt's GICv3 MADT under AAVMF (hw/arm/virt-acpi-build.c's layout);
    # GICCs of the three lengths ACPI has had, an MPIDR with Aff3 and a bad one.
    write("fuzz_acpi_madt", "virt-gicv3",
          madt(4, [gicd(0x8000000, 3)] + [gicc(82, i, 1, (i // 2) << 8 | i % 2) for i in range(4)]
               + [gicr(0x80A0000, 0xF60000), gic_its(0x8080000)]))
    write("fuzz_acpi_madt", "gicc-lengths",
          madt(6, [gicc(76, 0, 1, 0x8000000000 | 0x10203, 0x80A0000), gicc(80, 1, 8, 0xFF),
                   gicc(82, 2, 1, 0x80000000), gicd(0x2F000000, 4)]))
    # No GICR range entry: each GICC names its own redistributor, four back
    # to back, two apart at 4 GiB, one named twice.
    write("fuzz_acpi_madt", "gicc-own-gicr",
          madt(5, [gicd(0x8000000, 3)]
               + [gicc(82, i, 1, i, 0x80A0000 + i * 0x20000) for i in range(4)]
               + [gicc(82, 4, 1, 0x100, 1 << 32), gicc(82, 5, 1, 0x101, (1 << 32) + 0x20000),
                  gicc(82, 6, 1, 0x102, (1 << 32) + 0x20000)]))
    # Two GICCs left at MPIDR 0 and one repeating MPIDR 0x1: the later refused.
    write("fuzz_acpi_madt", "gicc-mpidr-repeated",
          madt(4, [gicd(0x8000000, 3), gicc(82, 0, 1, 0), gicc(82, 1, 1, 1), gicc(82, 2, 1, 0),
                   gicc(82, 3, 1, 1)]))
    write("fuzz_acpi_srat", "virt-gicc-4n",
          srat(3, [srat_gicc(i // 2, i, 1) for i in range(8)]
               + [srat_mem(n, 0x40000000 + (n << 30), 1 << 30, 1) for n in range(4)]))
    write("fuzz_acpi_arm", "virt-gtdt-rev3", gtdt(3))
    write("fuzz_acpi_arm", "gtdt-rev2-one-timer", gtdt(2, struct.pack("<BHB", 0, 4, 0)))
    write("fuzz_acpi_arm", "fadt-psci-hvc", fadt_arm(3))
    write("fuzz_acpi_arm", "fadt-psci-smc", fadt_arm(1))
    write("fuzz_acpi_pptt", "virt-2s2c2c", pptt_virt(2, 2, 2))
    write("fuzz_acpi_pptt", "smt-caches", pptt_caches())
    write("fuzz_acpi_spcr", "sbsa-uart", spcr(0xE, 0, 32, 3, 0x2A400000, 0))

    write("fuzz_acpi_srat", "qemu-q35-numa2", slit_fx["SRAT"][0][1])
    write("fuzz_acpi_srat", "qemu-q35-smp6", smp6["SRAT"][0][1])
    write("fuzz_acpi_srat", "x2apic-hotplug-rev3",
          srat(3, [srat_cpu(0x101, 1, 1), srat_x2apic(2, 0x100, 1),
                   srat_mem(0, 0, 0xA0000, 1), srat_mem(0x101, 1 << 32, 1 << 30, 3),
                   srat_mem(2, 0xFFFFFFFF00000000, 1 << 33, 5), srat_mem(0, 0, 0, 0)]))

    write("fuzz_acpi_spcr", "io-com2-115200", spcr(0, 1, 8, 1, 0x2f8, 7))
    write("fuzz_acpi_spcr", "mmio32-as-is", spcr(0x12, 0, 32, 3, 0xfe030000, 0))
    write("fuzz_acpi_spcr", "qemu-virt-16550", spcr(0, 0, 8, 1, 0x10000000, 7))
    write("fuzz_acpi_spcr", "qemu-virt-pl011", spcr(3, 0, 8, 1, 0x9000000, 3))
    write("fuzz_acpi_spcr", "mmio-in-ram", spcr(0, 0, 8, 1, 0x8000000 - 8, 7))
    # A chipset-like watchdog in I/O space; one in memory with an unknown action.
    write("fuzz_acpi_wdat", "io-tco-like",
          wdat(600, 4, 1023, [(0x11, 0x82, 1, 1, 2, 0x468, 0, 1), (0x06, 0x83, 1, 0, 2, 0x472, 0, 0x3FF),
                              (0x01, 0x02, 1, 0, 2, 0x460, 1, 0xFFFF), (0x09, 0x82, 1, 11, 2, 0x468, 0, 1),
                              (0x0B, 0x82, 1, 11, 2, 0x468, 1, 1), (0x20, 0x00, 1, 1, 2, 0x466, 1, 1),
                              (0x21, 0x82, 1, 1, 2, 0x466, 1, 1)]))
    write("fuzz_acpi_wdat", "mmio-unknown-action",
          wdat(1000, 1, 255, [(0x01, 0x02, 0, 0, 3, 0xFED00000, 1, 1), (0x42, 0x02, 0, 0, 3, 0xFED00004, 1, 1),
                              (0x06, 0x03, 0, 8, 3, 0xFED00008, 0, 0xFF), (0x09, 0x02, 0, 0, 1, 0xFED0000C, 1, 1),
                              (0x0B, 0x02, 0, 0, 1, 0xFED0000C, 0, 1)]))
    write("fuzz_acpi_slit", "qemu-2x2", slit_fx["SLIT"][0][1])
    write("fuzz_acpi_slit", "4x4", slit([[10, 16, 21, 21], [16, 10, 21, 21],
                                         [21, 21, 10, 16], [21, 21, 16, 10]]))

    apic = madt(1, [lapic(i, i, 1) for i in range(4)])
    srat2 = srat(1, [srat_cpu(i // 2, i, 1) for i in range(4)] +
                 [srat_mem(0, 0, 0xA0000, 1), srat_mem(1, 1 << 32, 1 << 31, 1)])
    slit2 = slit([[10, 21], [21, 10]])
    write("fuzz_acpi_walk", "rsdt-q35", walk_image(2, 0, [apic, srat2, slit2]))
    write("fuzz_acpi_walk", "xsdt-q35", walk_image(0, 2, [apic, srat2, slit2]))
    write("fuzz_acpi_walk", "xsdt-nocheck-dump", walk_image(5, 2, [apic, srat2]))

    # A q35 map of 4 GiB (2 GiB below the PCI hole, 2 GiB above 4 GiB).
    q35 = [(0, 0x9FC00, 1), (0x9FC00, 0x400, 5), (0xF0000, 0x10000, 5),
           (0x100000, 0x7FEE0000 - 0x100000, 1), (0x7FEE0000, 0x20000, 2),
           (0xB0000000, 0x10000000, 5), (0xFEFFC000, 0x4000, 5), (1 << 32, 1 << 31, 1)]
    write("fuzz_numa", "q35-two-nodes-slit",
          numa_input([0, 1, 2, 3], q35, [[10, 21], [21, 10]],
                     srat(1, [srat_cpu(i // 2, i, 1) for i in range(4)] +
                          [srat_mem(0, 0, 0xA0000, 1), srat_mem(0, 0x100000, 0x7FF00000, 1),
                           srat_mem(1, 1 << 32, 1 << 31, 1)])))
    write("fuzz_numa", "q35-no-srat", numa_input([0, 1], q35, [], b""))
    write("fuzz_numa", "qemu-srat-online-capable",
          numa_input([0, 1, 0x82, 0x83], q35, [], slit_fx["SRAT"][0][1]))
    write("fuzz_numa", "memoryless-node-and-hole",
          numa_input([0, 1, 2], q35[:4] + [(1 << 32, 1 << 30, 1), (5 << 30, 1 << 30, 1)],
                     [[10, 20, 30], [20, 10, 20], [30, 20, 10]],
                     srat(1, [srat_cpu(i, i, 1) for i in range(3)] +
                          [srat_mem(0, 0, 1 << 31, 1), srat_mem(2, 1 << 32, 2 << 30, 1)])))
    # PXM 1 has no CPU and only memory beyond RAM: it gets no node, and
    # PXM 3 after it is renumbered node 1 (mm/numa_srat_mem.c drop_empty_nodes()).
    write("fuzz_numa", "cpuless-node-beyond-ram",
          numa_input([0, 1], q35[:4] + [(1 << 32, 1 << 30, 1)],
                     [[10, 17, 19, 21], [17, 10, 19, 23], [19, 19, 10, 25], [21, 23, 25, 10]],
                     srat(1, [srat_cpu(0, 0, 1), srat_cpu(0, 1, 1),
                              srat_mem(0, 0, 1 << 30, 1), srat_mem(1, 8 << 30, 1 << 30, 1),
                              srat_mem(3, 1 << 30, 4 << 30, 1)])))

    write("fuzz_acpi_dump_text", "slit-apic",
          dump_text([("SLIT", slit_fx["SLIT"][0][0], slit_fx["SLIT"][0][1]),
                     ("APIC", 0x7FFE229F, apic)]))
    write("fuzz_acpi_dump_text", "serial-log",
          b"[    0.001000] ACPI: RSDP 0x00000000000F5970 000014 (v00 BOCHS )\r\n" +
          dump_text([("RSDP", 0xF5970, rsdp(0, 0x7FFE250B, 0))], "[    0.002000] "))

    # The replay file's events: a sequence that fits, and the ones that do not.
    write("fuzz_replay_events", "two-cpus-fit",
          replay_file(2, [(0, 0, 3, 0), (1, 0, 0, 1), (2, 0, 9, 0), (1, 1, 0, 0),
                          (0, 1, 3, 1), (3, 0, 10, 1), (2, 1, 9, 1)]))
    write("fuzz_replay_events", "double-free", replay_file(1, [(0, 0, 0, 0), (0, 1, 0, 0),
                                                               (0, 1, 0, 0)]))
    write("fuzz_replay_events", "order0-free-order10",
          replay_file(1, [(0, 0, 0, 0), (0, 1, 10, 0)]))
    write("fuzz_replay_events", "free-first-realloc",
          replay_file(1, [(0, 1, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0), (1, 0, 11, 0)]))

    hmat_fx = read_acpidump("q35-hmat-4nodes.acpidump")
    write("fuzz_acpi_hmat", "qemu-2cpu-2memonly", hmat_fx["HMAT"][0][1])
    write("fuzz_acpi_srat", "qemu-q35-hmat-4nodes", hmat_fx["SRAT"][0][1])
    write("fuzz_acpi_srat", "generic-initiator-and-port",
          sdt("SRAT", 3, bytes(12) +
              struct.pack("<BBBBIHH12sII", 5, 32, 0, 1, 4, 0, 0x301, bytes(12), 3, 0) +
              struct.pack("<BBBBI8sI4sII", 6, 32, 0, 0, 5, b"ACPI0016", 7, bytes(4), 1, 0)))
    lb = struct.pack("<HHIBBBBIII Q", 1, 0, 32 + 8 + 8 + 8, 0, 1, 0, 0, 2, 2, 0, 1000)
    lb += struct.pack("<IIII", 0, 1, 0, 2) + struct.pack("<HHHH", 10, 40, 20, 0xffff)
    cache = struct.pack("<HHIIIQIHH", 2, 0, 36, 2, 0, 1 << 30, 0x00401121, 0, 2) + b"\x01\x00\x02\x00"
    write("fuzz_acpi_hmat", "read-latency-unreachable-cache",
          sdt("HMAT", 2, bytes(4) + struct.pack("<HHIHHIIIQQ", 0, 0, 40, 1, 0, 1, 2, 0, 0, 0) + lb + cache))

    q = smbios_qemu_like(2 << 30, speed=3200)
    write("fuzz_smbios", "qemu-30", smbios_ep3(len(q)) + q)
    q = smbios_qemu_like(1 << 30)
    write("fuzz_smbios", "qemu-21", smbios_ep2(len(q), 8) + q)
    big = smbios_qemu_like(64 << 30, speed=4800, extra_dimms=3)
    write("fuzz_smbios", "four-dimms-extended-size", smbios_ep3(0x10000) + big)

    # QEMU virt's tree with its strings block stretched past totalsize.
    with open(os.path.join(ROOT, "tests", "host", "fixtures", "dt", "virt-4n.dtb"), "rb") as f:
        dtb = bytearray(f.read())
    total, off_strings = struct.unpack_from(">I", dtb, 4)[0], struct.unpack_from(">I", dtb, 12)[0]
    struct.pack_into(">I", dtb, 32, total - off_strings + 16)
    write("fuzz_dt", "virt-4n-strings-past-end", bytes(dtb))
    return 0


if __name__ == "__main__":
    sys.exit(main())
