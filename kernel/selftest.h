/*
 * selftest.h: in-kernel self-tests and deliberate faults chosen on the
 * command line (memboot.selftest=, memboot.fault=).
 */
#ifndef MEMBOOT_KERNEL_SELFTEST_H
#define MEMBOOT_KERNEL_SELFTEST_H

#include <stdbool.h>

/* Run the self-tests named in kparams; false if any failed. */
bool selftests_run(void);

/* Raise the fault named by memboot.fault, if any (does not return then). */
void fault_inject(void);

#endif
