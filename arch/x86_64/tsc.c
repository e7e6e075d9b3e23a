/*
 * tsc.c: x86's part of the clock (arch/clock.h): the TSC's frequency.
 *
 * Two sources, as in Linux's arch/x86/kernel/tsc.c:
 *  - what the CPU reports: the hypervisor timing leaf 0x40000010 (EAX = TSC
 *    kHz; VMware's convention, also QEMU/KVM's with vmware-cpuid-freq), CPUID
 *    0x15 (TSC/crystal ratio EBX/EAX times the crystal ECX Hz; Intel SDM vol.
 *    2A, CPUID leaf 15H) and, when 0x15 has no crystal, 0x16 (EAX = base MHz,
 *    which Linux's native_calibrate_tsc() uses the same way);
 *  - a measurement against a fixed-rate reference: PIT channel 2 first
 *    (1.193182 MHz on every PC since the 8254); the HPET and the ACPI PM
 *    timer (3.579545 MHz) once the tables name them: the second references.
 *
 * The measurement is what makes a busy host harmless. Every reference read
 * is bracketed by two TSC reads; a vCPU descheduled between them shows up as
 * a wide bracket and that sample is dropped (kernel/services/clock/clockcal.c), instead of
 * silently stretching a whole window as a single read per window did. The
 * samples run for about 1 ms (longer for a PIT slow to read); estimates
 * from pairs of kept samples are combined by their median.
 *
 * PIT channel 2's gate is bit 0 of port 0x61 (bit 1 drives the speaker and
 * stays off). Mode 0 with a reload of 0 (65536) makes the counter a free
 * 16-bit down-counter; the latch command (0x80 to port 0x43) freezes it for
 * a consistent low/high byte read (8254 data sheet, "Counter Latch Command").
 */
#include "arch/clock.h"

#include <string.h>

#include "arch/counter.h"
#include "x86/cpu.h"
#include "x86/io.h"
#include "arch/map.h"
#include "x86/tsc_first.h"
#include "kernel/services/clock/clockcal.h"
#include "kernel/services/log.h"
#include "kernel/services/report/record.h"

/*
 * What phase early measured, beyond the figure (struct arch_clock_first):
 * the `tsc` record's details, kept for it (arch_clock_first_report()) and
 * for a first figure from the tables (arch_clock_first_late()). Written
 * once, by the boot CPU in phase early.
 */
struct tsc_calibration {
	uint64_t cpuid_hz;          /* from CPUID (0x40000010, 0x15 or 0x16); 0 if none */
	const char *cpuid_leaf;     /* which one, or "" */
	bool pit_present;           /* PIT channel 2 counted (ref_counts()): sampled */
	uint32_t pit_probe_reads;   /* reads that told */
	struct clockcal_result pit; /* the PIT measurement (pit.hz 0: failed or absent) */
	uint32_t pit_samples;       /* kept for the estimate, of pit_reads */
	uint64_t pit_reads;
	uint64_t pit_ticks;         /* PIT ticks the samples span */
	uint32_t pit_windows;       /* 1, or 2 when a poor quick figure was retaken */
	uint32_t cpuid_vs_pit_ppm;  /* disagreement, when both exist */
};
static struct tsc_calibration early_cal;

#define PIT_HZ 1193182ULL
/* The ACPI PM timer counts at 3.579545 MHz on every machine (ACPI 6.5,
 * 4.8.3.3 "Power Management Timer"); the FADT gives only its port. */
#define PM_TIMER_HZ 3579545ULL
#define PIT_CH2 0x42
#define PIT_CMD 0x43
#define PORT_61 0x61
/* Sampling windows (struct clockcal_window): a reference that answers in
 * microseconds is done at the first figure; one slow to read (a millisecond
 * a read: the PIT under TCG with hundreds of vCPU threads) is sampled
 * longer, up to the second, for enough samples to give an estimate. */
