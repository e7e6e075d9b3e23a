/*
 * lab_stress.h: compiled first into every allocator of the lab's stress
 * build (build/bench/lab-stress, bench/bench.mk: -include), never into the
 * kernel. Each lock an allocator takes or drops through kernel/spinlock.h
 * or alloc_spin_lock() becomes a point where bench/lab.c's --stress may
 * hand the CPU to another thread (lab_stress_point()), and a waiter for a
 * held lock gives its CPU up instead of spinning, so a holder that was
 * made to yield runs again at once. What a lock protects is unchanged;
 * what is done just outside it (a descriptor written after the lock is
 * dropped) is interleaved with another thread's whole operation.
 */
#ifndef MEMBOOT_BENCH_LAB_STRESS_H
#define MEMBOOT_BENCH_LAB_STRESS_H

#include "kernel/services/spinlock.h"
#include "mm/alloc/alloc.h"

void lab_stress_point(void);
void lab_stress_wait(void);

static inline void lab_stress_lock(struct spinlock *l, struct alloc_lock_stats *st)
{
	lab_stress_point();
	if (spin_trylock(l)) {
		if (st)
			st->acquired++;
		return;
	}
	while (!spin_trylock(l))
		lab_stress_wait();
	if (st) {
		st->acquired++;
		st->contended++;
	}
}

/* The headers above are guarded: the allocator's own includes of them
 * change nothing, and its calls from here on are these. */
#define spin_lock(l) lab_stress_lock((l), 0)
#define alloc_spin_lock(l, st) lab_stress_lock((l), (st))
#define spin_unlock(l) (spin_unlock(l), lab_stress_point())

#endif
