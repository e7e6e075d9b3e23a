/*
 * table.h: every allocator memboot.alloc= can name, in table order; the
 * first is the default.
 *
 * X(NAME): mm/alloc/NAME.c defines `const struct alloc_ops NAME_alloc_ops`.
 * This table is the one list of allocators: the kernel's alloc_table[]
 * (mm/alloc/alloc.c) is built from it, and the tools read it from here
 * (tools/mbtools/facts.py ALLOCATORS: the guest tests, tools/memboot bench's
 * alloc axis, tools/memboot lab, and the check that docs/cmdline.md lists
 * them). Adding an allocator is its file plus one line here.
 */
#ifndef MEMBOOT_MM_ALLOC_TABLE_H
#define MEMBOOT_MM_ALLOC_TABLE_H

#define ALLOC_TABLE(X) \
	X(buddy)       \
	X(bitmap)      \
	X(llfree)

#endif
