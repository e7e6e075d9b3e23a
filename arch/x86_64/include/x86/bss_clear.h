/*
 * arch/bss_clear.h: clearing .bss at entry (assembly only).
 *
 * Both entries (entry32.S, entry64.S) clear megabytes of .bss before the
 * first C code runs. Sixteen-byte SSE stores, four to a 64-byte line, not
 * `rep stosq`: under QEMU's TCG every iteration of a string instruction is
 * a separate step, and clearing the kernel's 3 MiB of .bss that way took
 * 0.66 ms of a boot whose memory is usable after 30; this loop takes about
 * half of that. On hardware either is a few tens of microseconds.
 *
 * Needs SSE enabled (CR0.EM clear, CR4.OSFXSR set), a 16-byte aligned
 * range (linker/x86_64.ld aligns .bss and the boot page tables so) and no
 * stack: it uses only xmm0, rdx and the two registers it is given.
 */
#ifndef MEMBOOT_ARCH_BSS_CLEAR_H
#define MEMBOOT_ARCH_BSS_CLEAR_H

#ifdef __ASSEMBLER__
/* Zero [\start, \end), both 16-byte aligned; \start ends at \end. */
.macro CLEAR_16B_ALIGNED start, end
	pxor %xmm0, %xmm0
	leaq -64(\end), %rdx
.Lclear_line\@:
	cmpq %rdx, \start
	ja .Lclear_tail\@
	movdqa %xmm0, (\start)
	movdqa %xmm0, 16(\start)
	movdqa %xmm0, 32(\start)
	movdqa %xmm0, 48(\start)
	addq $64, \start
	jmp .Lclear_line\@
.Lclear_tail\@:
	cmpq \end, \start
	jae .Lclear_done\@
	movdqa %xmm0, (\start)
	addq $16, \start
	jmp .Lclear_tail\@
.Lclear_done\@:
.endm
#endif

#endif
