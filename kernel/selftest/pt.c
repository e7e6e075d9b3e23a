/*
 * pt.c: memboot.selftest=pt, map, unmap and protect on every CPU at once in
 * one address space (kernel/vm/vm.h), checked through real translations.
 * The fault-in benchmark on the same spaces is pt_bench.c.
 */
#include <string.h>

#include "arch/counter.h"
#include "arch/cpu.h"
#include "arch/fault.h"
#include "arch/mmu.h"
#include "arch/tlb.h"
#include "kernel/services/jobs/job.h"
#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "kernel/services/percpu.h"
#include "kernel/services/report/record.h"
#include "kernel/services/spinlock.h"
#include "kernel/selftest/tests.h"
#include "kernel/services/clock/time.h"
#include "kernel/vm/vm.h"
#include "kernel/vm/vm_settings.h"
#include "mm/pt/pt.h"

#define SZ_4K (1ULL << 12)
#define SZ_2M (1ULL << 21)
#define SZ_1G (1ULL << 30)

#define ST_MAX_WORKERS 64
#define ST_SHARED 8               /* 4 KiB slots per worker in the shared PTE table */
#define ST_OWN 4                  /* 4 KiB slots in the worker's own 2 MiB block */
#define ST_SLOTS (ST_SHARED + ST_OWN + 2)   /* + one 2 MiB slot + one 1 GiB slot */
#define ST_ROUNDS 8

/*
 * A slot's state, published by its owner like a seqlock: seq is odd while
 * the owner changes the mapping (and until the shootdown is done), even
 * when phys/ro describe what every CPU must see. phys 0: not mapped.
 */
struct slot {
	volatile uint64_t seq;
	uint64_t va;
	volatile uint64_t phys;
	volatile uint32_t ro;
	enum pt_size size;
};

struct stress {
	struct vm_space space;
	uint32_t workers;
	bool big_ok;                       /* 1 GiB pages available */
	struct slot slots[ST_MAX_WORKERS][ST_SLOTS];
	volatile uint64_t maps, unmaps, protects, probes, probe_faults, skipped, errors;
	struct arch_cpumask cpus_seen;
};

static struct stress stress;
static unsigned prot_x;       /* PT_PROT_EXEC where the CPU cannot refuse execution */
static const uint64_t magic_word = 0x6d656d626f6f7421ULL;   /* read through the 1 GiB slot */

/* The 1 GiB slot maps the naturally aligned 1 GiB of physical memory that
 * holds magic_word, the kernel's data: [0, 1 GiB) where the kernel is linked
 * low (x86_64, at 1 MiB), the first GiB of RAM where RAM starts at 1 GiB
 * (arm64 virt). */
static uint64_t big_block(void)
{
	return (uint64_t)(uintptr_t)&magic_word & ~(SZ_1G - 1);
}

static uint64_t stamp(uint64_t va, uint64_t phys)
{
	return va ^ (phys * 0x9e3779b97f4a7c15ULL) ^ 0x5a5a;
}

/* What reading the slot's first word must give while it maps @phys. */
static uint64_t expected_word(const struct slot *sl, uint64_t phys, uint64_t *va)
{
	if (sl->size == PT_SIZE_1G) {
		*va = sl->va + ((uint64_t)(uintptr_t)&magic_word & (SZ_1G - 1));
		return magic_word;
	}
	*va = sl->va;
	return stamp(sl->va, phys);
}

static void stress_error(const char *what, uint32_t w, uint64_t va, uint64_t got, uint64_t want)
{
	uint64_t n = __atomic_fetch_add(&stress.errors, 1, __ATOMIC_RELAXED);

	if (n < 8)
		pr_err("selftest pt: worker %u on CPU %u: %s at 0x%llx (read 0x%llx, want 0x%llx)", w,
		       this_cpu_id(), what, (unsigned long long)va, (unsigned long long)got,
		       (unsigned long long)want);
}

/* Check slot @sl through this CPU's translation, if its owner is not in
 * the middle of changing it. */
