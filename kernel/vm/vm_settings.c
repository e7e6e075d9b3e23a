/*
 * vm_settings.c: memboot.ptlock and memboot.pt_zero (kernel/vm/vm_settings.h).
 */
#include "kernel/vm/vm_settings.h"

#include "kernel/services/cmdline.h"
#include "mm/pt/pt.h"

struct vm_settings vm_settings = {
	.ptlock = PT_LOCK_SPLIT,
	.pt_zero = true,
};

/* In the order of enum pt_lock_mode. */
static const char *const ptlock_names[] = { "split", "global", NULL };

static const struct param vm_params[] = {
	{ .key = "memboot.ptlock", .type = PARAM_ENUM, .ptr = &vm_settings.ptlock,
	  .choices = ptlock_names, .help = "page-table locks: a lock per PMD table, or one per space" },
	{ .key = "memboot.pt_zero", .type = PARAM_BOOL, .ptr = &vm_settings.pt_zero,
	  .help = "zero each page a fault maps (on by default)" },
};
PARAM_TABLE(vm_param_table, "vm", vm_params);