#define PIT_WINDOW { PIT_HZ / 2000, PIT_HZ * 20 / 1000, 32 }               /* 0.5..20 ms */
#define PIT_PRECISE_WINDOW { PIT_HZ * 3 / 1000, PIT_HZ * 20 / 1000, 32 }   /* 3..20 ms */
/* A quick PIT figure worse than this (ppm) is measured again over
 * PIT_PRECISE_WINDOW when its window stayed short (a vCPU descheduled
 * inside 0.5 ms: few clean brackets) or its reads were fast (the window
 * stretched by one stall of the vCPU, which left few samples on one side
 * of it: 2.5 % and 6.7 % claimed in two boots under host load). The early
 * figure times the SMP deadlines and every phase until the precise one
 * arrives; a 4 % error seen under host load is too much for both. A window
 * stretched by reads that are all slow (brackets of PIT_SLOW_READ_TICKS or
 * more) is not retaken: a second one would be no better (clockcal_retake()). */
#define PIT_QUICK_TARGET_PPM 10000
#define PIT_SLOW_READ_TICKS (PIT_HZ / 20000)   /* 50 us a read */
#define PM_WINDOW { PM_TIMER_HZ / 1000, PM_TIMER_HZ * 20 / 1000, 32 }      /* 1..20 ms */
#define MAX_SAMPLES 2048
/* Beyond this the CPUID figure and the measurement disagree (ppm). */
#define CPUID_TRUST_PPM 5000

/* Sample space: one set for the PIT and the PM timer, one for the HPET, so
 * that the HPET and the PM timer can be measured on two CPUs at once. */
struct sample_space {
	struct clockcal_sample samples[MAX_SAMPLES];
	uint64_t scratch[MAX_SAMPLES];
	uint64_t last_reads;   /* reads of the last take_samples() */
};
static struct sample_space port_space, hpet_space;

static uint16_t pit_read(void)
{
	uint8_t lo, hi;

	outb(PIT_CMD, 0x80);    /* latch channel 2 */
	lo = inb(PIT_CH2);
	hi = inb(PIT_CH2);
	return (uint16_t)(lo | hi << 8);
}

/* What take_samples() reads: the PIT, a PM timer port, or HPET's counter. */
struct ref_counter {
	uint16_t pm_port;               /* nonzero: ACPI PM timer */
	const volatile uint32_t *mmio;  /* nonzero: HPET main counter, low half */
};

static uint64_t ref_read(const struct ref_counter *c)
{
	if (c->pm_port)
		return inl(c->pm_port);
	if (c->mmio)
		return *c->mmio;
	return pit_read();
}

static uint64_t read_counter_cb(void *ctx)
{
	return arch_counter();
}

static uint64_t read_ref_cb(void *ctx)
{
	return ref_read(ctx);
}

/* Sample @c for @w into @sp (kernel/services/clock/clockcal.c does the loop and the
 * unwrapping). */
static uint32_t take_samples(struct sample_space *sp, const struct ref_counter *c, unsigned bits,
			     bool down, const struct clockcal_window *w)
{
	const struct clockcal_source src = { read_counter_cb, read_ref_cb, (void *)c, bits, down };

	return clockcal_sample(&src, w, sp->samples, MAX_SAMPLES, &sp->last_reads);
}

/*
 * Whether a reference counts at all, before it is sampled
 * (clockcal_counter_counts()): at least 8 reads and PROBE_MIN_CYCLES of
 * TSC time, 4096 reads at most. A platform may gate the 8254 or leave it
 * out (QEMU's -machine pit=off: every latched read of channel 2 then
 * answers one fixed value), and sampling a counter that does not count
 * costs clockcal_sample() 131,072 reads before it gives up (85-100 ms of a
 * TCG boot). What the test relies on: a counting reference moves within
 * two of its ticks, which is 1.7 us for the PIT (the slowest, 1.193182
 * MHz; the PM timer's are 0.28 us, an HPET's at most 0.1 us); 50,000 TSC
 * cycles are 5 us or more on any TSC up to 10 GHz, above every part
 * shipped, so a counter unchanged over them is not counting. It does not
 * rely on what an absent device answers (all ones, zeros) or on port
 * 0x61's gate and output bits reading back: a chipset that keeps port 0x61
 * but gates the counter's clock answers them and still does not count.
 * Under TCG an absent PIT is found in 8 to a few dozen reads, tens of us.
 */
