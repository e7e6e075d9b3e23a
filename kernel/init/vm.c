/*
 * vm.c: phase `vm`: takes `bs.memmap` and `bs.hugetlb`; builds the
 * page-fault hook and the TLB shootdown IPI, for the address spaces of
 * kernel/vm/ (the self-tests' and the fault-in benchmark's).
 */
#include "kernel/init/vm.h"

#include "kernel/vm/vm.h"

void init_vm(struct memmap *mm, struct hugetlb_pools *pools)
{
	vm_init(mm, pools);
}
