/*
 * params.c: every command-line key memboot accepts, in one table.
 */
#include "kernel/params.h"

#include <stdio.h>
#include <string.h>

#include "kernel/exit.h"

struct kernel_params kparams = {
	.selftests = 0,
	.clock_ms = 1000,
	.fault = FAULT_NONE,
	.exit = EXIT_METHOD_AUTO,
	.dump_mmap = false,
	.dump_bootinfo = false,
	.dump_acpi = false,
	.maxcpus = 256,
	.nosmp = false,
	.smp_timeout_ms = 2000,
	.smp_skip_apic = 0xffffffff,
	.init_policy = 1,                  /* deferred */
	.init_threads_mode = INIT_THREADS_NODE,
	.init_threads = 0,
	.early_pages = 32768,              /* one 128 MiB section, as Linux starts */
	.early_alloc_pages = 0,
	.trace = false,
	.alloc = "buddy",
	.ptlock = 0,                       /* split */
	.pt_zero = true,
	.bench_pt = false,
	.ptbench_mib = 64,
	.ptbench_reps = 3,
	.pcp = { .policy = PCP_AUTO, .steps = PCP_STEPS_MAINLINE, .high_fraction = 0,
		 .churn_mix = "kbuild", .churn_allocs = 20000, .churn_seed = 1 },
};

static bool parse_pcp(const char *value, void *ptr, char *err, size_t err_bytes)
{
	enum pcp_policy p;

	if (!pcp_parse_policy(value, &p, err, err_bytes))
		return false;
	*(unsigned *)ptr = p;
	return true;
}

static bool parse_pcp_steps(const char *value, void *ptr, char *err, size_t err_bytes)
{
	return pcp_parse_steps(value, ptr, err, err_bytes);
}

static const char *const selftest_names[] = { "clock", "jobs", "alloc", "hugetlb", "pt", "churn", NULL };
static const char *const ptlock_names[] = { "split", "global", NULL };

static const char *const init_names[] = { "serial", "deferred", "lazy", NULL };

/* memboot.init_threads=1|node|all|N */
static bool parse_init_threads(const char *value, void *ptr, char *err, size_t err_bytes)
{
	uint64_t n;

	if (value && strcmp(value, "node") == 0) {
		kparams.init_threads_mode = INIT_THREADS_NODE;
	} else if (value && strcmp(value, "all") == 0) {
		kparams.init_threads_mode = INIT_THREADS_ALL;
	} else if (value && cmdline_parse_u64(value, &n) && n >= 1 && n <= 256) {
		kparams.init_threads_mode = n == 1 ? INIT_THREADS_ONE : INIT_THREADS_N;
		kparams.init_threads = n;
	} else {
		snprintf(err, err_bytes, "1, node, all, or a thread count 1..256");
		return false;
	}
	return true;
}
static const char *const fault_names[] = {
	"none", "de", "ud", "gp", "pf", "df", "panic", "assert", "ap-ud", "ap-guard", "write-text",
	"exec-data", "lose-page", NULL };
static const char *const apic_names[] = { "auto", "xapic", "x2apic", NULL };
static const char *const exit_names[] = { "auto", "qemu", "halt", "reboot", "poweroff", NULL };

/* console=: each word adds a console (kernel/console/options.h). */
static bool parse_console(const char *value, void *ptr, char *err, size_t err_bytes)
{
	return console_parse_option(ptr, value, err, err_bytes);
}

/* memboot.selftest=a,b,c: a comma-separated list of self-test names. */
static bool parse_selftests(const char *value, void *ptr, char *err, size_t err_bytes)
{
	uint64_t mask = 0;
	const char *s = value;

	if (!value || !*value) {
		snprintf(err, err_bytes, "a comma-separated list of names from: clock, jobs, alloc, hugetlb, pt, churn");
		return false;
	}
	while (*s) {
		size_t n = strcspn(s, ",");
		bool found = false;
		for (unsigned i = 0; selftest_names[i]; i++) {
			if (strlen(selftest_names[i]) == n && strncmp(s, selftest_names[i], n) == 0) {
				mask |= 1ull << i;
				found = true;
			}
		}
		if (!found) {
			snprintf(err, err_bytes, "names from: clock, jobs, alloc, hugetlb, pt, churn; '%.*s' is not one",
				 (int)n, s);
			return false;
		}
		s += n;
		if (*s == ',')
			s++;
	}
	*(uint64_t *)ptr = mask;
	return true;
}

/* memboot.bench=pt: the benchmarks to run (only one so far). */
static bool parse_bench(const char *value, void *ptr, char *err, size_t err_bytes)
{
	if (!value || strcmp(value, "pt") != 0) {
		snprintf(err, err_bytes, "unknown benchmark '%s' (known: pt)", value ? value : "");
		return false;
	}
	*(bool *)ptr = true;
	return true;
}