#define PROBE_MIN_READS 8
#define PROBE_MIN_CYCLES 50000
#define PROBE_MAX_READS 4096

static bool ref_counts(const struct ref_counter *c, unsigned bits, bool down, uint32_t *reads)
{
	const struct clockcal_source src = { read_counter_cb, read_ref_cb, (void *)c, bits, down };

	return clockcal_counter_counts(&src, PROBE_MIN_READS, PROBE_MIN_CYCLES, PROBE_MAX_READS,
				       reads);
}

/* PIT channel 2 free-running, gate on, speaker off. */
static void pit_start(void)
{
	uint8_t v = inb(PORT_61);

	outb(PORT_61, (v & ~0x02) | 0x01);
	outb(PIT_CMD, 0xb0);    /* channel 2, low then high byte, mode 0, binary */
	outb(PIT_CH2, 0);
	outb(PIT_CH2, 0);       /* reload 0: 65536 */
}

static uint64_t cpuid_frequency(const char **leaf)
{
	uint32_t r[4], max_leaf;

	*leaf = "";
	if (cpu_features.has_hypervisor) {
		cpuid(0x40000000, 0, r);
		if (r[0] >= 0x40000010 && r[0] < 0x40010000) {
			cpuid(0x40000010, 0, r);
			if (r[0]) {
				*leaf = "0x40000010";
				return (uint64_t)r[0] * 1000;
			}
		}
	}
	cpuid(0, 0, r);
	max_leaf = r[0];
	if (max_leaf >= 0x15) {
		cpuid(0x15, 0, r);
		if (r[0] && r[1] && r[2]) {
			*leaf = "0x15";
			return (uint64_t)r[2] * r[1] / r[0];
		}
		if (r[0] && r[1] && max_leaf >= 0x16) {
			uint32_t f[4];
			cpuid(0x16, 0, f);
			if (f[0] & 0xffff) {
				*leaf = "0x16";
				return (uint64_t)(f[0] & 0xffff) * 1000000;
			}
		}
	}
	return 0;
}

/* The PIT's quick figure into @out, retaken over a longer window when it is
 * poor (clockcal_retake()). */
static void measure_pit(struct tsc_calibration *out, struct sample_space *sp,
			const struct ref_counter *pit, const struct clockcal_window *pit_window)
{
	out->pit_samples = take_samples(sp, pit, 16, true, pit_window);
	out->pit_reads = sp->last_reads;
	out->pit_ticks = out->pit_samples ? sp->samples[out->pit_samples - 1].ref : 0;
	out->pit_windows = 1;
	clockcal_estimate(sp->samples, out->pit_samples, PIT_HZ, sp->scratch, &out->pit);
	if (clockcal_retake(&out->pit, out->pit_ticks, PIT_HZ, PIT_HZ * 3 / 1000,
			    PIT_SLOW_READ_TICKS, PIT_QUICK_TARGET_PPM)) {
		const struct clockcal_window longer = PIT_PRECISE_WINDOW;
		struct clockcal_result again;
		uint32_t n = take_samples(sp, pit, 16, true, &longer);

		out->pit_windows = 2;
		if (clockcal_estimate(sp->samples, n, PIT_HZ, sp->scratch, &again) &&
		    (!out->pit.hz || again.uncertainty_ppm < out->pit.uncertainty_ppm)) {
			out->pit = again;
			out->pit_samples = n;
			out->pit_reads = sp->last_reads;
			out->pit_ticks = n ? sp->samples[n - 1].ref : 0;
		}
	}
}

