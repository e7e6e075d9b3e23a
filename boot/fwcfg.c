/*
 * fwcfg.c: read a named file from QEMU fw_cfg through the I/O port interface
 * (selector 0x510, data 0x511). All multi-byte directory fields are
 * big-endian. Only called under a hypervisor.
 */
#include "boot/fwcfg.h"

#include <stdint.h>
#include <string.h>

#include "arch/fwcfg.h"

#define FW_CFG_SIGNATURE 0x0000
#define FW_CFG_FILE_DIR 0x0019

struct fwcfg_file {
	uint32_t size;      /* big-endian */
	uint16_t select;    /* big-endian */
	uint16_t reserved;
	char name[56];
};
_Static_assert(sizeof(struct fwcfg_file) == 64, "fw_cfg directory entry");

static void read_bytes(void *buf, size_t len)
{
	fwcfg_read(buf, len);
}

bool fwcfg_find_file(const char *name, struct fwcfg_blob *out)
{
	char sig[4];
	uint32_t count;

	outw(FW_CFG_PORT_SEL, FW_CFG_SIGNATURE);
	read_bytes(sig, sizeof(sig));
	if (memcmp(sig, "QEMU", 4) != 0)
		return false;

	outw(FW_CFG_PORT_SEL, FW_CFG_FILE_DIR);
	read_bytes(&count, sizeof(count));
	count = __builtin_bswap32(count);
	if (count > 4096)
		return false;   /* not a plausible directory */
	for (uint32_t i = 0; i < count; i++) {
		struct fwcfg_file f;
		read_bytes(&f, sizeof(f));
		f.name[sizeof(f.name) - 1] = '\0';
		if (strcmp(f.name, name) != 0)
			continue;
		out->select = __builtin_bswap16(f.select);
		out->bytes = __builtin_bswap32(f.size);
		return true;
	}
	return false;
}

bool fwcfg_read_file(const char *name, char *buf, size_t cap, size_t *len)
{
	struct fwcfg_blob f;

	if (!fwcfg_find_file(name, &f))
		return false;
	size_t size = f.bytes < cap ? f.bytes : cap;
	fwcfg_select(f.select);
	read_bytes(buf, size);
	*len = size;
	return true;
}
