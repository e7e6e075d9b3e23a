/*
 * fwcfg.h: QEMU's firmware configuration device (docs/specs/fw_cfg.txt in
 * QEMU): a selector port and a data port through which QEMU exposes named
 * files, such as those given with -fw_cfg name=...,file=...
 */
#ifndef MEMBOOT_BOOT_FWCFG_H
#define MEMBOOT_BOOT_FWCFG_H

#include <stdbool.h>
#include <stddef.h>

#include "arch/fwcfg.h"

/* Find fw_cfg file @name: its selector and size. False if no device or file. */
bool fwcfg_find_file(const char *name, struct fwcfg_blob *out);

/* Read up to @cap bytes of fw_cfg file @name. False if no device or file. */
bool fwcfg_read_file(const char *name, char *buf, size_t cap, size_t *len);

#endif