void arch_clock_first(struct arch_clock_first *first)
{
	struct tsc_calibration *out = &early_cal;
	uint64_t t0 = arch_counter();

	memset(out, 0, sizeof(*out));
	memset(first, 0, sizeof(*first));
	first->method = "none";
	out->cpuid_hz = cpuid_frequency(&out->cpuid_leaf);

	pit_start();
	const struct ref_counter pit = { 0 };
	const struct clockcal_window pit_window = PIT_WINDOW;

	/* Not sampled when it does not count: no PIT is polled that is not
	 * there (ref_counts()). */
	out->pit_present = ref_counts(&pit, 16, true, &out->pit_probe_reads);
	if (out->pit_present)
		measure_pit(out, &port_space, &pit, &pit_window);

	uint32_t cpuid_ppm = 0;
	const char *cpuid_method = !strcmp(out->cpuid_leaf, "0x40000010") ? "hypervisor"
				   : !strcmp(out->cpuid_leaf, "0x15") ? "cpuid15" : "cpuid16";
	if (out->cpuid_hz)
		/* 0x40000010 is in kHz, 0x16 in MHz: their rounding is the error. */
		cpuid_ppm = !strcmp(out->cpuid_leaf, "0x15") ? 0
			    : (uint32_t)((!strcmp(out->cpuid_leaf, "0x16") ? 500000000ULL : 500000ULL) /
					 (out->cpuid_hz / 1000));
	const struct clockcal_candidate cand[] = {
		{ cpuid_method, out->cpuid_hz, cpuid_ppm, false },
		{ "pit", out->pit.hz, out->pit.uncertainty_ppm, true },
	};
	int pick = clockcal_choose(cand, 2, CPUID_TRUST_PPM);

	if (out->cpuid_hz && out->pit.hz)
		out->cpuid_vs_pit_ppm = clockcal_ppm_diff(out->pit.hz, out->cpuid_hz);
	if (pick >= 0) {
		first->hz = cand[pick].hz;
		first->method = cand[pick].method;
		first->uncertainty_ppm = cand[pick].uncertainty_ppm;
		first->known = cand[pick].measured ? ARCH_CLOCK_CALIBRATED : ARCH_CLOCK_GIVEN;
	}
	if (out->cpuid_hz && pick == 1)
		pr_warn("tsc: CPUID leaf %s says %llu kHz but the PIT measures %llu kHz "
			"(%u ppm apart); using the measurement",
			out->cpuid_leaf, (unsigned long long)(out->cpuid_hz / 1000),
			(unsigned long long)(out->pit.hz / 1000), out->cpuid_vs_pit_ppm);
	first->cycles = arch_counter() - t0;
	first->phase = "early";
	tsc_missing((out->cpuid_hz ? TSC_HAVE_CPUID : 0) | (out->pit_present ? TSC_HAVE_PIT : 0) |
		    TSC_HAVE_HPET | TSC_HAVE_PM_TIMER, first->missing, sizeof(first->missing));
}

/* Measure against the ACPI PM timer at I/O port @port (@bits 24 or 32) for
 * about 1 ms. Returns false if the timer does not count. */
static bool measure_pm_timer(uint16_t port, unsigned bits, struct clockcal_result *out)
{
	const struct ref_counter c = { .pm_port = port };
	const struct clockcal_window w = PM_WINDOW;
	uint32_t n;

	memset(out, 0, sizeof(*out));
	if (!ref_counts(&c, bits, false, NULL))
		return false;
	n = take_samples(&port_space, &c, bits, false, &w);

	return clockcal_estimate(port_space.samples, n, PM_TIMER_HZ, port_space.scratch, out);
}

/*
 * HPET (IA-PC HPET specification 1.0a, 2.3): General Capabilities at 0x000
 * give the counter's period in femtoseconds in bits 63:32 (at most
 * 100 ns); bit 0 of General Configuration (0x010) makes the main counter
 * (0x0f0) run. Linux enables it the same way and leaves it running, and so
 * does memboot: nothing else uses it. The low 32 bits are read, unwrapped
 * like the other counters. Enables the main counter if it is stopped,
 * measures for about 1 ms, and sets @ref_hz to the HPET's own rate (0 if
 * its period is out of spec).
 */
