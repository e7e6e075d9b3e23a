/*
 * fwcfg_blob.h: a QEMU fw_cfg file found at boot (boot/fwcfg_files.c), handed to
 * whoever reads it later through arch/fwcfg.h: its selector and size.
 */
#ifndef MEMBOOT_KERNEL_FWCFG_BLOB_H
#define MEMBOOT_KERNEL_FWCFG_BLOB_H

#include <stdint.h>

struct fwcfg_blob {
	uint16_t select;
	uint32_t bytes;          /* 0: no such file */
};

#endif
