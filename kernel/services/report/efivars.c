/*
 * efivars.c: the boot's summary records into UEFI variables (efivars.h).
 *
 * Rules obeyed (UEFI 2.10):
 *  - 4.3 the system table starts with the signature "IBI SYST" and holds
 *    the runtime services table at offset 88; 8.1 the runtime services
 *    table starts with "RUNTSERV", SetVariable at offset 88;
 *  - 8.2 SetVariable(Name, Guid, Attributes, DataSize, Data): attributes
 *    NON_VOLATILE | BOOTSERVICE_ACCESS | RUNTIME_ACCESS (7), DataSize 0
 *    deletes; the call uses the architecture's UEFI convention
 *    (ARCH_EFIAPI, arch/efi.h: 2.3);
 *  - 2.3.4 runtime services may be called with paging on if memory is
 *    identity mapped, as memboot's map is (arch/paging.c: all of the first
 *    4 GiB, RAM above); the runtime code pages are made executable for the
 *    call and no-execute again after it.
 */
#include "kernel/services/report/efivars.h"

#include <stdio.h>
#include <string.h>

#include "arch/counter.h"
#include "arch/efi.h"
#include "arch/map.h"
#include "kernel/services/console/options.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"
#include "kernel/services/clock/time.h"

#define SYSTEM_TABLE_SIGNATURE 0x5453595320494249ULL   /* "IBI SYST" */
#define RUNTIME_SIGNATURE 0x56524553544e5552ULL        /* "RUNTSERV" */
#define ST_RUNTIME_SERVICES 88
#define RT_SET_VARIABLE 88
#define EFI_VARIABLE_NV_BS_RT 7u
#define EFI_ERROR_BIT (1ULL << 63)
#define RESULTS_BYTES (RESULTS_CHUNK_BYTES * RESULTS_MAX_CHUNKS)

typedef uint64_t (ARCH_EFIAPI *efi_set_variable_fn)(const uint16_t *name, const void *guid,
						     uint32_t attributes, uint64_t data_bytes,
						     const void *data);

static const uint8_t results_guid[16] = {
	0x42, 0x4d, 0x45, 0x4d, 0x4f, 0x4f, 0x52, 0x54,   /* 4d454d42-4f4f-5452 */
	0x9e, 0x53, 0x75, 0x6c, 0x74, 0x73, 0x00, 0x01,
};

static const char *const kept_events[] = {
	"boot", "machine", "numa", "node_init", "memtest", "memtest_bad", "hugetlb", "census", "phase",
	"summary", "done",
};

static struct {
	uint64_t system_table;
	struct mem_range runtime_code[32];
	uint32_t nr_runtime_code;
	char lines[RESULTS_BYTES];    /* "MEMBOOT {...}\n" each, counter values unresolved */
	size_t len;
	unsigned cut;                 /* records that did not fit */
} results;

void efivars_setup(uint64_t efi_system_table, const struct mem_range *runtime_code,
		   uint32_t nr_runtime_code)
{
	results.system_table = efi_system_table;
	if (nr_runtime_code > 32)
		nr_runtime_code = 32;
	memcpy(results.runtime_code, runtime_code, nr_runtime_code * sizeof(*runtime_code));
	results.nr_runtime_code = nr_runtime_code;
}

void efivars_capture(const char *line, size_t len)
{
	static const char head[] = RECORD_PREFIX "{\"event\":\"";
	const char *name = line + sizeof(head) - 1;
	bool keep = false;

	if (len < sizeof(head) || memcmp(line, head, sizeof(head) - 1) != 0)
		return;
	for (size_t i = 0; i < sizeof(kept_events) / sizeof(kept_events[0]); i++) {
		size_t n = strlen(kept_events[i]);
		if (len > sizeof(head) - 1 + n && memcmp(name, kept_events[i], n) == 0 && name[n] == '"')
			keep = true;
	}
	if (!keep)
		return;
	/* The records come from several CPUs only in phases that print none of
	 * these; the boot CPU makes them all. */
	if (results.len + len + 1 > sizeof(results.lines)) {
		results.cut++;
		return;
	}
	memcpy(results.lines + results.len, line, len);
	results.len += len;
	results.lines[results.len++] = '\n';
}

static const char *efi_status_name(uint64_t st)
{
	switch (st & ~EFI_ERROR_BIT) {
	case 2: return "EFI_INVALID_PARAMETER";
	case 3: return "EFI_UNSUPPORTED";
	case 7: return "EFI_DEVICE_ERROR";
	case 8: return "EFI_WRITE_PROTECTED";
	case 9: return "EFI_OUT_OF_RESOURCES";
	case 14: return "EFI_NOT_FOUND";
	case 26: return "EFI_SECURITY_VIOLATION";
	default: return "an EFI error";
	}
}

static bool in_runtime_code(uint64_t addr)
{
	for (uint32_t i = 0; i < results.nr_runtime_code; i++)
		if (addr >= results.runtime_code[i].start && addr < results.runtime_code[i].end)
			return true;
	return false;
}

