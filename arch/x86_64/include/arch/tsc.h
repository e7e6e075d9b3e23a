/*
 * arch/tsc.h: TSC frequency calibration.
 */
#ifndef MEMBOOT_ARCH_TSC_H
#define MEMBOOT_ARCH_TSC_H

#include <stdint.h>

/*
 * Measure the TSC frequency against PIT channel 2 (1.193182 MHz, the same on
 * every PC since the 8254). Returns Hz, or 0 if the PIT does not count.
 */
uint64_t arch_tsc_calibrate(void);

#endif
