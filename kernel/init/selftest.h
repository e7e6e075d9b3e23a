/*
 * selftest.h: phase `selftest` (kernel/init/phases.h).
 */
#ifndef MEMBOOT_KERNEL_INIT_SELFTEST_H
#define MEMBOOT_KERNEL_INIT_SELFTEST_H

#include <stdbool.h>

#include "kernel/selftest/selftest.h"

/* memboot.fault's fault raised, if one is asked for (kernel/fault/fault.h:
 * most do not return); then the self-tests memboot.selftest names, each
 * followed by a census, on what @ctx hands them. False if one failed. */
bool init_selftest(const struct selftest_ctx *ctx);

#endif
