/*
 * trap.c: every CPU exception is fatal in memboot. Report it completely
 * (vector, error code, faulting address, registers, backtrace) and exit with
 * the exception status, so a test sees a failure instead of a hang or a
 * triple-fault reboot loop. Except: a page fault a hook resolves, and the
 * NMIs of the watch tick (watch_tick.c).
 */
#include <stdint.h>

#include "arch/fault.h"
#include "x86/cpu.h"
#include "x86/percpu.h"
#include "x86/trap.h"
#include "kernel/services/log.h"
#include "kernel/services/panic.h"
#include "kernel/services/percpu.h"

extern char boot_stack_bottom[], boot_stack_top[];
extern char __kernel_start[], __text_end[];

#define MSR_GS_BASE 0xc0000101

/* The running CPU's stack bounds; the boot stack before %gs is set up. */
static void stack_bounds(uint64_t *bottom, uint64_t *top)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(MSR_GS_BASE));
	if (lo | hi) {
		const struct cpu_state *cs = this_cpu()->state;
		*bottom = cs->stack_bottom;
		*top = cs->stack_top;
	} else {
		*bottom = (uint64_t)boot_stack_bottom;
		*top = (uint64_t)boot_stack_top;
	}
}

static const char *const exception_names[32] = {
	"#DE divide error", "#DB debug", "NMI", "#BP breakpoint",
	"#OF overflow", "#BR bound range", "#UD invalid opcode", "#NM device not available",
	"#DF double fault", "coprocessor segment overrun", "#TS invalid TSS",
	"#NP segment not present", "#SS stack fault", "#GP general protection",
	"#PF page fault", "reserved 15", "#MF x87 floating point", "#AC alignment check",
	"#MC machine check", "#XM SIMD floating point", "#VE virtualization",
	"#CP control protection", "reserved 22", "reserved 23", "reserved 24",
	"reserved 25", "reserved 26", "reserved 27", "#HV hypervisor injection",
	"#VC VMM communication", "#SX security", "reserved 31",
};

static bool in_kernel_text(uint64_t addr)
{
	return addr >= (uint64_t)__kernel_start && addr < (uint64_t)__text_end;
}

static unsigned current_cpu_id(void)
{
	uint64_t bottom, top;
	stack_bounds(&bottom, &top);
	return bottom == (uint64_t)boot_stack_bottom ? 0 : this_cpu()->state->cpu;
}

void arch_backtrace(uint64_t rip, uint64_t rbp)
{
	pr_detail("Call Trace (symbolize with: addr2line -f -e memboot.elf ADDR):");
	uint64_t bottom, top;

	stack_bounds(&bottom, &top);
	pr_detail(" [<%016llx>] (faulting instruction)", (unsigned long long)rip);
	/* Walk the frame-pointer chain (the kernel is built with
	 * -fno-omit-frame-pointer) while it stays on this CPU's stack. */
	for (int depth = 0; depth < 32; depth++) {
		const uint64_t *frame = (const uint64_t *)rbp;
		if (rbp < bottom || rbp + 16 > top || (rbp & 7))
			break;
		uint64_t ret = frame[1];
		if (!in_kernel_text(ret))
			break;
		pr_detail(" [<%016llx>]", (unsigned long long)ret);
		rbp = frame[0];
	}
}

bool (*arch_page_fault_hook)(const struct arch_fault *f);

/* #PF's error code (SDM vol. 3A 4.7) and the interrupted RFLAGS.IF, as the
 * generic hook reads them. */
static bool page_fault_hook(const struct trap_frame *f)
{
	struct arch_fault af = {
		.addr = read_cr2(),
		.pc = f->rip,
		.write = (f->error & 2) != 0,
		.fetch = (f->error & 16) != 0,
		.present = (f->error & 1) != 0,
		.user = (f->error & 4) != 0,
		.irqs_on = (f->rflags & (1u << 9)) != 0,
	};

	return arch_page_fault_hook && arch_page_fault_hook(&af);
}

extern const char arch_probe_read_insn[], arch_probe_read_fixup[];
extern const char arch_probe_write_insn[], arch_probe_write_fixup[];

void arch_trap(struct trap_frame *f)
{
	static volatile int depth;
	const char *name = f->vector < 32 ? exception_names[f->vector] : "unknown";

	if (f->vector == 2 && x86_watch_tick_nmi())
		return;
	if (f->vector == 14) {
		/* The probes' one faulting instruction each: resume at the
		 * fixup, which returns false (arch/fault.h). */
		if (f->rip == (uint64_t)arch_probe_read_insn) {
			f->rip = (uint64_t)arch_probe_read_fixup;
			return;
		}
		if (f->rip == (uint64_t)arch_probe_write_insn) {
			f->rip = (uint64_t)arch_probe_write_fixup;
			return;
		}
		if (page_fault_hook(f))
			return;
	}

	if (depth++) {
		/* A fault while reporting a fault: skip everything that could fault
		 * again and leave at once. */
		panic_exception_nested();
	}
	pr_err("exception: vector %llu (%s), error code 0x%llx, at rip 0x%llx on CPU %u",
	       (unsigned long long)f->vector, name, (unsigned long long)f->error,
	       (unsigned long long)f->rip, current_cpu_id());
	/* One exception is one error: what follows are its details. */
	if (f->vector == 14)
		pr_detail("exception: page fault address (CR2) 0x%llx: %s %s of a %s page",
		       (unsigned long long)read_cr2(),
		       f->error & 4 ? "user" : "kernel",
		       f->error & 16 ? "instruction fetch" : f->error & 2 ? "write" : "read",
		       f->error & 1 ? "present" : "not-present");
	pr_detail("RIP: %04llx:%016llx RFLAGS: %016llx", (unsigned long long)f->cs,
	       (unsigned long long)f->rip, (unsigned long long)f->rflags);
	pr_detail("RSP: %04llx:%016llx CR2: %016llx CR3: %016llx",
	       (unsigned long long)f->ss, (unsigned long long)f->rsp,
	       (unsigned long long)read_cr2(), (unsigned long long)read_cr3());
	pr_detail("RAX: %016llx RBX: %016llx RCX: %016llx", (unsigned long long)f->rax,
	       (unsigned long long)f->rbx, (unsigned long long)f->rcx);
	pr_detail("RDX: %016llx RSI: %016llx RDI: %016llx", (unsigned long long)f->rdx,
	       (unsigned long long)f->rsi, (unsigned long long)f->rdi);
	pr_detail("RBP: %016llx R08: %016llx R09: %016llx", (unsigned long long)f->rbp,
	       (unsigned long long)f->r8, (unsigned long long)f->r9);
	pr_detail("R10: %016llx R11: %016llx R12: %016llx", (unsigned long long)f->r10,
	       (unsigned long long)f->r11, (unsigned long long)f->r12);
	pr_detail("R13: %016llx R14: %016llx R15: %016llx", (unsigned long long)f->r13,
	       (unsigned long long)f->r14, (unsigned long long)f->r15);
	arch_backtrace(f->rip, f->rbp);
	panic_exception(name);
}
