/*
 * efivars.h: the boot's summary records kept in UEFI variables, for a
 * machine without a serial cable (docs/spare-metal.md, "No serial cable").
 *
 * The records a reader needs to see how the boot went (boot, numa,
 * node_init, memtest, memtest_bad, hugetlb, census, phase, summary, done) are copied as they are
 * made; after `done`, kernel_exit() writes them, one compact JSON object a
 * line, into non-volatile UEFI variables MembootResults00, 01, ... (each at
 * most RESULTS_CHUNK_BYTES) under the memboot vendor GUID, through the
 * runtime services' SetVariable in physical mode: memboot never calls
 * SetVirtualAddressMap, so the firmware's runtime code runs at the
 * addresses its memory map gives, which memboot's identity map covers.
 * `tools/memboot efivars` reads them back (from Linux's efivarfs, or from an
 * OVMF variable-store file). memboot.keep_results=off writes nothing.
 */
#ifndef MEMBOOT_KERNEL_REPORT_EFIVARS_H
#define MEMBOOT_KERNEL_REPORT_EFIVARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/services/mem_range.h"

#define RESULTS_CHUNK_BYTES 4000   /* under every firmware's variable size limit */
#define RESULTS_MAX_CHUNKS 32
/* 4d454d42-4f4f-5452-9e53-756c74730001: "MEMBOOTR" then random bytes. */
#define RESULTS_GUID_TEXT "4d454d42-4f4f-5452-9e53-756c74730001"

/* The UEFI system table and runtime code ranges the loader passed (0, none:
 * not a UEFI boot, nothing is kept). main.c hands them over. */
void efivars_setup(uint64_t efi_system_table, const struct mem_range *runtime_code,
		   uint32_t nr_runtime_code);
/* A finished record line "MEMBOOT {...}" (record_emit()): kept if it is one
 * of the summary's events. */
void efivars_capture(const char *line, size_t len);
/* Write what was kept into the UEFI variables (after done): lines say what
 * happened; a failure is a message, never a failed boot. */
void efivars_save(void);

#endif
