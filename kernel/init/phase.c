/*
 * phase.c: phase records. The start is kept as a raw TSC value and converted
 * at the end, so the first phase (which calibrates the TSC) is timed too.
 */
#include "kernel/init/phase.h"

#include "kernel/log.h"
#include "kernel/record.h"
#include "kernel/summary.h"
#include "kernel/time.h"

void phase_end(const char *name, uint64_t start_tsc)
{
	uint64_t end_tsc = rdtsc();
	uint64_t start_ns = tsc_to_boot_ns(start_tsc);
	uint64_t ns = tsc_cycles_to_ns(end_tsc - start_tsc);
	struct record r;

	rec_begin(&r, "phase");
	rec_str(&r, "name", name);
	rec_u64(&r, "start_ns", start_ns);
	rec_u64(&r, "ns", ns);
	record_report(&r, LOG_INFO, "phase {name}: {ns:ms} ms");
	summary_phase(name, ns);
}
