/*
 * memory.h: the page-table page source, now kernel/init/pagetables.h's;
 * kept only while kernel/init/smp.c includes it by this name.
 */
#ifndef MEMBOOT_KERNEL_MEMORY_H
#define MEMBOOT_KERNEL_MEMORY_H

#include "kernel/init/pagetables.h"

#endif
