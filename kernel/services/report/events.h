/*
 * events.h: every record event name, once.
 *
 * One X(name) per line. The kernel warns about a record whose event is not
 * here (record_event_known()), tools/mbtools/facts.py reads these lines so
 * the tools and tests know the names, and tests/tools/test_facts.py checks
 * that docs/records.md documents exactly these events and that every
 * rec_begin()/record_report() in the sources uses one of them. A new event
 * is one line here and one section in docs/records.md.
 */
#ifndef MEMBOOT_KERNEL_RECORD_EVENTS_H
#define MEMBOOT_KERNEL_RECORD_EVENTS_H

#define RECORD_EVENT_TABLE(X)                                              \
	X(boot)          /* how the machine was booted */                   \
	X(tsc)           /* x86_64: how the counter's first figure was found */ \
	X(clock_check)   /* the counter checked against a second clock */   \
	X(mem_range)     /* one range of the normalized memory map */       \
	X(mem_summary)   /* totals of the map */                            \
	X(user_range)    /* one range of the map as used after memmap=nn$ss */ \
	X(soft_reserved) /* EFI_MEMORY_SP memory kept out of the allocator */ \
	X(phase)         /* a boot phase ended */                           \
	X(console)       /* the consoles being written to */                \
	X(console_drain) /* what one console printed and what it cost */    \
	X(console_ring)  /* the log ring between the kernel and consoles */ \
	X(cpu)           /* a CPU the firmware lists */                     \
	X(node)          /* a NUMA node */                                  \
	X(numa)          /* the topology as a whole */                      \
	X(hmat)          /* the HMAT as a whole */                          \
	X(pptt)          /* the PPTT's processor topology */                \
	X(pptt_cache)    /* a kind of cache the PPTT describes */           \
	X(node_perf)     /* a node's best initiator's figures and its tier */ \
	X(numa_perf)     /* measured latency and bandwidth of a node pair */ \
	X(srat_generic)  /* an SRAT generic initiator or port */            \
	X(machine)       /* the machine and firmware SMBIOS names */        \
	X(dimm)          /* a populated memory device (SMBIOS type 17) */   \
	X(node_dimms)    /* a node's memory devices, alike ones together */ \
	X(direct_map)    /* the kernel's identity map */                    \
	X(physmem_retire) /* early reservations kept when physmem retires */ \
	X(apic)          /* x86_64's interrupt controller mode for SMP */   \
	X(rtas)          /* POWER pseries: how RTAS is entered */          \
	X(cpu_up)        /* a CPU running after SMP bring-up */             \
	X(smp)           /* SMP bring-up as a whole */                      \
	X(tsc_sync)      /* each node's APs' counters against the boot CPU's */ \
	X(job)           /* a job of the job runner's self-test */          \
	X(memmap)        /* where a node's descriptor array lives */        \
	X(store_probe)   /* plain against non-temporal stores, timed at boot */ \
	X(memmap_piece)  /* a piece of a descriptor array */                \
	X(alloc)         /* the allocator chosen behind the seam */         \
	X(node_init)     /* a node's page init */                           \
	X(node_cpu)      /* one CPU's busy and wait time in a node's init */ \
	X(chunk)         /* one chunk of a job (trace) */                   \
	X(lazy)          /* what the first allocations paid (lazy init) */  \
	X(memtest)       /* a node's memory test (memtest=N) */             \
	X(memtest_bad)   /* a range of words that failed the memory test */ \
	X(census)        /* every page counted once */                      \
	X(alloc_test)    /* the allocation self-test */                     \
	X(pcp)           /* a node's per-CPU lists at boot */               \
	X(churn)         /* the churn self-test through the lists */        \
	X(replay)        /* a kmem trace replayed (memboot.selftest=replay) */  \
	X(pcp_cpu)       /* one CPU's list of one node after churn */       \
	X(hugetlb)       /* a node's huge page pool of one size */          \
	X(huge_page)     /* one pool page (trace) */                        \
	X(hugetlb_test)  /* the huge page self-test */                      \
	X(pt_test)       /* the page-table self-test */                     \
	X(pt_bench)      /* the page-table benchmark */                     \
	X(watchdog)      /* the machine's watchdog: which, armed for how long */ \
	X(selftest)      /* a self-test's verdict */                        \
	X(selftest_entry) /* a self-test of the table (memboot.selftest=list) */ \
	X(clock_start)   /* the clock self-test starts its wait */          \
	X(clock)         /* the clock self-test's measured interval */      \
	X(blob)          /* a piece of the loader's information block */    \
	X(summary)       /* the closing table of the boot */                \
	X(warning)       /* a warning line, as a record */                  \
	X(error)         /* an error line, as a record */                   \
	X(done)          /* the last record of every boot */

#endif
