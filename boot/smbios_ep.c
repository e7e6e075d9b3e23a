/*
 * smbios_ep.c: where the firmware put its SMBIOS entry point, per boot path
 * (boot/smbios_ep.h).
 *
 * Rules obeyed:
 *  - DSP0134 5.2.1/5.2.2, "non-EFI systems": the 2.x "_SM_" or 3.0 "_SM3_"
 *    entry point lies on a 16-byte boundary in physical 0xF0000-0xFFFFF;
 *    when both are there, the 3.0 one describes the table fully (a 2.x
 *    table is at most 64 KiB below 4 GiB);
 *  - DSP0134 5.2, "EFI systems", and UEFI 2.10 4.6: the EFI configuration
 *    table holds SMBIOS3_TABLE_GUID and SMBIOS_TABLE_GUID, each with the
 *    physical address of its entry point (boot/efi_config.c reads it).
 * Multiboot2 has no SMBIOS tag GRUB fills, so a GRUB boot under UEFI finds
 * it through the system table of tag 12 like memboot's own loader does.
 * Only the anchor and the checksum are checked here (to choose among
 * candidates); kernel/firmware/smbios.c checks the rest.
 */
#include "boot/smbios_ep.h"

#include <string.h>

#include "arch/map.h"
#include "boot/efi_config.h"
#include "kernel/services/log.h"

#define BIOS_AREA_START 0xf0000u
#define BIOS_AREA_END 0x100000u

/* f2fd1544-9794-4a2c-992e-e5bbcf20e394 and eb9d2d31-2d88-11d3-9a16-0090273fc14d,
 * in the byte order EFI_GUID lies in memory. */
static const uint8_t smbios3_guid[16] = {
	0x44, 0x15, 0xfd, 0xf2, 0x94, 0x97, 0x2c, 0x4a,
	0x99, 0x2e, 0xe5, 0xbb, 0xcf, 0x20, 0xe3, 0x94,
};
static const uint8_t smbios_guid[16] = {
	0x31, 0x2d, 0x9d, 0xeb, 0x88, 0x2d, 0xd3, 0x11,
	0x9a, 0x16, 0x00, 0x90, 0x27, 0x3f, 0xc1, 0x4d,
};

/* The entry point's length if @p holds a sound anchor and checksum, else 0. */
static uint32_t anchor_bytes(const uint8_t *p, bool v3)
{
	uint32_t len = v3 ? p[6] : p[5];
	uint8_t sum = 0;

	if (memcmp(p, v3 ? "_SM3_" : "_SM_", v3 ? 5 : 4) != 0)
		return 0;
	if (len < (v3 ? 0x18u : 0x1eu) || len > BOOTINFO_SMBIOS_EP_BYTES)
		return 0;
	for (uint32_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + p[i]);
	return sum == 0 ? len : 0;
}

static bool take(struct bootinfo *bi, uint64_t phys, bool v3, const char *source)
{
	const uint8_t *p = arch_map_phys(NULL, phys, BOOTINFO_SMBIOS_EP_BYTES);
	uint32_t len;

	if (!p || !(len = anchor_bytes(p, v3)))
		return false;
	memcpy(bi->smbios_ep, p, len);
	bi->smbios_ep_len = len;
	bi->smbios_ep_phys = phys;
	bi->smbios_source = source;
	return true;
}

static void scan_bios_area(struct bootinfo *bi)
{
	const uint8_t *area = arch_map_phys(NULL, BIOS_AREA_START, BIOS_AREA_END - BIOS_AREA_START);
	uint64_t v2 = 0;

	if (!area)
		return;
	for (uint32_t off = 0; off + BOOTINFO_SMBIOS_EP_BYTES <= BIOS_AREA_END - BIOS_AREA_START;
	     off += 16) {
		const uint8_t *p = area + off;

		if (p[0] != '_' || p[1] != 'S' || p[2] != 'M')
			continue;
		if (take(bi, BIOS_AREA_START + off, true, "bios-area"))
			return;
		if (!v2 && p[3] == '_')
			v2 = BIOS_AREA_START + off;
	}
	if (v2)
		take(bi, v2, false, "bios-area");
}

static void find_in_efi(struct bootinfo *bi)
{
	uint64_t v3 = boot_efi_config_find(bi, smbios3_guid, "SMBIOS");

	if (v3 && take(bi, v3, true, "efi-smbios3"))
		return;
	/* Without a (sound) 3.0 entry point, the 2.x one. */
	uint64_t v2 = boot_efi_config_find(bi, smbios_guid, NULL);
	if (v2)
		take(bi, v2, false, "efi-smbios");
}

void boot_find_smbios(struct bootinfo *bi)
{
	bi->smbios_ep_len = 0;
	/* A UEFI machine may have nothing in the BIOS area (or a legacy copy
	 * the CSM left): its configuration table is the authority. */
	if (bi->efi_system_table)
		find_in_efi(bi);
	else if (ARCH_BIOS_AREA)
		scan_bios_area(bi);
}