/* The SetVariable entry point, or 0 with a line saying why not. */
static efi_set_variable_fn find_set_variable(void)
{
	const uint8_t *st, *rt;
	uint64_t sig, rt_addr, fn;

	st = arch_map_phys(NULL, results.system_table, 120);
	if (!st || (memcpy(&sig, st, 8), sig != SYSTEM_TABLE_SIGNATURE)) {
		pr_warn("results: the EFI system table at 0x%llx is not mapped or has no \"IBI SYST\" "
			"signature; results not kept", (unsigned long long)results.system_table);
		return 0;
	}
	memcpy(&rt_addr, st + ST_RUNTIME_SERVICES, 8);
	rt = arch_map_phys(NULL, rt_addr, 136);
	if (!rt || (memcpy(&sig, rt, 8), sig != RUNTIME_SIGNATURE)) {
		pr_warn("results: the EFI runtime services table at 0x%llx is not mapped or has no "
			"\"RUNTSERV\" signature; results not kept", (unsigned long long)rt_addr);
		return 0;
	}
	memcpy(&fn, rt + RT_SET_VARIABLE, 8);
	/* Physical mode: the entry point must be runtime code of the memory
	 * map, inside memboot's identity map. */
	if (!in_runtime_code(fn) || !arch_map_phys(NULL, fn, 16)) {
		pr_warn("results: SetVariable at 0x%llx is not in the EFI runtime code the memory map "
			"lists (%u ranges); results not kept", (unsigned long long)fn,
			results.nr_runtime_code);
		return 0;
	}
	return (efi_set_variable_fn)(uintptr_t)fn;
}

static void chunk_name(uint16_t name[24], unsigned i)
{
	char ascii[24];

	snprintf(ascii, sizeof(ascii), "MembootResults%02u", i);
	for (unsigned k = 0; k < sizeof(ascii); k++) {
		name[k] = (uint8_t)ascii[k];
		if (!ascii[k])
			break;
	}
}

void efivars_save(void)
{
	static const struct rec_counter_clock clock = { cycles_to_ns, counter_to_boot_ns };
	static char out[RESULTS_BYTES];
	static struct record raw, resolved;
	size_t out_len = 0, chunk_start[RESULTS_MAX_CHUNKS + 1];
	unsigned nr_chunks = 0, written = 0;
	efi_set_variable_fn set_variable;
	uint64_t st = 0;

	if (!results.system_table)
		return;        /* not a UEFI boot: nowhere to keep them */
	if (!console_levels.keep_results) {
		pr_info("results: memboot.keep_results=off: nothing kept in UEFI variables");
		return;
	}
	if (!(set_variable = find_set_variable()))
		return;
	/* Compact lines, counter values now in nanoseconds, the "MEMBOOT " prefix
	 * dropped; cut into chunks at line ends. */
	chunk_start[0] = 0;
	for (size_t i = 0; i < results.len;) {
		const char *nl = memchr(results.lines + i, '\n', results.len - i);
		size_t n = (size_t)(nl - (results.lines + i)), pre = sizeof(RECORD_PREFIX) - 1;

		raw.len = n < RECORD_MAX_BYTES ? n : RECORD_MAX_BYTES - 1;
		memcpy(raw.buf, results.lines + i, raw.len);
		raw.safe_len = raw.len;
		rec_resolve_counter(&raw, &resolved, &clock);
		i += n + 1;
		if (resolved.len - pre + 1 > RESULTS_CHUNK_BYTES)
			continue;
		if (out_len + resolved.len - pre + 1 - chunk_start[nr_chunks] > RESULTS_CHUNK_BYTES) {
			if (nr_chunks + 1 == RESULTS_MAX_CHUNKS)
				break;
			chunk_start[++nr_chunks] = out_len;
		}
		memcpy(out + out_len, resolved.buf + pre, resolved.len - pre);
		out_len += resolved.len - pre;
		out[out_len++] = '\n';
	}
	chunk_start[++nr_chunks] = out_len;

	uint64_t t0 = arch_counter();
	for (uint32_t i = 0; i < results.nr_runtime_code; i++)
		arch_set_executable(results.runtime_code[i].start, results.runtime_code[i].end, true);
	for (unsigned c = 0; c < nr_chunks; c++) {
		uint16_t name[24];

		chunk_name(name, c);
		st = set_variable(name, results_guid, EFI_VARIABLE_NV_BS_RT,
				  chunk_start[c + 1] - chunk_start[c], out + chunk_start[c]);
		if (st & EFI_ERROR_BIT)
			break;
		written++;
	}
	/* Chunks of an earlier, longer boot would read as part of this one. */
	for (unsigned c = written; !(st & EFI_ERROR_BIT) && c < RESULTS_MAX_CHUNKS; c++) {
		uint16_t name[24];

		chunk_name(name, c);
		if (set_variable(name, results_guid, EFI_VARIABLE_NV_BS_RT, 0, NULL) & EFI_ERROR_BIT)
			break;    /* EFI_NOT_FOUND: no more */
	}
	for (uint32_t i = 0; i < results.nr_runtime_code; i++)
		arch_set_executable(results.runtime_code[i].start, results.runtime_code[i].end, false);
	uint64_t ns = cycles_to_ns(arch_counter() - t0);

	if (st & EFI_ERROR_BIT)
		pr_warn("results: SetVariable of MembootResults%02u failed with %s (0x%llx)%s; %u of %u "
			"variables kept", written, efi_status_name(st), (unsigned long long)st,
			(st & ~EFI_ERROR_BIT) == 9 ? ": the variable store is full" : "", written,
			nr_chunks);
	else
		pr_info("results: %zu bytes kept in %u UEFI variable%s MembootResults00.. (GUID %s) in "
			"%llu ms%s", out_len, written, written == 1 ? "" : "s", RESULTS_GUID_TEXT,
			(unsigned long long)(ns / 1000000),
			results.cut ? "; some records did not fit" : "");
}
