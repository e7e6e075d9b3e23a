/*
 * select.h: the self-tests' command-line keys (docs/cmdline.md):
 * memboot.selftest, memboot.selftest_deadline_ms, memboot.clock_ms and
 * memboot.fault. Parsed by
 * selftest_param_table (kernel/selftest/select.c); read by kernel/selftest/.
 * The self-tests' names and bits come from one list (kernel/selftest/list.h).
 */
#ifndef MEMBOOT_KERNEL_SELFTEST_SELECT_H
#define MEMBOOT_KERNEL_SELFTEST_SELECT_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/selftest/list.h"

/* memboot.selftest= bits: bit i is the list's entry i. */
enum selftest_index {
#define SELFTEST_INDEX(id, name, fn, needs, desc) SELFTEST_INDEX_##id,
	SELFTEST_LIST(SELFTEST_INDEX)
#undef SELFTEST_INDEX
	SELFTEST_COUNT
};
enum selftest_bits {
#define SELFTEST_BIT(id, name, fn, needs, desc) SELFTEST_##id = 1u << SELFTEST_INDEX_##id,
	SELFTEST_LIST(SELFTEST_BIT)
#undef SELFTEST_BIT
};

/* memboot.fault=, in the order of its names. */
enum fault_kind {
	FAULT_NONE, FAULT_DE, FAULT_UD, FAULT_GP, FAULT_PF, FAULT_DF,
	FAULT_PANIC, FAULT_ASSERT, FAULT_AP_UD, FAULT_AP_GUARD, FAULT_WRITE_TEXT,
	FAULT_EXEC_DATA, FAULT_LOSE_PAGE, FAULT_AP_PARK, FAULT_NULL_WRITE, FAULT_AP_STALL,
	FAULT_HANG, FAULT_ALLOC_LOOP,
};

struct selftest_settings {
	uint64_t selftests;        /* enum selftest_bits */
	bool list;                 /* memboot.selftest=list: print the table, run none */
	uint64_t deadline_ms;      /* a self-test still running this long ends the boot; 0: never */
	uint64_t clock_ms;         /* length of the clock self-test's busy-wait */
	unsigned fault;            /* enum fault_kind */
};

extern struct selftest_settings selftest_settings;
struct param_table;
extern const struct param_table selftest_param_table;

/* The list's entry @i (< SELFTEST_COUNT): its name, needs, description;
 * NULL past the end. */
const char *selftest_name(unsigned i);
const char *selftest_needs(unsigned i);
const char *selftest_description(unsigned i);

/* The command-line name of a fault ("ap-ud"), "?" for a number out of range. */
const char *selftest_fault_name(unsigned fault);

/* How many self-tests memboot.selftest asks to run (none with list). */
unsigned selftest_count(const struct selftest_settings *s);

#endif
