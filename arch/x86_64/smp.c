/*
 * smp.c: application processor start-up and the idle loop.
 */
#include "x86/smp.h"

#include "x86/apic_mode.h"

#include <string.h>

#include "x86/apic.h"
#include "x86/cpu.h"
#include "x86/io.h"
#include "kernel/services/percpu.h"
#include "kernel/services/clock/time.h"

struct smp_boot_entry {
	uint32_t apic_id;
	uint32_t pad;
	uint64_t stack_top;
	struct percpu *pc;
};
_Static_assert(sizeof(struct smp_boot_entry) == 24, "ap_entry64 steps by 24 bytes");

/* Every running CPU by logical id (arch/percpu.h): the boot CPU's slot
 * alone until the SMP phase hands over a table sized for the CPUs there are;
 * read by the job runner and shootdowns ever after. */
static struct percpu *boot_slot[1];
struct percpu **percpu_of = boot_slot;
uint32_t nr_cpus_online;

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

size_t arch_trampoline_bytes(void)
{
	return (size_t)(trampoline_end - trampoline_start);
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
	memcpy((void *)(uintptr_t)page_phys, trampoline_start, arch_trampoline_bytes());
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

bool arch_smp_register(uint32_t apic_id, uint64_t stack_top, struct percpu *pc)
{
	if (smp_boot_count >= smp_boot_capacity)
		return false;
	smp_boot_table[smp_boot_count] = (struct smp_boot_entry){
		.apic_id = apic_id, .stack_top = stack_top, .pc = pc };
	/* The count last: an AP started earlier scans only whole entries. */
	__atomic_store_n(&smp_boot_count, smp_boot_count + 1, __ATOMIC_RELEASE);
	return true;
}

void arch_smp_init_boot_cpu(void)
{
	arch_idt_set_gate(APIC_WAKE_VECTOR, apic_wake_stub);
	arch_idt_set_gate(APIC_SPURIOUS_VECTOR, apic_spurious_stub);
	apic_init_this_cpu_in_mode();
}

bool arch_smp_init_delay(void)
{
	return apic_init_delay_needed(cpu_features.vendor, cpu_features.family,
				      cpu_features.has_hypervisor);
}

void arch_smp_kick(const uint32_t *apic_ids, unsigned n, uint64_t page_phys)
{
	uint8_t vector = (uint8_t)(page_phys >> 12);
	bool legacy = arch_smp_init_delay();

	for (unsigned i = 0; i < n; i++)
		apic_send_init(apic_ids[i]);
	if (legacy)
		time_delay_ns(10 * 1000 * 1000);
	/* Two STARTUPs, as the MP specification's sequence has them: a CPU
	 * already running ignores the second. */
	for (int round = 0; round < 2; round++) {
		for (unsigned i = 0; i < n; i++)
			apic_send_sipi(apic_ids[i], vector);
		time_delay_ns(legacy ? 300 * 1000 : 10 * 1000);
	}
}

void arch_wake_cpu(const struct percpu *pc)
{
	apic_send_ipi(pc->apic_id, APIC_WAKE_VECTOR);
}

/* First C code on an AP: descriptor tables and local APIC, then the
 * kernel's side (the start-up handshake and the work loop). */
void ap_main(struct percpu *pc)
{
	__asm__ volatile("fninit");
	arch_cpu_init_tables(pc);
	apic_init_this_cpu_in_mode();
	percpu_ap_main();
}