static void verify_slot(uint32_t w, const struct slot *sl)
{
	uint64_t s1 = __atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE);
	uint64_t phys = sl->phys, va, val = 0, want;
	uint32_t ro = sl->ro;
	bool read_ok, write_ok = false;

	if (s1 & 1) {
		__atomic_fetch_add(&stress.skipped, 1, __ATOMIC_RELAXED);
		return;
	}
	want = expected_word(sl, phys, &va);
	read_ok = arch_probe_read(va, &val);
	if (read_ok && (ro || sl->size == PT_SIZE_1G))
		write_ok = arch_probe_write(va, val);     /* must fault: puts back what it read */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&sl->seq, __ATOMIC_RELAXED) != s1) {
		__atomic_fetch_add(&stress.skipped, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_fetch_add(&stress.probes, 1, __ATOMIC_RELAXED);
	if (!phys) {
		if (read_ok)
			stress_error("an unmapped address did not fault", w, va, val, 0);
		else
			__atomic_fetch_add(&stress.probe_faults, 1, __ATOMIC_RELAXED);
		return;
	}
	if (!read_ok)
		stress_error("a mapped address faulted", w, va, 0, want);
	else if (val != want)
		stress_error("a mapping resolved to the wrong frame", w, va, val, want);
	else if (write_ok)
		stress_error("a read-only mapping took a write", w, va, val, want);
}

static void slot_begin(struct slot *sl)
{
	__atomic_fetch_add(&sl->seq, 1, __ATOMIC_RELEASE);   /* odd: changing */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void slot_end(struct slot *sl, uint64_t phys, uint32_t ro)
{
	sl->phys = phys;
	sl->ro = ro;
	__atomic_fetch_add(&sl->seq, 1, __ATOMIC_RELEASE);   /* even: settled */
}

static enum pt_region_kind slot_kind(const struct slot *sl)
{
	return sl->size == PT_SIZE_4K ? PT_REGION_4K : PT_REGION_2M;
}

static void slot_map(uint32_t w, struct slot *sl, struct pt_stats *st)
{
	uint64_t phys;

	if (sl->size == PT_SIZE_1G) {
		if (!stress.big_ok)
			return;
		phys = big_block();
	} else {
		phys = vm_frame_alloc(slot_kind(sl), this_cpu_state()->mem_node);
		if (phys == PT_NO_PHYS)
			return;                  /* memory is short: the test goes on */
		*(volatile uint64_t *)(uintptr_t)phys = stamp(sl->va, phys);
	}
	slot_begin(sl);
	int err = pt_map(&stress.space.as, sl->va, phys, sl->size,
			 (sl->size == PT_SIZE_1G ? 0 : PT_PROT_WRITE) | prot_x, this_cpu_state()->mem_node, st);
	if (err != PT_OK) {
		stress_error(pt_strerror(err), w, sl->va, 0, 0);
		if (sl->size != PT_SIZE_1G)
			vm_frame_free(slot_kind(sl), phys);
		slot_end(sl, 0, 0);
		return;
	}
	__atomic_fetch_add(&stress.maps, 1, __ATOMIC_RELAXED);
	/* The 1 GiB slot's block may be physical 0, which its phys field
	 * cannot say: 1 stands for it (not a frame anyone allocates). */
	slot_end(sl, sl->size == PT_SIZE_1G ? 1 : phys, sl->size == PT_SIZE_1G);
}

static void slot_unmap(uint32_t w, struct slot *sl, struct pt_stats *st)
{
	struct pt_mapping old;

	if (!sl->phys)
		return;
	slot_begin(sl);
	int err = pt_unmap(&stress.space.as, sl->va, &old, st);
	uint64_t want = sl->size == PT_SIZE_1G ? big_block() : sl->phys;
	if (err != PT_OK || old.phys != want || old.va != sl->va || old.size != sl->size)
		stress_error("unmap gave back the wrong mapping", w, sl->va, old.phys, want);
	else if (sl->size != PT_SIZE_1G)
		vm_frame_free(slot_kind(sl), old.phys);     /* every TLB has let go of it */
	__atomic_fetch_add(&stress.unmaps, 1, __ATOMIC_RELAXED);
	slot_end(sl, 0, 0);
}

static void slot_protect(uint32_t w, struct slot *sl, bool ro, struct pt_stats *st)
{
	if (!sl->phys || sl->size == PT_SIZE_1G)
		return;
	slot_begin(sl);
	if (pt_protect(&stress.space.as, sl->va, (ro ? 0 : PT_PROT_WRITE) | prot_x, st) != PT_OK)
		stress_error("protect failed", w, sl->va, 0, 0);
	__atomic_fetch_add(&stress.protects, 1, __ATOMIC_RELAXED);
	slot_end(sl, sl->phys, ro);
}

static void verify_worker(uint32_t v)
{
	for (uint32_t k = 0; k < ST_SLOTS; k++)
		verify_slot(v, &stress.slots[v][k]);
}

/*
 * Lockstep: when every worker runs on its own CPU at once (the job runner
 * does not promise it: a CPU may take two units one after the other), the
 * workers meet at a barrier between phases, so a neighbour's TLB has
 * surely cached a page before its owner changes it, and the check after
 * the change tests the shootdown. Decided once: the last worker to arrive
 * chooses lockstep, a worker that waited 2 s in vain chooses free running.
 */
enum { LOCKSTEP_UNDECIDED, LOCKSTEP_ON, LOCKSTEP_OFF };
static volatile uint32_t arrived, lockstep, bar_count;
static volatile uint64_t bar_gen;

static void stress_start(void)
{
	uint64_t t0 = arch_counter(), limit = counter_hz * 2;
	uint32_t expected = LOCKSTEP_UNDECIDED;

	if (__atomic_add_fetch(&arrived, 1, __ATOMIC_ACQ_REL) == stress.workers)
		__atomic_compare_exchange_n(&lockstep, &expected, LOCKSTEP_ON, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	while (__atomic_load_n(&lockstep, __ATOMIC_ACQUIRE) == LOCKSTEP_UNDECIDED) {
		if (arch_counter() - t0 > limit) {
			expected = LOCKSTEP_UNDECIDED;
			__atomic_compare_exchange_n(&lockstep, &expected, LOCKSTEP_OFF, false,
						    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
		}
		arch_cpu_relax();
	}
}

static void stress_barrier(void)
{
	if (lockstep != LOCKSTEP_ON)
		return;
	uint64_t gen = __atomic_load_n(&bar_gen, __ATOMIC_ACQUIRE);
	if (__atomic_add_fetch(&bar_count, 1, __ATOMIC_ACQ_REL) == stress.workers) {
		bar_count = 0;
		__atomic_store_n(&bar_gen, gen + 1, __ATOMIC_RELEASE);
		return;
	}
	/* Interrupts are on: shootdowns are answered while waiting. */
	while (__atomic_load_n(&bar_gen, __ATOMIC_ACQUIRE) == gen)
		arch_cpu_relax();
}

static void stress_worker(uint32_t w)
{
	struct pt_stats *st = vm_cpu_stats(this_cpu_id());
	uint32_t left = (w + stress.workers - 1) % stress.workers;
	uint32_t right = (w + 1) % stress.workers;

	stress_start();
	for (uint32_t round = 0; round < ST_ROUNDS; round++) {
		/*
		 * Half the workers change their slots, the other half only
		 * read: a reader invalidates nothing of its own, which (under
		 * QEMU's TCG, where invalidating a page inside a large page's
		 * range drops the whole TLB) would hide a missing shootdown.
		 */
		bool active = ((w + round) & 1) == 0;

		if (active)
			for (uint32_t k = 0; k < ST_SLOTS; k++)
				slot_map(w, &stress.slots[w][k], st);
		stress_barrier();
		verify_worker(w);
		verify_worker(right);         /* the neighbours' TLBs now hold them */
		verify_worker(left);
		stress_barrier();
		/* Every other slot read-only: a CPU that read it writable must
		 * not keep writing through a stale TLB entry. */
		if (active)
			for (uint32_t k = round & 1; k < ST_SLOTS; k += 2)
				slot_protect(w, &stress.slots[w][k], true, st);
		stress_barrier();
		verify_worker(w);
		verify_worker(left);
		verify_worker(right);
		stress_barrier();
		if (active)
			for (uint32_t k = 0; k < ST_SLOTS; k++)
				slot_unmap(w, &stress.slots[w][k], st);
		stress_barrier();
		verify_worker(w);
		verify_worker(right);         /* unmapped: must fault everywhere */
		verify_worker(left);
		stress_barrier();
	}
}

static void stress_chunk(void *arg, uint64_t s, uint64_t e)
{
	uint32_t cpu = this_cpu_id();
	uint64_t flags = arch_irq_save_enable();

	arch_cpumask_set(&stress.cpus_seen, cpu);
	vm_enter(&stress.space);
	for (uint64_t w = s; w < e; w++)
		stress_worker((uint32_t)w);
	vm_leave(&stress.space);
	arch_irq_restore(flags);
}

bool selftest_pt(const struct selftest_ctx *ctx, const char **skipped)
{
	struct job_state js;
	struct record r;
	uint64_t base = VM_WINDOW_START + SZ_1G;     /* PUD entry 1: one PMD table for all */
	uint64_t ipis0 = vm_tlb_ipis_received();
	enum pt_lock_mode mode = (enum pt_lock_mode)vm_settings.ptlock;
	struct pt_stats sum = { 0 };

	memset(&stress, 0, sizeof(stress));
	arrived = bar_count = 0;
	bar_gen = 0;
	lockstep = LOCKSTEP_UNDECIDED;
	stress.workers = nr_cpus_online < ST_MAX_WORKERS ? nr_cpus_online : ST_MAX_WORKERS;
	if (stress.workers < 2)
		stress.workers = 2;     /* one CPU plays both neighbours */
	stress.big_ok = arch_mmu_leaf_usable(PT_SIZE_1G);
	prot_x = arch_mmu_noexec() ? 0 : PT_PROT_EXEC;
	if (vm_space_create(&stress.space, mode, this_cpu_state()->mem_node) != PT_OK) {
		pr_err("selftest pt: no memory for a page-table root");
		return false;
	}
	/*
	 * Layout: worker w's shared slots are pages k * W + w of the first
	 * 2 MiB block (every worker in one PTE table, under one lock in either
	 * mode), its own 4 KiB slots in block 2 + w (a PTE table that empties
	 * and is unlinked every round), its 2 MiB slot block 2 + W + w (same
	 * PMD table). Worker 0 also maps physical [0, 1 GiB) read-only as 1 GiB.
	 */
	for (uint32_t w = 0; w < stress.workers; w++) {
		struct slot *sl = stress.slots[w];
		uint32_t k = 0;
		for (uint32_t i = 0; i < ST_SHARED; i++, k++)
			sl[k] = (struct slot){ .va = base + (i * stress.workers + w) * SZ_4K,
					       .size = PT_SIZE_4K };
		for (uint32_t i = 0; i < ST_OWN; i++, k++)
			sl[k] = (struct slot){ .va = base + (2 + w) * SZ_2M + i * 3 * SZ_4K,
					       .size = PT_SIZE_4K };
		sl[k++] = (struct slot){ .va = base + (2 + stress.workers + w) * SZ_2M,
					 .size = PT_SIZE_2M };
		/* Every worker maps physical [0, 1 GiB) read-only at its own
		 * 1 GiB slot (several mappings of one frame are fine). */
		sl[k++] = (struct slot){ .va = base + (1 + w) * SZ_1G, .size = PT_SIZE_1G };
	}
	if (!stress.big_ok)
		pr_info("selftest pt: no 1 GiB pages on this CPU; that slot stays empty");
	vm_reset_stats();

	struct job j = { .name = "pt-stress", .start = 0, .size = stress.workers, .min_chunk = 1,
			 .node = JOB_ALL_NODES, .fn = stress_chunk };
	uint64_t t0 = arch_counter();
	job_run(&j, &js);
	uint64_t ns = cycles_to_ns(arch_counter() - t0);

	for (uint32_t c = 0; c < nr_cpu_ids; c++)
		pt_stats_add(&sum, vm_cpu_stats(c));
	/* Everything is unmapped; the tables wait on the deferred list. */
	uint64_t held = stress.space.as.nr_tables;
	bool census_live = ctx->census(ctx->census_arg, "pt-live");
	uint64_t reclaimed = pt_reclaim(&stress.space.as);
	uint64_t after = stress.space.as.nr_tables;
	vm_space_destroy(&stress.space);
	uint64_t ipis = vm_tlb_ipis_received() - ipis0;
	uint32_t cpus = arch_cpumask_weight(&stress.cpus_seen);

	rec_begin(&r, "pt_test");
	rec_str(&r, "locks", mode == PT_LOCK_SPLIT ? "split" : "global");
	rec_u64(&r, "cpus", cpus);
	rec_u64(&r, "workers", stress.workers);
	rec_u64(&r, "maps", stress.maps);
	rec_u64(&r, "unmaps", stress.unmaps);
	rec_u64(&r, "protects", stress.protects);
	rec_u64(&r, "probes", stress.probes);
	rec_u64(&r, "probe_faults", stress.probe_faults);
	rec_u64(&r, "skipped", stress.skipped);
	rec_bool(&r, "lockstep", lockstep == LOCKSTEP_ON);
	rec_u64(&r, "ipis", ipis);
	rec_u64(&r, "acquisitions", sum.acquisitions);
	rec_u64(&r, "contended", sum.contended);
	rec_u64(&r, "tables_held", held);
	rec_u64(&r, "tables_reclaimed", reclaimed);
	rec_u64(&r, "tables_after", after);
	rec_u64(&r, "tables_live", vm_table_pages());
	rec_u64(&r, "errors", stress.errors);
	rec_u64(&r, "ns", ns);
	record_report(&r, LOG_INFO, "selftest pt: {workers} workers on {cpus} CPUs, {locks} locks: "
		      "{maps} maps, {unmaps} unmaps, {protects} protects, {probes} probes "
		      "({probe_faults} faulted as they must), {ipis} shootdown IPIs, {errors} errors "
		      "in {ns:ms} ms");
	return stress.errors == 0 && census_live && after == 1 && vm_table_pages() == 0 &&
	       stress.maps > 0 && stress.maps == stress.unmaps &&
	       (ARCH_TLB_BROADCAST || nr_cpus_online < 2 || ipis > 0);
}
