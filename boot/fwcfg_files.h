/*
 * fwcfg_files.h: the named files of QEMU's firmware configuration device (docs/specs/fw_cfg.txt in
 * QEMU): a selector port and a data port through which QEMU exposes named
 * files, such as those given with -fw_cfg name=...,file=...
 */
#ifndef MEMBOOT_BOOT_FWCFG_FILES_H
#define MEMBOOT_BOOT_FWCFG_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/services/fwcfg_blob.h"

/*
 * The fw_cfg files memboot reads, named once: tools/memboot writes the same
 * names (tools/mbtools/facts.py reads these defines).
 *
 * FWCFG_CMDLINE_FILE: its contents are appended to the command line, so
 * tools/memboot passes per-run arguments without rebuilding the ISO.
 * FWCFG_MB2_OVERRIDE_FILE: replaces the Multiboot2 information GRUB passed,
 * so that the kernel's handling of corrupted information (truncated tags,
 * bad sizes) is tested end to end, not only in the host tests of the parser.
 * FWCFG_REPLAY_FILE: a page-allocator trace for memboot.selftest=replay
 * (tools/memboot run --replay); boot only finds it, the self-test reads it
 * into memory it allocates.
 */
#define FWCFG_CMDLINE_FILE "opt/memboot/cmdline"
#define FWCFG_MB2_OVERRIDE_FILE "opt/memboot/mb2-override"
#define FWCFG_REPLAY_FILE "opt/memboot/replay"

/* Find fw_cfg file @name: its selector and size. False if no device or file. */
bool fwcfg_find_file(const char *name, struct fwcfg_blob *out);

/* Read up to @cap bytes of fw_cfg file @name. False if no device or file. */
bool fwcfg_read_file(const char *name, char *buf, size_t cap, size_t *len);

#endif
