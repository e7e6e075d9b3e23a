/*
 * pt.c: memboot.bench=pt, seed 003's fault-in table from real page
 * faults: every CPU faults in its part of one region of 4 KiB pages, 2 MiB
 * blocks or 2 MiB pool pages, under global and split page-table locks.
 */
#include <stdio.h>
#include <string.h>

#include "arch/cpu.h"
#include "arch/tlb.h"
#include "kernel/bench/bench.h"
#include "kernel/services/jobs/job.h"
#include "kernel/services/log.h"
#include "kernel/services/percpu.h"
#include "kernel/services/report/record.h"
#include "kernel/selftest/selftest.h"
#include "kernel/services/clock/time.h"
#include "kernel/vm/vm.h"
#include "kernel/vm/vm_settings.h"
#include "mm/alloc/alloc.h"
#include "mm/hugetlb/hugetlb.h"
#include "mm/pt/pt.h"

#define SZ_4K (1ULL << 12)
#define SZ_2M (1ULL << 21)

struct bench_run {
	struct vm_space space;
	uint64_t start, part_bytes, page_bytes;
	uint32_t units;
	volatile uint64_t bad;
};

static struct bench_run brun;

/* One unit: fault in its part, a write to each page (the first touch). */
static void bench_chunk(void *arg, uint64_t s, uint64_t e)
{
	uint64_t flags = arch_irq_save_enable();

	vm_enter(&brun.space);
	for (uint64_t u = s; u < e; u++) {
		uint64_t a = brun.start + u * brun.part_bytes;
		for (uint64_t va = a; va < a + brun.part_bytes; va += brun.page_bytes)
			*(volatile uint8_t *)(uintptr_t)va = 1;
	}
	vm_leave(&brun.space);
	arch_irq_restore(flags);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t median_u64(uint64_t *v, unsigned n)
{
	/* n is small: insertion sort */
	for (unsigned i = 1; i < n; i++)
		for (unsigned k = i; k && cmp_u64(&v[k - 1], &v[k]) > 0; k--) {
			uint64_t t = v[k];
			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct cell {
	uint64_t ns[16], acq[16], con[16], spin[16];
	uint64_t faults;
	unsigned done;
	const char *skip;
};

static struct hugetlb_pools *bench_pools;

/* One run of row @k under @mode: NULL, or why it could not run. */
static const char *bench_once(enum pt_region_kind k, enum pt_lock_mode mode, uint64_t bytes,
			      struct cell *c)
{
	struct pt_stats sum = { 0 };
	struct job_state js;
	uint32_t cpus = nr_cpus_online;

	if (k == PT_REGION_HUGETLB && hugetlb_pool_free(bench_pools, HUGETLB_2M) < bytes / SZ_2M)
		return "too few 2 MiB pool pages (hugepages=)";
	/* The lists hold back nothing from the run (vm_region_capacity()). */
	alloc_drain();
	if (vm_space_create(&brun.space, mode, this_cpu_state()->mem_node) != PT_OK)
		return "no memory for a root";
	brun.start = VM_WINDOW_START;
	brun.page_bytes = k == PT_REGION_4K ? SZ_4K : SZ_2M;
	brun.part_bytes = bytes / cpus;
	brun.units = cpus;
	vm_region_add(&brun.space, brun.start, brun.start + bytes, k, PT_PROT_WRITE,
		      vm_settings.pt_zero);
	vm_reset_stats();
	struct job j = { .name = "pt-bench", .start = 0, .size = cpus, .min_chunk = 1,
			 .node = JOB_ALL_NODES, .fn = bench_chunk };
	job_run(&j, &js);
	for (uint32_t cpu = 0; cpu < cpus; cpu++)
		pt_stats_add(&sum, vm_cpu_stats(cpu));
	vm_space_destroy(&brun.space);
	if (sum.faults != bytes / brun.page_bytes)
		return "not every page faulted in (memory short?)";
	if (c) {
		c->ns[c->done] = js.ns;
		c->acq[c->done] = sum.acquisitions;
		c->con[c->done] = sum.contended;
		c->spin[c->done] = cycles_to_ns(sum.spin_cycles);
		c->faults = sum.faults;
		c->done++;
	}
	return NULL;
}

/*
 * Row @k's region: @asked bytes, or what fits in free memory now, each CPU's
 * part a whole number of 2 MiB pages. 0 and @why filled when not even 2 MiB a
 * CPU fits; a line says when the row runs smaller than asked.
 */
static uint64_t row_bytes(enum pt_region_kind k, const char *label, uint64_t asked,
			  uint32_t cpus, char *why, size_t why_bytes)
{
	static const char *const frame_names[PT_NR_REGION_KINDS] = {
		"free 4 KiB pages", "free 2 MiB blocks", "free 2 MiB pool pages" };
	struct vm_capacity c;
	uint64_t step = (uint64_t)cpus * SZ_2M, fit;

	vm_region_capacity(k, asked, cpus, &c);
	fit = c.bytes / step * step;
	if (!fit) {
		if (k == PT_REGION_HUGETLB && !c.frames)
			snprintf(why, why_bytes, "no 2 MiB pool pages (hugepages=)");
		else if (k == PT_REGION_HUGETLB && c.frames >= cpus)
			snprintf(why, why_bytes,
				 "not enough free memory for its page tables: %llu free 4 KiB pages, "
				 "%llu needed with what the per-CPU lists can hold back",
				 (unsigned long long)c.free_pages, (unsigned long long)c.small_pages);
		else
			snprintf(why, why_bytes,
				 "not enough free memory: %llu %s, the row needs 2 MiB per CPU (%u CPUs) "
				 "and its page tables",
				 (unsigned long long)c.frames, frame_names[k], cpus);
		return 0;
	}
	if (fit < asked)
		pr_warn("bench pt: %s: %llu MiB asked, %llu MiB fit in free memory (%llu %s); the row runs on %llu MiB",
			label, (unsigned long long)(asked >> 20), (unsigned long long)(fit >> 20),
			(unsigned long long)c.frames, frame_names[k], (unsigned long long)(fit >> 20));
	return fit;
}

void bench_pt_run(const struct selftest_ctx *ctx, const struct bench_settings *s)
{
	bench_pools = ctx->pools;
	static const char *const rows[PT_NR_REGION_KINDS] = { "4K (THP off)", "2M (THP on)",
								"HUGETLB" };
	static struct cell cells[2];
	static char why[PT_NR_REGION_KINDS][160];
	uint32_t cpus = nr_cpus_online;
	uint64_t asked = s->ptbench_mib << 20;
	unsigned reps = (unsigned)s->ptbench_reps;

	/* Each CPU's part a whole number of 2 MiB pages. */
	asked = asked / cpus / SZ_2M * SZ_2M * cpus;
	if (!asked) {
		pr_err("bench pt: memboot.ptbench_mib=%llu is less than 2 MiB per CPU (%u CPUs)",
		       (unsigned long long)s->ptbench_mib, cpus);
		return;
	}
	pr_info("bench pt: %u CPUs fault in %llu MiB, zeroing %s, medians of %u",
		cpus, (unsigned long long)(asked >> 20), vm_settings.pt_zero ? "on" : "off", reps);
	pr_info("bench pt: %-13s %-6s %10s %8s %10s %10s %10s", "row", "locks", "ms", "faults",
		"acquired", "contended", "spin ms");
	for (int k = 0; k < PT_NR_REGION_KINDS; k++) {
		memset(cells, 0, sizeof(cells));
		/* Sized to what is free now: a fault the handler cannot serve
		 * would be fatal. */
		uint64_t bytes = row_bytes((enum pt_region_kind)k, rows[k], asked, cpus, why[k],
					   sizeof(why[k]));
		const char *skip = bytes ? NULL : why[k];
		/* One run thrown away: the first touch of guest memory costs the
		 * host's own faults, which would count against the first column. */
		if (!skip)
			skip = bench_once((enum pt_region_kind)k, PT_LOCK_SPLIT, bytes, NULL);
		/* Columns alternate run by run, so drift hits both alike. */
		for (unsigned rep = 0; rep < reps && !skip; rep++)
			for (int m = 0; m < 2 && !skip; m++)
				skip = bench_once((enum pt_region_kind)k,
						  (rep + m) & 1 ? PT_LOCK_SPLIT : PT_LOCK_GLOBAL,
						  bytes, &cells[(rep + m) & 1]);
		for (int m = 0; m < 2; m++) {
			struct cell *c = &cells[m];
			enum pt_lock_mode mode = m == 0 ? PT_LOCK_GLOBAL : PT_LOCK_SPLIT;
			struct record r;

			rec_begin(&r, "pt_bench");
			rec_str(&r, "row", pt_region_kind_name((enum pt_region_kind)k));
			rec_str(&r, "locks", mode == PT_LOCK_SPLIT ? "split" : "global");
			rec_u64(&r, "cpus", cpus);
			rec_u64(&r, "bytes", bytes);
			rec_u64(&r, "asked_bytes", asked);
			rec_bool(&r, "zero", vm_settings.pt_zero);
			rec_u64(&r, "runs", c->done);
			/* The table's row label on the first of its two lines only. */
			rec_str(&r, "label", m == 0 ? rows[k] : "");
			if (skip || !c->done) {
				rec_str(&r, "skipped", skip ? skip : "no run");
				record_report(&r, LOG_INFO, "bench pt: {label:,-13} {locks:,-6} skipped: {skipped}");
				continue;
			}
			uint64_t mns = median_u64(c->ns, c->done), ma = median_u64(c->acq, c->done);
			uint64_t mc = median_u64(c->con, c->done), ms = median_u64(c->spin, c->done);
			rec_u64(&r, "ns", mns);
			rec_u64(&r, "faults", c->faults);
			rec_u64(&r, "acquisitions", ma);
			rec_u64(&r, "contended", mc);
			rec_u64(&r, "spin_ns", ms);
			record_report(&r, LOG_INFO, "bench pt: {label:,-13} {locks:,-6} {ns:ms,10} "
				      "{faults:,8} {acquisitions:,10} {contended:,10} {spin_ns:ms,10}");
		}
	}
}
