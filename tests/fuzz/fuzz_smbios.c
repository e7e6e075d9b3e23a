/*
 * fuzz_smbios.c: smbios_entry_parse() on the input's first 32 bytes, then
 * smbios_parse() on the rest as the structure table: with the entry point's
 * length and count when it parsed, else with a length taken from the input
 * (which may claim more than the bytes there are, as a 3.0 maximum does),
 * then smbios_device_ranges() on every device.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernel/firmware/smbios.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/host/host_support.h"

static struct smbios_info info;

static void check_str(const char *s)
{
	CHECK(memchr(s, '\0', SMBIOS_STR_BYTES) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smbios_entry e;
	struct smbios_range r[8];
	size_t ep_len = size < SMBIOS_EP_MAX_BYTES ? size : SMBIOS_EP_MAX_BYTES;
	const uint8_t *table = data + ep_len;
	size_t avail = size - ep_len;

	host_log_reset();
	if (!smbios_entry_parse(data, ep_len, &e)) {
		CHECK(e.table_phys == 0 && e.table_bytes == 0);
		memset(&e, 0, sizeof(e));
		e.table_phys = 0x1000;
		/* The length from the input: sometimes beyond what is there. */
		e.table_bytes = ep_len >= 4 ? (uint32_t)(data[0] | data[1] << 8) : (uint32_t)avail;
		e.nr_structures = ep_len >= 3 ? data[2] : 0;
	} else {
		CHECK(e.table_phys && e.table_bytes);
	}
	if (!smbios_parse(avail ? table : NULL, avail, &e, &info)) {
		CHECK(info.nr_structures == 0);
		return 0;
	}
	CHECK(info.table_bytes_read <= avail && info.table_bytes_read <= e.table_bytes);
	CHECK(info.nr_sockets <= SMBIOS_MAX_SOCKETS);
	CHECK(info.nr_devices <= SMBIOS_MAX_DEVICES);
	CHECK(info.nr_populated <= info.nr_devices);
	CHECK(info.nr_array_ranges <= SMBIOS_MAX_RANGES && info.nr_device_ranges <= SMBIOS_MAX_RANGES);
	CHECK(!e.nr_structures || info.nr_structures <= e.nr_structures);
	check_str(info.bios_vendor);
	check_str(info.sys_product);
	check_str(info.board_version);
	for (uint32_t i = 0; i < info.nr_sockets; i++)
		check_str(info.sockets[i].version);
	for (uint32_t i = 0; i < info.nr_devices; i++) {
		check_str(info.devices[i].part);
		uint32_t n = smbios_device_ranges(&info, i, r, 8);
		for (uint32_t k = 0; k < n && k < 8; k++)
			CHECK(r[k].start < r[k].end);
	}
	CHECK(smbios_device_ranges(&info, info.nr_devices, r, 8) == 0);
	return 0;
}
