/*
 * spinlock.h: a test-and-test-and-set lock with interrupts left as they are.
 */
#ifndef MEMBOOT_KERNEL_SPINLOCK_H
#define MEMBOOT_KERNEL_SPINLOCK_H

#include <stdbool.h>

struct spinlock {
	volatile int locked;
};

/* The spin-wait hint: x86's PAUSE (the kernel's); the host builds of the
 * pure code (tests, the lab) also run on arm64 (YIELD) and elsewhere. */
static inline void spin_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("pause");
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static inline void spin_lock(struct spinlock *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			spin_relax();
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
