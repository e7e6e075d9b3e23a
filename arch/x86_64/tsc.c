/*
 * tsc.c: TSC calibration against PIT channel 2.
 *
 * Channel 2's gate is bit 0 of port 0x61 and its output is readable as bit 5
 * of the same port, so a one-shot count (mode 0) can be timed without
 * interrupts: arm the counter, raise the gate, spin until OUT2 goes high.
 * Three 10 ms windows are measured and the median kept, which rejects one
 * window stretched by the host (QEMU's vCPU thread can be descheduled).
 */
#include "arch/tsc.h"

#include "arch/cpu.h"
#include "arch/io.h"

#define PIT_HZ 1193182ULL
#define PIT_CH2 0x42
#define PIT_CMD 0x43
#define PORT_61 0x61
#define WINDOW_MS 10
#define WINDOWS 3

static uint64_t measure_window(void)
{
	const uint16_t count = (uint16_t)(PIT_HZ * WINDOW_MS / 1000);
	uint8_t v = inb(PORT_61);
	uint64_t t0, t1;
	unsigned long spins = 0;

	outb(PORT_61, (v & ~0x02) | 0x01);   /* speaker off, gate on */
	outb(PIT_CMD, 0xb0);                 /* channel 2, lo/hi byte, mode 0 */
	outb(PIT_CH2, count & 0xff);
	outb(PIT_CH2, count >> 8);
	/* Mode 0 starts counting on the gate's rising edge. */
	v = inb(PORT_61);
	outb(PORT_61, v & ~0x01);
	outb(PORT_61, v | 0x01);
	t0 = rdtsc();
	while (!(inb(PORT_61) & 0x20)) {
		if (++spins > 200000000UL)
			return 0;   /* no PIT */
	}
	t1 = rdtsc();
	return (t1 - t0) * PIT_HZ / count;
}

uint64_t arch_tsc_calibrate(void)
{
	uint64_t hz[WINDOWS];

	for (int i = 0; i < WINDOWS; i++) {
		hz[i] = measure_window();
		if (hz[i] == 0)
			return 0;
	}
	/* median of three */
	for (int i = 0; i < WINDOWS; i++)
		for (int j = i + 1; j < WINDOWS; j++)
			if (hz[j] < hz[i]) {
				uint64_t t = hz[i];
				hz[i] = hz[j];
				hz[j] = t;
			}
	return hz[WINDOWS / 2];
}
