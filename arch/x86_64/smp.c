/*
 * smp.c: starting application processors (arch/smp.h): the real-mode
 * trampoline, the table APs find their stacks in, INIT-SIPI-SIPI, the
 * wake-up IPI, and an AP's first C code.
 */
#include "arch/smp.h"

#include <string.h>

#include "arch/cpu.h"
#include "x86/apic.h"
#include "x86/apic_mode.h"
#include "x86/cpu.h"
#include "x86/percpu.h"
#include "kernel/services/percpu.h"
#include "kernel/services/clock/time.h"

struct smp_boot_entry {
	uint32_t apic_id;
	uint32_t pad;
	uint64_t stack_top;
	struct percpu *pc;
};
_Static_assert(sizeof(struct smp_boot_entry) == 24, "ap_entry64 steps by 24 bytes");

/* Read by ap_entry64 (trampoline.S) before the AP has a stack: the table's
 * address (memory the kernel gives, sized for the CPUs it starts) and the
 * entries filled in. */
struct smp_boot_entry *smp_boot_table;
uint32_t smp_boot_count;
static uint32_t smp_boot_capacity;

extern const char trampoline_start[], trampoline_end[];
extern uint32_t tramp_cr3, tramp_efer;
extern uint64_t tramp_entry;
extern void ap_entry64(void);
extern void apic_wake_stub(void);
extern void apic_spurious_stub(void);

void ap_main(struct percpu *pc);

size_t arch_smp_low_page_bytes(void)
{
	return (size_t)(trampoline_end - trampoline_start);
}

uint64_t arch_smp_low_page_limit(void)
{
	return 0x100000;
}

static void *tramp_field(uint64_t page_phys, const void *field)
{
	return (char *)(uintptr_t)page_phys + ((const char *)field - trampoline_start);
}

void arch_smp_prepare(uint64_t page_phys)
{
	uint32_t r[4];
	uint32_t efer = 1u << 8;             /* LME */
	uint32_t cr3 = (uint32_t)read_cr3();
	uint64_t entry = (uint64_t)ap_entry64;

	cpuid(0x80000001, 0, r);
	if (r[3] & (1u << 20))
		efer |= 1u << 11;            /* NXE, as the boot CPU has it */
	memcpy((void *)(uintptr_t)page_phys, trampoline_start, arch_smp_low_page_bytes());
	memcpy(tramp_field(page_phys, &tramp_cr3), &cr3, sizeof(cr3));
	memcpy(tramp_field(page_phys, &tramp_efer), &efer, sizeof(efer));
	memcpy(tramp_field(page_phys, &tramp_entry), &entry, sizeof(entry));
}

size_t arch_smp_table_bytes(uint32_t n)
{
	return (size_t)n * sizeof(struct smp_boot_entry);
}

void arch_smp_set_table(void *mem, uint32_t n)
{
	smp_boot_table = mem;
	smp_boot_capacity = n;
	smp_boot_count = 0;
}

bool arch_smp_register(const struct cpu_state *cs)
{
	if (smp_boot_count >= smp_boot_capacity)
		return false;
	smp_boot_table[smp_boot_count] = (struct smp_boot_entry){
		.apic_id = cs->hwid, .stack_top = cs->stack_top, .pc = cs->arch };
	/* The count last: an AP started earlier scans only whole entries. */
	__atomic_store_n(&smp_boot_count, smp_boot_count + 1, __ATOMIC_RELEASE);
	return true;
}

void arch_smp_init_boot_cpu(uint32_t fw_nmi_pins)
{
	this_cpu()->lint_nmi = fw_nmi_pins;
	arch_idt_set_gate(APIC_WAKE_VECTOR, apic_wake_stub);
	arch_idt_set_gate(APIC_SPURIOUS_VECTOR, apic_spurious_stub);
	apic_init_this_cpu_in_mode();
}

bool arch_smp_start_delay(void)
{
	return apic_init_delay_needed(cpu_features.vendor, cpu_features.family,
				      cpu_features.has_hypervisor);
}

/*
 * INIT-SIPI-SIPI to every APIC ID in @hwids at once (Intel SDM vol. 3A,
 * 9.4.4.1): all INITs, all first SIPIs, all second SIPIs. The waits between
 * are the MP specification's (10 ms after INIT, 300 us after each SIPI)
 * where arch_smp_start_delay() says the CPU needs them, 10 us after each
 * SIPI otherwise. The SIPI's vector is the trampoline's page number.
 */
void arch_smp_start(const uint32_t *hwids, unsigned n, uint64_t page_phys)
{
	uint8_t vector = (uint8_t)(page_phys >> 12);
	bool legacy = arch_smp_start_delay();

	for (unsigned i = 0; i < n; i++)
		apic_send_init(hwids[i]);
	if (legacy)
		time_delay_ns(10 * 1000 * 1000);
	/* Two STARTUPs, as the MP specification's sequence has them: a CPU
	 * already running ignores the second. */
	for (int round = 0; round < 2; round++) {
		for (unsigned i = 0; i < n; i++)
			apic_send_sipi(hwids[i], vector);
		time_delay_ns(legacy ? 300 * 1000 : 10 * 1000);
	}
}

void arch_wake_cpu(uint32_t hwid)
{
	apic_send_ipi(hwid, APIC_WAKE_VECTOR);
}

/* First C code on an AP: descriptor tables and local APIC, then the
 * kernel's side (the start-up handshake and the work loop). */
void ap_main(struct percpu *pc)
{
	__asm__ volatile("fninit");
	x86_cpu_init_tables(pc, false);
	apic_init_this_cpu_in_mode();
	percpu_ap_main();
}