static bool measure_hpet(const volatile void *regs, struct clockcal_result *out, uint64_t *ref_hz)
{
	const volatile uint8_t *base = regs;
	uint64_t cap = *(const volatile uint64_t *)base;
	volatile uint64_t *config = (volatile uint64_t *)(base + 0x10);
	uint32_t period_fs = (uint32_t)(cap >> 32);
	const struct ref_counter c = { .mmio = (const volatile uint32_t *)(base + 0xf0) };
	uint64_t span;
	uint32_t n;

	memset(out, 0, sizeof(*out));
	*ref_hz = 0;
	if (period_fs == 0 || period_fs > 100000000u)
		return false;
	*ref_hz = (1000000000000000ULL + period_fs / 2) / period_fs;
	if (!(*config & 1))
		*config |= 1;
	span = *ref_hz / 1000;   /* 1 ms, up to 20 for a slow one */
	const struct clockcal_window w = { span, span * 20, 32 };
	if (!ref_counts(&c, 32, false, NULL))
		return false;
	n = take_samples(&hpet_space, &c, 32, false, &w);
	return clockcal_estimate(hpet_space.samples, n, *ref_hz, hpet_space.scratch, out);
}

/* The HPET's registers, mapped (1 KiB: the whole block), or NULL with a
 * warning. */
static const volatile void *map_hpet(uint64_t address)
{
	const volatile void *regs = arch_map_phys(NULL, address, 1024);

	if (!regs)
		pr_warn("ACPI: HPET: registers at 0x%llx are not mapped; no HPET cross-check",
			(unsigned long long)address);
	return regs;
}

/*
 * The boot's first figure when phase early had none: no CPUID figure and
 * no PIT that counts (a legacy-free platform, QEMU's -machine pit=off). The
 * ACPI tables name what is left; tsc_first() says which to use: the HPET,
 * else the PM timer, each probed before it is sampled (a table may name a
 * timer that does not count), the next one tried when one gives no figure.
 */
void arch_clock_first_late(const struct arch_clock_tables *t, struct arch_clock_first *f)
{
	const volatile void *regs = t->timer_block ? map_hpet(t->timer_block) : NULL;
	unsigned have = (early_cal.cpuid_hz ? TSC_HAVE_CPUID : 0) |
			(early_cal.pit_present ? TSC_HAVE_PIT : 0) |
			(regs ? TSC_HAVE_HPET : 0) |
			(t->timer_port ? TSC_HAVE_PM_TIMER : 0);
	struct clockcal_result res = { 0 };
	const char *method = NULL;

	while (!method) {
		enum tsc_first first = tsc_first(have, true);
		uint64_t hpet_hz;

		if (first == TSC_FIRST_HPET) {
			if (measure_hpet(regs, &res, &hpet_hz) && res.hz)
				method = "hpet";
			else
				have &= ~(unsigned)TSC_HAVE_HPET;
		} else if (first == TSC_FIRST_PM_TIMER) {
			if (measure_pm_timer(t->timer_port, t->timer_port_bits, &res) && res.hz)
				method = "pm_timer";
			else
				have &= ~(unsigned)TSC_HAVE_PM_TIMER;
		} else {
			break;   /* TSC_FIRST_ASSUMED: nothing left */
		}
	}
	if (method) {
		f->hz = res.hz;
		f->method = method;
		f->uncertainty_ppm = res.uncertainty_ppm;
		f->known = ARCH_CLOCK_CALIBRATED;
	}
	tsc_missing(have, f->missing, sizeof(f->missing));
}

