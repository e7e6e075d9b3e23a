"""The kernel's own page tables: every RAM range mapped with the largest
pages the CPU has, the kernel image W^X."""
from guest import boot

GIB = 1 << 30


def test_direct_map_uses_1g_pages_when_the_cpu_has_them():
    b = boot(nodes=2, mem_per_node="3G")          # RAM to 8 GiB, above the hole
    b.expect_ok()
    dm = b.one("direct_map")
    assert int(dm["top"], 16) == 8 * GIB
    # [0, 4 GiB) plus [4, 8) GiB: 4 KiB pages only around the kernel image.
    assert dm["bytes_4k"] + dm["bytes_2m"] + dm["bytes_1g"] == 8 * GIB
    assert dm["bytes_1g"] >= 6 * GIB and dm["bytes_4k"] <= 8 << 20, dm


def test_direct_map_without_1g_pages():
    b = boot(cpu="qemu64", mem_per_node="5G")     # qemu64 lacks pdpe1gb
    b.expect_ok()
    dm = b.one("direct_map")
    assert dm["bytes_1g"] == 0
    assert dm["bytes_4k"] + dm["bytes_2m"] == int(dm["top"], 16)


def test_kernel_text_is_not_writable():
    b = boot(append="memboot.fault=write-text")
    assert b.expect_status(2)["reason"].startswith("#PF")
    assert "error code 0x3," in b.console          # write to a present page


def test_kernel_data_is_not_executable():
    b = boot(append="memboot.fault=exec-data")
    assert b.expect_status(2)["reason"].startswith("#PF")
    assert "kernel instruction fetch of a present page" in b.console
