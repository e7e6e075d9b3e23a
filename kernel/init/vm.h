/*
 * vm.h: phase `vm` (kernel/init/phases.h).
 */
#ifndef MEMBOOT_KERNEL_INIT_VM_H
#define MEMBOOT_KERNEL_INIT_VM_H

#include "mm/hugetlb/hugetlb.h"
#include "mm/memmap.h"

/* The kernel's address spaces ready: their frames from @mm's allocator,
 * huge pages from @pools (kernel/vm/vm.h). */
void init_vm(struct memmap *mm, struct hugetlb_pools *pools);

#endif
