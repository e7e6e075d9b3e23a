/*
 * spinlock.h: a test-and-test-and-set lock with interrupts left as they are.
 */
#ifndef MEMBOOT_KERNEL_SPINLOCK_H
#define MEMBOOT_KERNEL_SPINLOCK_H

#include <stdbool.h>

#include "arch/cpu.h"

struct spinlock {
	volatile int locked;
};

static inline void spin_lock(struct spinlock *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			arch_cpu_relax();   /* the spin-wait hint */
}

static inline bool spin_trylock(struct spinlock *l)
{
	return !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
}

static inline void spin_unlock(struct spinlock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#endif
