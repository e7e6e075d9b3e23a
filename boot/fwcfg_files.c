/*
 * fwcfg_files.c: read a named file from QEMU fw_cfg (arch/fwcfg.h reads the
 * bytes). All multi-byte directory fields are big-endian. Only called under
 * a hypervisor.
 */
#include "boot/fwcfg_files.h"

#include <stdint.h>
#include <string.h>

#include "arch/fwcfg.h"

#define FW_CFG_FILE_DIR 0x0019

struct fwcfg_file {
	uint32_t size;      /* big-endian */
	uint16_t select;    /* big-endian */
	uint16_t reserved;
	char name[56];
};
_Static_assert(sizeof(struct fwcfg_file) == 64, "fw_cfg directory entry");

static bool read_bytes(void *buf, size_t len)
{
	return arch_fwcfg_read(buf, len);
}

bool fwcfg_find_file(const char *name, struct fwcfg_blob *out)
{
	char sig[4];
	uint32_t count;

	arch_fwcfg_select(ARCH_FWCFG_SIGNATURE);
	if (!read_bytes(sig, sizeof(sig)) || memcmp(sig, "QEMU", 4) != 0)
		return false;

	arch_fwcfg_select(FW_CFG_FILE_DIR);
	if (!read_bytes(&count, sizeof(count)))
		return false;
	count = __builtin_bswap32(count);
	if (count > 4096)
		return false;   /* not a plausible directory */
	/* The directory in batches: one DMA request each, not one per entry. */
	for (uint32_t i = 0; i < count;) {
		static struct fwcfg_file batch[32];
		uint32_t n = count - i < 32 ? count - i : 32;

		if (!read_bytes(batch, n * sizeof(batch[0])))
			return false;
		for (uint32_t k = 0; k < n; k++) {
			struct fwcfg_file *f = &batch[k];
			f->name[sizeof(f->name) - 1] = '\0';
			if (strcmp(f->name, name) != 0)
				continue;
			out->select = __builtin_bswap16(f->select);
			out->bytes = __builtin_bswap32(f->size);
			return true;
		}
		i += n;
	}
	return false;
}

bool fwcfg_read_file(const char *name, char *buf, size_t cap, size_t *len)
{
	struct fwcfg_blob f;

	if (!fwcfg_find_file(name, &f))
		return false;
	size_t size = f.bytes < cap ? f.bytes : cap;
	arch_fwcfg_select(f.select);
	if (!read_bytes(buf, size))
		return false;
	*len = size;
	return true;
}
