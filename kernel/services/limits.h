/*
 * limits.h: the facts every layer must agree on, defined once.
 *
 * Sizes of the static tables (nodes, CPUs), the page size and the default
 * NUMA distances are read by boot/, mm/, arch/ and the kernel services alike,
 * and by the host tools: tools/mbtools/facts.py reads the #define lines
 * below, so keep each a plain `#define NAME number`. Subsystems may give a
 * limit a local name (NUMA_MAX_NODES) but only as an alias of these.
 */
#ifndef MEMBOOT_KERNEL_LIMITS_H
#define MEMBOOT_KERNEL_LIMITS_H

/* x86_64 base pages are 4 KiB (Intel SDM vol. 3, 4.5: 4-level paging). */
#define PAGE_SHIFT 12
#define PAGE_SIZE_BYTES (1ULL << PAGE_SHIFT)

/* NUMA nodes the kernel tracks: node masks and per-node tables are sized by
 * it. A SRAT naming more proximity domains falls back to one node. */
#define MEMBOOT_MAX_NODES 256

/* Ranges of the normalized memory map (struct bootinfo) and so of usable
 * memory that numa places on nodes: a map is at most this long. */
#define MEMBOOT_MAX_MAP_RANGES 512

/* Logical CPUs the kernel can use: a design limit, not a table size. The
 * per-CPU areas, the SMP boot table, the job runner's and the per-CPU page
 * lists' tables are allocated at boot for the CPUs the MADT lists; only the
 * topology's CPU list and node masks (mm/numa.h) are sized by this. 8192 is
 * what Linux distributions build NR_CPUS as (CONFIG_MAXSMP's value on
 * x86_64). A MADT listing more keeps CPUs balanced across nodes
 * (numa_balanced_quota(), mm/numa_select.c) and counts the rest. */
#define MEMBOOT_MAX_CPUS 8192

/* ACPI 6.5, 5.2.17 (SLIT): a node's distance to itself is 10; without a
 * SLIT every other node is 20 away, as Linux assumes (REMOTE_DISTANCE). */
#define MEMBOOT_LOCAL_DISTANCE 10
#define MEMBOOT_REMOTE_DISTANCE 20

#endif