/* The first figure as the `tsc` record (docs/records.md) and its line. */
void arch_clock_first_report(const struct arch_clock_first *f)
{
	const struct tsc_calibration *cal = &early_cal;
	struct record r;

	rec_begin(&r, "tsc");
	rec_u64(&r, "hz", f->hz);
	rec_str(&r, "method", f->method);
	rec_u64(&r, "uncertainty_ppm", f->uncertainty_ppm);
	rec_u64(&r, "cpuid_hz", cal->cpuid_hz);
	rec_str(&r, "cpuid_leaf", cal->cpuid_leaf);
	rec_str(&r, "phase", f->phase);
	rec_str(&r, "missing", f->missing);
	rec_bool(&r, "pit_present", cal->pit_present);
	rec_u64(&r, "pit_probe_reads", cal->pit_probe_reads);
	rec_u64(&r, "pit_hz", cal->pit.hz);
	rec_u64(&r, "pit_uncertainty_ppm", cal->pit.uncertainty_ppm);
	rec_u64(&r, "pit_samples", cal->pit_samples);
	rec_u64(&r, "pit_kept", cal->pit.kept);
	rec_u64(&r, "pit_reads", cal->pit_reads);
	rec_u64(&r, "pit_ticks", cal->pit_ticks);
	rec_u64(&r, "pit_windows", cal->pit_windows);
	rec_u64(&r, "pit_pairs", cal->pit.pairs);
	rec_u64(&r, "bracket_limit_cycles", cal->pit.bracket_limit);
	if (cal->cpuid_hz && cal->pit.hz)
		rec_u64(&r, "cpuid_vs_pit_ppm", cal->cpuid_vs_pit_ppm);
	rec_cycles_ns(&r, "ns", f->cycles);
	if (!cal->pit_present)
		record_report(&r, f->uncertainty_ppm == CLOCKCAL_UNKNOWN_PPM ? LOG_WARN : LOG_INFO,
			      "tsc: Detected {hz:MHz} MHz processor ({method}, +-{uncertainty_ppm:.4}%, "
			      "{ns:us} us, phase {phase}; no PIT: it did not count in "
			      "{pit_probe_reads} reads; missing: {missing})");
	else
		record_report(&r, LOG_INFO, "tsc: Detected {hz:MHz} MHz processor ({method}, "
			      "+-{uncertainty_ppm:.4}%, {ns:us} us; PIT: {pit_kept} of {pit_samples} samples kept)");
}

/* The second references: the HPET (a memory read, the finer: 10 MHz or
 * more) first, then the PM timer (port I/O, 3.58 MHz). */
enum { REF_HPET = 1, REF_PM_TIMER = 2 };

uint32_t arch_clock_refs(const struct arch_clock_tables *t, struct arch_clock_ref *refs,
			 uint32_t cap)
{
	uint32_t n = 0;

	if (t->timer_block && n < cap)
		refs[n++] = (struct arch_clock_ref){ .name = "hpet", .where_key = "address",
						     .where = t->timer_block, .bits = 32,
						     .kind = REF_HPET };
	if (t->timer_port && n < cap)
		refs[n++] = (struct arch_clock_ref){ .name = "pm_timer", .where_key = "port",
						     .where = t->timer_port,
						     .bits = t->timer_port_bits, .kind = REF_PM_TIMER };
	return n;
}

bool arch_clock_ref_open(struct arch_clock_ref *ref)
{
	if (ref->kind != REF_HPET)
		return true;             /* a port: nothing to map */
	ref->regs = map_hpet(ref->where);
	return ref->regs != NULL;
}

/* The HPET and the PM timer have sample space of their own (port_space,
 * hpet_space), so that two CPUs can measure them at once. */
bool arch_clock_ref_measure(struct arch_clock_ref *ref, struct clockcal_result *out)
{
	uint64_t hpet_hz;
	bool ok;

	ref->refused = NULL;
	if (ref->kind == REF_PM_TIMER)
		return measure_pm_timer((uint16_t)ref->where, ref->bits, out);
	ok = measure_hpet(ref->regs, out, &hpet_hz);
	if (!ok && hpet_hz == 0)
		ref->refused = "ACPI: HPET: counter period out of range (above 100 ns or zero); "
			       "no HPET cross-check";
	return ok;
}
