/*
 * arch/smp.h: starting the other CPUs and waking them.
 *
 * The policy (which CPUs, on which node their memory lies, how long to wait,
 * what to do with one that never answers) is phase smp's
 * (kernel/init/smp.c); this is the mechanism, and what each architecture
 * decides for itself:
 *
 *   x86_64   the local APIC mode (xAPIC or x2APIC, memboot.apic=, the `apic`
 *            record); a real-mode trampoline in a page below 1 MiB; the
 *            INIT-SIPI-SIPI sequence, sent to a whole batch at once (Intel
 *            SDM vol. 3A 9.4.4); each AP finds its stack in a table by APIC
 *            id; a fixed IPI to wake a CPU
 *   arm64    PSCI CPU_ON over HVC or SMC per CPU (PSCI 1.1, 5.1.4; the
 *            FADT's ARM boot flags or the device tree's /psci say which),
 *            with the entry address and a context id: no low page; a GICv3
 *            SGI (ICC_SGI1R_EL1) to wake a CPU
 *   POWER    RTAS start-cpu per CPU (OPAL's opal_start_cpu() to come): no
 *            low page; wake-ups polled (an idle CPU spins on its mailbox)
 *
 * Every started CPU sets up its own tables and calls percpu_ap_main().
 */
#ifndef MEMBOOT_ARCH_SMP_H
#define MEMBOOT_ARCH_SMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cpu_state;      /* kernel/services/percpu.h */
struct param_table;    /* kernel/services/cmdline.h */

enum { ARCH_FW_CALL_NONE, ARCH_FW_CALL_HVC, ARCH_FW_CALL_SMC };
#define ARCH_SMP_MAX_IRQC_REGIONS 16

/* What the firmware's CPU table says (ACPI's MADT; a device tree's /cpus),
 * for the architecture's choice of how to reach the CPUs, and its report.
 * The table's extended form is the MADT's x2APIC entries (types 9 and 0xA);
 * an architecture without one sees none. */
struct arch_smp_firmware {
	bool have_table;              /* the firmware's CPU table was read */
	bool ext_entries;             /* it lists processors in the extended form */
	uint32_t nr_nmi_entries;      /* its NMI wiring entries (MADT types 4, 0xA) */
	uint32_t nr_ext_nmi_entries;  /* of those, in the extended form */
	uint32_t boot_nmi_pins;       /* the boot CPU's NMI wiring (acpi_lint_nmi_of()) */
	uint32_t max_hwid;            /* the largest hwid of a present CPU */
	/* Present CPUs arch_smp_unreachable() refuses: filled in by the caller
	 * after arch_smp_setup(), for the report. */
	uint32_t nr_unreachable;
	/* How the firmware starts a CPU, where its tables say (arm64: the
	 * device tree's /psci or the FADT's ARM boot flags): a call through
	 * ARCH_FW_CALL_HVC or ARCH_FW_CALL_SMC, with the CPU start function's
	 * id (0: the standard one); ARCH_FW_CALL_NONE where none is named. */
	uint32_t start_call;
	uint32_t start_fn;
	/* The interrupt controller's registers, where the tables give them
	 * (arm64: the GICv3 distributor, then its redistributor regions); 0
	 * regions where none is given (x86_64 finds its local APIC itself). */
	uint64_t irqc_dist;
	uint32_t nr_irqc_regions;
	struct { uint64_t base, bytes; } irqc_regions[ARCH_SMP_MAX_IRQC_REGIONS];
};

/*
 * Decide how CPUs are started and signalled on this machine (x86_64: the
 * local APIC mode from the CPU's features, @fw and memboot.apic=), before
 * any is. True when the decision's report is a warning (a request that
 * could not be honoured), to be made at once; else it may wait for the
 * consoles' drain.
 */
bool arch_smp_setup(const struct arch_smp_firmware *fw);

/* After arch_smp_setup(): NULL when a CPU with @hwid can be started and
 * sent IPIs; else why not, a phrase after the id ("needs x2APIC, which
 * this CPU lacks"). */
const char *arch_smp_unreachable(uint32_t hwid);

/* The decision's report (x86_64: the `apic` record) from @fw, a struct
 * arch_smp_firmware with nr_unreachable filled in: console_defer()'s form. */
void arch_smp_report(void *fw);

/* The architecture's command-line keys for the start-up (x86_64:
 * memboot.apic=), parsed with every subsystem's (kernel/init/cmdline.c). */
extern const struct param_table arch_smp_param_table;

/*
 * Get the boot CPU ready to start others and to be woken (x86_64: its
 * local APIC in the chosen mode, the wake-up and spurious vectors).
 * @fw_nmi_pins: the boot CPU's NMI wiring, as arch_percpu_init()'s.
 */
void arch_smp_init_boot_cpu(uint32_t fw_nmi_pins);

/* Bytes of start-up code that must lie in a page of its own below
 * arch_smp_low_page_limit() (x86_64: the real-mode trampoline, at most
 * 4 KiB); 0 when the firmware starts a CPU at any address (arm64, POWER). */
size_t arch_smp_low_page_bytes(void);
/* The end of where that page may lie (x86_64: 1 MiB, as the Startup IPI's
 * vector is a page number, SDM vol. 3A 9.4.4.1). */
uint64_t arch_smp_low_page_limit(void);

/* Prepare the start-up: the code into the low page at @page_phys (4 KiB
 * aligned; 0 when arch_smp_low_page_bytes() is 0). */
void arch_smp_prepare(uint64_t page_phys);

/* The table a starting CPU finds its state in: @n entries take
 * arch_smp_table_bytes(@n) at @mem, kept for as long as a CPU may start. */
size_t arch_smp_table_bytes(uint32_t n);
void arch_smp_set_table(void *mem, uint32_t n);
/* Enter the CPU of @cs (its hwid, stack and arch area set) in the table
 * before it is started; false if the table is full. */
bool arch_smp_register(const struct cpu_state *cs);

/*
 * Start the registered CPUs @hwids[0..@n): as one batch where the
 * architecture has one (x86_64: all INITs, then all Startup IPIs, twice;
 * a CPU already running ignores the second), one after another where the
 * firmware starts a CPU per call (PSCI CPU_ON, OPAL). Returns once every
 * start is sent, not when the CPUs run: each that does calls
 * percpu_ap_main(), and the caller waits for it there. A CPU the firmware
 * refuses to start (PSCI's DENIED...) is named and settled at once: its
 * cpu_state's boot_state moved from SMP_AP_WAITING to SMP_AP_REFUSED by
 * compare-and-swap, so that the caller does not wait for it.
 */
void arch_smp_start(const uint32_t *hwids, unsigned n, uint64_t page_phys);

/* Whether starting waits the legacy delays (x86_64: the MultiProcessor
 * Specification's 10 ms after INIT on old CPUs on bare metal); the `smp`
 * record's init_delay. */
bool arch_smp_start_delay(void);

/* Wake the CPU with @hwid from arch_irq_enable_and_wait() (it then looks
 * at its mailbox, kernel/services/percpu.h). */
void arch_wake_cpu(uint32_t hwid);

/* What arch calls: a started CPU's life in the kernel, once its own
 * tables are set up (kernel/services/percpu.c). Never returns. */
__attribute__((noreturn)) void percpu_ap_main(void);

#endif
