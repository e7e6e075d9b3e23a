/*
 * hugetlb.c: memboot.selftest=hugetlb on the boot's pools, with scratch
 * memory from the allocator (the checks are hugetlb_selftest(),
 * mm/hugetlb/pool.c, host-tested too).
 */
#include "kernel/selftest/tests.h"
#include "mm/alloc/alloc.h"
#include "mm/hugetlb/hugetlb.h"

bool selftest_hugetlb(const struct selftest_ctx *ctx, const char **skipped)
{
	size_t bytes = hugetlb_selftest_bytes(ctx->pools);
	unsigned order = 0;

	while ((PAGE_SIZE_BYTES << order) < bytes && order < ALLOC_MAX_ORDER)
		order++;
	uint64_t pfn = (PAGE_SIZE_BYTES << order) < bytes ? ALLOC_NO_PFN : alloc_pages(0, order, 0);
	if (pfn == ALLOC_NO_PFN)
		return false;
	bool ok = hugetlb_selftest(ctx->pools,
				   (struct hugetlb_taken *)(uintptr_t)(pfn << PAGE_SHIFT));
	alloc_free(pfn, order);
	return ok;
}
