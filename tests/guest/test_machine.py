"""The machine as SMBIOS describes it: what QEMU is told with `-smbios
type=0,1,17` comes back in the `machine`, `dimm` and `node_dimms` records,
through each way the entry point is found (the BIOS area under PVH and
GRUB, the EFI configuration table under OVMF through GRUB and through
memboot's own loader) with the 2.1 (`smbios-entry-point-type=32`) and 3.0
(`=64`) entry points. OVMF boots cost seconds each: two of them (the UEFI
results test checks the `machine` record is kept in the variables)."""
from guest import boot

GIB = 1 << 30
SMBIOS = ["-smbios", "type=0,vendor=Roadrunner Firmware,version=4.2.1,date=05/06/2026",
          "-smbios", "type=1,manufacturer=Acme Corp,product=Anvil 9000,version=rev B",
          "-smbios", "type=17,loc_pfx=CPU0_DIMM,bank=BANK 7,manufacturer=Hynix,"
                     "part=HMCG94AEBRA,speed=4800"]


def _boot(ep_bits, nodes=1, mem="1G", **kw):
    args = SMBIOS + ["-machine", "smbios-entry-point-type=%d" % ep_bits]
    return boot(nodes=nodes, cpus_per_node=1, mem_per_node=mem, qemu_args=args, **kw)


def check_smbios(b, ep_bits, source, ram_bytes, node):
    """The `-smbios` values of SMBIOS above in the records, one device of
    @ram_bytes on @node (tests/guest/test_arm64_machine.py uses it too)."""
    done = b.expect_ok()
    # Among them: the table lies in memory the firmware reserves.
    assert done["warnings"] == 0, b.all("warning")
    m = b.one("machine")
    assert m["entry"] == ("3.0" if ep_bits == 64 else "2.1"), m
    assert m["source"] == source, m
    assert (m["sys_vendor"], m["product"], m["sys_version"]) == \
        ("Acme Corp", "Anvil 9000", "rev B"), m
    assert (m["bios_vendor"], m["bios_version"], m["bios_date"]) == \
        ("Roadrunner Firmware", "4.2.1", "05/06/2026"), m
    assert m["truncated"] is False and m["bad_strings"] == 0, m
    assert m["sockets"] >= 1 and m["sockets_populated"] >= 1, m
    # QEMU describes its RAM as one device per 16 GiB.
    dimms = b.all("dimm")
    assert len(dimms) == m["dimms"] == 1, dimms
    d = dimms[0]
    assert d["locator"] == "CPU0_DIMM 0" and d["bank"] == "BANK 7", d
    assert (d["manufacturer"], d["part"]) == ("Hynix", "HMCG94AEBRA"), d
    assert d["speed_mts"] == 4800 and d["configured_mts"] == 4800, d
    assert d["size_bytes"] == ram_bytes and d["type"] == "RAM", d
    assert d["node"] == node, d
    per_node = b.all("node_dimms")
    assert [(r["node"], r["dimms"], r["bytes"]) for r in per_node] == [(node, 1, ram_bytes)], per_node
    size = "%d GiB" % (ram_bytes // GIB) if ram_bytes % GIB == 0 else "%d MiB" % (ram_bytes >> 20)
    assert per_node[0]["dimm_text"] == "1 x %s RAM-4800" % size, per_node


def test_pvh_bios_area_21():
    b = _boot(32, boot_path="pvh")
    check_smbios(b, 32, "bios-area", GIB, 0)


def test_pvh_bios_area_30_two_nodes():
    # One device for both nodes' memory: on more than one node (-2).
    b = _boot(64, nodes=2, mem="512M", boot_path="pvh")
    check_smbios(b, 64, "bios-area", GIB, -2)


def test_grub_bios_30():
    b = _boot(64)
    check_smbios(b, 64, "bios-area", GIB, 0)


def test_uefi_grub_21():
    b = _boot(32, mem="512M", firmware="uefi", timeout=180)
    check_smbios(b, 32, "efi-smbios", GIB // 2, 0)


def test_uefi_loader_30():
    b = _boot(64, mem="512M", firmware="uefi", boot_path="efi", timeout=180)
    check_smbios(b, 64, "efi-smbios3", GIB // 2, 0)
