/*
 * time.h: kernel time in nanoseconds since the first instruction of the
 * 32-bit entry, from the TSC. Before calibration every reading is 0.
 */
#ifndef MEMBOOT_KERNEL_TIME_H
#define MEMBOOT_KERNEL_TIME_H

#include <stdint.h>

extern uint64_t tsc_hz;

void time_init(uint64_t hz);
uint64_t tsc_cycles_to_ns(uint64_t cycles);
/* Nanoseconds from boot entry to the TSC value @tsc. */
uint64_t tsc_to_boot_ns(uint64_t tsc);
uint64_t ktime_ns(void);
/* Busy-wait @ns nanoseconds by the TSC; returns the TSC interval measured. */
uint64_t time_delay_ns(uint64_t ns);

#endif
