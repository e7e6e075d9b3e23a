/*
 * select.h: the self-tests' command-line keys (docs/cmdline.md):
 * memboot.selftest, memboot.clock_ms and memboot.fault. Parsed by
 * selftest_param_table (kernel/selftest/select.c); read by kernel/selftest/.
 */
#ifndef MEMBOOT_KERNEL_SELFTEST_SELECT_H
#define MEMBOOT_KERNEL_SELFTEST_SELECT_H

#include <stdint.h>

/* memboot.selftest= bits, in the order of the names the key accepts. */
enum selftest_bits {
	SELFTEST_CLOCK = 1u << 0,
	SELFTEST_JOBS = 1u << 1,
	SELFTEST_ALLOC = 1u << 2,
	SELFTEST_HUGETLB = 1u << 3,
	SELFTEST_PT = 1u << 4,
	SELFTEST_CHURN = 1u << 5,
	SELFTEST_REPLAY = 1u << 6,   /* a kmem trace from fw_cfg (tools/memboot run --replay) */
};

/* memboot.fault=, in the order of its names. */
enum fault_kind {
	FAULT_NONE, FAULT_DE, FAULT_UD, FAULT_GP, FAULT_PF, FAULT_DF,
	FAULT_PANIC, FAULT_ASSERT, FAULT_AP_UD, FAULT_AP_GUARD, FAULT_WRITE_TEXT,
	FAULT_EXEC_DATA, FAULT_LOSE_PAGE,
};

struct selftest_settings {
	uint64_t selftests;        /* enum selftest_bits */
	uint64_t clock_ms;         /* length of the clock self-test's busy-wait */
	unsigned fault;            /* enum fault_kind */
};

extern struct selftest_settings selftest_settings;
struct param_table;
extern const struct param_table selftest_param_table;

/* The command-line name of a fault ("ap-ud"), "?" for a number out of range. */
const char *selftest_fault_name(unsigned fault);

#endif
