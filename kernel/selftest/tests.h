/*
 * tests.h: the self-tests of this directory, one file each, as the table
 * (kernel/selftest/list.h) names them.
 *
 * Each returns true when it passed. One that cannot run here (too little
 * memory) sets *skipped to the reason and returns true: the runner reports
 * it as skipped, not failed, and takes no census after it.
 */
#ifndef MEMBOOT_KERNEL_SELFTEST_TESTS_H
#define MEMBOOT_KERNEL_SELFTEST_TESTS_H

#include <stdbool.h>

#include "kernel/selftest/list.h"
#include "kernel/selftest/selftest.h"

#define SELFTEST_DECLARE(id, name, fn, needs, desc) \
	bool fn(const struct selftest_ctx *ctx, const char **skipped);
SELFTEST_LIST(SELFTEST_DECLARE)
#undef SELFTEST_DECLARE

#endif