const struct param kernel_param_table[] = {
	{ .key = "memboot.selftest", .type = PARAM_FUNC, .ptr = &kparams.selftests,
	  .fn = parse_selftests, .help = "self-tests to run: clock, jobs, alloc, hugetlb, pt, churn" },
	{ .key = "memboot.clock_ms", .type = PARAM_U64, .ptr = &kparams.clock_ms,
	  .min = 10, .max = 60000, .help = "length of the clock self-test busy-wait" },
	{ .key = "memboot.fault", .type = PARAM_ENUM, .ptr = &kparams.fault,
	  .choices = fault_names, .help = "raise a fault on purpose, to test reporting" },
	{ .key = "memboot.exit", .type = PARAM_ENUM, .ptr = &kparams.exit,
	  .choices = exit_names, .help = "how to leave: QEMU exit device, halt, reboot or poweroff" },
	{ .key = "memboot.apic", .type = PARAM_ENUM, .ptr = &kparams.apic,
	  .choices = apic_names, .help = "local APIC mode: auto, xapic or x2apic" },
	{ .key = "console", .type = PARAM_FUNC, .ptr = &kparams.console,
	  .fn = parse_console, .help = "a console: ttyS0..ttyS3[,BAUD], fb, vga or tty0" },
	{ .key = "memboot.dump_mmap", .type = PARAM_BOOL, .ptr = &kparams.dump_mmap,
	  .help = "print the firmware memory map as read, before normalization" },
	{ .key = "memboot.dump_acpi", .type = PARAM_BOOL, .ptr = &kparams.dump_acpi,
	  .help = "print every ACPI table in acpidump's text format" },
	{ .key = "maxcpus", .type = PARAM_U64, .ptr = &kparams.maxcpus, .min = 0, .max = 256,
	  .help = "bring up at most this many CPUs, the boot CPU included (0 acts as 1)" },
	{ .key = "nosmp", .type = PARAM_BOOL, .ptr = &kparams.nosmp,
	  .help = "run on the boot CPU only" },
	{ .key = "memboot.smp_timeout_ms", .type = PARAM_U64, .ptr = &kparams.smp_timeout_ms,
	  .min = 1, .max = 60000, .help = "how long to wait for CPUs to answer" },
	{ .key = "memboot.smp_skip_apic", .type = PARAM_U64, .ptr = &kparams.smp_skip_apic,
	  .min = 0, .max = 0xffffffff, .help = "debug: never start this APIC ID" },
	{ .key = "memboot.init", .type = PARAM_ENUM, .ptr = &kparams.init_policy,
	  .choices = init_names, .help = "how page descriptors are initialised" },
	{ .key = "memboot.init_threads", .type = PARAM_FUNC, .ptr = &kparams.init_threads,
	  .fn = parse_init_threads, .help = "threads per node for the parallel init" },
	{ .key = "memboot.early_pages", .type = PARAM_U64, .ptr = &kparams.early_pages,
	  .min = 0, .max = 1ULL << 40, .help = "pages the boot CPU initialises before the parallel part" },
	{ .key = "memboot.early_alloc_pages", .type = PARAM_U64, .ptr = &kparams.early_alloc_pages,
	  .min = 0, .max = 1ULL << 40, .help = "debug: early page allocations before the parallel part" },
	{ .key = "memboot.trace", .type = PARAM_BOOL, .ptr = &kparams.trace,
	  .help = "print a record per chunk of the parallel init" },
	{ .key = "memboot.alloc", .type = PARAM_STR, .ptr = kparams.alloc,
	  .max = sizeof(kparams.alloc), .help = "the page allocator behind the seam (docs/allocators.md)" },
	{ .key = "memboot.pcp", .type = PARAM_FUNC, .ptr = &kparams.pcp.policy,
	  .fn = parse_pcp, .help = "per-CPU page lists: off, fixed or auto (docs/pcp.md)" },
	{ .key = "memboot.pcp_steps", .type = PARAM_FUNC, .ptr = &kparams.pcp.steps,
	  .fn = parse_pcp_steps, .help = "steps of Linux's PCP auto-tuning series to apply" },
	{ .key = "memboot.pcp_high_fraction", .type = PARAM_U64, .ptr = &kparams.pcp.high_fraction,
	  .min = 0, .max = 1000000, .help = "high = node pages / fraction / CPUs (0: low watermark)" },
	{ .key = "memboot.churn_mix", .type = PARAM_STR, .ptr = kparams.pcp.churn_mix,
	  .max = sizeof(kparams.pcp.churn_mix), .help = "churn self-test load: kbuild, deep or net" },
	{ .key = "memboot.churn_allocs", .type = PARAM_U64, .ptr = &kparams.pcp.churn_allocs,
	  .min = 1, .max = 1ULL << 32, .help = "allocations per CPU in the churn self-test" },
	{ .key = "memboot.dump_bootinfo", .type = PARAM_BOOL, .ptr = &kparams.dump_bootinfo,
	  .help = "print the loader's boot information bytes as blob records" },
	{ .key = "memboot.ptlock", .type = PARAM_ENUM, .ptr = &kparams.ptlock,
	  .choices = ptlock_names, .help = "page-table locks: a lock per PMD table, or one per space" },
	{ .key = "memboot.pt_zero", .type = PARAM_BOOL, .ptr = &kparams.pt_zero,
	  .help = "zero each page a fault maps (on by default)" },
	{ .key = "memboot.bench", .type = PARAM_FUNC, .ptr = &kparams.bench_pt,
	  .fn = parse_bench, .help = "in-guest benchmarks to run: pt" },
	{ .key = "memboot.ptbench_mib", .type = PARAM_U64, .ptr = &kparams.ptbench_mib,
	  .min = 2, .max = 65536, .help = "region size of the page-table fault-in benchmark" },
	{ .key = "memboot.ptbench_reps", .type = PARAM_U64, .ptr = &kparams.ptbench_reps,
	  .min = 1, .max = 15, .help = "runs per cell of the fault-in benchmark (median)" },
};
const size_t kernel_param_count = sizeof(kernel_param_table) / sizeof(kernel_param_table[0]);
PARAM_TABLE(kernel_params_table, "kernel", kernel_param_table);
