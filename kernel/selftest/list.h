/*
 * list.h: the self-tests, once. One X(id, name, fn, needs, description)
 * per test, in the order they run; everything else about them is derived:
 * the names memboot.selftest accepts and their bits (select.c, pure, host-
 * tested), the table the runner walks (selftest.c), what
 * memboot.selftest=list prints. A new self-test is one file in this
 * directory and one line here (docs/design.md, "Where things go").
 *
 *   id           the bit's name: SELFTEST_<id>
 *   name         the command-line name
 *   fn           bool fn(const struct selftest_ctx *, const char **skipped)
 *                (kernel/selftest/tests.h)
 *   needs        what it needs of the machine to run in full
 *   description  what it checks, in one line
 */
#ifndef MEMBOOT_KERNEL_SELFTEST_LIST_H
#define MEMBOOT_KERNEL_SELFTEST_LIST_H

#define SELFTEST_LIST(X)                                                                  \
	X(CLOCK, "clock", selftest_clock, "the host's clock (tools/memboot --host-times)",   \
	  "busy-waits memboot.clock_ms by the counter between two records, for the host to time") \
	X(JOBS, "jobs", selftest_jobs, "1 MiB of free memory (less: fewer shapes)",          \
	  "jobs of odd sizes on every node and on all CPUs, each unit done exactly once")     \
	X(HUGETLB, "hugetlb", selftest_hugetlb, "huge page pools (hugepages=)",              \
	  "every CPU takes pool pages until the pools are empty, checks and returns them")    \
	X(PT, "pt", selftest_pt, "2 or more CPUs (shootdowns), 1 GiB pages if the CPU has them", \
	  "map, protect and unmap on every CPU at once, checked through real translations")   \
	X(ALLOC, "alloc", selftest_alloc, "free memory for 64 blocks of 32 pages",           \
	  "every CPU allocates orders 0..10, some past the lists; census held; others free")  \
	X(CHURN, "churn", selftest_churn, "half of free memory, all CPUs, memboot.pcp lists", \
	  "the churn workload on every CPU through the per-CPU lists, then every list drained") \
	X(REPLAY, "replay", selftest_replay, "a trace: tools/memboot run --replay TRACE",    \
	  "a Linux kmem trace replayed by every CPU, with the host lab's counts")           \
	X(NUMAPERF, "numaperf", selftest_numaperf, "memory on each node for a 4 to 64 MiB buffer", \
	  "latency and store bandwidth from each node's CPUs to each node's memory, beside SLIT and HMAT")

#endif
