/*
 * watchdog.h: the boot's watchdogs (docs/spare-metal.md, "A hung boot").
 *
 * The machine's watchdog: armed once the firmware tables are read (phase
 * watchdog), for the time this boot may take, so that a boot that hangs
 * resets the machine into whatever it boots next (a server's own OS, after
 * a one-shot memboot entry); petted at each phase's end only where the
 * hardware counts less than that; disarmed as the boot ends (exit.c's
 * exit_now(), after `done`, on every path, panics included). Which one:
 * the ACPI WDAT's, else the architecture's own (arch/watchdog.h), else
 * none, and the `watchdog` record says which. memboot.watchdog=off leaves
 * the hardware alone; memboot.watchdog=SECONDS sets the time.
 *
 * The watch: a deadline on one piece of work (a self-test) that the boot
 * CPU cannot miss, however the work hangs: the architecture's watch tick
 * (a non-maskable interrupt, arch/watchdog.h) checks it, and past it the
 * watcher's callback ends the boot, naming the work.
 *
 * Pure (settings.c, host-built): the key, what a boot may take, the plan.
 */
#ifndef MEMBOOT_KERNEL_SERVICES_WATCHDOG_H
#define MEMBOOT_KERNEL_SERVICES_WATCHDOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* memboot.watchdog=auto|off|SECONDS (kernel/services/watchdog/settings.c). */
#define WATCHDOG_MAX_S 86400u
struct watchdog_settings {
	bool off;                /* leave the hardware alone */
	uint32_t seconds;        /* 0: auto, watchdog_budget_s() */
};
extern struct watchdog_settings watchdog_settings;
struct param_table;
extern const struct param_table watchdog_param_table;

/* What a boot may take, from the settings of the subsystems that decide it
 * (kernel/init/main.c fills it). */
struct watchdog_budget {
	uint64_t memory_bytes;        /* usable memory in the map */
	uint64_t smp_timeout_ms;      /* memboot.smp_timeout_ms */
	uint64_t init_deadline_ms;    /* memboot.init_deadline_ms (0: none) */
	uint64_t memtest_passes;      /* memtest=N */
	uint32_t selftests;           /* self-tests memboot.selftest asks for */
	uint64_t selftest_deadline_ms;  /* memboot.selftest_deadline_ms (0: none) */
	bool bench;                   /* memboot.bench asks for one */
};

/* The seconds memboot.watchdog=auto arms for: WATCHDOG_BASE_S, the CPUs'
 * answer, twice the init deadline, 1 s per GiB and 4 s per GiB and memtest
 * pass, each self-test's deadline; WATCHDOG_UNBOUNDED_S for anything with
 * no deadline of its own (a bench, a deadline of 0); at most
 * WATCHDOG_MAX_S. */
#define WATCHDOG_BASE_S 60u
#define WATCHDOG_UNBOUNDED_S 600u
uint32_t watchdog_budget_s(const struct watchdog_budget *b);

/* How a boot of @want_s seconds uses a watchdog of @min_s..@max_s: the
 * seconds to arm, and whether the boot pets it at each phase's end (the
 * hardware counts less than the boot's time: the boot keeps that deadline
 * itself and stops petting past it). */
struct watchdog_plan {
	uint32_t arm_s;
	bool pets;
};
struct watchdog_plan watchdog_plan(uint32_t want_s, uint32_t min_s, uint32_t max_s);

/* A watchdog as the service drives it: the architecture's own, or the
 * WDAT's (phase watchdog builds that one over kernel/firmware/acpi/wdat.h). */
struct watchdog_device {
	const char *name;              /* "wdat", or arch_watchdog's name */
	uint32_t id;                   /* the device's identity (0: none to give) */
	uint32_t min_s, max_s;
	bool fired;                    /* it ended the previous boot */
	/* Returns the seconds the hardware counts; 0 with @why filled. */
	uint32_t (*arm)(void *ctx, uint32_t seconds, char *why, size_t why_bytes);
	void (*pet)(void *ctx);
	void (*disarm)(void *ctx);
	void *ctx;
};

/* The architecture's own watchdog (arch/watchdog.h) as @dev; false with @why. */
bool watchdog_find_own(struct watchdog_device *dev, char *why, size_t why_bytes);

/*
 * Arm @dev for @want_s seconds (@source: "auto" or "memboot.watchdog"); with
 * @dev NULL, say there is none and why (@none_why). Makes the `watchdog`
 * record and its line. Once per boot.
 */
void watchdog_start(const struct watchdog_device *dev, uint32_t want_s, const char *source,
		    const char *none_why);
/* A phase ended: pet the watchdog if the plan says so and the boot's time
 * is not over. */
void watchdog_phase_end(void);
/* The boot ends: stop the watchdog (nothing is printed: `done` was last). */
void watchdog_disarm(void);

/* The watch tick's timer, as phase watchdog finds it in the firmware's
 * tables (arch/watchdog.h); until then there is none. */
struct arch_tick_firmware;
void watchdog_set_tick(const struct arch_tick_firmware *fw);

/*
 * Watch the work about to run on the boot CPU: if it has not called
 * watchdog_unwatch() @limit_ns from now, @expired(@arg) runs on the boot
 * CPU in NMI context, the tick stopped, and must end the boot. False, with
 * @why filled, when there is no tick (the work then runs unwatched).
 */
bool watchdog_watch(uint64_t limit_ns, void (*expired)(void *arg), void *arg, char *why,
		    size_t why_bytes);
void watchdog_unwatch(void);

#endif
