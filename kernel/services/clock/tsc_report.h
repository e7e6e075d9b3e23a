/*
 * tsc_report.h: the `tsc` record of the boot's first clock figure.
 */
#ifndef MEMBOOT_KERNEL_CLOCK_TSC_REPORT_H
#define MEMBOOT_KERNEL_CLOCK_TSC_REPORT_H

#include "x86/tsc.h"

/* @cal's line and `tsc` record, made when the consoles drain, in this place
 * of the log, from a copy of @cal as it is now. */
void tsc_report(const struct tsc_calibration *cal);

#endif
