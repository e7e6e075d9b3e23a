/*
 * pcp_mem.h: where the per-CPU page lists (mm/alloc/alloc_pcp.h) live, and
 * what they are set up with: each CPU's lists in one block of its node's
 * memory, reserved before memory init hands the rest to the allocator
 * (pcp_mem_reserve(), phase memprep), the lists carved from it when they
 * are put in front of the allocator (pcp_mem_setup(), phase pcp).
 *
 * Reserved like the allocator's own structures, the blocks are counted by
 * the census as reserved, and the boot census still counts exactly what
 * memory init left free. The per-CPU bookkeeping, one entry per CPU id, is
 * in one block reserved the same way on the node the caller names: sized
 * by the CPUs there are. Pure C: the caller says which CPUs there are and
 * hands the clock, the CPU id and the cache share (host tests their own).
 */
#ifndef MEMBOOT_MM_ALLOC_PCP_MEM_H
#define MEMBOOT_MM_ALLOC_PCP_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "mm/alloc/alloc_pcp.h"
#include "mm/alloc/pcp.h"

struct pcp_cpu_block;

/* What the lists are set up with, besides their settings. */
struct pcp_mem_env {
	uint32_t (*this_cpu)(void);   /* the calling CPU's id */
	uint64_t (*now_ns)(void);     /* for lock spin time (may be NULL) */
	/* One CPU's share of the data caches (struct arch_caches'
	 * slice_bytes), the high mark's step 3 of Linux's series; 0 keeps
	 * nothing there. */
	uint64_t cache_bytes;
};

/* The lists' memory, in the boot state: reserved in phase memprep, the
 * lists carved from it in phase pcp (and kept for good: the allocator's
 * lists point into it). */
struct pcp_state {
	struct pcp_cpu_block *cpu_blocks;   /* per CPU id: its block */
	struct pcp_list ***list_rows;       /* per CPU id: its row of lists */
	uint32_t *cpu_node;                 /* per CPU id: where its lists live */
	uint32_t nr_list_cpus;              /* CPU ids with lists: [0, nr_list_cpus) */
	uint64_t list_bytes_per_cpu;        /* each block's size */
	struct pcp_mem_env env;             /* pcp_mem_reserve()'s */
};

/*
 * Reserve the lists' memory into @ps for CPU ids [0, @nr_cpus): the
 * bookkeeping on node @table_node, each CPU's block on @node_of(cpu) (a
 * CPU id with no CPU behind it, node 0: alloc_pcp wants every id below
 * nr_cpus; its lists are never used), sized as @set configures the lists
 * (after the allocator started: it sizes them from the nodes), through
 * @reserve(@ctx, bytes, node), which returns 0 when there is no memory (a
 * warning; that CPU, or every CPU for the table, gets no lists).
 */
void pcp_mem_reserve(struct pcp_state *ps, const struct pcp_settings *set,
		     const struct pcp_mem_env *env, uint32_t nr_cpus,
		     uint32_t (*node_of)(uint32_t cpu), uint32_t table_node,
		     uint64_t (*reserve)(void *ctx, uint64_t bytes, uint32_t node), void *ctx);

/* The set-up alloc_pcp_init() takes for @ps's memory, as @set asks. */
struct alloc_pcp_setup pcp_mem_setup(struct pcp_state *ps, const struct pcp_settings *set);

#endif
